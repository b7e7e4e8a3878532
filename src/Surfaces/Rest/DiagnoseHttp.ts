/**
 * `POST /v1/diagnose` over REST: the contract decodes the request (Contract/DiagnoseContract.ts:
 * the body the edge read, by its media type, JSON, JSON Lines or a zip, else 415; the query's
 * options) → DiagnoseService → the report in the output asked for (`?output=`, else `Accept`, else
 * JSON). Recorded once in `svc_requests_total{pattern="diagnose"}`; each lens inside is counted by
 * AnalyzeService in `svc_analyses_total`. `POST /v1/checks` (DECISIONS §23): the same intake →
 * DiagnoseService's checks → their JSON; no analysis, so not in those counters (as normalize is not).
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import { Api } from "../../Api.js"
import type { Mode } from "../../Catalogue/Resources.js"
import { DiagnoseService } from "../../Diagnose/DiagnoseService.js"
import type { DiagnoseOutput, DiagnoseReport, ReportContext } from "../../Contract/DiagnoseReport.js"
import { loadRenderer } from "../../Diagnose/Render/Outputs.js"
import { traceOfUpload } from "../../Intake/Json.js"
import { CurrentRequest } from "../../Edge/RequestContext.js"
import { DIAGNOSE_OUTPUTS, type DiagnoseOutputEntry } from "../../Registry/Outputs.js"
import { DIAGNOSE_LABEL } from "../../Observability/Metrics.js"
import { forCaller } from "./RequestCaller.js"
import { settleRest } from "./Settle.js"

/**
 * The output by `?output=` (the contract decoded it: one of the registry's), else by `Accept`: the
 * first media type it names that an output has (the registry's first output with it; `*\/*` the
 * default), else the default, the registry's first output (src/Registry/Outputs.ts).
 */
export const outputOf = (param: DiagnoseOutput | undefined, accept: string | undefined): DiagnoseOutputEntry => {
  const named = param === undefined ? undefined : DIAGNOSE_OUTPUTS.find((output) => output.name === param)
  if (named !== undefined) return named
  for (const part of (accept ?? "").split(",")) {
    const media = part.split(";")[0]?.trim().toLowerCase() ?? ""
    const output = media === "*/*" ? DIAGNOSE_OUTPUTS[0] : DIAGNOSE_OUTPUTS.find((candidate) => candidate.mediaType === media)
    if (output !== undefined) return output
  }
  return DIAGNOSE_OUTPUTS[0]
}

/**
 * A report as the response of its output (a diagnose's, a stored run's). The renderers are loaded
 * on first use: start-up and idle memory do not carry them.
 */
export const renderedResponse = (output: DiagnoseOutputEntry, report: DiagnoseReport, context: ReportContext) =>
  Effect.map(Effect.promise(() => loadRenderer(output.name)), (render) => {
    const rendered = render({ report, context, body: { report } })
    return rendered._tag === "Text"
      ? HttpServerResponse.text(rendered.text, {
        contentType: output.contentType,
        // an HTML report quotes the trace: opened from the dashboard or anywhere, it runs in a sandbox (DECISIONS §22)
        ...("policy" in output ? { headers: { "content-security-policy": output.policy } } : {})
      })
      : HttpServerResponse.unsafeJson(rendered.value, { contentType: output.contentType })
  })

const LINES_UP_TO = 8 * 1024 * 1024
const decoder = new TextDecoder()

/**
 * The body's text as sent, for the trace file's lines (SARIF), when it is text (not a zip) of a
 * size worth searching.
 */
export const sentText = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<string | undefined> =>
  request.headers["content-type"]?.includes("zip") === true
    ? Effect.succeed(undefined)
    : Effect.map(Effect.orDie(request.arrayBuffer), (bytes) => (bytes.byteLength <= LINES_UP_TO ? decoder.decode(bytes) : undefined))

export const DiagnoseHttpLive = HttpApiBuilder.group(Api, "diagnose", (handlers) =>
  Effect.gen(function*() {
    const service = yield* DiagnoseService
    return handlers.handle("check", ({ payload, request, urlParams }) =>
      forCaller(Effect.gen(function*() {
        const body = yield* traceOfUpload(payload, request.headers["content-type"])
        // the service's value is the contract's ChecksResponse: written as it is, not encoded again
        return HttpServerResponse.unsafeJson(yield* service.check(body, urlParams))
      }))).handle("diagnose", ({ payload, request, urlParams }) =>
      forCaller(Effect.gen(function*() {
        const edge = yield* CurrentRequest
        let mode: Mode | "unknown" = "unknown"
        return yield* Effect.gen(function*() {
          const output = outputOf(urlParams.output, request.headers["accept"])
          const contentType = request.headers["content-type"]
          const body = yield* traceOfUpload(payload, contentType)
          const { events, report } = yield* service.diagnose(body, edge.requestId, urlParams)
          mode = report.mode
          // SARIF alone finds each event's line in the file as sent
          const context: ReportContext = { events, artifact: urlParams.artifact, body: output.name === "sarif" ? yield* sentText(request) : undefined }
          return yield* renderedResponse(output, report, context)
        }).pipe(
          Effect.onExit((exit) => settleRest(edge, DIAGNOSE_LABEL, mode, exit, () => false))
        )
      })))
  }))
