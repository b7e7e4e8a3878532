/**
 * The runs API over REST (DECISIONS §17): thin handlers over RunsService. Submit's body and query
 * are decoded by the contract (a trace as diagnose takes it: JSON, JSON Lines or a zip, with the
 * query's options), after StoreReady has asked the store; a report renders as diagnose renders
 * (`?output=`, else `Accept`); the export streams JSON Lines page by page.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { Api } from "../../Api.js"
import { StoreReady } from "../../Contract/RunsContract.js"
import { traceOfUpload } from "../../Intake/Json.js"
import { Caller } from "../../Auth/Caller.js"
import { StoreUnavailable } from "../../Errors.js"
import { filterOf, RunsService } from "../../Runs/RunsService.js"
import { outputOf, renderedResponse, sentText } from "./DiagnoseHttp.js"
import { forCaller } from "./RequestCaller.js"
import { withETag } from "./Responses.js"

const encoder = new TextEncoder()

/**
 * HttpApi writes a declared error's status and body, never its headers: a 503 `store_unavailable`
 * gets its Retry-After here, as the edge's own refusals get theirs (Edge/Replies.ts).
 */
export const withRetryAfter = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.tapError(effect, (error) =>
    error instanceof StoreUnavailable
      ? HttpApp.appendPreResponseHandler((_request, response) =>
        Effect.succeed(HttpServerResponse.setHeader(response, "retry-after", String(error.retryAfterSeconds))))
      : Effect.void)

/** StoreReady: the store's readiness, with the Retry-After of its 503. */
const StoreReadyLive = Layer.effect(StoreReady, Effect.map(RunsService, (runs) => withRetryAfter(runs.ready)))

const RunsHandlers = HttpApiBuilder.group(Api, "runs", (handlers) =>
  Effect.gen(function*() {
    const runs = yield* RunsService
    return handlers
      .handle("submitRuns", ({ payload, request, urlParams }) =>
        withRetryAfter(forCaller(Effect.gen(function*() {
          const body = yield* traceOfUpload(payload, request.headers["content-type"])
          // the trace file's line of each event source is kept with the run (SARIF)
          const submitted = yield* runs.submit(body, urlParams, yield* sentText(request))
          return HttpServerResponse.unsafeJson(submitted, { status: 202 })
        }))))
      .handle("listRuns", ({ urlParams }) => withETag(withRetryAfter(forCaller(runs.list(urlParams)))))
      .handle("getRun", ({ path }) => withETag(withRetryAfter(forCaller(runs.get(path.id)))))
      .handle("getRunTrace", ({ path }) => withRetryAfter(forCaller(runs.trace(path.id))))
      .handle("getRunReport", ({ path, request, urlParams }) =>
        withRetryAfter(forCaller(Effect.gen(function*() {
          const output = outputOf(urlParams.output, request.headers["accept"])
          const { context, report } = yield* runs.report(path.id)
          return yield* renderedResponse(output, report, { ...context, artifact: urlParams.artifact })
        }))))
      .handle("retryRun", ({ path }) => withRetryAfter(forCaller(runs.retry(path.id))))
      .handle("explainRun", ({ path }) => withRetryAfter(forCaller(runs.explain(path.id))))
      .handle("deleteRun", ({ path }) => withRetryAfter(forCaller(runs.remove(path.id))))
      // streamed: the platform takes a response from `.handle` as it is
      .handle("exportRuns", ({ urlParams }) =>
        withRetryAfter(forCaller(Effect.gen(function*() {
          // the pages after the first are read as the answer streams, after the handler returned: for the same caller
          const caller = yield* Caller
          const filter = filterOf(urlParams)
          // The first page before the answer starts, so an unavailable store is a 503, not a cut stream.
          const first = yield* runs.exportPage(filter, null)
          const pages = Stream.paginateEffect(first.next, (cursor) =>
            cursor === null
              ? Effect.succeed([[], Option.none()] as const)
              : Effect.map(Effect.provideService(runs.exportPage(filter, cursor), Caller, caller), (page) => [page.lines, Option.some(page.next)] as const)
          )
          const rest = Stream.flattenIterables(pages).pipe(
            // a store lost mid-export ends the stream (the status was sent); the log says why
            Stream.catchAll(() => Stream.empty)
          )
          const lines = Stream.concat(Stream.fromIterable(first.lines), first.next === null ? Stream.empty : rest)
          return HttpServerResponse.stream(Stream.map(lines, (line) => encoder.encode(`${line}\n`)), { contentType: "application/x-ndjson" })
        }))))
  }))

export const RunsHttpLive = RunsHandlers.pipe(Layer.provide(StoreReadyLive))
