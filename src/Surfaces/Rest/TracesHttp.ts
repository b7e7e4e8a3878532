/**
 * `POST /v1/traces/normalize` over REST: the body was read by the edge (under the byte limit);
 * here: 415 unless JSON or JSON Lines → the CPU turn → TraceReader.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"
import { AnalyzeService } from "../../Analysis/AnalyzeService.js"
import { queryOptions } from "../../Intake/Intake.js"
import { Api } from "../../Api.js"
import { parseTraceUpload, requireJson } from "../../Intake/Json.js"
import { CurrentRequest } from "../../Edge/RequestContext.js"
import { TraceReader } from "../../Intake/TraceReader.js"
import { RequestCaller } from "./RequestCaller.js"

const EMPTY = new Uint8Array(0)

export const TracesHttpLive = HttpApiBuilder.group(Api, "traces", (handlers) =>
  Effect.gen(function*() {
    const reader = yield* TraceReader
    const { pace } = yield* AnalyzeService
    const forCaller = yield* RequestCaller
    return handlers.handleRaw("normalize", ({ request }) =>
      forCaller(Effect.gen(function*() {
        const edge = yield* CurrentRequest
        const contentType = request.headers["content-type"]
        yield* requireJson(contentType, { jsonLines: true })
        yield* pace
        const body = yield* parseTraceUpload(edge.body ?? EMPTY, contentType)
        return HttpServerResponse.unsafeJson(yield* reader.normalize(body, queryOptions(request.url)))
      })))
  }))
