/**
 * The contract of `POST /v1/traces/normalize` (DECISIONS §12): a raw trace in, the service's
 * normalized form out, exactly as analyze and diagnose read it.
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import { Access, EndpointAccess } from "./Access.js"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import {
  AuthMisconfiguredWire,
  RateLimitedWire,
  RequestTooLargeWire,
  UnauthorizedWire,
  UnsupportedMediaTypeWire,
  UnsupportedTraceFormatWire,
  ValidationErrorWire
} from "../Errors.js"
import { FormatOption, NormalizedTrace, TraceFormat } from "../Traces/Model.js"
import { AnalyzeQueryParams, RawTrace, TraceSelect } from "./AnalyzeContract.js"
import { traceUpload } from "./TraceBodies.js"

export const NormalizeEnvelope = Schema.Struct({
  trace: RawTrace,
  format: Schema.optional(FormatOption),
  select: Schema.optional(TraceSelect)
}).annotations({ identifier: "NormalizeEnvelope", description: "The trace under `trace`, with its format and a trace to select." })

export const NormalizeRequest = Schema.Union(NormalizeEnvelope, RawTrace).annotations({
  identifier: "NormalizeRequest",
  description: "A trace as it is, or in the envelope `{trace, format?, select?}`. JSON Lines bodies (application/x-ndjson) are read as a list of records."
})

/** `?format=&select=` for a body sent as it is (DECISIONS §16); the envelope wins. */
export const NormalizeParams = Schema.Struct({ format: AnalyzeQueryParams.format, select: AnalyzeQueryParams.select })

/** The payload: the JSON body (NormalizeRequest), JSON Lines, or an Inspect AI log. */
export const NormalizeUpload = traceUpload(NormalizeRequest)

export const NormalizedOne = Schema.Struct({
  format: TraceFormat,
  events: Schema.Int.annotations({ description: "Events of the normalized trace." }),
  trace: NormalizedTrace
}).annotations({ identifier: "NormalizedOne", description: "The body held one trace (or `select` chose one)." })

export const NormalizedMany = Schema.Struct({
  format: TraceFormat,
  traces: Schema.Array(NormalizedTrace).annotations({ description: "Every trace of the body, in order; analyze one with `select` (its id or index)." })
}).annotations({ identifier: "NormalizedMany", description: "The body held several traces (distinct trace ids, several records)." })

export const NormalizeResponse = Schema.Union(NormalizedOne, NormalizedMany).annotations({ identifier: "NormalizeResponse" })

export class TracesGroup extends HttpApiGroup.make("traces")
  .add(
    HttpApiEndpoint.post("normalize", "/v1/traces/normalize")
      .setPayload(NormalizeUpload)
      .setUrlParams(NormalizeParams)
      .addSuccess(NormalizeResponse)
      .addError(ValidationErrorWire)
      .addError(UnsupportedTraceFormatWire)
      .addError(UnauthorizedWire)
      .addError(RequestTooLargeWire)
      .addError(UnsupportedMediaTypeWire)
      .addError(RateLimitedWire)
      .addError(AuthMisconfiguredWire)
      .annotate(OpenApi.Summary, "Normalize a trace in any supported format")
      .annotate(
        OpenApi.Description,
        "Detects the format (or reads the one named), de-duplicates history repeated across model calls, and returns the ordered events with their source pointers: what every pattern reads. 400 unsupported_trace_format names the formats and what was seen."
      )
  )
  .annotateEndpoints(EndpointAccess, Access.read)
  .annotate(OpenApi.Title, "Traces")
  .annotate(OpenApi.Description, "Bring your own trace: the formats the service reads (docs/traces.md).")
{}
