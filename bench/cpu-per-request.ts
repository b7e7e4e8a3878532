/**
 * `BENCH_BASE_SERVER=<another build's dist/server.mjs> npx tsx bench/cpu-per-request.ts` after
 * `npm run build`: the service process's CPU time per request (user + system, from /proc) for the
 * edge's hot paths, GET /healthz and a cache hit of a 50-step analyze, on this checkout's build and
 * the other, interleaved round by round (base and head first in turn). CPU time, not requests per
 * second: on a loaded machine the throughput of one round moves by 3x (docs/performance.md,
 * "Comparing two builds"), while the CPU a request costs the server holds far better. Each
 * measure sends BENCH_REQUESTS requests (20,000), 64 at a time; the report is the median of the
 * rounds (BENCH_ROUNDS, 5) as head / base ratios.
 */
import autocannon from "autocannon"
import { join } from "node:path"
import { BENCH_KEY as KEY, cpuMsOf, launchService, ledgerTrace as trace, median, postJson as post, round2, START_FLAGS, startDouble, stopChild } from "./support.js"
import { Agent } from "node:http"
import { loadavg } from "node:os"

const repo = join(import.meta.dirname, "..")
const BASE = process.env["BENCH_BASE_SERVER"] ?? ""
const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 5)
const REQUESTS = Number(process.env["BENCH_REQUESTS"] ?? 20_000)

/** Microseconds of the server's CPU per request over `REQUESTS` requests. */
const cpuPerRequest = async (pid: number | undefined, url: string, body?: string) => {
  const before = cpuMsOf(pid)
  await autocannon({
    url,
    connections: 64,
    amount: REQUESTS,
    method: body === undefined ? "GET" : "POST",
    ...(body === undefined ? {} : { body }),
    headers: { authorization: `Bearer ${KEY}`, ...(body === undefined ? {} : { "content-type": "application/json" }) }
  })
  return ((cpuMsOf(pid) - before) * 1000) / REQUESTS
}

const measure = async (server: string, doubleUrl: string) => {
  const service = await launchService(server, START_FLAGS, { SVC_CACHE: "memory", ANTHROPIC_API_KEY: "sk-bench-0123456789", ANTHROPIC_BASE_URL: doubleUrl })
  const small = JSON.stringify({ trace: trace(50, 4, "cache"), mode: "quick" })
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  // the first analyze (the provider double answers) stores the detection; the same body is then a hit at the edge
  const seeded = await post(`${service.url}/v1/analyze/lewin`, small, agent)
  agent.destroy()
  const pid = service.child.pid
  // warm both paths, then measure
  await cpuPerRequest(pid, `${service.url}/healthz`)
  const healthz = await cpuPerRequest(pid, `${service.url}/healthz`)
  await cpuPerRequest(pid, `${service.url}/v1/analyze/lewin`, small)
  const hit = await cpuPerRequest(pid, `${service.url}/v1/analyze/lewin`, small)
  await stopChild(service.child)
  return { healthz, hit, seededStatus: seeded.status }
}

const main = async () => {
  if (BASE === "") throw new Error("set BENCH_BASE_SERVER to the other build's dist/server.mjs")
  const head = join(repo, "dist", "server.mjs")
  const double = await startDouble(0)
  const rounds: Array<{ readonly base: Awaited<ReturnType<typeof measure>>; readonly head: Awaited<ReturnType<typeof measure>>; readonly load: number }> = []
  for (let round = 0; round < ROUNDS; round++) {
    const headFirst = round % 2 === 1
    const a = await measure(headFirst ? head : BASE, double.url)
    const b = await measure(headFirst ? BASE : head, double.url)
    rounds.push({ base: headFirst ? b : a, head: headFirst ? a : b, load: loadavg()[0] ?? Number.NaN })
    console.log(`round ${round + 1}/${ROUNDS}: healthz ${round2(rounds[round]?.base.healthz ?? 0)} → ${round2(rounds[round]?.head.healthz ?? 0)} µs, hit ${round2(rounds[round]?.base.hit ?? 0)} → ${round2(rounds[round]?.head.hit ?? 0)} µs, load ${round2(loadavg()[0] ?? 0)}`)
  }
  for (const metric of ["healthz", "hit"] as const) {
    const ratios = rounds.map((r) => r.head[metric] / r.base[metric])
    console.log(`${metric}: base ${round2(median(rounds.map((r) => r.base[metric])))} µs, head ${round2(median(rounds.map((r) => r.head[metric])))} µs, head / base ${round2(median(ratios))} (rounds ${ratios.map(round2).join(" ")})`)
  }
  console.log(`seeded analyze status: ${rounds.map((r) => `${r.base.seededStatus}/${r.head.seededStatus}`).join(" ")}`)
  await stopChild(double.child)
}

void main()
