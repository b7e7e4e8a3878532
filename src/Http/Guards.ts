/**
 * The guards every request passes before it reaches the app (DECISIONS §5), in this order:
 * auth misconfiguration (500) → who is asking (API key name, else client address) → rate limit
 * (429) → authentication (401). Rate limiting comes before the 401 so that guessing keys costs the
 * guesser's address its quota. Nothing here reads the request body.
 */
import type { HttpServerRequest } from "@effect/platform"
import { Effect, Metric, Option } from "effect"
import { ApiKeys } from "../Auth/ApiKeys.js"
import { AppConfig } from "../Config.js"
import { AuthMisconfigured, RateLimited, Unauthorized } from "../Errors.js"
import { authFailures, rateLimitBuckets, rateLimitRejections } from "../Observability/Metrics.js"
import { clientAddress } from "../RateLimit/ClientAddress.js"
import { RateLimiterOption } from "../RateLimit/RateLimiter.js"

const AUTH_EXEMPT = new Set(["/healthz", "/livez", "/readyz", "/metrics", "/openapi.json"])
const RATE_EXEMPT = new Set(["/healthz", "/readyz", "/livez", "/metrics", "/openapi.json"])

export const isAuthExempt = (path: string) =>
  AUTH_EXEMPT.has(path) || path === "/docs" || path.startsWith("/docs/") || path === "/redoc" || path.startsWith("/redoc/")
export const isRateExempt = (path: string) => RATE_EXEMPT.has(path)

/** The key a request presents: `Authorization: Bearer <key>` (preferred) or `X-API-Key: <key>`. */
export const presentedKey = (headers: HttpServerRequest.HttpServerRequest["headers"]): string | undefined => {
  const authorization = headers["authorization"]
  if (authorization !== undefined) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization)
    if (match?.[1] !== undefined) return match[1]
  }
  const apiKey = headers["x-api-key"]
  return apiKey !== undefined && apiKey.length > 0 ? apiKey.trim() : undefined
}

export type GuardFailure = Unauthorized | AuthMisconfigured | RateLimited

export interface GuardPass {
  /** X-RateLimit-* headers for the response (empty on exempt paths or without a limit). */
  readonly headers: Readonly<Record<string, string>>
}

export const makeGuards = Effect.gen(function*() {
  const config = yield* AppConfig
  const keys = yield* ApiKeys
  const limiter = yield* RateLimiterOption
  const required = config.auth.required

  return (request: HttpServerRequest.HttpServerRequest, path: string): Effect.Effect<GuardPass, GuardFailure> =>
    Effect.gen(function*() {
      const authExempt = isAuthExempt(path)
      if (required && !authExempt && !keys.configured()) {
        yield* Metric.update(authFailures.pipe(Metric.tagged("reason", "misconfigured")), 1)
        return yield* new AuthMisconfigured({
          message: "SVC_API_REQUIRE_AUTH=true but no API keys are configured; set SVC_API_KEYS or SVC_API_KEYS_FILE"
        })
      }
      const presented = presentedKey(request.headers)
      const keyName = presented === undefined ? undefined : keys.verify(presented)
      let headers: Record<string, string> = {}
      if (Option.isSome(limiter) && !isRateExempt(path)) {
        const bucket = keyName !== undefined
          ? `key:${keyName}`
          : `ip:${clientAddress(request.headers["x-forwarded-for"], Option.getOrUndefined(request.remoteAddress), config.trustedProxies)}`
        const decision = yield* limiter.value.check(bucket)
        yield* Metric.set(rateLimitBuckets, limiter.value.size())
        headers = { "x-ratelimit-limit": String(decision.limit), "x-ratelimit-remaining": String(decision.remaining) }
        if (!decision.allowed) {
          yield* Metric.update(rateLimitRejections, 1)
          return yield* new RateLimited({
            message: `rate limit of ${decision.limit} requests exceeded; retry after ${decision.retryAfterSeconds} s`,
            retryAfterSeconds: decision.retryAfterSeconds,
            limit: decision.limit
          })
        }
      }
      if (required && !authExempt && keyName === undefined) {
        yield* Metric.update(authFailures.pipe(Metric.tagged("reason", presented === undefined ? "missing" : "invalid")), 1)
        return yield* new Unauthorized({
          message: presented === undefined
            ? "an API key is required: send Authorization: Bearer <key> or X-API-Key: <key>"
            : "the API key is not valid"
        })
      }
      return { headers }
    })
})
