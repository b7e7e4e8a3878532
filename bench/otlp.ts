/**
 * OTLP in (DECISIONS §18, docs/otlp.md) against the built service (`dist/server.mjs`, one child
 * process on loopback, SQLite in a fresh SVC_HOME, one key, SVC_WORKERS=0: nothing is diagnosed,
 * intake is what is measured). Two questions:
 *
 * a. **Spans per second accepted**, `POST /v1/traces` in protobuf and in OTLP/JSON, against a
 *    baseline in the same run: a plain `node:http` server (its own child process, this file with
 *    `--baseline`) that reads the body, decodes it with the receiver's own codec (`decodeTraces`
 *    from src/Otlp/Wire/Proto.ts: the one-pass reader of TracesReader.ts) or `JSON.parse`s it,
 *    discards it and answers 200.
 *    Load: batches of 512 GenAI-like spans (8 traces of 64: an `invoke_agent` root over `chat` and
 *    `execute_tool` spans, about 10 attributes each, message content strings of a few hundred
 *    bytes), new trace ids in every request (patched into one encoded template), sent by this
 *    process (not the service's) over CONNECTIONS keep-alive connections for a fixed time after
 *    a warm-up; rounds interleave baseline, protobuf and JSON (a fresh service each round).
 *    SVC_OTLP_RATE_LIMIT=off, pending bytes at their maximum, and quiet windows of a day so no
 *    trace completes while measuring. Goal: protobuf >= 0.5x the baseline.
 * b. **One million spans**: 2,000 protobuf requests of 500 spans (10 traces of 50), SENDERS at a
 *    time, each retried on 429 and 503 after its Retry-After (the defaults of SVC_OTLP_RATE_LIMIT
 *    and the pending bytes apply), with SVC_OTLP_QUIET_SECONDS=1, SVC_OTLP_MAX_AGE_SECONDS=10 and
 *    SVC_OTLP_DIAGNOSE=all, so traces complete into (queued) runs while the rest is sent. Measured:
 *    the time until every request was accepted, and until every trace was made a run (from the
 *    `svc_otlp_traces_total` counters of /metrics), the service's peak RSS (VmHWM from
 *    /proc/<pid>/status; goal <= 256 MiB), the store's bytes per span (svc.db + svc.db-wal after
 *    the run / spans), the runs made and the traces still pending at the end (read from the store
 *    once the service stopped). Goal: under 15 minutes.
 *
 * `--ci` (or BENCH_OTLP_CI=1) runs a small size (20,000 spans in b, short windows in a) and does not
 * replace otlp-latest.json. BENCH_ONLY=otlp-rate or otlp-million runs one part. BENCH_OTLP_CPU_PROF=<dir>
 * runs the service with --cpu-prof into that directory. Writes bench/results/otlp-<time>.json,
 * and otlp-latest.json on a full-size run of both parts.
 *
 *   npx tsx bench/otlp.ts [--ci]   (part of `npm run bench`, which builds first;
 *   BENCH_OTLP_SERVER=/path/to/server.mjs measures another build)
 */
import { createClient } from "@libsql/client/sqlite3"
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, readFileSync, rmSync, statSync } from "node:fs"
import { Agent, createServer, request as httpRequest } from "node:http"
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import { fileURLToPath, pathToFileURL } from "node:url"
import { Either } from "effect"
import type { KeyValue, Span, TracesRequest } from "../src/Otlp/Wire/Model.js"
import { decodeTraces, encodeTraces } from "../src/Otlp/Wire/Proto.js"
import { BENCH_KEY, cpuMsOf, firstLine, launchService, type LaunchedService, machineOf, median, round2, type Row, stopChild, track, writeResults, START_FLAGS } from "./support.js"

const repo = join(import.meta.dirname, "..")
const THIS_FILE = fileURLToPath(import.meta.url)
const SERVER = process.env["BENCH_OTLP_SERVER"] ?? join(repo, "dist", "server.mjs")
/** The node flags `npm start` runs the service with, so the bench measures what users run. */
const CI = process.argv.includes("--ci") || process.env["BENCH_OTLP_CI"] === "1"
const ONLY = new Set((process.env["BENCH_ONLY"] ?? "").split(",").map((name) => name.trim()).filter((name) => name.length > 0))
const wants = (part: string) => ONLY.size === 0 || ONLY.has("otlp") || ONLY.has(part)
const CPU_PROF = process.env["BENCH_OTLP_CPU_PROF"]

// a. spans per second
const RATE_TRACES = 8
const RATE_SPANS_PER_TRACE = 64
const CONNECTIONS = Number(process.env["BENCH_OTLP_CONNECTIONS"] ?? 4)
const WARM_MS = CI ? 1_000 : 3_000
const MEASURE_MS = CI ? 2_000 : 10_000
const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? (CI ? 1 : 2))
// b. a million spans
const MILLION_TRACES = 10
const MILLION_SPANS_PER_TRACE = 50
const MILLION_REQUESTS = CI ? 40 : 2_000
const SENDERS = 4
const QUIET_SECONDS = 1
const MAX_AGE_SECONDS = 10
/** Bounds: a request is tried at most this often; sending and completing each give up after this long. */
const MAX_ATTEMPTS = 200
const SEND_DEADLINE_MS = 30 * 60_000
const COMPLETE_DEADLINE_MS = 20 * 60_000

const MiB = 2 ** 20
const PROTOBUF = "application/x-protobuf"
const JSON_TYPE = "application/json"

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

// ---------------------------------------------------------------------------------------------
// The load: GenAI-like traces, encoded once, new trace ids patched into every request's copy

const str = (key: string, value: string): KeyValue => ({ key, value: { stringValue: value } })
const int = (key: string, value: number): KeyValue => ({ key, value: { intValue: String(value) } })
const hex = (n: number, digits: number) => n.toString(16).padStart(digits, "0")
const at = (ms: number) => String(1_764_000_000_000_000_000n + BigInt(ms) * 1_000_000n)

const TOPICS = ["invoice 4471 against ledger row 9120", "the refund for order 88-1203", "a duplicate charge on account 5521", "the Q3 vendor reconciliation", "shipping delay for parcel 7731"]

/** A user turn and an assistant answer of a few hundred bytes each, as GenAI instrumentations record messages with content on. */
const userText = (t: number, i: number) =>
  `Please check ${TOPICS[(t + i) % TOPICS.length] ?? ""} (step ${i}). The customer wrote that the amount ${(i * 17.35).toFixed(2)} EUR was booked twice ` +
  `and that the second booking appeared three days later; compare it with the ledger export and the bank statement, and say which one is wrong and why.`
const assistantText = (t: number, i: number) =>
  `I compared ${TOPICS[(t + i + 1) % TOPICS.length] ?? ""} with the ledger export: the first booking matches row ${i * 3 + 11}, ` +
  `the second has no matching bank line and carries the same reference, so it is a duplicate. I will call lookup_ledger to confirm before reversing it.`

/** Trace `t` of a batch: an `invoke_agent` root and `spans - 1` children, alternating `chat` and `execute_tool`, all ended. */
const traceSpans = (traceId: string, t: number, spans: number): Array<Span> => {
  const rootId = hex(t * 4096 + 1, 16)
  const out: Array<Span> = [{
    traceId,
    spanId: rootId,
    name: "invoke_agent billing-assistant",
    kind: 1,
    startTimeUnixNano: at(0),
    endTimeUnixNano: at(spans * 20 + 10),
    attributes: [
      str("gen_ai.operation.name", "invoke_agent"),
      str("gen_ai.agent.name", "billing-assistant"),
      str("gen_ai.agent.id", "agt_7f3e21"),
      str("gen_ai.conversation.id", `conv_${t}`),
      str("gen_ai.provider.name", "openai"),
      str("gen_ai.request.model", "gpt-4o"),
      int("gen_ai.usage.input_tokens", 1200 + t),
      int("gen_ai.usage.output_tokens", 380 + t),
      str("gen_ai.input.messages", JSON.stringify([{ role: "user", parts: [{ type: "text", content: userText(t, 0) }] }])),
      str("gen_ai.output.messages", JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: assistantText(t, 0) }], finish_reason: "stop" }]))
    ],
    events: [],
    links: [],
    status: { code: 0 }
  }]
  for (let i = 1; i < spans; i++) {
    const spanId = hex(t * 4096 + 1 + i, 16)
    const start = i * 20
    out.push(i % 2 === 1
      ? {
        traceId,
        spanId,
        parentSpanId: rootId,
        name: "chat gpt-4o",
        kind: 3,
        startTimeUnixNano: at(start),
        endTimeUnixNano: at(start + 12),
        attributes: [
          str("gen_ai.operation.name", "chat"),
          str("gen_ai.provider.name", "openai"),
          str("gen_ai.request.model", "gpt-4o"),
          str("gen_ai.response.model", "gpt-4o-2024-08-06"),
          str("gen_ai.response.id", `chatcmpl-${t}-${i}`),
          int("gen_ai.usage.input_tokens", 800 + i),
          int("gen_ai.usage.output_tokens", 120 + i),
          str("gen_ai.input.messages", JSON.stringify([{ role: "user", parts: [{ type: "text", content: userText(t, i) }] }])),
          str("gen_ai.output.messages", JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: assistantText(t, i) }], finish_reason: "tool_calls" }])),
          str("server.address", "api.openai.com")
        ],
        events: [],
        links: [],
        status: { code: 0 }
      }
      : {
        traceId,
        spanId,
        parentSpanId: rootId,
        name: "execute_tool lookup_ledger",
        kind: 1,
        startTimeUnixNano: at(start),
        endTimeUnixNano: at(start + 6),
        attributes: [
          str("gen_ai.operation.name", "execute_tool"),
          str("gen_ai.tool.name", "lookup_ledger"),
          str("gen_ai.tool.type", "function"),
          str("gen_ai.tool.call.id", `call_${t}_${i}`),
          str("gen_ai.tool.description", "Looks up ledger rows by reference, amount and booking date."),
          str("gen_ai.tool.call.arguments", JSON.stringify({ reference: `RF-${t}-${i}`, amount: Number((i * 17.35).toFixed(2)), currency: "EUR" })),
          str("gen_ai.tool.call.result", JSON.stringify({ rows: [{ row: i * 3 + 11, amount: Number((i * 17.35).toFixed(2)), booked: "2026-11-02", reference: `RF-${t}-${i}` }], note: assistantText(t, i).slice(0, 160) })),
          str("gen_ai.agent.name", "billing-assistant"),
          int("ledger.rows", 1),
          str("code.function", "lookupLedger")
        ],
        events: [],
        links: [],
        status: { code: 0 }
      })
  }
  return out
}

/** The 32-hex trace id of trace `t` in the template: the first 16 digits are overwritten per request. */
const templateTraceId = (t: number) => `${"c0ffee".padEnd(16, "0")}${hex(0xbe000000 + t, 16)}`

const batchOf = (traces: number, spansPerTrace: number): TracesRequest => ({
  resourceSpans: [{
    resource: {
      attributes: [
        str("service.name", "billing-agent"),
        str("service.version", "2.4.1"),
        str("deployment.environment.name", "bench"),
        str("telemetry.sdk.language", "nodejs"),
        str("telemetry.sdk.name", "opentelemetry")
      ]
    },
    scopeSpans: [{
      scope: { name: "@opentelemetry/instrumentation-openai", version: "0.21.0" },
      spans: Array.from({ length: traces }, (_, t) => traceSpans(templateTraceId(t), t, spansPerTrace)).flat()
    }]
  }]
})

/** Every offset at which `needle` occurs in `haystack`. */
const offsetsOf = (haystack: Buffer, needle: Buffer): Array<number> => {
  const out: Array<number> = []
  for (let from = haystack.indexOf(needle); from >= 0; from = haystack.indexOf(needle, from + needle.length)) out.push(from)
  return out
}

/**
 * One batch, encoded once; `next()` is a copy with new trace ids: the first 8 bytes (16 hex digits in
 * JSON) of every trace id replaced by a counter unique in this bench run.
 */
interface Template {
  readonly contentType: string
  readonly bytes: number
  readonly spans: number
  readonly traces: number
  readonly next: () => Buffer
}

let requestCounter = 0
const nextStamp = () => {
  requestCounter += 1
  // the high bytes name this bench run (so two runs against one home would not collide), the low the request
  return (BigInt(process.pid & 0xffff) << 40n) | BigInt(requestCounter)
}

const templateOf = (encoding: "protobuf" | "json", traces: number, spansPerTrace: number): Template => {
  const request = batchOf(traces, spansPerTrace)
  const body = encoding === "protobuf" ? Buffer.from(encodeTraces(request)) : Buffer.from(JSON.stringify(request))
  const ids = Array.from({ length: traces }, (_, t) => templateTraceId(t))
  const offsets = ids.flatMap((id) => offsetsOf(body, encoding === "protobuf" ? Buffer.from(id, "hex") : Buffer.from(id, "latin1")))
  if (offsets.length !== traces * spansPerTrace) throw new Error(`template: found ${offsets.length} trace ids, expected ${traces * spansPerTrace}`)
  return {
    contentType: encoding === "protobuf" ? PROTOBUF : JSON_TYPE,
    bytes: body.length,
    spans: traces * spansPerTrace,
    traces,
    next: () => {
      const copy = Buffer.from(body)
      const stamp = nextStamp()
      if (encoding === "protobuf") {
        for (const offset of offsets) copy.writeBigUInt64BE(stamp, offset)
      } else {
        const digits = stamp.toString(16).padStart(16, "0")
        for (const offset of offsets) copy.write(digits, offset, "latin1")
      }
      return copy
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Sending

interface Answer {
  readonly status: number
  readonly body: Buffer
  readonly retryAfter: number | null
  readonly error?: string
}

const post = (url: string, contentType: string, body: Buffer, agent: Agent) =>
  new Promise<Answer>((resolve) => {
    const req = httpRequest(url, {
      method: "POST",
      agent,
      headers: { "content-type": contentType, authorization: `Bearer ${BENCH_KEY}`, "content-length": body.length }
    }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (chunk: Buffer) => chunks.push(chunk))
      res.on("end", () => {
        const retry = Number(res.headers["retry-after"])
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks), retryAfter: Number.isFinite(retry) ? retry : null })
      })
    })
    req.on("error", (error: NodeJS.ErrnoException) => resolve({ status: 0, body: Buffer.alloc(0), retryAfter: null, error: error.code ?? error.message }))
    req.end(body)
  })

/** A 200 whose answer names refused spans (`partialSuccess`): protobuf answers are empty on full success, JSON ones `{}`. */
const isPartial = (answer: Answer) => answer.body.length > 2

interface Load {
  readonly requests: number
  readonly spans: number
  readonly partial: number
  readonly failed: number
  readonly statuses: Record<string, number>
  readonly ms: number
}

/** CONNECTIONS loops, each sending a fresh batch as soon as its last was answered, until `ms` passed. */
const loadFor = async (url: string, template: Template, ms: number): Promise<Load> => {
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS })
  const statuses: Record<string, number> = {}
  let requests = 0
  let spans = 0
  let partial = 0
  let failed = 0
  const started = performance.now()
  const deadline = started + ms
  const loop = async () => {
    while (performance.now() < deadline) {
      const answer = await post(`${url}/v1/traces`, template.contentType, template.next(), agent)
      const key = String(answer.status)
      statuses[key] = (statuses[key] ?? 0) + 1
      if (answer.status === 200 && !isPartial(answer)) {
        requests += 1
        spans += template.spans
      } else if (answer.status === 200) {
        partial += 1
      } else {
        failed += 1
        if (failed <= 3) console.error(`${url}: ${answer.status} ${answer.error ?? answer.body.toString("utf8").slice(0, 200)}`)
        if (answer.status === 0) await sleep(100)
      }
    }
  }
  await Promise.all(Array.from({ length: CONNECTIONS }, loop))
  const elapsed = performance.now() - started
  agent.destroy()
  return { requests, spans, partial, failed, statuses, ms: elapsed }
}

// ---------------------------------------------------------------------------------------------
// The baseline: a plain node:http server that reads the body, decodes it and discards it

const baselineServer = () => {
  const empty = Buffer.alloc(0)
  const server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      const body = Buffer.concat(chunks)
      const protobuf = (req.headers["content-type"] ?? "").startsWith(PROTOBUF)
      let ok = true
      if (protobuf) ok = Either.isRight(decodeTraces(body))
      else {
        try {
          JSON.parse(body.toString("utf8"))
        } catch {
          ok = false
        }
      }
      const answer = protobuf ? empty : Buffer.from("{}")
      res.writeHead(ok ? 200 : 400, { "content-type": protobuf ? PROTOBUF : JSON_TYPE, "content-length": answer.length }).end(answer)
    })
  })
  server.keepAliveTimeout = 5_000
  server.listen({ port: 0, host: "127.0.0.1" }, () => {
    const address = server.address()
    process.stdout.write(`${typeof address === "object" && address !== null ? address.port : 0}\n`)
  })
}

const startBaseline = async (): Promise<{ readonly child: ChildProcess; readonly url: string }> => {
  // node itself with tsx as a loader (a kill reaches it), with the service's node flags
  const child = track(spawn(process.execPath, [...START_FLAGS, "--import", "tsx", THIS_FILE, "--baseline"], { cwd: repo, stdio: ["ignore", "pipe", "inherit"] }))
  const port = await firstLine(child)
  return { child, url: `http://127.0.0.1:${port}` }
}

// ---------------------------------------------------------------------------------------------
// The service

const serviceFlags = (name: string) => (CPU_PROF === undefined ? START_FLAGS : [...START_FLAGS, "--cpu-prof", `--cpu-prof-dir=${CPU_PROF}`, `--cpu-prof-name=otlp-${name}-${Date.now()}.cpuprofile`])

const launch = (name: string, env: Record<string, string>): Promise<LaunchedService> =>
  launchService(SERVER, serviceFlags(name), { SVC_WORKERS: "0", SVC_DRAIN_DELAY_SECONDS: "0", SVC_CACHE: "off", ...env })

const homeOf = (child: ChildProcess): string => {
  const home = readEnvHome(child.pid)
  if (home === undefined) throw new Error("the service's SVC_HOME is unknown")
  return home
}

/** SVC_HOME as the service process has it (launchService picks a fresh temp directory). */
const readEnvHome = (pid: number | undefined): string | undefined => {
  if (pid === undefined) return undefined
  const entry = readFileSync(`/proc/${pid}/environ`, "latin1").split("\0").find((line) => line.startsWith("SVC_HOME="))
  return entry?.slice("SVC_HOME=".length)
}

/** A /proc/<pid>/status field in bytes (VmHWM: peak resident, VmRSS: now). */
const statusBytes = (pid: number | undefined, field: "VmHWM" | "VmRSS"): number => {
  if (pid === undefined) return Number.NaN
  const line = readFileSync(`/proc/${pid}/status`, "utf8").split("\n").find((each) => each.startsWith(`${field}:`))
  return line === undefined ? Number.NaN : Number(/(\d+)/.exec(line)?.[1] ?? Number.NaN) * 1024
}

const sizeOf = (path: string): number => (existsSync(path) ? statSync(path).size : 0)

/** A metric's samples whose line has these labels, summed over a /metrics text. */
const metricTotal = (text: string, name: string, labels: Readonly<Record<string, string>> = {}): number =>
  text
    .split("\n")
    .filter((line) => (line.startsWith(`${name}{`) || line.startsWith(`${name} `)) && Object.entries(labels).every(([key, value]) => line.includes(`${key}="${value}"`)))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(" ") + 1)), 0)

const scrape = async (url: string) => (await fetch(`${url}/metrics`)).text()

// ---------------------------------------------------------------------------------------------
// a. spans per second

const rateRows = async (): Promise<Array<Row>> => {
  const proto = templateOf("protobuf", RATE_TRACES, RATE_SPANS_PER_TRACE)
  const json = templateOf("json", RATE_TRACES, RATE_SPANS_PER_TRACE)
  const baseline = await startBaseline()
  const rounds: Array<{ baseline: Load; baselineJson: Load; protobuf: Load; json: Load; rssMiB: number }> = []
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const service = await launch(`rate-${round}`, {
        SVC_OTLP_RATE_LIMIT: "off",
        SVC_OTLP_PENDING_BYTES: String(2 ** 40),
        SVC_OTLP_PENDING_BYTES_PER_SCOPE: String(2 ** 40),
        SVC_OTLP_QUIET_SECONDS: "86400",
        SVC_OTLP_MAX_AGE_SECONDS: "604800"
      })
      const home = homeOf(service.child)
      try {
        const measure = async (url: string, template: Template) => {
          await loadFor(url, template, WARM_MS)
          return loadFor(url, template, MEASURE_MS)
        }
        // the order turns each round, so neither the service's growing store nor the machine's drift favours one
        const first = round % 2 === 0
        const b1 = first ? await measure(baseline.url, proto) : undefined
        const p = await measure(service.url, proto)
        const j = await measure(service.url, json)
        const bj = await measure(baseline.url, json)
        const b2 = first ? undefined : await measure(baseline.url, proto)
        const b = b1 ?? b2
        if (b === undefined) throw new Error("no baseline")
        rounds.push({ baseline: b, baselineJson: bj, protobuf: p, json: j, rssMiB: round2(statusBytes(service.child.pid, "VmHWM") / MiB) })
      } finally {
        await stopChild(service.child)
        // a round's store is hundreds of MB: not left in the temp directory
        rmSync(home, { recursive: true, force: true })
      }
    }
  } finally {
    await stopChild(baseline.child)
  }
  const perSecond = (load: Load) => load.spans / (load.ms / 1000)
  const med = (pick: (round: (typeof rounds)[number]) => Load) => median(rounds.map((round) => perSecond(pick(round))))
  const baselineRate = med((round) => round.baseline)
  const baselineJsonRate = med((round) => round.baselineJson)
  const protoRate = med((round) => round.protobuf)
  const jsonRate = med((round) => round.json)
  const clean = rounds.every((round) => [round.baseline, round.protobuf, round.json, round.baselineJson].every((load) => load.failed === 0 && load.partial === 0))
  const load = `batches of ${proto.spans} spans (${RATE_TRACES} traces of ${RATE_SPANS_PER_TRACE}, ~10 attributes each with message content; ` +
    `protobuf ${Math.round(proto.bytes / 1024)} KiB, JSON ${Math.round(json.bytes / 1024)} KiB), new trace ids per request, ${CONNECTIONS} keep-alive connections, ` +
    `${MEASURE_MS / 1000} s after ${WARM_MS / 1000} s warm-up, median of ${ROUNDS} rounds; SVC_OTLP_RATE_LIMIT=off, SVC_WORKERS=0, SQLite`
  const detail = (pick: (round: (typeof rounds)[number]) => Load): Record<string, number | string> => ({
    per_round_spans_s: rounds.map((round) => Math.round(perSecond(pick(round)))).join(" "),
    requests: rounds.map((round) => pick(round).requests).join(" "),
    statuses: rounds.map((round) => JSON.stringify(pick(round).statuses)).join(" "),
    ms_per_request: rounds.map((round) => round2(pick(round).ms * CONNECTIONS / Math.max(1, pick(round).requests + pick(round).failed + pick(round).partial))).join(" ")
  })
  return [
    {
      scenario: `POST /v1/traces protobuf: ${load}; baseline: node:http + decodeTraces (the receiver's reader), discarded`,
      metric: "spans/s accepted",
      service: Math.round(protoRate),
      baseline: Math.round(baselineRate),
      ratio: round2(protoRate / baselineRate),
      goal: ">= 0.5x",
      met: clean && protoRate / baselineRate >= 0.5,
      detail: { ...detail((round) => round.protobuf), baseline_per_round_spans_s: rounds.map((round) => Math.round(perSecond(round.baseline))).join(" "), service_peak_rss_mib: rounds.map((round) => round.rssMiB).join(" ") }
    },
    {
      scenario: `POST /v1/traces OTLP/JSON: the same spans as JSON; baseline: the protobuf baseline (node:http + decodeTraces)`,
      metric: "spans/s accepted",
      service: Math.round(jsonRate),
      baseline: Math.round(baselineRate),
      ratio: round2(jsonRate / baselineRate),
      goal: ">= 0.5x",
      met: clean && jsonRate / baselineRate >= 0.5,
      detail: detail((round) => round.json)
    },
    {
      scenario: `POST /v1/traces OTLP/JSON against its own baseline: node:http + JSON.parse of the same JSON bodies, discarded`,
      metric: "spans/s accepted",
      service: Math.round(jsonRate),
      baseline: Math.round(baselineJsonRate),
      ratio: round2(jsonRate / baselineJsonRate),
      goal: "measured",
      met: null,
      detail: detail((round) => round.baselineJson)
    }
  ]
}

// ---------------------------------------------------------------------------------------------
// b. a million spans

interface Million {
  readonly spans: number
  readonly traces: number
  readonly sendMs: number
  readonly completeMs: number
  readonly completed: number
  readonly statuses: Record<string, number>
  readonly partial: number
  readonly retries: number
  readonly peakRss: number
  readonly rssAtEnd: number
  readonly meanRss: number
  /** The service's CPU time (all its threads) from its start until every trace was a run. */
  readonly cpuMs: number
  readonly dbBytes: number
  readonly walBytes: number
  readonly stoppedBytes: number
  readonly outcomes: Record<string, number>
  readonly runs: Record<string, number>
  readonly pendingTraces: number
  readonly doneTraces: number
  readonly pendingItems: number
  readonly requestBytes: number
}

const million = async (): Promise<Million> => {
  const template = templateOf("protobuf", MILLION_TRACES, MILLION_SPANS_PER_TRACE)
  const service = await launch("million", {
    SVC_OTLP_DIAGNOSE: "all",
    SVC_OTLP_QUIET_SECONDS: String(QUIET_SECONDS),
    SVC_OTLP_MAX_AGE_SECONDS: String(MAX_AGE_SECONDS)
  })
  const pid = service.child.pid
  const home = homeOf(service.child)
  try {
    const agent = new Agent({ keepAlive: true, maxSockets: SENDERS })
    const statuses: Record<string, number> = {}
    let nextRequest = 0
    let retries = 0
    let partial = 0
    const started = performance.now()
    const sendDeadline = started + SEND_DEADLINE_MS
    const sender = async () => {
      for (;;) {
        const index = nextRequest
        if (index >= MILLION_REQUESTS) return
        nextRequest += 1
        const body = template.next()
        for (let attempt = 1; ; attempt++) {
          const answer = await post(`${service.url}/v1/traces`, PROTOBUF, body, agent)
          const key = String(answer.status)
          statuses[key] = (statuses[key] ?? 0) + 1
          if (answer.status === 200) {
            if (isPartial(answer)) partial += 1
            break
          }
          if (attempt >= MAX_ATTEMPTS || performance.now() > sendDeadline) throw new Error(`request ${index}: ${answer.status} after ${attempt} attempts`)
          if (answer.status !== 429 && answer.status !== 503 && answer.status !== 0) {
            throw new Error(`request ${index}: ${answer.status} ${answer.body.toString("utf8").slice(0, 300)}`)
          }
          retries += 1
          // as OTLP exporters do: after Retry-After when given, else a short backoff
          await sleep(Math.min(30, answer.retryAfter ?? 1) * 1000)
        }
      }
    }
    // RSS sampled every second meanwhile (VmHWM is the peak; this is for the detail)
    let rssSamples = 0
    let rssSum = 0
    const sampler = setInterval(() => {
      const rss = statusBytes(pid, "VmRSS")
      if (Number.isFinite(rss)) {
        rssSamples += 1
        rssSum += rss
      }
    }, 1_000)
    try {
      await Promise.all(Array.from({ length: SENDERS }, sender))
      const sendMs = performance.now() - started
      agent.destroy()
      const traces = MILLION_REQUESTS * MILLION_TRACES
      // every trace completed (queued, skipped, no_agent or refused): the svc_otlp_traces_total counters
      let completed = 0
      const completeDeadline = performance.now() + COMPLETE_DEADLINE_MS
      while (performance.now() < completeDeadline) {
        completed = metricTotal(await scrape(service.url), "svc_otlp_traces_total")
        if (completed >= traces) break
        await sleep(500)
      }
      const completeMs = performance.now() - started
      const cpuMs = cpuMsOf(pid)
      const text = await scrape(service.url)
      const outcomes: Record<string, number> = {}
      for (const outcome of ["queued", "not_failed", "sampled_out", "no_agent", "refused"]) outcomes[outcome] = metricTotal(text, "svc_otlp_traces_total", { outcome })
      for (const outcome of ["accepted", "rejected", "late", "dropped", "own"]) outcomes[`spans_${outcome}`] = metricTotal(text, "svc_otlp_items_total", { signal: "traces", outcome })
      const peakRss = statusBytes(pid, "VmHWM")
      const rssAtEnd = statusBytes(pid, "VmRSS")
      const file = join(home, "svc.db")
      const dbBytes = sizeOf(file)
      const walBytes = sizeOf(`${file}-wal`)
      await stopChild(service.child)
      const stoppedBytes = sizeOf(file) + sizeOf(`${file}-wal`)
      const store = await storeCounts(file)
      console.error(`million: mean RSS ${round2(rssSum / Math.max(1, rssSamples) / MiB)} MiB over ${rssSamples} samples`)
      return {
        spans: MILLION_REQUESTS * template.spans,
        traces,
        sendMs,
        completeMs,
        completed,
        statuses,
        partial,
        retries,
        peakRss,
        rssAtEnd,
        meanRss: rssSum / Math.max(1, rssSamples),
        cpuMs,
        dbBytes,
        walBytes,
        stoppedBytes,
        outcomes,
        ...store,
        requestBytes: template.bytes
      }
    } finally {
      clearInterval(sampler)
    }
  } finally {
    await stopChild(service.child)
    rmSync(home, { recursive: true, force: true })
  }
}

const numberOf = (value: unknown): number => (typeof value === "number" || typeof value === "bigint" ? Number(value) : 0)

/** What the stopped service's store holds: runs by status (OTLP's), traces pending and done, span groups left. */
const storeCounts = async (file: string) => {
  const client = createClient({ url: pathToFileURL(file).href })
  try {
    const runs: Record<string, number> = {}
    for (const row of (await client.execute("SELECT status, count(*) AS n FROM runs WHERE source = 'otlp' GROUP BY status")).rows) runs[String(row["status"])] = numberOf(row["n"])
    const traces = (await client.execute("SELECT sum(state <> 'done') AS pending, sum(state = 'done') AS done FROM otlp_traces")).rows[0]
    const items = (await client.execute("SELECT count(*) AS n FROM otlp_items")).rows[0]
    return { runs, pendingTraces: numberOf(traces?.["pending"]), doneTraces: numberOf(traces?.["done"]), pendingItems: numberOf(items?.["n"]) }
  } finally {
    client.close()
  }
}

const millionRows = async (): Promise<Array<Row>> => {
  const m = await million()
  const runsMade = Object.values(m.runs).reduce((sum, n) => sum + n, 0)
  const scenario = `${m.spans.toLocaleString("en")} spans: ${MILLION_REQUESTS.toLocaleString("en")} protobuf requests of ${MILLION_TRACES * MILLION_SPANS_PER_TRACE} spans ` +
    `(${MILLION_TRACES} traces of ${MILLION_SPANS_PER_TRACE}, ${Math.round(m.requestBytes / 1024)} KiB), ${SENDERS} senders retrying 429/503 after Retry-After; ` +
    `SVC_OTLP_QUIET_SECONDS=${QUIET_SECONDS}, SVC_OTLP_MAX_AGE_SECONDS=${MAX_AGE_SECONDS}, SVC_OTLP_DIAGNOSE=all, SVC_WORKERS=0, default rate limit and pending bytes, SQLite`
  const allRuns = runsMade === m.traces && m.pendingTraces === 0
  return [
    {
      scenario,
      metric: "s, first request to every trace a run",
      service: round2(m.completeMs / 1000),
      baseline: null,
      ratio: null,
      goal: "< 900 s, every trace a run",
      met: m.completeMs < 900_000 && allRuns,
      detail: {
        send_s: round2(m.sendMs / 1000),
        spans_per_s_sending: Math.round(m.spans / (m.sendMs / 1000)),
        spans_per_s_to_runs: Math.round(m.spans / (m.completeMs / 1000)),
        statuses: JSON.stringify(m.statuses),
        retries: m.retries,
        partial_answers: m.partial,
        traces: m.traces,
        traces_completed: m.completed,
        ...m.outcomes
      }
    },
    {
      scenario: "the same: the service's peak resident memory (VmHWM)",
      metric: "MiB",
      service: round2(m.peakRss / MiB),
      baseline: null,
      ratio: null,
      goal: "<= 256 MiB",
      met: m.peakRss <= 256 * MiB,
      detail: { rss_at_end_mib: round2(m.rssAtEnd / MiB), mean_rss_mib: round2(m.meanRss / MiB), service_cpu_s: round2(m.cpuMs / 1000) }
    },
    {
      scenario: "the same: store bytes per span, (svc.db + svc.db-wal) after the run / spans; baseline: the span's protobuf bytes",
      metric: "bytes per span",
      service: round2((m.dbBytes + m.walBytes) / m.spans),
      baseline: round2(m.requestBytes / (MILLION_TRACES * MILLION_SPANS_PER_TRACE)),
      ratio: round2((m.dbBytes + m.walBytes) / m.spans / (m.requestBytes / (MILLION_TRACES * MILLION_SPANS_PER_TRACE))),
      goal: "measured",
      met: null,
      detail: { db_bytes: m.dbBytes, wal_bytes: m.walBytes, after_stop_bytes: m.stoppedBytes }
    },
    {
      scenario: "the same: runs made (source otlp, by status) and traces still pending at the end (read from the store after the stop)",
      metric: "runs",
      service: runsMade,
      baseline: m.traces,
      ratio: round2(runsMade / m.traces),
      goal: "one run per trace, none pending",
      met: allRuns,
      detail: { ...m.runs, pending_traces: m.pendingTraces, done_traces: m.doneTraces, span_groups_left: m.pendingItems }
    }
  ]
}

const main = async () => {
  if (process.argv.includes("--baseline")) return baselineServer()
  if (!wants("otlp-rate") && !wants("otlp-million")) return
  const started = new Date()
  const rows: Array<Row> = [
    ...(wants("otlp-rate") ? await rateRows() : []),
    ...(wants("otlp-million") ? await millionRows() : [])
  ]
  const report = { started: started.toISOString(), scenario: "otlp", size: CI ? "ci" : "full", rounds: ROUNDS, machine: machineOf(), rows }
  writeResults(report, "otlp-", !CI && wants("otlp-rate") && wants("otlp-million") ? "otlp-latest.json" : undefined)
  process.exit(0)
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
