/**
 * The contract of OTLP in (DECISIONS §18): `POST /v1/traces`, `/v1/logs` and `/v1/metrics` speak
 * OTLP/HTTP, so an OpenTelemetry SDK or Collector exports to the service as to any OTLP backend.
 * Bodies are OTLP's protobuf (`application/x-protobuf`) or OTLP/JSON (`application/json`), either
 * optionally gzip-compressed; answers are the `Export…ServiceResponse` in the request's encoding,
 * errors a `google.rpc.Status` in the request's encoding (§5's one exception to `{detail}`).
 *
 * The schemas document the JSON form; the receiver (Otlp/Receiver.ts) reads both encodings itself,
 * by OTLP's own rules, so the JSON request schemas here name the top-level shape only.
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import { Access, EndpointAccess } from "./Access.js"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"

const OTLP_SPEC = "https://opentelemetry.io/docs/specs/otlp/"

/** A `google.rpc.Status`, as OTLP/HTTP answers errors (JSON form; protobuf for a protobuf request). */
const statusOf = (status: number, description: string) =>
  Schema.Struct({
    code: Schema.Int.annotations({ description: "The gRPC status code (google.rpc.Code): 3 invalid argument, 7 permission denied, 8 resource exhausted, 14 unavailable, 16 unauthenticated." }),
    message: Schema.String,
    details: Schema.Array(Schema.Unknown)
  }).annotations({
    identifier: `OtlpStatus${status}`,
    title: "google.rpc.Status",
    description,
    ...HttpApiSchema.annotations({ status })
  })

const OTLP_ERRORS = [
  statusOf(400, "The body is not an OTLP export request of the endpoint's signal (not decodable, or OTLP/JSON of the wrong shape). Exporters do not retry it."),
  statusOf(401, "No valid API key (`Authorization: Bearer <key>`; OTEL_EXPORTER_OTLP_HEADERS=authorization=Bearer%20<key>)."),
  statusOf(403, "The key's role may not send (it needs `ingest`), or the Host is not allowed with auth off."),
  statusOf(413, "The body passes SVC_API_MAX_BODY_BYTES, counted before and after gzip."),
  statusOf(415, "Content-Type other than application/x-protobuf or application/json, or a Content-Encoding other than gzip."),
  statusOf(429, "Past SVC_OTLP_RATE_LIMIT spans per second for the scope, or past the pending bytes (SVC_OTLP_PENDING_BYTES, …_PER_SCOPE); Retry-After says when. Exporters retry it."),
  statusOf(503, "The store is unavailable, or the bodies in flight pass SVC_API_MAX_INFLIGHT_BYTES; Retry-After says when. Exporters retry it.")
] as const

const protobufBody = HttpApiSchema.Uint8Array({ contentType: "application/x-protobuf" }).annotations({
  description: "OTLP's protobuf encoding of the request."
})

const request = (identifier: string, field: string, message: string) =>
  Schema.Union(
    Schema.Struct({ [field]: Schema.optional(Schema.Array(Schema.Unknown)) }).annotations({
      identifier,
      description: `OTLP/JSON ${message} (${OTLP_SPEC}): lowerCamelCase fields, hex trace and span ids, 64-bit integers as strings.`
    }),
    protobufBody
  )

const partialSuccess = (identifier: string, field: string, what: string) =>
  Schema.Struct({
    partialSuccess: Schema.optional(
      Schema.Struct({
        [field]: Schema.String.annotations({ description: `The ${what} refused (an int64, as OTLP/JSON writes it).` }),
        errorMessage: Schema.String.annotations({ description: "Why: invalid ids, past SVC_OTLP_MAX_SPANS_PER_TRACE, or arrived after their trace completed (late)." })
      })
    )
  }).annotations({ identifier, description: `Everything accepted is committed to the store; \`partialSuccess\` counts the ${what} refused, and why.` })

export const ExportTraceServiceResponse = partialSuccess("ExportTraceServiceResponse", "rejectedSpans", "spans")
export const ExportLogsServiceResponse = partialSuccess("ExportLogsServiceResponse", "rejectedLogRecords", "log records")
export const ExportMetricsServiceResponse = partialSuccess("ExportMetricsServiceResponse", "rejectedDataPoints", "data points")

export class OtlpGroup extends HttpApiGroup.make("otlp")
  .add(
    HttpApiEndpoint.post("exportTraces", "/v1/traces")
      .setPayload(request("ExportTraceServiceRequest", "resourceSpans", "ExportTraceServiceRequest"))
      .addSuccess(ExportTraceServiceResponse)
      .addError(OTLP_ERRORS[0]).addError(OTLP_ERRORS[1]).addError(OTLP_ERRORS[2]).addError(OTLP_ERRORS[3]).addError(OTLP_ERRORS[4]).addError(OTLP_ERRORS[5]).addError(OTLP_ERRORS[6])
      .annotate(OpenApi.Summary, "OTLP/HTTP traces: spans kept per trace, each complete trace a run")
      .annotate(
        OpenApi.Description,
        "Point an OpenTelemetry exporter here (`OTEL_EXPORTER_OTLP_ENDPOINT=http://svc:8000`). Spans are redacted and committed to the store before the 200; a trace is complete when its root ended and nothing arrived for SVC_OTLP_QUIET_SECONDS, or SVC_OTLP_MAX_AGE_SECONDS after its first span, and becomes a run (`source: otlp`), queued or skipped as SVC_OTLP_DIAGNOSE decides. Keys of role `ingest` may send. docs/otlp.md."
      )
  )
  .add(
    HttpApiEndpoint.post("exportLogs", "/v1/logs")
      .setPayload(request("ExportLogsServiceRequest", "resourceLogs", "ExportLogsServiceRequest"))
      .addSuccess(ExportLogsServiceResponse)
      .addError(OTLP_ERRORS[0]).addError(OTLP_ERRORS[1]).addError(OTLP_ERRORS[2]).addError(OTLP_ERRORS[3]).addError(OTLP_ERRORS[4]).addError(OTLP_ERRORS[5]).addError(OTLP_ERRORS[6])
      .annotate(OpenApi.Summary, "OTLP/HTTP logs: GenAI message and evaluation events, joined to their trace's spans")
      .annotate(
        OpenApi.Description,
        "Log records with a trace context whose event name is a GenAI message or evaluation event (`gen_ai.user.message`, `gen_ai.choice`, …: where GenAI instrumentations put message content) are kept with their trace; others are dropped and counted."
      )
  )
  .add(
    HttpApiEndpoint.post("exportMetrics", "/v1/metrics")
      .setPayload(request("ExportMetricsServiceRequest", "resourceMetrics", "ExportMetricsServiceRequest"))
      .addSuccess(ExportMetricsServiceResponse)
      .addError(OTLP_ERRORS[0]).addError(OTLP_ERRORS[1]).addError(OTLP_ERRORS[2]).addError(OTLP_ERRORS[3]).addError(OTLP_ERRORS[4]).addError(OTLP_ERRORS[5]).addError(OTLP_ERRORS[6])
      .annotate(OpenApi.Summary, "OTLP/HTTP metrics: accepted and discarded (counted)")
  )
  .annotateEndpoints(EndpointAccess, Access.ingestUncounted)
  .annotate(OpenApi.Title, "OTLP in")
  .annotate(OpenApi.Description, "OTLP/HTTP receivers (DECISIONS §18). gRPC is not served: a Collector bridges (docs/otlp.md).")
{}
