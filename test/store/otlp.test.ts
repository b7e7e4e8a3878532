/**
 * OTLP's pending traces in the store (src/Store/Otlp.ts, DECISIONS §18), on SQLite and on
 * PostgreSQL, through the same SqlClient layers the service builds (src/Store/Sql.ts): a batch
 * added and known, the same batch again kept once, the quiet window of a rooted trace and the max
 * age of an unrooted one, claims by several owners at once (each trace once), a lapsed claim taken
 * over (the first owner's `complete` refused), late spans after completion (counted, not kept),
 * pending bytes per scope and overall, and the purge of done traces and orphan spans.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Effect, Predicate, Schema } from "effect"
import { BigIntColumn } from "../../src/Store/Columns.js"
import type { PendingGroup, PendingTrace } from "../../src/Store/Otlp.js"
import { type Cluster, startCluster } from "../support/Postgres.js"
import { otlpStores } from "../support/OtlpStores.js"

let cluster: Cluster | undefined
beforeAll(async () => {
  cluster = await startCluster()
}, 60_000)
afterAll(() => cluster?.close())

const STORES = otlpStores(() => cluster)

const QUIET = 30_000
const MAX_AGE = 600_000
const LEASE = 60_000
const OPTIONS = { quietMs: QUIET, maxAgeMs: MAX_AGE, leaseMs: LEASE, limit: 50 }

/** A trace id (32 hex digits) from a number. */
const tid = (n: number): string => n.toString(16).padStart(32, "0")

/** A group of a trace's spans: its body names the trace and a tag (another tag, another group). */
const group = (traceId: string, tag: string, size = 40): PendingGroup => {
  const prefix = `{"trace":"${traceId}","tag":"${tag}","pad":"`
  const body = `${prefix}${"x".repeat(Math.max(0, size - prefix.length - 2))}"}`
  return { id: `${traceId.slice(-8)}-${tag}`, kind: "spans", body, items: 1, bytes: Buffer.byteLength(body) }
}

/** A batch's trace of `items` spans over its groups (the first group holds what the others do not). */
const pending = (traceId: string, groups: ReadonlyArray<PendingGroup>, rooted = false, items = groups.length * 2): PendingTrace => ({
  traceId,
  rooted,
  items,
  groups: groups.map((each, index) => ({ ...each, items: index === 0 ? items - (groups.length - 1) : 1 }))
})

const bytesOf = (groups: ReadonlyArray<PendingGroup>): number => groups.reduce((sum, each) => sum + each.body.length, 0)

const integerOf = Schema.decodeUnknownSync(BigIntColumn)

/** One column of a trace's row, as a number (null when the row is gone). */
const column = (sql: SqlClient.SqlClient, scope: string, traceId: string, name: "late" | "spans" | "bytes") =>
  Effect.map(sql`SELECT late, spans, bytes FROM otlp_traces WHERE scope = ${scope} AND trace_id = ${traceId}`, (rows) => {
    const row = rows[0]
    return Predicate.isRecord(row) ? integerOf(row[name]) : null
  })

const itemCount = (sql: SqlClient.SqlClient, scope: string, traceId: string) =>
  Effect.map(sql`SELECT COUNT(*) AS n FROM otlp_items WHERE scope = ${scope} AND trace_id = ${traceId}`, (rows) => {
    const row = rows[0]
    return Predicate.isRecord(row) ? integerOf(row["n"]) : 0
  })

describe.each(STORES)("the OTLP pending-trace store on $name", ({ open }) => {
  it.scoped("adds a batch's traces, open, and knows them per scope", () =>
    Effect.gen(function*() {
      const { store } = yield* open()
      const a = tid(1)
      const b = tid(2)
      const states = yield* store.add("shared", "ci", 1_000, [pending(a, [group(a, "g1"), group(a, "g2")], false, 3), pending(b, [group(b, "g1")], true, 1)])
      expect(states).toEqual(new Map([[a, { state: "open", runId: null }], [b, { state: "open", runId: null }]]))
      const known = yield* store.known("shared", [a, b, tid(3)])
      expect(known).toEqual(new Map([[a, { state: "open", items: 3, runId: null }], [b, { state: "open", items: 1, runId: null }]]))
      // another scope has its own traces
      expect((yield* store.known("key:bob", [a, b])).size).toBe(0)
      // a second batch of the same trace adds to it, in arrival order
      yield* store.add("shared", "ci", 2_000, [pending(a, [group(a, "g3")], false, 2)])
      expect((yield* store.known("shared", [a])).get(a)).toEqual({ state: "open", items: 5, runId: null })
      expect((yield* store.groups("shared", a)).map((each) => JSON.parse(each.body).tag)).toEqual(["g1", "g2", "g3"])
      expect(yield* store.pendingTraces).toBe(2)
    }))

  it.scoped("keeps one copy of a batch added twice (the same group ids): its groups", () =>
    Effect.gen(function*() {
      const { store } = yield* open()
      const a = tid(10)
      const batch = [pending(a, [group(a, "g1"), group(a, "g2")], true, 4)]
      yield* store.add("shared", null, 1_000, batch)
      // the exporter's retry of a batch whose 200 was lost, through any replica
      const again = yield* store.add("shared", null, 1_500, batch)
      expect(again.get(a)?.state).toBe("open")
      expect((yield* store.groups("shared", a)).map((each) => JSON.parse(each.body).tag)).toEqual(["g1", "g2"])
    }))

  // The counts drive SVC_OTLP_MAX_SPANS_PER_TRACE (Receiver: room = max - known.items) and the 429
  // of SVC_OTLP_PENDING_BYTES[_PER_SCOPE]: a retry, kept once, must not eat into either.
  it.scoped("counts a batch added twice once: the trace's spans and the scope's pending bytes", () =>
    Effect.gen(function*() {
      const { store } = yield* open()
      const a = tid(11)
      const groups = [group(a, "g1"), group(a, "g2")]
      const batch = [pending(a, groups, true, 4)]
      yield* store.add("shared", null, 1_000, batch)
      yield* store.add("shared", null, 1_500, batch)
      expect(yield* store.pendingBytes("shared")).toEqual({ all: bytesOf(groups), scope: bytesOf(groups) })
      expect((yield* store.known("shared", [a])).get(a)?.items).toBe(4)
    }))

  it.scoped("completes a rooted trace only after the quiet window since its last arrival", () =>
    Effect.gen(function*() {
      const { store } = yield* open()
      const a = tid(20)
      yield* store.add("shared", "ci", 1_000, [pending(a, [group(a, "root")], true)])
      // more spans (no root) at 5 s: the window starts again
      yield* store.add("shared", "ci", 5_000, [pending(a, [group(a, "late-child")], false)])
      expect(yield* store.claimComplete("w", 1_000 + QUIET, OPTIONS)).toEqual([])
      expect(yield* store.claimComplete("w", 5_000 + QUIET - 1, OPTIONS)).toEqual([])
      const claimed = yield* store.claimComplete("w", 5_000 + QUIET, OPTIONS)
      expect(claimed).toEqual([{ scope: "shared", traceId: a, keyName: "ci", firstAt: 1_000, late: 0, attempts: 1 }])
      expect((yield* store.known("shared", [a])).get(a)?.state).toBe("claimed")
      // claimed: not claimable again while the lease holds
      expect(yield* store.claimComplete("other", 5_000 + QUIET + 1, OPTIONS)).toEqual([])
    }))

  it.scoped("completes a trace whose root never came only at its max age, counted from its first span", () =>
    Effect.gen(function*() {
      const { store } = yield* open()
      const a = tid(30)
      yield* store.add("shared", null, 1_000, [pending(a, [group(a, "child-1")], false)])
      yield* store.add("shared", null, 200_000, [pending(a, [group(a, "child-2")], false)])
      // quiet long past: no root, not complete
      expect(yield* store.claimComplete("w", 200_000 + QUIET * 5, OPTIONS)).toEqual([])
      expect(yield* store.claimComplete("w", 1_000 + MAX_AGE - 1, OPTIONS)).toEqual([])
      const claimed = yield* store.claimComplete("w", 1_000 + MAX_AGE, OPTIONS)
      expect(claimed.map((each) => [each.traceId, each.firstAt])).toEqual([[a, 1_000]])
    }))

  it.scoped("claims each complete trace once when several owners claim at the same time", () =>
    Effect.gen(function*() {
      const { store } = yield* open()
      const traces = Array.from({ length: 40 }, (_, i) => tid(100 + i))
      yield* store.add("shared", null, 1_000, traces.slice(0, 20).map((id) => pending(id, [group(id, "g")], true)))
      yield* store.add("key:bob", null, 1_000, traces.slice(20).map((id) => pending(id, [group(id, "g")], true)))
      const owners = ["a", "b", "c", "d"]
      const claimed: Array<string> = []
      // rounds of small claims, all owners at once, until nothing is left
      for (let round = 0; round < 20; round++) {
        const results = yield* Effect.all(
          owners.map((owner) => store.claimComplete(owner, 1_000 + QUIET, { ...OPTIONS, limit: 3 })),
          { concurrency: "unbounded" }
        )
        const got = results.flat()
        if (got.length === 0) break
        claimed.push(...got.map((each) => `${each.scope}/${each.traceId}`))
      }
      expect(claimed).toHaveLength(40)
      expect(new Set(claimed).size).toBe(40)
      // and one big race: every owner asks for everything
      const more = Array.from({ length: 30 }, (_, i) => tid(200 + i))
      yield* store.add("shared", null, 2_000, more.map((id) => pending(id, [group(id, "g")], true)))
      const all = (yield* Effect.all(owners.map((owner) => store.claimComplete(owner, 2_000 + QUIET, OPTIONS)), { concurrency: "unbounded" })).flat()
      expect(all.map((each) => each.traceId).sort()).toEqual([...more].sort())
    }))

  it.scoped("gives a lapsed claim to another owner; the first owner's complete is then refused", () =>
    Effect.gen(function*() {
      const { store } = yield* open()
      const a = tid(40)
      yield* store.add("shared", "ci", 1_000, [pending(a, [group(a, "g")], true)])
      const at = 1_000 + QUIET
      expect((yield* store.claimComplete("dead", at, OPTIONS)).map((each) => each.traceId)).toEqual([a])
      expect(yield* store.claimComplete("alive", at + LEASE - 1, OPTIONS)).toEqual([])
      expect((yield* store.claimComplete("alive", at + LEASE + 1, OPTIONS)).map((each) => each.traceId)).toEqual([a])
      // the first owner comes back: its completion is refused, nothing is written
      expect(yield* store.complete("shared", a, "dead", "run_dead", at + LEASE + 2)).toBe(false)
      expect((yield* store.known("shared", [a])).get(a)).toMatchObject({ state: "claimed", runId: null })
      expect((yield* store.groups("shared", a))).toHaveLength(1)
      expect(yield* store.complete("shared", a, "alive", "run_alive", at + LEASE + 3)).toBe(true)
      expect((yield* store.known("shared", [a])).get(a)).toMatchObject({ state: "done", runId: "run_alive" })
      // done once: the same owner again is refused
      expect(yield* store.complete("shared", a, "alive", "run_again", at + LEASE + 4)).toBe(false)
      expect(yield* store.pendingTraces).toBe(0)
    }))

  it.scoped("answers a batch of a completed trace `done` with its run, counts its spans late, and keeps none of them", () =>
    Effect.gen(function*() {
      const { store, sql } = yield* open()
      const a = tid(50)
      yield* store.add("shared", null, 1_000, [pending(a, [group(a, "g1")], true, 2)])
      const [claimed] = yield* store.claimComplete("w", 1_000 + QUIET, OPTIONS)
      expect(claimed?.late).toBe(0)
      expect(yield* store.complete("shared", a, "w", "run_1", 1_000 + QUIET + 10)).toBe(true)
      expect(yield* itemCount(sql, "shared", a)).toBe(0)
      const late = yield* store.add("shared", null, 40_000, [pending(a, [group(a, "g2"), group(a, "g3")], false, 5)])
      expect(late.get(a)).toEqual({ state: "done", runId: "run_1" })
      expect(yield* column(sql, "shared", a, "late")).toBe(5)
      yield* store.add("shared", null, 41_000, [pending(a, [group(a, "g4")], false, 1)])
      expect(yield* column(sql, "shared", a, "late")).toBe(6)
      expect(yield* itemCount(sql, "shared", a)).toBe(0)
      expect(yield* store.groups("shared", a)).toEqual([])
      // what it had is what it keeps
      expect((yield* store.known("shared", [a])).get(a)).toEqual({ state: "done", items: 2, runId: "run_1" })
      expect(yield* store.claimComplete("w", 10_000_000, OPTIONS)).toEqual([])
      // a claimed trace takes no spans either
      const b = tid(51)
      yield* store.add("shared", null, 1_000, [pending(b, [group(b, "g1")], true, 1)])
      yield* store.claimComplete("w", 1_000 + QUIET, OPTIONS)
      expect((yield* store.add("shared", null, 1_000 + QUIET + 1, [pending(b, [group(b, "g2")], false, 3)])).get(b)?.state).toBe("claimed")
      expect(yield* store.groups("shared", b)).toHaveLength(1)
      expect(yield* column(sql, "shared", b, "late")).toBe(3)
    }))

  it.scoped("sums the pending bytes of open traces, per scope and overall", () =>
    Effect.gen(function*() {
      const { store } = yield* open()
      const [a, b, c] = [tid(60), tid(61), tid(62)]
      const groupsA = [group(a, "g1", 100), group(a, "g2", 250)]
      const groupsB = [group(b, "g1", 400)]
      const groupsC = [group(c, "g1", 1_000)]
      expect(yield* store.pendingBytes("shared")).toEqual({ all: 0, scope: 0 })
      yield* store.add("shared", null, 1_000, [pending(a, groupsA, true)])
      yield* store.add("shared", null, 5_000, [pending(b, groupsB, false)])
      yield* store.add("key:bob", null, 1_000, [pending(c, groupsC, true)])
      expect(bytesOf(groupsA)).toBe(350)
      expect(yield* store.pendingBytes("shared")).toEqual({ all: 1_750, scope: 750 })
      expect(yield* store.pendingBytes("key:bob")).toEqual({ all: 1_750, scope: 1_000 })
      expect(yield* store.pendingBytes("key:nobody")).toEqual({ all: 1_750, scope: 0 })
      // a done trace holds nothing pending
      const claimed = yield* store.claimComplete("w", 1_000 + QUIET, OPTIONS)
      expect(claimed.map((each) => each.traceId).sort()).toEqual([a, c].sort())
      expect(yield* store.complete("shared", a, "w", null, 40_000)).toBe(true)
      expect(yield* store.pendingBytes("shared")).toEqual({ all: 1_400, scope: 400 })
      expect(yield* store.complete("key:bob", c, "w", "run_c", 40_000)).toBe(true)
      expect(yield* store.pendingBytes("key:bob")).toEqual({ all: 400, scope: 0 })
    }))

  it.scoped("purges done traces older than the cut, and spans no open trace holds", () =>
    Effect.gen(function*() {
      const { store, sql } = yield* open()
      const [old, recent, open_, claimed] = [tid(70), tid(71), tid(72), tid(73)]
      yield* store.add("shared", null, 1_000, [old, recent, claimed].map((id) => pending(id, [group(id, "g")], true)))
      yield* store.add("shared", null, 500_000, [pending(open_, [group(open_, "g1"), group(open_, "g2")], false)])
      const got = yield* store.claimComplete("w", 1_000 + QUIET, OPTIONS)
      expect(got).toHaveLength(3)
      expect(yield* store.complete("shared", old, "w", "run_old", 10_000)).toBe(true)
      expect(yield* store.complete("shared", recent, "w", "run_recent", 50_000)).toBe(true)
      // orphans: spans of a trace that completed as they were written, and spans of a trace whose row is gone
      const orphan = (traceId: string, id: string) => ({ scope: "shared", trace_id: traceId, item_id: id, kind: "spans", received_at: 9_000, position: 0, body: "{}" })
      yield* sql`INSERT INTO otlp_items ${sql.insert([orphan(old, "o1"), orphan(recent, "o2"), orphan(tid(99), "o3")])}`
      expect(yield* store.purge(30_000)).toBe(1)
      const known = yield* store.known("shared", [old, recent, open_, claimed])
      expect(Array.from(known.keys()).sort()).toEqual([recent, open_, claimed].sort())
      expect(known.get(recent)).toMatchObject({ state: "done", runId: "run_recent" })
      expect(yield* itemCount(sql, "shared", old)).toBe(0)
      expect(yield* itemCount(sql, "shared", recent)).toBe(0)
      expect(yield* itemCount(sql, "shared", tid(99))).toBe(0)
      // open and claimed traces keep their spans
      expect(yield* store.groups("shared", open_)).toHaveLength(2)
      expect(yield* store.groups("shared", claimed)).toHaveLength(1)
      // nothing more to purge
      expect(yield* store.purge(30_000)).toBe(0)
      expect(yield* store.purge(60_000)).toBe(1)
    }))
})
