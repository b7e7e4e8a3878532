/**
 * The app behind the edge: the HttpApi app, given the edge's context of each request (provided
 * once, going down) and the body the edge read (replayed, Replay.ts), with every failure turned into the documented `{detail:{error,message}}`
 * response. The edge (Edge.ts) sets headers, counts, logs and reports; nothing of that is here.
 */
import { HttpApiDecodeError } from "@effect/platform/HttpApiError"
import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import { identity } from "effect/Function"
import * as Option from "effect/Option"
import { type ApiError, describeIssues, errorKinds, InternalError, MethodNotAllowed, NotFound, ValidationError } from "../Errors.js"
import type { Encoding } from "../Otlp/Wire/Model.js"
import { encodingOf, OTLP_PATHS } from "../Otlp/Wire/Status.js"
import { errorReply, pathOf } from "./Replies.js"
import { CurrentRequest, EdgeIncomingMessage, type EdgeRequest, underRequest } from "./RequestContext.js"
import { replayed, replayRefusal } from "./Replay.js"
import { allowedMethods, DIAGNOSE_PATH, matchRoute } from "./Routes.js"
import { DIAGNOSE_LABEL, recordAnalysis } from "../Observability/Metrics.js"

/** The error response of an ApiError, with the headers its kind requires (a Status on the OTLP endpoints). */
export const errorResponse = (error: ApiError, otlp?: Encoding): HttpServerResponse.HttpServerResponse => {
  const reply = errorReply(error, otlp)
  return typeof reply.body === "string"
    ? HttpServerResponse.text(reply.body, { status: reply.status, contentType: reply.contentType, headers: reply.headers })
    : HttpServerResponse.uint8Array(reply.body, { status: reply.status, contentType: reply.contentType, headers: reply.headers })
}

/**
 * The contract's own refusals as the documented 400. HttpApi answers a query parameter, path
 * segment or payload its schema refuses with its internal `HttpApiDecodeError` body (issues, a
 * schema's tree); as the API's middleware (Http.ts) this answers `{detail:{error:"validation_error",
 * message}}` instead, naming each parameter and what was wrong with it.
 */
export const answerDecodeRefusals = (app: HttpApp.Default): HttpApp.Default =>
  Effect.catchAllCause(app, (cause) => {
    const failure: unknown = Cause.squash(cause)
    if (!(failure instanceof HttpApiDecodeError)) return Effect.failCause(cause)
    const error = new ValidationError({ message: describeIssues(failure.issues) })
    return Effect.zipWith(CurrentRequest, HttpServerRequest.HttpServerRequest, (edge, request) => {
      recordRefusal(edge, request.method, pathOf(request.url), error)
      return errorResponse(error)
    })
  })

/**
 * A diagnose the contract refused before its handler ran (its body's 415 or 400, its query's 400),
 * recorded in `svc_requests_total` as the handler records the others (Settle.ts) and the edge
 * those it refuses itself: each diagnose once.
 */
const recordRefusal = (edge: EdgeRequest, method: string, path: string, error: ApiError) => {
  if (method !== "POST" || path !== DIAGNOSE_PATH) return
  recordAnalysis({ surface: "rest", pattern: DIAGNOSE_LABEL, mode: "unknown", status: errorKinds[error._tag].kind }, (performance.now() - edge.startedAt) / 1000)
}

const isApiError = (u: unknown): u is ApiError =>
  typeof u === "object" && u !== null && "_tag" in u && typeof u._tag === "string" && u._tag in errorKinds &&
  "message" in u && typeof u.message === "string"

/** What a failure of the app is, as a documented error (undefined: the client went away). */
const failureOf = (cause: Cause.Cause<unknown>, method: string, path: string): ApiError | undefined => {
  const failure = Cause.failureOption(cause)
  if (Option.isSome(failure)) {
    const error = failure.value
    if (isApiError(error)) return error
    if (HttpServerError.isServerError(error) && error._tag === "RouteNotFound") {
      const allowed = allowedMethods(path)
      return allowed.length > 0 && !allowed.includes(method)
        ? new MethodNotAllowed({ message: `${method} is not allowed on ${path}; use ${allowed.join(", ")}`, allow: allowed.join(", ") })
        : new NotFound({ message: `no route for ${method} ${path.slice(0, 200)}` })
    }
    if (HttpServerError.isServerError(error) && error._tag === "RequestError") {
      return new ValidationError({ message: "the request could not be read" })
    }
  }
  // a body the contract's payload could not be read from (Replay.ts): the intake's 415 or 400
  const defect = Cause.dieOption(cause)
  const refused = Option.isSome(defect) ? replayRefusal(defect.value, isApiError) : undefined
  if (refused !== undefined) return refused
  if (Cause.isInterruptedOnly(cause)) return undefined
  return new InternalError({ message: "the service failed unexpectedly; the request id identifies it in the logs" })
}

/**
 * The documented error a failed request answers with, noted to the edge for its error report, and
 * the log line an unexpected failure deserves (undefined: the client went away, nobody reads an
 * answer). One owner for the app behind the edge and for what the edge runs itself.
 */
export const answerToFailure = (cause: Cause.Cause<unknown>, method: string, path: string, edge: EdgeRequest) => {
  const error = failureOf(cause, method, path)
  if (error === undefined) return undefined
  edge.noteFailure({ kind: errorKinds[error._tag].kind, message: error.message, pattern: null, mode: null })
  const log = error._tag === "InternalError" ? Effect.logError("unexpected failure", Cause.pretty(cause)) : null
  return { error, log }
}

const respondToFailure = (request: HttpServerRequest.HttpServerRequest, edge: EdgeRequest) => (cause: Cause.Cause<unknown>) => {
  const path = pathOf(request.url)
  const answer = answerToFailure(cause, request.method, path, edge)
  // The client went away; nobody reads this response.
  if (answer === undefined) return Effect.succeed(HttpServerResponse.empty({ status: 499 }))
  const defect = Cause.dieOption(cause)
  if (Option.isSome(defect) && replayRefusal(defect.value, isApiError) !== undefined) recordRefusal(edge, request.method, path, answer.error)
  const response = errorResponse(answer.error, request.method === "POST" && OTLP_PATHS.has(path) ? encodingOf(request.headers["content-type"]) : undefined)
  return answer.log === null ? Effect.succeed(response) : Effect.as(answer.log, response)
}

/** The app as the edge hands requests to it (through `NodeHttpServer.makeHandler`). */
export const behindEdge = <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<never, R> =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const incoming = NodeHttpServerRequest.toIncomingMessage(request)
    const edge = incoming instanceof EdgeIncomingMessage ? incoming.edge : undefined
    if (edge === undefined) return Effect.die(new Error("a request reached the app without passing the edge"))
    return underRequest(
      edge,
      app.pipe(
        Effect.catchAllCause(respondToFailure(request, edge)),
        // the body the edge read, replayed: the contract decodes payloads from it (Replay.ts)
        edge.body === null
          ? identity
          : Effect.provideService(HttpServerRequest.HttpServerRequest, replayed(request, edge.body, matchRoute(request.method, pathOf(request.url)).bodies)),
        Effect.provideService(CurrentRequest, edge),
        Effect.annotateLogs("request_id", edge.requestId)
      )
    )
  })
