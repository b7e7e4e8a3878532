/**
 * Merges serialised per scope (issue 47 item 5), on both stores: A into B and B into A at once, by
 * two stores over one database (replicas on PostgreSQL; the service and `svc` on one SQLite file),
 * end with one live problem reachable from both ids, never a cycle; later runs of either failure
 * join it. And no state hides a problem: merge links an older release left in a
 * cycle, or pointing at a problem that is not there, are repaired when a problem is read by id, when
 * a run joins it, and when the store opens; the runs of every member end up in the live one.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Option, Redacted, type Scope } from "effect"
import { fingerprintOf, type ProblemFinding } from "../../src/Problems/Fingerprint.js"
import { type AlertPolicy, ProblemStore, type ProblemStoreShape } from "../../src/Store/Problems.js"
import { RunStore, type RunStoreShape } from "../../src/Store/Runs.js"
import { postgresLayer, sqliteLayer } from "../../src/Store/Sql.js"
import { type Cluster, startCluster } from "../support/Postgres.js"
import { freshDatabase, newRun, storesLayer } from "../support/RunStore.js"

const LEASE = 60_000
const T0 = Date.UTC(2026, 2, 10, 12)
const HOOK = "http://127.0.0.1:9/hook"
const ALERTS: AlertPolicy = { minSeverity: "high", webhooksOf: () => [HOOK], linkOf: () => null }

interface Stores {
  readonly runs: RunStoreShape
  readonly problems: ProblemStoreShape
  readonly sql: SqlClient.SqlClient
}

let cluster: Cluster | undefined
beforeAll(async () => {
  cluster = await startCluster()
}, 60_000)
afterAll(() => cluster?.close())

/** Both stores and their SQL client over `client`, open for the rest of the scope. */
const storesOn = <E>(client: Layer.Layer<SqlClient.SqlClient, E>) =>
  Effect.map(
    Layer.build(Layer.provideMerge(storesLayer(ALERTS), client)),
    (context): Stores => ({ runs: Context.get(context, RunStore), problems: Context.get(context, ProblemStore), sql: Context.get(context, SqlClient.SqlClient) })
  )

/** A database, and how to open a store over it (each call: another process's connections). */
interface Database {
  readonly open: () => Effect.Effect<Stores, unknown, Scope.Scope>
  /**
   * Two stores that merge at once: PostgreSQL's replicas, each with its own pool; SQLite's one
   * process, whose one connection runs its write transactions (BEGIN IMMEDIATE) one at a time.
   */
  readonly concurrent: () => Effect.Effect<readonly [Stores, Stores], unknown, Scope.Scope>
}

const DIALECTS: ReadonlyArray<{ readonly name: string; readonly database: () => Effect.Effect<Database> }> = [
  {
    name: "SQLite",
    database: () =>
      Effect.sync(() => {
        const file = freshDatabase()
        const open = () => storesOn(sqliteLayer(file))
        return { open, concurrent: () => Effect.map(open(), (stores) => [stores, stores] as const) }
      })
  },
  {
    name: "PostgreSQL",
    database: () =>
      Effect.suspend(() => {
        const running = cluster
        if (running === undefined) return Effect.dieMessage("the PostgreSQL cluster did not start")
        const url = running.freshDatabase()
        const open = () => storesOn(postgresLayer(Redacted.make(url), { pool: 4, statementTimeoutMs: 10_000 }))
        return Effect.succeed({ open, concurrent: () => Effect.all([open(), open()]) })
      })
  }
]

/** A finding of its own fingerprint per `name`. */
const finding = (name: string): ProblemFinding => {
  const normalizedTitle = `agent ignored ${name}`
  const cites = "tool_result:charge_card"
  return {
    fingerprint: fingerprintOf({ pattern: "lewin", playbook: null, normalizedTitle, cites }),
    pattern: "lewin",
    playbook: null,
    title: `Agent ignored the ${name}`,
    normalizedTitle,
    severity: "high",
    cites,
    evidence: [{ ref: "messages[2]", quote: `the ${name} was ignored`, event: 2, actor: "billing_bot" }]
  }
}

/** Submits, claims and finishes run `id` at `at` with `findings` (done). */
const runWith = (stores: Stores, id: string, at: number, findings: ReadonlyArray<ProblemFinding>) =>
  Effect.gen(function*() {
    yield* stores.runs.submit(newRun(id, { submittedAt: at - 10 }))
    const claimed = yield* stores.runs.claim(`w-${id}`, at - 5, LEASE)
    expect(Option.map(claimed, (run) => run.id)).toEqual(Option.some(id))
    const end = { status: "done", report: "{}", severity: "high", patterns: ["lewin"], cacheKeys: [], findings } as const
    expect(yield* stores.runs.finish(id, `w-${id}`, at, end)).toBe(true)
  })

/** The live problems of a fingerprint, as the list shows them. */
const listedOf = (stores: Stores, fingerprint: string) =>
  Effect.map(stores.problems.list("shared", {}, 200, null), (page) => page.problems.filter((problem) => problem.fingerprint === fingerprint))

const idOf = (stores: Stores, id: string) => Effect.map(stores.problems.get("shared", id), Option.map((problem) => problem.id))

describe.each(DIALECTS)("merges on $name", ({ database }) => {
  it.scoped("A into B and B into A at once (ten pairs, each way by another store on PostgreSQL): one live problem per pair, reachable from both ids; later runs join it", () =>
    Effect.gen(function*() {
      const db = yield* database()
      const [one, two] = yield* db.concurrent()
      const pairs = Array.from({ length: 10 }, (_, i) => [finding(`first ${i}`), finding(`second ${i}`)] as const)
      for (const [i, [a, b]] of pairs.entries()) {
        yield* runWith(one, `a-${i}`, T0 + i, [a])
        yield* runWith(one, `b-${i}`, T0 + i, [b])
      }
      const problemIds = yield* Effect.forEach(pairs, ([a, b]) =>
        Effect.gen(function*() {
          const [pa] = yield* listedOf(one, a.fingerprint)
          const [pb] = yield* listedOf(one, b.fingerprint)
          if (pa === undefined || pb === undefined) return yield* Effect.dieMessage("a problem is missing")
          return [pa.id, pb.id] as const
        }))
      // every pair merged both ways at once, each way by another store
      const outcomes = yield* Effect.all(
        problemIds.flatMap(([pa, pb]) => [one.problems.merge("shared", pa, pb, T0 + 100), two.problems.merge("shared", pb, pa, T0 + 100)]),
        { concurrency: "unbounded" }
      )
      expect(outcomes.filter((outcome) => outcome._tag === "Merged")).toHaveLength(10)
      expect(outcomes.filter((outcome) => outcome._tag === "Same")).toHaveLength(10)
      const listed = (yield* one.problems.list("shared", {}, 200, null)).problems
      expect(listed).toHaveLength(10)
      for (const [i, [pa, pb]] of problemIds.entries()) {
        const fromA = yield* idOf(one, pa)
        const fromB = yield* idOf(two, pb)
        expect(Option.isSome(fromA)).toBe(true)
        expect(fromB).toEqual(fromA)
        const live = Option.getOrThrow(fromA)
        expect(listed.find((problem) => problem.id === live)).toMatchObject({ runCount: 2 })
        // a later run of either failure joins the live problem
        const [a, b] = pairs[i] ?? []
        if (a === undefined || b === undefined) return
        yield* runWith(two, `later-${i}`, T0 + 1_000 + i, [i % 2 === 0 ? a : b])
        expect((yield* one.problems.ofRun("shared", `later-${i}`)).map((problem) => problem.id)).toEqual([live])
      }
      expect((yield* one.problems.list("shared", {}, 200, null)).problems.map((problem) => problem.runCount)).toEqual(Array.from({ length: 10 }, () => 3))
    }))

  it.scoped("a cycle of merge links an older release wrote: read by id, both ids reach one live problem holding every run; later runs join it", () =>
    Effect.gen(function*() {
      const db = yield* database()
      const stores = yield* db.open()
      const a = finding("cycled first")
      const b = finding("cycled second")
      yield* runWith(stores, "a1", T0, [a])
      yield* runWith(stores, "a2", T0 + 1, [a])
      yield* runWith(stores, "b1", T0 + 2, [b])
      const [pa] = yield* listedOf(stores, a.fingerprint)
      const [pb] = yield* listedOf(stores, b.fingerprint)
      if (pa === undefined || pb === undefined) return yield* Effect.dieMessage("a problem is missing")
      // as two merges committed together before merges took the scope's lock
      yield* stores.sql`UPDATE problems SET merged_into = ${pb.id} WHERE id = ${pa.id}`
      yield* stores.sql`UPDATE problems SET merged_into = ${pa.id} WHERE id = ${pb.id}`
      expect((yield* stores.problems.list("shared", {}, 10, null)).problems).toEqual([])
      // read by id: repaired; the member with the most runs is the live one, the other merged into it
      const detail = Option.getOrThrow(yield* stores.problems.get("shared", pb.id))
      expect(detail).toMatchObject({ id: pa.id, mergedInto: null, runCount: 3 })
      expect(detail.examples.map((example) => example.runId).sort()).toEqual(["a1", "a2", "b1"])
      expect(detail.fingerprints).toEqual([a.fingerprint, b.fingerprint].sort())
      expect(yield* idOf(stores, pa.id)).toEqual(Option.some(pa.id))
      expect((yield* stores.problems.list("shared", {}, 10, null)).problems.map((problem) => [problem.id, problem.runCount])).toEqual([[pa.id, 3]])
      // a later run of B's failure joins it
      yield* runWith(stores, "b2", T0 + 3, [b])
      expect((yield* stores.problems.ofRun("shared", "b2")).map((problem) => problem.id)).toEqual([pa.id])
    }))

  it.scoped("a run joining a problem in a cycle repairs it first: counted into the live problem, never a hidden one", () =>
    Effect.gen(function*() {
      const db = yield* database()
      const stores = yield* db.open()
      const a = finding("join first")
      const b = finding("join second")
      yield* runWith(stores, "a1", T0, [a])
      yield* runWith(stores, "b1", T0 + 1, [b])
      yield* runWith(stores, "b2", T0 + 2, [b])
      const [pa] = yield* listedOf(stores, a.fingerprint)
      const [pb] = yield* listedOf(stores, b.fingerprint)
      if (pa === undefined || pb === undefined) return yield* Effect.dieMessage("a problem is missing")
      yield* stores.sql`UPDATE problems SET merged_into = ${pb.id} WHERE id = ${pa.id}`
      yield* stores.sql`UPDATE problems SET merged_into = ${pa.id} WHERE id = ${pb.id}`
      yield* runWith(stores, "a2", T0 + 3, [a])
      const listed = (yield* stores.problems.list("shared", {}, 10, null)).problems
      expect(listed.map((problem) => [problem.id, problem.runCount])).toEqual([[pb.id, 4]])
      expect((yield* stores.problems.ofRun("shared", "a2")).map((problem) => problem.id)).toEqual([pb.id])
    }))

  it.scoped("repaired when the store opens: a 100-problem cycle and a link to a problem that is not there are listed again", () =>
    Effect.gen(function*() {
      const db = yield* database()
      const stores = yield* db.open()
      const cycled = Array.from({ length: 100 }, (_, i) => finding(`ring ${i}`))
      for (const [i, each] of cycled.entries()) yield* runWith(stores, `ring-${i}`, T0 + i, [each])
      const dangling = finding("dangling")
      yield* runWith(stores, "dangling", T0 + 500, [dangling])
      const listed = (yield* stores.problems.list("shared", {}, 200, null)).problems
      const ring = cycled.map((each) => listed.find((problem) => problem.fingerprint === each.fingerprint)?.id ?? "")
      for (const [i, id] of ring.entries()) yield* stores.sql`UPDATE problems SET merged_into = ${ring[(i + 1) % ring.length] ?? ""} WHERE id = ${id}`
      const lost = listed.find((problem) => problem.fingerprint === dangling.fingerprint)?.id ?? ""
      yield* stores.sql`UPDATE problems SET merged_into = ${"prb_gone"} WHERE id = ${lost}`
      expect((yield* stores.problems.list("shared", {}, 200, null)).problems).toEqual([])
      // another process opens the store: it repairs before anything is read by id
      const reopened = yield* db.open()
      const after = (yield* reopened.problems.list("shared", {}, 200, null)).problems
      // the ring's members hold a run each: the one seen last is made live, the others merged into it
      const live = ring[ring.length - 1] ?? ""
      expect(after.map((problem) => [problem.id, problem.runCount]).sort()).toEqual([[lost, 1], [live, 100]].sort())
      for (const id of ring) expect(yield* idOf(reopened, id)).toEqual(Option.some(live))
      expect(yield* idOf(reopened, lost)).toEqual(Option.some(lost))
    }))
})
