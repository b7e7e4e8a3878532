/**
 * `POST /v1/diagnose` over REST: the body was read by the edge (under the byte limit); here: 415
 * unless JSON or JSON Lines → DiagnoseService → the report in the output asked for (`?output=`,
 * else `Accept`, else JSON). Recorded once in `svc_requests_total{pattern="diagnose"}`; each lens
 * inside is counted by AnalyzeService in `svc_analyses_total`. `POST /v1/checks` (DECISIONS §23):
 * the same intake → DiagnoseService's checks → their JSON; no analysis, so not in those counters
 * (as normalize is not).
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"
import { Api } from "../../Api.js"
import { queryOptions } from "../../Intake/Intake.js"
import type { Mode } from "../../Catalogue/Resources.js"
import { DiagnoseService } from "../../Diagnose/DiagnoseService.js"
import { type DiagnoseReport, OUTPUT_NAMES, type ReportContext } from "../../Contract/DiagnoseReport.js"
import { loadRenderer } from "../../Diagnose/Render/Outputs.js"
import { parseTraceUpload, requireJson } from "../../Intake/Json.js"
import { CurrentRequest } from "../../Edge/RequestContext.js"
import { ValidationError } from "../../Errors.js"
import { DIAGNOSE_OUTPUTS, type DiagnoseOutputEntry } from "../../Registry/Outputs.js"
import { DIAGNOSE_LABEL } from "../../Observability/Metrics.js"
import { RequestCaller } from "./RequestCaller.js"
import { settleRest } from "./Settle.js"

const EMPTY = new Uint8Array(0)

/**
 * The output by `?output=`, else by `Accept`: the first media type it names that an output has
 * (the registry's first output with it; `*\/*` the default), else the default, the registry's
 * first output (src/Registry/Outputs.ts).
 */
export const outputOf = (param: string | undefined, accept: string | undefined): DiagnoseOutputEntry | ValidationError => {
  if (param !== undefined) {
    return DIAGNOSE_OUTPUTS.find((output) => output.name === param) ??
      new ValidationError({ message: `output must be one of ${OUTPUT_NAMES.join(", ")} (got ${JSON.stringify(param.slice(0, 40))})` })
  }
  for (const part of (accept ?? "").split(",")) {
    const media = part.split(";")[0]?.trim().toLowerCase() ?? ""
    const output = media === "*/*" ? DIAGNOSE_OUTPUTS[0] : DIAGNOSE_OUTPUTS.find((candidate) => candidate.mediaType === media)
    if (output !== undefined) return output
  }
  return DIAGNOSE_OUTPUTS[0]
}

const decoder = new TextDecoder()

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

export const DiagnoseHttpLive = HttpApiBuilder.group(Api, "diagnose", (handlers) =>
  Effect.gen(function*() {
    const service = yield* DiagnoseService
    const forCaller = yield* RequestCaller
    return handlers.handleRaw("check", ({ request }) =>
      forCaller(Effect.gen(function*() {
        const edge = yield* CurrentRequest
        const contentType = request.headers["content-type"]
        yield* requireJson(contentType, { jsonLines: true })
        const body = yield* parseTraceUpload(edge.body ?? EMPTY, contentType)
        return HttpServerResponse.unsafeJson(yield* service.check(body, queryOptions(request.url)))
      }))).handleRaw("diagnose", ({ request }) =>
      forCaller(Effect.gen(function*() {
        const edge = yield* CurrentRequest
        const url = new URL(request.url, "http://localhost")
        const output = outputOf(url.searchParams.get("output") ?? undefined, request.headers["accept"])
        let mode: Mode | "unknown" = "unknown"
        return yield* Effect.gen(function*() {
          if (output instanceof ValidationError) return yield* output
          const contentType = request.headers["content-type"]
          yield* requireJson(contentType, { jsonLines: true })
          const bytes = edge.body ?? EMPTY
          const body = yield* parseTraceUpload(bytes, contentType)
          const { events, report } = yield* service.diagnose(body, edge.requestId, queryOptions(request.url))
          mode = report.mode
          const context: ReportContext = {
            events,
            artifact: url.searchParams.get("artifact") ?? undefined,
            body: bytes.byteLength <= 8 * 1024 * 1024 ? decoder.decode(bytes) : undefined
          }
          return yield* renderedResponse(output, report, context)
        }).pipe(
          Effect.onExit((exit) => settleRest(edge, DIAGNOSE_LABEL, mode, exit, () => false))
        )
      })))
  }))
