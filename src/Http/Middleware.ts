/**
 * The outer middleware around the whole HttpApi app. In order, per request:
 * request id → (guards, see Guards/) → the app → error normalisation → headers → metrics + access log.
 * Everything the framework answers on its own (unknown routes, wrong methods, defects) leaves
 * here as the documented `{detail:{error,message}}` body.
 */
import { type HttpApp, HttpServerError, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Cause, Effect, FiberRef, LogLevel, Metric, Option } from "effect"
import { type ApiError, errorBody, errorKinds } from "../Errors.js"
import { AppConfig } from "../Config.js"
import { RequestTracker } from "../Lifecycle/Lifecycle.js"
import { ErrorReporting } from "../Observability/ErrorReporting.js"
import { httpRequestsTotal, recordAnalyze } from "../Observability/Metrics.js"
import { makeGuards } from "./Guards.js"
import { makeStaticResponses, type StaticResponse } from "./StaticResponses.js"
import { CurrentRequest, type RequestState, requestIdFrom } from "./RequestContext.js"
import { allowedMethods, routeTemplate } from "./Routes.js"

/** Applied to every response (CSP allows the self-hosted docs pages and nothing else). */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "content-security-policy": [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "worker-src 'self' blob:",
    "object-src 'none'",
    "frame-ancestors 'none'",
    "base-uri 'self'",
    "form-action 'self'"
  ].join("; "),
  "cross-origin-opener-policy": "same-origin",
  "cache-control": "no-store"
}

/** The JSON error response of an ApiError, with the headers its kind requires. */
export const errorResponse = (error: ApiError): HttpServerResponse.HttpServerResponse => {
  const { kind, status } = errorKinds[error._tag]
  const response = HttpServerResponse.unsafeJson(errorBody(kind, error.message), { status })
  switch (error._tag) {
    case "Unauthorized":
      return HttpServerResponse.setHeader(response, "www-authenticate", 'Bearer realm="svc"')
    case "RateLimited":
      return HttpServerResponse.setHeaders(response, {
        "retry-after": String(error.retryAfterSeconds),
        "x-ratelimit-limit": String(error.limit),
        "x-ratelimit-remaining": "0"
      })
    default:
      return response
  }
}

const kindByStatus = new Map<number, string>(Object.values(errorKinds).map(({ kind, status }) => [status, kind]))

const isApiError = (u: unknown): u is ApiError =>
  typeof u === "object" && u !== null && "_tag" in u && typeof u._tag === "string" && u._tag in errorKinds &&
  "message" in u && typeof u.message === "string"

const pathOf = (url: string): string => {
  const q = url.indexOf("?")
  return q === -1 ? url : url.slice(0, q)
}

/** Turns whatever the app failed with into a documented error response. */
const failureResponse = (
  cause: Cause.Cause<unknown>,
  method: string,
  path: string
): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
  const failure = Cause.failureOption(cause)
  if (Option.isSome(failure)) {
    const error = failure.value
    if (isApiError(error)) return Effect.succeed(errorResponse(error))
    if (HttpServerError.isServerError(error) && error._tag === "RouteNotFound") {
      const allowed = allowedMethods(path)
      if (allowed.length > 0 && !allowed.includes(method)) {
        return Effect.succeed(
          HttpServerResponse.setHeader(
            HttpServerResponse.unsafeJson(
              errorBody("method_not_allowed", `${method} is not allowed on ${path}; use ${allowed.join(", ")}`),
              { status: 405 }
            ),
            "allow",
            allowed.join(", ")
          )
        )
      }
      return Effect.succeed(
        HttpServerResponse.unsafeJson(errorBody("not_found", `no route for ${method} ${path.slice(0, 200)}`), { status: 404 })
      )
    }
    if (HttpServerError.isServerError(error) && error._tag === "RequestError") {
      return Effect.succeed(
        HttpServerResponse.unsafeJson(errorBody("validation_error", "the request could not be read"), { status: 400 })
      )
    }
  }
  if (Cause.isInterruptedOnly(cause)) {
    // The client went away; nobody reads this response.
    return Effect.succeed(HttpServerResponse.empty({ status: 499 }))
  }
  return Effect.logError("unexpected failure", Cause.pretty(cause)).pipe(
    Effect.as(
      HttpServerResponse.unsafeJson(
        errorBody("internal_error", "the service failed unexpectedly; the request id identifies it in the logs"),
        { status: 500 }
      )
    )
  )
}

export interface MiddlewareOptions {
  /** Pattern slugs, so analyze metrics label unknown names `unknown`. */
  readonly slugs: ReadonlySet<string>
}

const ANALYZE_PREFIX = "/v1/analyze/"

/** The one access-log line of a request. */
const accessLog = (method: string, path: string, status: number, seconds: number, requestId: string) =>
  Effect.logInfo("request").pipe(
    Effect.annotateLogs({
      method,
      path: path.length > 200 ? `${path.slice(0, 200)}…` : path,
      status,
      duration_ms: Math.round(seconds * 100_000) / 100,
      request_id: requestId
    })
  )

/** Tagged counters are made once per (method, route, code), not on every request. */
const httpCounters = new Map<string, Metric.Metric.Counter<number>>()
const countHttp = (method: string, route: string, code: number) => {
  const key = `${method} ${route} ${code}`
  let counter = httpCounters.get(key)
  if (counter === undefined) {
    counter = httpRequestsTotal.pipe(
      Metric.tagged("method", method),
      Metric.tagged("route", route),
      Metric.tagged("code", String(code))
    )
    httpCounters.set(key, counter)
  }
  return Metric.increment(counter)
}

const hasUnreadBody = (request: HttpServerRequest.HttpServerRequest) =>
  (request.headers["content-length"] !== undefined && request.headers["content-length"] !== "0") ||
  request.headers["transfer-encoding"] !== undefined

export const makeOuterMiddleware = (options: MiddlewareOptions) =>
  Effect.gen(function*() {
    const guard = yield* makeGuards
    const reporting = yield* ErrorReporting
    const tracker = yield* RequestTracker
    const statics = yield* makeStaticResponses
    const { limits } = yield* AppConfig
    /** Refused from its Content-Length before a byte was read: the body is still coming. */
    const declaredTooLarge = (request: HttpServerRequest.HttpServerRequest) =>
      Number(request.headers["content-length"] ?? "0") > limits.maxBodyBytes
    const accessLogs = yield* FiberRef.get(FiberRef.currentMinimumLogLevel).pipe(
      Effect.map((level) => LogLevel.lessThanEqual(level, LogLevel.Info))
    )

    /** GETs whose bytes never change: guards, headers, metrics and log, then the prepared bytes. */
    const serveStatic = (request: HttpServerRequest.HttpServerRequest, path: string, prepared: StaticResponse) =>
      Effect.gen(function*() {
        const started = performance.now()
        const requestId = requestIdFrom(request.headers["x-request-id"])
        const guarded = yield* Effect.either(guard(request, path))
        const response = guarded._tag === "Left"
          ? errorResponse(guarded.left)
          : HttpServerResponse.uint8Array(prepared.body, { contentType: prepared.contentType })
        const headers = guarded._tag === "Right" ? guarded.right.headers : {}
        yield* countHttp("GET", prepared.route, response.status)
        if (accessLogs) {
          yield* accessLog("GET", path, response.status, (performance.now() - started) / 1000, requestId)
        }
        return HttpServerResponse.setHeaders(response, { ...SECURITY_HEADERS, ...headers, "x-request-id": requestId })
      })
    /** Counted in flight from the first byte to the last, so draining knows when it is done. */
    const tracked = <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<never, R> =>
      Effect.acquireUseRelease(
        Effect.sync(tracker.started),
        () =>
          Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
            if (request.method === "GET") {
              const path = pathOf(request.url)
              const prepared = statics.get(path)
              if (prepared !== undefined) return serveStatic(request, path, prepared)
            }
            return handle(app)
          }),
        () => Effect.sync(tracker.finished)
      )

    const handle = <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<never, R> =>
      Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const requestId = requestIdFrom(request.headers["x-request-id"])
      const path = pathOf(request.url)
      const state: RequestState = {
        requestId,
        startedAt: performance.now(),
        analyzeMode: "unknown",
        analyzeStatus: null,
        errorMessage: null
      }

      const guarded = yield* Effect.either(guard(request, path))
      const response = guarded._tag === "Left"
        ? errorResponse(guarded.left)
        : yield* app.pipe(
          Effect.catchAllCause((cause) => failureResponse(cause, request.method, path)),
          Effect.locally(CurrentRequest, state),
          Effect.annotateLogs("request_id", requestId)
        )
      if (guarded._tag === "Left") {
        state.analyzeStatus = errorKinds[guarded.left._tag].kind
        state.errorMessage = guarded.left.message
      }

      const withHeaders = HttpServerResponse.setHeaders(response, {
        ...SECURITY_HEADERS,
        ...(guarded._tag === "Right" ? guarded.right.headers : {}),
        "x-request-id": requestId,
        // A refused request may still be sending its body: close rather than read it.
        ...((response.status === 413 && declaredTooLarge(request)) || (guarded._tag === "Left" && hasUnreadBody(request))
          ? { connection: "close" }
          : {})
      })
    const seconds = (performance.now() - state.startedAt) / 1000
    const route = routeTemplate(request.method, path)
    yield* countHttp(request.method.length <= 7 ? request.method : "OTHER", route, response.status)
    const isAnalyze = path.startsWith(ANALYZE_PREFIX) && request.method === "POST"
    const patternName = isAnalyze && options.slugs.has(path.slice(ANALYZE_PREFIX.length)) ? path.slice(ANALYZE_PREFIX.length) : null
    if (isAnalyze) {
      const status = state.analyzeStatus ?? (response.status === 200 ? "ok" : kindByStatus.get(response.status) ?? "error")
      yield* recordAnalyze({ surface: "rest", pattern: patternName ?? "unknown", mode: state.analyzeMode, status }, seconds)
    }
    if (response.status >= 500 && response.status !== 503) {
      yield* reporting.report({
        kind: state.analyzeStatus ?? kindByStatus.get(response.status) ?? "internal_error",
        status: response.status,
        message: state.errorMessage ?? `HTTP ${response.status}`,
        requestId,
        pattern: patternName,
        mode: isAnalyze ? state.analyzeMode : null
      })
    }
    yield* accessLog(request.method, path, response.status, seconds, requestId)
    return withHeaders
  })

    return tracked
  })
