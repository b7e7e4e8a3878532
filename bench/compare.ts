/**
 * `BENCH_BASE=<commit> npm run bench` (or `BENCH_BASE=<commit> npx tsx bench/compare.ts` after
 * `npm run build`): this checkout's build against the build of an earlier commit, interleaved
 * round by round on the same machine (these machines are noisy: only ratios measured in one run
 * mean anything), so a refactor can show it lost nothing (issue 28: within 10%).
 *
 * The base is exported with `git archive` into a temporary folder, given this checkout's
 * node_modules (a refactor's base has the same dependencies; say so when it does not) and built
 * with its own scripts/build.mjs. Each round starts both services, base and head in alternating
 * order, and measures on each:
 * - GET /healthz and GET /v1/patterns (autocannon, requests per second);
 * - a cache hit of a 50-step analyze (requests per second);
 * - a 4 MiB 5,000-step analyze, cache miss, instant provider double (ms per request);
 * - CPU per quick analysis (process CPU over 1,000 analyses, 32 at a time, from /proc);
 * - start-up (spawn to /readyz) and idle RSS.
 * The report is the median of the rounds (BENCH_ROUNDS, at least 5) as head / base ratios.
 * With BENCH_CALLGRIND=1 (Debian's valgrind), each build's instructions for one fixed workload
 * (start, 200 quick analyses, stop) are counted too: repeatable where wall time is not.
 */
import autocannon from "autocannon"
import { execFileSync, spawn, spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs"
import { Agent } from "node:http"
import { cpus, tmpdir, totalmem } from "node:os"
import { join } from "node:path"
import {
  BENCH_KEY as KEY,
  cpuMsOf,
  launchService,
  type LaunchedService,
  ledgerTrace as trace,
  median,
  postJson as post,
  round2,
  START_FLAGS,
  startDouble,
  stopChild,
  track
} from "./support.js"

const repo = join(import.meta.dirname, "..")
const BASE = process.env["BENCH_BASE"] ?? ""
const ROUNDS = Math.max(5, Number(process.env["BENCH_ROUNDS"] ?? 5))
const SECONDS = Number(process.env["BENCH_SECONDS"] ?? 3)
const FLAGS = START_FLAGS

/** The base commit's build: its files from git, this checkout's node_modules, its own build script. */
const buildBase = (rev: string): string => {
  const dir = mkdtempSync(join(tmpdir(), "svc-base-"))
  execFileSync("sh", ["-c", `git -C "${repo}" archive --format=tar "${rev}" | tar -x -C "${dir}"`])
  symlinkSync(join(repo, "node_modules"), join(dir, "node_modules"))
  execFileSync(process.execPath, [join(dir, "scripts", "build.mjs")], { cwd: dir, stdio: ["ignore", "ignore", "inherit"] })
  return join(dir, "dist", "server.mjs")
}




const rps = async (url: string, options: { readonly method?: "POST"; readonly body?: string }) => {
  const result = await autocannon({
    url,
    connections: 64,
    duration: SECONDS,
    method: options.method ?? "GET",
    ...(options.body === undefined ? {} : { body: options.body }),
    headers: { authorization: `Bearer ${KEY}`, ...(options.body === undefined ? {} : { "content-type": "application/json" }) }
  })
  return result.requests.average
}

const rssKiB = (pid: number | undefined) => {
  if (pid === undefined) return Number.NaN
  const line = readFileSync(`/proc/${pid}/status`, "utf8").split("\n").find((l) => l.startsWith("VmRSS:")) ?? ""
  return Number(/(\d+)/.exec(line)?.[1] ?? Number.NaN)
}

type Metrics = Record<string, number>

/** One round on one build. */
const measure = async (server: string, doubleUrl: string): Promise<Metrics> => {
  const env = { ANTHROPIC_API_KEY: "sk-bench-0123456789", ANTHROPIC_BASE_URL: doubleUrl, SVC_API_MAX_TOTAL_CHARS: "8000000" }
  const service: LaunchedService = await launchService(server, FLAGS, { ...env, SVC_CACHE: "memory" })
  await new Promise((resolve) => setTimeout(resolve, 500))
  const idle = rssKiB(service.child.pid)
  const agent = new Agent({ keepAlive: true, maxSockets: 32 })
  const small = JSON.stringify({ trace: trace(50, 4, "cache"), mode: "quick" })
  await post(`${service.url}/v1/analyze/lewin`, small, agent)
  const healthz = await rps(`${service.url}/healthz`, {})
  const patterns = await rps(`${service.url}/v1/patterns`, {})
  const hit = await rps(`${service.url}/v1/analyze/lewin`, { method: "POST", body: small })
  await stopChild(service.child)

  const uncached = await launchService(server, FLAGS, env)
  const big = JSON.stringify({ trace: trace(5000, 150, "big"), mode: "quick" })
  const one = new Agent({ keepAlive: true, maxSockets: 1 })
  for (let i = 0; i < 2; i++) await post(`${uncached.url}/v1/analyze/lewin`, big, one)
  const bigTimes: Array<number> = []
  for (let i = 0; i < 5; i++) bigTimes.push((await post(`${uncached.url}/v1/analyze/lewin`, big, one)).ms)
  const quick = (i: number) => JSON.stringify({ trace: trace(20, 2, `cpu-${i}-${Math.random()}`), mode: "quick" })
  for (let i = 0; i < 200; i++) await post(`${uncached.url}/v1/analyze/lewin`, quick(i), agent)
  const before = cpuMsOf(uncached.child.pid)
  for (let batch = 0; batch < 1000 / 32; batch++) await Promise.all(Array.from({ length: 32 }, (_, i) => post(`${uncached.url}/v1/analyze/lewin`, quick(batch * 32 + i), agent)))
  const cpu = (cpuMsOf(uncached.child.pid) - before) / 1000
  await stopChild(uncached.child)
  agent.destroy()
  one.destroy()
  return { healthz, patterns, hit, big_ms: median(bigTimes), cpu_ms: cpu, startup_ms: service.startedMs, idle_rss_kib: idle }
}

/** Instructions (valgrind's Ir) of one fixed workload on a build: start, 200 quick analyses, stop. */
const instructions = async (server: string, doubleUrl: string): Promise<number> => {
  const out = join(mkdtempSync(join(tmpdir(), "svc-callgrind-")), "callgrind.out")
  const port = 18_000 + Math.floor(Math.random() * 1000)
  const child = track(spawn("valgrind", ["--tool=callgrind", `--callgrind-out-file=${out}`, process.execPath, "--jitless", ...FLAGS, server], {
    env: { PATH: process.env["PATH"] ?? "", SVC_PORT: String(port), SVC_HOME: mkdtempSync(join(tmpdir(), "svc-bench-")), SVC_LOG_LEVEL: "warning", ANTHROPIC_API_KEY: "sk-bench-0123456789", ANTHROPIC_BASE_URL: doubleUrl },
    stdio: ["ignore", "ignore", "ignore"]
  }))
  const url = `http://127.0.0.1:${port}`
  for (let i = 0; i < 6000; i++) {
    if ((await fetch(`${url}/readyz`).then((r) => r.status, () => 0)) === 200) break
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  for (let i = 0; i < 200; i++) await post(`${url}/v1/analyze/lewin`, JSON.stringify({ trace: trace(20, 2, `ir-${i}`), mode: "quick" }), agent)
  agent.destroy()
  await stopChild(child)
  const summary = readFileSync(out, "utf8").split("\n").find((line) => line.startsWith("summary:") || line.startsWith("totals:")) ?? ""
  return Number(/(\d+)/.exec(summary)?.[1] ?? Number.NaN)
}

const main = async () => {
  const only = (process.env["BENCH_ONLY"] ?? "").split(",").map((name) => name.trim()).filter((name) => name.length > 0)
  if (only.length > 0 && !only.includes("compare")) return
  if (BASE === "") {
    console.log("bench/compare.ts: set BENCH_BASE=<commit> to compare this build with an earlier one (skipped)")
    return
  }
  const head = join(repo, "dist", "server.mjs")
  const base = buildBase(BASE)
  const double = await startDouble(0)
  const rounds: Array<{ readonly base: Metrics; readonly head: Metrics }> = []
  for (let round = 0; round < ROUNDS; round++) {
    // Alternate which goes first, so drift across a round weighs on both alike.
    const first = round % 2 === 0 ? base : head
    const a = await measure(first, double.url)
    const b = await measure(first === base ? head : base, double.url)
    rounds.push(first === base ? { base: a, head: b } : { base: b, head: a })
    console.log(`round ${round + 1}/${ROUNDS} done`)
  }
  const higherIsBetter = new Set(["healthz", "patterns", "hit"])
  const rows = Object.keys(rounds[0]?.head ?? {}).map((metric) => {
    const ratios = rounds.map((r) => (r.head[metric] ?? Number.NaN) / (r.base[metric] ?? Number.NaN))
    const ratio = median(ratios)
    const within = higherIsBetter.has(metric) ? ratio >= 0.9 : ratio <= 1.1
    return {
      metric,
      base: round2(median(rounds.map((r) => r.base[metric] ?? Number.NaN))),
      head: round2(median(rounds.map((r) => r.head[metric] ?? Number.NaN))),
      ratio: round2(ratio),
      goal: higherIsBetter.has(metric) ? ">= 0.9x" : "<= 1.1x",
      met: within,
      ratios: ratios.map(round2).join(" ")
    }
  })
  if (process.env["BENCH_CALLGRIND"] === "1") {
    if (spawnSync("valgrind", ["--version"]).status !== 0) throw new Error("BENCH_CALLGRIND=1 needs valgrind (apt-get install valgrind)")
    const [irBase, irHead] = [await instructions(base, double.url), await instructions(head, double.url)]
    rows.push({ metric: "instructions (start, 200 quick analyses, stop)", base: irBase, head: irHead, ratio: round2(irHead / irBase), goal: "<= 1.1x", met: irHead / irBase <= 1.1, ratios: "" })
  }
  await stopChild(double.child)
  const machine = { cpus: cpus().length, cpu: cpus()[0]?.model ?? "unknown", memory_gib: round2(totalmem() / 2 ** 30), node: process.version }
  const report = { started: new Date().toISOString(), scenario: "compare", base: BASE, rounds: ROUNDS, seconds: SECONDS, machine, rows }
  mkdirSync(join(repo, "bench", "results"), { recursive: true })
  writeFileSync(join(repo, "bench", "results", `compare-${report.started.replace(/[:.]/g, "-")}.json`), `${JSON.stringify(report, null, 2)}\n`)
  console.table(rows)
}

main().then(() => process.exit(0), (error: unknown) => {
  console.error(error)
  process.exit(1)
})
