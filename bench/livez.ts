/**
 * `/livez` while OTLP traces complete (issue 47 item 2; docs/performance.md "Probes while traces
 * complete", docs/operations.md "Probe behaviour under load"), against the built service
 * (`dist/server.mjs`, one child process on loopback, SQLite in a fresh SVC_HOME, one key,
 * SVC_WORKERS=0; SVC_OTLP_RATE_LIMIT=5000 as in the issue; SVC_OTLP_PENDING_BYTES_PER_SCOPE=8 MiB,
 * an eighth of its default, so a backlog completion does not keep up with reaches it within the
 * run and its 429s show).
 *
 * Load: agent traces of SPANS_PER_TRACE spans (an `invoke_agent` root with its messages over
 * alternating chat and tool spans, all ended, none failed), in OTLP/JSON batches of BATCH spans
 * with new trace ids, offered at 2,000, 4,000 and 8,000 spans/s for
 * WARM_MS and then MEASURE_MS: sent on schedule whatever the answers (open loop, as exporters do),
 * at most IN_FLIGHT at once (the OpenTelemetry JS exporter's concurrency limit: a batch beyond it
 * is dropped, and counted), never retried.
 * Probe: another process (this file with `--probe`, so the sender's own work never delays a probe)
 * asks GET /livez every PROBE_EVERY_MS, taking turns on PROBE_CONNECTIONS kept-alive connections
 * opened before the load; a probe's time counts from when it was due, so a probe held up by a stall,
 * and those due behind it, count the whole stall. (Not a new connection per probe, as kubelet opens:
 * libuv accepts one connection per event-loop iteration, so 50 new connections a second would
 * measure the accept queue, not the service; docs/operations.md.)
 * Each rate runs twice, each on a fresh service: traces completing (SVC_OTLP_QUIET_SECONDS=1: a
 * trace becomes a run, `skipped: not_failed`, about a second after it arrived) and its baseline,
 * the same load with nothing completing (quiet and maximum-age windows of days, the pending bounds
 * lifted so it keeps all it is sent: the intake's own cost).
 * Reported per rate: /livez p50, p99 and max over the measured window; spans/s accepted (200
 * answers); 429s by cause (the rate limit, or the pending bytes) and whether each had a
 * Retry-After; batches dropped; traces completed per second (`svc_otlp_traces_total`), the
 * backlog left when the load stopped, in seconds of load (kept up: 2 s or less: the quiet window
 * and a round), and how fast that backlog then completes with nothing else to do (completion
 * alone); the service's CPU time over the load's wall time.
 * Goals: p99 < 100 ms at every rate; no 429 where the offered rate is below both the rate limit and
 * what completion keeps up with; below the limit but above what completion keeps up with, 429s only
 * from the pending bounds; every 429 with Retry-After.
 *
 * BENCH_LIVEZ_RATES=2000,4000 runs some rates (and does not replace livez-latest.json);
 * BENCH_LIVEZ_CPU_PROF=<dir> runs each service with --cpu-prof into that directory.
 * Writes bench/results/livez-<time>.json, and livez-latest.json on a run of every rate.
 *
 *   npx tsx bench/livez.ts   (part of `npm run bench`, which builds first;
 *   BENCH_LIVEZ_SERVER=/path/to/server.mjs measures another build)
 */
import { fork } from "node:child_process"
import { Agent, type IncomingHttpHeaders, request as httpRequest } from "node:http"
import { join, relative } from "node:path"
import { performance } from "node:perf_hooks"
import { fileURLToPath } from "node:url"
import { BENCH_KEY, cpuMsOf, launchService, type LaunchedService, machineOf, round2, type Row, stopChild, track, writeResults, START_FLAGS } from "./support.js"

const repo = join(import.meta.dirname, "..")
const THIS_FILE = fileURLToPath(import.meta.url)
const SERVER = process.env["BENCH_LIVEZ_SERVER"] ?? join(repo, "dist", "server.mjs")
/** The node flags `npm start` runs the service with, so the bench measures what users run. */

const CPU_PROF = process.env["BENCH_LIVEZ_CPU_PROF"]

const ALL_RATES = [2_000, 4_000, 8_000]
const RATES = (process.env["BENCH_LIVEZ_RATES"] ?? "").split(",").map(Number).filter((rate) => rate > 0)
const BATCH = 200
/** An agent's run: its `invoke_agent` span over alternating chat and tool calls. */
const SPANS_PER_TRACE = 10
const IN_FLIGHT = 30
const WARM_MS = 2_000
const MEASURE_MS = 10_000
const PROBE_EVERY_MS = 20
/** Connections the probes take turns on: each probes every 200 ms, so a slow answer does not hold up the next. */
const PROBE_CONNECTIONS = 10
/** A probe given up after this long counts as failed (a kubelet's would have timed out long before). */
const PROBE_TIMEOUT_MS = 30_000
/** The backlog, in seconds of load, under which completion kept up: the quiet window and a round. */
const KEPT_UP_S = 2
const GOAL_P99_MS = 100
/** After the load, a backlog completion did not keep up with (and of this many traces at least) is timed as it completes, for at most DRAIN_MS. */
const DRAIN_AT_LEAST = 200
const DRAIN_MS = 20_000
/** SVC_OTLP_RATE_LIMIT as the issue ran it: 2,000 and 4,000 spans/s are below it, 8,000 above. */
const RATE_LIMIT = 5_000
/** SVC_OTLP_PENDING_BYTES_PER_SCOPE: about 4 s of backlog at 4,000 spans/s of these traces. */
const PENDING_BYTES_PER_SCOPE = 8 * 2 ** 20

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const quantile = (sorted: ReadonlyArray<number>, q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? Number.NaN

// ---------------------------------------------------------------------------------------------
// The probe, in its own process: GET /livez on schedule over PROBE_CONNECTIONS kept-alive connections

const probe = (url: string) => {
  const latencies: Array<number> = []
  let failed = 0
  let measuring = false
  let stopped = false
  const once = (agent: Agent) =>
    new Promise<boolean>((resolve) => {
      const req = httpRequest(`${url}/livez`, { agent }, (res) => {
        res.resume()
        res.on("end", () => resolve(res.statusCode === 200))
      })
      req.setTimeout(PROBE_TIMEOUT_MS, () => req.destroy())
      req.on("error", () => resolve(false))
      req.end()
    })
  process.on("message", (message) => {
    if (message === "measure") measuring = true
    if (message === "stop") stopped = true
  })
  // connection `c` probes at its turn, every PROBE_CONNECTIONS * PROBE_EVERY_MS
  const connection = async (c: number, agent: Agent, started: number) => {
    for (let k = 0; !stopped; k++) {
      const due = started + (k * PROBE_CONNECTIONS + c) * PROBE_EVERY_MS
      const wait = due - performance.now()
      if (wait > 0) await sleep(wait)
      const recorded = measuring
      // from when it was due: a probe held up by a stall, and those due behind it, count it whole
      const ok = await once(agent)
      if (!recorded) continue
      if (ok) latencies.push(performance.now() - due)
      else failed += 1
    }
    agent.destroy()
  }
  const run = async () => {
    const agents = Array.from({ length: PROBE_CONNECTIONS }, () => new Agent({ keepAlive: true, maxSockets: 1 }))
    // the connections opened before the load: libuv accepts one connection per event-loop
    // iteration, so probes on new connections would measure the accept queue too
    await Promise.all(agents.map((agent) => once(agent)))
    process.send?.("ready")
    const started = performance.now()
    await Promise.all(agents.map((agent, c) => connection(c, agent, started)))
    process.send?.({ latencies, failed })
    process.disconnect()
  }
  void run()
}

interface Probes {
  readonly latencies: ReadonlyArray<number>
  readonly failed: number
}

const isProbes = (value: unknown): value is Probes =>
  typeof value === "object" && value !== null && Array.isArray(Reflect.get(value, "latencies")) && typeof Reflect.get(value, "failed") === "number"

/** The probe process against `url`, its connections open: `measure()` starts recording, `stop()` ends it with what it measured. */
const startProbe = async (url: string) => {
  const child = track(fork(THIS_FILE, ["--probe", url], { cwd: repo, execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] }))
  const exited = new Promise<never>((_resolve, reject) => child.once("exit", (code) => reject(new Error(`the probe exited (${code})`))))
  // a probe that died early fails what waits on it, not the process
  exited.catch(() => undefined)
  await Promise.race([new Promise<void>((resolve) => child.once("message", () => resolve())), exited])
  const result = Promise.race([
    new Promise<Probes>((resolve, reject) => child.once("message", (message) => (isProbes(message) ? resolve(message) : reject(new Error("the probe sent something else"))))),
    exited
  ])
  result.catch(() => undefined)
  return {
    measure: () => child.send("measure"),
    stop: async (): Promise<Probes> => {
      child.send("stop")
      return result
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The load: agent traces, open loop

let traceCounter = 0
const hex = (n: number, digits: number) => n.toString(16).padStart(digits, "0")
const str = (key: string, value: string) => ({ key, value: { stringValue: value } })

/** A batch of `spans` spans: traces of SPANS_PER_TRACE, each a new trace id. */
const batchBody = (spans: number): string => {
  const now = BigInt(Date.now()) * 1_000_000n
  const at = (ms: number) => String(now - 10_000_000_000n + BigInt(ms) * 1_000_000n)
  const items: Array<Record<string, unknown>> = []
  for (let t = 0; t < spans / SPANS_PER_TRACE; t++) {
    traceCounter += 1
    const n = traceCounter
    const traceId = `${hex(process.pid & 0xffff, 8)}${hex(n, 16)}${"5a".repeat(4)}`
    const root = `${hex(n, 12)}0000`
    items.push({
      traceId,
      spanId: root,
      name: "invoke_agent support",
      kind: 1,
      startTimeUnixNano: at(0),
      endTimeUnixNano: at(SPANS_PER_TRACE * 100),
      attributes: [
        str("gen_ai.operation.name", "invoke_agent"),
        str("gen_ai.agent.name", "support"),
        str("gen_ai.input.messages", JSON.stringify([{ role: "user", parts: [{ type: "text", content: `Where is my parcel ${n}? It was due on Monday.` }] }])),
        str("gen_ai.output.messages", JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: `Parcel ${n} left the depot this morning; it arrives tomorrow.` }], finish_reason: "stop" }]))
      ],
      events: [],
      links: [],
      status: { code: 1 }
    })
    for (let i = 1; i < SPANS_PER_TRACE; i++) {
      const chat = i % 2 === 1
      items.push({
        traceId,
        spanId: `${hex(n, 12)}${hex(i, 4)}`,
        parentSpanId: root,
        name: chat ? "chat gpt-4o" : "execute_tool track_parcel",
        kind: chat ? 3 : 1,
        startTimeUnixNano: at(i * 100),
        endTimeUnixNano: at(i * 100 + 80),
        attributes: chat
          ? [
            str("gen_ai.operation.name", "chat"),
            str("gen_ai.request.model", "gpt-4o"),
            str("gen_ai.input.messages", JSON.stringify([{ role: "user", parts: [{ type: "text", content: `Track parcel ${n}, step ${i}.` }] }])),
            str("gen_ai.output.messages", JSON.stringify([{ role: "assistant", parts: [{ type: "tool_call", id: `call_${n}_${i}`, name: "track_parcel", arguments: { parcel: n } }] }]))
          ]
          : [
            str("gen_ai.operation.name", "execute_tool"),
            str("gen_ai.tool.name", "track_parcel"),
            str("gen_ai.tool.call.id", `call_${n}_${i - 1}`),
            str("gen_ai.tool.call.result", JSON.stringify({ parcel: n, status: "in transit", depot: `depot ${i}` }))
          ],
        events: [],
        links: [],
        status: { code: 1 }
      })
    }
  }
  return JSON.stringify({ resourceSpans: [{ resource: { attributes: [str("service.name", "support-agent")] }, scopeSpans: [{ scope: { name: "bench" }, spans: items }] }] })
}

interface Answer {
  readonly status: number
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

const post = (url: string, body: string, agent: Agent) =>
  new Promise<Answer>((resolve) => {
    const req = httpRequest(`${url}/v1/traces`, {
      method: "POST",
      agent,
      headers: { "content-type": "application/json", authorization: `Bearer ${BENCH_KEY}`, "content-length": Buffer.byteLength(body) }
    }, (res) => {
      let text = ""
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => (text += chunk))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }))
    })
    req.on("error", (error) => resolve({ status: 0, headers: {}, body: error.message }))
    req.end(body)
  })

interface Tally {
  batches: number
  dropped: number
  acceptedSpans: number
  rejectedSpans: number
  statuses: Record<string, number>
  rateLimited: number
  pendingBound: number
  otherRefusals: number
  withoutRetryAfter: number
  /** No HTTP answer (a reset): an exporter sends the batch again; not a refusal. */
  connectionErrors: number
}

const newTally = (): Tally => ({
  batches: 0,
  dropped: 0,
  acceptedSpans: 0,
  rejectedSpans: 0,
  statuses: {},
  rateLimited: 0,
  pendingBound: 0,
  otherRefusals: 0,
  withoutRetryAfter: 0,
  connectionErrors: 0
})

const record = (tally: Tally, answer: Answer) => {
  tally.statuses[String(answer.status)] = (tally.statuses[String(answer.status)] ?? 0) + 1
  if (answer.status === 200) {
    // a partial success names the spans refused (JSON: rejectedSpans as a string int64)
    const rejected = Number(/"rejectedSpans":"?(\d+)/.exec(answer.body)?.[1] ?? 0)
    tally.rejectedSpans += rejected
    tally.acceptedSpans += BATCH - rejected
    return
  }
  if (answer.status === 0) {
    tally.connectionErrors += 1
    return
  }
  if (answer.status !== 429) {
    tally.otherRefusals += 1
    return
  }
  if (answer.headers["retry-after"] === undefined) tally.withoutRetryAfter += 1
  if (answer.body.includes("SVC_OTLP_RATE_LIMIT")) tally.rateLimited += 1
  else if (answer.body.includes("SVC_OTLP_PENDING_BYTES")) tally.pendingBound += 1
  else tally.otherRefusals += 1
}

/**
 * `rate` spans/s for `warmMs` then `measureMs`, on schedule: the batches sent in the measured window
 * are tallied. Resolves when every batch sent was answered.
 */
const offer = async (url: string, rate: number, warmMs: number, measureMs: number, onMeasure: () => void) => {
  // an idle connection dropped before the service's 5 s idle timeout closes it under a request
  const agent = new Agent({ keepAlive: true, maxSockets: IN_FLIGHT, timeout: 4_000 })
  const warm = newTally()
  const measured = newTally()
  const interval = (BATCH / rate) * 1000
  const answers: Array<Promise<void>> = []
  let inFlight = 0
  const started = performance.now()
  const measureFrom = started + warmMs
  const end = measureFrom + measureMs
  let measuring = false
  for (let k = 0; ; k++) {
    const at = started + k * interval
    if (at >= end) break
    const wait = at - performance.now()
    if (wait > 0) await sleep(wait)
    if (!measuring && at >= measureFrom) {
      measuring = true
      onMeasure()
    }
    const tally = at >= measureFrom ? measured : warm
    tally.batches += 1
    if (inFlight >= IN_FLIGHT) {
      tally.dropped += 1
      continue
    }
    inFlight += 1
    answers.push(post(url, batchBody(BATCH), agent).then((answer) => {
      inFlight -= 1
      record(tally, answer)
    }))
  }
  const loadMs = performance.now() - started
  await Promise.all(answers)
  agent.destroy()
  return { warm, measured, loadMs }
}

/** The sum of a metric's samples (every label set) in a /metrics text. */
const metricTotal = (text: string, name: string): number =>
  text
    .split("\n")
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(" ") + 1)), 0)

const completedTraces = async (url: string) => metricTotal(await (await fetch(`${url}/metrics`)).text(), "svc_otlp_traces_total")

// ---------------------------------------------------------------------------------------------
// One rate on one service

interface Measured {
  readonly rate: number
  readonly completing: boolean
  readonly probes: Probes
  readonly tally: Tally
  readonly acceptedPerS: number
  /** Traces completed per second over the load, and the backlog left when it stopped (seconds of load). */
  readonly completedPerS: number
  readonly backlogS: number
  /** Traces completed per second once the load stopped, while a backlog was left: completion alone. */
  readonly drainPerS: number | null
  /** The service's CPU time over the load's wall time (1 = one core). */
  readonly cpuShare: number
}

const measure = async (rate: number, completing: boolean): Promise<Measured> => {
  // the baseline keeps all it is sent (its pending bounds lifted): the intake's own cost, beside completing
  const windows = completing
    ? { SVC_OTLP_QUIET_SECONDS: "1", SVC_OTLP_PENDING_BYTES_PER_SCOPE: String(PENDING_BYTES_PER_SCOPE) }
    : { SVC_OTLP_QUIET_SECONDS: "86400", SVC_OTLP_MAX_AGE_SECONDS: "604800", SVC_OTLP_PENDING_BYTES: String(2 ** 40), SVC_OTLP_PENDING_BYTES_PER_SCOPE: String(2 ** 40) }
  const env = { SVC_OTLP_RATE_LIMIT: String(RATE_LIMIT), ...windows }
  const flags = CPU_PROF === undefined ? START_FLAGS : [...START_FLAGS, "--cpu-prof", `--cpu-prof-dir=${CPU_PROF}`, `--cpu-prof-name=livez-${rate}-${completing ? "completing" : "baseline"}-${Date.now()}.cpuprofile`]
  const service: LaunchedService = await launchService(SERVER, flags, { SVC_WORKERS: "0", SVC_DRAIN_DELAY_SECONDS: "0", SVC_CACHE: "off", ...env })
  try {
    const probe = await startProbe(service.url)
    const cpuBefore = cpuMsOf(service.child.pid)
    const { loadMs, measured, warm } = await offer(service.url, rate, WARM_MS, MEASURE_MS, probe.measure)
    const cpuShare = (cpuMsOf(service.child.pid) - cpuBefore) / loadMs
    const probes = await probe.stop()
    const completed = await completedTraces(service.url)
    // in traces (what completes); a batch holds whole traces
    const accepted = (warm.acceptedSpans + measured.acceptedSpans) / SPANS_PER_TRACE
    // the backlog left, completed with nothing else to do: what completion alone keeps up with
    let drainPerS: number | null = null
    const backlogS = (accepted - completed) / Math.max(1, accepted / (loadMs / 1000))
    if (completing && backlogS > KEPT_UP_S && accepted - completed >= DRAIN_AT_LEAST) {
      const from = performance.now()
      let now = completed
      while (now < accepted && performance.now() - from < DRAIN_MS) {
        await sleep(250)
        now = await completedTraces(service.url)
      }
      drainPerS = (now - completed) / ((performance.now() - from) / 1000)
    }
    return {
      rate,
      completing,
      probes,
      tally: measured,
      acceptedPerS: measured.acceptedSpans / (MEASURE_MS / 1000),
      completedPerS: completed / (loadMs / 1000),
      backlogS,
      drainPerS,
      cpuShare
    }
  } finally {
    await stopChild(service.child)
  }
}

const rowsOf = (completing: Measured, baseline: Measured): Array<Row> => {
  const p = (run: Measured, q: number) => round2(quantile(run.probes.latencies.slice().sort((a, b) => a - b), q))
  const keptUp = completing.backlogS <= KEPT_UP_S
  const t = completing.tally
  const refusals = t.rateLimited + t.pendingBound + t.otherRefusals
  // below the rate limit, none from it; below what completion keeps up with too, none at all; every 429 with Retry-After
  const belowLimit = completing.rate < RATE_LIMIT
  const met429 = t.otherRefusals === 0 && t.withoutRetryAfter === 0 && (!belowLimit || t.rateLimited === 0) && (!belowLimit || !keptUp || refusals === 0)
  const offered = `${completing.rate.toLocaleString("en")} spans/s offered (traces of ${SPANS_PER_TRACE} spans, batches of ${BATCH}, ${MEASURE_MS / 1000} s after ${WARM_MS / 1000} s)`
  return [
    {
      scenario: `GET /livez every ${PROBE_EVERY_MS} ms, ${offered}, traces completing (SVC_OTLP_QUIET_SECONDS=1); baseline: the same load, nothing completing`,
      metric: "/livez p99 ms",
      service: p(completing, 0.99),
      baseline: p(baseline, 0.99),
      ratio: round2(p(completing, 0.99) / p(baseline, 0.99)),
      goal: `< ${GOAL_P99_MS} ms`,
      met: p(completing, 0.99) < GOAL_P99_MS && completing.probes.failed === 0,
      detail: {
        p50_ms: p(completing, 0.5),
        max_ms: p(completing, 1),
        probes: completing.probes.latencies.length,
        probes_failed: completing.probes.failed,
        baseline_p50_ms: p(baseline, 0.5),
        baseline_max_ms: p(baseline, 1),
        baseline_probes_failed: baseline.probes.failed
      }
    },
    {
      scenario: `POST /v1/traces, ${offered}, traces completing; baseline: the same load, nothing completing`,
      metric: "spans/s accepted",
      service: Math.round(completing.acceptedPerS),
      baseline: Math.round(baseline.acceptedPerS),
      ratio: round2(completing.acceptedPerS / baseline.acceptedPerS),
      goal: `no 429 below the rate limit (${RATE_LIMIT.toLocaleString("en")}) and what completion keeps up with; under the limit, 429 only from the pending bounds; all with Retry-After`,
      met: met429,
      detail: {
        traces_completed_per_s: Math.round(completing.completedPerS),
        traces_completed_per_s_after_the_load: completing.drainPerS === null ? "kept up" : Math.round(completing.drainPerS),
        service_cpu_share: round2(completing.cpuShare),
        baseline_service_cpu_share: round2(baseline.cpuShare),
        backlog_s: round2(completing.backlogS),
        kept_up: keptUp ? "yes" : "no",
        statuses: JSON.stringify(t.statuses),
        refused_429_rate_limit: t.rateLimited,
        refused_429_pending_bytes: t.pendingBound,
        refused_other: t.otherRefusals,
        connection_errors: t.connectionErrors,
        refused_429_without_retry_after: t.withoutRetryAfter,
        spans_rejected_in_partial_success: t.rejectedSpans,
        batches_dropped_at_sender: t.dropped,
        baseline_statuses: JSON.stringify(baseline.tally.statuses),
        baseline_batches_dropped_at_sender: baseline.tally.dropped
      }
    }
  ]
}

const main = async () => {
  const at = process.argv.indexOf("--probe")
  const probeUrl = at >= 0 ? process.argv[at + 1] : undefined
  if (probeUrl !== undefined) return probe(probeUrl)
  const started = new Date()
  const rates = RATES.length > 0 ? RATES : ALL_RATES
  const rows: Array<Row> = []
  for (const rate of rates) {
    const completing = await measure(rate, true)
    const baseline = await measure(rate, false)
    rows.push(...rowsOf(completing, baseline))
  }
  const report = { started: started.toISOString(), scenario: "livez", server: relative(repo, SERVER), rates, machine: machineOf(), rows }
  writeResults(report, "livez-", RATES.length === 0 ? "livez-latest.json" : undefined)
  process.exit(0)
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
