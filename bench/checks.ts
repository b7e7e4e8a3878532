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
 * The same measurement is then made on the code users run (rows `checks_built`,
 * `checks_built_start_flags`): this file bundled as scripts/build.mjs bundles the service (no
 * `keepNames`, unlike tsx), run by plain node in a child, and again under `npm start`'s node flags.
 *
 *   npx tsx bench/checks.ts   (part of `npm run bench`; BENCH_ONLY=checks runs it alone)
 */
import { Either, Schema } from "effect"
import { build } from "esbuild"
import { spawnSync } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, relative } from "node:path"
import { performance } from "node:perf_hooks"
import { runChecks } from "../src/Checks/Run.js"
import { keepAsRead, normalizeTraces } from "../src/Traces/Normalize.js"
import { nodeCodegen } from "../scripts/build-options.mjs"
import { raisedLimits, traceFileBody, traceFilesUnder } from "../scripts/trace-files.js"
import { machineOf, mainThreadCpuMs, median, round2, type Row, START_FLAGS, writeResults } from "./support.js"

const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 7)
const TRACES = 1_000
const ONLY = new Set((process.env["BENCH_ONLY"] ?? "").split(",").map((name) => name.trim()).filter((name) => name.length > 0))

/** Set in the built bench's child, which runs from a temporary directory. */
const CHILD = "BENCH_CHECKS_CHILD"
const REPOSITORY = process.env["BENCH_CHECKS_REPOSITORY"] ?? join(import.meta.dirname, "..")

const roots = [join(REPOSITORY, "test", "fixtures", "traces"), join(REPOSITORY, "..", "shared", "corpus")]

/** Every body that normalizes, with how many traces it holds. */
const bodies = roots.flatMap(traceFilesUnder).flatMap((path) => {
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

interface Measured {
  /** Wall-clock ms per round, each pass. */
  readonly base: ReadonlyArray<number>
  readonly withChecks: ReadonlyArray<number>
  /** Main-thread CPU ms summed over the rounds, each pass. */
  readonly baseCpu: number
  readonly withChecksCpu: number
  readonly findings: number
}

/** The two passes, two warm-ups then ROUNDS rounds alternated. */
const measure = (): Measured => {
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
  return { base, withChecks, baseCpu, withChecksCpu, findings }
}

const MeasuredJson = Schema.parseJson(Schema.Struct({
  base: Schema.Array(Schema.Number),
  withChecks: Schema.Array(Schema.Number),
  baseCpu: Schema.Number,
  withChecksCpu: Schema.Number,
  findings: Schema.Number
}))

/**
 * The same measurement on the code users run: this file bundled by esbuild as the product's build
 * (scripts/build.mjs) bundles src/ (bundled, ESM for node20, no minifying and, unlike tsx, no
 * `keepNames`), run by plain node in a child with `flags`; the child prints its Measured as JSON.
 */
const measureBuilt = async (flags: ReadonlyArray<string>): Promise<Measured> => {
  const outdir = mkdtempSync(join(tmpdir(), "svc-bench-checks-"))
  const outfile = join(outdir, "checks.mjs")
  // scripts/build.mjs's code generation (its chunking, source maps and stamping do not change the code that runs)
  await build({ ...nodeCodegen(REPOSITORY), entryPoints: [import.meta.filename], outfile })
  try {
    const child = spawnSync(process.execPath, [...flags, outfile], {
      env: { ...process.env, [CHILD]: "1", BENCH_CHECKS_REPOSITORY: REPOSITORY },
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
      maxBuffer: 1 << 20
    })
    if (child.status !== 0) throw new Error(`the built bench exited ${child.status ?? child.signal}`)
    return Schema.decodeUnknownSync(MeasuredJson)(child.stdout)
  } finally {
    rmSync(outdir, { recursive: true, force: true })
  }
}

const rowOf = (scenario: string, runs: string, measured: Measured): Row => {
  const ratio = median(measured.withChecks) / median(measured.base)
  return {
    scenario,
    metric: `CPU ms for normalize + checks over ~1,000 traces, against normalize alone (${runs})`,
    service: round2(median(measured.withChecks)),
    baseline: round2(median(measured.base)),
    ratio: round2(ratio),
    goal: "≤ 1.10",
    met: ratio <= 1.1,
    detail: {
      bodies: workload.length,
      distinct_files: bodies.length,
      traces: held,
      findings: measured.findings,
      files_from: roots.map((root) => relative(REPOSITORY, root)).join(" + "),
      service_main_thread_cpu_ms: measured.withChecksCpu,
      baseline_main_thread_cpu_ms: measured.baseCpu,
      cpu_ratio: round2(measured.withChecksCpu / measured.baseCpu)
    }
  }
}

if (process.env[CHILD] === "1") process.stdout.write(JSON.stringify(measure()))
else if (ONLY.size === 0 || ONLY.has("checks")) {
  const started = new Date().toISOString()
  const rows: Array<Row> = [
    rowOf("checks", "tsx, this process", measure()),
    rowOf("checks_built", "esbuild bundle as scripts/build.mjs makes, plain node", await measureBuilt([])),
    rowOf("checks_built_start_flags", "the same bundle under the flags of npm start", await measureBuilt(START_FLAGS))
  ]
  writeResults({ started, machine: machineOf(), rows }, "checks-", ONLY.size === 0 ? "checks-latest.json" : undefined)
}
