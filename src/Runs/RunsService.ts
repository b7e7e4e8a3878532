/**
 * The runs API's effects (DECISIONS §17), one for every surface (REST, MCP, the CLI, the OTLP assembly):
 * submit (the diagnose's typed request admitted once per trace, redacted before it is kept), list,
 * get, a report, retry, delete, export and import, each in the caller's data scope (a run of
 * another scope is not found: 404, never 403). The store opens on first use; while it cannot be
 * read or written every effect here fails with 503 `store_unavailable`.
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import { createHash, randomBytes } from "node:crypto"
import { AppConfig } from "../Config.js"
import { Caller, callerScope } from "../Auth/Caller.js"
import { AnalysisCache } from "../Cache/AnalysisCache.js"
import { Severity } from "../Catalogue/Severity.js"
import { ExternalId, type Run, RunExport, RunLabels, type RunOptions, type RunTrace, SkipReason } from "../Contract/RunsContract.js"
import type { RunFilterQuery, RunListParams } from "../Contract/Queries.js"
import { DEFAULT_PAGE, RunStatus } from "../Contract/Statuses.js"
import { DiagnoseReport, FailureAnchor, type ReportContext } from "../Contract/DiagnoseReport.js"
import { type AdmitFailure, type AdmittedDiagnose, type AdmittedEach, DiagnoseService } from "../Diagnose/DiagnoseService.js"
import { locateLines } from "../Diagnose/Render/JsonLines.js"
import { Conflict, errorKinds, InternalError, NotFound, refusalOf, type StoreUnavailable, ValidationError } from "../Errors.js"
import { formatParseError, NO_QUERY, type QueryOptions } from "../Intake/Intake.js"
import type { DiagnoseOptions } from "../Intake/Requests.js"
import { makeSlices } from "../Lifecycle/Slices.js"
import type { OtlpDocument } from "../Otlp/Wire/Model.js"
import { runMetrics } from "../Observability/Metrics.js"
import { inStore, RunStoreAccess } from "../Store/RunStoreAccess.js"
import { readCursor } from "../Store/Cursor.js"
import { taskName } from "../Problems/Verdict.js"
import type { ReportSummaryColumns, RunFilter, RunRecord, StoredRun } from "../Store/Runs.js"
import { NormalizedTrace, TraceFormat } from "../Traces/Model.js"

/** The request a run keeps: the admitted diagnose (redacted) and whose it is. */
export const StoredRequest = Schema.Struct({
  /** The submitting key's name (the worker diagnoses in its scope); null with auth off. */
  key_name: Schema.NullOr(Schema.String),
  format: TraceFormat,
  trace: NormalizedTrace,
  options: Schema.Struct({
    mode: RunExport.fields.options.fields.mode,
    model: Schema.NullOr(Schema.String),
    hints: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
    patterns: Schema.NullOr(Schema.Array(Schema.String)),
    max_patterns: Schema.Int,
    budget_tokens: Schema.NullOr(Schema.Int)
  }),
  redactions: Schema.Record({ key: Schema.String, value: Schema.Int }),
  /** Its lenses asked for (`POST /v1/runs/{id}/explain`, DECISIONS §24): run whatever its problem knows. */
  explain: Schema.optional(Schema.Boolean)
})
export type StoredRequest = typeof StoredRequest.Type

/** A decoder compiled when first used: start-up does not build what only a stored run needs. */
const onFirstUse = <A>(make: () => (input: unknown) => A): ((input: unknown) => A) => {
  let made: ((input: unknown) => A) | undefined
  return (input) => (made ??= make())(input)
}
const decodeStored = onFirstUse(() => Schema.decodeUnknownEither(Schema.parseJson(StoredRequest)))
const decodeReport = onFirstUse(() => Schema.decodeUnknownEither(Schema.parseJson(DiagnoseReport)))
const decodeLines = onFirstUse(() => Schema.decodeUnknownEither(Schema.parseJson(Schema.Record({ key: Schema.String, value: Schema.Int }))))
const decodeExport = onFirstUse(() => Schema.decodeUnknownEither(Schema.parseJson(RunExport)))
const isSkipReason = Schema.is(SkipReason)
const isSeverity = Schema.is(Severity)

/** The wire options of a diagnose's options. */
export const wireOptions = (options: DiagnoseOptions): typeof RunOptions.Type => ({
  mode: options.mode,
  model: options.model,
  hints: options.hints,
  patterns: options.patterns ?? null,
  max_patterns: options.maxPatterns,
  budget_tokens: options.budgetTokens
})

/** A kept request as the diagnose's admitted request again. */
export const admittedOf = (stored: StoredRequest): AdmittedDiagnose => ({
  format: stored.format,
  trace: stored.trace,
  options: {
    mode: stored.options.mode,
    model: stored.options.model,
    hints: stored.options.hints,
    patterns: stored.options.patterns ?? undefined,
    maxPatterns: stored.options.max_patterns,
    budgetTokens: stored.options.budget_tokens
  },
  redactions: stored.redactions
})

/** A kept report, read back; undefined for one this service did not write. */
export const readStoredReport = (text: string): DiagnoseReport | undefined => Either.getOrUndefined(decodeReport(text))

/** A kept request, read back; a request this service did not write is an error of the run, not of the worker. */
export const readStoredRequest = (text: string): Either.Either<StoredRequest, string> =>
  Either.mapLeft(decodeStored(text), (error) => `the run's stored request cannot be read: ${formatParseError(error)}`)

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString())

const decodeAnchor = Schema.decodeUnknownOption(Schema.parseJson(FailureAnchor))

/** A report's summary columns as a list shows them (DECISIONS §25): the task's first words name the run. */
const wireSummary = (columns: ReportSummaryColumns | undefined): Run["summary"] =>
  columns === undefined ? null : {
    task: taskName(columns.task),
    outcome: taskName(columns.outcome),
    top_failure: columns.anchor === null ? null : Option.getOrNull(decodeAnchor(columns.anchor)),
    checks: columns.checks,
    findings: columns.findings
  }

/** A store's run as the API's Run. */
export const wireRun = (record: RunRecord): Run => ({
  id: record.id,
  status: record.status,
  reason: isSkipReason(record.reason) ? record.reason : null,
  error: record.error,
  trace_id: record.traceId,
  external_id: record.externalId,
  labels: record.labels,
  source: record.source,
  attempts: record.attempts,
  submitted_at: new Date(record.submittedAt).toISOString(),
  started_at: iso(record.startedAt),
  finished_at: iso(record.finishedAt),
  severity: isSeverity(record.severity) ? record.severity : null,
  explained_by: record.explainedBy,
  summary: wireSummary(record.summary)
})

/** Run ids: 128 random bits, so one scope cannot guess another's. */
export const newRunId = (): string => `run_${randomBytes(16).toString("base64url")}`

/**
 * What a run keeps of its request: the request as stored (`StoredRequest` as JSON, in this key
 * order), and its dedupe key: the same trace with the same options is one run (per scope), so the key
 * is the SHA-256 of `[format, trace, options]` as JSON. Both hold the same trace text, most of a
 * run's bytes, so it is serialised once and both are put together from the parts: byte for byte what
 * `JSON.stringify` makes of the whole (test/runs/stored-forms.test.ts), as keys stored earlier were.
 */
export const storedForms = (
  kept: Pick<StoredRequest, "format" | "trace" | "options">,
  keyName: string | null,
  redactions: StoredRequest["redactions"]
): { readonly dedupeKey: string; readonly request: string } => {
  const format = JSON.stringify(kept.format)
  const trace = JSON.stringify(kept.trace)
  const options = JSON.stringify(kept.options)
  return {
    dedupeKey: createHash("sha256").update(`[${format},${trace},${options}]`).digest("hex"),
    request: `{"format":${format},"trace":${trace},"options":${options},"key_name":${JSON.stringify(keyName)},"redactions":${JSON.stringify(redactions)}}`
  }
}

/** The labels and external id of a body (an envelope's own fields), each by the contract's schema. */
const runFields = (body: Record<string, unknown> | Array<unknown>) =>
  Either.gen(function*() {
    const envelope = Predicate.isRecord(body) && (Predicate.isRecord(body["trace"]) || Array.isArray(body["trace"])) ? body : undefined
    // onExcessProperty: a key outside the label pattern is an excess property to Schema.Record, dropped unless refused
    const labels = envelope?.["labels"] === undefined
      ? {}
      : yield* Either.mapLeft(Schema.decodeUnknownEither(RunLabels, { onExcessProperty: "error" })(envelope["labels"]), (error) => refusalOf(error, ["labels"]))
    const externalId = envelope?.["external_id"] === undefined || envelope["external_id"] === null
      ? null
      : yield* Either.mapLeft(Schema.decodeUnknownEither(ExternalId)(envelope["external_id"]), (error) => refusalOf(error, ["external_id"]))
    return { labels, externalId }
  })

/** The store's filter of a decoded runs query (the contract's RunFilterParams decoded `label`, `since` and `until`). */
export const filterOf = (query: RunFilterQuery): RunFilter => ({
  status: query.status,
  severity: query.severity,
  pattern: query.pattern,
  problem: query.problem,
  label: query.label,
  externalId: query.external_id,
  traceId: query.trace_id,
  since: query.since,
  until: query.until
})

/** A list's page from the decoded query: its size (default DEFAULT_PAGE), and a cursor this service gave (400 for one it did not). */
export const readPage = (query: { readonly limit?: number | undefined; readonly cursor?: string | undefined }): Either.Either<{ readonly limit: number; readonly cursor: string | null }, ValidationError> =>
  query.cursor !== undefined && readCursor(query.cursor) === undefined
    ? Either.left(new ValidationError({ message: "cursor is not a next_cursor this service gave: start again without it" }))
    : Either.right({ limit: query.limit ?? DEFAULT_PAGE, cursor: query.cursor ?? null })

export interface SubmitOutcome {
  readonly runs: ReadonlyArray<{ readonly id: string; readonly status: RunStatus; readonly trace_id: string | null }>
  readonly rejected: ReadonlyArray<{ readonly index: number; readonly error: string; readonly message: string }>
}

export interface RunReport {
  readonly report: DiagnoseReport
  readonly context: ReportContext
}

export type SubmitFailure = AdmitFailure | Conflict | StoreUnavailable

/**
 * A run's request built by the OTLP assembly from a complete trace (DECISIONS §18), not read from a
 * client's body: the trace's spans as the OTLP/JSON document the span readers take (its format
 * known: nothing is detected among the others), the labels read off its spans, and its skip
 * decision; its options are the runs' own (SVC_RUN_MODE, SVC_RUN_MAX_PATTERNS), as for a body that
 * names none.
 */
export interface SubmitRunRequest {
  readonly document: OtlpDocument
  readonly labels: Readonly<Record<string, string>>
  /**
   * Whether each trace is skipped (not chosen for diagnosis: `not_failed`, `sampled_out`) or queued
   * (undefined), decided on the trace as admitted: normalized and redacted as the run keeps it, so
   * a decision that reads it (the checks, DECISIONS §23) costs no second normalization.
   */
  readonly skip: (trace: NormalizedTrace) => Effect.Effect<typeof SkipReason.Type | undefined, never, Caller>
}

/** Where a submission's runs come from, and what they carry besides their trace. */
interface RunOrigin {
  readonly source: "api" | "otlp"
  readonly externalId: string | null
  readonly labels: Readonly<Record<string, string>>
  readonly skip?: SubmitRunRequest["skip"] | undefined
  /** The body as sent, for the trace file's lines (SARIF), when it is text. */
  readonly text?: string | undefined
}

export interface RunsServiceShape {
  /** The store, opened if it is not yet: a surface refuses with 503 before it reads a body (DECISIONS §16's order). */
  readonly ready: Effect.Effect<void, StoreUnavailable>
  /**
   * One run per trace of the body (the diagnose's request, admitted and redacted), in the caller's
   * scope; `text` is the body as sent, for the trace file's lines (SARIF) when it is text.
   */
  readonly submit: (
    body: Record<string, unknown> | Array<unknown>,
    query?: QueryOptions,
    text?: string
  ) => Effect.Effect<SubmitOutcome, SubmitFailure, Caller>
  /** The run of a trace the OTLP assembly completed (`source: otlp`), kept as `submit` keeps a body's: the same scope, de-duplication and slices. */
  readonly submitRun: (request: SubmitRunRequest) => Effect.Effect<SubmitOutcome, SubmitFailure, Caller>
  readonly list: (
    query: typeof RunListParams.Type
  ) => Effect.Effect<{ readonly runs: ReadonlyArray<Run>; readonly next_cursor: string | null }, ValidationError | StoreUnavailable | InternalError, Caller>
  readonly get: (id: string) => Effect.Effect<Run & { readonly report?: DiagnoseReport }, NotFound | StoreUnavailable | InternalError, Caller>
  /** A run's trace as kept (normalized, redacted). */
  readonly trace: (id: string) => Effect.Effect<typeof RunTrace.Type, NotFound | StoreUnavailable | InternalError, Caller>
  /** A done run's report with what its renderers need; 404 while it is not done. */
  readonly report: (id: string) => Effect.Effect<RunReport, NotFound | StoreUnavailable | InternalError, Caller>
  /** Re-queues a failed or skipped run; 409 for a run in another state. */
  readonly retry: (id: string) => Effect.Effect<Run, NotFound | Conflict | StoreUnavailable | InternalError, Caller>
  /**
   * Queues a run again with its lenses, whatever its problem knows (DECISIONS §24): it spends
   * budget; idempotent while queued; a running run is a conflict. Its report is replaced when done.
   */
  readonly explain: (id: string) => Effect.Effect<Run, NotFound | Conflict | StoreUnavailable | InternalError, Caller>
  /** Re-queues every failed or skipped run (of `status`) of the scope; how many. */
  readonly retryAll: (status: "failed" | "skipped") => Effect.Effect<number, StoreUnavailable | InternalError, Caller>
  /** Removes a run, its trace, report and cache entries. */
  readonly remove: (id: string) => Effect.Effect<void, NotFound | StoreUnavailable | InternalError, Caller>
  /** The scope's runs as export lines (JSON), newest first, page by page. */
  readonly exportPage: (
    filter: RunFilter,
    cursor: string | null
  ) => Effect.Effect<{ readonly lines: ReadonlyArray<string>; readonly next: string | null }, StoreUnavailable | InternalError, Caller>
  /** Restores exported lines in the caller's scope; how many were new, and the lines refused. */
  readonly importLines: (
    lines: ReadonlyArray<string>
  ) => Effect.Effect<{ readonly imported: number; readonly existing: number; readonly refused: ReadonlyArray<{ readonly line: number; readonly message: string }> }, StoreUnavailable | InternalError, Caller>
}

export class RunsService extends Context.Tag("RunsService")<RunsService, RunsServiceShape>() {}

const notFound = (id: string) => new NotFound({ message: `no run ${JSON.stringify(id.slice(0, 80))} in this key's scope` })

/** The export page size. */
const EXPORT_PAGE = 200

export const RunsServiceLive = Layer.effect(
  RunsService,
  Effect.gen(function*() {
    const { runs: runSettings } = yield* AppConfig
    const diagnoses = yield* DiagnoseService
    const access = yield* RunStoreAccess
    const cache = yield* AnalysisCache

    /** The options of a run whose request names none: SVC_RUN_MODE and SVC_RUN_MAX_PATTERNS, the rest the diagnose's defaults. */
    const runOptions: DiagnoseOptions = {
      mode: runSettings.mode,
      model: null,
      hints: {},
      patterns: undefined,
      maxPatterns: runSettings.maxPatterns,
      budgetTokens: null
    }

    /** How admitted traces become runs, whoever submits them: one per trace in the scope, the same trace with the same options the one run. */
    const keep = (admitted: AdmittedEach, keyName: string | null, scope: string, origin: RunOrigin) =>
      Effect.gen(function*() {
        if (origin.externalId !== null && admitted.traces.length > 1) {
          return yield* new ValidationError({
            message: `external_id names one run, and the body holds ${admitted.traces.length} traces; send them one by one, or choose one with select`
          })
        }
        const store = yield* access.store
        const now = yield* Clock.currentTimeMillis
        const runs: Array<SubmitOutcome["runs"][number]> = []
        const rejected: Array<SubmitOutcome["rejected"][number]> = []
        // a body of thousands of traces is kept in slices, the event loop served between them
        const slices = yield* makeSlices()
        for (const [index, trace] of admitted.traces.entries()) {
          yield* slices.next
          if (Either.isLeft(trace)) {
            rejected.push({ index, error: errorKinds[trace.left._tag].kind, message: trace.left.message })
            continue
          }
          const request = trace.right
          const kept = { format: request.format, trace: request.trace, options: wireOptions(request.options) }
          const sources = request.trace.events.map((event) => event.source)
          const lines = origin.text === undefined ? null : JSON.stringify(Object.fromEntries(locateLines(origin.text, sources)))
          const skipped = origin.skip === undefined ? undefined : yield* origin.skip(request.trace)
          const submitted = yield* inStore(
            "submit",
            store.submit({
              id: newRunId(),
              scope,
              traceId: request.trace.id,
              externalId: origin.externalId,
              labels: origin.labels,
              source: origin.source,
              skipped,
              ...storedForms(kept, keyName, request.redactions),
              lines,
              submittedAt: now
            })
          ).pipe(
            Effect.catchTag("ExternalIdConflict", (conflict) =>
              Effect.fail(new Conflict({ message: `external_id ${JSON.stringify(conflict.externalId.slice(0, 80))} already names run ${conflict.runId}, of another trace` })))
          )
          runs.push({ id: submitted.run.id, status: submitted.run.status, trace_id: submitted.run.traceId })
          // a run made ended (OTLP's `skipped`): counted as the workers count the runs they end (issue 50)
          if (submitted.created && submitted.run.status !== "queued" && submitted.run.status !== "running") runMetrics.ended(submitted.run.status)
        }
        if (runs.length > 0) yield* access.queued
        if (runs.length === 0) {
          const first = rejected.slice(0, 3).map((item) => `#${item.index}: ${item.message}`).join("; ")
          return yield* new ValidationError({ message: `no trace of the body was accepted (${rejected.length} refused): ${first}` })
        }
        return { runs, rejected }
      })

    const submit: RunsServiceShape["submit"] = (body, query = NO_QUERY, text) =>
      Effect.gen(function*() {
        const { keyName } = yield* Caller
        const scope = yield* callerScope
        const fields = yield* runFields(body)
        // a run's explanation spends what SVC_RUN_MODE and SVC_RUN_MAX_PATTERNS say unless the request names its own (the body's, then the query's, win: DECISIONS §24)
        const withRunDefaults = { mode: runOptions.mode, max_patterns: String(runOptions.maxPatterns), ...query }
        const admitted = yield* diagnoses.admitEach(body, withRunDefaults)
        return yield* keep(admitted, keyName, scope, { source: "api", externalId: fields.externalId, labels: fields.labels, text })
      })

    const submitRun: RunsServiceShape["submitRun"] = (request) =>
      Effect.gen(function*() {
        const { keyName } = yield* Caller
        const scope = yield* callerScope
        const admitted = yield* diagnoses.admitOtlp(request.document, runOptions)
        return yield* keep(admitted, keyName, scope, { source: "otlp", externalId: null, labels: request.labels, skip: request.skip })
      })

    const list: RunsServiceShape["list"] = (query) =>
      Effect.gen(function*() {
        const scope = yield* callerScope
        const { cursor, limit } = yield* readPage(query)
        const store = yield* access.store
        const page = yield* inStore("list", store.list(scope, filterOf(query), limit, cursor))
        return { runs: page.runs.map(wireRun), next_cursor: page.nextCursor }
      })

    const stored = (id: string) =>
      Effect.gen(function*() {
        const scope = yield* callerScope
        const store = yield* access.store
        const found = yield* inStore("get", store.get(scope, id))
        return Option.isNone(found) ? yield* notFound(id) : found.value
      })

    /** A stored report, decoded; a report this service did not write is an internal error, logged. */
    const reportOf = (run: StoredRun) =>
      run.report === null ? Effect.succeed(undefined) : Either.match(decodeReport(run.report), {
        onLeft: (error) => Effect.zipRight(Effect.logError("a stored report cannot be read", ParseResult.TreeFormatter.formatErrorSync(error)), Effect.succeed(undefined)),
        onRight: (report) => Effect.succeed(report)
      })

    /**
     * A done run's report with each failure's problem (DECISIONS §24), and the problems it joined
     * (§19: a run links to them, they link back), merges followed as the links were moved.
     */
    const joinedOf = (run: StoredRun, report: DiagnoseReport) =>
      Effect.gen(function*() {
        const problems = yield* access.problems
        const joined = yield* inStore("get", problems.ofRun(run.scope, run.id))
        const problemOf = new Map(joined.map((problem) => [problem.linkFingerprint, problem.id]))
        const failures = report.failures.map((failure) => ({ ...failure, problem: problemOf.get(failure.fingerprint) ?? failure.problem }))
        const seen = new Set<string>()
        const refs = joined.flatMap((problem) => {
          if (seen.has(problem.id)) return []
          seen.add(problem.id)
          return [{ id: problem.id, title: problem.title, severity: problem.severity, status: problem.status }]
        })
        return { report: { ...report, failures }, problems: refs }
      })

    const get: RunsServiceShape["get"] = (id) =>
      Effect.gen(function*() {
        const run = yield* stored(id)
        const report = yield* reportOf(run)
        if (report === undefined) return wireRun(run)
        if (run.status !== "done") return { ...wireRun(run), report }
        return { ...wireRun(run), ...(yield* joinedOf(run, report)) }
      })

    const trace: RunsServiceShape["trace"] = (id) =>
      Effect.gen(function*() {
        const run = yield* stored(id)
        const request = readStoredRequest(run.request)
        if (Either.isLeft(request)) {
          yield* Effect.logError("a stored run's request cannot be read", request.left)
          return yield* new InternalError({ message: `run ${run.id}'s trace cannot be read` })
        }
        return { format: request.right.format, trace: request.right.trace, redactions: request.right.redactions }
      })

    const report: RunsServiceShape["report"] = (id) =>
      Effect.gen(function*() {
        const run = yield* stored(id)
        const kept = yield* reportOf(run)
        if (kept === undefined) return yield* new NotFound({ message: `run ${run.id} has no report: it is ${run.status}` })
        const report = run.status === "done" ? (yield* joinedOf(run, kept)).report : kept
        const request = readStoredRequest(run.request)
        const lines = run.lines === null ? undefined : Either.getOrUndefined(decodeLines(run.lines))
        return {
          report,
          context: {
            events: Either.isRight(request) ? request.right.trace.events : [],
            artifact: undefined,
            body: undefined,
            ...(lines === undefined ? {} : { lines: new Map(Object.entries(lines)) })
          }
        }
      })

    const retry: RunsServiceShape["retry"] = (id) =>
      Effect.gen(function*() {
        const scope = yield* callerScope
        const store = yield* access.store
        const now = yield* Clock.currentTimeMillis
        if (!(yield* inStore("retry", store.retry(scope, id, now)))) {
          const run = yield* stored(id)
          return yield* new Conflict({ message: `run ${run.id} is ${run.status}: only failed or skipped runs are retried` })
        }
        return wireRun(yield* stored(id))
      })

    const explain: RunsServiceShape["explain"] = (id) =>
      Effect.gen(function*() {
        const run = yield* stored(id)
        if (run.status === "running") return yield* new Conflict({ message: `run ${run.id} is running: ask again when it has ended` })
        const request = readStoredRequest(run.request)
        if (Either.isLeft(request)) return yield* new InternalError({ message: request.left })
        // asked already and still waiting: nothing to change
        if (run.status === "queued" && request.right.explain === true) return wireRun(run)
        const store = yield* access.store
        const now = yield* Clock.currentTimeMillis
        const asked = JSON.stringify({ ...request.right, explain: true } satisfies StoredRequest)
        if (!(yield* inStore("explain", store.requeueWith(run.scope, run.id, asked, now)))) {
          return yield* new Conflict({ message: `run ${run.id} started meanwhile: ask again when it has ended` })
        }
        return wireRun(yield* stored(id))
      })

    const retryAll: RunsServiceShape["retryAll"] = (status) =>
      Effect.gen(function*() {
        const scope = yield* callerScope
        const store = yield* access.store
        return yield* inStore("retry", store.retryAll(scope, status, yield* Clock.currentTimeMillis))
      })

    const remove: RunsServiceShape["remove"] = (id) =>
      Effect.gen(function*() {
        const scope = yield* callerScope
        const store = yield* access.store
        const cacheKeys = yield* inStore("delete", store.remove(scope, id))
        if (cacheKeys === undefined) return yield* notFound(id)
        yield* cache.evict(cacheKeys)
      })

    const exportPage: RunsServiceShape["exportPage"] = (filter, cursor) =>
      Effect.gen(function*() {
        const scope = yield* callerScope
        const store = yield* access.store
        const page = yield* inStore("export", store.listStored(scope, filter, EXPORT_PAGE, cursor))
        const lines: Array<string> = []
        // decoding a page is the export's CPU: in slices, so an export of all runs holds no probe
        const slices = yield* makeSlices()
        for (const run of page.runs) {
          yield* slices.next
          const request = readStoredRequest(run.request)
          if (Either.isLeft(request)) continue
          const report = yield* reportOf(run)
          const line: RunExport = {
            run: wireRun(run),
            format: request.right.format,
            trace: request.right.trace,
            options: request.right.options,
            redactions: request.right.redactions,
            report: report ?? null,
            lines: run.lines === null ? null : Either.getOrNull(decodeLines(run.lines))
          }
          lines.push(JSON.stringify(line))
        }
        return { lines, next: page.nextCursor }
      })

    const importLines: RunsServiceShape["importLines"] = (lines) =>
      Effect.gen(function*() {
        const { keyName } = yield* Caller
        const scope = yield* callerScope
        const store = yield* access.store
        let imported = 0
        let existing = 0
        const refused: Array<{ readonly line: number; readonly message: string }> = []
        const slices = yield* makeSlices()
        for (const [index, text] of lines.entries()) {
          yield* slices.next
          if (text.trim().length === 0) continue
          const decoded = decodeExport(text)
          if (Either.isLeft(decoded)) {
            refused.push({ line: index + 1, message: formatParseError(decoded.left) })
            continue
          }
          const line = decoded.right
          const kept = { format: line.format, trace: line.trace, options: line.options }
          const run: StoredRun = {
            id: line.run.id,
            scope,
            status: line.run.status,
            reason: line.run.reason,
            error: line.run.error,
            traceId: line.run.trace_id,
            externalId: line.run.external_id,
            labels: line.run.labels,
            source: line.run.source,
            attempts: line.run.attempts,
            submittedAt: Date.parse(line.run.submitted_at),
            startedAt: line.run.started_at === null ? null : Date.parse(line.run.started_at),
            finishedAt: line.run.finished_at === null ? null : Date.parse(line.run.finished_at),
            severity: line.run.severity,
            // a problem of the other store is none of this one's
            explainedBy: null,
            ...storedForms(kept, keyName, line.redactions),
            report: line.report === null ? null : JSON.stringify(line.report),
            lines: line.lines === null ? null : JSON.stringify(line.lines),
            patterns: line.report === null ? [] : Array.from(new Set(line.report.findings.map((finding) => finding.pattern))),
            // the cache entries of another service are not this one's
            cacheKeys: []
          }
          if (yield* inStore("import", store.restore(scope, run))) imported += 1
          else existing += 1
        }
        return { imported, existing, refused }
      })

    return { ready: Effect.asVoid(access.store), submit, submitRun, list, get, trace, report, retry, explain, retryAll, remove, exportPage, importLines }
  })
)
