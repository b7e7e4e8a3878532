/**
 * The runs table as a service (DECISIONS §17): what the runs API, the workers and the OTLP intake
 * ask the store. The table is the queue: a worker claims a queued run whose backoff is over (the
 * scopes with work take turns, each giving its oldest) by taking its lease (owner, until) in one
 * statement, renews it while it works, and finishes in one statement that also checks it still
 * holds the lease (a finish from a worker whose lease lapsed is discarded: the run was given to
 * another). Nothing here knows HTTP or diagnose.
 *
 * Times are milliseconds since the epoch, given by the caller (its `Clock`), so tests drive them.
 * Scopes are the data scope tokens of Auth/Scopes.ts; every read and write of one run names its
 * scope, so a run of another scope is simply not found.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type * as SqlError from "@effect/sql/SqlError"
import type * as Statement from "@effect/sql/Statement"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import { Run, SkipReason } from "../Contract/RunsContract.js"
import { RunStatus } from "../Contract/Statuses.js"
import type { ProblemFinding } from "../Problems/Fingerprint.js"
import * as Columns from "./Columns.js"
import { BigIntColumn, CountRow, LabelsColumn, labelEquals, NullableBigIntColumn, NullableText, StringListColumn } from "./Columns.js"
import { pageOf, readCursor } from "./Cursor.js"
import type { EvaluationExport, ProblemStoreShape } from "./Problems.js"


/** A run as the store keeps it (the API's Run is made from it). */
export interface RunRecord {
  readonly id: string
  readonly scope: string
  readonly status: RunStatus
  readonly reason: string | null
  readonly error: { readonly error: string; readonly message: string } | null
  readonly traceId: string | null
  readonly externalId: string | null
  readonly labels: Readonly<Record<string, string>>
  readonly source: "api" | "otlp"
  readonly attempts: number
  readonly submittedAt: number
  readonly startedAt: number | null
  readonly finishedAt: number | null
  readonly severity: string | null
  /** The problem whose explanation stands for this run's (DECISIONS §24): its lenses did not run. */
  readonly explainedBy: string | null
  /** What a list shows of its report (DECISIONS §25), as read from the report's JSON; absent before it has one. */
  readonly summary?: ReportSummaryColumns | undefined
}

/** A report's fields a list shows, read by the database from the report's JSON (the service shapes them). */
export interface ReportSummaryColumns {
  readonly task: string
  readonly outcome: string
  /** The first failure's anchor, as JSON; null when none. */
  readonly anchor: string | null
  readonly checks: number
  readonly findings: number
}

export interface NewRun {
  readonly id: string
  readonly scope: string
  readonly traceId: string | null
  readonly externalId: string | null
  readonly labels: Readonly<Record<string, string>>
  readonly source: "api" | "otlp"
  /** The same trace with the same options in one scope: one run. */
  readonly dedupeKey: string
  /** The typed request to run, as JSON (redacted trace and options). */
  readonly request: string
  /** The trace file's line of each event source, as JSON (SARIF's physical locations); null: unknown. */
  readonly lines: string | null
  readonly submittedAt: number
  /** Made `skipped` for this reason instead of queued (OTLP's traces not chosen for diagnosis); retry queues it. */
  readonly skipped?: typeof SkipReason.Type | undefined
  /** Made `failed` with this error instead of queued (an OTLP trace that could not be assembled), alerted as `run.failed`; retry queues it. */
  readonly failed?: { readonly error: string; readonly message: string } | undefined
}

/** A run as exported (`svc runs export`), to restore in another store. */
export interface StoredRun extends RunRecord {
  readonly dedupeKey: string
  readonly request: string
  readonly report: string | null
  readonly lines: string | null
  readonly patterns: ReadonlyArray<string>
  readonly cacheKeys: ReadonlyArray<string>
}

/** A run a worker holds: what it needs to run it. */
export interface ClaimedRun {
  readonly id: string
  readonly scope: string
  readonly request: string
  /** Attempts so far, this one included. */
  readonly attempts: number
  readonly submittedAt: number
  /** Where the run came from: the API or OTLP (its verdicts go back to SVC_EVALUATION_ENDPOINT, DECISIONS §21). */
  readonly source: "api" | "otlp"
  /** Its labels (a `version` label decides whether a known failure is explained again, DECISIONS §24). */
  readonly labels: Readonly<Record<string, string>>
}

/** How a run ends. */
export type RunEnd =
  | {
    readonly status: "done"
    readonly report: string
    readonly severity: string
    /** The patterns with a finding, for the `pattern` filter. */
    readonly patterns: ReadonlyArray<string>
    /** The cache entries the run's lenses used (its delete evicts them). */
    readonly cacheKeys: ReadonlyArray<string>
    /** The findings that join problems (DECISIONS §19), fingerprinted; joined in the finish's transaction. */
    readonly findings?: ReadonlyArray<ProblemFinding> | undefined
    /** The tokens the run spent (the digest sums them). */
    readonly tokens?: number | undefined
    /** Whether its lenses ran (DECISIONS §24): false for a run of a known failure ended on its checks. */
    readonly explained?: boolean | undefined
    /** The problem that explains it when its lenses did not run. */
    readonly explainedBy?: string | null | undefined
    /** Its verdicts for SVC_EVALUATION_ENDPOINT (a run that came over OTLP), written to the outbox in the finish's transaction. */
    readonly evaluation?: EvaluationExport | undefined
  }
  | { readonly status: "failed"; readonly error: { readonly error: string; readonly message: string } }
  /** `no_content` keeps the triage report the diagnose made without a model call (DECISIONS §18). */
  | { readonly status: "skipped"; readonly reason: string; readonly report?: { readonly text: string; readonly severity: string } | undefined }

export const RunFilter = Schema.Struct({
  status: Schema.optional(RunStatus),
  severity: Schema.optional(Schema.String),
  /** Done runs with a finding of this pattern. */
  pattern: Schema.optional(Schema.String),
  /** The runs of this problem (DECISIONS §24). */
  problem: Schema.optional(Schema.String),
  label: Schema.optional(Schema.Tuple(Schema.String, Schema.String)),
  externalId: Schema.optional(Schema.String),
  /** The source's own trace id (an OTel trace id in hex, a run id). */
  traceId: Schema.optional(Schema.String),
  since: Schema.optional(Schema.Number),
  until: Schema.optional(Schema.Number)
}).annotations({ identifier: "RunFilter" })
export type RunFilter = typeof RunFilter.Type

/** An `external_id` already names another trace's run in this scope. */
export class ExternalIdConflict extends Data.TaggedError("ExternalIdConflict")<{ readonly externalId: string; readonly runId: string }> {}

export interface RunStoreShape {
  /** Whether other processes share this store (PostgreSQL): their leases are alive, never released at start. */
  readonly shared: boolean
  /** A new run, or the existing one for the same trace and options (`created: false`). */
  readonly submit: (run: NewRun) => Effect.Effect<{ readonly run: RunRecord; readonly created: boolean }, ExternalIdConflict | SqlError.SqlError>
  /** One run with all it keeps. */
  readonly get: (scope: string, id: string) => Effect.Effect<Option.Option<StoredRun>, SqlError.SqlError>
  /** Newest first; `cursor` from a previous page (opaque, never carrying the scope). */
  readonly list: (
    scope: string,
    filter: RunFilter,
    limit: number,
    cursor: string | null
  ) => Effect.Effect<{ readonly runs: ReadonlyArray<RunRecord>; readonly nextCursor: string | null }, SqlError.SqlError>
  /** The same page with all each run keeps (the export), in one query. */
  readonly listStored: (
    scope: string,
    filter: RunFilter,
    limit: number,
    cursor: string | null
  ) => Effect.Effect<{ readonly runs: ReadonlyArray<StoredRun>; readonly nextCursor: string | null }, SqlError.SqlError>
  /**
   * Takes a queued run whose backoff is over, with a lease until `now + leaseMs`: the scopes with
   * due runs take turns (round robin, in the scopes' order), each giving its oldest.
   */
  readonly claim: (owner: string, now: number, leaseMs: number) => Effect.Effect<Option.Option<ClaimedRun>, SqlError.SqlError>
  /** Extends a lease this owner still holds: false when it lapsed and was taken. */
  readonly renew: (id: string, owner: string, now: number, leaseMs: number) => Effect.Effect<boolean, SqlError.SqlError>
  /**
   * Ends a run this owner still holds, in one transaction with the problems its findings join and
   * the alerts that makes (DECISIONS §17, §19): false (and nothing written) when it lost the lease.
   */
  readonly finish: (id: string, owner: string, now: number, end: RunEnd) => Effect.Effect<boolean, SqlError.SqlError>
  /** Gives a run back to the queue (after a transient failure, or on shutdown), not before `notBefore`. */
  readonly release: (id: string, owner: string, notBefore: number) => Effect.Effect<boolean, SqlError.SqlError>
  /** Runs whose lease lapsed (their worker died) back to the queue; how many. */
  readonly releaseExpired: (now: number) => Effect.Effect<number, SqlError.SqlError>
  /** Every running run back to the queue (SQLite at start: one process, so any lease is a dead one's); how many. */
  readonly releaseAll: Effect.Effect<number, SqlError.SqlError>
  /** Re-queues a failed or skipped run with its attempts anew; false when there is none such in the scope. */
  readonly retry: (scope: string, id: string, now: number) => Effect.Effect<boolean, SqlError.SqlError>
  /** Queues a run that is not running again with `request` (its lenses asked for, DECISIONS §24), attempts anew; false when there is none such in the scope. */
  readonly requeueWith: (scope: string, id: string, request: string, now: number) => Effect.Effect<boolean, SqlError.SqlError>
  /** Re-queues every run of the scope in a state (failed or skipped), in one statement; how many. */
  readonly retryAll: (scope: string, status: "failed" | "skipped", now: number) => Effect.Effect<number, SqlError.SqlError>
  /** Removes a run and all it holds; the cache keys it used, or undefined when there is none in the scope. */
  readonly remove: (scope: string, id: string) => Effect.Effect<ReadonlyArray<string> | undefined, SqlError.SqlError>
  /** Removes the runs that finished before `before` (SVC_RETENTION_DAYS); what they were (for the cache). */
  readonly purge: (before: number) => Effect.Effect<ReadonlyArray<{ readonly id: string; readonly scope: string; readonly cacheKeys: ReadonlyArray<string> }>, SqlError.SqlError>
  /** Runs skipped for the budget before `dayStart` back to the queue (a new UTC day); how many. */
  readonly requeueBudget: (dayStart: number) => Effect.Effect<number, SqlError.SqlError>
  /** Queued runs, all scopes (the `svc_runs_queued` gauge). */
  readonly queued: Effect.Effect<number, SqlError.SqlError>
  /** Restores an exported run in a scope; false when its id or its trace is already there. */
  readonly restore: (scope: string, run: StoredRun) => Effect.Effect<boolean, SqlError.SqlError>
  /**
   * Replaces a running run's request and labels (a run whose trace was assembled again on its
   * retry, Otlp/Assembly.ts); false when it is not running.
   */
  readonly replaceRequest: (id: string, request: string, labels: Readonly<Record<string, string>>) => Effect.Effect<boolean, SqlError.SqlError>
  /** A done run's report and severity rewritten (a regroup's checks and failures, DECISIONS §24). */
  readonly replaceReport: (scope: string, id: string, report: string, severity: string) => Effect.Effect<boolean, SqlError.SqlError>
  /**
   * Reserves `tokens` of a scope's budget for the UTC day of `now`, atomically: false (nothing
   * reserved) when what is reserved and spent that day plus `tokens` would pass `limit`.
   */
  readonly reserve: (scope: string, now: number, tokens: number, limit: number) => Effect.Effect<boolean, SqlError.SqlError>
  /** Settles a reservation made on the UTC day of `reservedAt`: the estimate released, the actual spent. */
  readonly settle: (scope: string, reservedAt: number, reserved: number, actual: number) => Effect.Effect<void, SqlError.SqlError>
  /** What a scope reserved and spent on the UTC day of `now`. */
  readonly budgetOf: (scope: string, now: number) => Effect.Effect<{ readonly reserved: number; readonly spent: number }, SqlError.SqlError>
}

/** The UTC day (`YYYY-MM-DD`) of a time in milliseconds: the budget's day. */
export const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10)

export class RunStore extends Context.Tag("RunStore")<RunStore, RunStoreShape>() {}

/** The columns of a Run. */
const RUN_COLUMNS =
  "id, scope, status, reason, error_kind, error_message, trace_id, external_id, labels, source, attempts, submitted_at, started_at, finished_at, severity, explained_by"

/** The columns of a run with all it keeps. */
const STORED_COLUMNS = `${RUN_COLUMNS}, dedupe_key, request, report, lines, patterns, cache_keys`

/** Where a run came from, as the API shows it. */
const RunSource = Run.fields.source

/** The longest task and outcome a list reads (the service names a run by the task's first words). */
const SUMMARY_TEXT = 400

/** A report's summary columns, read from its JSON in the database (DECISIONS §25), in each dialect. */
const summaryColumns = (postgres: boolean): string =>
  postgres
    ? `substr(report::jsonb #>> '{trace,task}', 1, ${SUMMARY_TEXT}) AS summary_task, substr(report::jsonb #>> '{trace,outcome}', 1, ${SUMMARY_TEXT}) AS summary_outcome,
       report::jsonb #>> '{failures,0,anchor}' AS summary_anchor, jsonb_array_length(report::jsonb -> 'checks') AS summary_checks,
       jsonb_array_length(report::jsonb -> 'findings') AS summary_findings`
    : `substr(json_extract(report, '$.trace.task'), 1, ${SUMMARY_TEXT}) AS summary_task, substr(json_extract(report, '$.trace.outcome'), 1, ${SUMMARY_TEXT}) AS summary_outcome,
       json_extract(report, '$.failures[0].anchor') AS summary_anchor, json_array_length(report, '$.checks') AS summary_checks,
       json_array_length(report, '$.findings') AS summary_findings`

/** A run's columns (RUN_COLUMNS) as both drivers return them. */
const RunRow = Schema.Struct({
  id: Schema.String,
  scope: Schema.String,
  status: RunStatus,
  reason: NullableText,
  error_kind: NullableText,
  error_message: NullableText,
  trace_id: NullableText,
  external_id: NullableText,
  labels: LabelsColumn,
  source: RunSource,
  attempts: BigIntColumn,
  submitted_at: BigIntColumn,
  started_at: NullableBigIntColumn,
  finished_at: NullableBigIntColumn,
  severity: NullableText,
  explained_by: NullableText
}).annotations({ identifier: "RunRow" })

/** A run with its report's summary columns (the lists'; all null before it has a report). */
const ListedRow = Schema.Struct({
  ...RunRow.fields,
  summary_task: NullableText,
  summary_outcome: NullableText,
  summary_anchor: NullableText,
  summary_checks: NullableBigIntColumn,
  summary_findings: NullableBigIntColumn
}).annotations({ identifier: "ListedRunRow" })

/** A run with all it keeps (`get`, the export, the regroup). */
const StoredRow = Schema.Struct({
  ...ListedRow.fields,
  dedupe_key: Schema.String,
  request: Schema.String,
  report: NullableText,
  lines: NullableText,
  patterns: NullableText,
  cache_keys: StringListColumn
}).annotations({ identifier: "StoredRunRow" })

/** What a claim returns of the run it took. */
const ClaimedRow = Schema.Struct({
  id: Schema.String,
  scope: Schema.String,
  request: Schema.String,
  attempts: BigIntColumn,
  submitted_at: BigIntColumn,
  source: RunSource,
  labels: LabelsColumn
}).annotations({ identifier: "ClaimedRunRow" })

/** What a finish returns of the run it ended. */
const FinishedRow = Schema.Struct({ scope: Schema.String, trace_id: NullableText, labels: LabelsColumn }).annotations({ identifier: "FinishedRunRow" })

/** What a delete returns of each run it removed. */
const RemovedRow = Schema.Struct({ id: Schema.String, scope: Schema.String, cache_keys: StringListColumn }).annotations({ identifier: "RemovedRunRow" })

const BudgetRow = Schema.Struct({ reserved: BigIntColumn, spent: BigIntColumn }).annotations({ identifier: "BudgetRow" })

/** One run of a scope. */
const ScopedId = Schema.Struct({ scope: Schema.String, id: Schema.String })

/** A page's query: the scope, the filter, the page's size and where the previous page ended. */
const PageRequest = Schema.Struct({
  scope: Schema.String,
  filter: RunFilter,
  limit: Schema.Number,
  after: Schema.NullOr(Schema.Tuple(Schema.Number, Schema.String))
})

/** A run's row as a RunRecord (with its report's summary when the row had one; no spread: the lists make one a row). */
const recordOf = (row: typeof RunRow.Type, summary?: ReportSummaryColumns): RunRecord => ({
  id: row.id,
  scope: row.scope,
  status: row.status,
  reason: row.reason,
  error: row.error_kind === null ? null : { error: row.error_kind, message: row.error_message ?? "" },
  traceId: row.trace_id,
  externalId: row.external_id,
  labels: row.labels,
  source: row.source,
  attempts: row.attempts,
  submittedAt: row.submitted_at,
  startedAt: row.started_at,
  finishedAt: row.finished_at,
  severity: row.severity,
  explainedBy: row.explained_by,
  summary
})

/** A listed row as a RunRecord with its report's summary, when its report had one. */
const listedOf = (row: typeof ListedRow.Type): RunRecord =>
  recordOf(
    row,
    row.summary_task === null ? undefined : {
      task: row.summary_task,
      outcome: row.summary_outcome ?? "",
      anchor: row.summary_anchor,
      checks: row.summary_checks ?? 0,
      findings: row.summary_findings ?? 0
    }
  )

/** A whole row (`get`'s columns) as a StoredRun. */
const storedOf = (row: typeof StoredRow.Type): StoredRun => ({
  ...listedOf(row),
  dedupeKey: row.dedupe_key,
  request: row.request,
  report: row.report,
  lines: row.lines,
  // kept as ",a,b," so one LIKE finds a pattern
  patterns: row.patterns === null ? [] : row.patterns.split(",").filter((name) => name.length > 0),
  cacheKeys: row.cache_keys
})

/** A text matched literally by LIKE with a backslash as ESCAPE: its wildcards escaped (slugs hold `_`: removing it would match nothing). */
const escapeLike = (text: string): string => text.replace(/[%_\\]/g, (wildcard) => `\\${wildcard}`)

export const makeRunStore = (problems: ProblemStoreShape) => Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  // What differs between SQLite and PostgreSQL, all of it here (the label filter: Columns.ts labelEquals); the rest is one text for both.
  const postgres = sql.onDialectOrElse({ pg: () => true, orElse: () => false })
  const dialect = {
    /**
     * The next due queued run in turn: the oldest of the first scope with work after `after` (in
     * the scopes' order, wrapping around), taken by one claimer: PostgreSQL's replicas skip the
     * rows another holds (and so move on to that scope's next run, or the next scope's).
     */
    nextQueued: (now: number, after: string) => {
      const next = sql`SELECT id FROM runs WHERE status = 'queued' AND not_before <= ${now}
                       ORDER BY CASE WHEN scope > ${after} THEN 0 ELSE 1 END, scope, submitted_at, id LIMIT 1`
      return postgres ? sql`${next} FOR UPDATE SKIP LOCKED` : next
    },
    /** The larger of two expressions. */
    larger: (a: Statement.Fragment, b: Statement.Fragment) => (postgres ? sql`GREATEST(${a}, ${b})` : sql`MAX(${a}, ${b})`),
    /** A run's columns with its report's summary (the lists'). */
    listed: `${RUN_COLUMNS}, ${summaryColumns(postgres)}`,
    /** A stored run's columns with its report's summary (one run, the export and the regroup): the Run they show is the list's. */
    stored: `${STORED_COLUMNS}, ${summaryColumns(postgres)}`
  }

  const storedRun = Columns.findOne({
    name: "runs.get",
    Request: ScopedId,
    Result: StoredRow,
    execute: ({ id, scope }) => sql`SELECT ${sql.unsafe(dialect.stored)} FROM runs WHERE scope = ${scope} AND id = ${id}`
  })
  const byId: RunStoreShape["get"] = (scope, id) => Effect.map(storedRun({ scope, id }), Option.map(storedOf))

  /** The scope's run whose `column` is `value` (one: both are unique in a scope). */
  const runWhere = (column: "dedupe_key" | "external_id") =>
    Columns.findOne({
      name: `runs.by_${column}`,
      Request: Schema.Struct({ scope: Schema.String, value: Schema.String }),
      Result: RunRow,
      execute: ({ scope, value }) => sql`SELECT ${sql.unsafe(RUN_COLUMNS)} FROM runs WHERE scope = ${scope} AND ${sql(column)} = ${value}`
    })
  const byDedupeKey = runWhere("dedupe_key")
  const byExternalId = runWhere("external_id")

  // No transaction needed: the insert is one statement that the unique indexes guard, so two
  // submits of one trace make one run, and an external id names one trace.
  const sameRun = (run: NewRun) =>
    Effect.map(byDedupeKey({ scope: run.scope, value: run.dedupeKey }), (found) => Option.getOrUndefined(Option.map(found, recordOf)))
  const submit: RunStoreShape["submit"] = (run) => {
    const made = Effect.gen(function*() {
      const same = yield* sameRun(run)
      if (same !== undefined) return { run: same, created: false }
      const status: RunStatus = run.failed !== undefined ? "failed" : run.skipped === undefined ? "queued" : "skipped"
      const reason: string | null = run.skipped ?? null
      const error = run.failed ?? null
      // a skipped or failed run is finished when made: retention counts from then
      const finishedAt = status === "queued" ? null : run.submittedAt
      const inserted = yield* sql`INSERT INTO runs (id, scope, status, reason, error_kind, error_message, trace_id, external_id, labels, source, submitted_at, finished_at, dedupe_key, request, lines)
        VALUES (${run.id}, ${run.scope}, ${status}, ${reason}, ${error?.error ?? null}, ${error?.message ?? null}, ${run.traceId}, ${run.externalId}, ${JSON.stringify(run.labels)}, ${run.source}, ${run.submittedAt}, ${finishedAt}, ${run.dedupeKey}, ${run.request}, ${run.lines})
        ON CONFLICT DO NOTHING RETURNING id`
      if (inserted.length === 0) {
        // another submit of the same trace came first, or the external id names another trace's run
        const raced = yield* sameRun(run)
        if (raced !== undefined) return { run: raced, created: false }
        const named = run.externalId === null ? Option.none() : yield* byExternalId({ scope: run.scope, value: run.externalId })
        return yield* new ExternalIdConflict({ externalId: run.externalId ?? "", runId: Option.match(named, { onNone: () => "", onSome: (row) => row.id }) })
      }
      // its `run.failed` alert in the same transaction, as a finish writes it
      if (error !== null) yield* problems.failedRun(run.scope, run.id, run.traceId, error, run.submittedAt)
      const created: RunRecord = {
        id: run.id,
        scope: run.scope,
        status,
        reason,
        error,
        traceId: run.traceId,
        externalId: run.externalId,
        labels: run.labels,
        source: run.source,
        attempts: 0,
        submittedAt: run.submittedAt,
        startedAt: null,
        finishedAt,
        severity: null,
        explainedBy: null
      }
      return { run: created, created: true }
    })
    return run.failed === undefined ? made : sql.withTransaction(made)
  }

  /** A page of the scope's runs, newest first, of `columns` decoded as `Result` and made runs by `read`. */
  const page = <Row, RowColumns, A extends RunRecord>(name: string, columns: string, Result: Schema.Schema<Row, RowColumns>, read: (row: Row) => A) => {
    const rows = Columns.findAll({
      name,
      Request: PageRequest,
      Result,
      execute: ({ after, filter, limit, scope }) => {
        const conditions = [
          sql`scope = ${scope}`,
          ...(filter.status === undefined ? [] : [sql`status = ${filter.status}`]),
          ...(filter.severity === undefined ? [] : [sql`severity = ${filter.severity}`]),
          ...(filter.pattern === undefined ? [] : [sql`patterns LIKE ${`%,${escapeLike(filter.pattern)},%`} ESCAPE '\\'`]),
          ...(filter.label === undefined ? [] : [labelEquals(sql, filter.label[0], filter.label[1])]),
          ...(filter.problem === undefined ? [] : [sql`id IN (SELECT run_id FROM problem_runs WHERE scope = ${scope} AND problem_id = ${filter.problem})`]),
          ...(filter.externalId === undefined ? [] : [sql`external_id = ${filter.externalId}`]),
          ...(filter.traceId === undefined ? [] : [sql`trace_id = ${filter.traceId}`]),
          ...(filter.since === undefined ? [] : [sql`submitted_at >= ${filter.since}`]),
          ...(filter.until === undefined ? [] : [sql`submitted_at < ${filter.until}`]),
          ...(after === null ? [] : [sql`(submitted_at < ${after[0]} OR (submitted_at = ${after[0]} AND id < ${after[1]}))`])
        ]
        return sql`SELECT ${sql.unsafe(columns)} FROM runs WHERE ${sql.and(conditions)} ORDER BY submitted_at DESC, id DESC LIMIT ${limit + 1}`
      }
    })
    return (scope: string, filter: RunFilter, limit: number, cursor: string | null) =>
      Effect.map(rows({ scope, filter, limit, after: readCursor(cursor) ?? null }), (found) => {
        const { nextCursor, shown } = pageOf(found.map(read), limit, (run) => [run.submittedAt, run.id])
        return { runs: shown, nextCursor }
      })
  }
  const list: RunStoreShape["list"] = page("runs.list", dialect.listed, ListedRow, listedOf)
  const listStored: RunStoreShape["listStored"] = page("runs.list_stored", dialect.stored, StoredRow, storedOf)

  // The scope of this store's last claim: claims take the scopes with work in turn (round robin),
  // so a scope's backlog delays another scope's next run by one claim round at most (docs/operations.md).
  // Kept per process (each replica takes its own turns over the scopes), its claims one at a time
  // (one statement each): two workers claiming at once would read the same turn.
  const lastClaimed = yield* Ref.make("")
  const claiming = yield* Effect.makeSemaphore(1)
  const claimed = Columns.findOne({
    name: "runs.claim",
    Request: Schema.Struct({ owner: Schema.String, now: Schema.Number, until: Schema.Number, after: Schema.String }),
    Result: ClaimedRow,
    execute: ({ after, now, owner, until }) =>
      sql`UPDATE runs SET status = 'running', lease_owner = ${owner}, lease_until = ${until}, attempts = attempts + 1,
            started_at = COALESCE(started_at, ${dialect.larger(sql`submitted_at`, sql`${now}`)})
          WHERE id = (${dialect.nextQueued(now, after)})
            AND status = 'queued'
          RETURNING id, scope, request, attempts, submitted_at, source, labels`
  })
  const claim: RunStoreShape["claim"] = (owner, now, leaseMs) =>
    claiming.withPermits(1)(Effect.flatMap(Ref.get(lastClaimed), (after) =>
      claimed({ owner, now, until: now + leaseMs, after }).pipe(
        Effect.map(Option.map((row): ClaimedRun => ({
          id: row.id,
          scope: row.scope,
          request: row.request,
          attempts: row.attempts,
          submittedAt: row.submitted_at,
          source: row.source,
          labels: row.labels
        }))),
        Effect.tap(Option.match({ onNone: () => Effect.void, onSome: (run) => Ref.set(lastClaimed, run.scope) }))
      )))

  const changed = <E, R>(statement: Effect.Effect<ReadonlyArray<unknown>, E, R>) => Effect.map(statement, (rows) => rows.length)

  const renew: RunStoreShape["renew"] = (id, owner, now, leaseMs) =>
    Effect.map(
      changed(sql`UPDATE runs SET lease_until = ${now + leaseMs} WHERE id = ${id} AND status = 'running' AND lease_owner = ${owner} RETURNING id`),
      (count) => count > 0
    )

  const finished = Columns.rows("runs.finish", FinishedRow)
  const finish: RunStoreShape["finish"] = (id, owner, now, end) => {
    const held = sql`id = ${id} AND status = 'running' AND lease_owner = ${owner}`
    const returning = sql.literal("RETURNING id, scope, trace_id, labels")
    const statement = end.status === "done"
      ? sql`UPDATE runs SET status = 'done', report = ${end.report}, severity = ${end.severity}, finished_at = ${now},
              patterns = ${`,${end.patterns.join(",")},`}, cache_keys = ${JSON.stringify(end.cacheKeys)}, tokens = ${end.tokens ?? null},
              explained_by = ${end.explainedBy ?? null},
              lease_owner = NULL, lease_until = NULL, reason = NULL, error_kind = NULL, error_message = NULL WHERE ${held} ${returning}`
      : end.status === "failed"
      ? sql`UPDATE runs SET status = 'failed', error_kind = ${end.error.error}, error_message = ${end.error.message}, finished_at = ${now},
              lease_owner = NULL, lease_until = NULL WHERE ${held} ${returning}`
      : sql`UPDATE runs SET status = 'skipped', reason = ${end.reason}, finished_at = ${now},
              report = ${end.report?.text ?? null}, severity = ${end.report?.severity ?? null},
              lease_owner = NULL, lease_until = NULL WHERE ${held} ${returning}`
    const findings = end.status === "done" ? end.findings ?? [] : []
    const evaluation = end.status === "done" ? end.evaluation : undefined
    // one statement needs no transaction: a run without findings, alerts or verdicts to send finishes as before
    if (findings.length === 0 && evaluation === undefined && end.status !== "failed") return Effect.map(changed(statement), (count) => count > 0)
    return sql.withTransaction(Effect.gen(function*() {
      const row = (yield* finished(statement))[0]
      if (row === undefined) return false
      const { labels, scope, trace_id: traceId } = row
      if (end.status === "failed") {
        yield* problems.failedRun(scope, id, traceId, end.error, now)
      } else {
        if (findings.length > 0 && end.status === "done") {
          yield* problems.joinRun({ scope, runId: id, traceId, labels, now, findings, explained: end.explained ?? true, tokens: end.tokens ?? 0 })
        }
        if (evaluation !== undefined) yield* problems.evaluation(scope, id, now, evaluation)
      }
      return true
    }))
  }

  const release: RunStoreShape["release"] = (id, owner, notBefore) =>
    Effect.map(
      changed(sql`UPDATE runs SET status = 'queued', lease_owner = NULL, lease_until = NULL, not_before = ${notBefore}
                  WHERE id = ${id} AND status = 'running' AND lease_owner = ${owner} RETURNING id`),
      (count) => count > 0
    )

  const releaseExpired: RunStoreShape["releaseExpired"] = (now) =>
    changed(sql`UPDATE runs SET status = 'queued', lease_owner = NULL, lease_until = NULL WHERE status = 'running' AND lease_until < ${now} RETURNING id`)

  const releaseAll: RunStoreShape["releaseAll"] = changed(
    sql`UPDATE runs SET status = 'queued', lease_owner = NULL, lease_until = NULL WHERE status = 'running' RETURNING id`
  )

  /** Queued again, attempts anew: the runs `which` picks among the scope's failed and skipped ones. */
  const requeue = (scope: string, which: Statement.Fragment, now: number) =>
    changed(sql`UPDATE runs SET status = 'queued', reason = NULL, error_kind = NULL, error_message = NULL, finished_at = NULL, not_before = ${now}, attempts = 0
                WHERE scope = ${scope} AND ${which} AND status IN ('failed', 'skipped') RETURNING id`)

  const retry: RunStoreShape["retry"] = (scope, id, now) => Effect.map(requeue(scope, sql`id = ${id}`, now), (count) => count > 0)

  // the report stays until the run finishes again (a done run's page keeps showing it)
  const requeueWith: RunStoreShape["requeueWith"] = (scope, id, request, now) =>
    Effect.map(
      changed(sql`UPDATE runs SET status = 'queued', request = ${request}, reason = NULL, error_kind = NULL, error_message = NULL, finished_at = NULL,
                    not_before = ${now}, attempts = 0
                  WHERE scope = ${scope} AND id = ${id} AND status <> 'running' RETURNING id`),
      (count) => count > 0
    )

  const retryAll: RunStoreShape["retryAll"] = (scope, status, now) => requeue(scope, sql`status = ${status}`, now)

  // a deleted run leaves its problems' examples; their counts per day stay (DECISIONS §19)
  const removed = Columns.findOne({
    name: "runs.remove",
    Request: ScopedId,
    Result: RemovedRow,
    execute: ({ id, scope }) => sql`DELETE FROM runs WHERE scope = ${scope} AND id = ${id} RETURNING id, scope, cache_keys`
  })
  const remove: RunStoreShape["remove"] = (scope, id) =>
    sql.withTransaction(Effect.gen(function*() {
      const row = yield* removed({ scope, id })
      if (Option.isNone(row)) return undefined
      yield* problems.forgetRuns([id])
      return row.value.cache_keys
    }))

  const purged = Columns.findAll({
    name: "runs.purge",
    Request: Schema.Number,
    Result: RemovedRow,
    execute: (before) => sql`DELETE FROM runs WHERE finished_at IS NOT NULL AND finished_at < ${before} RETURNING id, scope, cache_keys`
  })
  const purge: RunStoreShape["purge"] = (before) =>
    sql.withTransaction(Effect.gen(function*() {
      const runs = (yield* purged(before)).map((row) => ({ id: row.id, scope: row.scope, cacheKeys: row.cache_keys }))
      yield* problems.forgetRuns(runs.map((run) => run.id))
      return runs
    }))

  const requeueBudget: RunStoreShape["requeueBudget"] = (dayStart) =>
    changed(
      sql`UPDATE runs SET status = 'queued', reason = NULL, finished_at = NULL, not_before = 0
          WHERE status = 'skipped' AND reason = 'budget' AND finished_at < ${dayStart} RETURNING id`
    )

  const queuedCount = Columns.findOne({
    name: "runs.queued",
    Request: Schema.Void,
    Result: CountRow,
    execute: () => sql`SELECT COUNT(*) AS n FROM runs WHERE status = 'queued'`
  })
  const queued: RunStoreShape["queued"] = Effect.map(queuedCount(undefined), Option.match({ onNone: () => 0, onSome: (row) => row.n }))

  const restore: RunStoreShape["restore"] = (scope, run) =>
    Effect.map(
      sql`INSERT INTO runs (id, scope, status, reason, error_kind, error_message, trace_id, external_id, labels, source, attempts,
            submitted_at, started_at, finished_at, severity, dedupe_key, request, report, lines, patterns, cache_keys)
          VALUES (${run.id}, ${scope}, ${run.status === "running" ? "queued" : run.status}, ${run.reason}, ${run.error?.error ?? null},
            ${run.error?.message ?? null}, ${run.traceId}, ${run.externalId}, ${JSON.stringify(run.labels)}, ${run.source}, ${run.attempts},
            ${run.submittedAt}, ${run.startedAt}, ${run.finishedAt}, ${run.severity}, ${run.dedupeKey}, ${run.request}, ${run.report},
            ${run.lines}, ${`,${run.patterns.join(",")},`}, ${JSON.stringify(run.cacheKeys)})
          ON CONFLICT DO NOTHING RETURNING id`,
      (rows) => rows.length > 0
    )

  const replaceReport: RunStoreShape["replaceReport"] = (scope, id, report, severity) =>
    Effect.map(changed(sql`UPDATE runs SET report = ${report}, severity = ${severity} WHERE scope = ${scope} AND id = ${id} AND status = 'done' RETURNING id`), (count) => count > 0)

  const replaceRequest: RunStoreShape["replaceRequest"] = (id, request, labels) =>
    Effect.map(
      changed(sql`UPDATE runs SET request = ${request}, labels = ${JSON.stringify(labels)}, lines = NULL WHERE id = ${id} AND status = 'running' RETURNING id`),
      (count) => count > 0
    )

  const reserve: RunStoreShape["reserve"] = (scope, now, tokens, limit) => {
    const day = utcDay(now)
    // one statement: the row made if absent, and added to only while it stays within the limit
    return Effect.map(
      sql`INSERT INTO budgets (scope, day, reserved, spent)
            SELECT CAST(${scope} AS TEXT), CAST(${day} AS TEXT), CAST(${tokens} AS BIGINT), 0 WHERE CAST(${tokens} AS BIGINT) <= CAST(${limit} AS BIGINT)
          ON CONFLICT (scope, day) DO UPDATE SET reserved = budgets.reserved + ${tokens}
            WHERE budgets.reserved + budgets.spent + ${tokens} <= ${limit}
          RETURNING reserved`,
      (rows) => rows.length > 0
    )
  }

  const settle: RunStoreShape["settle"] = (scope, reservedAt, reserved, actual) =>
    Effect.asVoid(
      sql`UPDATE budgets SET reserved = ${dialect.larger(sql`0`, sql`reserved - ${reserved}`)}, spent = spent + ${actual}
          WHERE scope = ${scope} AND day = ${utcDay(reservedAt)}`
    )

  const budgetRow = Columns.findOne({
    name: "budgets.get",
    Request: Schema.Struct({ scope: Schema.String, day: Schema.String }),
    Result: BudgetRow,
    execute: ({ day, scope }) => sql`SELECT reserved, spent FROM budgets WHERE scope = ${scope} AND day = ${day}`
  })
  const budgetOf: RunStoreShape["budgetOf"] = (scope, now) =>
    Effect.map(budgetRow({ scope, day: utcDay(now) }), Option.getOrElse(() => ({ reserved: 0, spent: 0 })))

  return {
    shared: postgres,
    purge,
    requeueBudget,
    queued,
    restore,
    replaceRequest,
    replaceReport,
    reserve,
    settle,
    budgetOf,
    submit,
    get: byId,
    list,
    listStored,
    retryAll,
    claim,
    renew,
    finish,
    release,
    releaseExpired,
    releaseAll,
    retry,
    requeueWith,
    remove
  } satisfies RunStoreShape
})
