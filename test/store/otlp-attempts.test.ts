/**
 * A pending trace's attempts (src/Store/Otlp.ts, Migrations.ts 0005; issue 47), on SQLite and on
 * PostgreSQL: every claim counts one (a claim whose owner died included), a trace given back after
 * a failed attempt is due again at once, and a trace given up (`fail`) keeps its spans for its
 * run's retry while it is neither pending nor claimed again, takes no more spans, and goes with
 * retention. And the run it becomes (src/Store/Runs.ts `submit` with `failed`): failed when made,
 * once per trace, alerted as `run.failed` in the same transaction, retried like any run.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Effect, Option, Predicate, Schema } from "effect"
import { BigIntColumn } from "../../src/Store/Columns.js"
import type { PendingTrace } from "../../src/Store/Otlp.js"
import { type Cluster, startCluster } from "../support/Postgres.js"
import { otlpStores } from "../support/OtlpStores.js"
import type { AlertPolicy } from "../../src/Store/Problems.js"
import { freshDatabase, newRun, openPostgresStores, openStores } from "../support/RunStore.js"

let cluster: Cluster | undefined
beforeAll(async () => {
  cluster = await startCluster()
}, 60_000)
afterAll(() => cluster?.close())

const STORES = otlpStores(() => cluster)

const QUIET = 30_000
const LEASE = 60_000
const OPTIONS = { quietMs: QUIET, maxAgeMs: 600_000, leaseMs: LEASE, limit: 50 }

const tid = (n: number): string => n.toString(16).padStart(32, "0")

/** A rooted trace of one group of `items` spans. */
const trace = (traceId: string, tag: string, items = 2): PendingTrace => {
  const body = `{"trace":"${traceId}","tag":"${tag}"}`
  return { traceId, rooted: true, items, groups: [{ id: `${traceId.slice(-8)}-${tag}`, kind: "spans", body, items, bytes: body.length }] }
}

const attemptsOf = (sql: SqlClient.SqlClient, traceId: string) =>
  Effect.map(sql`SELECT attempts FROM otlp_traces WHERE trace_id = ${traceId}`, (rows) => {
    const row = rows[0]
    return Predicate.isRecord(row) ? Schema.decodeUnknownSync(BigIntColumn)(row["attempts"]) : null
  })

describe.each(STORES)("a pending trace's attempts on $name", ({ open }) => {
  it.scoped("counts every claim: after a release, after a lapsed lease, after every claim was released at a start", () =>
    Effect.gen(function*() {
      const { sql, store } = yield* open()
      const a = tid(1)
      yield* store.add("shared", "ci", 1_000, [trace(a, "g")])
      expect(yield* attemptsOf(sql, a)).toBe(0)
      const at = 1_000 + QUIET
      expect((yield* store.claimComplete("w", at, OPTIONS)).map((each) => [each.traceId, each.attempts])).toEqual([[a, 1]])
      // given back after a failed attempt: due again at once, for anyone
      expect(yield* store.release("shared", a, "other")).toBe(false)
      expect(yield* store.release("shared", a, "w")).toBe(true)
      expect(yield* store.release("shared", a, "w")).toBe(false)
      expect((yield* store.known("shared", [a])).get(a)?.state).toBe("open")
      expect((yield* store.claimComplete("w2", at + 1, OPTIONS)).map((each) => each.attempts)).toEqual([2])
      // w2 dies holding it: its lapsed claim taken over counts too
      expect((yield* store.claimComplete("w3", at + 1 + LEASE + 1, OPTIONS)).map((each) => each.attempts)).toEqual([3])
      // SQLite's start gives every claim back (a dead process's): the count stays
      expect(yield* store.releaseAll).toBe(1)
      expect((yield* store.claimComplete("w4", at + 2 + LEASE, OPTIONS)).map((each) => each.attempts)).toEqual([4])
      expect(yield* attemptsOf(sql, a)).toBe(4)
    }))

  it.scoped("a trace given up keeps its spans for its run, is neither pending nor claimed again, takes no late spans, and goes with retention", () =>
    Effect.gen(function*() {
      const { store } = yield* open()
      const [a, b] = [tid(10), tid(11)]
      yield* store.add("shared", "ci", 1_000, [trace(a, "g1", 3), trace(b, "g1")])
      const at = 1_000 + QUIET
      expect((yield* store.claimComplete("w", at, OPTIONS)).map((each) => each.traceId).sort()).toEqual([a, b].sort())
      // only the claim's owner gives it up
      expect(yield* store.fail("shared", a, "other", "run_a", at + 1)).toBe(false)
      expect(yield* store.fail("shared", a, "w", "run_a", at + 1)).toBe(true)
      expect(yield* store.fail("shared", a, "w", "run_again", at + 2)).toBe(false)
      expect((yield* store.known("shared", [a])).get(a)).toEqual({ state: "failed", items: 3, runId: "run_a" })
      expect((yield* store.groups("shared", a)).map((each) => JSON.parse(each.body).tag)).toEqual(["g1"])
      // b completes as usual
      expect(yield* store.complete("shared", b, "w", "run_b", at + 1)).toBe(true)
      expect(yield* store.pendingTraces).toBe(0)
      expect(yield* store.pendingBytes("shared")).toEqual({ all: 0, scope: 0 })
      expect(yield* store.claimComplete("w", at + 10 * LEASE, OPTIONS)).toEqual([])
      // a span arriving now is late: counted, not kept, answered with the failed run
      expect((yield* store.add("shared", "ci", at + 5, [trace(a, "g2")])).get(a)).toEqual({ state: "failed", runId: "run_a" })
      expect(yield* store.groups("shared", a)).toHaveLength(1)
      // the upkeep keeps its spans until the retention cut passes it
      expect(yield* store.purge(at)).toBe(0)
      expect(yield* store.groups("shared", a)).toHaveLength(1)
      expect(yield* store.purge(at + 2)).toBe(2)
      expect((yield* store.known("shared", [a, b])).size).toBe(0)
      expect(yield* store.groups("shared", a)).toEqual([])
    }))
})

const HOOK = "https://hooks.example.com/svc"
const ALERTS: AlertPolicy = { minSeverity: "high", webhooksOf: () => [HOOK], linkOf: () => null }

const RUN_STORES = [
  { name: "SQLite", open: () => openStores(freshDatabase(), ALERTS) },
  {
    name: "PostgreSQL",
    open: () =>
      Effect.suspend(() => {
        if (cluster === undefined) return Effect.dieMessage("the PostgreSQL cluster did not start")
        return openPostgresStores(cluster.freshDatabase(), ALERTS)
      })
  }
] as const

describe.each(RUN_STORES)("the run of a trace given up, on $name", ({ open }) => {
  it.scoped("is failed when made, once per trace, alerted run.failed, and queued by a retry", () =>
    Effect.gen(function*() {
      const { problems, runs } = yield* open()
      const error = { error: "assembly_error", message: "its spans could not be assembled (3 attempts)" }
      const made = yield* runs.submit(newRun("r1", { source: "otlp", traceId: tid(20), dedupeKey: "unassembled-20", submittedAt: 5_000, failed: error }))
      expect(made.created).toBe(true)
      expect(made.run).toMatchObject({ status: "failed", error, attempts: 0, finishedAt: 5_000, traceId: tid(20) })
      expect(Option.map(yield* runs.get("shared", "r1"), (run) => [run.status, run.error, run.finishedAt])).toEqual(Option.some(["failed", error, 5_000]))
      // given up again (its process died before the trace was marked): the same run, no second alert
      const again = yield* runs.submit(newRun("r2", { source: "otlp", traceId: tid(20), dedupeKey: "unassembled-20", submittedAt: 6_000, failed: error }))
      expect([again.created, again.run.id]).toEqual([false, "r1"])
      const due = yield* problems.claimDeliveries("d", 10_000, 60_000, 10)
      expect(due.map((delivery) => [delivery.event, delivery.url])).toEqual([["run.failed", HOOK]])
      expect(JSON.parse(due[0]?.body ?? "{}")).toMatchObject({ event: "run.failed", run: { id: "r1", trace_id: tid(20), error } })
      // nothing for a worker until a retry queues it
      expect(Option.isNone(yield* runs.claim("w", 10_000, 60_000))).toBe(true)
      expect(yield* runs.retry("shared", "r1", 11_000)).toBe(true)
      expect(Option.map(yield* runs.claim("w", 11_000, 60_000), (run) => run.id)).toEqual(Option.some("r1"))
    }))
})
