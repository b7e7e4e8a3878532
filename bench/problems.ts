/**
 * Problems (DECISIONS §19, docs/problems.md): what joining findings to problems adds to finishing
 * a run, on both stores, measured in one process against a baseline measured in the same run:
 * - the scope holds 10,000 problems (made by finishing runs, each with a finding of its own
 *   fingerprint) before anything is timed;
 * - measured: `RunStore.finish` of a run with 10 findings that join problems (5 existing ones, 5
 *   new), labels as OTLP gives them; baseline: `finish` of a run with no finding (the report
 *   alone). Both write the same report text (24 KiB) under a held lease, alternated per round.
 * Goal (issue 35): ≤ 2x, on SQLite and on PostgreSQL. Median of the per-round ratios.
 *
 *   npx tsx bench/problems.ts   (part of `npm run bench`; BENCH_ONLY=problems-sqlite or problems-postgres runs one store)
 */
import { Effect } from "effect"
import type { ProblemFinding } from "../src/Problems/Fingerprint.js"
import type { RunStoreShape } from "../src/Store/Runs.js"
import { startCluster } from "../test/support/Postgres.js"
import { newRun, openPostgresStores, openStores } from "../test/support/RunStore.js"
import { machineOf, median, round2, type Row, writeResults } from "./support.js"

const ONLY = new Set((process.env["BENCH_ONLY"] ?? "").split(",").map((name) => name.trim()).filter((name) => name.length > 0))
const wants = (part: string) => ONLY.size === 0 || ONLY.has("problems") || ONLY.has(part)
const EXISTING = Number(process.env["BENCH_PROBLEMS"] ?? 10_000)
const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 200)
const FINDINGS = 10
const LEASE = 60_000
const REPORT = JSON.stringify({ padding: "x".repeat(24 * 1024) })
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

const measure = (store: string, runs: RunStoreShape) =>
  Effect.gen(function*() {
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
    const ratio = round2(median(ratios))
    const row: Row = {
      scenario: `${store}: finish a run with ${FINDINGS} findings (5 existing problems, 5 new) at ${EXISTING} problems; baseline: finish a run with no finding`,
      metric: "ms per finish (median)",
      service: round2(median(withFindings)),
      baseline: round2(median(without)),
      ratio,
      goal: "<= 2x",
      met: ratio <= 2,
      detail: { rounds: ROUNDS, existing_problems: EXISTING, fill_seconds: round2(fillSeconds), p90_ratio: round2([...ratios].sort((x, y) => x - y)[Math.floor(ratios.length * 0.9)] ?? 0) }
    }
    return row
  })

const main = async () => {
  const started = new Date()
  const rows: Array<Row> = []
  if (wants("problems-sqlite")) {
    rows.push(await Effect.runPromise(Effect.scoped(Effect.flatMap(openStores(), (stores) => measure("SQLite", stores.runs)))))
  }
  if (wants("problems-postgres")) {
    const cluster = await startCluster()
    try {
      const url = cluster.freshDatabase()
      rows.push(await Effect.runPromise(Effect.scoped(Effect.flatMap(openPostgresStores(url), (stores) => measure("PostgreSQL", stores.runs)))))
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
