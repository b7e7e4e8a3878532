/**
 * npm run bench: the built service against a plain node:http baseline measured in the same run,
 * interleaved round by round, with autocannon as the load generator. Prints a table and writes
 * bench/results/<time>.json and bench/results/latest.json. Not part of npm test.
 *
 * Processes: this runner (load client), the service (dist/server.mjs), the baseline
 * (bench/baseline.mjs) and, where a model is needed, the provider double (bench/double.ts).
 */
import autocannon from "autocannon"
import { type ChildProcess, fork, spawn, spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { request as httpRequest, Agent } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import { measureCost } from "./cost.js"
import {
  BENCH_KEY as KEY,
  cpuMsOf,
  firstLine,
  freePort,
  launchService,
  launchWith,
  ledgerTrace as trace,
  median,
  otlpExport,
  postJson as post,
  round2,
  type Row,
  START_FLAGS,
  startDouble,
  stopChild,
  track,
  machineOf,
  writeResults
} from "./support.js"

const repo = join(import.meta.dirname, "..")
const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 3)
const DURATION = Number(process.env["BENCH_SECONDS"] ?? 5)
const CONNECTIONS = 64
/**
 * BENCH_ONLY=runs-memory,cli,cost,percall,static,hit,big,otlp,redis,wide,identical,agents runs only those
 * scenarios (default: all); `agents` is bench/agents.ts, `runs` bench/runs.ts and `compare`
 * bench/compare.ts (with BENCH_BASE=<commit>), which `npm run bench` runs after this file; start-up
 * against a bare node:http server is bench/startup.ts.
 */
const ONLY = new Set((process.env["BENCH_ONLY"] ?? "").split(",").map((s) => s.trim()).filter((s) => s.length > 0))
/** BENCH_SERVICE_FLAGS="--cpu-prof --cpu-prof-dir=/tmp/prof": extra node flags for the service (profiling). */
const SERVICE_FLAGS = [...START_FLAGS, ...(process.env["BENCH_SERVICE_FLAGS"] ?? "").split(" ").filter((flag) => flag.length > 0)]
/** A row of milliseconds per request against a baseline measured in the same run, held to `limit`x. */
const ratioRow = (scenario: string, service: ReadonlyArray<number>, baseline: ReadonlyArray<number>, limit: number): Row => {
  const ratio = median(service) / median(baseline)
  return { scenario, metric: "ms per request", service: round2(median(service)), baseline: round2(median(baseline)), ratio: round2(ratio), goal: `<= ${limit}x`, met: ratio <= limit }
}

const wants = (...names: Array<string>) => ONLY.size === 0 || names.some((name) => ONLY.has(name))

interface Started {
  readonly child: ChildProcess
  readonly url: string
  readonly startedMs: number
}




/** The built service; with `probe`, under bench/probe.mjs, which answers its live heap over IPC. */
const startService = (env: Record<string, string>, options: { readonly probe?: boolean } = {}): Promise<Started> =>
  options.probe === true
    ? launchWith((serviceEnv) => fork(join(repo, "bench", "probe.mjs"), [], { execArgv: [...SERVICE_FLAGS, "--expose-gc"], env: serviceEnv, stdio: ["ignore", "ignore", "inherit", "ipc"] }), env)
    : launchService(join(repo, "dist", "server.mjs"), SERVICE_FLAGS, env)

const startBaseline = async (responses: { get?: Record<string, string>; post?: string }): Promise<Started> => {
  const file = join(mkdtempSync(join(tmpdir(), "svc-baseline-")), "responses.json")
  writeFileSync(file, JSON.stringify(responses))
  const started = performance.now()
  const child = spawn(process.execPath, [join(repo, "bench", "baseline.mjs"), file], { stdio: ["ignore", "pipe", "inherit"] })
  track(child)
  const port = await firstLine(child)
  return { child, url: `http://127.0.0.1:${port}`, startedMs: performance.now() - started }
}


const stop = (started: { readonly child: ChildProcess }) => stopChild(started.child)

/** The live heap of a service started with `probe`, after a full collection, in bytes. */
const heapOf = (child: ChildProcess) =>
  new Promise<number>((resolve) => {
    child.once("message", (message: unknown) => {
      const heap: unknown = typeof message === "object" && message !== null ? Reflect.get(message, "heapUsed") : undefined
      resolve(typeof heap === "number" ? heap : Number.NaN)
    })
    child.send("heap")
  })


/** Runs `count` requests, `concurrency` at a time. */
const inBatches = async (count: number, concurrency: number, send: (i: number) => Promise<{ readonly status: number }>) => {
  let next = 0
  let failed = 0
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < count) {
      const i = next++
      if ((await send(i)).status !== 200) failed += 1
    }
  }))
  if (failed > 0) throw new Error(`${failed} of ${count} requests failed`)
}

const rssOf = (pid: number | undefined, field: "VmRSS" | "VmHWM"): number => {
  if (pid === undefined) return Number.NaN
  const status = readFileSync(`/proc/${pid}/status`, "utf8")
  return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? Number.NaN) / 1024
}

interface Load {
  readonly rps: number
  readonly p50: number
  readonly p99: number
  readonly non2xx: number
}

const load = async (url: string, options: { method?: "GET" | "POST"; body?: string; headers?: Record<string, string> }): Promise<Load> => {
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: DURATION,
    method: options.method ?? "GET",
    ...(options.body === undefined ? {} : { body: options.body }),
    headers: { authorization: `Bearer ${KEY}`, ...(options.body === undefined ? {} : { "content-type": "application/json" }), ...options.headers }
  })
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx }
}


const rows: Array<Row> = []

/** Interleaved rounds: baseline then service, ROUNDS times; ratio per round, median of ratios. */
const throughput = async (scenario: string, goal: number, serviceUrl: string, baselineUrl: string, options: Parameters<typeof load>[1]) => {
  const service: Array<Load> = []
  const baseline: Array<Load> = []
  const ratios: Array<number> = []
  await load(serviceUrl, { ...options }).catch(() => undefined) // warm-up
  for (let r = 0; r < ROUNDS; r++) {
    const b = await load(baselineUrl, options)
    const s = await load(serviceUrl, options)
    if (s.non2xx > 0) throw new Error(`${scenario}: the service answered ${s.non2xx} non-2xx responses`)
    baseline.push(b)
    service.push(s)
    ratios.push(s.rps / b.rps)
  }
  const ratio = median(ratios)
  rows.push({
    scenario,
    metric: "req/s",
    service: Math.round(median(service.map((x) => x.rps))),
    baseline: Math.round(median(baseline.map((x) => x.rps))),
    ratio: round2(ratio),
    goal: `>= ${goal}x`,
    met: ratio >= goal,
    detail: {
      service_p50_ms: median(service.map((x) => x.p50)),
      service_p99_ms: median(service.map((x) => x.p99)),
      baseline_p50_ms: median(baseline.map((x) => x.p50)),
      baseline_p99_ms: median(baseline.map((x) => x.p99)),
      ratios: ratios.map(round2).join(" ")
    }
  })
}




/** "200×9990 0:ECONNRESET×10" style summary of the statuses seen (0 = no HTTP answer, with its error). */
const statusCounts = (results: ReadonlyArray<{ readonly status: number; readonly error?: string }>) => {
  const counts = new Map<string, number>()
  for (const { status, error } of results) {
    const key = error === undefined ? String(status) : `${status}:${error}`
    counts.set(key, (counts.get(key) ?? 0) + 1)
  }
  return Array.from(counts).sort(([a], [b]) => a.localeCompare(b)).map(([status, n]) => `${status}×${n}`).join(" ")
}

const main = async () => {
  if (ONLY.size > 0 && Array.from(ONLY).every((name) => name === "agents" || name === "runs" || name === "compare" || name.startsWith("startup"))) return
  const started = new Date()
  mkdirSync(join(repo, "bench", "results"), { recursive: true })

  // 1. Start-up time to ready and idle RSS of a fresh service: bench/startup.ts (against a bare
  // node:http server, on both Node lines). Here: the service with the runs store open and 2 workers
  // polling it (a home whose svc.db exists, so the workers open it at start), 1 s after ready and
  // settled (15 s: V8's memory reducer has run).
  if (wants("runs-memory")) {
    const home = mkdtempSync(join(tmpdir(), "svc-bench-store-"))
    const first = await startService({ SVC_HOME: home })
    await fetch(`${first.url}/v1/runs?limit=1`, { headers: { authorization: `Bearer ${KEY}` } })
    await stop(first)
    const early: Array<number> = []
    const settled: Array<number> = []
    for (let i = 0; i < 3; i++) {
      const s = await startService({ SVC_HOME: home, SVC_WORKERS: "2" })
      await new Promise((resolve) => setTimeout(resolve, 1000))
      early.push(rssOf(s.child.pid, "VmRSS"))
      await new Promise((resolve) => setTimeout(resolve, 14_000))
      settled.push(rssOf(s.child.pid, "VmRSS"))
      await stop(s)
    }
    rows.push({ scenario: "RSS 1 s after start-up, runs store open, 2 workers", metric: "MiB", service: round2(median(early)), baseline: null, ratio: null, goal: "(for comparison)", met: true })
    rows.push({ scenario: "idle RSS (15 s), runs store open, 2 workers", metric: "MiB", service: round2(median(settled)), baseline: null, ratio: null, goal: "< 100 MiB", met: median(settled) < 100 })
  }

  // 1b. The svc command line (bin/svc, as users run it): wall time of whole commands, median of 5,
  // interleaved with the same number of bare `node -e 0` starts (the floor any node CLI pays).
  if (wants("cli")) {
    const instantCli = await startDouble(0)
    const cliService = await startService({ ANTHROPIC_API_KEY: "sk-bench-0123456789", ANTHROPIC_BASE_URL: instantCli.url })
    const traceFile = join(mkdtempSync(join(tmpdir(), "svc-bench-cli-")), "run.json")
    writeFileSync(traceFile, JSON.stringify(trace(50, 4, "cli")))
    const env = { PATH: process.env["PATH"] ?? "", SVC_HOME: mkdtempSync(join(tmpdir(), "svc-bench-home-")), ANTHROPIC_API_KEY: "sk-bench-0123456789", ANTHROPIC_BASE_URL: instantCli.url }
    const wall = (args: ReadonlyArray<string>) => {
      const t = performance.now()
      const ran = spawnSync(args[0] ?? "", args.slice(1), { env, stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" })
      if (ran.status !== 0) throw new Error(`${args.join(" ")} exited ${ran.status}: ${ran.stderr.slice(0, 300)}`)
      return performance.now() - t
    }
    const svc = join(repo, "bin", "svc")
    const commands: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
      ["svc --version", [svc, "--version"]],
      ["svc patterns (in-process)", [svc, "patterns"]],
      ["svc patterns --url", [svc, "patterns", "--url", cliService.url, "--api-key", KEY]],
      ["svc analyze lewin --mode quick (in-process, instant double)", [svc, "analyze", "lewin", traceFile, "--mode", "quick"]],
      ["svc analyze lewin --mode quick --url", [svc, "analyze", "lewin", traceFile, "--mode", "quick", "--url", cliService.url, "--api-key", KEY]]
    ]
    wall([svc, "--version"])
    for (const [scenario, args] of commands) {
      const service: Array<number> = []
      const bare: Array<number> = []
      for (let i = 0; i < 5; i++) {
        bare.push(wall([process.execPath, "-e", "0"]))
        service.push(wall(args))
      }
      rows.push({ scenario, metric: "ms", service: Math.round(median(service)), baseline: Math.round(median(bare)), ratio: round2(median(service) / median(bare)), goal: "—", met: null })
    }
    await stop(cliService)
    await stop(instantCli)
  }

  // 1c. Model cost: 100 standard analyses of lewin with each provider's prompt cache played by the
  // double; input cost with the cache against the same tokens uncached (bench/cost.ts).
  if (wants("cost")) {
    const goals = { anthropic: 0.35, openai: 0.65 } as const
    for (const provider of ["anthropic", "openai"] as const) {
      const result = await measureCost(provider, async (env) => {
        const started = await startService(env)
        return { url: started.url, stop: () => stop(started) }
      }, { authorization: `Bearer ${KEY}` })
      rows.push({
        scenario: `100 standard analyses, ${provider} input cost with its prompt cache`,
        metric: "× uncached",
        service: round2(result.ratio),
        baseline: null,
        ratio: null,
        goal: `<= ${goals[provider]}`,
        met: result.ratio <= goals[provider] && result.byteIdentical,
        detail: {
          calls: result.calls,
          input_tokens: result.inputTokens,
          static_share: round2(result.staticShare),
          static_prefix_byte_identical: String(result.byteIdentical),
          cached_usd: Math.round(result.cachedCost * 10_000) / 10_000,
          uncached_usd: Math.round(result.uncachedCost * 10_000) / 10_000
        }
      })
    }
  }

  // 1d. CPU and heap per analysis in quick mode (issue 18), medians of 3 rounds: process CPU time
  // over 2,000 analyses against a double that answers at once; the live heap (after a full
  // collection) with 500 analyses held at the provider, against the heap before them.
  if (wants("percall")) {
    const instantDouble = await startDouble(0)
    // BENCH_PROVIDER=local|openai measures through another provider's client (default anthropic).
    const providerEnv = (url: string): Record<string, string> =>
      process.env["BENCH_PROVIDER"] === "local"
        ? { LOCAL_MODEL_HOST: url }
        : process.env["BENCH_PROVIDER"] === "openai"
        ? { OPENAI_API_KEY: "sk-bench-0123456789", OPENAI_BASE_URL: `${url}/v1` }
        : { ANTHROPIC_API_KEY: "sk-bench-0123456789", ANTHROPIC_BASE_URL: url }
    const cpuService = await startService(providerEnv(instantDouble.url))
    const keepAlive = new Agent({ keepAlive: true, maxSockets: 32 })
    const quick = (salt: string) => JSON.stringify({ trace: trace(20, 2, salt), mode: "quick" })
    await inBatches(500, 32, (i) => post(`${cpuService.url}/v1/analyze/lewin`, quick(`warm-${i}`), keepAlive))
    const cpu: Array<number> = []
    for (let round = 0; round < 3; round++) {
      const before = cpuMsOf(cpuService.child.pid)
      await inBatches(2000, 32, (i) => post(`${cpuService.url}/v1/analyze/lewin`, quick(`cpu-${round}-${i}`), keepAlive))
      cpu.push((cpuMsOf(cpuService.child.pid) - before) / 2000)
    }
    keepAlive.destroy()
    await stop(cpuService)
    await stop(instantDouble)
    rows.push({ scenario: "CPU per quick analysis (2,000, 32 at a time)", metric: "ms", service: round2(median(cpu)), baseline: null, ratio: null, goal: "<= 1.5 ms", met: median(cpu) <= 1.5, detail: { rounds: cpu.map(round2).join(" ") } })

    const holding = await startDouble(4000)
    const heapService = await startService(providerEnv(holding.url), { probe: true })
    const open = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY })
    await inBatches(200, 32, (i) => post(`${heapService.url}/v1/analyze/lewin`, quick(`heap-warm-${i}`), open))
    const heap: Array<number> = []
    for (let round = 0; round < 3; round++) {
      const idle = await heapOf(heapService.child)
      const calls = await holding.calls()
      const running = Promise.all(Array.from({ length: 500 }, (_, i) => post(`${heapService.url}/v1/analyze/lewin`, quick(`heap-${round}-${i}`), open)))
      while ((await holding.calls()) < calls + 500) await new Promise((resolve) => setTimeout(resolve, 20))
      const busy = await heapOf(heapService.child)
      heap.push((busy - idle) / 500 / 1024)
      await running
    }
    open.destroy()
    await stop(heapService)
    await stop(holding)
    rows.push({ scenario: "heap per quick analysis in flight (500 held)", metric: "KiB", service: round2(median(heap)), baseline: null, ratio: null, goal: "<= 64 KiB", met: median(heap) <= 64, detail: { rounds: heap.map(round2).join(" ") } })
  }

  // 2-3. Static endpoints with auth, rate limiting, request ids and metrics all on.
  const instant = await startDouble(0)
  const service = await startService({ SVC_CACHE: "memory", ANTHROPIC_API_KEY: "sk-bench-0123456789", ANTHROPIC_BASE_URL: instant.url })
  const healthz = await (await fetch(`${service.url}/healthz`)).text()
  const patterns = await (await fetch(`${service.url}/v1/patterns`, { headers: { authorization: `Bearer ${KEY}` } })).text()
  const smallBody = JSON.stringify({ trace: trace(50, 4, "cache"), mode: "quick" })
  const cached = await fetch(`${service.url}/v1/analyze/lewin`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${KEY}` }, body: smallBody })
  const cachedBody = await cached.text()
  if (cached.status !== 200) throw new Error(`warm-up analysis failed: ${cached.status} ${cachedBody.slice(0, 200)}`)
  const baseline = await startBaseline({ get: { "/healthz": healthz, "/v1/patterns": patterns }, post: cachedBody })
  if (wants("static")) {
    await throughput("GET /healthz", 0.5, `${service.url}/healthz`, `${baseline.url}/healthz`, {})
    await throughput("GET /v1/patterns", 0.5, `${service.url}/v1/patterns`, `${baseline.url}/v1/patterns`, {})
  }
  // 4. Authenticated, rate-limited cache hit of a 50-step analyze vs JSON.parse + SHA-256.
  if (wants("hit")) await throughput("POST analyze, 50-step cache hit", 0.5, `${service.url}/v1/analyze/lewin`, `${baseline.url}/v1/analyze/lewin`, { method: "POST", body: smallBody })

  // 5. Validation + hashing of a 5,000-step 4 MiB trace, cache miss, instant provider double.
  const big = await startService({ SVC_API_MAX_TOTAL_CHARS: "8000000", ANTHROPIC_API_KEY: "sk-bench-0123456789", ANTHROPIC_BASE_URL: instant.url })
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  const bigBody = JSON.stringify({ trace: trace(5000, 150, "big"), mode: "quick" })
  const bigTimes: Array<number> = []
  const baseTimes: Array<number> = []
  for (let i = 0; i < 3; i++) await post(`${big.url}/v1/analyze/lewin`, bigBody, agent)
  for (let r = 0; r < (wants("big") ? 15 : 0); r++) {
    baseTimes.push((await post(`${baseline.url}/v1/analyze/lewin`, bigBody, agent)).ms)
    const s = await post(`${big.url}/v1/analyze/lewin`, bigBody, agent)
    if (s.status !== 200) throw new Error(`4 MiB analysis answered ${s.status}`)
    bigTimes.push(s.ms)
  }
  if (wants("big")) rows.push(ratioRow(`POST analyze, 5,000 steps (${(Buffer.byteLength(bigBody) / 1048576).toFixed(2)} MiB), cache miss`, bigTimes, baseTimes, 2.5))
  await stop(big)

  // 5a. Redaction's cost on the same 4 MiB trace (DECISIONS §20): the path with SVC_REDACT=off
  // against the default (secrets) and secrets,pii, interleaved request by request.
  if (wants("redact")) {
    const provider = { SVC_API_MAX_TOTAL_CHARS: "8000000", ANTHROPIC_API_KEY: "sk-bench-0123456789", ANTHROPIC_BASE_URL: instant.url }
    const off = await startService({ ...provider, SVC_REDACT: "off" })
    const secrets = await startService({ ...provider, SVC_REDACT: "secrets" })
    const pii = await startService({ ...provider, SVC_REDACT: "secrets,pii" })
    const times: Record<"off" | "secrets" | "pii", Array<number>> = { off: [], secrets: [], pii: [] }
    const one = async (which: keyof typeof times, url: string, record: boolean) => {
      const s = await post(`${url}/v1/analyze/lewin`, bigBody, agent)
      if (s.status !== 200) throw new Error(`4 MiB analysis (SVC_REDACT ${which}) answered ${s.status}`)
      if (record) times[which].push(s.ms)
    }
    for (let r = 0; r < 18; r++) {
      await one("off", off.url, r >= 3)
      await one("secrets", secrets.url, r >= 3)
      await one("pii", pii.url, r >= 3)
    }
    for (const which of ["secrets", "pii"] as const) {
      rows.push(ratioRow(`POST analyze, 5,000 steps, SVC_REDACT=${which === "pii" ? "secrets,pii" : "secrets"} against off`, times[which], times.off, 1.3))
    }
    await stop(off)
    await stop(secrets)
    await stop(pii)
  }

  // 5b. The same for a 4 MiB OTLP/JSON export (OpenTelemetry GenAI spans): detection,
  // normalization with history de-duplication, projection, validation and hashing.
  const otlp = await startService({
    SVC_API_MAX_TOTAL_CHARS: "8000000",
    SVC_API_MAX_TRACE_STEPS: "20000",
    ANTHROPIC_API_KEY: "sk-bench-0123456789",
    ANTHROPIC_BASE_URL: instant.url
  })
  const otlpBody = JSON.stringify(otlpExport(4 * 1024 * 1024))
  const otlpTimes: Array<number> = []
  const otlpBase: Array<number> = []
  if (wants("otlp")) {
    for (let i = 0; i < 3; i++) {
      const warm = await post(`${otlp.url}/v1/analyze/lewin`, otlpBody, agent)
      if (warm.status !== 200) throw new Error(`OTLP analysis answered ${warm.status}`)
    }
    for (let r = 0; r < 15; r++) {
      otlpBase.push((await post(`${baseline.url}/v1/analyze/lewin`, otlpBody, agent)).ms)
      const s = await post(`${otlp.url}/v1/analyze/lewin`, otlpBody, agent)
      if (s.status !== 200) throw new Error(`OTLP analysis answered ${s.status}`)
      otlpTimes.push(s.ms)
    }
    rows.push(ratioRow(`POST analyze, OTLP/JSON export (${(Buffer.byteLength(otlpBody) / 1048576).toFixed(2)} MiB), cache miss`, otlpTimes, otlpBase, 3))
  }
  await stop(otlp)
  await stop(service)
  await stop(baseline)

  // 5c. Several replicas on Redis (DECISIONS §15): a cache hit whose entry lives only in Redis
  // against an in-process hit, and the shared rate limiter's cost against the in-process one.
  if (wants("redis")) {
    const redisPort = await freePort()
    const redis = spawn("redis-server", ["--port", String(redisPort), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "ignore" })
    track(redis)
    await new Promise((resolve) => setTimeout(resolve, 500))
    const provider = { ANTHROPIC_API_KEY: "sk-bench-0123456789", ANTHROPIC_BASE_URL: instant.url }
    const shared = { ...provider, SVC_CACHE: "redis", SVC_REDIS_URL: `redis://127.0.0.1:${redisPort}` }
    const [a, b, local] = [await startService(shared), await startService(shared), await startService({ ...provider, SVC_CACHE: "memory" })]
    const bodies = Array.from({ length: 300 }, (_, i) => JSON.stringify({ trace: trace(50, 4, `redis-${i}`), mode: "quick" }))
    for (const body of bodies) {
      await post(`${a.url}/v1/analyze/lewin`, body, agent)
      await post(`${local.url}/v1/analyze/lewin`, body, agent)
    }
    const fromRedis: Array<number> = []
    const inProcess: Array<number> = []
    for (const body of bodies) fromRedis.push((await post(`${b.url}/v1/analyze/lewin`, body, agent)).ms)
    for (const body of bodies) inProcess.push((await post(`${local.url}/v1/analyze/lewin`, body, agent)).ms)
    rows.push({
      scenario: "POST analyze, 50-step cache hit from Redis (entry only in Redis) vs in-process hit",
      metric: "ms per request",
      service: round2(median(fromRedis)),
      baseline: round2(median(inProcess)),
      ratio: round2(median(fromRedis) / median(inProcess)),
      goal: "measured",
      met: true
    })
    const getter = new Agent({ keepAlive: true, maxSockets: 1 })
    const timedGet = (url: string) =>
      new Promise<number>((resolve) => {
        const started = performance.now()
        httpRequest(url, { agent: getter, headers: { authorization: `Bearer ${KEY}` } }, (res) => {
          res.resume()
          res.on("end", () => resolve(performance.now() - started))
        }).end()
      })
    const sharedLimiter: Array<number> = []
    const localLimiter: Array<number> = []
    for (let i = 0; i < 2000; i++) {
      sharedLimiter.push(await timedGet(`${b.url}/v1/patterns`))
      localLimiter.push(await timedGet(`${local.url}/v1/patterns`))
    }
    rows.push({
      scenario: "GET /v1/patterns, rate limit in Redis vs in process (latency, one client)",
      metric: "ms per request",
      service: round2(median(sharedLimiter)),
      baseline: round2(median(localLimiter)),
      ratio: round2(median(sharedLimiter) / median(localLimiter)),
      goal: "measured",
      met: true
    })
    await Promise.all([stop(a), stop(b), stop(local)])
    redis.kill("SIGKILL")
  }

  // 6. 10,000 concurrent in-flight analyses against a double answering after 2 s; the baseline in
  // the same round: a plain node:http proxy that parses each body, makes one request to the same
  // kind of double and parses its answer (bench/proxy.mjs). Rounds of both (BENCH_WIDE_ROUNDS,
  // default 3), fresh processes each; the row is the round with the median ratio.
  const many = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY })
  const proxyRound = async () => {
    const proxyDouble = await startDouble(2000)
    const proxyChild = spawn(process.execPath, [join(repo, "bench", "proxy.mjs"), proxyDouble.url], { stdio: ["ignore", "pipe", "inherit"] })
    track(proxyChild)
    const proxyUrl = `http://127.0.0.1:${await firstLine(proxyChild)}`
    const proxyResults = await Promise.all(Array.from({ length: 10_000 }, (_, i) => post(`${proxyUrl}/v1/analyze/lewin`, JSON.stringify({ trace: trace(20, 2, `proxy-${i}`), mode: "quick" }), many)))
    const proxyOverhead = proxyResults.map((r) => r.ms - 2000).sort((a, b) => a - b)
    await stop({ child: proxyChild })
    await stop(proxyDouble)
    return { p99: proxyOverhead[Math.floor(proxyOverhead.length * 0.99)] ?? Number.NaN, statuses: statusCounts(proxyResults) }
  }
  const serviceRound = async () => {
    const slow = await startDouble(2000)
    const wide = await startService({ ANTHROPIC_API_KEY: "sk-bench-0123456789", ANTHROPIC_BASE_URL: slow.url })
    const body = (i: number) => JSON.stringify({ trace: trace(20, 2, `wide-${i}`), mode: "quick" })
    // A probe's view meanwhile: GET /healthz on a new connection every 200 ms.
    const probes: Array<number> = []
    let probing = true
    const probe = async () => {
      while (probing) {
        const sent = performance.now()
        const status = await fetch(`${wide.url}/healthz`, { headers: { connection: "close" } }).then((r) => r.status, () => 0)
        probes.push(status === 200 ? performance.now() - sent : Number.POSITIVE_INFINITY)
        await new Promise((resolve) => setTimeout(resolve, 200))
      }
    }
    const probed = probe()
    const results = await Promise.all(Array.from({ length: 10_000 }, (_, i) => post(`${wide.url}/v1/analyze/lewin`, body(i), many)))
    probing = false
    await probed
    const peak = rssOf(wide.child.pid, "VmHWM")
    await stop(wide)
    await stop(slow)
    const sortedOverhead = results.map((r) => r.ms - 2000).sort((a, b) => a - b)
    return {
      results,
      ok: results.filter((r) => r.status === 200).length,
      p99: sortedOverhead[Math.floor(sortedOverhead.length * 0.99)] ?? Number.NaN,
      p50: sortedOverhead[Math.floor(sortedOverhead.length / 2)] ?? 0,
      probes: probes.slice().sort((a, b) => a - b),
      peak
    }
  }
  if (wants("wide")) {
    const rounds: Array<{ readonly proxy: Awaited<ReturnType<typeof proxyRound>>; readonly service: Awaited<ReturnType<typeof serviceRound>> }> = []
    for (let round = 0; round < Number(process.env["BENCH_WIDE_ROUNDS"] ?? "3"); round++) {
      rounds.push({ proxy: await proxyRound(), service: await serviceRound() })
    }
    const ratioOf = (r: (typeof rounds)[number]) => r.service.p99 / r.proxy.p99
    const byRatio = rounds.slice().sort((a, b) => ratioOf(a) - ratioOf(b))
    const chosen = byRatio[Math.floor(byRatio.length / 2)]
    if (chosen !== undefined) {
      const { proxy, service } = chosen
      const sortedProbes = service.probes
      rows.push({
        scenario: "10,000 concurrent analyses, provider answers after 2 s",
        metric: "p99 overhead ms",
        service: Math.round(service.p99),
        baseline: Math.round(proxy.p99),
        ratio: round2(ratioOf(chosen)),
        goal: "all complete, <= 3x the proxy (median round)",
        met: rounds.every((r) => r.service.ok === 10_000) && ratioOf(chosen) <= 3,
        detail: {
          rounds: rounds.map((r) => `${Math.round(r.service.p99)}/${Math.round(r.proxy.p99)} ms = ${round2(ratioOf(r))}x`).join(", "),
          completed: rounds.map((r) => r.service.ok).join(" "),
          statuses: statusCounts(service.results),
          // When the failures (if any) ended, in ms after they were sent: tells a timeout from a reset.
          failures_at_ms: service.results.filter((r) => r.status !== 200).slice(0, 10).map((r) => Math.round(r.ms)).join(" "),
          healthz_during_p50_ms: round2(median(sortedProbes)),
          healthz_during_p99_ms: round2(sortedProbes[Math.floor(sortedProbes.length * 0.99)] ?? Number.NaN),
          healthz_during_max_ms: round2(sortedProbes[sortedProbes.length - 1] ?? Number.NaN),
          healthz_probes: sortedProbes.length,
          p50_overhead_ms: Math.round(service.p50),
          peak_rss_mib: round2(service.peak),
          // The proxy's own statuses: under 10,000 new connections at once a few of its sockets are reset.
          proxy_statuses: proxy.statuses
        }
      })
    }
  }

  // 7. 1,000 identical concurrent analyses with the cache on: one provider call.
  if (wants("identical")) {
    const once = await startDouble(500)
    const shared = await startService({ SVC_CACHE: "memory", ANTHROPIC_API_KEY: "sk-bench-0123456789", ANTHROPIC_BASE_URL: once.url })
    const same = JSON.stringify({ trace: trace(50, 4, "same"), mode: "quick" })
    const identical = await Promise.all(Array.from({ length: 1000 }, () => post(`${shared.url}/v1/analyze/lewin`, same, many)))
    const providerCalls = await once.calls()
    rows.push({
      scenario: "1,000 identical concurrent analyses (cache on)",
      metric: "provider calls",
      service: providerCalls,
      baseline: null,
      ratio: null,
      goal: "1",
      met: providerCalls === 1 && identical.every((r) => r.status === 200)
    })
    await stop(shared)
    await stop(once)
  }
  await stop(instant)

  const report = { started: started.toISOString(), rounds: ROUNDS, seconds_per_round: DURATION, connections: CONNECTIONS, machine: machineOf(), rows }
  // latest.json is the full run that docs/performance.md records; partial runs do not replace it.
  writeResults(report, "", ONLY.size === 0 ? "latest.json" : undefined)
}

main().then(() => process.exit(0), (error: unknown) => {
  console.error(error)
  process.exit(1)
})
