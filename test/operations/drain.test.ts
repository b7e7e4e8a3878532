/**
 * Graceful draining (DECISIONS §7) with the real process (the built dist/server.mjs) and the
 * provider double: in-flight analyses finish, readiness fails at once, the process exits 0 before
 * the grace ends; analyses that outlast the grace are cut and their upstream connections closed.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { type Spawned, spawnService as spawnAt } from "../support/Spawned.js"
import { exampleOutput, exampleTrace, type ProviderDouble, startProviderDouble } from "../support/ProviderDouble.js"

let double: ProviderDouble
beforeAll(async () => {
  double = await startProviderDouble()
})
afterAll(async () => {
  await double.close()
})

const spawnService = (env: Record<string, string>) => spawnAt(double.url, env)

const analyze = (url: string) =>
  fetch(`${url}/v1/analyze/lewin`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ ...exampleTrace("lewin"), mode: "quick" })
  }).then(
    async (response) => ({ status: response.status, at: Date.now(), body: await response.text() }),
    (error: unknown) => ({ status: 0, at: Date.now(), body: String(error) })
  )

const waitFor = async (condition: () => boolean, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("timed out waiting")
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

const logAt = (spawned: Spawned, message: string) => spawned.logs.find((entry) => entry.line["message"] === message)?.at

describe("draining", () => {
  it("SIGTERM with 200 analyses in flight: readyz 503 at once, every analysis completes, exit 0 before the grace", async () => {
    double.reset()
    double.script = () => ({ kind: "delay", ms: 2000, then: { kind: "object", value: exampleOutput("lewin") } })
    const spawned = await spawnService({ SVC_DRAIN_DELAY_SECONDS: "1", SVC_SHUTDOWN_GRACE_SECONDS: "20" })
    const requests = Array.from({ length: 200 }, () => analyze(spawned.url))
    await waitFor(() => double.calls.length >= 200, 20_000)

    const signalAt = Date.now()
    spawned.child.kill("SIGTERM")
    let readyz503At: number | undefined
    while (readyz503At === undefined && Date.now() - signalAt < 2000) {
      const status = await fetch(`${spawned.url}/readyz`).then((r) => r.status, () => 0)
      if (status === 503) readyz503At = Date.now()
    }
    const results = await Promise.all(requests)
    const exit = await spawned.exited

    expect(readyz503At).toBeDefined()
    expect(readyz503At! - signalAt).toBeLessThan(100)
    expect(results.filter((r) => r.status === 200)).toHaveLength(200)
    expect(exit.code).toBe(0)
    expect(exit.at - signalAt).toBeLessThan(20_000)
    const lastResponse = Math.max(...results.map((r) => r.at))
    const timeline = {
      readyz_503_ms: readyz503At! - signalAt,
      listener_closed_ms: (logAt(spawned, "listener closed") ?? Number.NaN) - signalAt,
      last_response_ms: lastResponse - signalAt,
      exit_ms: exit.at - signalAt
    }
    console.info(`drain timeline (ms after SIGTERM): ${JSON.stringify(timeline)}`)
    expect(timeline.listener_closed_ms).toBeGreaterThanOrEqual(900)
    expect(timeline.exit_ms).toBeGreaterThanOrEqual(timeline.last_response_ms - 50)
  }, 60_000)

  it("analyses that outlast the grace are cut: the process still exits in time and upstream connections close", async () => {
    double.reset()
    double.script = () => ({ kind: "hang" })
    const spawned = await spawnService({ SVC_DRAIN_DELAY_SECONDS: "0.2", SVC_SHUTDOWN_GRACE_SECONDS: "1.5" })
    const requests = Array.from({ length: 20 }, () => analyze(spawned.url))
    await waitFor(() => double.calls.length >= 20, 10_000)
    const signalAt = Date.now()
    spawned.child.kill("SIGTERM")
    const exit = await spawned.exited
    const results = await Promise.all(requests)
    expect(exit.code).toBe(0)
    expect(exit.at - signalAt).toBeLessThan(0.2 * 1000 + 1.5 * 1000 + 3000)
    expect(results.every((r) => r.status !== 200)).toBe(true)
    await waitFor(() => double.calls.every((call) => call.closedEarly), 3000)
    expect(logAt(spawned, "requests finished")).toBeDefined()
  }, 30_000)

  it("SIGINT skips the drain delay; a second signal exits at once", async () => {
    double.reset()
    double.script = () => ({ kind: "hang" })
    const first = await spawnService({ SVC_DRAIN_DELAY_SECONDS: "10", SVC_SHUTDOWN_GRACE_SECONDS: "1" })
    const signalAt = Date.now()
    first.child.kill("SIGINT")
    const exit = await first.exited
    expect(exit.code).toBe(0)
    expect(exit.at - signalAt).toBeLessThan(5000)

    const second = await spawnService({ SVC_DRAIN_DELAY_SECONDS: "10" })
    second.child.kill("SIGTERM")
    await waitFor(() => logAt(second, "draining") !== undefined, 5000)
    const againAt = Date.now()
    second.child.kill("SIGTERM")
    const forced = await second.exited
    expect(forced.code).toBe(1)
    expect(forced.at - againAt).toBeLessThan(2000)
  }, 30_000)

  it("MCP tool calls in flight over /mcp finish while readyz answers 503", async () => {
    double.reset()
    double.script = () => ({ kind: "delay", ms: 1500, then: { kind: "object", value: exampleOutput("lewin") } })
    const spawned = await spawnService({ SVC_DRAIN_DELAY_SECONDS: "0.5", SVC_SHUTDOWN_GRACE_SECONDS: "20" })
    const call = (id: number) =>
      fetch(`${spawned.url}/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "svc_lewin", arguments: { trace: exampleTrace("lewin"), mode: "quick" } } })
      }).then(async (response) => ({ status: response.status, body: await response.text() }), (error: unknown) => ({ status: 0, body: String(error) }))
    const calls = Array.from({ length: 10 }, (_, i) => call(i))
    await waitFor(() => double.calls.length >= 10, 10_000)
    spawned.child.kill("SIGTERM")
    let readyz = 0
    const signalAt = Date.now()
    while (readyz !== 503 && Date.now() - signalAt < 2000) readyz = await fetch(`${spawned.url}/readyz`).then((r) => r.status, () => 0)
    const results = await Promise.all(calls)
    expect(readyz).toBe(503)
    for (const result of results) {
      expect(result.status).toBe(200)
      const answer: unknown = JSON.parse(result.body)
      expect(answer).toMatchObject({ jsonrpc: "2.0", result: { structuredContent: { pattern: "lewin" } } })
    }
    expect((await spawned.exited).code).toBe(0)
  }, 30_000)
})
