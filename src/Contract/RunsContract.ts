/**
 * The contract of the runs API (DECISIONS §17): traces submitted once, diagnosed in the background
 * by the workers of `svc serve`, kept in the store and listed. A run's report renders in the five
 * outputs of diagnose. Every route answers 503 `store_unavailable` (with Retry-After) while the
 * store cannot be read or written; analyze and diagnose are unaffected.
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import { Access, EndpointAccess } from "./Access.js"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiMiddleware from "@effect/platform/HttpApiMiddleware"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import {
  AuthMisconfiguredWire,
  ConflictWire,
  InvalidModeWire,
  NotFoundWire,
  RateLimitedWire,
  RequestTooLargeWire,
  StoreUnavailableWire,
  UnauthorizedWire,
  UnsupportedMediaTypeWire,
  UnsupportedTraceFormatWire,
  ValidationErrorWire
} from "../Errors.js"
import { OUTPUTS_DESCRIBED } from "../Registry/Derived.js"
import { Severity } from "../Catalogue/Severity.js"
import { NormalizedTrace, TraceFormat } from "../Traces/Model.js"
import { RawTrace } from "./AnalyzeContract.js"
import { ProblemStatus, RunStatus } from "./Statuses.js"
import { LABEL_KEY, NulFreeText, RunFilterParams, RunListParams } from "./Queries.js"
import { ArtifactParam, DiagnoseEnvelope, OutputParam, TraceQueryParams } from "./DiagnoseContract.js"
import { traceUpload } from "./TraceBodies.js"
import { DiagnoseReport, DiagnoseResponse, FailureAnchor } from "./DiagnoseReport.js"
import { Mode } from "../Catalogue/Resources.js"

/** The most labels one run carries. */
export const MAX_LABELS = 16
export const MAX_LABEL_VALUE = 256
export const MAX_EXTERNAL_ID = 256

export const SkipReason = Schema.Literal("no_content", "not_failed", "sampled_out", "budget").annotations({
  identifier: "SkipReason",
  description:
    "Why a run was skipped: `no_content` (the trace holds no message content), `not_failed` and `sampled_out` (OTLP intake), `budget` (the scope's SVC_DAILY_TOKEN_BUDGET was spent for the UTC day; re-queued when the next day starts)."
})

export const RunLabels = Schema.Record({
  key: Schema.String.pipe(Schema.pattern(LABEL_KEY)),
  value: NulFreeText.pipe(Schema.maxLength(MAX_LABEL_VALUE)).annotations({
    description: `At most ${MAX_LABEL_VALUE} characters, without U+0000.`
  })
}).pipe(
  Schema.filter((labels) => Object.keys(labels).length <= MAX_LABELS || `at most ${MAX_LABELS} labels`)
).annotations({
  identifier: "RunLabels",
  description: `Up to ${MAX_LABELS} string pairs: keys of 1-64 characters of [a-z0-9_.-], values of at most ${MAX_LABEL_VALUE} characters, without U+0000.`
})

export const ExternalId = NulFreeText.pipe(Schema.minLength(1), Schema.maxLength(MAX_EXTERNAL_ID)).annotations({
  identifier: "ExternalId",
  description: "The caller's own id for the run (at most 256 characters, without U+0000), unique per scope: reused for a different trace it is 409 conflict."
})

export const RunsEnvelope = Schema.Struct({
  ...DiagnoseEnvelope.fields,
  labels: Schema.optional(RunLabels),
  external_id: Schema.optional(ExternalId)
}).annotations({ identifier: "RunsEnvelope", description: "Traces under `trace`, with the diagnose's options, labels and an external id." })

export const SubmitRunsRequest = Schema.Union(RunsEnvelope, RawTrace).annotations({
  identifier: "SubmitRunsRequest",
  description: "What `POST /v1/diagnose` takes (a body of several traces, JSON Lines included, is one run per trace), with optional `labels` and `external_id`."
})

export const SubmittedRun = Schema.Struct({
  id: Schema.String,
  status: RunStatus,
  trace_id: Schema.NullOr(Schema.String)
}).annotations({ identifier: "SubmittedRun", description: "A run made (or found: the same trace with the same options is one run)." })

export const RejectedTrace = Schema.Struct({
  index: Schema.Int.annotations({ description: "The trace's place among the body's traces, from 0." }),
  error: Schema.String.annotations({ description: "The error kind, as the error bodies name it." }),
  message: Schema.String
}).annotations({ identifier: "RejectedTrace", description: "A trace of the body that did not become a run, and why." })

export const SubmitRunsResponse = Schema.Struct({
  runs: Schema.Array(SubmittedRun),
  rejected: Schema.Array(RejectedTrace)
}).annotations({ identifier: "SubmitRunsResponse", description: "202: the runs made, and the traces refused (400 when none was accepted)." })

/** The error of a run made of an OTLP trace whose spans could not be assembled (DECISIONS §18): its retry assembles them again. */
export const ASSEMBLY_ERROR = "assembly_error"

export const RunError = Schema.Struct({ error: Schema.String, message: Schema.String }).annotations({
  identifier: "RunError",
  description:
    `Why a run failed: the error kind and its message. The kinds are the error bodies' (\`llm_resolution_error\`, \`analyzer_error\`, \`timeout\`, \`internal_error\`, ...), and \`${ASSEMBLY_ERROR}\` for an OTLP trace whose spans could not be assembled (its retry assembles them again).`
})

export const RunSummary = Schema.Struct({
  task: Schema.String.annotations({ description: "The task's first words (the first user message): what names the run." }),
  outcome: Schema.String.annotations({ description: "How the run ended, as the trace says (its first words)." }),
  top_failure: Schema.NullOr(FailureAnchor).annotations({
    description: "The anchor of the failure holding the decisive step (DECISIONS §24, §25); null when nothing failed."
  }),
  checks: Schema.Int.annotations({ description: "How many check findings the report holds." }),
  findings: Schema.Int.annotations({ description: "How many verified lens findings the report holds." })
}).annotations({ identifier: "RunSummary", description: "What a list shows of a run's report (DECISIONS §25), read from the report." })
export type RunSummary = typeof RunSummary.Type

export const Run = Schema.Struct({
  id: Schema.String.annotations({ description: "The run's id: unguessable, never reused." }),
  status: RunStatus,
  reason: Schema.NullOr(SkipReason),
  error: Schema.NullOr(RunError),
  trace_id: Schema.NullOr(Schema.String).annotations({ description: "The source's own id of the trace (an OTel trace id in hex, a run id), when it has one." }),
  external_id: Schema.NullOr(Schema.String),
  labels: Schema.Record({ key: Schema.String, value: Schema.String }),
  source: Schema.Literal("api", "otlp"),
  attempts: Schema.Int.annotations({ description: "Attempts started since the run was last queued by its submission or a retry (a retry starts the count anew)." }),
  submitted_at: Schema.String.annotations({ description: "ISO-8601, UTC." }),
  started_at: Schema.NullOr(Schema.String),
  finished_at: Schema.NullOr(Schema.String),
  severity: Schema.NullOr(Severity),
  explained_by: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }).annotations({
    description:
      "The problem whose explanation stands for this run's (DECISIONS §24): a known failure past its exemplars ends done on its checks, with no model call; null when its lenses ran, or it has none."
  }),
  summary: Schema.optionalWith(Schema.NullOr(RunSummary), { default: () => null }).annotations({
    description: "Its task, outcome, top failure and counts, once it has a report (done, or skipped for no content); null before."
  })
}).annotations({ identifier: "Run", description: "A trace submitted for diagnosis in the background." })
export type Run = typeof Run.Type


export const ProblemRef = Schema.Struct({
  id: Schema.String,
  title: Schema.String,
  severity: Severity,
  status: ProblemStatus
}).annotations({ identifier: "ProblemRef", description: "A problem a run's findings joined." })

export const RunWithReport = Schema.Struct({
  ...Run.fields,
  report: Schema.optional(DiagnoseReport).annotations({ description: "The diagnose report, once the run is done." }),
  problems: Schema.optional(Schema.Array(ProblemRef)).annotations({
    description: "The problems its findings joined (DECISIONS §19), most severe first; present once the run is done."
  })
}).annotations({ identifier: "RunWithReport", description: "A run, with its report when done." })

export const RunList = Schema.Struct({
  runs: Schema.Array(Run),
  next_cursor: Schema.NullOr(Schema.String).annotations({ description: "The next page's cursor (opaque); null on the last page." })
}).annotations({ identifier: "RunList", description: "A page of runs, newest first." })

/** A run's trace as the service keeps it: normalized, with secrets and personal data replaced (DECISIONS §20). */
export const RunTrace = Schema.Struct({
  format: TraceFormat,
  trace: NormalizedTrace,
  redactions: Schema.Record({ key: Schema.String, value: Schema.Int }).annotations({ description: "Placeholders put in the trace, by kind." })
}).annotations({ identifier: "RunTrace", description: "A run's trace as kept (redacted): its events, which a report's evidence cites by index." })

/** A run's options as kept and exported: what the worker runs it with. */
export const RunOptions = Schema.Struct({
  mode: Mode,
  model: Schema.NullOr(Schema.String),
  hints: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  patterns: Schema.NullOr(Schema.Array(Schema.String)),
  max_patterns: Schema.Int,
  budget_tokens: Schema.NullOr(Schema.Int)
}).annotations({ identifier: "RunOptions", description: "The diagnose options a run was submitted with." })

/**
 * One line of `GET /v1/runs/export` (and of `svc runs import`): the run, its redacted trace and
 * options, its report and the trace file's line of each event source (for SARIF).
 */
export const RunExport = Schema.Struct({
  run: Run,
  format: TraceFormat,
  trace: NormalizedTrace,
  options: RunOptions,
  redactions: Schema.Record({ key: Schema.String, value: Schema.Int }),
  report: Schema.NullOr(DiagnoseReport),
  lines: Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.Int }))
}).annotations({ identifier: "RunExport", description: "A run as exported: one JSON Lines record." })
export type RunExport = typeof RunExport.Type

const RunId = HttpApiSchema.param("id", NulFreeText.annotations({ description: "A run's id." }))

/** The options of a trace sent as it is, as diagnose's (DECISIONS §16). */
export const SubmitRunsParams = TraceQueryParams

/** The payload: the JSON body (SubmitRunsRequest), JSON Lines, or an Inspect AI log. */
export const SubmitRunsUpload = traceUpload(SubmitRunsRequest)

export const RunReportParams = Schema.Struct({ output: OutputParam, artifact: ArtifactParam })

/**
 * The store, asked before the body is read: an unavailable store answers 503 before a body's 415
 * or 400 (DECISIONS §16's order). A middleware, as HttpApi runs one before it decodes the payload.
 */
export class StoreReady extends HttpApiMiddleware.Tag<StoreReady>()("StoreReady", { failure: StoreUnavailableWire }) {}

export class RunsGroup extends HttpApiGroup.make("runs")
  .add(
    HttpApiEndpoint.post("submitRuns", "/v1/runs")
      .setPayload(SubmitRunsUpload)
      .setUrlParams(SubmitRunsParams)
      .middleware(StoreReady)
      .addSuccess(SubmitRunsResponse, { status: 202 })
      .addError(ValidationErrorWire)
      .addError(UnsupportedTraceFormatWire)
      .addError(InvalidModeWire)
      .addError(RequestTooLargeWire)
      .addError(UnsupportedMediaTypeWire)
      .addError(ConflictWire)
      .annotate(OpenApi.Summary, "Submit traces: one run per trace, diagnosed in the background")
      .annotate(
        OpenApi.Description,
        "Takes what `POST /v1/diagnose` takes (JSON, or JSON Lines with the options as query parameters), plus `labels` and `external_id`. One run per trace the importer finds; the same trace with the same options in the same scope is the existing run. 202 with the runs and the traces refused; 400 when none was accepted; 409 when `external_id` names another trace's run. Keys of role `ingest` may do this and nothing else."
      )
      .annotate(EndpointAccess, Access.ingest)
  )
  .add(
    HttpApiEndpoint.get("listRuns", "/v1/runs")
      .setUrlParams(RunListParams)
      .addSuccess(RunList)
      .addError(ValidationErrorWire)
      .annotate(OpenApi.Summary, "List runs, newest first, with filters and a cursor")
      .annotate(EndpointAccess, Access.read)
  )
  .add(
    HttpApiEndpoint.get("exportRuns", "/v1/runs/export")
      .setUrlParams(RunFilterParams)
      .addSuccess(HttpApiSchema.Text({ contentType: "application/x-ndjson" }).annotations({ description: "JSON Lines: one RunExport per line, newest first." }))
      .addError(ValidationErrorWire)
      .annotate(OpenApi.Summary, "Export runs as JSON Lines (their traces, options and reports), for `svc runs import`")
      .annotate(EndpointAccess, Access.read)
  )
  .add(
    HttpApiEndpoint.get("getRun")`/v1/runs/${RunId}`
      .addSuccess(RunWithReport)
      .addError(NotFoundWire)
      .annotate(OpenApi.Summary, "One run, with its report when done")
      .annotate(EndpointAccess, Access.read)
  )
  .add(
    HttpApiEndpoint.get("getRunTrace")`/v1/runs/${RunId}/trace`
      .addSuccess(RunTrace)
      .addError(NotFoundWire)
      .annotate(OpenApi.Summary, "A run's trace as kept: normalized and redacted, the events its report's evidence cites")
      .annotate(EndpointAccess, Access.read)
  )
  .add(
    HttpApiEndpoint.get("getRunReport")`/v1/runs/${RunId}/report`
      .setUrlParams(RunReportParams)
      .addSuccess(DiagnoseResponse)
      .addSuccess(HttpApiSchema.Text({ contentType: "text/markdown" }).annotations({ description: "?output=markdown or Accept: text/markdown" }), { status: 200 })
      .addError(ValidationErrorWire)
      .addError(NotFoundWire)
      .annotate(OpenApi.Summary, "A done run's report, in any output of diagnose")
      .annotate(
        OpenApi.Description,
        `The report as \`POST /v1/diagnose\` renders it, by \`?output=\` or \`Accept\`: ${OUTPUTS_DESCRIBED}. SARIF keeps physical locations: the run keeps the trace file's line of each event source. 404 while the run is not done.`
      )
      .annotate(EndpointAccess, Access.read)
  )
  .add(
    HttpApiEndpoint.post("retryRun")`/v1/runs/${RunId}/retry`
      .addSuccess(Run)
      .addError(NotFoundWire)
      .addError(ConflictWire)
      .annotate(OpenApi.Summary, "Re-queue a failed or skipped run (admin)")
      .annotate(EndpointAccess, Access.admin)
  )
  .add(
    HttpApiEndpoint.post("explainRun")`/v1/runs/${RunId}/explain`
      .addSuccess(Run, { status: 202 })
      .addError(NotFoundWire)
      .addError(ConflictWire)
      .annotate(OpenApi.Summary, "Explain a run again with its lenses, whatever its problem knows (admin; spends budget)")
      .annotate(
        OpenApi.Description,
        "Queues the run again with its lenses (DECISIONS §24): a run of a known failure ended on its checks (`explained_by`) gets its own explanation; its report is replaced when done. Idempotent while queued; 409 while it runs."
      )
      .annotate(EndpointAccess, Access.admin)
  )
  .add(
    HttpApiEndpoint.del("deleteRun")`/v1/runs/${RunId}`
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFoundWire)
      .annotate(OpenApi.Summary, "Delete a run: its trace, report and cache entries (admin); a running run is interrupted")
      .annotate(EndpointAccess, Access.admin)
  )
  // every route's path and query are the contract's: a refused one is 400 (Edge/Forward.ts)
  .addError(ValidationErrorWire)
  .addError(UnauthorizedWire)
  .addError(RateLimitedWire)
  .addError(AuthMisconfiguredWire)
  .addError(StoreUnavailableWire)
  .annotate(OpenApi.Title, "Runs")
  .annotate(OpenApi.Description, "Traces submitted once, diagnosed in the background, kept and listed (docs/runs.md).")
{}
