/**
 * The service's own spans (DECISIONS §21, issue 37): what exporting them costs, on this checkout's
 * build (`dist/server.mjs`), against the same build with no OTEL_* variable (no span made), in one
 * run on one machine (these machines are noisy: only ratios measured in one run mean anything).
 *
 * A loopback OTLP sink (a `node:http` server in this process) takes `POST /v1/traces` in any
 * content type, keeps the body and answers 200 with an empty body of the same type; the spans in
 * what it kept are counted (and named) between measurements, never while one runs. Each round
 * (BENCH_ROUNDS, at least 5) starts the build three ways, in an order that rotates round by round:
 * - off: no OTEL_* variable;
 * - on: OTEL_EXPORTER_OTLP_ENDPOINT=<sink> (http/protobuf, the default);
 * - on-json: the same with OTEL_EXPORTER_OTLP_PROTOCOL=http/json;
 * the "on" ones with OTEL_BSP_SCHEDULE_DELAY=BENCH_OTEL_DELAY ms (default 1000; the batch also
 * goes when it holds 512 spans, which it does well within a second under this load). On each, as
 * bench/compare.ts measures them:
 * - CPU per quick analysis: process CPU (/proc) over ANALYSES analyses (default 1,000), 32 at a
 *   time, each a new trace, cache off, instant provider double, after 200 unmeasured ones; the
 *   measurement ends a batch delay and a half second after the last answer, so the last batch's
 *   export is in it (the same wait for off);
 * - cache-hit requests per second: SVC_CACHE=memory, one identical body, autocannon, 64
 *   connections for BENCH_SECONDS (default 3) after one unmeasured second;
 * - for the "on" ones, the spans the sink received per analysis (each service stopped first, so
 *   its last batch is flushed): about 3 for a quick analysis (server, `lens <pattern>`,
 *   `chat <model>`), more with more model calls; and per cache hit (a server span; fewer means
 *   the batch processor's queue dropped some).
 * Reported: the median of each variant and the median of the per-round ratios on / off. The cost
 * is documented, not held to a number: the goal column says "measured" (the span counts say
 * whether the export works at all).
 *
 *   npx tsx bench/telemetry.ts   (part of `npm run bench`, which builds first; BENCH_ONLY=telemetry)
 */
import autocannon from "autocannon"
import { Agent, createServer } from "node:http"
import { join } from "node:path"
import { Either, Predicate } from "effect"
import { decodeTraces } from "../src/Otlp/Wire/Proto.js"
import {
  BENCH_KEY,
  cpuMsOf,
  launchService,
  ledgerTrace,
  machineOf,
  median,
  postJson,
  round2,
  type Row,
  startDouble,
  stopChild,
  writeResults,
  START_FLAGS
} from "./support.js"

const repo = join(import.meta.dirname, "..")
const SERVER = join(repo, "dist", "server.mjs")
const ONLY = new Set((process.env["BENCH_ONLY"] ?? "").split(",").map((name) => name.trim()).filter((name) => name.length > 0))
/** The node flags `npm start` runs the service with, so the bench measures what users run. */
const ROUNDS = Math.max(5, Number(process.env["BENCH_ROUNDS"] ?? 5))
const SECONDS = Number(process.env["BENCH_SECONDS"] ?? 3)
const ANALYSES = Number(process.env["BENCH_TELEMETRY_ANALYSES"] ?? 1000)
const WARM_ANALYSES = 200
const CONCURRENCY = 32
const DELAY_MS = Number(process.env["BENCH_OTEL_DELAY"] ?? 1000)
const SETTLE_MS = DELAY_MS + 500

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

// ---------------------------------------------------------------------------------------------
// The sink

/** What the sink received since it was last asked. */
interface Received {
  readonly requests: number
  readonly bytes: number
  readonly spans: number
  /** Bodies whose spans could not be read (neither OTLP protobuf nor OTLP/JSON). */
  readonly unreadable: number
  readonly byName: ReadonlyMap<string, number>
}

const PROTOBUF = "application/x-protobuf"

const arrayAt = (value: unknown, key: string): ReadonlyArray<unknown> => {
  const field: unknown = Predicate.isRecord(value) ? value[key] : undefined
  return Array.isArray(field) ? field : []
}

/** The names of the spans of one OTLP/HTTP traces body; undefined when it is neither encoding. */
const spanNamesOf = (contentType: string, body: Buffer): ReadonlyArray<string> | undefined => {
  if (contentType.startsWith("application/json")) {
    let parsed: unknown
    try {
      parsed = JSON.parse(body.toString("utf8"))
    } catch {
      return undefined
    }
    if (!Predicate.isRecord(parsed)) return undefined
    return arrayAt(parsed, "resourceSpans").flatMap((resource) => arrayAt(resource, "scopeSpans")).flatMap((scope) => arrayAt(scope, "spans"))
      .map((span) => Predicate.isRecord(span) && typeof span["name"] === "string" ? span["name"] : "(unnamed)")
  }
  const decoded = decodeTraces(body)
  return Either.isRight(decoded) ? decoded.right.resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans.map((span) => span.name))) : undefined
}

/**
 * The OTLP sink on a loopback port: keeps each body (reading it is all it does while a measurement
 * runs) and counts spans in `take`, which also forgets what it counted.
 */
const startSink = () =>
  new Promise<{ readonly url: string; readonly take: () => Received; readonly close: () => Promise<void> }>((resolve, reject) => {
    let kept: Array<{ readonly contentType: string; readonly body: Buffer }> = []
    const server = createServer((req, res) => {
      if (req.method !== "POST" || req.url !== "/v1/traces") {
        res.writeHead(404).end()
        return
      }
      const contentType = req.headers["content-type"] ?? PROTOBUF
      const chunks: Array<Buffer> = []
      req.on("data", (chunk: Buffer) => chunks.push(chunk))
      req.on("end", () => {
        kept.push({ contentType, body: Buffer.concat(chunks) })
        res.writeHead(200, { "content-type": contentType, "content-length": 0 }).end()
      })
    })
    const take = (): Received => {
      const bodies = kept
      kept = []
      const byName = new Map<string, number>()
      let spans = 0
      let unreadable = 0
      for (const { contentType, body } of bodies) {
        const names = spanNamesOf(contentType, body)
        if (names === undefined) unreadable += 1
        for (const name of names ?? []) byName.set(name, (byName.get(name) ?? 0) + 1)
        spans += names?.length ?? 0
      }
      return { requests: bodies.length, bytes: bodies.reduce((sum, { body }) => sum + body.length, 0), spans, unreadable, byName }
    }
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      resolve({ url: `http://127.0.0.1:${port}`, take, close: () => new Promise((done) => server.close(() => done())) })
    })
  })

// ---------------------------------------------------------------------------------------------
// One variant in one round

const VARIANTS = ["off", "on", "on-json"] as const
type Variant = typeof VARIANTS[number]

const telemetryEnv = (variant: Variant, sinkUrl: string): Record<string, string> => {
  if (variant === "off") return {}
  const on = { OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl, OTEL_BSP_SCHEDULE_DELAY: String(DELAY_MS) }
  return variant === "on-json" ? { ...on, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" } : on
}

interface Measured {
  readonly cpuMs: number
  readonly hitRps: number
  /** Spans received per analyze request (warm-up included), and per cache-hit request. */
  readonly spansPerAnalysis: number
  readonly spansPerHit: number
  readonly bytesPerAnalysisSpan: number
  readonly exportsPerAnalysis: number
  readonly unreadable: number
  /** Every span received from both services (off: none is expected). */
  readonly spansReceived: number
  readonly namesPerAnalysis: Record<string, number>
}

/** The server spans of `launchService`'s readiness polling: not the analyses'. */
const isProbe = (name: string) => name === "GET /readyz"
const isAnalysisStep = (name: string) => name.startsWith("lens ") || name.startsWith("chat ")
const spansNamed = (received: Received, predicate: (name: string) => boolean) =>
  [...received.byName].filter(([name]) => predicate(name)).reduce((sum, [, count]) => sum + count, 0)

/** Spans of each name per request, the probes' left out. */
const perRequest = (received: Received, requests: number) =>
  Object.fromEntries([...received.byName].filter(([name]) => !isProbe(name)).sort(([a], [b]) => a.localeCompare(b)).map(([name, count]) => [name, round2(count / requests)]))

const measure = async (variant: Variant, doubleUrl: string, sink: Awaited<ReturnType<typeof startSink>>): Promise<Measured> => {
  const env = {
    ANTHROPIC_API_KEY: "sk-bench-0123456789",
    ANTHROPIC_BASE_URL: doubleUrl,
    SVC_API_MAX_TOTAL_CHARS: "8000000",
    ...telemetryEnv(variant, sink.url)
  }
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY })
  sink.take()

  // Cache hits: one identical body, answered from the memory cache; a second of it unmeasured first.
  const cached = await launchService(SERVER, START_FLAGS, { ...env, SVC_CACHE: "memory" })
  const small = JSON.stringify({ trace: ledgerTrace(50, 4, "cache"), mode: "quick" })
  const first = await postJson(`${cached.url}/v1/analyze/lewin`, small, agent)
  if (first.status !== 200) throw new Error(`${variant}: analyze answered ${first.status}: ${first.error ?? ""}`)
  const hitLoad = async (duration: number) => {
    const result = await autocannon({
      url: `${cached.url}/v1/analyze/lewin`,
      connections: 64,
      duration,
      method: "POST",
      body: small,
      headers: { authorization: `Bearer ${BENCH_KEY}`, "content-type": "application/json" }
    })
    if (result.non2xx > 0 || result.errors > 0) throw new Error(`${variant}: cache hits answered ${result.non2xx} non-2xx and ${result.errors} errors`)
    return result.requests
  }
  const warm = await hitLoad(1)
  const load = await hitLoad(SECONDS)
  await stopChild(cached.child)
  const hits = sink.take()

  // CPU per quick analysis: new traces, no cache, the provider double answering at once.
  const uncached = await launchService(SERVER, START_FLAGS, env)
  const quick = (i: number) => JSON.stringify({ trace: ledgerTrace(20, 2, `cpu-${variant}-${i}-${Math.random()}`), mode: "quick" })
  const analyze = async (i: number) => {
    const answer = await postJson(`${uncached.url}/v1/analyze/lewin`, quick(i), agent)
    if (answer.status !== 200) throw new Error(`${variant}: analyze answered ${answer.status}: ${answer.error ?? ""}`)
  }
  for (let i = 0; i < WARM_ANALYSES; i++) await analyze(i)
  const before = cpuMsOf(uncached.child.pid)
  for (let batch = 0; batch < ANALYSES / CONCURRENCY; batch++) {
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, ANALYSES - batch * CONCURRENCY) }, (_, i) => analyze(WARM_ANALYSES + batch * CONCURRENCY + i)))
  }
  // The last batch's export happens up to a batch delay after the last answer: measured too.
  await sleep(SETTLE_MS)
  const cpuMs = (cpuMsOf(uncached.child.pid) - before) / ANALYSES
  await stopChild(uncached.child)
  agent.destroy()
  const analyses = sink.take()

  const analyzeRequests = WARM_ANALYSES + ANALYSES
  return {
    cpuMs,
    hitRps: load.average,
    spansPerAnalysis: (analyses.spans - spansNamed(analyses, isProbe)) / analyzeRequests,
    // the server spans of the hits: not the readiness probes', nor the first request's (a miss, with a lens and a model call)
    spansPerHit: (spansNamed(hits, (name) => !isProbe(name) && !isAnalysisStep(name)) - Math.min(1, hits.spans)) / (warm.total + load.total),
    bytesPerAnalysisSpan: analyses.spans > 0 ? analyses.bytes / analyses.spans : Number.NaN,
    exportsPerAnalysis: analyses.requests / analyzeRequests,
    unreadable: hits.unreadable + analyses.unreadable,
    spansReceived: hits.spans + analyses.spans,
    namesPerAnalysis: perRequest(analyses, analyzeRequests)
  }
}

// ---------------------------------------------------------------------------------------------

const main = async () => {
  if (ONLY.size > 0 && !ONLY.has("telemetry")) return
  const started = new Date()
  const sink = await startSink()
  const double = await startDouble(0)
  const rounds: Array<Record<Variant, Measured>> = []
  for (let round = 0; round < ROUNDS; round++) {
    // Rotate which goes first, so drift across a round weighs on each alike.
    const order = VARIANTS.map((_, i) => VARIANTS[(i + round) % VARIANTS.length] ?? "off")
    const results = new Map<Variant, Measured>()
    for (const variant of order) results.set(variant, await measure(variant, double.url, sink))
    const of = (variant: Variant): Measured => {
      const measured = results.get(variant)
      if (measured === undefined) throw new Error(`round ${round + 1}: ${variant} not measured`)
      return measured
    }
    rounds.push({ off: of("off"), on: of("on"), "on-json": of("on-json") })
    console.log(`round ${round + 1}/${ROUNDS} done (${order.join(", ")}): ` +
      VARIANTS.map((variant) => `${variant} ${round2(of(variant).cpuMs)} ms/analysis ${Math.round(of(variant).hitRps)} hits/s`).join("; "))
  }
  await stopChild(double.child)
  await sink.close()

  const medianOf = (variant: Variant, pick: (measured: Measured) => number) => median(rounds.map((round) => pick(round[variant])))
  const ratioRow = (variant: "on" | "on-json", metric: string, scenario: string, pick: (measured: Measured) => number): Row => {
    const ratios = rounds.map((round) => pick(round[variant]) / pick(round.off))
    return {
      scenario: `${scenario}: ${variant} (${variant === "on" ? "http/protobuf" : "http/json"}) vs off`,
      metric,
      service: round2(medianOf(variant, pick)),
      baseline: round2(medianOf("off", pick)),
      ratio: round2(median(ratios)),
      goal: "measured",
      met: null,
      detail: { ratios: ratios.map(round2).join(" "), [variant]: rounds.map((round) => round2(pick(round[variant]))).join(" "), off: rounds.map((round) => round2(pick(round.off))).join(" ") }
    }
  }
  const spansRow = (variant: "on" | "on-json"): Row => {
    const spans = medianOf(variant, (measured) => measured.spansPerAnalysis)
    const last = rounds[rounds.length - 1]?.[variant]
    return {
      scenario: `spans the sink received per quick analysis (server, lens, chat), ${variant === "on" ? "http/protobuf" : "http/json"}`,
      metric: "spans per analysis",
      service: round2(spans),
      baseline: null,
      ratio: null,
      goal: "measured (> 0: the export works)",
      met: spans > 0,
      detail: {
        ...(last?.namesPerAnalysis ?? {}),
        spans_per_cache_hit: round2(medianOf(variant, (measured) => measured.spansPerHit)),
        spans_per_cache_hit_by_round: rounds.map((round) => round2(round[variant].spansPerHit)).join(" "),
        bytes_per_span: Math.round(medianOf(variant, (measured) => measured.bytesPerAnalysisSpan)),
        exports_per_1000_analyses: round2(1000 * medianOf(variant, (measured) => measured.exportsPerAnalysis)),
        unreadable_bodies: rounds.reduce((sum, round) => sum + round[variant].unreadable, 0),
        spans_received_from_off: rounds.reduce((sum, round) => sum + round.off.spansReceived, 0)
      }
    }
  }
  const cpuScenario = `quick analysis, cache off, instant provider double, ${ANALYSES} analyses ${CONCURRENCY} at a time`
  const hitScenario = `cache hit of a 50-step analyze, autocannon 64 connections ${SECONDS} s`
  const rows: Array<Row> = [
    ratioRow("on", "CPU ms per analysis", cpuScenario, (measured) => measured.cpuMs),
    ratioRow("on-json", "CPU ms per analysis", cpuScenario, (measured) => measured.cpuMs),
    ratioRow("on", "cache-hit requests/s", hitScenario, (measured) => measured.hitRps),
    ratioRow("on-json", "cache-hit requests/s", hitScenario, (measured) => measured.hitRps),
    spansRow("on"),
    spansRow("on-json")
  ]
  for (const row of rows) if (row.met === false) console.error(`bench/telemetry.ts: ${row.scenario}: no span received, the export does not work`)
  writeResults(
    { started: started.toISOString(), scenario: "telemetry", rounds: ROUNDS, analyses: ANALYSES, seconds: SECONDS, batch_delay_ms: DELAY_MS, machine: machineOf(), rows },
    "telemetry-",
    "telemetry-latest.json"
  )
}

main().then(() => process.exit(0), (error: unknown) => {
  console.error(error)
  process.exit(1)
})
