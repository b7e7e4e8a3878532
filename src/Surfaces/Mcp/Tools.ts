/**
 * The MCP tools (DECISIONS §14): `svc_<name>` for each pattern, `svc_diagnose`, `svc_check`
 * (the checks alone, §23), `svc_list_patterns`, the runs' `svc_submit_run`, `svc_list_runs` and `svc_get_run` (§17) and
 * the problems' `svc_list_problems` and `svc_get_problem` (§19), a thin adapter over the same
 * services as REST (AnalyzeService, DiagnoseService, RunsService, ProblemsService, the catalogue). Each call:
 *   caller (the tool's operation, with the least role it needs: `svc_submit_run` `ingest`, every
 *   other tool `read` (§16); over HTTP the edge's guards, the role checked per tool, and one more
 *   count against the key's rate limit for each tool call of a POST after its first; over stdio
 *   the same guards, per call) → arguments → the service → a result with `structuredContent` (the
 *   REST response body: the detection, the report, the runs) and a short text summary.
 * A failure inside a call is a tool result with `isError`, carrying the same error kind and
 * message as HTTP (`{detail:{error, message}}`); the trace limits are answered at the HTTP level
 * over HTTP (Protocol.ts `refuse`). Every analysis call is recorded once in `svc_requests_total`
 * with `surface="mcp"`, by the same recorder the REST handlers use; `svc_check` (no model) and a
 * submitted run are not analyses there (its worker records the diagnose, `surface="worker"`), as `POST /v1/runs` is not.
 */
import * as McpSchema from "@effect/ai/McpSchema"
import { McpServer } from "@effect/ai/McpServer"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import { analysisBody, AnalyzeService } from "../../Analysis/AnalyzeService.js"
import { callerFrom, Caller as ServiceCaller } from "../../Auth/Caller.js"
import type { Operation } from "../../Auth/Operations.js"
import { Scopes } from "../../Auth/Scopes.js"
import type { Role } from "../../Config/KeyRoles.js"
import { Catalogue } from "../../Catalogue/Catalogue.js"
import type { Mode } from "../../Catalogue/Resources.js"
import { DiagnoseService } from "../../Diagnose/DiagnoseService.js"
import { loadRenderer } from "../../Diagnose/Render/Outputs.js"
import { parseTraceBody } from "../../Intake/Json.js"
import { type ApiError, errorBody, errorKinds, InternalError, refusalOf, ValidationError } from "../../Errors.js"
import { ErrorReporting } from "../../Observability/ErrorReporting.js"
import { DIAGNOSE_LABEL, recordAnalysis, statusOfExit } from "../../Observability/Metrics.js"
import { ProblemsService } from "../../Problems/Service.js"
import { RunsService } from "../../Runs/RunsService.js"
import { type CallContext, type Caller, McpProtocol } from "./Protocol.js"
import type { GuardFailure } from "../../Auth/Guards.js"
import {
  CHECK_TOOL,
  checksSummary,
  DIAGNOSE_TOOL,
  detectionSummary,
  GET_PROBLEM_TOOL,
  GET_RUN_TOOL,
  EXPLAIN_RUN_TOOL,
  LIST_PROBLEMS_TOOL,
  LIST_RUNS_TOOL,
  LIST_TOOL,
  problemListSummary,
  problemSummary,
  reportSummary,
  runListSummary,
  runSummary,
  SUBMIT_RUN_TOOL,
  submittedSummary,
  toolName
} from "./ToolTexts.js"
import {
  checkToolInput,
  diagnoseToolInput,
  GetProblemArguments,
  getProblemToolInput,
  GetRunArguments,
  getRunToolInput,
  ListProblemsArguments,
  listProblemsToolInput,
  ListRunsArguments,
  listRunsToolInput,
  explainRunToolInput,
  ExplainRunArguments,
  patternToolInput,
  submitRunToolInput
} from "./ToolInputs.js"

/** A tool's operation for the guards (Auth/Operations.ts): its name, and the least role of a key that may call it. */
const toolOperation = (name: string, role: Role): Operation => ({ label: `call ${name}`, role, authenticated: true, counted: true })

/** The analysis tools read and compute; none changes anything the caller sees (baselines aside). */
const READ_ONLY = new McpSchema.ToolAnnotations({
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  // The analyses call a language model outside this service.
  openWorldHint: true
})

/** `svc_check` reads and computes, and calls nothing outside this service. */
const CHECKS_ONLY = new McpSchema.ToolAnnotations({
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false
})

/** `svc_submit_run` stores a run (or finds the one of the same trace and options). */
const SUBMITS = new McpSchema.ToolAnnotations({
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: true,
  // The run is diagnosed in the background, through a language model outside this service.
  openWorldHint: true
})

/** The runs tools that read the store: nothing outside this service. */
const READS_RUNS = new McpSchema.ToolAnnotations({
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false
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

/** A tool's arguments by its schema: a validation_error naming the field paths otherwise. */
const decodeArguments = <A, I>(schema: Schema.Schema<A, I>) => {
  const decode = Schema.decodeUnknownEither(schema)
  return (args: unknown): Either.Either<A, ValidationError> =>
    Either.mapLeft(decode(args ?? {}), (error) => refusalOf(error))
}
const listRunsArguments = decodeArguments(ListRunsArguments)
const getRunArguments = decodeArguments(GetRunArguments)
const explainRunArguments = decodeArguments(ExplainRunArguments)
const listProblemsArguments = decodeArguments(ListProblemsArguments)
const getProblemArguments = decodeArguments(GetProblemArguments)

/** The largest trace string kept as the trace file's text, for SARIF's lines (as REST keeps a body's). */
const LINES_UP_TO = 8 * 1024 * 1024

/** Registers the tools with the McpServer. */
export const McpToolsLive = Layer.effectDiscard(
  Effect.gen(function*() {
    const server = yield* McpServer
    const protocol = yield* McpProtocol
    const analyses = yield* AnalyzeService
    const diagnoses = yield* DiagnoseService
    const runs = yield* RunsService
    const problems = yield* ProblemsService
    const catalogue = yield* Catalogue
    const reporting = yield* ErrorReporting
    const scopes = yield* Scopes

    const contextOfCall: Effect.Effect<CallContext, InternalError, McpSchema.McpServerClient> = Effect.flatMap(McpSchema.McpServerClient, (client) => {
      const context = protocol.contextOf(client.clientId)
      return context === undefined ? Effect.fail(new InternalError({ message: "a tool call arrived on a closed connection" })) : Effect.succeed(context)
    })

    /**
     * One tool call from its arguments to its result: a failure turned into the tool error of the
     * same kind (a trace limit answered at the HTTP level over HTTP), a server-side failure
     * reported, `settle` told how it ended (where an analysis records itself).
     */
    const toolCall = <A, E extends ApiError>(
      label: string | null,
      operation: Operation,
      run: (caller: Caller, track: Tracked) => Effect.Effect<A, E, McpSchema.McpServerClient | ServiceCaller>,
      succeed: (value: A) => McpSchema.CallToolResult,
      settle: (exit: Exit.Exit<A, E | GuardFailure>, track: Tracked) => void = () => undefined
    ) =>
      Effect.gen(function*() {
        const track: Tracked = { mode: "unknown", requestId: "none" }
        const context = yield* contextOfCall
        // the guards for this tool's operation, once per call; the request id for what follows
        const called = Effect.flatMap(context.caller(operation), (caller) => {
          track.requestId = caller.requestId
          return Effect.provideServiceEffect(run(caller, track), ServiceCaller, callerFrom(scopes, caller.keyName))
        })
        return yield* called.pipe(
          Effect.onExit((exit) =>
            Effect.gen(function*() {
              settle(exit, track)
              if (Exit.isSuccess(exit)) return
              const failure = Cause.failureOption(exit.cause)
              if (failure._tag === "None") return
              const error = failure.value
              if (error._tag === "RequestTooLarge") context.refuse(error)
              const { kind, status } = errorKinds[error._tag]
              const { mode, requestId } = track
              if (status >= 500) yield* reporting.report({ kind, status, message: error.message, requestId, pattern: label, mode: mode === "unknown" ? null : mode })
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

    /** One analysis call: a tool call recorded once (`surface="mcp"`). */
    const analysisCall = <A extends { readonly cached: boolean }, E extends ApiError>(
      pattern: string,
      operation: Operation,
      run: (caller: Caller, track: Tracked) => Effect.Effect<A, E, McpSchema.McpServerClient | ServiceCaller>,
      succeed: (value: A) => McpSchema.CallToolResult
    ) =>
      Effect.suspend(() => {
        const startedAt = performance.now()
        return toolCall(pattern, operation, run, succeed, (exit, { mode }) =>
          recordAnalysis({ surface: "mcp", pattern, mode, status: statusOfExit(exit, (value) => value.cached) }, (performance.now() - startedAt) / 1000))
      })

    for (const entry of catalogue.entries) {
      const code = entry.pattern.code
      const slug = code.slug
      const operation = toolOperation(toolName(slug), "read")
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
            operation,
            (caller, track) =>
              Effect.gen(function*() {
                const envelope = yield* envelopeOf(args)
                const { prepared, outcome } = yield* analyses.analyze(slug, envelope, caller.requestId, (mode) => {
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

    const diagnoseOperation = toolOperation(DIAGNOSE_TOOL, "read")
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
          diagnoseOperation,
          (caller, track) =>
            Effect.gen(function*() {
              const envelope = yield* envelopeOf(args)
              const { report } = yield* diagnoses.diagnose(envelope, caller.requestId)
              track.mode = report.mode
              return { report, cached: false }
            }),
          ({ report }) => new McpSchema.CallToolResult({ content: [text(reportSummary(report))], structuredContent: { report } })
        )
    })

    // The checks alone (DECISIONS §23): POST /v1/checks's effect, no lens, no model.
    const checkOperation = toolOperation(CHECK_TOOL, "read")
    yield* server.addTool({
      tool: new McpSchema.Tool({
        name: CHECK_TOOL,
        title: "Run the deterministic checks on an agent run",
        description:
          "Runs the deterministic checks on an agent run, without a model: a tool error the run carried on past, success claimed after an error, and the others of the registry. " +
          "Each finding cites the events it rests on (quoted, or described for an event without content) and has a severity. Fast and free: use it first, or on traces without message content; " +
          `${DIAGNOSE_TOOL} adds the lenses.`,
        inputSchema: checkToolInput,
        annotations: CHECKS_ONLY
      }),
      handle: (args: unknown) =>
        toolCall(
          null,
          checkOperation,
          () => Effect.flatMap(envelopeOf(args), (envelope) => diagnoses.check(envelope)),
          (result) => new McpSchema.CallToolResult({ content: [text(checksSummary(result))], structuredContent: result })
        )
    })

    const listing: unknown = JSON.parse(decoder.decode(catalogue.listJson))
    const listText = catalogue.entries.map(({ pattern: { code } }) => `${toolName(code.slug)}: ${code.friendly} (${code.name}). ${code.summary}`).join("\n")
    const listOperation = toolOperation(LIST_TOOL, "read")
    yield* server.addTool({
      tool: new McpSchema.Tool({
        name: LIST_TOOL,
        title: "List the patterns",
        description: "Lists the 34 patterns: what each reads an agent run for, the trace formats it accepts and the hints it needs.",
        inputSchema: listInput,
        annotations: READ_ONLY
      }),
      handle: () =>
        Effect.map(Effect.flatMap(contextOfCall, (context) => context.caller(listOperation)), () =>
          new McpSchema.CallToolResult({ content: [text(listText)], structuredContent: Predicate.isRecord(listing) ? listing : {} })).pipe(
            Effect.catchAll((error) => Effect.succeed(errorResult(error)))
          )
    })

    // The runs (DECISIONS §17): the same effects as /v1/runs, in the caller's data scope.
    const submitOperation = toolOperation(SUBMIT_RUN_TOOL, "ingest")
    yield* server.addTool({
      tool: new McpSchema.Tool({
        name: SUBMIT_RUN_TOOL,
        title: "Submit an agent run for diagnosis in the background",
        description:
          `Stores an agent run and diagnoses it in the background, as ${DIAGNOSE_TOOL} would (same trace and options), with optional \`labels\` and \`external_id\`. ` +
          `Answers at once with the run's id and state; ${GET_RUN_TOOL} gives its report once done. The same trace with the same options is the same run; ` +
          "an `external_id` already naming another trace's run is a conflict. A key of role ingest may call this tool alone.",
        inputSchema: submitRunToolInput,
        annotations: SUBMITS
      }),
      handle: (args: unknown) =>
        toolCall(
          null,
          submitOperation,
          () =>
            Effect.gen(function*() {
              const envelope = yield* envelopeOf(args)
              // A trace sent as text is the trace file: its lines locate SARIF results, as a REST body's do.
              const sent = Predicate.isRecord(args) ? args["trace"] : undefined
              const file = typeof sent === "string" && sent.length <= LINES_UP_TO ? sent : undefined
              return yield* runs.submit(envelope, undefined, file)
            }),
          (submitted) => new McpSchema.CallToolResult({ content: [text(submittedSummary(submitted))], structuredContent: submitted })
        )
    })

    const listRunsOperation = toolOperation(LIST_RUNS_TOOL, "read")
    yield* server.addTool({
      tool: new McpSchema.Tool({
        name: LIST_RUNS_TOOL,
        title: "List the submitted runs",
        description:
          "Lists the runs of this key's scope, newest first: filter by state, severity, pattern, problem (its id: the runs of one failure), label (`key:value`), external id and submission time (`since`, `until`); " +
          "page with `limit` and the previous page's `next_cursor` as `cursor`.",
        inputSchema: listRunsToolInput,
        annotations: READS_RUNS
      }),
      handle: (args: unknown) =>
        toolCall(
          null,
          listRunsOperation,
          () =>
            Effect.gen(function*() {
              return yield* runs.list(yield* listRunsArguments(args))
            }),
          (list) => new McpSchema.CallToolResult({ content: [text(runListSummary(list))], structuredContent: list })
        )
    })

    const getRunOperation = toolOperation(GET_RUN_TOOL, "read")
    yield* server.addTool({
      tool: new McpSchema.Tool({
        name: GET_RUN_TOOL,
        title: "Get a run and its report",
        description:
          "One run of this key's scope by id: its state and, once done, its diagnose report. `output: markdown` gives the report as the readable page diagnose renders, as the text; " +
          "structuredContent is the run with its report either way.",
        inputSchema: getRunToolInput,
        annotations: READS_RUNS
      }),
      handle: (args: unknown) =>
        toolCall(
          null,
          getRunOperation,
          () =>
            Effect.gen(function*() {
              const { id, output = "json" } = yield* getRunArguments(args)
              const run = yield* runs.get(id)
              if (output === "json" || run.report === undefined) return { run, page: runSummary(run) }
              // The page diagnose renders, with what the run kept for it (its events).
              const { context: reportContext, report } = yield* runs.report(id)
              const render = yield* Effect.promise(() => loadRenderer(output))
              const rendered = render({ report, context: reportContext, body: { report } })
              return { run, page: rendered._tag === "Text" ? rendered.text : JSON.stringify(rendered.value) }
            }),
          ({ page, run }) => new McpSchema.CallToolResult({ content: [text(page)], structuredContent: run })
        )
    })

    // A run's lenses asked for (DECISIONS §24): the effect of POST /v1/runs/{id}/explain, an admin's
    const explainRunOperation = toolOperation(EXPLAIN_RUN_TOOL, "admin")
    yield* server.addTool({
      tool: new McpSchema.Tool({
        name: EXPLAIN_RUN_TOOL,
        title: "Explain a run again with its lenses",
        description:
          "Queues one run of this key's scope again with its lenses (admin key; it spends model budget), whatever its problem knows: a run of a known failure that ended on its checks " +
          `(explained_by) gets its own explanation. Answers with the run queued; ${GET_RUN_TOOL} gives the new report once done.`,
        inputSchema: explainRunToolInput,
        annotations: SUBMITS
      }),
      handle: (args: unknown) =>
        toolCall(
          null,
          explainRunOperation,
          () => Effect.flatMap(explainRunArguments(args), ({ id }) => runs.explain(id)),
          (run) => new McpSchema.CallToolResult({ content: [text(`Run ${run.id} is ${run.status}: its lenses will explain it. Follow it with ${GET_RUN_TOOL}.`)], structuredContent: run })
        )
    })

    // The problems (DECISIONS §19): the same effects as /v1/problems, in the caller's data scope.
    const listProblemsOperation = toolOperation(LIST_PROBLEMS_TOOL, "read")
    yield* server.addTool({
      tool: new McpSchema.Tool({
        name: LIST_PROBLEMS_TOOL,
        title: "List the problems: the same failure across runs",
        description:
          "Lists the problems of this key's scope, most recently seen first: each is one failure grouped across the runs that showed it, with its severity, status " +
          "(open, resolved, ignored, regressed) and run count. Filter by status, severity, pattern, label (`key:value`) and when last seen (`since`, `until`); " +
          "page with `limit` and the previous page's `next_cursor` as `cursor`.",
        inputSchema: listProblemsToolInput,
        annotations: READS_RUNS
      }),
      handle: (args: unknown) =>
        toolCall(
          null,
          listProblemsOperation,
          () =>
            Effect.gen(function*() {
              return yield* problems.list(yield* listProblemsArguments(args))
            }),
          (list) => new McpSchema.CallToolResult({ content: [text(problemListSummary(list))], structuredContent: list })
        )
    })

    const getProblemOperation = toolOperation(GET_PROBLEM_TOOL, "read")
    yield* server.addTool({
      tool: new McpSchema.Tool({
        name: GET_PROBLEM_TOOL,
        title: "Get a problem: its trend, where it happens, example runs and what to change",
        description:
          "One problem of this key's scope by id: its runs per UTC day, the labels of its runs (versions, agents, environments), example runs with the quotes that show it, " +
          "and the playbooks its findings point to.",
        inputSchema: getProblemToolInput,
        annotations: READS_RUNS
      }),
      handle: (args: unknown) =>
        toolCall(
          null,
          getProblemOperation,
          () => Effect.flatMap(getProblemArguments(args), ({ id }) => problems.get(id)),
          (detail) => new McpSchema.CallToolResult({ content: [text(problemSummary(detail))], structuredContent: detail })
        )
    })
  })
)
