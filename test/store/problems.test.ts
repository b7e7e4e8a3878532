/**
 * The problems store (src/Store/Problems.ts, DECISIONS §19) through the real runs store: a run is
 * submitted, claimed and finished with `end.findings` (RunStore.finish joins them in its
 * transaction), then read back through ProblemStore. One suite on SQLite and on PostgreSQL (an
 * ephemeral cluster, test/support/Postgres.ts); then what only one dialect has: replicas finishing
 * runs of one failure at once (PostgreSQL), the connection's settings after a finish's transaction
 * (SQLite). Times are plain milliseconds given here.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { SqlClient, type SqlError, Statement } from "@effect/sql"
import { Context, Effect, Layer, Option, Redacted } from "effect"
import type { Severity } from "../../src/Catalogue/Severity.js"
import type { ReportFinding } from "../../src/Contract/DiagnoseReport.js"
import { fingerprintOf, type FingerprintTrace, type ProblemFinding, problemFindingsOf } from "../../src/Problems/Fingerprint.js"
import {
  type AlertPolicy,
  type DeliveryRecord,
  NO_ALERTS,
  type ProblemDetail,
  type ProblemFilter,
  ProblemStore,
  type ProblemStoreShape
} from "../../src/Store/Problems.js"
import type { AlertEvent, ProblemRecord } from "../../src/Problems/Model.js"
import { type NewRun, type RunEnd, RunStore, type RunStoreShape } from "../../src/Store/Runs.js"
import { postgresLayer, sqliteLayer } from "../../src/Store/Sql.js"
import { type Cluster, startCluster } from "../support/Postgres.js"
import { freshDatabase, newRun, openPostgresStores, storesLayer } from "../support/RunStore.js"

const LEASE = 60_000
const HOUR = 3_600_000
const DAY = 86_400_000
/** Noon UTC, 10 March 2026. */
const T0 = Date.UTC(2026, 2, 10, 12, 0, 0)
const dayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10)

const HOOK = "http://127.0.0.1:9/hook"
const HOOK_2 = "http://127.0.0.1:9/hook-2"
const BOB_HOOK = "http://127.0.0.1:9/bob"
/** One webhook for the shared scope, alerts at high and above. */
const ALERTS: AlertPolicy = { minSeverity: "high", webhooksOf: (scope) => (scope === "shared" ? [HOOK] : []), linkOf: () => null }
/** Two webhooks for the shared scope, one for key:bob (keyed by scope token). */
const HOOKS_BY_SCOPE: AlertPolicy = {
  minSeverity: "high",
  webhooksOf: (scope) => (scope === "shared" ? [HOOK, HOOK_2] : scope === "key:bob" ? [BOB_HOOK] : []),
  linkOf: (path) => `https://svc.example${path}`
}

interface Stores {
  readonly runs: RunStoreShape
  readonly problems: ProblemStoreShape
  readonly sql: SqlClient.SqlClient
}

/** Both stores and their SQL client over `client`, open for the rest of the scope. */
const storesOn = <E>(client: Layer.Layer<SqlClient.SqlClient, E>, alerts: AlertPolicy) =>
  Effect.map(
    Layer.build(Layer.provideMerge(storesLayer(alerts), client)),
    (context): Stores => ({ runs: Context.get(context, RunStore), problems: Context.get(context, ProblemStore), sql: Context.get(context, SqlClient.SqlClient) })
  )

let cluster: Cluster | undefined
beforeAll(async () => {
  cluster = await startCluster()
}, 60_000)
afterAll(() => cluster?.close())

/** A new database on the test cluster. */
const postgresUrl = Effect.suspend(() => {
  const running = cluster
  return running === undefined ? Effect.dieMessage("the PostgreSQL cluster did not start") : Effect.sync(() => running.freshDatabase())
})

const openSqlite = (alerts: AlertPolicy = NO_ALERTS) => storesOn(sqliteLayer(freshDatabase()), alerts)
const openPostgres = (alerts: AlertPolicy = NO_ALERTS) =>
  Effect.flatMap(postgresUrl, (url) => storesOn(postgresLayer(Redacted.make(url), { pool: 4, statementTimeoutMs: 10_000 }), alerts))

interface Dialect {
  readonly name: string
  readonly postgres: boolean
  readonly open: (alerts?: AlertPolicy) => ReturnType<typeof openSqlite>
}
const DIALECTS: ReadonlyArray<Dialect> = [
  { name: "SQLite", postgres: false, open: openSqlite },
  { name: "PostgreSQL", postgres: true, open: openPostgres }
]

/**
 * A finding as a problem keeps it, made by hand: `name` sets the normalized title, so findings of
 * one name (and pattern) share a fingerprint, whatever their severity or quote.
 */
const finding = (name: string, severity: Severity = "high", over: { readonly pattern?: string; readonly quote?: string } = {}): ProblemFinding => {
  const pattern = over.pattern ?? "lewin"
  const normalizedTitle = `agent ignored ${name}`
  const cites = "tool_result:charge_card"
  return {
    fingerprint: fingerprintOf({ pattern, playbook: null, normalizedTitle, cites }),
    pattern,
    playbook: null,
    title: `Agent ignored the ${name}`,
    normalizedTitle,
    severity,
    cites,
    evidence: [{ ref: "messages[2]", quote: over.quote ?? `the ${name} was ignored`, event: 2, actor: "billing_bot" }]
  }
}

interface RunOptions {
  readonly labels?: Readonly<Record<string, string>>
  readonly scope?: string
  readonly tokens?: number
}

/** Submits, claims and finishes run `id` at `at` (ms) with `end`; the finish must hold its lease. */
const finishWith = (stores: Stores, id: string, at: number, end: RunEnd, options: RunOptions = {}) =>
  Effect.gen(function*() {
    const over: Partial<NewRun> = { submittedAt: at - 10, labels: options.labels ?? {}, scope: options.scope ?? "shared" }
    yield* stores.runs.submit(newRun(id, over))
    const claimed = yield* stores.runs.claim(`w-${id}`, at - 5, LEASE)
    expect(Option.map(claimed, (run) => run.id)).toEqual(Option.some(id))
    expect(yield* stores.runs.finish(id, `w-${id}`, at, end)).toBe(true)
  })

const doneWith = (findings: ReadonlyArray<ProblemFinding>, tokens?: number): RunEnd => ({
  status: "done",
  report: "{}",
  severity: findings[0]?.severity ?? "none",
  patterns: Array.from(new Set(findings.map((each) => each.pattern))),
  cacheKeys: [],
  findings,
  ...(tokens === undefined ? {} : { tokens })
})

/** A done run of `id` at `at` whose report had `findings`. */
const runWith = (stores: Stores, id: string, at: number, findings: ReadonlyArray<ProblemFinding>, options: RunOptions = {}) =>
  finishWith(stores, id, at, doneWith(findings, options.tokens), options)

const failedRun = (stores: Stores, id: string, at: number, options: RunOptions = {}) =>
  finishWith(stores, id, at, { status: "failed", error: { error: "provider_error", message: "the model failed" } }, options)

/** The only problem of the scope (not merged) with this fingerprint. */
const problemOf = (stores: Stores, fingerprint: string, scope = "shared") =>
  Effect.gen(function*() {
    const listed = yield* stores.problems.list(scope, {}, 100, null)
    const found = listed.problems.filter((problem) => problem.fingerprint === fingerprint)
    expect(found).toHaveLength(1)
    const [problem] = found
    if (problem === undefined) return yield* Effect.dieMessage(`no problem of ${fingerprint}`)
    return problem
  })

const detailOf = (stores: Stores, id: string, scope = "shared") =>
  Effect.flatMap(stores.problems.get(scope, id), (found) => (Option.isSome(found) ? Effect.succeed(found.value) : Effect.dieMessage(`no problem ${id}`)))

const recordOf = (found: Option.Option<ProblemRecord>): Effect.Effect<ProblemRecord> =>
  Option.isSome(found) ? Effect.succeed(found.value) : Effect.dieMessage("no problem")

const allDeliveries = (stores: Stores, scope = "shared") => Effect.map(stores.problems.deliveries(scope, 1_000, null), (page) => page.deliveries)
const ofEvent = (rows: ReadonlyArray<DeliveryRecord>, event: AlertEvent, problemId?: string) =>
  rows.filter((row) => row.event === event && (problemId === undefined || row.problemId === problemId))
const daysOf = (detail: ProblemDetail) => Object.fromEntries(detail.days.map((day) => [day.day, day.runs]))
const sum = (values: ReadonlyArray<number>) => values.reduce((total, value) => total + value, 0)

describe.each(DIALECTS)("the problems store on $name", ({ open }) => {
  it.scoped("groups runs of one failure into one problem, counted per run; links both ways; days and labels aggregate", () =>
    Effect.gen(function*() {
      const stores = yield* open()
      // the real fingerprint: two wordings of one complaint about one tool result are one finding
      const trace: FingerprintTrace = {
        agents: ["billing_bot"],
        events: [
          { kind: "message", actor: "user", role: "user" },
          { kind: "tool_call", tool: "charge_card", actor: "billing_bot", role: "agent" },
          { kind: "tool_result", tool: "charge_card", actor: "charge_card", role: "tool" },
          { kind: "tool_result", tool: "refund", actor: "refund", role: "tool" }
        ]
      }
      const reported = (title: string, severity: Severity, event: number, pattern = "lewin"): ReportFinding => ({
        pattern,
        id: "f1",
        title,
        severity,
        confidence: 0.9,
        explanation: "",
        playbook: null,
        evidence: [{ ref: `messages[${event}]`, quote: `quote ${title}`, event, actor: "billing_bot" }],
        corroborated_by: []
      })
      const firstRun = problemFindingsOf([
        reported("Agent billing_bot ignored the 504 from 'charge_card' (call_8f2a)", "medium", 2),
        reported("agent ignored the 500 from 'refund' in billing_bot", "high", 2),
        reported("The agent asked the user twice", "low", 0, "johari")
      ], trace)
      expect(firstRun).toHaveLength(3)
      const [ignored, reworded, asked] = firstRun
      if (ignored === undefined || reworded === undefined || asked === undefined) return yield* Effect.dieMessage("findings missing")
      expect(reworded.fingerprint).toBe(ignored.fingerprint)
      expect(asked.fingerprint).not.toBe(ignored.fingerprint)

      yield* runWith(stores, "r1", T0, firstRun, { labels: { version: "1.3", team: "payments" } })
      yield* runWith(stores, "r2", T0 + DAY, [ignored], { labels: { version: "1.4", team: "payments" } })

      const listed = yield* stores.problems.list("shared", {}, 10, null)
      expect(listed.problems).toHaveLength(2)
      const problem = yield* problemOf(stores, ignored.fingerprint)
      const other = yield* problemOf(stores, asked.fingerprint)
      // r1 had two findings of one fingerprint: it counts once
      expect(problem).toMatchObject({ runCount: 2, severity: "high", status: "open", patterns: ["lewin"], firstSeen: T0, lastSeen: T0 + DAY, mergedInto: null })
      expect(other).toMatchObject({ runCount: 1, severity: "low", patterns: ["johari"], firstSeen: T0, lastSeen: T0 })
      // newest first
      expect(listed.problems.map((each) => each.id)).toEqual([problem.id, other.id])

      // run → problems
      expect((yield* stores.problems.ofRun("shared", "r1")).map((each) => each.id).sort()).toEqual([problem.id, other.id].sort())
      expect((yield* stores.problems.ofRun("shared", "r2")).map((each) => each.id)).toEqual([problem.id])
      // problem → runs, with the run's most severe finding of the fingerprint and its quotes
      const detail = yield* detailOf(stores, problem.id)
      expect(detail.examples.map((example) => example.runId)).toEqual(["r2", "r1"])
      const fromFirst = detail.examples.find((example) => example.runId === "r1")
      expect(fromFirst?.severity).toBe("high")
      expect(fromFirst?.finding.evidence[0]?.quote).toContain("agent ignored the 500")
      expect(detail.fingerprints).toEqual([ignored.fingerprint])
      expect(daysOf(detail)).toEqual({ [dayOf(T0)]: 1, [dayOf(T0 + DAY)]: 1 })
      expect([...detail.labels].sort((a, b) => `${a.key}=${a.value}`.localeCompare(`${b.key}=${b.value}`))).toEqual([
        { key: "team", value: "payments", runs: 2 },
        { key: "version", value: "1.3", runs: 1 },
        { key: "version", value: "1.4", runs: 1 }
      ])
      // a run with no findings joins nothing
      yield* runWith(stores, "r3", T0 + DAY, [])
      expect(yield* stores.problems.ofRun("shared", "r3")).toEqual([])
      expect((yield* stores.problems.list("shared", {}, 10, null)).problems).toHaveLength(2)
    }))

  it.scoped("writes nothing to the problems (nor the outbox) for a finish whose lease was lost", () =>
    Effect.gen(function*() {
      const stores = yield* open(ALERTS)
      yield* stores.runs.submit(newRun("r1", { submittedAt: T0 }))
      expect(Option.isSome(yield* stores.runs.claim("w1", T0, LEASE))).toBe(true)
      // w1 stalls: its lease lapses and w2 takes the run
      expect(yield* stores.runs.releaseExpired(T0 + LEASE + 1)).toBe(1)
      expect(Option.isSome(yield* stores.runs.claim("w2", T0 + LEASE + 2, LEASE))).toBe(true)
      const late = finding("timeout", "critical")
      expect(yield* stores.runs.finish("r1", "w1", T0 + LEASE + 3, doneWith([late]))).toBe(false)
      expect(yield* stores.runs.finish("r1", "w1", T0 + LEASE + 3, { status: "failed", error: { error: "timeout", message: "late" } })).toBe(false)
      expect((yield* stores.problems.list("shared", {}, 10, null)).problems).toEqual([])
      expect(yield* stores.problems.ofRun("shared", "r1")).toEqual([])
      expect(yield* allDeliveries(stores)).toEqual([])
      // the holder's finish joins
      expect(yield* stores.runs.finish("r1", "w2", T0 + LEASE + 4, doneWith([late]))).toBe(true)
      expect(yield* problemOf(stores, late.fingerprint)).toMatchObject({ runCount: 1, severity: "critical" })
      expect((yield* allDeliveries(stores)).map((row) => row.event)).toEqual(["problem.new"])
    }))

  it.scoped("moves open → resolved → regressed; resolved in a version regresses only on a new version; ignored counts silently; reopens", () =>
    Effect.gen(function*() {
      const stores = yield* open(ALERTS)
      // resolved (no version): the next run regresses it
      const plain = finding("plain")
      yield* runWith(stores, "a1", T0, [plain], { labels: { version: "1.0" } })
      const p = yield* problemOf(stores, plain.fingerprint)
      const resolved = yield* recordOf(yield* stores.problems.setStatus("shared", p.id, "resolved", null, T0 + 100))
      expect(resolved).toMatchObject({ status: "resolved", resolvedAt: T0 + 100, resolvedInVersion: null, regressedAt: null })
      expect((yield* stores.problems.list("shared", { status: "resolved" }, 10, null)).problems.map((each) => each.id)).toEqual([p.id])
      yield* runWith(stores, "a2", T0 + 1_000, [plain], { labels: { version: "1.0" } })
      expect(yield* problemOf(stores, plain.fingerprint)).toMatchObject({ status: "regressed", regressedAt: T0 + 1_000, runCount: 2 })

      // resolved in 1.2: a run on a version seen before (1.1) does not regress it; one on a new version (1.2) does
      const versioned = finding("versioned")
      yield* runWith(stores, "b1", T0, [versioned], { labels: { version: "1.0" } })
      yield* runWith(stores, "b2", T0 + 10, [versioned], { labels: { version: "1.1" } })
      const q = yield* problemOf(stores, versioned.fingerprint)
      expect(yield* recordOf(yield* stores.problems.setStatus("shared", q.id, "resolved", "1.2", T0 + 100))).toMatchObject({ status: "resolved", resolvedInVersion: "1.2" })
      yield* runWith(stores, "b3", T0 + 200, [versioned], { labels: { version: "1.1" } })
      expect(yield* problemOf(stores, versioned.fingerprint)).toMatchObject({ status: "resolved", runCount: 3, regressedAt: null })
      yield* runWith(stores, "b4", T0 + 300, [versioned], { labels: { version: "1.2" } })
      expect(yield* problemOf(stores, versioned.fingerprint)).toMatchObject({ status: "regressed", runCount: 4, regressedAt: T0 + 300 })
      // reopened: open, the resolution gone
      expect(yield* recordOf(yield* stores.problems.setStatus("shared", q.id, "open", null, T0 + 400))).toMatchObject({
        status: "open",
        resolvedAt: null,
        resolvedInVersion: null
      })

      // ignored: runs still count, the status stays, no alert (not even a severity crossing it)
      const quiet = finding("quiet", "medium")
      yield* runWith(stores, "c1", T0, [quiet])
      const r = yield* problemOf(stores, quiet.fingerprint)
      expect(yield* recordOf(yield* stores.problems.setStatus("shared", r.id, "ignored", null, T0 + 100))).toMatchObject({ status: "ignored" })
      yield* runWith(stores, "c2", T0 + 200, [finding("quiet", "critical")])
      yield* runWith(stores, "c3", T0 + 300, [quiet])
      expect(yield* problemOf(stores, quiet.fingerprint)).toMatchObject({ status: "ignored", runCount: 3, severity: "critical", lastSeen: T0 + 300 })
      expect((yield* allDeliveries(stores)).filter((row) => row.problemId === r.id)).toEqual([])
      expect(yield* recordOf(yield* stores.problems.setStatus("shared", r.id, "open", null, T0 + 400))).toMatchObject({ status: "open" })
      expect((yield* stores.problems.list("shared", { status: "ignored" }, 10, null)).problems).toEqual([])
      // an unknown problem
      expect(yield* stores.problems.setStatus("shared", "prb_unknown", "resolved", null, T0)).toEqual(Option.none())
    }))

  it.scoped("keeps the highest severity and writes the outbox: new at or above the threshold, a crossing, run.failed, a regression at most once a day, per scope", () =>
    Effect.gen(function*() {
      const stores = yield* open(HOOKS_BY_SCOPE)
      // below the threshold: a problem, no alert
      const rising = finding("rising", "medium")
      yield* runWith(stores, "r1", T0, [rising])
      const p = yield* problemOf(stores, rising.fingerprint)
      expect(yield* allDeliveries(stores)).toEqual([])
      // crossing it: one problem.severity per webhook
      yield* runWith(stores, "r2", T0 + 1_000, [finding("rising", "high")])
      let rows = yield* allDeliveries(stores)
      expect(ofEvent(rows, "problem.severity", p.id).map((row) => row.url).sort()).toEqual([HOOK, HOOK_2])
      expect(ofEvent(rows, "problem.severity")[0]).toMatchObject({ runId: "r2", state: "pending", attempts: 0, createdAt: T0 + 1_000, nextAt: T0 + 1_000 })
      // higher still, already above: no second crossing; a lower run lowers nothing
      yield* runWith(stores, "r3", T0 + 2_000, [finding("rising", "critical")])
      yield* runWith(stores, "r4", T0 + 3_000, [finding("rising", "low")])
      expect(yield* problemOf(stores, rising.fingerprint)).toMatchObject({ severity: "critical", runCount: 4 })
      rows = yield* allDeliveries(stores)
      expect(rows).toHaveLength(2)

      // a new problem at the threshold: one problem.new per webhook
      const loud = finding("loud", "high")
      yield* runWith(stores, "r5", T0 + 4_000, [loud])
      const l = yield* problemOf(stores, loud.fingerprint)
      rows = yield* allDeliveries(stores)
      expect(ofEvent(rows, "problem.new").map((row) => [row.problemId, row.url]).sort()).toEqual([[l.id, HOOK], [l.id, HOOK_2]])
      expect(ofEvent(rows, "problem.new", p.id)).toEqual([])

      // a failed run: run.failed per webhook
      yield* failedRun(stores, "r6", T0 + 5_000)
      rows = yield* allDeliveries(stores)
      expect(ofEvent(rows, "run.failed").map((row) => [row.runId, row.problemId, row.url]).sort()).toEqual([["r6", null, HOOK], ["r6", null, HOOK_2]])

      // regressions: at most one alert per problem per 24 h
      const t1 = T0 + 10 * DAY
      yield* stores.problems.setStatus("shared", p.id, "resolved", null, t1 - 1_000)
      yield* runWith(stores, "g1", t1, [rising])
      yield* stores.problems.setStatus("shared", p.id, "resolved", null, t1 + 1_000)
      yield* runWith(stores, "g2", t1 + HOUR, [rising])
      expect(yield* problemOf(stores, rising.fingerprint)).toMatchObject({ status: "regressed", regressedAt: t1 + HOUR })
      rows = yield* allDeliveries(stores)
      expect(ofEvent(rows, "problem.regressed", p.id).map((row) => [row.runId, row.url]).sort()).toEqual([["g1", HOOK], ["g1", HOOK_2]])
      yield* stores.problems.setStatus("shared", p.id, "resolved", null, t1 + HOUR + 1_000)
      yield* runWith(stores, "g3", t1 + DAY + 1_000, [rising])
      rows = yield* allDeliveries(stores)
      expect(ofEvent(rows, "problem.regressed", p.id).map((row) => [row.runId, row.url]).sort()).toEqual([["g1", HOOK], ["g1", HOOK_2], ["g3", HOOK], ["g3", HOOK_2]])
      // a body is the Slack-compatible JSON with the problem and its links
      const [regressed] = yield* stores.problems.claimDeliveries("reader", t1 + DAY + 1_000, 1_000, 100).pipe(
        Effect.map((due) => due.filter((row) => ofEvent(rows, "problem.regressed").some((each) => each.id === row.id && each.runId === "g3")))
      )
      const body: unknown = JSON.parse(regressed?.body ?? "null")
      expect(body).toMatchObject({
        event: "problem.regressed",
        text: expect.stringContaining("Problem regressed"),
        problem: { id: p.id, status: "regressed", url: `https://svc.example/v1/problems/${p.id}` },
        run: { id: "g3" }
      })

      // another scope: its own webhook only, nothing of the shared scope's
      expect(yield* allDeliveries(stores, "key:bob")).toEqual([])
      yield* runWith(stores, "bob1", T0 + 6_000, [loud], { scope: "key:bob" })
      const bobRows = yield* allDeliveries(stores, "key:bob")
      expect(bobRows.map((row) => [row.event, row.url])).toEqual([["problem.new", BOB_HOOK]])
      expect(bobRows[0]?.problemId).not.toBe(l.id)
      expect((yield* allDeliveries(stores)).filter((row) => row.url === BOB_HOOK || row.runId === "bob1")).toEqual([])
    }))

  it.scoped("merges a problem into another (runs, counts, days, labels; its id and fingerprint follow) and detaches a run into a problem of its own", () =>
    Effect.gen(function*() {
      const stores = yield* open()
      const a = finding("first wording")
      const b = finding("second wording", "critical", { pattern: "johari" })
      yield* runWith(stores, "r1", T0, [a], { labels: { version: "1" } })
      yield* runWith(stores, "r2", T0 + DAY, [b], { labels: { version: "2" } })
      yield* runWith(stores, "r3", T0 + DAY + 1, [a], { labels: { version: "1" } })
      const pa = yield* problemOf(stores, a.fingerprint)
      const pb = yield* problemOf(stores, b.fingerprint)
      expect([pa.runCount, pb.runCount]).toEqual([2, 1])

      const merged = yield* stores.problems.merge("shared", pb.id, pa.id, T0 + 2 * DAY)
      expect(merged._tag).toBe("Merged")
      if (merged._tag !== "Merged") return
      expect(merged.problem).toMatchObject({ id: pa.id, runCount: 3, severity: "critical", firstSeen: T0, lastSeen: T0 + DAY + 1, patterns: ["johari", "lewin"] })
      const listed = yield* stores.problems.list("shared", {}, 10, null)
      expect(listed.problems.map((each) => each.id)).toEqual([pa.id])
      // the source's id resolves to the target
      const viaSource = yield* detailOf(stores, pb.id)
      expect(viaSource.id).toBe(pa.id)
      expect(viaSource.fingerprints).toEqual([a.fingerprint, b.fingerprint].sort())
      expect(daysOf(viaSource)).toEqual({ [dayOf(T0)]: 1, [dayOf(T0 + DAY)]: 2 })
      expect(viaSource.labels).toEqual([{ key: "version", value: "1", runs: 2 }, { key: "version", value: "2", runs: 1 }])
      expect(viaSource.examples.map((example) => example.runId).sort()).toEqual(["r1", "r2", "r3"])
      expect((yield* stores.problems.ofRun("shared", "r2")).map((each) => each.id)).toEqual([pa.id])
      expect((yield* stores.problems.list("shared", { pattern: "johari" }, 10, null)).problems.map((each) => each.id)).toEqual([pa.id])
      // future runs of the source's fingerprint join the target
      yield* runWith(stores, "r4", T0 + 2 * DAY, [b], { labels: { version: "2" } })
      expect((yield* stores.problems.ofRun("shared", "r4")).map((each) => each.id)).toEqual([pa.id])
      expect((yield* stores.problems.list("shared", {}, 10, null)).problems.map((each) => [each.id, each.runCount])).toEqual([[pa.id, 4]])
      // into itself (or its own merged source): Same; unknown: NotFound
      expect(yield* stores.problems.merge("shared", pa.id, pa.id, T0)).toEqual({ _tag: "Same" })
      expect(yield* stores.problems.merge("shared", pb.id, pa.id, T0)).toEqual({ _tag: "Same" })
      expect(yield* stores.problems.merge("shared", pa.id, "prb_unknown", T0)).toEqual({ _tag: "NotFound", id: "prb_unknown" })
      expect(yield* stores.problems.merge("shared", "prb_unknown", pa.id, T0)).toEqual({ _tag: "NotFound", id: "prb_unknown" })
      expect(yield* stores.problems.merge("key:bob", pa.id, pa.id, T0)).toEqual({ _tag: "NotFound", id: pa.id })

      // detach r2 (fingerprint b): a new problem of its own; the counts move
      const detached = yield* recordOf(yield* stores.problems.detach("shared", pa.id, "r2", T0 + 3 * DAY))
      expect(detached.id).not.toBe(pa.id)
      expect(detached).toMatchObject({ fingerprint: b.fingerprint, runCount: 1, status: "open", severity: "critical", firstSeen: T0 + DAY, lastSeen: T0 + DAY })
      const target = yield* detailOf(stores, pa.id)
      expect(target.runCount).toBe(3)
      expect(daysOf(target)).toEqual({ [dayOf(T0)]: 1, [dayOf(T0 + DAY)]: 1, [dayOf(T0 + 2 * DAY)]: 1 })
      expect(target.examples.map((example) => example.runId).sort()).toEqual(["r1", "r3", "r4"])
      expect(daysOf(yield* detailOf(stores, detached.id))).toEqual({ [dayOf(T0 + DAY)]: 1 })
      expect((yield* stores.problems.ofRun("shared", "r2")).map((each) => each.id)).toEqual([detached.id])
      // a future run of that fingerprint joins the new problem
      yield* runWith(stores, "r5", T0 + 4 * DAY, [b])
      expect((yield* stores.problems.ofRun("shared", "r5")).map((each) => each.id)).toEqual([detached.id])
      expect((yield* detailOf(stores, detached.id)).runCount).toBe(2)
      expect((yield* detailOf(stores, pa.id)).runCount).toBe(3)
      // a run not in the problem, or a problem not of the scope: nothing
      expect(yield* stores.problems.detach("shared", pa.id, "r5", T0)).toEqual(Option.none())
      expect(yield* stores.problems.detach("key:bob", pa.id, "r1", T0)).toEqual(Option.none())
    }))

  it.scoped("counts a run once when two problems it joined are merged (Problems count runs)", () =>
    Effect.gen(function*() {
      const stores = yield* open()
      const a = finding("one wording")
      const b = finding("another wording")
      // one run with both findings: two problems of one run each
      yield* runWith(stores, "r1", T0, [a, b])
      const pa = yield* problemOf(stores, a.fingerprint)
      const pb = yield* problemOf(stores, b.fingerprint)
      const merged = yield* stores.problems.merge("shared", pb.id, pa.id, T0 + 1_000)
      expect(merged._tag).toBe("Merged")
      const detail = yield* detailOf(stores, pa.id)
      expect(detail.examples.map((example) => example.runId)).toEqual(["r1"])
      // one run in both problems counts once in the merged one: its run_count and its day
      expect({ runCount: detail.runCount, dayRuns: sum(detail.days.map((day) => day.runs)) }).toEqual({ runCount: 1, dayRuns: 1 })
    }))

  it.scoped("moves a detached run's label counts with it (labels and compare follow the run)", () =>
    Effect.gen(function*() {
      const stores = yield* open()
      const a = finding("detached labels")
      yield* runWith(stores, "r1", T0, [a], { labels: { version: "1" } })
      yield* runWith(stores, "r2", T0 + 1_000, [a], { labels: { version: "2" } })
      const p = yield* problemOf(stores, a.fingerprint)
      const detached = yield* recordOf(yield* stores.problems.detach("shared", p.id, "r2", T0 + 2_000))
      // the run counts and days moved (checked in the merge/detach test); its labels should have too
      const rows = (yield* stores.problems.compare("shared", "version", "1", "2", 10)).rows
      // the source keeps version=1 alone, the new problem has version=2, and compare counts each where it is
      expect({
        source: (yield* detailOf(stores, p.id)).labels,
        detached: (yield* detailOf(stores, detached.id)).labels,
        compare: rows.map((row) => [row.problem.id === p.id ? "source" : "detached", row.a, row.b]).sort()
      }).toEqual({
        source: [{ key: "version", value: "1", runs: 1 }],
        detached: [{ key: "version", value: "2", runs: 1 }],
        compare: [["detached", 0, 1], ["source", 1, 0]]
      })
    }))

  it.scoped("keeps the per-day counts and run_count when a run is deleted or purged; its example and quotes leave", () =>
    Effect.gen(function*() {
      const stores = yield* open()
      const quoted = (id: string) => finding("kept", "high", { quote: `secret quote of ${id}` })
      yield* runWith(stores, "r1", T0, [quoted("r1")])
      yield* runWith(stores, "r2", T0 + 1_000, [quoted("r2")])
      yield* runWith(stores, "r3", T0 + DAY, [quoted("r3")])
      const p = yield* problemOf(stores, quoted("r1").fingerprint)
      expect(yield* stores.runs.remove("key:bob", "r1")).toBeUndefined()
      expect(yield* stores.runs.remove("shared", "r1")).toEqual([])
      let detail = yield* detailOf(stores, p.id)
      expect(detail.runCount).toBe(3)
      expect(daysOf(detail)).toEqual({ [dayOf(T0)]: 2, [dayOf(T0 + DAY)]: 1 })
      expect(detail.examples.map((example) => example.runId)).toEqual(["r3", "r2"])
      expect(JSON.stringify(detail)).not.toContain("secret quote of r1")
      expect(yield* stores.problems.ofRun("shared", "r1")).toEqual([])
      // purged: r2 finished before the cutoff, r3 not
      expect((yield* stores.runs.purge(T0 + DAY)).map((run) => run.id)).toEqual(["r2"])
      detail = yield* detailOf(stores, p.id)
      expect(detail.runCount).toBe(3)
      expect(daysOf(detail)).toEqual({ [dayOf(T0)]: 2, [dayOf(T0 + DAY)]: 1 })
      expect(detail.examples.map((example) => example.runId)).toEqual(["r3"])
      expect(JSON.stringify(detail)).not.toContain("secret quote of r2")
      expect(yield* problemOf(stores, quoted("r1").fingerprint)).toMatchObject({ runCount: 3 })
    }))

  it.scoped("compares two values of a label: traces, diagnosed and sampled out per side (skipped runs included), runs per problem", () =>
    Effect.gen(function*() {
      const stores = yield* open()
      const f = finding("compared f")
      const g = finding("compared g", "medium")
      yield* runWith(stores, "a1", T0, [f], { labels: { version: "a" } })
      yield* runWith(stores, "a2", T0 + 1, [f, g], { labels: { version: "a", team: "x" } })
      yield* runWith(stores, "a3", T0 + 2, [], { labels: { version: "a" } })
      yield* stores.runs.submit(newRun("a4", { labels: { version: "a" }, skipped: "sampled_out", submittedAt: T0 + 3 }))
      yield* runWith(stores, "b1", T0 + 4, [g], { labels: { version: "b" } })
      yield* stores.runs.submit(newRun("b2", { labels: { version: "b" }, skipped: "sampled_out", submittedAt: T0 + 5 }))
      yield* stores.runs.submit(newRun("b3", { labels: { version: "b" }, skipped: "sampled_out", submittedAt: T0 + 6 }))
      yield* failedRun(stores, "b4", T0 + 7, { labels: { version: "b" } })
      yield* runWith(stores, "c1", T0 + 8, [f, g], { labels: { version: "c" } })
      // another scope's runs of version a count nowhere here
      yield* runWith(stores, "bob1", T0 + 9, [f], { labels: { version: "a" }, scope: "key:bob" })
      const pf = yield* problemOf(stores, f.fingerprint)
      const pg = yield* problemOf(stores, g.fingerprint)
      const compared = yield* stores.problems.compare("shared", "version", "a", "b", 10)
      expect(compared.a).toEqual({ value: "a", traces: 4, diagnosed: 3, sampledOut: 1 })
      expect(compared.b).toEqual({ value: "b", traces: 4, diagnosed: 1, sampledOut: 2 })
      expect(compared.rows.map((row) => [row.problem.id, row.a, row.b])).toEqual([[pf.id, 2, 0], [pg.id, 1, 1]])
      expect((yield* stores.problems.compare("shared", "version", "a", "b", 1)).rows).toHaveLength(1)
      expect(yield* stores.problems.compare("shared", "version", "x", "y", 10)).toEqual({
        a: { value: "x", traces: 0, diagnosed: 0, sampledOut: 0 },
        b: { value: "y", traces: 0, diagnosed: 0, sampledOut: 0 },
        rows: []
      })
    }))

  it.scoped("digests the last 7 UTC days: new, regressed, recurring, runs finished and tokens", () =>
    Effect.gen(function*() {
      const stores = yield* open()
      const now = Date.UTC(2026, 2, 20, 15, 0, 0)
      const old = finding("old one")
      const fresh = finding("fresh one", "critical")
      const back = finding("came back", "medium")
      // before the window (the 14th, 00:00 UTC, starts it)
      yield* runWith(stores, "o1", now - 10 * DAY, [old], { tokens: 1_000 })
      yield* runWith(stores, "k1", now - 20 * DAY, [back], { tokens: 1_000 })
      const regressing = yield* problemOf(stores, back.fingerprint)
      yield* stores.problems.setStatus("shared", regressing.id, "resolved", null, now - 15 * DAY)
      // in it
      yield* runWith(stores, "o2", now - 2 * DAY, [old], { tokens: 100 })
      yield* runWith(stores, "o3", now - DAY, [old], { tokens: 200 })
      yield* runWith(stores, "n1", now - 3 * DAY, [fresh], { tokens: 50 })
      yield* runWith(stores, "n2", now - HOUR, [fresh], { tokens: 50 })
      yield* runWith(stores, "k2", now - 2 * DAY, [back], { tokens: 25 })
      yield* failedRun(stores, "x1", now - 4 * DAY)
      yield* runWith(stores, "e1", Date.UTC(2026, 2, 14, 0, 0, 0), [], { tokens: 5 })
      yield* runWith(stores, "e0", Date.UTC(2026, 2, 13, 23, 59, 59), [], { tokens: 7 })
      yield* runWith(stores, "bob1", now - HOUR, [old], { tokens: 9_999, scope: "key:bob" })
      const oldProblem = yield* problemOf(stores, old.fingerprint)
      const freshProblem = yield* problemOf(stores, fresh.fingerprint)

      const digest = yield* stores.problems.digest("shared", now)
      expect(digest.since).toBe(Date.UTC(2026, 2, 14, 0, 0, 0))
      expect(digest.until).toBe(now)
      expect(digest.created.map((problem) => problem.id)).toEqual([freshProblem.id])
      expect(digest.regressed.map((problem) => problem.id)).toEqual([regressing.id])
      expect(new Map(digest.recurring.map((entry) => [entry.problem.id, entry.runs]))).toEqual(
        new Map([[oldProblem.id, 2], [freshProblem.id, 2], [regressing.id, 1]])
      )
      // o2, o3, n1, n2, k2, x1 (failed) and e1 (on the window's first instant)
      expect(digest.runs).toBe(7)
      expect(digest.tokens).toBe(100 + 200 + 50 + 50 + 25 + 5)
      const empty = yield* stores.problems.digest("key:nobody", now)
      expect(empty).toMatchObject({ created: [], regressed: [], recurring: [], runs: 0, tokens: 0 })
    }))

  it.scoped("lists by status, severity, pattern, label and time, a page at a time; another scope sees none", () =>
    Effect.gen(function*() {
      const stores = yield* open()
      const p1 = finding("p1", "high")
      const p2 = finding("p2", "low", { pattern: "johari" })
      const p3 = finding("p3", "medium")
      const p4 = finding("p4", "medium")
      const p5 = finding("p5", "critical", { pattern: "johari" })
      yield* runWith(stores, "r1", T0, [p1], { labels: { team: "pay" } })
      yield* runWith(stores, "r2", T0 + 1_000, [p2], { labels: { team: "ops" } })
      yield* runWith(stores, "r3", T0 + 2_000, [p3], { labels: { team: "ops" } })
      yield* runWith(stores, "r4", T0 + 3_000, [p4])
      yield* runWith(stores, "r5", T0 + 4_000, [p5], { labels: { team: "pay" } })
      const ids = new Map<string, string>()
      for (const [name, each] of [["p1", p1], ["p2", p2], ["p3", p3], ["p4", p4], ["p5", p5]] satisfies Array<[string, ProblemFinding]>) {
        ids.set(name, (yield* problemOf(stores, each.fingerprint)).id)
      }
      yield* stores.problems.setStatus("shared", ids.get("p2") ?? "", "resolved", null, T0 + 5_000)
      const names = (filter: ProblemFilter) =>
        Effect.map(stores.problems.list("shared", filter, 100, null), (page) => page.problems.map((problem) => Array.from(ids).find(([, id]) => id === problem.id)?.[0] ?? problem.id))
      expect(yield* names({})).toEqual(["p5", "p4", "p3", "p2", "p1"])
      expect(yield* names({ status: "resolved" })).toEqual(["p2"])
      expect(yield* names({ status: "open" })).toEqual(["p5", "p4", "p3", "p1"])
      expect(yield* names({ status: "regressed" })).toEqual([])
      expect(yield* names({ severity: "medium" })).toEqual(["p4", "p3"])
      expect(yield* names({ severity: "critical" })).toEqual(["p5"])
      expect(yield* names({ pattern: "johari" })).toEqual(["p5", "p2"])
      expect(yield* names({ pattern: "lew" })).toEqual([])
      expect(yield* names({ label: ["team", "ops"] })).toEqual(["p3", "p2"])
      expect(yield* names({ label: ["team", "nobody"] })).toEqual([])
      expect(yield* names({ since: T0 + 1_000, until: T0 + 3_000 })).toEqual(["p3", "p2"])
      expect(yield* names({ since: T0 + 4_001 })).toEqual([])
      expect(yield* names({ pattern: "lewin", label: ["team", "pay"], status: "open", severity: "high", until: T0 + 1 })).toEqual(["p1"])
      // pages of two, with an opaque cursor that names no scope
      const seen: Array<string> = []
      let cursor: string | null = null
      for (let page = 0; page < 5; page++) {
        const listed: { readonly problems: ReadonlyArray<ProblemRecord>; readonly nextCursor: string | null } = yield* stores.problems.list("shared", {}, 2, cursor)
        seen.push(...listed.problems.map((problem) => problem.id))
        cursor = listed.nextCursor
        if (cursor === null) break
        expect(Buffer.from(cursor, "base64url").toString()).not.toContain("shared")
      }
      expect(seen).toEqual(["p5", "p4", "p3", "p2", "p1"].map((name) => ids.get(name)))
      const filtered = yield* stores.problems.list("shared", { pattern: "lewin" }, 2, null)
      expect((yield* stores.problems.list("shared", { pattern: "lewin" }, 2, filtered.nextCursor)).problems.map((problem) => problem.id)).toEqual([ids.get("p1")])
      // another scope: nothing of these
      const p1Id = ids.get("p1") ?? ""
      expect(yield* stores.problems.list("key:bob", {}, 100, null)).toEqual({ problems: [], nextCursor: null })
      expect(yield* stores.problems.get("key:bob", p1Id)).toEqual(Option.none())
      expect(yield* stores.problems.ofRun("key:bob", "r1")).toEqual([])
      expect(yield* stores.problems.setStatus("key:bob", p1Id, "ignored", null, T0)).toEqual(Option.none())
      expect(yield* stores.problems.compare("key:bob", "team", "pay", "ops", 10)).toMatchObject({ rows: [] })
      // the same failure in another scope is another problem
      yield* runWith(stores, "bob1", T0 + 6_000, [p1], { scope: "key:bob" })
      const bobs = (yield* stores.problems.list("key:bob", {}, 100, null)).problems
      expect(bobs).toHaveLength(1)
      expect(bobs[0]?.id).not.toBe(p1Id)
      expect((yield* problemOf(stores, p1.fingerprint)).runCount).toBe(1)
    }))

  it.scoped("leases outbox rows to a deliverer, records attempts (delivered, retried, given up), and releases leases", () =>
    Effect.gen(function*() {
      const stores = yield* open(ALERTS)
      for (const id of ["f1", "f2", "f3"]) yield* failedRun(stores, id, T0)
      const rows = yield* allDeliveries(stores)
      expect(rows.map((row) => [row.event, row.runId, row.state]).sort()).toEqual([
        ["run.failed", "f1", "pending"],
        ["run.failed", "f2", "pending"],
        ["run.failed", "f3", "pending"]
      ])
      // not due before its time
      expect(yield* stores.problems.claimDeliveries("d1", T0 - 1, 30_000, 10)).toEqual([])
      const claimed = yield* stores.problems.claimDeliveries("d1", T0 + 10, 30_000, 10)
      expect(claimed.map((row) => row.url)).toEqual([HOOK, HOOK, HOOK])
      for (const row of claimed) {
        const body: unknown = JSON.parse(row.body)
        expect(row.attempts).toBe(0)
        expect(body).toMatchObject({ event: "run.failed", text: expect.stringMatching(/^Run failed: provider_error/) })
      }
      // held: a second claim gets none until the lease lapses
      expect(yield* stores.problems.claimDeliveries("d2", T0 + 20, 30_000, 10)).toEqual([])
      expect((yield* allDeliveries(stores)).every((row) => row.state === "delivering")).toBe(true)
      const byRun = (runId: string) => {
        const id = rows.find((row) => row.runId === runId)?.id
        return id === undefined ? Effect.dieMessage(`no row of ${runId}`) : Effect.succeed(id)
      }
      const [d1, d2, d3] = [yield* byRun("f1"), yield* byRun("f2"), yield* byRun("f3")]
      yield* stores.problems.recordAttempt(d1, "d1", T0 + 100, { delivered: true, status: 204, error: null, nextAt: null })
      yield* stores.problems.recordAttempt(d2, "d1", T0 + 100, { delivered: false, status: 503, error: "HTTP 503", nextAt: T0 + 60_000 })
      // another owner's attempt is not recorded
      yield* stores.problems.recordAttempt(d3, "d2", T0 + 100, { delivered: true, status: 200, error: null, nextAt: null })
      yield* stores.problems.recordAttempt(d3, "d1", T0 + 100, { delivered: false, status: null, error: "connection refused", nextAt: null })
      const after = new Map((yield* allDeliveries(stores)).map((row) => [row.id, row]))
      expect(after.get(d1)).toMatchObject({ state: "delivered", attempts: 1, lastStatus: 204, lastError: null, deliveredAt: T0 + 100 })
      expect(after.get(d2)).toMatchObject({ state: "pending", attempts: 1, lastStatus: 503, lastError: "HTTP 503", nextAt: T0 + 60_000, deliveredAt: null })
      expect(after.get(d3)).toMatchObject({ state: "failed", attempts: 1, lastStatus: null, lastError: "connection refused", deliveredAt: null })
      // the retry is due at its time, only it
      expect(yield* stores.problems.claimDeliveries("d1", T0 + 59_999, 30_000, 10)).toEqual([])
      expect((yield* stores.problems.claimDeliveries("d1", T0 + 60_000, 30_000, 10)).map((row) => [row.id, row.attempts])).toEqual([[d2, 1]])
      // d1 dies: the lease lapses and d2 takes the row
      expect(yield* stores.problems.claimDeliveries("d2", T0 + 90_000, 30_000, 10)).toEqual([])
      expect((yield* stores.problems.claimDeliveries("d2", T0 + 90_001, 30_000, 10)).map((row) => row.id)).toEqual([d2])
      // d1 comes back: its attempt is not recorded
      yield* stores.problems.recordAttempt(d2, "d1", T0 + 90_002, { delivered: true, status: 200, error: null, nextAt: null })
      // the lapsed lease's call counted as an attempt when d2 took the row
      expect((yield* allDeliveries(stores)).find((row) => row.id === d2)).toMatchObject({ state: "delivering", attempts: 2 })
      // at start: every lease back to pending
      expect(yield* stores.problems.releaseDeliveries).toBe(1)
      // the call in flight counts too
      expect((yield* allDeliveries(stores)).find((row) => row.id === d2)).toMatchObject({ state: "pending", attempts: 3 })
      expect(yield* stores.problems.releaseDeliveries).toBe(0)
      const again = yield* stores.problems.claimDeliveries("d3", T0 + 90_003, 30_000, 1)
      expect(again.map((row) => row.id)).toEqual([d2])
      // the page, newest first, with a cursor
      const first = yield* stores.problems.deliveries("shared", 2, null)
      expect(first.deliveries).toHaveLength(2)
      expect(first.nextCursor).not.toBeNull()
      const second = yield* stores.problems.deliveries("shared", 2, first.nextCursor)
      expect(second.nextCursor).toBeNull()
      expect([...first.deliveries, ...second.deliveries].map((row) => row.id).sort()).toEqual([d1, d2, d3].sort())
    }))

  it.scoped("keeps a run's verdicts (run.evaluation) in the outbox as their own stream: each deliverer claims only its stream's rows", () =>
    Effect.gen(function*() {
      const stores = yield* open(ALERTS)
      yield* failedRun(stores, "f1", T0)
      const body = JSON.stringify({ resourceLogs: [] })
      for (const id of ["e1", "e2"]) yield* stores.problems.evaluation("shared", id, T0, { url: "http://collector.test/v1/logs", body })
      const rows = yield* allDeliveries(stores)
      expect(rows.map((row) => [row.event, row.runId]).sort()).toEqual([["run.evaluation", "e1"], ["run.evaluation", "e2"], ["run.failed", "f1"]])
      const evaluations = yield* stores.problems.claimDeliveries("v", T0 + 1, 30_000, 10, "evaluations")
      expect(evaluations.map((row) => [row.event, row.url, row.body])).toEqual([
        ["run.evaluation", "http://collector.test/v1/logs", body],
        ["run.evaluation", "http://collector.test/v1/logs", body]
      ])
      expect(yield* stores.problems.claimDeliveries("v", T0 + 1, 30_000, 10, "evaluations")).toEqual([])
      const alerts = yield* stores.problems.claimDeliveries("a", T0 + 1, 30_000, 10, "alerts")
      expect(alerts.map((row) => [row.event, row.url])).toEqual([["run.failed", HOOK]])
    }))
})

/**
 * The plans of `ProblemStore.list` per filter. The SQL is the store's own: the list is run with a
 * statement transformer that records the compiled text and parameters, and that text is then
 * explained with them (so a change to the list's query is what gets checked). The tables hold a
 * few thousand problems over a few scopes, ANALYZEd; PostgreSQL's plan is taken with
 * `enable_seqscan = off`, so it checks that an index CAN serve each filter (not that the planner
 * prefers it at every size). A plan passes when no table of it is read without an index (SQLite:
 * no `SCAN <table>` line without `USING … INDEX`; PostgreSQL: no `Seq Scan`), and the filter's own
 * table is read through one of its indexes.
 */
interface Captured {
  readonly text: string
  readonly params: ReadonlyArray<unknown>
}

/** The SQL of the last statement `effect` ran. */
const capturing = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.suspend(() => {
    let captured: Captured | undefined
    return effect.pipe(
      Statement.withTransformer((statement) => {
        const [text, params] = statement.compile()
        captured = { text, params }
        return Effect.succeed(statement)
      }),
      Effect.flatMap(() => (captured === undefined ? Effect.dieMessage("no statement ran") : Effect.succeed(captured)))
    )
  })

const SCOPES = ["shared", "key:bob", "key:carol"]
const STATUSES = ["open", "open", "open", "resolved", "ignored", "regressed"]
const SEVERITIES: ReadonlyArray<Severity> = ["low", "medium", "high", "critical"]
const PATTERNS = ["lewin", "johari", "ooda", "cynefin", "raci", "five_whys", "swiss_cheese", "kano"]

/** `count` problems over three scopes, with patterns and labels, straight into the tables. */
const seedProblems = (sql: SqlClient.SqlClient, count: number): Effect.Effect<void, SqlError.SqlError> =>
  Effect.gen(function*() {
    const problems = Array.from({ length: count }, (_, i) => ({
      id: `prb_seed_${String(i).padStart(6, "0")}`,
      scope: SCOPES[i % SCOPES.length] ?? "shared",
      fingerprint: `fp_${i}`,
      title: `problem ${i}`,
      normalized_title: "problem",
      cites: "message",
      playbook: null,
      patterns: `,${PATTERNS[i % PATTERNS.length] ?? "lewin"},`,
      severity: SEVERITIES[i % SEVERITIES.length] ?? "low",
      severity_rank: (i % SEVERITIES.length) + 1,
      status: STATUSES[i % STATUSES.length] ?? "open",
      run_count: 1,
      first_seen: T0 + i * 1_000,
      last_seen: T0 + i * 1_000,
      merged_into: i % 50 === 0 ? `prb_seed_${String(i + 1).padStart(6, "0")}` : null
    }))
    for (let start = 0; start < problems.length; start += 400) {
      const chunk = problems.slice(start, start + 400)
      yield* sql`INSERT INTO problems ${sql.insert(chunk)}`
      yield* sql`INSERT INTO problem_patterns ${sql.insert(chunk.map((problem) => ({ problem_id: problem.id, scope: problem.scope, pattern: problem.patterns.slice(1, -1) })))}`
      yield* sql`INSERT INTO problem_labels ${
        sql.insert(chunk.flatMap((problem, offset) => [
          { problem_id: problem.id, scope: problem.scope, label_key: "version", label_value: `1.${(start + offset) % 40}`, runs: 1, first_seen: problem.first_seen, last_seen: problem.last_seen },
          { problem_id: problem.id, scope: problem.scope, label_key: "team", label_value: `team-${(start + offset) % 7}`, runs: 1, first_seen: problem.first_seen, last_seen: problem.last_seen }
        ]))
      }`
    }
    yield* sql`ANALYZE`
  })

const FILTERS: ReadonlyArray<{ readonly name: string; readonly filter: ProblemFilter; readonly table: string; readonly index: RegExp }> = [
  { name: "none", filter: {}, table: "problems", index: /problems_by_scope/ },
  { name: "status", filter: { status: "resolved" }, table: "problems", index: /problems_by_status/ },
  { name: "severity", filter: { severity: "critical" }, table: "problems", index: /problems_by_severity/ },
  { name: "pattern", filter: { pattern: "ooda" }, table: "problem_patterns", index: /problem_patterns_by_pattern|problem_patterns_pkey|sqlite_autoindex_problem_patterns/ },
  { name: "label", filter: { label: ["version", "1.7"] }, table: "problem_labels", index: /problem_labels_by_value|problem_labels_pkey|sqlite_autoindex_problem_labels/ },
  { name: "since/until", filter: { since: T0 + 1_000_000, until: T0 + 1_200_000 }, table: "problems", index: /problems_by_scope/ }
]

const planLines = (rows: ReadonlyArray<unknown>, column: string): Array<string> =>
  rows.flatMap((row) => (typeof row === "object" && row !== null && column in row ? [String(Object.entries(row).find(([key]) => key === column)?.[1])] : []))

describe.each(DIALECTS)("the problems list's plans on $name", ({ open, postgres }) => {
  it.scoped("reads every list filter through an index", () =>
    Effect.gen(function*() {
      const stores = yield* open()
      yield* seedProblems(stores.sql, 3_000)
      if (postgres) yield* stores.sql`SET enable_seqscan = off`
      const report: Array<string> = []
      for (const { name, filter, table, index } of FILTERS) {
        const { text, params } = yield* capturing(stores.problems.list("shared", filter, 50, null))
        const plan = postgres
          ? planLines(yield* stores.sql.unsafe(`EXPLAIN ${text}`, params), "QUERY PLAN")
          : planLines(yield* stores.sql.unsafe(`EXPLAIN QUERY PLAN ${text}`, params), "detail")
        report.push(`${name}:\n  ${plan.join("\n  ")}`)
        const unindexed = postgres
          ? plan.filter((line) => /Seq Scan/.test(line))
          : plan.filter((line) => /^SCAN \w+/.test(line) && !/USING (COVERING )?INDEX/.test(line))
        expect({ filter: name, unindexed }).toEqual({ filter: name, unindexed: [] })
        const onTable = postgres
          ? plan.filter((line) => new RegExp(`Index (Only )?Scan( Backward)? using \\w+ on ${table}\\b|Bitmap Index Scan on ${table}_`).test(line))
          : plan.filter((line) => new RegExp(`^(SEARCH|SCAN) ${table === "problems" ? "p" : table === "problem_patterns" ? "pp" : "pl"} USING`).test(line))
        expect({ filter: name, indexed: onTable.some((line) => index.test(line)), plan }).toMatchObject({ filter: name, indexed: true })
      }
      // the plans, for the record (vitest prints a test's console output only on failure or with --reporter=verbose)
      console.log(`list plans (${postgres ? "PostgreSQL" : "SQLite"}):\n${report.join("\n")}`)
      // the seeded rows are there: the filters find something
      expect((yield* stores.problems.list("shared", { pattern: "ooda" }, 5, null)).problems.length).toBeGreaterThan(0)
    }))
})

describe("the problems store with replicas (PostgreSQL)", () => {
  it.scoped("three stores finishing 60 runs of one failure at once make one problem per fingerprint, every run counted once", () =>
    Effect.gen(function*() {
      const url = yield* postgresUrl
      const replicas = [yield* openPostgresStores(url, ALERTS), yield* openPostgresStores(url, ALERTS), yield* openPostgresStores(url, ALERTS)]
      const shared = finding("replicated", "high")
      const second = finding("also replicated", "medium", { pattern: "johari" })
      const ids = Array.from({ length: 60 }, (_, i) => `run-${String(i).padStart(2, "0")}`)
      const at = (i: number) => T0 + i
      // every run submitted and claimed first (each replica claims its third), so the finishes all race
      for (const [i, id] of ids.entries()) {
        const replica = replicas[i % 3]
        if (replica === undefined) return yield* Effect.dieMessage("no replica")
        yield* replica.runs.submit(newRun(id, { submittedAt: at(i), labels: { version: `v${i % 4}` } }))
        const claimed = yield* replica.runs.claim(`replica-${i % 3}`, at(i), 10 * LEASE)
        expect(Option.map(claimed, (run) => run.id)).toEqual(Option.some(id))
      }
      const finished = yield* Effect.all(
        ids.map((id, i) => {
          const replica = replicas[i % 3]
          if (replica === undefined) return Effect.dieMessage("no replica")
          return replica.runs.finish(id, `replica-${i % 3}`, T0 + 1_000 + i, doneWith(i % 2 === 0 ? [shared, second] : [second, shared]))
        }),
        { concurrency: "unbounded" }
      )
      expect(finished.every((done) => done)).toBe(true)
      const [first] = replicas
      if (first === undefined) return
      const listed = (yield* first.problems.list("shared", {}, 10, null)).problems
      expect(listed.map((problem) => [problem.fingerprint, problem.runCount]).sort()).toEqual([[shared.fingerprint, 60], [second.fingerprint, 60]].sort())
      for (const problem of listed) {
        const detail = Option.getOrThrow(yield* first.problems.get("shared", problem.id))
        expect(sum(detail.days.map((day) => day.runs))).toBe(60)
        expect(sum(detail.labels.map((label) => label.runs))).toBe(60)
        expect(detail.fingerprints).toHaveLength(1)
      }
      // 60 links each: every run links both problems
      const links = yield* Effect.all(ids.map((id) => first.problems.ofRun("shared", id)), { concurrency: 4 })
      expect(links.every((problems) => problems.length === 2)).toBe(true)
      expect(new Set(links.flat().map((problem) => problem.id)).size).toBe(2)
      // one problem.new, for the high one (the medium one is below the threshold), however many raced to make it
      const rows = (yield* first.problems.deliveries("shared", 100, null)).deliveries
      expect(rows.map((row) => [row.event, row.problemId])).toEqual([["problem.new", listed.find((problem) => problem.fingerprint === shared.fingerprint)?.id]])
    }))
})

describe("the problems store's connection (SQLite)", () => {
  it.scoped("keeps the busy timeout and synchronous NORMAL after a finish's transaction", () =>
    Effect.gen(function*() {
      const stores = yield* openSqlite(ALERTS)
      yield* runWith(stores, "r1", T0, [finding("settings", "critical")])
      yield* failedRun(stores, "r2", T0 + 1)
      expect((yield* stores.problems.list("shared", {}, 10, null)).problems).toHaveLength(1)
      expect(yield* stores.sql`PRAGMA busy_timeout`).toEqual([{ timeout: 5_000 }])
      expect(yield* stores.sql`PRAGMA synchronous`).toEqual([{ synchronous: 1 }])
    }))
})
