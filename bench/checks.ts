/**
 * The checks' cost (DECISIONS §23): CPU per trace as a ratio to normalize alone, on the same 1,000
 * traces: every trace of the project's fixtures (test/fixtures/traces) and of ../shared/corpus when
 * it is there, taken in turn until there are 1,000. Per round, in this process and in the same run:
 * - the baseline: each body parsed and normalized (what every diagnose does first);
 * - the service: the same, then the checks over each normalized trace.
 * The ratio is service / baseline (goal ≤ 1.10). Medians of BENCH_ROUNDS (default 7) rounds after
 * two warm-ups, the two measured alternately so the machine's drift falls on both. Beside it, the
 * same ratio in the main thread's CPU time summed over the rounds (`cpu_ratio`): on a shared machine
 * wall time also counts the time other processes held the core, which falls unevenly on the two.
 *
 *   npx tsx bench/checks.ts   (part of `npm run bench`; BENCH_ONLY=checks runs it alone)
 */
import { Either } from "effect"
import { existsSync, readdirSync, statSync } from "node:fs"
import { join, relative } from "node:path"
import { performance } from "node:perf_hooks"
import { runChecks } from "../src/Checks/Run.js"
import { keepAsRead, normalizeTraces } from "../src/Traces/Normalize.js"
import { raisedLimits, traceFileBody } from "../scripts/trace-files.js"
import { machineOf, mainThreadCpuMs, median, round2, type Row, writeResults } from "./support.js"

const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 7)
const TRACES = 1_000
const ONLY = new Set((process.env["BENCH_ONLY"] ?? "").split(",").map((name) => name.trim()).filter((name) => name.length > 0))

const filesUnder = (dir: string): Array<string> =>
  !existsSync(dir) ? [] : readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? filesUnder(path) : /\.(json|jsonl|traj)$/.test(name) ? [path] : []
  })

const roots = [join(import.meta.dirname, "..", "test", "fixtures", "traces"), join(import.meta.dirname, "..", "..", "shared", "corpus")]

/** Every body that normalizes, with how many traces it holds. */
const bodies = roots.flatMap(filesUnder).flatMap((path) => {
  let body: unknown
  try {
    body = traceFileBody(path)
  } catch {
    return []
  }
  if (body === undefined) return []
  const read = normalizeTraces(body, "auto", raisedLimits, keepAsRead)
  if (Either.isLeft(read)) return []
  const traces = read.right.traces.filter(Either.isRight).length
  return traces === 0 ? [] : [{ path, text: JSON.stringify(body), traces }]
})

/** Bodies in turn until they hold 1,000 traces. */
const workload: Array<string> = []
let held = 0
for (let index = 0; held < TRACES && bodies.length > 0; index++) {
  const body = bodies[index % bodies.length]
  if (body === undefined) break
  workload.push(body.text)
  held += body.traces
}

const normalizeAll = (withChecks: boolean): number => {
  let findings = 0
  for (const text of workload) {
    const read = normalizeTraces(JSON.parse(text), "auto", raisedLimits, keepAsRead)
    if (Either.isLeft(read) || !withChecks) continue
    for (const trace of read.right.traces) if (Either.isRight(trace)) findings += runChecks(trace.right).length
  }
  return findings
}

if (ONLY.size === 0 || ONLY.has("checks")) {
  const started = new Date().toISOString()
  normalizeAll(true)
  normalizeAll(false)
  const base: Array<number> = []
  const withChecks: Array<number> = []
  let baseCpu = 0
  let withChecksCpu = 0
  let findings = 0
  for (let round = 0; round < ROUNDS; round++) {
    const cpuA = mainThreadCpuMs()
    const a = performance.now()
    normalizeAll(false)
    const b = performance.now()
    const cpuB = mainThreadCpuMs()
    findings = normalizeAll(true)
    const c = performance.now()
    const cpuC = mainThreadCpuMs()
    base.push(b - a)
    withChecks.push(c - b)
    baseCpu += cpuB - cpuA
    withChecksCpu += cpuC - cpuB
  }
  const ratio = median(withChecks) / median(base)
  const rows: Array<Row> = [{
    scenario: "checks",
    metric: "CPU ms for normalize + checks over ~1,000 traces, against normalize alone",
    service: round2(median(withChecks)),
    baseline: round2(median(base)),
    ratio: round2(ratio),
    goal: "≤ 1.10",
    met: ratio <= 1.1,
    detail: {
      bodies: workload.length,
      distinct_files: bodies.length,
      traces: held,
      findings,
      files_from: roots.map((root) => relative(process.cwd(), root)).join(" + "),
      service_main_thread_cpu_ms: withChecksCpu,
      baseline_main_thread_cpu_ms: baseCpu,
      cpu_ratio: round2(withChecksCpu / baseCpu)
    }
  }]
  writeResults({ started, machine: machineOf(), rows }, "checks-", ONLY.size === 0 ? "checks-latest.json" : undefined)
}
