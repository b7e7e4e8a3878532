/**
 * `POST /v1/diagnose` over REST: the body was read by the edge (under the byte limit); here: 415
 * unless JSON or JSON Lines → DiagnoseService → the report in the output asked for (`?output=`,
 * else `Accept`, else JSON). Recorded once in `svc_requests_total{pattern="diagnose"}`; each lens
 * inside is counted by AnalyzeService in `svc_analyses_total`.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect, Schema } from "effect"
import { Api } from "../../Api.js"
import { queryOptions } from "../../Analysis/Intake.js"
import { DiagnoseService } from "../../Diagnose/DiagnoseService.js"
import { DiagnoseOutput, type ReportContext } from "../../Diagnose/Model.js"
import { isJsonLinesContentType, parseTraceBody, requireJson } from "../../Edge/Body.js"
import { CurrentRequest } from "../../Edge/RequestContext.js"
import { DIAGNOSE_LABEL } from "../../Edge/Routes.js"
import { ValidationError } from "../../Errors.js"
import { settleRest } from "./Settle.js"

const EMPTY = new Uint8Array(0)
const isOutput = Schema.is(DiagnoseOutput)

/** The output by `?output=`, else by `Accept` (the first media type it names that we render). */
export const outputOf = (param: string | undefined, accept: string | undefined): DiagnoseOutput | ValidationError => {
  if (param !== undefined) {
    return isOutput(param)
      ? param
      : new ValidationError({ message: `output must be one of json, markdown, sarif, html, otlp (got ${JSON.stringify(param.slice(0, 40))})` })
  }
  for (const part of (accept ?? "").split(",")) {
    const media = part.split(";")[0]?.trim().toLowerCase() ?? ""
    if (media === "text/markdown") return "markdown"
    if (media === "application/sarif+json") return "sarif"
    if (media === "text/html") return "html"
    if (media === "application/json" || media === "*/*") return "json"
  }
  return "json"
}

const decoder = new TextDecoder()

export const DiagnoseHttpLive = HttpApiBuilder.group(Api, "diagnose", (handlers) =>
  Effect.gen(function*() {
    const service = yield* DiagnoseService
    return handlers.handleRaw("diagnose", ({ request }) =>
      Effect.gen(function*() {
        const edge = yield* CurrentRequest
        const url = new URL(request.url, "http://localhost")
        const output = outputOf(url.searchParams.get("output") ?? undefined, request.headers["accept"])
        let mode: "quick" | "standard" | "forensic" | "unknown" = "unknown"
        return yield* Effect.gen(function*() {
          if (output instanceof ValidationError) return yield* output
          const contentType = request.headers["content-type"]
          yield* requireJson(contentType, { jsonLines: true })
          const bytes = edge.body ?? EMPTY
          const body = yield* parseTraceBody(bytes, isJsonLinesContentType(contentType))
          const { events, report } = yield* service.diagnose(body, edge.keyName, edge.requestId, queryOptions(request.url))
          mode = report.mode
          const context: ReportContext = {
            events,
            artifact: url.searchParams.get("artifact") ?? undefined,
            body: bytes.byteLength <= 8 * 1024 * 1024 ? decoder.decode(bytes) : undefined
          }
          // The renderers are loaded on first use: start-up and idle memory do not carry them.
          switch (output) {
            case "json":
              return HttpServerResponse.unsafeJson({ report })
            case "markdown": {
              const { renderMarkdown } = yield* Effect.promise(() => import("../../Diagnose/Render/Markdown.js"))
              return HttpServerResponse.text(renderMarkdown(report, context), { contentType: "text/markdown; charset=utf-8" })
            }
            case "sarif": {
              const { renderSarif } = yield* Effect.promise(() => import("../../Diagnose/Render/Sarif.js"))
              return HttpServerResponse.text(JSON.stringify(renderSarif(report, context)), { contentType: "application/sarif+json" })
            }
            case "html": {
              const { renderHtml } = yield* Effect.promise(() => import("../../Diagnose/Render/Html.js"))
              return HttpServerResponse.text(renderHtml(report, context), { contentType: "text/html; charset=utf-8" })
            }
            case "otlp": {
              const { renderOtlp } = yield* Effect.promise(() => import("../../Diagnose/Render/Otlp.js"))
              return HttpServerResponse.unsafeJson(renderOtlp(report, context))
            }
          }
        }).pipe(
          Effect.onExit((exit) => settleRest(edge, DIAGNOSE_LABEL, mode, exit, () => false))
        )
      }))
  }))
