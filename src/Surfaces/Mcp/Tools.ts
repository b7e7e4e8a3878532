/**
 * The MCP tools (DECISIONS §14): `svc_<name>` for each pattern, `svc_diagnose` and
 * `svc_list_patterns`, a thin adapter over the same services as REST (AnalyzeService,
 * DiagnoseService, the catalogue). Each call:
 *   caller (over HTTP the edge's guards, and one more count against the key's rate limit for each
 *   tool call of a POST after its first; over stdio the same guards, per call) → arguments → the
 *   service → a result with `structuredContent` (the REST response body: the detection or the
 *   report) and a short text summary.
 * A failure inside a call is a tool result with `isError`, carrying the same error kind and
 * message as HTTP (`{detail:{error, message}}`); the trace limits are answered at the HTTP level
 * over HTTP (Protocol.ts `refuse`). Every analysis call is recorded once in `svc_requests_total`
 * with `surface="mcp"`, by the same recorder the REST handlers use.
 */
import * as McpSchema from "@effect/ai/McpSchema"
import { McpServer } from "@effect/ai/McpServer"
import { Cause, Effect, Exit, Layer, Predicate } from "effect"
import { analysisBody, AnalyzeService } from "../../Analysis/AnalyzeService.js"
import { Catalogue, type CatalogueEntry } from "../../Catalogue/Catalogue.js"
import type { Detection } from "../../Catalogue/Detection.js"
import type { Mode } from "../../Catalogue/Resources.js"
import { DiagnoseService } from "../../Diagnose/DiagnoseService.js"
import type { DiagnoseReport } from "../../Contract/DiagnoseReport.js"
import { parseTraceBody } from "../../Edge/Body.js"
import { DIAGNOSE_LABEL } from "../../Edge/Routes.js"
import { type ApiError, errorBody, errorKinds, InternalError, ValidationError } from "../../Errors.js"
import { ErrorReporting } from "../../Observability/ErrorReporting.js"
import { recordAnalysis, statusOfExit } from "../../Observability/Metrics.js"
import { type CallContext, McpProtocol } from "./Protocol.js"
import { diagnoseToolInput, patternToolInput } from "./ToolInputs.js"

export const toolName = (slug: string) => `svc_${slug}`
export const DIAGNOSE_TOOL = "svc_diagnose"
export const LIST_TOOL = "svc_list_patterns"


/** Every tool reads and computes; none changes anything the caller sees (baselines aside). */
const READ_ONLY = new McpSchema.ToolAnnotations({
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  // The analyses call a language model outside this service.
  openWorldHint: true
})

const listInput = { type: "object", properties: {} }

/** What a call learned on its way, for its metric and error report. */
interface Tracked {
  mode: Mode | "unknown"
  requestId: string
}

const text = (value: string) => McpSchema.TextContent.make({ type: "text", text: value })

/** The tool result of an error: the HTTP error's kind and message. */
const errorResult = (error: ApiError) => {
  const { kind } = errorKinds[error._tag]
  return new McpSchema.CallToolResult({
    isError: true,
    content: [text(`${kind}: ${error.message}`)],
    structuredContent: errorBody(kind, error.message)
  })
}

const decoder = new TextDecoder()
const encoder = new TextEncoder()

/** The call's arguments as the REST envelope body: `trace` as a value (a JSON string is parsed). */
const envelopeOf = (args: unknown): Effect.Effect<Record<string, unknown>, ValidationError> =>
  Effect.gen(function*() {
    if (!Predicate.isRecord(args)) return yield* new ValidationError({ message: "the arguments must be an object with the trace in `trace`" })
    const trace = args["trace"]
    if (trace === undefined || trace === null) {
      return yield* new ValidationError({ message: "`trace` is required: the agent run, in the pattern's own shape or any supported trace format" })
    }
    if (typeof trace !== "string") return { ...args }
    const bytes = encoder.encode(trace)
    // A JSON text, else JSON Lines (one record per line).
    const parsed = yield* parseTraceBody(bytes, false).pipe(
      Effect.orElse(() => (trace.includes("\n") ? parseTraceBody(bytes, true) : Effect.fail(new ValidationError({ message: "`trace` is a string that is not JSON" }))))
    )
    return { ...args, trace: parsed }
  })

/** A detection in a few lines: headline, findings, the interventions to make. */
export const detectionSummary = (entry: CatalogueEntry, detection: Detection, cached: boolean): string => {
  const code = entry.pattern.code
  const lines = [
    `${code.friendly} (${code.slug}): severity ${detection.severity}, confidence ${detection.confidence.toFixed(2)}, profile ${detection.profile}${cached ? " (cached)" : ""}.`
  ]
  if (detection.summary.length > 0) lines.push(detection.summary)
  if (detection.findings.length > 0) {
    lines.push("Findings:")
    for (const finding of detection.findings.slice(0, 5)) {
      lines.push(`- ${finding.title} (${finding.severity}, ${finding.evidence.length} evidence quotes)`)
    }
  }
  if (detection.interventions.length > 0) {
    lines.push("Interventions:")
    for (const intervention of detection.interventions.slice(0, 3)) lines.push(`- ${intervention.type}: ${intervention.description}`)
  }
  lines.push("structuredContent holds the full detection, with the evidence quoted from the trace.")
  return lines.join("\n")
}

/** A diagnose in a few lines: verdict, decisive step, the first interventions. */
export const reportSummary = (report: DiagnoseReport): string => {
  const ran = report.patterns.filter((run) => run.error === null).length
  const lines = [
    `Diagnose of a ${report.trace.format} trace (${report.trace.events} events): severity ${report.severity}, confidence ${report.confidence.toFixed(2)}; ${ran} of ${report.patterns.length} lenses ran (${report.patterns.map((run) => `${run.pattern} ${run.status}`).join(", ")}).`,
    report.summary
  ]
  const step = report.decisive_step
  if (step !== null) lines.push(`Decisive step: event ${step.event} (${step.source}) by ${step.actor}, cited by ${step.patterns.join(", ")}.`)
  if (report.interventions.length > 0) {
    lines.push("Interventions, most valuable first:")
    for (const intervention of report.interventions.slice(0, 3)) lines.push(`${intervention.rank}. ${intervention.type}: ${intervention.description}`)
  }
  lines.push("structuredContent holds the whole report: findings with evidence, triage, usage.")
  return lines.join("\n")
}

/** Registers the tools with the McpServer. */
export const McpToolsLive = Layer.effectDiscard(
  Effect.gen(function*() {
    const server = yield* McpServer
    const protocol = yield* McpProtocol
    const analyses = yield* AnalyzeService
    const diagnoses = yield* DiagnoseService
    const catalogue = yield* Catalogue
    const reporting = yield* ErrorReporting

    const contextOfCall: Effect.Effect<CallContext, InternalError, McpSchema.McpServerClient> = Effect.flatMap(McpSchema.McpServerClient, (client) => {
      const context = protocol.contextOf(client.clientId)
      return context === undefined ? Effect.fail(new InternalError({ message: "a tool call arrived on a closed connection" })) : Effect.succeed(context)
    })

    /**
     * One analysis call from its arguments to its result: recorded once (`surface="mcp"`), a
     * failure turned into the tool error of the same kind, a server-side failure reported.
     */
    const analysisCall = <A extends { readonly cached: boolean }, E extends ApiError>(
      pattern: string,
      run: (context: CallContext, track: Tracked) => Effect.Effect<A, E, McpSchema.McpServerClient>,
      succeed: (value: A) => McpSchema.CallToolResult
    ) =>
      Effect.gen(function*() {
        const startedAt = performance.now()
        const track: Tracked = { mode: "unknown", requestId: "none" }
        const context = yield* contextOfCall
        return yield* run(context, track).pipe(
          Effect.onExit((exit) =>
            Effect.gen(function*() {
              const { mode, requestId } = track
              recordAnalysis({ surface: "mcp", pattern, mode, status: statusOfExit(exit, (value) => value.cached) }, (performance.now() - startedAt) / 1000)
              if (Exit.isSuccess(exit)) return
              const failure = Cause.failureOption(exit.cause)
              if (failure._tag === "None") return
              const error = failure.value
              if (error._tag === "RequestTooLarge") context.refuse(error)
              const { kind, status } = errorKinds[error._tag]
              if (status >= 500) yield* reporting.report({ kind, status, message: error.message, requestId, pattern, mode: mode === "unknown" ? null : mode })
            })
          ),
          Effect.map(succeed)
        )
      }).pipe(
        Effect.catchAll((error) => Effect.succeed(errorResult(error))),
        Effect.catchAllDefect((defect) =>
          Effect.zipRight(
            Effect.logError("unexpected failure in an MCP tool call", Cause.pretty(Cause.die(defect))),
            Effect.succeed(errorResult(new InternalError({ message: "the service failed unexpectedly; the request id identifies it in the logs" })))
          )
        )
      )

    for (const entry of catalogue.entries) {
      const code = entry.pattern.code
      const slug = code.slug
      yield* server.addTool({
        tool: new McpSchema.Tool({
          name: toolName(slug),
          title: code.friendly,
          description: `${code.friendly} (${code.name}): ${code.summary} Reads an agent run and returns a cited, evidence-checked detection: severity, findings with quotes from the run, interventions.`,
          inputSchema: patternToolInput,
          annotations: READ_ONLY
        }),
        handle: (args: unknown) =>
          analysisCall(
            slug,
            (context, track) =>
              Effect.gen(function*() {
                const caller = yield* context.caller
                track.requestId = caller.requestId
                const envelope = yield* envelopeOf(args)
                const { prepared, outcome } = yield* analyses.analyze(slug, envelope, caller, (mode) => {
                  track.mode = mode
                })
                return { prepared, outcome, cached: outcome.cached }
              }),
            ({ outcome, prepared }) =>
              new McpSchema.CallToolResult({
                content: [text(detectionSummary(entry, outcome.detection, outcome.cached))],
                structuredContent: analysisBody(prepared, outcome)
              })
          )
      })
    }

    yield* server.addTool({
      tool: new McpSchema.Tool({
        name: DIAGNOSE_TOOL,
        title: "Diagnose an agent run",
        description:
          "Diagnoses an agent run through the patterns that fit it: triage by code picks the lenses (or name them in `patterns`), " +
          "each runs through the model, and one report merges them: the decisive step, findings corroborated across lenses, " +
          "ranked interventions. Start here when you do not know which pattern to use.",
        inputSchema: diagnoseToolInput,
        annotations: READ_ONLY
      }),
      handle: (args: unknown) =>
        analysisCall(
          DIAGNOSE_LABEL,
          (context, track) =>
            Effect.gen(function*() {
              const caller = yield* context.caller
              track.requestId = caller.requestId
              const envelope = yield* envelopeOf(args)
              const { report } = yield* diagnoses.diagnose(envelope, caller.keyName, caller.requestId)
              track.mode = report.mode
              return { report, cached: false }
            }),
          ({ report }) => new McpSchema.CallToolResult({ content: [text(reportSummary(report))], structuredContent: { report } })
        )
    })

    const listing: unknown = JSON.parse(decoder.decode(catalogue.listJson))
    const listText = catalogue.entries.map(({ pattern: { code } }) => `${toolName(code.slug)}: ${code.friendly} (${code.name}). ${code.summary}`).join("\n")
    yield* server.addTool({
      tool: new McpSchema.Tool({
        name: LIST_TOOL,
        title: "List the patterns",
        description: "Lists the 34 patterns: what each reads an agent run for, the trace formats it accepts and the hints it needs.",
        inputSchema: listInput,
        annotations: READ_ONLY
      }),
      handle: () =>
        Effect.map(Effect.flatMap(contextOfCall, (context) => context.caller), () =>
          new McpSchema.CallToolResult({ content: [text(listText)], structuredContent: Predicate.isRecord(listing) ? listing : {} })).pipe(
            Effect.catchAll((error) => Effect.succeed(errorResult(error)))
          )
    })
  })
)
