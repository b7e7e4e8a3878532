/**
 * `POST /v1/traces/normalize` over REST: the contract decodes the request (the body the edge read,
 * by its media type: JSON, JSON Lines or a zip, else 415; `?format=&select=`) → the CPU turn →
 * TraceReader.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import { AnalyzeService } from "../../Analysis/AnalyzeService.js"
import { Api } from "../../Api.js"
import { traceOfUpload } from "../../Intake/Json.js"
import { TraceReader } from "../../Intake/TraceReader.js"
import { forCaller } from "./RequestCaller.js"

export const TracesHttpLive = HttpApiBuilder.group(Api, "traces", (handlers) =>
  Effect.gen(function*() {
    const reader = yield* TraceReader
    const { pace } = yield* AnalyzeService
    return handlers.handle("normalize", ({ payload, request, urlParams }) =>
      forCaller(Effect.gen(function*() {
        yield* pace
        const body = yield* traceOfUpload(payload, request.headers["content-type"])
        // the normalized trace as it is: encoding it again through NormalizeResponse would walk every event
        return HttpServerResponse.unsafeJson(yield* reader.normalize(body, urlParams))
      })))
  }))
