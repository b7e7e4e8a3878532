/**
 * The runs API over REST (DECISIONS §17): thin handlers over RunsService. Submit reads the body the
 * edge read (JSON, JSON Lines or a zip, as diagnose) with the query's options; a report renders as
 * diagnose renders (`?output=`, else `Accept`); the export streams JSON Lines page by page.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect, Option, Stream } from "effect"
import { Api } from "../../Api.js"
import { queryOptions } from "../../Intake/Intake.js"
import { parseTraceUpload, requireJson } from "../../Intake/Json.js"
import { Caller } from "../../Auth/Caller.js"
import { CurrentRequest } from "../../Edge/RequestContext.js"
import { StoreUnavailable, ValidationError } from "../../Errors.js"
import { filterOf, RunsService } from "../../Runs/RunsService.js"
import { outputOf, renderedResponse } from "./DiagnoseHttp.js"
import { RequestCaller } from "./RequestCaller.js"
import { withETag } from "./Responses.js"

const EMPTY = new Uint8Array(0)
const decoder = new TextDecoder()
const encoder = new TextEncoder()

/** The body's text for the trace file's lines (SARIF), when it is text of a size worth searching. */
const LINES_UP_TO = 8 * 1024 * 1024

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

export const RunsHttpLive = HttpApiBuilder.group(Api, "runs", (handlers) =>
  Effect.gen(function*() {
    const runs = yield* RunsService
    const forCaller = yield* RequestCaller
    return handlers
      .handleRaw("submitRuns", ({ request }) =>
        withRetryAfter(forCaller(Effect.gen(function*() {
          const edge = yield* CurrentRequest
          // the store before the body: 503 comes before 415 and 400 (DECISIONS §16)
          yield* runs.ready
          const contentType = request.headers["content-type"]
          yield* requireJson(contentType, { jsonLines: true })
          const bytes = edge.body ?? EMPTY
          const body = yield* parseTraceUpload(bytes, contentType)
          const text = bytes.byteLength <= LINES_UP_TO && !contentType?.includes("zip") ? decoder.decode(bytes) : undefined
          const submitted = yield* runs.submit(body, queryOptions(request.url), text)
          return HttpServerResponse.unsafeJson(submitted, { status: 202 })
        }))))
      .handle("listRuns", ({ urlParams }) => withETag(withRetryAfter(forCaller(runs.list(urlParams)))))
      .handle("getRun", ({ path }) => withETag(withRetryAfter(forCaller(runs.get(path.id)))))
      .handle("getRunTrace", ({ path }) => withRetryAfter(forCaller(runs.trace(path.id))))
      .handleRaw("getRunReport", ({ path, request }) =>
        withRetryAfter(forCaller(Effect.gen(function*() {
          const url = new URL(request.url, "http://localhost")
          const output = outputOf(url.searchParams.get("output") ?? undefined, request.headers["accept"])
          if (output instanceof ValidationError) return yield* output
          const { context, report } = yield* runs.report(path.id)
          return yield* renderedResponse(output, report, { ...context, artifact: url.searchParams.get("artifact") ?? undefined })
        }))))
      .handle("retryRun", ({ path }) => withRetryAfter(forCaller(runs.retry(path.id))))
      .handle("explainRun", ({ path }) => withRetryAfter(forCaller(runs.explain(path.id))))
      .handle("deleteRun", ({ path }) => withRetryAfter(forCaller(runs.remove(path.id))))
      .handleRaw("exportRuns", ({ urlParams }) =>
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
