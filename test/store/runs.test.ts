/**
 * The runs table (src/Store/Runs.ts) on the embedded store (src/Store/Sql.ts): SQLite in a temp
 * SVC_HOME through @effect/sql-libsql, migrated from an empty database. Submission and its
 * de-duplication, `external_id` conflicts, scopes, listing with a cursor, and the queue: claims,
 * leases that lapse, finishes that a lost lease discards, releases with backoff, retry and delete.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Cause, Context, Effect, Either, Exit, Layer, Option } from "effect"
import { MalformedRow } from "../../src/Store/Columns.js"
import { existsSync, statSync } from "node:fs"
import { MIGRATIONS } from "../../src/Store/Migrations.js"
import { makeProblemStore, NO_ALERTS } from "../../src/Store/Problems.js"
import { makeRunStore, utcDay } from "../../src/Store/Runs.js"
import { sqliteLayer } from "../../src/Store/Sql.js"
import { type Cluster, startCluster } from "../support/Postgres.js"
import { freshDatabase, newRun, openPostgresStore, openRunStore } from "../support/RunStore.js"

const openSql = (file: string, migrations = MIGRATIONS) => Effect.map(Layer.build(sqliteLayer(file, migrations)), (context) => Context.get(context, SqlClient.SqlClient))

const LEASE = 60_000

describe("the runs store (SQLite)", () => {
  it.scoped("migrates an empty database, in WAL mode, into SVC_HOME/svc.db", () =>
    Effect.gen(function*() {
      const file = freshDatabase()
      const sql = yield* openSql(file)
      const mode = yield* sql`PRAGMA journal_mode`
      expect(mode).toEqual([{ journal_mode: "wal" }])
      const applied = yield* sql`SELECT migration_id, name FROM svc_migrations ORDER BY migration_id`
      expect(applied).toEqual([{ migration_id: 1, name: "runs" }, { migration_id: 2, name: "otlp" }, { migration_id: 3, name: "problems" }, { migration_id: 4, name: "trace_ids" }, { migration_id: 5, name: "otlp_attempts" }, { migration_id: 6, name: "failures" }])
      expect(statSync(file).isFile()).toBe(true)
    }))

  it.scoped("keeps the connection's settings (busy timeout, synchronous NORMAL) after the migrations and the store's writes", () =>
    Effect.gen(function*() {
      const file = freshDatabase()
      const sql = yield* openSql(file)
      const store = yield* Effect.provideService(Effect.flatMap(makeProblemStore(NO_ALERTS), makeRunStore), SqlClient.SqlClient, sql)
      yield* store.submit(newRun("r1"))
      yield* store.claim("w", 2_000, LEASE)
      expect(yield* sql`PRAGMA busy_timeout`).toEqual([{ timeout: 5_000 }])
      // 1: NORMAL (the driver's new connections start at FULL, 2)
      expect(yield* sql`PRAGMA synchronous`).toEqual([{ synchronous: 1 }])
    }))

  it.scoped("folds the WAL into the database when it closes", () =>
    Effect.gen(function*() {
      const file = freshDatabase()
      yield* Effect.scoped(Effect.gen(function*() {
        const store = yield* openRunStore(file)
        for (let i = 0; i < 50; i++) yield* store.submit(newRun(`r${i}`))
      }))
      expect(existsSync(`${file}-wal`) ? statSync(`${file}-wal`).size : 0).toBe(0)
    }))

  it.scoped("a row that fails its schema is a defect naming its query and column, never a run skipped", () =>
    Effect.gen(function*() {
      const file = freshDatabase()
      const sql = yield* openSql(file)
      const store = yield* Effect.provideService(Effect.flatMap(makeProblemStore(NO_ALERTS), makeRunStore), SqlClient.SqlClient, sql)
      yield* store.submit(newRun("r1"))
      yield* store.submit(newRun("r2"))
      // a database changed outside the service: labels that are no JSON object of strings
      yield* sql`UPDATE runs SET labels = '{"team": 7}' WHERE id = 'r1'`
      const listed = yield* Effect.exit(store.list("shared", {}, 10, null))
      const defect = Exit.isFailure(listed) ? Cause.dieOption(listed.cause) : Option.none()
      expect(Option.isSome(defect) && defect.value instanceof MalformedRow).toBe(true)
      expect(Option.getOrUndefined(defect)).toMatchObject({ query: "runs.list", message: expect.stringContaining(`["labels"]`) })
      // the run next to it still reads
      expect(Option.isSome(yield* store.get("shared", "r2"))).toBe(true)
    }))

  it.scoped("applies the migrations added later to a database the first one made, once", () =>
    Effect.gen(function*() {
      const file = freshDatabase()
      const first = MIGRATIONS["0001_runs"]
      if (first === undefined) throw new Error("the first migration is missing")
      yield* Effect.scoped(Layer.build(sqliteLayer(file, { "0001_runs": first })))
      const later = {
        ...MIGRATIONS,
        "0099_note": Effect.flatMap(SqlClient.SqlClient, (sql) => sql`ALTER TABLE runs ADD COLUMN note TEXT`)
      }
      const sql = yield* openSql(file, later)
      const applied = yield* sql`SELECT migration_id, name FROM svc_migrations ORDER BY migration_id`
      expect(applied).toEqual([{ migration_id: 1, name: "runs" }, { migration_id: 2, name: "otlp" }, { migration_id: 3, name: "problems" }, { migration_id: 4, name: "trace_ids" }, { migration_id: 5, name: "otlp_attempts" }, { migration_id: 6, name: "failures" }, { migration_id: 99, name: "note" }])
      const columns = yield* sql`SELECT name FROM pragma_table_info('runs') WHERE name = 'note'`
      expect(columns).toHaveLength(1)
      // the shipped later migrations (0002, OTLP's pending traces; 0003, problems; 0004, the trace id index; 0005, OTLP's attempts; 0006, failures) made their tables on the older database
      expect(yield* sql`SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('otlp_traces', 'otlp_items', 'problems') ORDER BY name`).toEqual([
        { name: "otlp_items" },
        { name: "otlp_traces" },
        { name: "problems" }
      ])
      // opened again: nothing runs twice
      yield* Effect.scoped(Layer.build(sqliteLayer(file, later)))
    }))
})

/** One suite, two stores (DECISIONS §17): the same queries on SQLite and on PostgreSQL. */
let cluster: Cluster | undefined
beforeAll(async () => {
  cluster = await startCluster()
}, 60_000)
afterAll(() => cluster?.close())

const STORES = [
  { name: "SQLite", open: () => openRunStore(freshDatabase()) },
  {
    name: "PostgreSQL",
    open: () =>
      Effect.suspend(() => {
        if (cluster === undefined) return Effect.dieMessage("the PostgreSQL cluster did not start")
        return openPostgresStore(cluster.freshDatabase())
      })
  }
] as const

describe.each(STORES)("the runs store on $name", ({ open }) => {
  it.scoped("submits once per trace and options: the same again is the same run; a reused external_id is a conflict", () =>
    Effect.gen(function*() {
      const store = yield* open()
      const first = yield* store.submit(newRun("r1", { externalId: "ci-42", labels: { team: "payments" } }))
      expect(first.created).toBe(true)
      expect(first.run).toMatchObject({ id: "r1", status: "queued", externalId: "ci-42", labels: { team: "payments" }, attempts: 0 })
      const again = yield* store.submit(newRun("r2", { dedupeKey: "trace-of-r1", externalId: "ci-42" }))
      expect(again).toMatchObject({ created: false, run: { id: "r1" } })
      const conflict = yield* Effect.either(store.submit(newRun("r3", { externalId: "ci-42" })))
      expect(Either.isLeft(conflict) && conflict.left._tag).toBe("ExternalIdConflict")
      // another scope has its own runs and its own external ids
      expect((yield* store.submit(newRun("r4", { scope: "key:bob", dedupeKey: "trace-of-r1", externalId: "ci-42" }))).created).toBe(true)
      expect(Option.isNone(yield* store.get("key:bob", "r1"))).toBe(true)
      expect(Option.isSome(yield* store.get("shared", "r1"))).toBe(true)
    }))

  it.scoped("lists newest first, filtered, a page at a time with an opaque cursor", () =>
    Effect.gen(function*() {
      const store = yield* open()
      for (let i = 0; i < 7; i++) yield* store.submit(newRun(`r${i}`, { submittedAt: 1_000 + Math.floor(i / 2) }))
      yield* store.submit(newRun("other", { scope: "key:bob", submittedAt: 5_000 }))
      const first = yield* store.list("shared", {}, 3, null)
      expect(first.runs.map((r) => r.id)).toEqual(["r6", "r5", "r4"])
      expect(first.nextCursor).not.toBeNull()
      expect(Buffer.from(first.nextCursor ?? "", "base64url").toString()).not.toContain("shared")
      const second = yield* store.list("shared", {}, 3, first.nextCursor)
      expect(second.runs.map((r) => r.id)).toEqual(["r3", "r2", "r1"])
      const last = yield* store.list("shared", {}, 3, second.nextCursor)
      expect(last).toEqual({ runs: [expect.objectContaining({ id: "r0" })], nextCursor: null })
      expect((yield* store.list("shared", { since: 1_002, until: 1_003 }, 10, null)).runs.map((r) => r.id)).toEqual(["r5", "r4"])
      expect((yield* store.list("shared", { status: "done" }, 10, null)).runs).toEqual([])
    }))

  it.scoped("claims the oldest queued run with a lease; a finish from a lapsed lease is discarded; nothing ends twice", () =>
    Effect.gen(function*() {
      const store = yield* open()
      yield* store.submit(newRun("old", { submittedAt: 1_000 }))
      yield* store.submit(newRun("new", { submittedAt: 2_000 }))
      const claimed = yield* store.claim("worker-a", 10_000, LEASE)
      expect(claimed).toEqual(Option.some({ id: "old", scope: "shared", request: JSON.stringify({ trace: "old" }), attempts: 1, submittedAt: 1_000, source: "api", labels: {} }))
      // the lease is renewed while held
      expect(yield* store.renew("old", "worker-a", 20_000, LEASE)).toBe(true)
      // worker-a dies: its lease lapses, the run goes back to the queue and worker-b takes it
      expect(yield* store.releaseExpired(20_000 + LEASE + 1)).toBe(1)
      const again = yield* store.claim("worker-b", 90_000, LEASE)
      expect(Option.map(again, (r) => [r.id, r.attempts])).toEqual(Option.some(["old", 2]))
      // worker-a comes back: its renew and finish are refused, nothing is written
      expect(yield* store.renew("old", "worker-a", 91_000, LEASE)).toBe(false)
      expect(yield* store.finish("old", "worker-a", 91_000, { status: "done", report: "{\"a\":1}", severity: "high", patterns: [], cacheKeys: [] })).toBe(false)
      expect(yield* store.finish("old", "worker-b", 95_000, { status: "done", report: "{\"b\":1}", severity: "medium", patterns: ["lewin"], cacheKeys: ["k1"] })).toBe(true)
      expect(yield* store.finish("old", "worker-b", 96_000, { status: "failed", error: { error: "timeout", message: "late" } })).toBe(false)
      const done = Option.getOrThrow(yield* store.get("shared", "old"))
      expect(done).toMatchObject({ status: "done", report: "{\"b\":1}", severity: "medium", attempts: 2, startedAt: 10_000, finishedAt: 95_000, error: null })
    }))

  it.scoped("never starts a run before it was submitted: a claimer's time read before its statement met a run submitted since", () =>
    Effect.gen(function*() {
      const store = yield* open()
      // the worker read its clock at 4 s; the run it then claims was submitted at 5 s (its insert committed meanwhile)
      yield* store.submit(newRun("late", { submittedAt: 5_000 }))
      yield* store.claim("worker", 4_000, LEASE)
      expect(Option.getOrThrow(yield* store.get("shared", "late"))).toMatchObject({ status: "running", submittedAt: 5_000, startedAt: 5_000 })
    }))

  it.scoped("releases with backoff (not claimed before it), requeues every running run at start, retries and deletes within a scope", () =>
    Effect.gen(function*() {
      const store = yield* open()
      yield* store.submit(newRun("r1"))
      yield* store.claim("w", 1_000, LEASE)
      expect(yield* store.release("r1", "w", 31_000)).toBe(true)
      expect(Option.isNone(yield* store.claim("w", 30_999, LEASE))).toBe(true)
      expect(Option.isSome(yield* store.claim("w", 31_000, LEASE))).toBe(true)
      // a previous process's leases, at start (SQLite: one process)
      expect(yield* store.releaseAll).toBe(1)
      yield* store.claim("w", 40_000, LEASE)
      expect(yield* store.finish("r1", "w", 41_000, { status: "skipped", reason: "no_content" })).toBe(true)
      expect(yield* store.retry("key:bob", "r1", 50_000)).toBe(false)
      expect(yield* store.retry("shared", "r1", 50_000)).toBe(true)
      expect(Option.getOrThrow(yield* store.get("shared", "r1"))).toMatchObject({ status: "queued", reason: null, finishedAt: null, attempts: 0 })
      expect(yield* store.remove("key:bob", "r1")).toBeUndefined()
      expect(yield* store.remove("shared", "r1")).toEqual([])
      expect(Option.isNone(yield* store.get("shared", "r1"))).toBe(true)
    }))

  it.scoped("keeps a scope's daily token budget: reservations within the limit, atomically; a new UTC day starts at zero; settling spends the actual", () =>
    Effect.gen(function*() {
      const store = yield* open()
      const lastMinute = Date.UTC(2026, 10, 24, 23, 59, 0)
      const nextDay = Date.UTC(2026, 10, 25, 0, 0, 1)
      expect([utcDay(lastMinute), utcDay(nextDay)]).toEqual(["2026-11-24", "2026-11-25"])
      expect(yield* store.reserve("shared", lastMinute, 600, 1_000)).toBe(true)
      expect(yield* store.reserve("shared", lastMinute, 600, 1_000)).toBe(false)
      expect(yield* store.reserve("shared", lastMinute, 400, 1_000)).toBe(true)
      expect(yield* store.reserve("key:bob", lastMinute, 1_000, 1_000)).toBe(true)
      expect(yield* store.reserve("shared", lastMinute, 2_000, 1_000)).toBe(false)
      // a run estimated at 600 used 150: 850 of the day's 1,000 are free again
      yield* store.settle("shared", lastMinute, 600, 150)
      expect(yield* store.budgetOf("shared", lastMinute)).toEqual({ reserved: 400, spent: 150 })
      expect(yield* store.reserve("shared", lastMinute, 450, 1_000)).toBe(true)
      expect(yield* store.reserve("shared", lastMinute, 1, 1_000)).toBe(false)
      // the next UTC day
      expect(yield* store.budgetOf("shared", nextDay)).toEqual({ reserved: 0, spent: 0 })
      expect(yield* store.reserve("shared", nextDay, 1_000, 1_000)).toBe(true)
    }))

  it.scoped("purges the runs that finished before the cutoff, and only those, naming them", () =>
    Effect.gen(function*() {
      const store = yield* open()
      for (const [id, at] of [["old", 1_000], ["recent", 2_000], ["queued", 3_000]] as const) yield* store.submit(newRun(id, { submittedAt: at }))
      for (const [id, at] of [["old", 10_000], ["recent", 50_000]] as const) {
        const claimed = yield* store.claim(`w-${id}`, at - 1, LEASE)
        expect(Option.map(claimed, (r) => r.id)).toEqual(Option.some(id))
        yield* store.finish(id, `w-${id}`, at, { status: "failed", error: { error: "timeout", message: "slow" } })
      }
      expect(yield* store.purge(30_000)).toEqual([{ id: "old", scope: "shared", cacheKeys: [] }])
      expect((yield* store.list("shared", {}, 10, null)).runs.map((r) => r.id).sort()).toEqual(["queued", "recent"])
    }))
})
