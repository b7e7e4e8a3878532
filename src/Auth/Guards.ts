/**
 * The guards every request passes before it reaches the app (DECISIONS §5), in §16's order of
 * refusals (the edge checks Host before them): auth misconfiguration (500) → authentication (401)
 * → the key's role (403, Auth/Roles.ts) → rate limit (429) in the bucket of who is asking (API key
 * name, else client address). A wrong
 * key is refused before it is counted anywhere; guessing a key of 16 characters or more is not a
 * matter of quota. Nothing here reads the request body.
 * One core (time from the Clock the guards were built with, metrics updated in place), built once
 * by the composition root (src/Resources.ts), behind two interfaces: `Guards`, Effects only, for
 * every surface (MCP, the CLI); and `GuardsFastLane` (GuardsFastLane.ts), the same check answered
 * at once, which the edge runs on node's request event without entering the Effect runtime.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { ApiKeysFastLane } from "./ApiKeysFastLane.js"
import { AppConfig } from "../Config.js"
import { type GuardFailure, type GuardOutcome, type GuardPass, type GuardRequest, GuardsFastLane } from "./GuardsFastLane.js"
import { type Operation, roleRefusal } from "./Operations.js"
import { roleOf } from "./Roles.js"
import { AuthMisconfigured, type Forbidden, RateLimited, Unauthorized } from "../Errors.js"
import { authFailures, labelled, rateLimitBuckets, rateLimitRejections } from "../Observability/Metrics.js"
import { addressSet } from "../RateLimit/AddressRanges.js"
import { clientAddress } from "../RateLimit/ClientAddress.js"
import { type Decision, RateLimiterFastLane, type RateLimiterFastLaneShape } from "../RateLimit/RateLimiterFastLane.js"

export type { GuardFailure, GuardPass, GuardRequest } from "./GuardsFastLane.js"

export interface GuardsShape {
  /**
   * Runs the guards for one request, counting it against its rate-limit bucket (in Redis for
   * several replicas, DECISIONS §15): the pass, or the refusal.
   */
  readonly check: (request: GuardRequest) => Effect.Effect<GuardPass, GuardFailure>
  /**
   * Counts one more request against a bucket a passed request was counted in (each further tool
   * call of an MCP batch, DECISIONS §5): fails with the refusal when it is over the limit.
   */
  readonly charge: (bucket: string | null) => Effect.Effect<void, RateLimited>
  /**
   * The role check alone, for an operation inside a request the guards passed (an MCP tool call:
   * the edge checked POST /mcp, each tool names its own operation): fails with the 403 when the
   * verified key's role is below the operation's (counted as `check` counts it).
   */
  readonly permit: (keyName: string | null, operation: Operation) => Effect.Effect<void, Forbidden>
}

export class Guards extends Context.Tag("Guards")<Guards, GuardsShape>() {}

const NO_HEADERS: Readonly<Record<string, string>> = {}
const PASS: GuardOutcome = { _tag: "Pass", headers: NO_HEADERS, keyName: null, bucket: null }
const authFailure = {
  misconfigured: labelled(authFailures, { reason: "misconfigured" }),
  missing: labelled(authFailures, { reason: "missing" }),
  invalid: labelled(authFailures, { reason: "invalid" })
}
const roleFailures = labelled(authFailures, { reason: "role" })
const bucketsHeld = labelled(rateLimitBuckets, {})
const rejected = labelled(rateLimitRejections, {})

/** The one core of the guards: synchronous, or a promise with a Redis limit; both interfaces are built on it. */
const makeCore = Effect.gen(function*() {
  const config = yield* AppConfig
  const keys = yield* ApiKeysFastLane
  const rateLimiter = yield* RateLimiterFastLane
  const limiter = rateLimiter.enabled ? rateLimiter : undefined
  const clock = yield* Effect.clock
  const required = config.auth.required

  const trustedPeers = addressSet(config.trustedProxyAddresses)

  /** One request counted in a bucket: at once in this process, or as a promise when the window is Redis's (DECISIONS §15). */
  const decide = (active: RateLimiterFastLaneShape, bucket: string): Decision | Promise<Decision> =>
    active.shared === undefined ? active.decide(bucket, clock.unsafeCurrentTimeMillis()) : active.shared(bucket)

  /** The refusal a limiter's decision means, if any (counted); the bucket gauge updated. */
  const refusalOf = (decision: Decision): RateLimited | null => {
    if (limiter !== undefined) bucketsHeld(limiter.size())
    if (decision.allowed) return null
    rejected(1)
    return new RateLimited({
      message: `rate limit of ${decision.limit} requests exceeded; retry after ${decision.retryAfterSeconds} s`,
      retryAfterSeconds: decision.retryAfterSeconds,
      limit: decision.limit
    })
  }

  // The key's role (DECISIONS §16): only where keys are required, so they mean something.
  const permit = (keyName: string | null, operation: Operation): Forbidden | null => {
    if (!required || keyName === null) return null
    const forbidden = roleRefusal(roleOf(config.auth.roles, keyName), operation)
    if (forbidden !== null) roleFailures(1)
    return forbidden
  }

  const check = ({ address, forwardedFor, key: presented, operation }: GuardRequest): GuardOutcome | Promise<GuardOutcome> => {
    const authExempt = !operation.authenticated
    if (required && !authExempt && !keys.configured()) {
      authFailure.misconfigured(1)
      return {
        _tag: "Fail",
        error: new AuthMisconfigured({
          message: "SVC_API_REQUIRE_AUTH=true but no API keys are configured; set SVC_API_KEYS or SVC_API_KEYS_FILE"
        })
      }
    }
    const rateExempt = limiter === undefined || !operation.counted
    // Nothing to decide (health, probes, metrics): the key is not even looked at.
    if (authExempt && rateExempt) return PASS
    const keyName = presented === undefined ? undefined : keys.verify(presented)
    const bucket = limiter === undefined || rateExempt
      ? null
      : keyName !== undefined
      ? `key:${keyName}`
      : `ip:${clientAddress(forwardedFor, address, config.trustedProxies, trustedPeers)}`
    if (required && keyName === undefined && !authExempt) {
      authFailure[presented === undefined ? "missing" : "invalid"](1)
      return {
        _tag: "Fail",
        error: new Unauthorized({
          message: presented === undefined
            ? "an API key is required: send Authorization: Bearer <key> or X-API-Key: <key>"
            : "the API key is not valid"
        })
      }
    }
    if (!authExempt) {
      const forbidden = permit(keyName ?? null, operation)
      if (forbidden !== null) return { _tag: "Fail", error: forbidden }
    }
    const afterLimit = (decision: Decision | undefined): GuardOutcome => {
      let limitHeaders = NO_HEADERS
      if (decision !== undefined) {
        limitHeaders = { "x-ratelimit-limit": String(decision.limit), "x-ratelimit-remaining": String(decision.remaining) }
        const refusal = refusalOf(decision)
        if (refusal !== null) return { _tag: "Fail", error: refusal }
      }
      return { _tag: "Pass", headers: limitHeaders, keyName: keyName ?? null, bucket }
    }
    if (limiter === undefined || bucket === null) return afterLimit(undefined)
    const decision = decide(limiter, bucket)
    return decision instanceof Promise ? decision.then(afterLimit) : afterLimit(decision)
  }

  const charge = (bucket: string | null): RateLimited | null | Promise<RateLimited | null> => {
    if (limiter === undefined || bucket === null) return null
    const decision = decide(limiter, bucket)
    return decision instanceof Promise ? decision.then(refusalOf) : refusalOf(decision)
  }
  return { check, charge, permit }
})

const passOrFail = (outcome: GuardOutcome): Effect.Effect<GuardPass, GuardFailure> =>
  outcome._tag === "Pass" ? Effect.succeed(outcome) : Effect.fail(outcome.error)

const refused = <E>(refusal: E | null): Effect.Effect<void, E> => (refusal === null ? Effect.void : Effect.fail(refusal))

/** `Guards` and the edge's `GuardsFastLane`, from one core built once. */
export const GuardsLive = Layer.effectContext(Effect.map(makeCore, (core) =>
  Context.make(GuardsFastLane, { check: core.check }).pipe(Context.add(Guards, {
    check: (request) =>
      Effect.suspend(() => {
        const outcome = core.check(request)
        return outcome instanceof Promise ? Effect.flatMap(Effect.promise(() => outcome), passOrFail) : passOrFail(outcome)
      }),
    charge: (bucket) =>
      Effect.suspend(() => {
        const refusal = core.charge(bucket)
        return refusal instanceof Promise ? Effect.flatMap(Effect.promise(() => refusal), refused) : refused(refusal)
      }),
    permit: (keyName, operation) => Effect.suspend(() => refused(core.permit(keyName, operation)))
  }))))
