/**
 * Fair to every scope (issue 47 item 3), on both stores: the runs' claim (src/Store/Runs.ts) takes
 * the scopes with due runs in turn, each giving its oldest, so one scope's backlog of 1,000 runs
 * delays another scope's run by one claim round at most; and the outbox's claim
 * (src/Store/Problems.ts claimDeliveries) takes the scopes' rows in turn and, given a bound, leaves
 * a scope with that many calls in flight (any deliverer's) out of the claim: its hanging receiver
 * holds only its own rows.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import type { AlertPolicy } from "../../src/Store/Problems.js"
import { type Cluster, startCluster } from "../support/Postgres.js"
import { newRun, openPostgresStores, openStores } from "../support/RunStore.js"

const LEASE = 60_000
const T0 = Date.UTC(2026, 2, 10, 12)

let cluster: Cluster | undefined
beforeAll(async () => {
  cluster = await startCluster()
}, 60_000)
afterAll(() => cluster?.close())

/** One webhook per scope (the store only writes the outbox: nothing is called here). */
const HOOKS: AlertPolicy = { minSeverity: "high", webhooksOf: (scope) => [`http://127.0.0.1:9/${scope}`], linkOf: () => null }

const STORES = [
  { name: "SQLite", open: () => openStores(undefined, HOOKS) },
  {
    name: "PostgreSQL",
    open: () =>
      Effect.suspend(() => (cluster === undefined ? Effect.dieMessage("the PostgreSQL cluster did not start") : openPostgresStores(cluster.freshDatabase(), HOOKS)))
  }
] as const

describe.each(STORES)("fair claims on $name", ({ open }) => {
  it.scoped("1,000 queued runs of one scope and one of another: the lone scope's run is the second claim, then the scopes alternate", () =>
    Effect.gen(function*() {
      const { runs } = yield* open()
      // the busy scope's backlog is older than the lone run, and its name sorts first
      for (let i = 0; i < 1_000; i++) yield* runs.submit(newRun(`busy-${String(i).padStart(4, "0")}`, { scope: "key:busy", submittedAt: T0 + i }))
      yield* runs.submit(newRun("lone", { scope: "key:lone", submittedAt: T0 + 5_000 }))
      const claimOne = Effect.map(runs.claim("w", T0 + 10_000, LEASE), Option.map((run) => run.id))
      const first = [yield* claimOne, yield* claimOne, yield* claimOne]
      expect(first).toEqual([Option.some("busy-0000"), Option.some("lone"), Option.some("busy-0001")])
      expect(yield* runs.queued).toBe(998)
    }))

  it.scoped("three scopes with backlogs take turns, each oldest first; a scope with nothing due is passed over", () =>
    Effect.gen(function*() {
      const { runs } = yield* open()
      const submitted: Array<[string, string, number]> = [
        ["key:a", "a1", 1],
        ["key:a", "a2", 2],
        ["key:a", "a3", 3],
        ["key:b", "b1", 4],
        ["key:b", "b2", 5],
        ["key:c", "c1", 6]
      ]
      for (const [scope, id, at] of submitted) yield* runs.submit(newRun(id, { scope, submittedAt: T0 + at }))
      const order: Array<string> = []
      for (let i = 0; i < 6; i++) order.push(Option.getOrThrow(yield* runs.claim("w", T0 + 10_000, LEASE)).id)
      expect(order).toEqual(["a1", "b1", "c1", "a2", "b2", "a3"])
      expect(Option.isNone(yield* runs.claim("w", T0 + 10_000, LEASE))).toBe(true)
      // a run released with a backoff is not due: its scope is passed over until then
      expect(yield* runs.release("b2", "w", T0 + 60_000)).toBe(true)
      yield* runs.submit(newRun("c2", { scope: "key:c", submittedAt: T0 + 7 }))
      expect(Option.map(yield* runs.claim("w", T0 + 20_000, LEASE), (run) => run.id)).toEqual(Option.some("c2"))
      expect(Option.map(yield* runs.claim("w", T0 + 60_000, LEASE), (run) => run.id)).toEqual(Option.some("b2"))
    }))

  it.scoped("the outbox's claim takes the scopes' rows in turn, and leaves out a scope with its bound of calls in flight", () =>
    Effect.gen(function*() {
      const { problems } = yield* open()
      const failed = { error: "provider_error", message: "the model failed" }
      // ten alerts of a busy scope first, then one of a quiet one
      for (let i = 0; i < 10; i++) yield* problems.failedRun("key:busy", `busy-${i}`, null, failed, T0 + i)
      yield* problems.failedRun("key:quiet", "quiet-0", null, failed, T0 + 100)
      // a claim of 3 takes the quiet scope's row with the busy one's first two (turns, not age)
      const first = yield* problems.claimDeliveries("d1", T0 + 1_000, LEASE, 3, "alerts")
      expect(first.map((row) => row.url).sort()).toEqual([HOOKS.webhooksOf("key:busy")[0], HOOKS.webhooksOf("key:busy")[0], HOOKS.webhooksOf("key:quiet")[0]])
      // bound 2 a scope: the busy scope has 2 in flight (d1's, not lapsed), so another deliverer gets none of it
      expect(yield* problems.claimDeliveries("d2", T0 + 2_000, LEASE, 16, "alerts", 2)).toEqual([])
      // a new alert of the quiet scope is taken at once, the busy scope's still held back
      yield* problems.failedRun("key:quiet", "quiet-1", null, failed, T0 + 2_000)
      const quiet = yield* problems.claimDeliveries("d2", T0 + 2_001, LEASE, 16, "alerts", 2)
      expect(quiet.map((row) => row.url)).toEqual([HOOKS.webhooksOf("key:quiet")[0]])
      // one busy call ends: one slot of the busy scope is free again
      const busyRow = first.find((row) => row.url === HOOKS.webhooksOf("key:busy")[0])
      if (busyRow === undefined) return yield* Effect.dieMessage("no busy row claimed")
      yield* problems.recordAttempt(busyRow.id, "d1", T0 + 3_000, { delivered: true, status: 200, error: null, nextAt: null })
      expect((yield* problems.claimDeliveries("d2", T0 + 3_001, LEASE, 16, "alerts", 2)).length).toBe(1)
      // d1 dies: once its lease lapses its row is due again and no longer counts as in flight
      const lapsed = yield* problems.claimDeliveries("d3", T0 + 1_000 + LEASE + 1, LEASE, 16, "alerts", 2)
      expect(lapsed.map((row) => row.id).sort()).toEqual(first.filter((row) => row.id !== busyRow.id).map((row) => row.id).sort())
    }))
})
