/**
 * Problems (DECISIONS §19, docs/problems.md): what joining findings to problems adds to finishing
 * a run, on both stores, measured in one process against a baseline measured in the same run:
 * - the scope holds 10,000 problems (made by finishing runs, each with a finding of its own
 *   fingerprint) before anything is timed;
 * - measured: `RunStore.finish` of a run with 10 findings that join problems (5 existing ones, 5
 *   new), labels as OTLP gives them; baseline: `finish` of a run with no finding (the report
 *   alone). Both write the same report text (24 KiB of report-shaped JSON) under a held lease,
 *   alternated per round.
 * Goal (issue 35): ≤ 2x, on SQLite and on PostgreSQL. Median of the per-round ratios.
 * Also measured: the write-ahead log each kind of finish writes (bytes per finish, over 5 finishes
 * of each kind): SQLite's WAL frames (a page each), PostgreSQL's WAL position. What the join must
 * write (the problems' rows and their indexes) is what the ratio cannot go under (docs/performance.md).
 *
 *   npx tsx bench/problems.ts   (part of `npm run bench`; BENCH_ONLY=problems-sqlite or problems-postgres runs one store)
 */
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option, Predicate, Redacted, Schema } from "effect"
import type { ProblemFinding } from "../src/Problems/Fingerprint.js"
import type { RunStoreShape } from "../src/Store/Runs.js"
import { startCluster } from "../test/support/Postgres.js"
import { BigIntColumn } from "../src/Store/Columns.js"
import { postgresLayer, sqliteLayer } from "../src/Store/Sql.js"
import { RunStore } from "../src/Store/Runs.js"
import { freshDatabase, newRun, storesLayer } from "../test/support/RunStore.js"
import { HEX, makeRandom } from "../test/redaction/generators.js"
import { machineOf, median, round2, type Row, writeResults } from "./support.js"

const ONLY = new Set((process.env["BENCH_ONLY"] ?? "").split(",").map((name) => name.trim()).filter((name) => name.length > 0))
const wants = (part: string) => ONLY.size === 0 || ONLY.has("problems") || ONLY.has(part)
const EXISTING = Number(process.env["BENCH_PROBLEMS"] ?? 10_000)
const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 200)
const FINDINGS = 10
const LEASE = 60_000
/**
 * A report's text: 24 KiB of report-shaped JSON (findings with titles, quotes and ids) from a
 * seeded generator, compressible as a real one is. Not one character repeated: PostgreSQL
 * compresses a stored value, and a padding of one character would cost it almost nothing to write.
 */
const reportText = (bytes: number): string => {
  const random = makeRandom(35)
  const words = ["agent", "tool", "retry", "timeout", "invoice", "customer", "refund", "policy", "upstream", "returned", "error", "the", "ignored",
    "escalated", "billing", "handoff", "planner", "context", "window", "summary", "ledger", "approval", "missing", "field", "schema"]
  const sentence = (length: number) => Array.from({ length }, () => random.pick(words)).join(" ")
  const findings: Array<unknown> = []
  while (JSON.stringify({ findings }).length < bytes) {
    findings.push({
      id: random.chars(HEX, 24),
      title: sentence(random.int(6, 12)),
      severity: random.pick(["low", "medium", "high"]),
      evidence: Array.from({ length: 3 }, () => ({ ref: `events[${random.int(0, 400)}]`, quote: sentence(random.int(8, 30)), at: random.int(1, 9_999_999) })),
      playbook: sentence(random.int(20, 40))
    })
  }
  return JSON.stringify({ findings })
}
const REPORT = reportText(24 * 1024)
const LABELS = { service: "checkout", agent: "billing_agent", version: "1.4.2", environment: "production" }

const finding = (fingerprint: string): ProblemFinding => ({
  fingerprint,
  pattern: "lewin",
  playbook: "environmental.tool_failure_unhandled",
  title: `the agent ignored the tool's failure ${fingerprint}`,
  normalizedTitle: "agent failure ignored tool",
  severity: "high",
  cites: "tool_result:charge_card",
  evidence: [{ ref: "events[3]", quote: "Error: upstream returned 504", event: 3, actor: "charge_card" }]
})

let clock = 10_000
let sequence = 0

/** Submits and claims a run; its id. */
const claimed = (runs: RunStoreShape) =>
  Effect.gen(function*() {
    const id = `run-${sequence++}`
    yield* runs.submit(newRun(id, { labels: LABELS, submittedAt: clock++ }))
    yield* runs.claim(`bench-${id}`, clock++, LEASE)
    return id
  })

const finishTimed = (runs: RunStoreShape, findings: ReadonlyArray<ProblemFinding>) =>
  Effect.gen(function*() {
    const id = yield* claimed(runs)
    const started = performance.now()
    const ok = yield* runs.finish(id, `bench-${id}`, clock++, { status: "done", report: REPORT, severity: "high", patterns: ["lewin"], cacheKeys: [], findings, tokens: 1000 })
    const elapsed = performance.now() - started
    if (!ok) throw new Error(`run ${id} was not finished`)
    return elapsed
  })

/** The WAL bytes some work writes: SQLite's frames (its WAL emptied first; 5 finishes stay under the 1,000-frame checkpoint), PostgreSQL's position. */
const walBytesOf = <E, R>(work: Effect.Effect<unknown, E, R>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const postgres = sql.onDialectOrElse({ pg: () => true, orElse: () => false })
    /** A column of the first row, as a number (the drivers' integers and PostgreSQL's numeric digits). */
    const numberOf = (rows: ReadonlyArray<unknown>, column: string): number => {
      const row = rows[0]
      return Predicate.isRecord(row) ? Option.getOrElse(Schema.decodeUnknownOption(BigIntColumn)(row[column]), () => Number.NaN) : Number.NaN
    }
    if (postgres) {
      const position = Effect.map(sql`SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0') AS at`, (rows) => numberOf(rows, "at"))
      const before = yield* position
      yield* work
      return (yield* position) - before
    }
    const pageSize = numberOf(yield* sql`PRAGMA page_size`, "page_size")
    yield* sql`PRAGMA wal_checkpoint(TRUNCATE)`
    yield* work
    // each frame: a page and its 24-byte header
    return numberOf(yield* sql`PRAGMA wal_checkpoint(PASSIVE)`, "log") * (pageSize + 24)
  })

const WAL_FINISHES = 5

const measure = (store: string) =>
  Effect.gen(function*() {
    const runs = yield* RunStore
    const fill = performance.now()
    for (let index = 0; index < EXISTING; index++) {
      const id = yield* claimed(runs)
      yield* runs.finish(id, `bench-${id}`, clock++, { status: "done", report: "{}", severity: "high", patterns: ["lewin"], cacheKeys: [], findings: [finding(`existing-${index}`)] })
    }
    const fillSeconds = (performance.now() - fill) / 1000
    // warm-up: both paths, a few times
    for (let index = 0; index < 20; index++) {
      yield* finishTimed(runs, [])
      yield* finishTimed(runs, [finding(`warm-${index}`)])
    }
    const withFindings: Array<number> = []
    const without: Array<number> = []
    const ratios: Array<number> = []
    for (let round = 0; round < ROUNDS; round++) {
      const findings = Array.from({ length: FINDINGS }, (_, index) =>
        finding(index < FINDINGS / 2 ? `existing-${(round * 7 + index * 997) % EXISTING}` : `new-${round}-${index}`))
      // alternated, so drift on a noisy machine falls on both
      const first = round % 2 === 0
      const a = first ? yield* finishTimed(runs, findings) : yield* finishTimed(runs, [])
      const b = first ? yield* finishTimed(runs, []) : yield* finishTimed(runs, findings)
      const joined = first ? a : b
      const alone = first ? b : a
      withFindings.push(joined)
      without.push(alone)
      ratios.push(joined / alone)
    }
    const walFindings = yield* walBytesOf(Effect.forEach(Array.from({ length: WAL_FINISHES }, (_, index) => index), (index) =>
      finishTimed(runs, Array.from({ length: FINDINGS }, (_, at) => finding(at < FINDINGS / 2 ? `existing-${(index * 13 + at * 389) % EXISTING}` : `wal-${index}-${at}`)))))
    const walAlone = yield* walBytesOf(Effect.forEach(Array.from({ length: WAL_FINISHES }, (_, index) => index), () => finishTimed(runs, [])))
    const ratio = round2(median(ratios))
    const row: Row = {
      scenario: `${store}: finish a run with ${FINDINGS} findings (5 existing problems, 5 new) at ${EXISTING} problems; baseline: finish a run with no finding`,
      metric: "ms per finish (median)",
      service: round2(median(withFindings)),
      baseline: round2(median(without)),
      ratio,
      goal: "<= 2x",
      met: ratio <= 2,
      detail: {
        rounds: ROUNDS,
        existing_problems: EXISTING,
        fill_seconds: round2(fillSeconds),
        p90_ratio: round2([...ratios].sort((x, y) => x - y)[Math.floor(ratios.length * 0.9)] ?? 0),
        wal_bytes_per_finish_with_findings: Math.round(walFindings / WAL_FINISHES),
        wal_bytes_per_finish_alone: Math.round(walAlone / WAL_FINISHES),
        wal_ratio: round2(walFindings / walAlone)
      }
    }
    return row
  })

const main = async () => {
  const started = new Date()
  const rows: Array<Row> = []
  if (wants("problems-sqlite")) {
    rows.push(await Effect.runPromise(Effect.scoped(Effect.provide(measure("SQLite"), Layer.provideMerge(storesLayer(), sqliteLayer(freshDatabase()))))))
  }
  if (wants("problems-postgres")) {
    const cluster = await startCluster()
    try {
      const url = cluster.freshDatabase()
      const store = Layer.provideMerge(storesLayer(), postgresLayer(Redacted.make(url), { pool: 4, statementTimeoutMs: 10_000 }))
      rows.push(await Effect.runPromise(Effect.scoped(Effect.provide(measure("PostgreSQL"), store))))
    } finally {
      cluster.stop()
    }
  }
  if (rows.length === 0) return
  const report = { started: started.toISOString(), scenario: "problems", machine: machineOf(), rows }
  writeResults(report, "problems-", ONLY.size === 0 || ONLY.has("problems") ? "problems-latest.json" : undefined)
  process.exit(0)
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
