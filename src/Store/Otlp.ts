/**
 * OTLP's pending traces in the store (DECISIONS §18), beside the runs and in the same database
 * (Migrations.ts 0002): spans are kept per (scope, trace id) until the trace is complete, one
 * replica claims its completion with a lease, and the trace is marked done with the run it became.
 *
 * No transaction (Sql.ts: the store runs none): a batch is written as one upsert of its traces'
 * rows (the arrival), one insert of its span groups for the traces still open, and the counts of
 * what that insert kept. A group's key is a digest of its text, so a batch sent again (the
 * exporter retries what got no 200, through any replica) adds nothing and counts nothing; a crash
 * between the statements leaves at most a trace row whose spans the retry brings. A trace claimed
 * or done when a batch arrives gets none of its spans: they are late, counted on the trace's row
 * and answered as refused.
 *
 * A claim counts an attempt (Migrations.ts 0005): a trace whose assembly keeps failing, or whose
 * process keeps dying while assembling it, is given up after a few (Assembly.ts) and made a failed
 * run; its row becomes `failed` and keeps its spans, which that run's retry assembles again.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type * as SqlError from "@effect/sql/SqlError"
import * as Arr from "effect/Array"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { makeSlices } from "../Lifecycle/Slices.js"
import * as Columns from "./Columns.js"
import { BigIntColumn, CountRow, NullableText } from "./Columns.js"

/** A batch's spans of one trace, grouped by resource and instrumentation scope. */
export interface PendingTrace {
  readonly traceId: string
  /** Whether the batch holds the trace's root: a span without a parent, or whose parent is remote. */
  readonly rooted: boolean
  /** Spans and log records in the groups. */
  readonly items: number
  readonly groups: ReadonlyArray<PendingGroup>
}

export interface PendingGroup {
  /** A digest of `body`: the same group sent again is kept once. */
  readonly id: string
  readonly kind: "spans" | "logs"
  /** `{resource, scope, spans | logRecords}` as OTLP/JSON text. */
  readonly body: string
  /** Spans or log records in it, and its UTF-8 bytes (what the pending bounds count). */
  readonly items: number
  readonly bytes: number
}

/** What the store knew of a trace before a batch. */
export interface KnownTrace {
  readonly state: TraceState
  readonly items: number
  readonly runId: string | null
}

/** `failed`: given up after repeated failed assemblies; its spans are kept for its run's retry until retention. */
export const TraceState = Schema.Literal("open", "claimed", "done", "failed").annotations({ identifier: "TraceState" })
export type TraceState = typeof TraceState.Type

/** A trace claimed for completion. */
export interface ClaimedTrace {
  readonly scope: string
  readonly traceId: string
  /** The key whose batch opened it (the run is submitted in its name); null with auth off. */
  readonly keyName: string | null
  readonly firstAt: number
  readonly late: number
  /** Claims of the trace so far, this one included (a claim whose process died counts). */
  readonly attempts: number
}

export interface OtlpStoreShape {
  /** Bytes of pending spans: all scopes', and `scope`'s. */
  readonly pendingBytes: (scope: string) => Effect.Effect<{ readonly all: number; readonly scope: number }, SqlError.SqlError>
  /** Which of these groups of a trace are kept already. */
  readonly existing: (scope: string, traceId: string, ids: ReadonlyArray<string>) => Effect.Effect<ReadonlySet<string>, SqlError.SqlError>
  /** What is known of these traces of a scope. */
  readonly known: (scope: string, traceIds: ReadonlyArray<string>) => Effect.Effect<ReadonlyMap<string, KnownTrace>, SqlError.SqlError>
  /**
   * Adds a batch's traces: each open one's arrival recorded and its groups kept, counted once
   * however often they are sent; the state each trace was in (a trace not open took none: its
   * spans are late, counted on its row; so are spans whose trace completed while they were written).
   */
  readonly add: (
    scope: string,
    keyName: string | null,
    now: number,
    traces: ReadonlyArray<PendingTrace>
  ) => Effect.Effect<ReadonlyMap<string, { readonly state: TraceState; readonly runId: string | null }>, SqlError.SqlError>
  /**
   * Claims up to `limit` complete traces for `owner` until `now + leaseMs`: open ones whose root
   * ended and that got nothing for `quietMs`, or whose first span is `maxAgeMs` old, and claimed
   * ones whose lease lapsed (their replica died).
   */
  readonly claimComplete: (
    owner: string,
    now: number,
    options: { readonly quietMs: number; readonly maxAgeMs: number; readonly leaseMs: number; readonly limit: number }
  ) => Effect.Effect<ReadonlyArray<ClaimedTrace>, SqlError.SqlError>
  /** A claimed (or failed) trace's groups, in arrival order. */
  readonly groups: (scope: string, traceId: string) => Effect.Effect<ReadonlyArray<{ readonly kind: string; readonly body: string }>, SqlError.SqlError>
  /** Marks a claimed trace done (with its run, if one was made) and drops its spans: false when `owner` lost the claim. */
  readonly complete: (scope: string, traceId: string, owner: string, runId: string | null, now: number) => Effect.Effect<boolean, SqlError.SqlError>
  /** Gives a claimed trace back after a failed attempt (open again, due at once): false when `owner` lost the claim. */
  readonly release: (scope: string, traceId: string, owner: string) => Effect.Effect<boolean, SqlError.SqlError>
  /** Marks a claimed trace failed (given up, with the failed run made of it), its spans kept: false when `owner` lost the claim. */
  readonly fail: (scope: string, traceId: string, owner: string, runId: string, now: number) => Effect.Effect<boolean, SqlError.SqlError>
  /** Removes done and failed traces older than `before`, and spans no open, claimed or failed trace holds; how many traces. */
  readonly purge: (before: number) => Effect.Effect<number, SqlError.SqlError>
  /** Every claim back to open (SQLite at start: one process, so any claim is a dead one's); how many. */
  readonly releaseAll: Effect.Effect<number, SqlError.SqlError>
  /** Open and claimed traces, all scopes (the `svc_otlp_pending_traces` gauge). */
  readonly pendingTraces: Effect.Effect<number, SqlError.SqlError>
}

export class OtlpStore extends Context.Tag("OtlpStore")<OtlpStore, OtlpStoreShape>() {}

/** A trace's state as a batch found it (the arrival's upsert, a late count's update). */
const TraceStateRow = Schema.Struct({ trace_id: Schema.String, state: TraceState, run_id: NullableText }).annotations({ identifier: "OtlpTraceStateRow" })
const KnownRow = Schema.Struct({ ...TraceStateRow.fields, spans: BigIntColumn }).annotations({ identifier: "OtlpKnownTraceRow" })
const ItemRow = Schema.Struct({ trace_id: Schema.String, item_id: Schema.String }).annotations({ identifier: "OtlpItemRow" })
const ClaimedRow = Schema.Struct({
  scope: Schema.String,
  trace_id: Schema.String,
  key_name: NullableText,
  first_at: BigIntColumn,
  late: BigIntColumn,
  attempts: BigIntColumn
}).annotations({ identifier: "OtlpClaimedTraceRow" })
const PendingBytesRow = Schema.Struct({ total: BigIntColumn, own: BigIntColumn }).annotations({ identifier: "OtlpPendingBytesRow" })
const GroupRow = Schema.Struct({ kind: Schema.String, body: Schema.String }).annotations({ identifier: "OtlpGroupRow" })

// Each row shape's decoder, compiled once (a malformed row is a defect naming the query, Columns.ts).
const traceStateRows = Columns.rows("otlp_traces.arrival", TraceStateRow)
const lateRows = Columns.rows("otlp_traces.late", Schema.Struct({ state: TraceState, run_id: NullableText }).annotations({ identifier: "OtlpLateRow" }))
const knownRows = Columns.rows("otlp_traces.known", KnownRow)
const itemRows = Columns.rows("otlp_items.inserted", ItemRow)
const itemIdRows = Columns.rows("otlp_items.existing", Schema.Struct({ item_id: Schema.String }).annotations({ identifier: "OtlpItemIdRow" }))
const claimedRows = Columns.rows("otlp_traces.claim", ClaimedRow)

/** Rows per statement: far below SQLite's 32,766 variables with the widest row (10 columns). */
const ROWS_PER_STATEMENT = 500


export const makeOtlpStore = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const postgres = sql.onDialectOrElse({ pg: () => true, orElse: () => false })

  const pendingBytesRow = Columns.findOne({
    name: "otlp_traces.pending_bytes",
    Request: Schema.String,
    Result: PendingBytesRow,
    execute: (scope) =>
      sql`SELECT COALESCE(SUM(bytes), 0) AS total, COALESCE(SUM(CASE WHEN scope = ${scope} THEN bytes ELSE 0 END), 0) AS own
          FROM otlp_traces WHERE state IN ('open', 'claimed')`
  })
  const pendingBytes: OtlpStoreShape["pendingBytes"] = (scope) =>
    Effect.map(pendingBytesRow(scope), Option.match({ onNone: () => ({ all: 0, scope: 0 }), onSome: (row) => ({ all: row.total, scope: row.own }) }))

  const known: OtlpStoreShape["known"] = (scope, traceIds) =>
    Effect.gen(function*() {
      const out = new Map<string, KnownTrace>()
      for (const ids of Arr.chunksOf(traceIds, ROWS_PER_STATEMENT)) {
        const rows = yield* knownRows(sql`SELECT trace_id, state, spans, run_id FROM otlp_traces WHERE scope = ${scope} AND ${sql.in("trace_id", ids)}`)
        for (const row of rows) out.set(row.trace_id, { state: row.state, items: row.spans, runId: row.run_id })
      }
      return out
    })

  const existing: OtlpStoreShape["existing"] = (scope, traceId, ids) =>
    Effect.gen(function*() {
      const out = new Set<string>()
      for (const part of Arr.chunksOf(ids, ROWS_PER_STATEMENT)) {
        const rows = yield* itemIdRows(sql`SELECT item_id FROM otlp_items WHERE scope = ${scope} AND trace_id = ${traceId} AND ${sql.in("item_id", part)}`)
        for (const row of rows) out.add(row.item_id)
      }
      return out
    })

  const add: OtlpStoreShape["add"] = (scope, keyName, now, traces) =>
    Effect.gen(function*() {
      const states = new Map<string, { state: TraceState; readonly runId: string | null }>()
      for (const part of Arr.chunksOf(traces, ROWS_PER_STATEMENT)) {
        const rows = part.map((trace) => ({
          scope,
          trace_id: trace.traceId,
          key_name: keyName,
          state: "open",
          first_at: now,
          last_at: now,
          rooted: trace.rooted ? 1 : 0,
          spans: 0,
          bytes: 0,
          late: 0
        }))
        // the arrival, on an open trace; the counts follow from what the insert below kept
        const returned = yield* traceStateRows(sql`INSERT INTO otlp_traces ${sql.insert(rows)}
          ON CONFLICT (scope, trace_id) DO UPDATE SET
            last_at = CASE WHEN otlp_traces.state = 'open' THEN excluded.last_at ELSE otlp_traces.last_at END,
            rooted = CASE WHEN otlp_traces.state = 'open' AND excluded.rooted = 1 THEN 1 ELSE otlp_traces.rooted END
          RETURNING trace_id, state, run_id`)
        for (const row of returned) states.set(row.trace_id, { state: row.state, runId: row.run_id })
      }
      const groups = traces.flatMap((trace) =>
        states.get(trace.traceId)?.state === "open"
          ? trace.groups.map((group, position) => ({ scope, trace_id: trace.traceId, item_id: group.id, kind: group.kind, received_at: now, position, body: group.body }))
          : []
      )
      // a group sent before (an exporter's retry, through any replica) is not inserted, nor counted again
      const inserted = new Set<string>()
      for (const part of Arr.chunksOf(groups, ROWS_PER_STATEMENT)) {
        const rows = yield* itemRows(sql`INSERT INTO otlp_items ${sql.insert(part)} ON CONFLICT DO NOTHING RETURNING trace_id, item_id`)
        for (const row of rows) inserted.add(`${row.trace_id}/${row.item_id}`)
      }
      // a statement per trace: a batch of thousands of one-span traces is counted in slices (Lifecycle/Slices.ts)
      const slices = yield* makeSlices()
      for (const trace of traces) {
        yield* slices.next
        const state = states.get(trace.traceId)
        if (state === undefined) continue
        if (state.state !== "open") {
          yield* sql`UPDATE otlp_traces SET late = late + ${trace.items} WHERE scope = ${scope} AND trace_id = ${trace.traceId}`
          continue
        }
        const kept = trace.groups.filter((group) => inserted.has(`${trace.traceId}/${group.id}`))
        if (kept.length === 0) continue
        const items = kept.reduce((sum, group) => sum + group.items, 0)
        const bytes = kept.reduce((sum, group) => sum + group.bytes, 0)
        const counted = yield* sql`UPDATE otlp_traces SET spans = spans + ${items}, bytes = bytes + ${bytes}
          WHERE scope = ${scope} AND trace_id = ${trace.traceId} AND state = 'open' RETURNING trace_id`
        if (counted.length === 0) {
          // completed between the arrival and the insert: what was inserted is in no run (the purge drops it), so it is late
          const row = (yield* lateRows(sql`UPDATE otlp_traces SET late = late + ${items} WHERE scope = ${scope} AND trace_id = ${trace.traceId} RETURNING state, run_id`))[0]
          states.set(trace.traceId, { state: row?.state ?? "done", runId: row?.run_id ?? null })
        }
      }
      return states
    })

  const claimComplete: OtlpStoreShape["claimComplete"] = (owner, now, options) => {
    const due = sql`SELECT scope, trace_id FROM otlp_traces
      WHERE (state = 'open' AND ((rooted = 1 AND last_at <= ${now - options.quietMs}) OR first_at <= ${now - options.maxAgeMs}))
         OR (state = 'claimed' AND lease_until < ${now})
      LIMIT ${options.limit}`
    // PostgreSQL's replicas skip the rows another is claiming
    const locked = postgres ? sql`${due} FOR UPDATE SKIP LOCKED` : due
    const claim = Effect.map(
      claimedRows(sql`UPDATE otlp_traces SET state = 'claimed', lease_owner = ${owner}, lease_until = ${now + options.leaseMs}, attempts = attempts + 1
          WHERE (scope, trace_id) IN (${locked})
            AND (state = 'open' OR (state = 'claimed' AND lease_until < ${now}))
          RETURNING scope, trace_id, key_name, first_at, late, attempts`),
      (rows) =>
        rows.map((row): ClaimedTrace => ({
          scope: row.scope,
          traceId: row.trace_id,
          keyName: row.key_name,
          firstAt: row.first_at,
          late: row.late,
          attempts: row.attempts
        }))
    )
    // Most rounds find nothing due: a read first, so an idle round takes no write lock (SQLite's
    // writers wait on each other, and its driver waits on the event loop)
    return Effect.flatMap(sql`SELECT 1 AS due FROM (${due}) d LIMIT 1`, (rows) => (rows.length === 0 ? Effect.succeed([]) : claim))
  }

  const groupRows = Columns.findAll({
    name: "otlp_items.groups",
    Request: Schema.Struct({ scope: Schema.String, traceId: Schema.String }),
    Result: GroupRow,
    execute: ({ scope, traceId }) => sql`SELECT kind, body FROM otlp_items WHERE scope = ${scope} AND trace_id = ${traceId} ORDER BY received_at, position, item_id`
  })
  const groups: OtlpStoreShape["groups"] = (scope, traceId) => groupRows({ scope, traceId })

  const complete: OtlpStoreShape["complete"] = (scope, traceId, owner, runId, now) =>
    Effect.gen(function*() {
      const updated = yield* sql`UPDATE otlp_traces SET state = 'done', run_id = ${runId}, done_at = ${now}, lease_owner = NULL, lease_until = NULL
          WHERE scope = ${scope} AND trace_id = ${traceId} AND state = 'claimed' AND lease_owner = ${owner}
          RETURNING trace_id`
      if (updated.length === 0) return false
      yield* sql`DELETE FROM otlp_items WHERE scope = ${scope} AND trace_id = ${traceId}`
      return true
    })

  const release: OtlpStoreShape["release"] = (scope, traceId, owner) =>
    Effect.map(
      sql`UPDATE otlp_traces SET state = 'open', lease_owner = NULL, lease_until = NULL
          WHERE scope = ${scope} AND trace_id = ${traceId} AND state = 'claimed' AND lease_owner = ${owner} RETURNING trace_id`,
      (rows) => rows.length > 0
    )

  const fail: OtlpStoreShape["fail"] = (scope, traceId, owner, runId, now) =>
    Effect.map(
      sql`UPDATE otlp_traces SET state = 'failed', run_id = ${runId}, done_at = ${now}, lease_owner = NULL, lease_until = NULL
          WHERE scope = ${scope} AND trace_id = ${traceId} AND state = 'claimed' AND lease_owner = ${owner} RETURNING trace_id`,
      (rows) => rows.length > 0
    )

  const purge: OtlpStoreShape["purge"] = (before) =>
    Effect.gen(function*() {
      // reads first: an idle store's upkeep takes no write lock
      const old = yield* sql`SELECT 1 AS old FROM otlp_traces WHERE state IN ('done', 'failed') AND done_at < ${before} LIMIT 1`
      const removed = old.length === 0 ? [] : yield* sql`DELETE FROM otlp_traces WHERE state IN ('done', 'failed') AND done_at < ${before} RETURNING trace_id`
      // spans of a trace done meanwhile (a batch written as its trace completed), or whose row went;
      // a failed trace's are kept for its run's retry
      const orphan = sql`NOT EXISTS (SELECT 1 FROM otlp_traces t WHERE t.scope = otlp_items.scope AND t.trace_id = otlp_items.trace_id AND t.state <> 'done')`
      const orphans = yield* sql`SELECT 1 AS orphan FROM otlp_items WHERE ${orphan} LIMIT 1`
      if (orphans.length > 0) yield* sql`DELETE FROM otlp_items WHERE ${orphan}`
      return removed.length
    })

  const releaseAll: OtlpStoreShape["releaseAll"] = Effect.flatMap(
    // a read first: at start there is usually nothing to release, and then no write lock is taken
    sql`SELECT 1 AS claimed FROM otlp_traces WHERE state = 'claimed' LIMIT 1`,
    (found) =>
      found.length === 0
        ? Effect.succeed(0)
        : Effect.map(
          sql`UPDATE otlp_traces SET state = 'open', lease_owner = NULL, lease_until = NULL WHERE state = 'claimed' RETURNING trace_id`,
          (rows) => rows.length
        )
  )

  const pendingCount = Columns.findOne({
    name: "otlp_traces.pending",
    Request: Schema.Void,
    Result: CountRow,
    execute: () => sql`SELECT COUNT(*) AS n FROM otlp_traces WHERE state IN ('open', 'claimed')`
  })
  const pendingTraces: OtlpStoreShape["pendingTraces"] = Effect.map(pendingCount(undefined), Option.match({ onNone: () => 0, onSome: (row) => row.n }))

  return { pendingBytes, existing, known, add, claimComplete, groups, complete, release, fail, purge, releaseAll, pendingTraces } satisfies OtlpStoreShape
})
