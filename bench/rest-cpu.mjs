/* global fetch, setTimeout */
// CPU per request of the service process (utime + stime from /proc/<pid>/stat) for diagnose and
// checks over REST, two builds side by side: each started once, warmed up, then measured in
// interleaved rounds (the order turned each round), the median per case printed with every round.
// CPU time, not wall clock: on a shared machine the other work stretches the wall, not this.
// Usage: BENCH_BEFORE_SERVER=/path/to/before/dist/server.mjs [BENCH_AFTER_SERVER=dist/server.mjs]
//        node bench/rest-cpu.mjs [rounds=9] [case-filter]
// Linux only (/proc). Issue 51 item 1 measured the trace bodies' decoding by the contract with it.
import { spawn } from "node:child_process"
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const FIXTURES = join(import.meta.dirname, "..", "test", "fixtures", "traces")
const before = process.env.BENCH_BEFORE_SERVER
if (before === undefined) throw new Error("set BENCH_BEFORE_SERVER to the other build's dist/server.mjs")
const servers = { before, after: process.env.BENCH_AFTER_SERVER ?? join(import.meta.dirname, "..", "dist", "server.mjs") }
const TICK_MS = 10
const cpuMs = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ")
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS
}

const start = async (server, port) => {
  const child = spawn(process.execPath, ["--max-semi-space-size=32", "--min-semi-space-size=2", server], {
    env: {
      PATH: process.env.PATH,
      SVC_PORT: String(port),
      SVC_HOME: mkdtempSync(join(tmpdir(), "svc-rest-cpu-")),
      SVC_LOG_LEVEL: "warning",
      SVC_API_RATE_LIMIT: "1000000000/60",
      SVC_CACHE: "off"
    },
    stdio: ["ignore", "ignore", "inherit"]
  })
  const url = `http://127.0.0.1:${port}`
  for (;;) {
    if ((await fetch(`${url}/readyz`).then((r) => r.status, () => 0)) === 200) break
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return { child, url }
}

const otel = readFileSync(join(FIXTURES, "otel", "ai-sdk-7-refund-agent.otlp-traces.json"))
const inspect = readFileSync(join(FIXTURES, "inspect", "browser.json"))
const jsonl = readFileSync(join(FIXTURES, "trajectory", "openhands-output.jsonl"))
// no provider configured: each lens ends llm_resolution_error, so the service's own work is measured
const cases = [
  { name: "diagnose otel 19 KB json", path: "/v1/diagnose", body: otel, type: "application/json", n: 240 },
  { name: "checks otel 19 KB json", path: "/v1/checks", body: otel, type: "application/json", n: 240 },
  { name: "diagnose inspect 405 KB json", path: "/v1/diagnose", body: inspect, type: "application/json", n: 40 },
  { name: "checks inspect 405 KB json", path: "/v1/checks", body: inspect, type: "application/json", n: 60 },
  { name: "diagnose jsonl ?select=1", path: "/v1/diagnose?select=1", body: jsonl, type: "application/x-ndjson", n: 120 }
].filter((c) => process.argv[3] === undefined || c.name.includes(process.argv[3]))

const run = async (service, c, n = c.n) => {
  const cpu = cpuMs(service.child.pid)
  for (let i = 0; i < n; i++) {
    const response = await fetch(`${service.url}${c.path}`, { method: "POST", headers: { "content-type": c.type }, body: c.body })
    await response.arrayBuffer()
    if (response.status !== 200) throw new Error(`${c.name}: ${response.status}`)
  }
  return (cpuMs(service.child.pid) - cpu) / n
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

const rounds = Number(process.argv[2] ?? 9)
const services = { before: await start(servers.before, 39101), after: await start(servers.after, 39102) }
try {
  for (const c of cases) for (const build of ["before", "after"]) await run(services[build], c, Math.ceil(c.n / 2))
  const results = new Map(cases.map((c) => [c.name, { before: [], after: [] }]))
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? ["before", "after"] : ["after", "before"]
    for (const c of cases) for (const build of order) results.get(c.name)[build].push(await run(services[build], c))
  }
  for (const [name, r] of results) {
    const b = median(r.before)
    const a = median(r.after)
    const shown = (values) => values.map((v) => v.toFixed(1)).join(" ")
    console.log(`${name.padEnd(30)} before ${b.toFixed(2)} ms CPU/request, after ${a.toFixed(2)}, ratio ${(a / b).toFixed(2)}   [before ${shown(r.before)}] [after ${shown(r.after)}]`)
  }
} finally {
  for (const service of Object.values(services)) service.child.kill()
}
