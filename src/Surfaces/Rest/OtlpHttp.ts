/**
 * OTLP in over REST (DECISIONS §18): thin handlers over the OTLP receiver. The edge read the body
 * (inflating gzip under the body limit) and applied the guards; here the store comes first (503),
 * then the media type (415), then the receiver. Answers and errors are in the request's encoding:
 * the `Export…ServiceResponse`, or a `google.rpc.Status` (Forward.ts's `errorResponse`, the one
 * writer of error replies).
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import { Api } from "../../Api.js"
import { errorResponse } from "../../Edge/Forward.js"
import { headerValue } from "../../Edge/Headers.js"
import { CurrentRequest } from "../../Edge/RequestContext.js"
import { type ApiError, errorKinds, UnsupportedMediaType } from "../../Errors.js"
import type { Signal } from "../../Otlp/Wire/Model.js"
import { type OtlpBody, OtlpReceiver } from "../../Otlp/Receiver.js"
import { JsonBounds, parseJsonObject } from "../../Intake/Json.js"
import { OTLP_JSON_MAX_DEPTH } from "../../Otlp/Wire/Json.js"
import { bodyEncodingOf, encodingOf } from "../../Otlp/Wire/Status.js"
import { forCaller } from "./RequestCaller.js"

const EMPTY = new Uint8Array(0)

export const OtlpHttpLive = HttpApiBuilder.group(Api, "otlp", (handlers) =>
  Effect.gen(function*() {
    const receiver = yield* OtlpReceiver

    const serve = (signal: Signal) => ({ request }: { readonly request: { readonly headers: Readonly<Record<string, string | undefined>> } }) =>
      Effect.gen(function*() {
        const edge = yield* CurrentRequest
        const encoding = encodingOf(headerValue(request.headers, "content-type"))
        const answer = forCaller(Effect.gen(function*() {
          yield* receiver.ready
          const contentType = headerValue(request.headers, "content-type")
          if (bodyEncodingOf(contentType) === undefined) {
            return yield* new UnsupportedMediaType({
              message: `Content-Type ${JSON.stringify((contentType ?? "").slice(0, 60))} is not OTLP/HTTP's; send application/x-protobuf or application/json`
            })
          }
          const bytes = edge.body ?? EMPTY
          // OTLP/JSON parsed here under the JSON bounds (depth, keys: 400), the depth as deep as protobuf's AnyValues
          // may nest (Otlp/Wire/Json.ts); protobuf decoded by the receiver
          const bounds = yield* JsonBounds
          const body: OtlpBody = encoding === "json"
            ? { encoding, value: yield* Effect.provideService(parseJsonObject(bytes), JsonBounds, { ...bounds, maxDepth: Math.max(bounds.maxDepth, OTLP_JSON_MAX_DEPTH) }) }
            : { encoding, bytes }
          const partial = yield* receiver.receive(signal, body, edge.ownTelemetryOnly)
          const answered = yield* receiver.response(signal, encoding, partial)
          return HttpServerResponse.uint8Array(answered.body, { contentType: answered.contentType })
        }))
        return yield* answer.pipe(
          Effect.catchAll((error: ApiError) => {
            edge.noteFailure({ kind: errorKinds[error._tag].kind, message: error.message, pattern: null, mode: null })
            return Effect.succeed(errorResponse(error, encoding))
          })
        )
      })

    // `handleRaw`, the one left (docs/architecture.md): OTLP answers in the request's own encoding
    // (a protobuf or JSON `google.rpc.Status`, by OTLP/HTTP's rules), the store comes before the media
    // type, and OTLP/JSON nests deeper than the API's depth bound allows; the contract's payloads
    // (protobuf bytes, the JSON request) document the bodies for OpenAPI.
    return handlers
      .handleRaw("exportTraces", serve("traces"))
      .handleRaw("exportLogs", serve("logs"))
      .handleRaw("exportMetrics", serve("metrics"))
  }))
