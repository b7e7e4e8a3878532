/**
 * Problems in the store (DECISIONS §19): the same failure across a scope's runs. A finished run's
 * findings join problems by fingerprint in the transaction that finishes the run (`joinRun`, called
 * by Runs.ts's `finish`), so a problem's counts are exactly its runs, and replicas finishing runs of
 * one failure at once make one problem: the fingerprint's row is the one claim (its primary key),
 * and a problem's row is updated under its lock (PostgreSQL) or the write lock (SQLite).
 *
 * The alerts a join makes (a new problem at or above the alert severity, a severity crossing it, a
 * regression at most once a day) go into the outbox in that same transaction, so an alert is never
 * lost to a crash between the commit and its delivery, and never sent for a finish rolled back.
 * Nothing here knows HTTP; times are milliseconds from the caller's Clock.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type * as SqlError from "@effect/sql/SqlError"
import type * as Statement from "@effect/sql/Statement"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { createHash, randomBytes } from "node:crypto"
import { maxSeverity, Severity, severityRank } from "../Catalogue/Severity.js"
import { type ProblemFinding, ProblemFinding as ProblemFindingSchema } from "../Problems/Fingerprint.js"
import type { FailureState } from "../Problems/Policy.js"
import { mostSevereBy, patternsOf, planJoin, type ProblemAlert } from "../Problems/Grouping.js"
import { AlertEvent, type ProblemRecord, type ProblemStatus, type WebhookEvent, DAY_MS, VERSION_LABEL } from "../Problems/Model.js"
import { alertBody, problemAlertText, problemPayload, runFailedText } from "../Alerts/Texts.js"
import { ProblemStatus as ProblemStatusColumn } from "../Contract/Statuses.js"
import * as Columns from "./Columns.js"
import { BigIntColumn, CountRow, LabelsColumn, labelEquals, NullableBigIntColumn, NullableText } from "./Columns.js"
import { pageOf, readCursor } from "./Cursor.js"

/** A run's link to a problem, with the finding it showed (its quotes leave with the run). */
export interface ProblemExample {
  readonly runId: string
  readonly seenAt: number
  readonly severity: Severity
  readonly finding: ProblemFinding
}

export interface ProblemDetail extends ProblemRecord {
  readonly days: ReadonlyArray<{ readonly day: string; readonly runs: number }>
  readonly labels: ReadonlyArray<{ readonly key: string; readonly value: string; readonly runs: number }>
  readonly examples: ReadonlyArray<ProblemExample>
  /** Its latest runs whose lenses explained it (DECISIONS §24), newest first. */
  readonly exemplars: ReadonlyArray<ProblemExample>
  /** The tokens its explained runs spent. */
  readonly tokens: number
  readonly fingerprints: ReadonlyArray<string>
}

export interface ProblemFilter {
  readonly status?: ProblemStatus | undefined
  readonly severity?: Severity | undefined
  readonly pattern?: string | undefined
  readonly label?: readonly [key: string, value: string] | undefined
  /** Seen at or after (last_seen). */
  readonly since?: number | undefined
  /** Seen before (last_seen). */
  readonly until?: number | undefined
}

/** Where alerts go and when (SVC_ALERT_*): the store only writes the outbox. */
export interface AlertPolicy {
  readonly minSeverity: Severity
  /** The scope's webhook URLs; none: no alert is written. */
  readonly webhooksOf: (scope: string) => ReadonlyArray<string>
  /** An absolute link to a path of the service (SVC_PUBLIC_URL), or null when none is configured. */
  readonly linkOf: (path: string) => string | null
}

/** The alert policy the store writes the outbox by (built from the settings where Layers are composed). */
export class AlertRoutes extends Context.Tag("AlertRoutes")<AlertRoutes, AlertPolicy>() {}

export const NO_ALERTS: AlertPolicy = { minSeverity: "high", webhooksOf: () => [], linkOf: () => null }

/** A run's verdicts for SVC_EVALUATION_ENDPOINT (DECISIONS §21): an OTLP/JSON logs request, encoded as configured when sent. */
export interface EvaluationExport {
  readonly url: string
  readonly body: string
}

/** What a finished run tells the problems. */
export interface JoinInput {
  readonly scope: string
  readonly runId: string
  readonly traceId: string | null
  readonly labels: Readonly<Record<string, string>>
  readonly now: number
  readonly findings: ReadonlyArray<ProblemFinding>
  /** Whether the run's lenses ran (DECISIONS §24): its links count as explanations of their problems. */
  readonly explained: boolean
  /** The tokens the run spent (an explained run's cost goes to its problems). */
  readonly tokens: number
  /** No alert (a regroup replays runs that were alerted on already). */
  readonly silent?: boolean | undefined
}

/** A done run as a regroup replays it (DECISIONS §24): its failures under today's rule. */
export interface RegroupRun {
  readonly runId: string
  readonly traceId: string | null
  readonly labels: Readonly<Record<string, string>>
  readonly seenAt: number
  readonly findings: ReadonlyArray<ProblemFinding>
  readonly explained: boolean
  readonly tokens: number
}

export interface RegroupOutcome {
  readonly runs: number
  readonly problemsBefore: number
  readonly problemsAfter: number
  /** Problems whose id carried over (their anchor mapped one to one, or a merge held them together). */
  readonly kept: number
}



export interface DeliveryRecord {
  readonly id: string
  readonly event: AlertEvent
  readonly problemId: string | null
  readonly runId: string | null
  readonly url: string
  readonly state: "pending" | "delivering" | "delivered" | "failed"
  readonly attempts: number
  readonly lastStatus: number | null
  readonly lastError: string | null
  readonly createdAt: number
  readonly nextAt: number
  readonly deliveredAt: number | null
}

/**
 * The outbox's two streams, delivered by loops of their own so that one slow receiver cannot hold
 * up the other's rows: the webhooks' alerts, and runs' verdicts for SVC_EVALUATION_ENDPOINT.
 */
export type DeliveryStream = "alerts" | "evaluations"

/** An outbox row a deliverer holds. */
export interface DueDelivery {
  readonly id: string
  readonly event: AlertEvent
  readonly url: string
  readonly body: string
  readonly attempts: number
}

export interface CompareSide {
  readonly value: string
  /** Every trace received with the label value (runs of any status, skipped ones included). */
  readonly traces: number
  readonly diagnosed: number
  readonly sampledOut: number
}

export interface CompareRow {
  readonly problem: ProblemRecord
  readonly a: number
  readonly b: number
}

export interface DigestData {
  readonly since: number
  readonly until: number
  readonly created: ReadonlyArray<ProblemRecord>
  readonly regressed: ReadonlyArray<ProblemRecord>
  readonly recurring: ReadonlyArray<{ readonly problem: ProblemRecord; readonly runs: number }>
  readonly runs: number
  readonly tokens: number
}

export interface ProblemStoreShape {
  readonly list: (
    scope: string,
    filter: ProblemFilter,
    limit: number,
    cursor: string | null
  ) => Effect.Effect<{ readonly problems: ReadonlyArray<ProblemRecord>; readonly nextCursor: string | null }, SqlError.SqlError>
  /** A problem with its days, labels, examples and fingerprints; a merged one's target. */
  readonly get: (scope: string, id: string) => Effect.Effect<Option.Option<ProblemDetail>, SqlError.SqlError>
  /** Sets the status (resolved with a version or none, ignored, open); the updated problem. */
  readonly setStatus: (
    scope: string,
    id: string,
    status: "open" | "resolved" | "ignored",
    resolvedInVersion: string | null,
    now: number
  ) => Effect.Effect<Option.Option<ProblemRecord>, SqlError.SqlError>
  /** Moves a problem into another: its runs, days, labels and fingerprints (future runs follow). */
  readonly merge: (scope: string, id: string, into: string, now: number) => Effect.Effect<MergeOutcome, SqlError.SqlError>
  /** Takes a run out of a problem into a problem of its own fingerprint (future runs of it follow). */
  readonly detach: (scope: string, id: string, runId: string, now: number) => Effect.Effect<Option.Option<ProblemRecord>, SqlError.SqlError>
  /** The runs per UTC day (`YYYY-MM-DD`) of some problems from `sinceDay` on: their recent trend (one read, by the days' key). */
  readonly recentDays: (ids: ReadonlyArray<string>, sinceDay: string) => Effect.Effect<ReadonlyMap<string, ReadonlyMap<string, number>>, SqlError.SqlError>
  /** The problems a run joined, each with the fingerprint of the failure that joined it. */
  readonly ofRun: (scope: string, runId: string) => Effect.Effect<ReadonlyArray<ProblemRecord & { readonly linkFingerprint: string }>, SqlError.SqlError>
  /**
   * What the scope knows of failures' fingerprints (DECISIONS §24): the live problem each names,
   * its status, and its explained runs (in all, today from `dayStart`, on `version`); a
   * fingerprint no problem has yet is absent.
   */
  readonly failureStates: (
    scope: string,
    fingerprints: ReadonlyArray<string>,
    version: string | undefined,
    dayStart: number
  ) => Effect.Effect<ReadonlyMap<string, FailureState>, SqlError.SqlError>
  readonly compare: (
    scope: string,
    label: string,
    a: string,
    b: string,
    limit: number
  ) => Effect.Effect<{ readonly a: CompareSide; readonly b: CompareSide; readonly rows: ReadonlyArray<CompareRow> }, SqlError.SqlError>
  readonly digest: (scope: string, now: number) => Effect.Effect<DigestData, SqlError.SqlError>
  readonly deliveries: (
    scope: string,
    limit: number,
    cursor: string | null
  ) => Effect.Effect<{ readonly deliveries: ReadonlyArray<DeliveryRecord>; readonly nextCursor: string | null }, SqlError.SqlError>
  /**
   * Outbox rows due now, leased to `owner` until `now + leaseMs` (a dead deliverer's lapse): the
   * scopes' rows in turn (each scope's first due, then each one's second, ...), so one scope's
   * backlog never fills a claim. With `perScope`, a scope's rows are taken only while its calls in
   * flight (any deliverer's, leases not lapsed) stay within it: a hanging receiver holds its scope only.
   */
  readonly claimDeliveries: (
    owner: string,
    now: number,
    leaseMs: number,
    limit: number,
    stream?: DeliveryStream,
    perScope?: number
  ) => Effect.Effect<ReadonlyArray<DueDelivery>, SqlError.SqlError>
  /** Records an attempt: delivered, tried again at `nextAt`, or given up (`nextAt` null). */
  readonly recordAttempt: (
    id: string,
    owner: string,
    now: number,
    outcome: { readonly delivered: boolean; readonly status: number | null; readonly error: string | null; readonly nextAt: number | null }
  ) => Effect.Effect<void, SqlError.SqlError>
  /** Outbox rows written for `run.failed` of a run (in the finish's transaction). */
  readonly failedRun: (scope: string, runId: string, traceId: string | null, error: { readonly error: string; readonly message: string }, now: number) => Effect.Effect<void, SqlError.SqlError>
  /**
   * Rebuilds a scope's problems from its done runs' failures under today's rule (DECISIONS §24,
   * `svc problems regroup`), in one transaction under the scope's lock: a problem keeps its id when
   * its anchor maps one to one (its runs all carry one new fingerprint that no other problem's
   * runs carry), or when a merge held its fingerprints together; status, `resolved_in_version` and
   * merges carry over; no alert is written. All or nothing: interrupted, nothing changed, and it
   * runs again from the start.
   */
  readonly regroup: (scope: string, runs: ReadonlyArray<RegroupRun>, now: number) => Effect.Effect<RegroupOutcome, SqlError.SqlError>
  /** Joins a finished run's findings (in the finish's transaction). */
  readonly joinRun: (input: JoinInput) => Effect.Effect<void, SqlError.SqlError>
  /** The outbox row of a run's verdicts (in the finish's transaction). */
  readonly evaluation: (scope: string, runId: string, now: number, export_: EvaluationExport) => Effect.Effect<void, SqlError.SqlError>
  /** Every delivery in flight back to pending (SQLite at start: one process, so any lease is a dead one's); how many. */
  readonly releaseDeliveries: Effect.Effect<number, SqlError.SqlError>
  /** Takes deleted or purged runs out of their problems: their quotes go, the counts stay. */
  readonly forgetRuns: (runIds: ReadonlyArray<string>) => Effect.Effect<void, SqlError.SqlError>
}

export type MergeOutcome =
  | { readonly _tag: "Merged"; readonly problem: ProblemRecord }
  | { readonly _tag: "NotFound"; readonly id: string }
  | { readonly _tag: "Same" }

export class ProblemStore extends Context.Tag("ProblemStore")<ProblemStore, ProblemStoreShape>() {}

const newId = (): string => `prb_${randomBytes(12).toString("hex")}`

/** The first key of the scope's advisory lock on PostgreSQL (merges, detaches, repairs); the second is the scope's hash. */
const MERGE_LOCK = 0x70726f62
/** The explained runs a problem's detail shows as its exemplars (its explanation is read from them). */
const EXEMPLARS_SHOWN = 5
/** A scope as the second key of its advisory lock: 32 bits of its SHA-256. */
const scopeKey = (scope: string): number => createHash("sha256").update(scope).digest().readInt32BE(0)
/** Merge links read at once when a problem's id is resolved (a longer chain is read on from where it stopped). */
const CHAIN_READ = 32

const PROBLEM_COLUMNS =
  "id, scope, fingerprint, title, normalized_title, cites, playbook, patterns, anchor_check, severity, status, run_count, first_seen, last_seen, resolved_at, resolved_in_version, regressed_at, merged_into, versions_before, regression_alerted_at"

/** The same columns of the table aliased `p` (queries that join it). */
const PROBLEM_COLUMNS_OF_P = PROBLEM_COLUMNS.split(", ").map((column) => `p.${column}`).join(", ")

/** `,a,b,` as kept, as a list. */
const listOf = (raw: string | null): ReadonlyArray<string> => (raw === null ? [] : raw.split(",").filter((item) => item.length > 0))
const keptList = (items: Iterable<string>): string => `,${Array.from(new Set(items)).sort().join(",")},`

/** A problem's row (PROBLEM_COLUMNS). */
const ProblemRow = Schema.Struct({
  id: Schema.String,
  scope: Schema.String,
  fingerprint: Schema.String,
  title: Schema.String,
  normalized_title: Schema.String,
  cites: Schema.String,
  playbook: NullableText,
  patterns: Schema.String,
  anchor_check: NullableText,
  severity: Severity,
  status: ProblemStatusColumn,
  run_count: BigIntColumn,
  first_seen: BigIntColumn,
  last_seen: BigIntColumn,
  resolved_at: NullableBigIntColumn,
  resolved_in_version: NullableText,
  regressed_at: NullableBigIntColumn,
  merged_into: NullableText,
  versions_before: NullableText,
  regression_alerted_at: NullableBigIntColumn
}).annotations({ identifier: "ProblemRow" })

const problemOf = (row: typeof ProblemRow.Type): ProblemRecord => ({
  id: row.id,
  scope: row.scope,
  fingerprint: row.fingerprint,
  title: row.title,
  normalizedTitle: row.normalized_title,
  cites: row.cites,
  playbook: row.playbook,
  patterns: listOf(row.patterns),
  check: row.anchor_check,
  severity: row.severity,
  status: row.status,
  runCount: row.run_count,
  firstSeen: row.first_seen,
  lastSeen: row.last_seen,
  resolvedAt: row.resolved_at,
  resolvedInVersion: row.resolved_in_version,
  regressedAt: row.regressed_at,
  mergedInto: row.merged_into,
  versionsBefore: listOf(row.versions_before),
  regressionAlertedAt: row.regression_alerted_at
})

/** A link's `finding` column, as the join wrote it (ProblemFinding as JSON). */
const FindingColumn = Schema.parseJson(ProblemFindingSchema)

/** A run's link to a problem, as its examples read it. */
const ExampleRow = Schema.Struct({ run_id: Schema.String, seen_at: BigIntColumn, severity: Severity, finding: FindingColumn }).annotations({ identifier: "ProblemExampleRow" })

const FingerprintRow = Schema.Struct({ fingerprint: Schema.String, problem_id: Schema.String }).annotations({ identifier: "ProblemFingerprintRow" })
const ProblemIdRow = Schema.Struct({ problem_id: Schema.String }).annotations({ identifier: "ProblemIdRow" })
const RunLinkRow = Schema.Struct({ run_id: Schema.String, problem_id: Schema.String }).annotations({ identifier: "ProblemRunLinkRow" })
const DayRow = Schema.Struct({ day: Schema.String, runs: BigIntColumn }).annotations({ identifier: "ProblemDayRow" })
const ProblemDayRow = Schema.Struct({ problem_id: Schema.String, ...DayRow.fields }).annotations({ identifier: "ProblemDaysRow" })
const LabelCountRow = Schema.Struct({ label_key: Schema.String, label_value: Schema.String, runs: BigIntColumn }).annotations({ identifier: "ProblemLabelRow" })
const LabelValueRow = Schema.Struct({ problem_id: Schema.String, label_value: Schema.String, runs: BigIntColumn }).annotations({ identifier: "ProblemLabelValueRow" })
const LabelsRow = Schema.Struct({ labels: LabelsColumn }).annotations({ identifier: "RunLabelsRow" })
/** A run shared by two problems being merged: its labels null when the run was deleted (its links stay). */
const SharedRunRow = Schema.Struct({ run_id: Schema.String, seen_at: BigIntColumn, labels: Schema.NullOr(LabelsColumn) }).annotations({ identifier: "SharedRunRow" })
const FingerprintOnlyRow = Schema.Struct({ fingerprint: Schema.String }).annotations({ identifier: "FingerprintRow" })
const TokensRow = Schema.Struct({ tokens: BigIntColumn }).annotations({ identifier: "TokensRow" })
const ProblemRunsRow = Schema.Struct({ problem_id: Schema.String, runs: BigIntColumn }).annotations({ identifier: "ProblemRunsRow" })
/** The runs of a window and their tokens (SUM is null over none). */
const TotalsRow = Schema.Struct({ runs: BigIntColumn, tokens: NullableBigIntColumn }).annotations({ identifier: "RunTotalsRow" })
const StatusCountRow = Schema.Struct({ status: Schema.String, reason: NullableText, n: BigIntColumn }).annotations({ identifier: "RunStatusCountRow" })
const ExplainedCountsRow = Schema.Struct({ explained: BigIntColumn, today: BigIntColumn, on_version: BigIntColumn }).annotations({
  identifier: "ExplainedCountsRow"
})
const ScopedIdRow = Schema.Struct({ id: Schema.String, scope: Schema.String }).annotations({ identifier: "ScopedIdRow" })

/** An outbox row as its list shows it. */
const DeliveryRow = Schema.Struct({
  id: Schema.String,
  event: AlertEvent,
  problem_id: NullableText,
  run_id: NullableText,
  url: Schema.String,
  state: Schema.Literal("pending", "delivering", "delivered", "failed"),
  attempts: BigIntColumn,
  last_status: NullableBigIntColumn,
  last_error: NullableText,
  created_at: BigIntColumn,
  next_at: BigIntColumn,
  delivered_at: NullableBigIntColumn
}).annotations({ identifier: "DeliveryRow" })

/** An outbox row a deliverer took. */
const DueRow = Schema.Struct({ id: Schema.String, event: AlertEvent, url: Schema.String, body: Schema.String, attempts: BigIntColumn }).annotations({
  identifier: "DueDeliveryRow"
})

const deliveryOf = (row: typeof DeliveryRow.Type): DeliveryRecord => ({
  id: row.id,
  event: row.event,
  problemId: row.problem_id,
  runId: row.run_id,
  url: row.url,
  state: row.state,
  attempts: row.attempts,
  lastStatus: row.last_status,
  lastError: row.last_error,
  createdAt: row.created_at,
  nextAt: row.next_at,
  deliveredAt: row.delivered_at
})

// Each row shape's decoder, compiled once (a malformed row is a defect naming the query, Columns.ts).
const problemRows = Columns.rows("problems", ProblemRow)
const linkedProblemRows = Columns.rows(
  "problems.of_run",
  Schema.Struct({ ...ProblemRow.fields, link_fingerprint: Schema.String }).annotations({ identifier: "LinkedProblemRow" })
)
const problemsOf = <E, R>(statement: Effect.Effect<ReadonlyArray<unknown>, E, R>) => Effect.map(problemRows(statement), (rows) => rows.map(problemOf))
const fingerprintRows = Columns.rows("problem_fingerprints", FingerprintRow)
const problemIdRows = Columns.rows("problem_runs.problem_id", ProblemIdRow)
const runLinkRows = Columns.rows("problem_runs.links", RunLinkRow)
const exampleRows = Columns.rows("problem_runs.examples", ExampleRow)
const sharedRunRows = Columns.rows("problem_runs.shared", SharedRunRow)
const dayRows = Columns.rows("problem_days", DayRow)
const problemDayRows = Columns.rows("problem_days.recent", ProblemDayRow)
const labelCountRows = Columns.rows("problem_labels", LabelCountRow)
const labelValueRows = Columns.rows("problem_labels.compare", LabelValueRow)
const labelsRows = Columns.rows("runs.labels", LabelsRow)
const fingerprintOnlyRows = Columns.rows("problem_fingerprints.of_problem", FingerprintOnlyRow)
const countRows = Columns.rows("problems.count", CountRow)
const tokensRows = Columns.rows("problem_runs.tokens", TokensRow)
const problemRunsRows = Columns.rows("problem_days.recurring", ProblemRunsRow)
const totalsRows = Columns.rows("runs.totals", TotalsRow)
const statusCountRows = Columns.rows("runs.compare", StatusCountRow)
const explainedCountsRows = Columns.rows("problem_runs.explained", ExplainedCountsRow)
const scopedIdRows = Columns.rows("problems.merged", ScopedIdRow)
const deliveryRows = Columns.rows("alert_outbox.list", DeliveryRow)
const dueRows = Columns.rows("alert_outbox.claim", DueRow)
const versionRows = Columns.rows("problem_labels.versions", Schema.Struct({ label_value: Schema.String }).annotations({ identifier: "LabelValueOnlyRow" }))
const outboxIdRows = Columns.rows("alert_outbox.due", Schema.Struct({ id: Schema.String }).annotations({ identifier: "OutboxIdRow" }))

/** A problem's row as a finding makes it: open, with that finding's title, severity and pattern. */
const newProblemRow = (id: string, scope: string, finding: ProblemFinding, runCount: number, seenAt: number) => ({
  id,
  scope,
  fingerprint: finding.fingerprint,
  title: finding.title,
  normalized_title: finding.normalizedTitle,
  cites: finding.cites,
  playbook: finding.playbook,
  patterns: keptList(patternsOf(finding)),
  anchor_check: finding.check ?? null,
  severity: finding.severity,
  severity_rank: severityRank(finding.severity),
  status: "open",
  run_count: runCount,
  first_seen: seenAt,
  last_seen: seenAt
})

/** The ISO time of a millisecond time (alert bodies). */
const iso = (ms: number): string => new Date(ms).toISOString()


export const makeProblemStore = (policy: AlertPolicy) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const postgres = sql.onDialectOrElse({ pg: () => true, orElse: () => false })
    /** Rows read to be updated: locked on PostgreSQL (SQLite's transaction holds the write lock already). */
    const forUpdate = postgres ? sql.literal(" FOR UPDATE") : sql.literal("")

    /** Outbox rows for an event, one per webhook of the scope. */
    const enqueue = (scope: string, event: WebhookEvent, now: number, payload: Record<string, unknown>, text: string, ids: { readonly problemId: string | null; readonly runId: string | null }) => {
      const urls = policy.webhooksOf(scope)
      if (urls.length === 0) return Effect.void
      const rows = urls.map((url) => {
        const id = `dlv_${randomBytes(12).toString("hex")}`
        return {
          id,
          scope,
          event,
          problem_id: ids.problemId,
          run_id: ids.runId,
          url,
          body: alertBody(id, event, text, now, payload),
          created_at: now,
          next_at: now,
          attempts: 0,
          state: "pending"
        }
      })
      return Effect.asVoid(sql`INSERT INTO alert_outbox ${sql.insert(rows)}`)
    }

    const problemAlert = (event: ProblemAlert, problem: ProblemRecord, input: JoinInput, finding: ProblemFinding) =>
      enqueue(
        input.scope,
        event,
        input.now,
        {
          problem: problemPayload(problem, policy.linkOf(`/v1/problems/${problem.id}`)),
          run: { id: input.runId, trace_id: input.traceId, labels: input.labels, url: policy.linkOf(`/v1/runs/${input.runId}`) }
        },
        problemAlertText(event, problem, finding, policy.linkOf(`/v1/problems/${problem.id}`)),
        { problemId: problem.id, runId: input.runId }
      )

    const byIds = (ids: ReadonlyArray<string>, lock: boolean) =>
      ids.length === 0
        ? Effect.succeed<Array<ProblemRecord>>([])
        : Effect.map(problemsOf(sql`SELECT ${sql.unsafe(PROBLEM_COLUMNS)} FROM problems WHERE ${sql.in("id", ids)} ORDER BY id${lock ? forUpdate : sql.literal("")}`), (problems) => [...problems])

    /** The problem each fingerprint names, made for those that name none yet. */
    const problemIdsOf = (scope: string, findings: ReadonlyMap<string, ProblemFinding>, now: number) =>
      Effect.gen(function*() {
        const fingerprints = Array.from(findings.keys()).sort()
        const read = (wanted: ReadonlyArray<string>) =>
          Effect.map(
            fingerprintRows(sql`SELECT fingerprint, problem_id FROM problem_fingerprints WHERE scope = ${scope} AND ${sql.in("fingerprint", wanted)}`),
            (rows) => rows.map((row) => [row.fingerprint, row.problem_id] as const)
          )
        const named = new Map(yield* read(fingerprints))
        const missing = fingerprints.filter((fingerprint) => !named.has(fingerprint))
        if (missing.length === 0) return named
        const proposed = missing.map((fingerprint) => ({ scope, fingerprint, problem_id: newId() }))
        // the fingerprint's row is the claim: of replicas making it at once, one inserts it, the others read it
        const claimed = yield* Effect.map(
          fingerprintRows(sql`INSERT INTO problem_fingerprints ${sql.insert(proposed)} ON CONFLICT DO NOTHING RETURNING fingerprint, problem_id`),
          (rows) => new Set(rows.map((row) => row.fingerprint))
        )
        const made = proposed.flatMap((row) => {
          const finding = findings.get(row.fingerprint)
          return claimed.has(row.fingerprint) && finding !== undefined ? [newProblemRow(row.problem_id, scope, finding, 0, now)] : []
        })
        if (made.length > 0) yield* sql`INSERT INTO problems ${sql.insert(made)}`
        for (const row of made) named.set(row.fingerprint, row.id)
        const raced = missing.filter((fingerprint) => !claimed.has(fingerprint))
        if (raced.length > 0) for (const [fingerprint, problemId] of yield* read(raced)) named.set(fingerprint, problemId)
        return named
      })

    /** Moves each merged problem's finding (of `byProblem`) to the live problem it leads to, the more severe kept. */
    const followMerges = (scope: string, byProblem: Map<string, ProblemFinding>, problems: ReadonlyArray<ProblemRecord>) =>
      Effect.forEach(problems, (problem) =>
        Effect.gen(function*() {
          const finding = byProblem.get(problem.id)
          if (problem.mergedInto === null || finding === undefined) return
          const live = yield* resolveId(scope, problem.id)
          if (Option.isNone(live)) return
          byProblem.delete(problem.id)
          const held = byProblem.get(live.value.id)
          if (held === undefined || severityRank(finding.severity) > severityRank(held.severity)) byProblem.set(live.value.id, finding)
        }), { discard: true })

    const joinRun: ProblemStoreShape["joinRun"] = (input) =>
      Effect.gen(function*() {
        if (input.findings.length === 0) return
        // per fingerprint, the most severe finding of the run
        const byFingerprint = mostSevereBy(input.findings, (finding) => finding.fingerprint)
        const named = yield* problemIdsOf(input.scope, byFingerprint, input.now)
        // per problem (a merge may point several fingerprints at one), the run's most severe finding
        const byProblem = mostSevereBy(byFingerprint.values(), (finding) => named.get(finding.fingerprint))
        // Each problem followed to the live one before its row is locked (a merge committed since the
        // fingerprints were read; links an older release left in a cycle are repaired, taking the
        // scope's lock before any problem row, as merges do). Once locked, a live problem stays live
        // until this commits (a merge waits for its row): read again only for a merge that committed
        // between the two reads.
        yield* followMerges(input.scope, byProblem, yield* byIds(Array.from(byProblem.keys()).sort(), false))
        let problems = yield* byIds(Array.from(byProblem.keys()).sort(), true)
        for (let reads = 0; reads < 3 && problems.some((problem) => problem.mergedInto !== null); reads++) {
          yield* followMerges(input.scope, byProblem, problems)
          problems = yield* byIds(Array.from(byProblem.keys()).sort(), true)
        }
        const day = iso(input.now).slice(0, 10)
        const version = input.labels[VERSION_LABEL]
        // A run explained again (`POST /v1/runs/{id}/explain`) finishes again: its links to the
        // problems it had joined take the new failure and explanation; it is not counted twice.
        const linkedBefore = new Set((yield* problemIdRows(sql`SELECT problem_id FROM problem_runs WHERE scope = ${input.scope} AND run_id = ${input.runId}`))
          .map((row) => row.problem_id))
        for (const problemId of linkedBefore) {
          const finding = byProblem.get(problemId)
          if (finding === undefined) continue
          byProblem.delete(problemId)
          yield* sql`UPDATE problem_runs SET finding = ${JSON.stringify(finding)}, severity = ${finding.severity}, explained = ${input.explained ? 1 : 0},
                       tokens = ${input.explained ? input.tokens : 0}, version = ${version ?? null}
                     WHERE problem_id = ${problemId} AND run_id = ${input.runId}`
        }
        // what the run does to each problem is the grouping policy's (Problems/Grouping.ts); this writes it
        for (const problem of problems) {
          const finding = byProblem.get(problem.id)
          if (finding === undefined) continue
          const plan = planJoin(problem, finding, { now: input.now, version, silent: input.silent === true }, policy.minSeverity)
          const { updated } = plan
          yield* sql`UPDATE problems SET run_count = run_count + 1, last_seen = ${updated.lastSeen}, severity = ${updated.severity},
                      severity_rank = ${severityRank(updated.severity)}, status = ${updated.status}, patterns = ${keptList(updated.patterns)},
                      regressed_at = ${updated.regressedAt}${plan.regressionAlerted ? sql`, regression_alerted_at = ${input.now}` : sql.literal("")}
                    WHERE id = ${problem.id}`
          for (const alert of plan.alerts) yield* problemAlert(alert, updated, input, finding)
        }
        const linked = problems.flatMap((problem) => {
          const finding = byProblem.get(problem.id)
          return finding === undefined
            ? []
            : [{
              problem_id: problem.id,
              run_id: input.runId,
              scope: input.scope,
              fingerprint: finding.fingerprint,
              seen_at: input.now,
              severity: finding.severity,
              finding: JSON.stringify(finding),
              explained: input.explained ? 1 : 0,
              version: version ?? null,
              tokens: input.explained ? input.tokens : 0
            }]
        })
        if (linked.length === 0) return
        yield* sql`INSERT INTO problem_runs ${sql.insert(linked)} ON CONFLICT DO NOTHING`
        yield* sql`INSERT INTO problem_days ${sql.insert(linked.map((row) => ({ problem_id: row.problem_id, day, runs: 1 })))}
                   ON CONFLICT (problem_id, day) DO UPDATE SET runs = problem_days.runs + 1`
        const labels = Object.entries(input.labels)
        if (labels.length > 0) {
          const rows = linked.flatMap((row) =>
            labels.map(([key, value]) => ({
              problem_id: row.problem_id,
              scope: input.scope,
              label_key: key,
              label_value: value,
              runs: 1,
              first_seen: input.now,
              last_seen: input.now
            }))
          )
          yield* sql`INSERT INTO problem_labels ${sql.insert(rows)}
                     ON CONFLICT (problem_id, label_key, label_value) DO UPDATE SET runs = problem_labels.runs + 1, last_seen = excluded.last_seen`
        }
        const patterns = linked.flatMap((row) => {
          const finding = byProblem.get(row.problem_id)
          return finding === undefined ? [] : patternsOf(finding).map((pattern) => ({ problem_id: row.problem_id, scope: input.scope, pattern }))
        })
        if (patterns.length > 0) yield* sql`INSERT INTO problem_patterns ${sql.insert(patterns)} ON CONFLICT DO NOTHING`
      })

    const failedRun: ProblemStoreShape["failedRun"] = (scope, runId, traceId, error, now) =>
      enqueue(
        scope,
        "run.failed",
        now,
        { run: { id: runId, trace_id: traceId, error, url: policy.linkOf(`/v1/runs/${runId}`) } },
        runFailedText(error, policy.linkOf(`/v1/runs/${runId}`)),
        { problemId: null, runId }
      )

    const evaluation: ProblemStoreShape["evaluation"] = (scope, runId, now, export_) =>
      Effect.asVoid(sql`INSERT INTO alert_outbox ${
        sql.insert({
          id: `dlv_${randomBytes(12).toString("hex")}`,
          scope,
          event: "run.evaluation",
          problem_id: null,
          run_id: runId,
          url: export_.url,
          body: export_.body,
          created_at: now,
          next_at: now,
          attempts: 0,
          state: "pending"
        })
      }`)

    const list: ProblemStoreShape["list"] = (scope, filter, limit, cursor) => {
      const after = readCursor(cursor)
      const conditions: Array<Statement.Fragment> = [
        sql`p.scope = ${scope}`,
        sql`p.merged_into IS NULL`,
        ...(filter.status === undefined ? [] : [sql`p.status = ${filter.status}`]),
        ...(filter.severity === undefined ? [] : [sql`p.severity = ${filter.severity}`]),
        ...(filter.pattern === undefined
          ? []
          : [sql`p.id IN (SELECT pp.problem_id FROM problem_patterns pp WHERE pp.scope = ${scope} AND pp.pattern = ${filter.pattern})`]),
        ...(filter.label === undefined
          ? []
          : [sql`p.id IN (SELECT pl.problem_id FROM problem_labels pl WHERE pl.scope = ${scope} AND pl.label_key = ${filter.label[0]} AND pl.label_value = ${filter.label[1]})`]),
        ...(filter.since === undefined ? [] : [sql`p.last_seen >= ${filter.since}`]),
        ...(filter.until === undefined ? [] : [sql`p.last_seen < ${filter.until}`]),
        ...(after === undefined ? [] : [sql`(p.last_seen < ${after[0]} OR (p.last_seen = ${after[0]} AND p.id < ${after[1]}))`])
      ]
      return Effect.map(
        problemsOf(sql`SELECT ${sql.unsafe(PROBLEM_COLUMNS_OF_P)} FROM problems p WHERE ${sql.and(conditions)} ORDER BY p.last_seen DESC, p.id DESC LIMIT ${limit + 1}`),
        (problems) => {
          const { nextCursor, shown } = pageOf(problems, limit, (problem) => [problem.lastSeen, problem.id])
          return { problems: shown, nextCursor }
        }
      )
    }

    /**
     * The scope's lock for merges, detaches and repairs, held until the transaction ends: on
     * PostgreSQL an advisory lock on a hash of the scope (so a merge resolves both ends after any
     * other merge of the scope committed); SQLite's write transactions (BEGIN IMMEDIATE) are one
     * at a time already.
     */
    const lockScope = (scope: string) => (postgres ? Effect.asVoid(sql`SELECT pg_advisory_xact_lock(${MERGE_LOCK}, ${scopeKey(scope)})`) : Effect.void)

    /** A problem and the problems it was merged into, in order, as far as CHAIN_READ links (one read). */
    const chainOf = (scope: string, id: string) =>
      problemsOf(
        sql`WITH RECURSIVE chain AS (
              SELECT ${sql.unsafe(PROBLEM_COLUMNS)}, 0 AS hops FROM problems WHERE scope = ${scope} AND id = ${id}
              UNION ALL
              SELECT ${sql.unsafe(PROBLEM_COLUMNS_OF_P)}, chain.hops + 1 FROM problems p JOIN chain ON p.id = chain.merged_into
                WHERE p.scope = ${scope} AND chain.hops < ${CHAIN_READ})
            SELECT ${sql.unsafe(PROBLEM_COLUMNS)} FROM chain ORDER BY hops`
      )

    /**
     * Where a problem's merge links lead: the live problem, none (no such problem in the scope), or
     * broken: the members of a cycle, or the last problem of a chain whose link leads out of the
     * scope. Cycle-safe (a visited set) and read CHAIN_READ links at a time.
     */
    const walk = (scope: string, id: string) =>
      Effect.gen(function*() {
        const path: Array<ProblemRecord> = []
        const at = new Map<string, number>()
        let next = id
        for (;;) {
          const chain = yield* chainOf(scope, next)
          for (const problem of chain) {
            const seen = at.get(problem.id)
            if (seen !== undefined) return { _tag: "Broken", members: path.slice(seen).map((member) => member.id) } as const
            at.set(problem.id, path.length)
            path.push(problem)
            if (problem.mergedInto === null) return { _tag: "Live", problem } as const
          }
          const last = path[path.length - 1]
          if (last === undefined) return { _tag: "Missing" } as const
          if (chain.length <= CHAIN_READ || last.mergedInto === null) return { _tag: "Broken", members: [last.id] } as const
          next = last.mergedInto
        }
      })

    /**
     * Moves live problem `from` into live problem `to` (the scope's lock held): its fingerprints
     * (future runs follow), runs, days, labels and patterns; problems merged into `from` now point
     * at `to`, so a chain of merges stays one link long. Both rows are locked (in id order: two
     * writers never wait on each other in a circle) and read here, so a count a finish added
     * meanwhile is kept. `sourceSeen`: the source's last_seen from now on (the merge's time).
     */
    const absorb = (scope: string, from: string, to: string, sourceSeen: number | undefined) =>
      Effect.gen(function*() {
        const locked = yield* byIds([from, to].sort(), true)
        const a = locked.find((problem) => problem.id === from)
        const b = locked.find((problem) => problem.id === to)
        if (a === undefined || b === undefined) return
        yield* sql`UPDATE problem_fingerprints SET problem_id = ${to} WHERE problem_id = ${from}`
        // the runs of both count once: a run in both problems stays one link of the target, and its
        // day and labels are taken off what the source brings (its labels as the run still has them)
        const shared = yield* sharedRunRows(sql`SELECT r.run_id, r.seen_at, runs.labels FROM problem_runs r LEFT JOIN runs ON runs.id = r.run_id
                                  WHERE r.problem_id = ${from} AND r.run_id IN (SELECT run_id FROM problem_runs WHERE problem_id = ${to})`)
        const sharedDays = new Map<string, number>()
        const sharedLabels = new Map<string, { readonly key: string; readonly value: string; count: number }>()
        for (const row of shared) {
          const day = iso(row.seen_at).slice(0, 10)
          sharedDays.set(day, (sharedDays.get(day) ?? 0) + 1)
          for (const [key, value] of Object.entries(row.labels ?? {})) {
            const entry = sharedLabels.get(`${key}\u0000${value}`) ?? { key, value, count: 0 }
            entry.count += 1
            sharedLabels.set(`${key}\u0000${value}`, entry)
          }
        }
        yield* sql`DELETE FROM problem_runs WHERE problem_id = ${from} AND run_id IN (SELECT run_id FROM problem_runs WHERE problem_id = ${to})`
        yield* sql`UPDATE problem_runs SET problem_id = ${to} WHERE problem_id = ${from}`
        yield* sql`INSERT INTO problem_days (problem_id, day, runs) SELECT ${to}, day, runs FROM problem_days WHERE problem_id = ${from}
                   ON CONFLICT (problem_id, day) DO UPDATE SET runs = problem_days.runs + excluded.runs`
        yield* sql`DELETE FROM problem_days WHERE problem_id = ${from}`
        yield* sql`INSERT INTO problem_labels (problem_id, scope, label_key, label_value, runs, first_seen, last_seen)
                     SELECT ${to}, scope, label_key, label_value, runs, first_seen, last_seen FROM problem_labels WHERE problem_id = ${from}
                   ON CONFLICT (problem_id, label_key, label_value) DO UPDATE SET runs = problem_labels.runs + excluded.runs,
                     first_seen = ${postgres ? sql`LEAST` : sql`MIN`}(problem_labels.first_seen, excluded.first_seen),
                     last_seen = ${postgres ? sql`GREATEST` : sql`MAX`}(problem_labels.last_seen, excluded.last_seen)`
        yield* sql`DELETE FROM problem_labels WHERE problem_id = ${from}`
        for (const [day, runs] of sharedDays) yield* sql`UPDATE problem_days SET runs = runs - ${runs} WHERE problem_id = ${to} AND day = ${day}`
        for (const label of sharedLabels.values()) {
          yield* sql`UPDATE problem_labels SET runs = runs - ${label.count} WHERE problem_id = ${to} AND label_key = ${label.key} AND label_value = ${label.value}`
        }
        yield* sql`INSERT INTO problem_patterns (problem_id, scope, pattern) SELECT ${to}, scope, pattern FROM problem_patterns WHERE problem_id = ${from}
                   ON CONFLICT DO NOTHING`
        yield* sql`DELETE FROM problem_patterns WHERE problem_id = ${from}`
        const severity = maxSeverity([a.severity, b.severity])
        yield* sql`UPDATE problems SET run_count = ${Math.max(0, a.runCount + b.runCount - shared.length)}, first_seen = ${Math.min(a.firstSeen, b.firstSeen)},
                     last_seen = ${Math.max(a.lastSeen, b.lastSeen, 0)}, severity = ${severity}, severity_rank = ${severityRank(severity)},
                     patterns = ${keptList([...a.patterns, ...b.patterns])}
                   WHERE id = ${to}`
        yield* sql`UPDATE problems SET merged_into = ${to}, run_count = 0, last_seen = ${sourceSeen ?? a.lastSeen} WHERE id = ${from}`
        yield* sql`UPDATE problems SET merged_into = ${to} WHERE scope = ${scope} AND merged_into = ${from}`
      })

    /**
     * Makes problems reachable again whose merge links lead to no live one: a cycle (a release
     * before merges took the scope's lock let A into B and B into A commit together, hiding both),
     * or a link out of the scope. Under the scope's lock, unless another repaired them meanwhile,
     * the member holding the most runs (then the latest seen, then the smallest id) is made live and
     * the others are merged into it, so no run, count or fingerprint stays with a hidden problem.
     */
    const repair = (scope: string, members: ReadonlyArray<string>) =>
      sql.withTransaction(Effect.gen(function*() {
        yield* lockScope(scope)
        const current = yield* byIds([...members].sort(), true)
        if (current.length === 0 || current.some((problem) => problem.mergedInto === null)) return
        const [chosen] = [...current].sort((x, y) => y.runCount - x.runCount || y.lastSeen - x.lastSeen || (x.id < y.id ? -1 : 1))
        if (chosen === undefined) return
        yield* sql`UPDATE problems SET merged_into = NULL WHERE id = ${chosen.id}`
        for (const other of current) if (other.id !== chosen.id) yield* absorb(scope, other.id, chosen.id, undefined)
        yield* Effect.logWarning("problems whose merge links led to no live problem were repaired").pipe(
          Effect.annotateLogs({ scope, problem: chosen.id, merged: current.length - 1 })
        )
      }))

    /** A problem of the scope, following merges to the live one (repairing links that lead to none). */
    const resolveId = (scope: string, id: string) =>
      Effect.gen(function*() {
        // a repair makes one member live: the walk after it ends there (bounded in case another
        // release keeps breaking the links meanwhile)
        for (let repairs = 0; repairs < 3; repairs++) {
          const walked = yield* walk(scope, id)
          if (walked._tag === "Live") return Option.some(walked.problem)
          if (walked._tag === "Missing") return Option.none<ProblemRecord>()
          yield* repair(scope, walked.members)
        }
        return Option.none<ProblemRecord>()
      })

    const get: ProblemStoreShape["get"] = (scope, id) =>
      Effect.gen(function*() {
        const found = yield* resolveId(scope, id)
        if (Option.isNone(found)) return Option.none()
        const problem = found.value
        const [days, labels, examples, exemplars, spent, fingerprints] = yield* Effect.all([
          dayRows(sql`SELECT day, runs FROM problem_days WHERE problem_id = ${problem.id} ORDER BY day`),
          labelCountRows(sql`SELECT label_key, label_value, runs FROM problem_labels WHERE problem_id = ${problem.id} ORDER BY runs DESC, label_key, label_value LIMIT 100`),
          exampleRows(sql`SELECT run_id, seen_at, severity, finding FROM problem_runs WHERE problem_id = ${problem.id} ORDER BY seen_at DESC, run_id DESC LIMIT 10`),
          exampleRows(
            sql`SELECT run_id, seen_at, severity, finding FROM problem_runs WHERE problem_id = ${problem.id} AND explained = 1 ORDER BY seen_at DESC, run_id DESC LIMIT ${EXEMPLARS_SHOWN}`
          ),
          tokensRows(sql`SELECT COALESCE(SUM(tokens), 0) AS tokens FROM problem_runs WHERE problem_id = ${problem.id}`),
          fingerprintOnlyRows(sql`SELECT fingerprint FROM problem_fingerprints WHERE problem_id = ${problem.id} ORDER BY fingerprint`)
        ])
        const examplesOf = (rows: ReadonlyArray<typeof ExampleRow.Type>) =>
          rows.map((row) => ({ runId: row.run_id, seenAt: row.seen_at, severity: row.severity, finding: row.finding }))
        return Option.some({
          ...problem,
          days: days.map((row) => ({ day: row.day, runs: row.runs })),
          labels: labels.map((row) => ({ key: row.label_key, value: row.label_value, runs: row.runs })),
          examples: examplesOf(examples),
          exemplars: examplesOf(exemplars),
          tokens: spent[0]?.tokens ?? 0,
          fingerprints: fingerprints.map((row) => row.fingerprint)
        } satisfies ProblemDetail)
      })

    const setStatus: ProblemStoreShape["setStatus"] = (scope, id, status, resolvedInVersion, now) =>
      sql.withTransaction(Effect.gen(function*() {
        // a merge committing meanwhile would leave the status on the problem it hid
        yield* lockScope(scope)
        const found = yield* resolveId(scope, id)
        if (Option.isNone(found)) return Option.none()
        const problem = found.value
        if (status === "resolved") {
          // the versions this problem was seen on before it was resolved: a run on another one regresses it
          const seen = yield* versionRows(sql`SELECT label_value FROM problem_labels WHERE problem_id = ${problem.id} AND label_key = ${VERSION_LABEL}`)
          const versions = keptList(seen.map((row) => row.label_value))
          yield* sql`UPDATE problems SET status = 'resolved', resolved_at = ${now}, resolved_in_version = ${resolvedInVersion}, versions_before = ${versions}
                     WHERE id = ${problem.id}`
        } else {
          yield* sql`UPDATE problems SET status = ${status}, resolved_at = NULL, resolved_in_version = NULL, versions_before = NULL WHERE id = ${problem.id}`
        }
        return yield* resolveId(scope, problem.id)
      }))

    const merge: ProblemStoreShape["merge"] = (scope, id, into, now) =>
      sql.withTransaction(Effect.gen(function*() {
        // Both ends resolved under the scope's lock: the target is live, so the merge cannot close a
        // cycle; A into B and B into A at once make one problem (the second finds A in B: Same).
        yield* lockScope(scope)
        const notFound = (missing: string): MergeOutcome => ({ _tag: "NotFound", id: missing })
        const source = yield* resolveId(scope, id)
        if (Option.isNone(source)) return notFound(id)
        const target = yield* resolveId(scope, into)
        if (Option.isNone(target)) return notFound(into)
        if (source.value.id === target.value.id) return { _tag: "Same" } satisfies MergeOutcome
        yield* absorb(scope, source.value.id, target.value.id, now)
        const merged = yield* resolveId(scope, target.value.id)
        return Option.isNone(merged) ? notFound(into) : ({ _tag: "Merged", problem: merged.value } satisfies MergeOutcome)
      }))

    const detach: ProblemStoreShape["detach"] = (scope, id, runId) =>
      sql.withTransaction(Effect.gen(function*() {
        // after any merge of the scope committed: the run is taken from the problem that holds it now
        yield* lockScope(scope)
        const found = yield* resolveId(scope, id)
        if (Option.isNone(found)) return Option.none()
        const problem = found.value
        const link = (yield* exampleRows(sql`SELECT run_id, seen_at, severity, finding FROM problem_runs WHERE problem_id = ${problem.id} AND run_id = ${runId}`))[0]
        if (link === undefined) return Option.none()
        const { finding, seen_at: seenAt } = link
        yield* byIds([problem.id], true)
        const fresh = newId()
        yield* sql`INSERT INTO problems ${sql.insert(newProblemRow(fresh, scope, finding, 1, seenAt))}`
        // future runs of the finding's fingerprint come to the new problem
        yield* sql`UPDATE problem_fingerprints SET problem_id = ${fresh} WHERE scope = ${scope} AND fingerprint = ${finding.fingerprint}`
        yield* sql`UPDATE problem_runs SET problem_id = ${fresh} WHERE problem_id = ${problem.id} AND run_id = ${runId}`
        const day = iso(seenAt).slice(0, 10)
        yield* sql`UPDATE problem_days SET runs = runs - 1 WHERE problem_id = ${problem.id} AND day = ${day}`
        yield* sql`DELETE FROM problem_days WHERE problem_id = ${problem.id} AND runs <= 0`
        yield* sql`INSERT INTO problem_days ${sql.insert({ problem_id: fresh, day, runs: 1 })}`
        const patterns = patternsOf(finding)
        if (patterns.length > 0) yield* sql`INSERT INTO problem_patterns ${sql.insert(patterns.map((pattern) => ({ problem_id: fresh, scope, pattern })))}`
        yield* sql`UPDATE problems SET run_count = run_count - 1 WHERE id = ${problem.id} AND run_count > 0`
        // the run's labels (as it still has them) go with it
        const labels = Object.entries((yield* labelsRows(sql`SELECT labels FROM runs WHERE scope = ${scope} AND id = ${runId}`))[0]?.labels ?? {})
        for (const [key, value] of labels) {
          yield* sql`UPDATE problem_labels SET runs = runs - 1 WHERE problem_id = ${problem.id} AND label_key = ${key} AND label_value = ${value}`
        }
        yield* sql`DELETE FROM problem_labels WHERE problem_id = ${problem.id} AND runs <= 0`
        if (labels.length > 0) {
          yield* sql`INSERT INTO problem_labels ${
            sql.insert(labels.map(([key, value]) => ({ problem_id: fresh, scope, label_key: key, label_value: value, runs: 1, first_seen: seenAt, last_seen: seenAt })))
          }`
        }
        return yield* resolveId(scope, fresh)
      }))

    const regroup: ProblemStoreShape["regroup"] = (scope, runs, now) =>
      sql.withTransaction(Effect.gen(function*() {
        yield* lockScope(scope)
        // the runs' problems before: a link points at the live problem (merges move links)
        const links = new Map<string, Set<string>>()
        for (const row of yield* runLinkRows(sql`SELECT run_id, problem_id FROM problem_runs WHERE scope = ${scope}`)) {
          const held = links.get(row.run_id) ?? new Set<string>()
          held.add(row.problem_id)
          links.set(row.run_id, held)
        }
        const before = yield* problemsOf(sql`SELECT ${sql.unsafe(PROBLEM_COLUMNS)} FROM problems WHERE scope = ${scope}`)
        const live = new Map(before.filter((problem) => problem.mergedInto === null).map((problem) => [problem.id, problem]))
        const absorbed = new Set(before.flatMap((problem) => (problem.mergedInto === null ? [] : [problem.mergedInto])))
        // which old problems each new fingerprint's runs were in, and which fingerprints each old problem's runs carry now
        const sources = new Map<string, Set<string>>()
        const targets = new Map<string, Set<string>>()
        for (const run of runs) {
          for (const finding of run.findings) {
            const from = sources.get(finding.fingerprint) ?? new Set<string>()
            for (const old of links.get(run.runId) ?? []) {
              from.add(old)
              const to = targets.get(old) ?? new Set<string>()
              to.add(finding.fingerprint)
              targets.set(old, to)
            }
            sources.set(finding.fingerprint, from)
          }
        }
        // a fingerprint keeps an old problem's id when the two map one to one, or when the old
        // problem had absorbed others (a merge said its fingerprints are one failure): then each
        // fingerprint coming from it alone goes to it
        const idOf = new Map<string, string>()
        for (const [fingerprint, from] of sources) {
          const [only, ...more] = from
          if (only === undefined || more.length > 0 || !live.has(only)) continue
          const to = targets.get(only)
          if ((to !== undefined && to.size === 1) || absorbed.has(only)) idOf.set(fingerprint, only)
        }
        const keptIds = new Set(idOf.values())
        // the scope's groupings go; merged problems whose target is kept stay (their ids lead there)
        yield* sql`DELETE FROM problem_days WHERE problem_id IN (SELECT id FROM problems WHERE scope = ${scope})`
        yield* sql`DELETE FROM problem_runs WHERE scope = ${scope}`
        yield* sql`DELETE FROM problem_labels WHERE scope = ${scope}`
        yield* sql`DELETE FROM problem_patterns WHERE scope = ${scope}`
        yield* sql`DELETE FROM problem_fingerprints WHERE scope = ${scope}`
        const gone = before.filter((problem) => problem.mergedInto === null || !keptIds.has(problem.mergedInto)).map((problem) => problem.id)
        for (let at = 0; at < gone.length; at += 500) yield* sql`DELETE FROM problems WHERE scope = ${scope} AND ${sql.in("id", gone.slice(at, at + 500))}`
        // the problems, made again, then the runs replayed in the order they were seen (counts, days, labels), silently
        const firstFinding = new Map<string, ProblemFinding>()
        for (const run of runs) for (const finding of run.findings) if (!firstFinding.has(finding.fingerprint)) firstFinding.set(finding.fingerprint, finding)
        const made = new Set<string>()
        for (const [fingerprint, finding] of firstFinding) {
          const id = idOf.get(fingerprint) ?? newId()
          if (!made.has(id)) {
            made.add(id)
            const old = live.get(id)
            yield* sql`INSERT INTO problems ${sql.insert({ ...newProblemRow(id, scope, finding, 0, old?.firstSeen ?? now), first_seen: old?.firstSeen ?? now })}`
          }
          yield* sql`INSERT INTO problem_fingerprints ${sql.insert({ scope, fingerprint, problem_id: id })}`
        }
        const ordered = [...runs].sort((a, b) => a.seenAt - b.seenAt || a.runId.localeCompare(b.runId))
        for (const run of ordered) {
          yield* joinRun({ scope, runId: run.runId, traceId: run.traceId, labels: run.labels, now: run.seenAt, findings: run.findings, explained: run.explained, tokens: run.tokens, silent: true })
        }
        // a run that ended on its checks is explained by its first failure's problem, as regrouped
        for (const run of ordered) {
          const first = run.findings[0]
          if (run.explained || first === undefined) continue
          yield* sql`UPDATE runs SET explained_by = (SELECT problem_id FROM problem_fingerprints WHERE scope = ${scope} AND fingerprint = ${first.fingerprint})
                     WHERE scope = ${scope} AND id = ${run.runId} AND explained_by IS NOT NULL`
        }
        // what an admin said carries over to the problem that keeps its id
        for (const id of keptIds) {
          const old = live.get(id)
          if (old === undefined) continue
          yield* sql`UPDATE problems SET status = ${old.status}, resolved_at = ${old.resolvedAt}, resolved_in_version = ${old.resolvedInVersion},
                       versions_before = ${keptList(old.versionsBefore)}, regressed_at = ${old.regressedAt}, regression_alerted_at = ${old.regressionAlertedAt}
                     WHERE id = ${id}`
        }
        const after = (yield* countRows(sql`SELECT COUNT(*) AS n FROM problems WHERE scope = ${scope} AND merged_into IS NULL`))[0]?.n ?? 0
        return { runs: runs.length, problemsBefore: live.size, problemsAfter: after, kept: keptIds.size } satisfies RegroupOutcome
      }))

    const recentDays: ProblemStoreShape["recentDays"] = (ids, sinceDay) =>
      ids.length === 0
        ? Effect.succeed(new Map())
        : Effect.map(problemDayRows(sql`SELECT problem_id, day, runs FROM problem_days WHERE ${sql.in("problem_id", ids)} AND day >= ${sinceDay}`), (rows) => {
          const byProblem = new Map<string, Map<string, number>>()
          for (const row of rows) {
            const days = byProblem.get(row.problem_id) ?? new Map<string, number>()
            days.set(row.day, row.runs)
            byProblem.set(row.problem_id, days)
          }
          return byProblem
        })

    const ofRun: ProblemStoreShape["ofRun"] = (scope, runId) =>
      Effect.map(
        linkedProblemRows(sql`SELECT ${sql.unsafe(PROBLEM_COLUMNS_OF_P)}, r.fingerprint AS link_fingerprint FROM problem_runs r JOIN problems p ON p.id = r.problem_id
            WHERE r.scope = ${scope} AND r.run_id = ${runId} ORDER BY p.severity_rank DESC, p.id`),
        (rows) => rows.map((row) => ({ ...problemOf(row), linkFingerprint: row.link_fingerprint }))
      )

    const failureStates: ProblemStoreShape["failureStates"] = (scope, fingerprints, version, dayStart) =>
      Effect.gen(function*() {
        const states = new Map<string, FailureState>()
        if (fingerprints.length === 0) return states
        const named = yield* fingerprintRows(
          sql`SELECT fingerprint, problem_id FROM problem_fingerprints WHERE scope = ${scope} AND ${sql.in("fingerprint", Array.from(new Set(fingerprints)))}`
        )
        for (const { fingerprint, problem_id: id } of named) {
          // the live problem, merges followed
          const live = yield* resolveId(scope, id)
          if (Option.isNone(live)) continue
          const problem = live.value
          const counts = (yield* explainedCountsRows(
            sql`SELECT COUNT(*) AS explained,
                         COALESCE(SUM(CASE WHEN seen_at >= ${dayStart} THEN 1 ELSE 0 END), 0) AS today,
                         COALESCE(SUM(CASE WHEN version = ${version ?? ""} THEN 1 ELSE 0 END), 0) AS on_version
                       FROM problem_runs WHERE problem_id = ${problem.id} AND explained = 1`
          ))[0] ?? { explained: 0, today: 0, on_version: 0 }
          states.set(fingerprint, {
            problemId: problem.id,
            status: problem.status,
            explained: counts.explained,
            explainedToday: counts.today,
            versionExplained: version === undefined || counts.on_version > 0
          })
        }
        return states
      })

    /** How many runs of the scope carry a label value, by status and skip reason. */
    const sideOf = (scope: string, label: string, value: string) =>
      Effect.map(
        statusCountRows(sql`SELECT status, reason, COUNT(*) AS n FROM runs WHERE scope = ${scope} AND ${labelEquals(sql, label, value)} GROUP BY status, reason`),
        (rows): CompareSide => {
          let traces = 0
          let diagnosed = 0
          let sampledOut = 0
          for (const { n, reason, status } of rows) {
            traces += n
            if (status === "done") diagnosed += n
            if (reason === "sampled_out") sampledOut += n
          }
          return { value, traces, diagnosed, sampledOut }
        }
      )

    const compare: ProblemStoreShape["compare"] = (scope, label, a, b, limit) =>
      Effect.gen(function*() {
        const [sideA, sideB, rows] = yield* Effect.all([
          sideOf(scope, label, a),
          sideOf(scope, label, b),
          labelValueRows(sql`SELECT problem_id, label_value, runs FROM problem_labels WHERE scope = ${scope} AND label_key = ${label} AND ${sql.in("label_value", [a, b])}`)
        ])
        const counts = new Map<string, { a: number; b: number }>()
        for (const row of rows) {
          const entry = counts.get(row.problem_id) ?? { a: 0, b: 0 }
          if (row.label_value === a) entry.a += row.runs
          else entry.b += row.runs
          counts.set(row.problem_id, entry)
        }
        const problems = yield* byIds(Array.from(counts.keys()), false)
        const live = problems.filter((problem) => problem.mergedInto === null)
        const compared = live
          .map((problem) => ({ problem, a: counts.get(problem.id)?.a ?? 0, b: counts.get(problem.id)?.b ?? 0 }))
          .sort((x, y) => Math.abs(y.b - y.a) - Math.abs(x.b - x.a) || y.a + y.b - (x.a + x.b) || (x.problem.id < y.problem.id ? -1 : 1))
          .slice(0, limit)
        return { a: sideA, b: sideB, rows: compared }
      })

    const digest: ProblemStoreShape["digest"] = (scope, now) =>
      Effect.gen(function*() {
        // the last 7 UTC days, today included
        const since = now - (now % DAY_MS) - 6 * DAY_MS
        const sinceDay = iso(since).slice(0, 10)
        const columns = sql.unsafe(PROBLEM_COLUMNS)
        const [created, regressed, recurringRows, totals] = yield* Effect.all([
          problemsOf(sql`SELECT ${columns} FROM problems WHERE scope = ${scope} AND merged_into IS NULL AND first_seen >= ${since} ORDER BY severity_rank DESC, run_count DESC, id LIMIT 20`),
          problemsOf(sql`SELECT ${columns} FROM problems WHERE scope = ${scope} AND merged_into IS NULL AND status = 'regressed' AND regressed_at >= ${since} ORDER BY regressed_at DESC, id LIMIT 20`),
          problemRunsRows(sql`SELECT d.problem_id, SUM(d.runs) AS runs FROM problem_days d JOIN problems p ON p.id = d.problem_id
              WHERE p.scope = ${scope} AND p.merged_into IS NULL AND d.day >= ${sinceDay} GROUP BY d.problem_id ORDER BY SUM(d.runs) DESC, d.problem_id LIMIT 10`),
          totalsRows(sql`SELECT COUNT(*) AS runs, SUM(tokens) AS tokens FROM runs WHERE scope = ${scope} AND finished_at >= ${since}`)
        ])
        const recurringCounts = recurringRows.map((row) => [row.problem_id, row.runs] as const)
        const recurringProblems = new Map((yield* byIds(recurringCounts.map(([id]) => id), false)).map((problem) => [problem.id, problem]))
        const total = totals[0]
        return {
          since,
          until: now,
          created,
          regressed,
          recurring: recurringCounts.flatMap(([id, runs]) => {
            const problem = recurringProblems.get(id)
            return problem === undefined ? [] : [{ problem, runs }]
          }),
          runs: total?.runs ?? 0,
          tokens: total?.tokens ?? 0
        }
      })

    const deliveries: ProblemStoreShape["deliveries"] = (scope, limit, cursor) => {
      const after = readCursor(cursor)
      return Effect.map(
        deliveryRows(sql`SELECT id, event, problem_id, run_id, url, state, attempts, last_status, last_error, created_at, next_at, delivered_at FROM alert_outbox
            WHERE scope = ${scope}${after === undefined ? sql.literal("") : sql` AND (created_at < ${after[0]} OR (created_at = ${after[0]} AND id < ${after[1]}))`}
            ORDER BY created_at DESC, id DESC LIMIT ${limit + 1}`),
        (rows) => {
          const { nextCursor, shown } = pageOf(rows.map(deliveryOf), limit, (delivery) => [delivery.createdAt, delivery.id])
          return { deliveries: shown, nextCursor }
        }
      )
    }

    const claimDeliveries: ProblemStoreShape["claimDeliveries"] = (owner, now, leaseMs, limit, stream, perScope) =>
      Effect.gen(function*() {
        const of = stream === undefined ? sql.literal("") : stream === "evaluations" ? sql.literal(" AND event = 'run.evaluation'") : sql.literal(" AND event <> 'run.evaluation'")
        // Each due row's turn in its scope (1 for its oldest), after the scope's calls in flight: the
        // claim goes by turn, so scopes alternate; over `perScope`, a scope waits for its calls to end.
        // A dead deliverer's rows come back once their lease lapses (and no longer count as in flight).
        const within = perScope === undefined ? sql.literal("") : sql` WHERE turn <= ${perScope}`
        const due = yield* outboxIdRows(sql`WITH held AS (SELECT scope, COUNT(*) AS calls FROM alert_outbox WHERE state = 'delivering' AND lease_until >= ${now}${of} GROUP BY scope),
                                 ranked AS (SELECT o.id, o.next_at, COALESCE(held.calls, 0) + ROW_NUMBER() OVER (PARTITION BY o.scope ORDER BY o.next_at, o.id) AS turn
                                            FROM alert_outbox o LEFT JOIN held ON held.scope = o.scope
                                            WHERE ((o.state = 'pending' AND o.next_at <= ${now}) OR (o.state = 'delivering' AND o.lease_until < ${now}))${of})
                               SELECT id FROM alert_outbox WHERE id IN (SELECT id FROM ranked${within} ORDER BY turn, next_at, id LIMIT ${limit})
                               ${postgres ? sql.literal("FOR UPDATE SKIP LOCKED") : sql.literal("")}`)
        const ids = due.map((row) => row.id)
        if (ids.length === 0) return []
        // a lapsed lease's call counts as an attempt (its deliverer died holding it)
        const rows = yield* dueRows(sql`UPDATE alert_outbox SET attempts = attempts + (CASE WHEN state = 'delivering' THEN 1 ELSE 0 END),
                                  state = 'delivering', lease_owner = ${owner}, lease_until = ${now + leaseMs}
                                WHERE ${sql.in("id", ids)} AND ((state = 'pending' AND next_at <= ${now}) OR (state = 'delivering' AND lease_until < ${now}))
                                RETURNING id, event, url, body, attempts`)
        return rows.map((row): DueDelivery => ({ id: row.id, event: row.event, url: row.url, body: row.body, attempts: row.attempts }))
      }).pipe(sql.withTransaction)

    const recordAttempt: ProblemStoreShape["recordAttempt"] = (id, owner, now, outcome) => {
      const state = outcome.delivered ? "delivered" : outcome.nextAt === null ? "failed" : "pending"
      return Effect.asVoid(
        sql`UPDATE alert_outbox SET state = ${state}, attempts = attempts + 1, last_status = ${outcome.status}, last_error = ${outcome.error},
              delivered_at = ${outcome.delivered ? now : null}, next_at = ${outcome.nextAt ?? now}, lease_owner = NULL, lease_until = NULL
            WHERE id = ${id} AND state = 'delivering' AND lease_owner = ${owner}`
      )
    }

    const releaseDeliveries: ProblemStoreShape["releaseDeliveries"] = Effect.map(
      // the call that was in flight counts as an attempt: a receiver that hangs while processes crash still reaches the limit
      sql`UPDATE alert_outbox SET state = 'pending', attempts = attempts + 1, lease_owner = NULL, lease_until = NULL WHERE state = 'delivering' RETURNING id`,
      (rows) => rows.length
    )

    const forgetRuns: ProblemStoreShape["forgetRuns"] = (runIds) =>
      runIds.length === 0 ? Effect.void : Effect.asVoid(sql`DELETE FROM problem_runs WHERE ${sql.in("run_id", runIds)}`)

    // Merge links that lead to no live problem (a cycle an older release wrote) are repaired when the
    // store opens: lists show live problems only, so such a problem would stay hidden until read by id.
    yield* scopedIdRows(sql`SELECT p.id, p.scope FROM problems p WHERE p.merged_into IS NOT NULL
               AND NOT EXISTS (SELECT 1 FROM problems t WHERE t.id = p.merged_into AND t.scope = p.scope AND t.merged_into IS NULL)`).pipe(
      Effect.flatMap((rows) =>
        Effect.forEach(rows, (row) => resolveId(row.scope, row.id), { discard: true })
      ),
      Effect.catchAll((error) => Effect.logWarning("problems' merge links could not be checked; they are repaired when read", error))
    )

    return {
      list,
      get,
      setStatus,
      merge,
      detach,
      ofRun,
      failureStates,
      regroup,
      recentDays,
      compare,
      digest,
      deliveries,
      claimDeliveries,
      recordAttempt,
      releaseDeliveries,
      failedRun,
      evaluation,
      joinRun,
      forgetRuns
    } satisfies ProblemStoreShape
  })
