/**
 * `npm run build && npx tsx bench/agents.ts` (or with BENCH_ONLY=agents): diagnose's cost as the
 * number of agents grows (issue 27), against the built service with no model provider (diagnose
 * answers 200 with triage and deterministic signals, DECISIONS §13).
 *
 * 1. CPU per diagnose of 5,000-agent traces against 250-agent ones with the same events per agent
 *    (bench/agents-traces.ts: an AutoGen group chat, one message per agent; an OTLP chain of nested
 *    agent spans, one handoff per agent), the service's CPU time over a batch of each, interleaved
 *    round by round; the ratio is the median of the rounds' ratios. Linear is 20x.
 * 2. GET /livez on a new connection every 25 ms while four 5,000-agent diagnoses run at once.
 *
 * Writes bench/results/<time>.json (never latest.json: that is the full `npm run bench`).
 * BENCH_AGENTS_SERVER=/path/to/server.mjs measures another build (the code before a change).
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { Agent, request as httpRequest } from "node:http"
import { cpus, totalmem } from "node:os"
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import { autogenGroupChat, otelAgentChain } from "./agents-traces.js"
import { BENCH_KEY as KEY, cpuMsOf, launchService, median, round2, type Row, stopChild as stop, START_FLAGS } from "./support.js"

const repo = join(import.meta.dirname, "..")
const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 3)
const ONLY = new Set((process.env["BENCH_ONLY"] ?? "").split(",").map((s) => s.trim()).filter((s) => s.length > 0))
const SERVER = process.env["BENCH_AGENTS_SERVER"] ?? join(repo, "dist", "server.mjs")
/** The node flags `npm start` runs the service with, so the bench measures what users run. */
const SMALL = 250
const LARGE = 5000
/** Requests per batch: enough CPU in each batch for /proc's 10 ms clock ticks. */
const BATCH: Readonly<Record<number, number>> = { [SMALL]: 40, [LARGE]: 3 }

/** The built service with no provider configured: diagnose runs triage and signals only. */
const startService = () => launchService(SERVER, START_FLAGS, {})



const post = (url: string, body: string, agent: Agent) =>
  new Promise<{ readonly status: number; readonly ms: number; readonly text: string }>((resolve) => {
    const started = performance.now()
    const req = httpRequest(`${url}/v1/diagnose`, {
      method: "POST",
      agent,
      headers: { "content-type": "application/json", authorization: `Bearer ${KEY}`, "content-length": Buffer.byteLength(body) }
    }, (res) => {
      let text = ""
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => {
        if (text.length < 300) text += chunk
      })
      res.on("end", () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started, text }))
    })
    req.on("error", (error) => resolve({ status: 0, ms: performance.now() - started, text: error.message }))
    req.end(body)
  })


type Kind = "AutoGen group chat, one message per agent" | "OTLP nested agent spans, one handoff per agent"
const KINDS: ReadonlyArray<readonly [Kind, (agents: number, salt: string) => unknown]> = [
  ["AutoGen group chat, one message per agent", (agents, salt) => autogenGroupChat(agents, 1, salt)],
  ["OTLP nested agent spans, one handoff per agent", (agents, salt) => otelAgentChain(agents, salt)]
]
const bodyOf = (kind: Kind, agents: number, salt: string) =>
  JSON.stringify({ trace: KINDS.find(([name]) => name === kind)?.[1](agents, ` ${salt}`) })


const main = async () => {
  const started = new Date()
  const rows: Array<Row> = []
  const service = await startService()
  // A connection per request: the code before issue 27 took seconds per diagnose, longer than the
  // server lets a kept-alive connection wait for its next request's headers.
  const agent = new Agent({ keepAlive: false, maxSockets: 1 })
  const pid = service.child.pid
  /** The service's CPU per diagnose over a batch of distinct bodies of one size. */
  const batchCpu = async (kind: Kind, agents: number, tag: string) => {
    const count = BATCH[agents] ?? 3
    const bodies = Array.from({ length: count }, (_, i) => bodyOf(kind, agents, `${tag}-${i}`))
    const before = cpuMsOf(pid)
    const walls: Array<number> = []
    for (const body of bodies) {
      const answer = await post(service.url, body, agent)
      if (answer.status !== 200) throw new Error(`${kind}, ${agents} agents: ${answer.status} ${answer.text}`)
      walls.push(answer.ms)
    }
    return { cpu: (cpuMsOf(pid) - before) / count, wall: median(walls) }
  }

  for (const [kind] of KINDS) {
    await batchCpu(kind, SMALL, "warm")
    await batchCpu(kind, LARGE, "warm")
    const small: Array<number> = []
    const large: Array<number> = []
    const largeWall: Array<number> = []
    const ratios: Array<number> = []
    for (let r = 0; r < ROUNDS; r++) {
      const s = await batchCpu(kind, SMALL, `round-${r}`)
      const l = await batchCpu(kind, LARGE, `round-${r}`)
      small.push(s.cpu)
      large.push(l.cpu)
      largeWall.push(l.wall)
      ratios.push(l.cpu / s.cpu)
    }
    const ratio = median(ratios)
    rows.push({
      scenario: `diagnose CPU, ${kind}: ${LARGE} agents / ${SMALL} agents`,
      metric: "ms CPU per diagnose",
      service: round2(median(large)),
      baseline: round2(median(small)),
      ratio: round2(ratio),
      goal: "<= 25x (linear: 20x)",
      met: ratio <= 25,
      detail: { ratios: ratios.map(round2).join(" "), large_wall_ms: round2(median(largeWall)), batches: `${BATCH[SMALL]}/${BATCH[LARGE]}` }
    })
  }

  // /livez on a new connection every 25 ms while four 5,000-agent diagnoses run at once, twice per kind.
  const concurrent = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY })
  const probes: Array<number> = []
  const diagnoseWalls: Array<number> = []
  for (const [kind] of KINDS) {
    for (let wave = 0; wave < 2; wave++) {
      const bodies = Array.from({ length: 4 }, (_, i) => bodyOf(kind, LARGE, `livez-${wave}-${i}`))
      let running = true
      const probing = (async () => {
        while (running) {
          const sent = performance.now()
          const status = await fetch(`${service.url}/livez`, { headers: { connection: "close" } }).then((r) => r.status, () => 0)
          probes.push(status === 200 ? performance.now() - sent : Number.POSITIVE_INFINITY)
          await new Promise((resolve) => setTimeout(resolve, 25))
        }
      })()
      const answers = await Promise.all(bodies.map((body) => post(service.url, body, concurrent)))
      running = false
      await probing
      for (const answer of answers) {
        if (answer.status !== 200) throw new Error(`concurrent diagnose: ${answer.status} ${answer.text}`)
        diagnoseWalls.push(answer.ms)
      }
    }
  }
  const sorted = probes.slice().sort((a, b) => a - b)
  const max = sorted[sorted.length - 1] ?? Number.NaN
  rows.push({
    scenario: `GET /livez while four ${LARGE}-agent diagnoses run at once`,
    metric: "max ms",
    service: round2(max),
    baseline: null,
    ratio: null,
    goal: "< 1000 ms",
    met: max < 1000,
    detail: {
      probes: sorted.length,
      p50_ms: round2(median(sorted)),
      p99_ms: round2(sorted[Math.floor(sorted.length * 0.99)] ?? Number.NaN),
      diagnose_wall_p50_ms: round2(median(diagnoseWalls)),
      diagnose_wall_max_ms: round2(Math.max(...diagnoseWalls))
    }
  })
  agent.destroy()
  concurrent.destroy()
  await stop(service.child)

  const machine = { cpus: cpus().length, cpu: cpus()[0]?.model ?? "unknown", memory_gib: round2(totalmem() / 2 ** 30), node: process.version }
  const report = { started: started.toISOString(), scenario: "agents", server: SERVER, rounds: ROUNDS, machine, rows }
  mkdirSync(join(repo, "bench", "results"), { recursive: true })
  writeFileSync(join(repo, "bench", "results", `${started.toISOString().replace(/[:.]/g, "-")}.json`), `${JSON.stringify(report, null, 2)}\n`)
  console.table(rows.map(({ detail: _detail, ...row }) => row))
  for (const row of rows) if (row.detail !== undefined) console.log(`${row.scenario}: ${JSON.stringify(row.detail)}`)
  console.log(`machine: ${JSON.stringify(machine)}`)
}

if (ONLY.size === 0 || ONLY.has("agents")) {
  main().then(() => process.exit(0), (error: unknown) => {
    console.error(error)
    process.exit(1)
  })
}
