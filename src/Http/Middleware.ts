/**
 * The outer middleware around the whole HttpApi app. In order, per request:
 * request id → (guards, see Guards/) → the app → error normalisation → headers → metrics + access log.
 * Everything the framework answers on its own (unknown routes, wrong methods, defects) leaves
 * here as the documented `{detail:{error,message}}` body. Requests the node:http fast path
 * (FastPath.ts) started on arrive with a Handoff: their id, start time and guard result are reused.
 */
import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { Cause, Effect, Option } from "effect"
import { type ApiError, errorBody, errorKinds } from "../Errors.js"
import { AppConfig } from "../Config.js"
import { RequestTracker } from "../Lifecycle/Lifecycle.js"
import { ErrorReporting } from "../Observability/ErrorReporting.js"
import { countHttpNow, recordAnalyzeNow } from "../Observability/Metrics.js"
import { type GuardOutcome, makeGuards } from "./Guards.js"
import { accessLog, errorReply, hasUnreadBody, pathOf, SECURITY_HEADERS } from "./Replies.js"
import { CurrentRequest, type Handoff, handoffs, type RequestState, requestIdFrom } from "./RequestContext.js"
import { allowedMethods, routeTemplate } from "./Routes.js"

/** The JSON error response of an ApiError, with the headers its kind requires. */
export const errorResponse = (error: ApiError): HttpServerResponse.HttpServerResponse => {
  const reply = errorReply(error)
  return HttpServerResponse.text(reply.body, { status: reply.status, contentType: "application/json", headers: reply.headers })
}

const kindByStatus = new Map<number, string>(Object.values(errorKinds).map(({ kind, status }) => [status, kind]))

const isApiError = (u: unknown): u is ApiError =>
  typeof u === "object" && u !== null && "_tag" in u && typeof u._tag === "string" && u._tag in errorKinds &&
  "message" in u && typeof u.message === "string"

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

export const ANALYZE_PREFIX = "/v1/analyze/"

export const makeOuterMiddleware = (options: MiddlewareOptions) =>
  Effect.gen(function*() {
    const guards = yield* makeGuards
    const reporting = yield* ErrorReporting
    const tracker = yield* RequestTracker
    const { limits } = yield* AppConfig
    /** Refused from its Content-Length before a byte was read: the body is still coming. */
    const declaredTooLarge = (request: HttpServerRequest.HttpServerRequest) =>
      Number(request.headers["content-length"] ?? "0") > limits.maxBodyBytes

    /** Counted in flight from the first byte to the last, so draining knows when it is done. */
    const tracked = <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<never, R> =>
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
        const handoff = handoffs.get(NodeHttpServerRequest.toIncomingMessage(request))
        return Effect.acquireUseRelease(
          // A handed-on request is already counted (from the moment the fast path took it).
          Effect.sync(() => handoff === undefined && tracker.started()),
          () => handle(app, request, handoff === undefined ? null : handoff),
          () => Effect.sync(tracker.finished)
        )
      })

    const handle = <E, R>(
      app: HttpApp.Default<E, R>,
      request: HttpServerRequest.HttpServerRequest,
      handoff: Handoff | null
    ): HttpApp.Default<never, R> =>
      Effect.gen(function*() {
        const requestId = handoff?.requestId ?? requestIdFrom(request.headers["x-request-id"])
        const path = pathOf(request.url)
        const state: RequestState = {
          requestId,
          startedAt: handoff?.startedAt ?? performance.now(),
          analyzeMode: "unknown",
          analyzeStatus: null,
          errorMessage: null
        }

        const guarded: GuardOutcome = handoff === null
          ? guards.check(request.headers, Option.getOrUndefined(request.remoteAddress), path)
          : { _tag: "Pass", headers: handoff.limitHeaders }
        const response = guarded._tag === "Fail"
          ? errorResponse(guarded.error)
          : yield* app.pipe(
            Effect.catchAllCause((cause) => failureResponse(cause, request.method, path)),
            Effect.locally(CurrentRequest, state),
            Effect.annotateLogs("request_id", requestId)
          )
        if (guarded._tag === "Fail") {
          state.analyzeStatus = errorKinds[guarded.error._tag].kind
          state.errorMessage = guarded.error.message
        }

        const withHeaders = HttpServerResponse.setHeaders(response, {
          ...SECURITY_HEADERS,
          ...(guarded._tag === "Pass" ? guarded.headers : {}),
          "x-request-id": requestId,
          // A refused request may still be sending its body: close rather than read it.
          ...((response.status === 413 && declaredTooLarge(request)) || (guarded._tag === "Fail" && hasUnreadBody(request.headers))
            ? { connection: "close" }
            : {})
        })
        const seconds = (performance.now() - state.startedAt) / 1000
        const route = routeTemplate(request.method, path)
        countHttpNow(request.method.length <= 7 ? request.method : "OTHER", route, response.status)
        const isAnalyze = path.startsWith(ANALYZE_PREFIX) && request.method === "POST"
        const patternName = isAnalyze && options.slugs.has(path.slice(ANALYZE_PREFIX.length)) ? path.slice(ANALYZE_PREFIX.length) : null
        if (isAnalyze) {
          const status = state.analyzeStatus ?? (response.status === 200 ? "ok" : kindByStatus.get(response.status) ?? "error")
          recordAnalyzeNow({ surface: "rest", pattern: patternName ?? "unknown", mode: state.analyzeMode, status }, seconds)
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
