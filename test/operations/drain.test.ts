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

/** An annotation of the service's first log line `message` (its own measurements, e.g. `since_signal_ms`). */
const logged = (spawned: Spawned, message: string, annotation: string): unknown => {
  const annotations = spawned.logs.find((entry) => entry.line["message"] === message)?.line["annotations"]
  return typeof annotations === "object" && annotations !== null ? Reflect.get(annotations, annotation) : undefined
}

/**
 * Asks /readyz until it answers 503 or the listener has closed (the drain delay is over). A 503 can
 * only be seen while the listener is open, so seeing one proves readiness failed before the delay
 * ended, whatever the machine's load; the wall clock takes no part.
 */
const readyz503WhileListening = async (spawned: Spawned): Promise<boolean> => {
  while (logAt(spawned, "listener closed") === undefined && spawned.child.exitCode === null) {
    const status = await fetch(`${spawned.url}/readyz`).then((r) => r.status, () => 0)
    if (status === 503) return true
  }
  return false
}

describe("draining", () => {
  it("SIGTERM with 200 analyses in flight: readyz 503 at once, every analysis completes, exit 0 before the grace", async () => {
    double.reset()
    double.script = () => ({ kind: "delay", ms: 2000, then: { kind: "object", value: exampleOutput("lewin") } })
    const spawned = await spawnService({ SVC_DRAIN_DELAY_SECONDS: "1", SVC_SHUTDOWN_GRACE_SECONDS: "20" })
    const requests = Array.from({ length: 200 }, () => analyze(spawned.url))
    await waitFor(() => double.calls.length >= 200, 20_000)

    const signalAt = Date.now()
    spawned.child.kill("SIGTERM")
    const readyz503 = await readyz503WhileListening(spawned)
    const results = await Promise.all(requests)
    const exit = await spawned.exited

    // readiness failed during the drain delay, before the listener closed
    expect(readyz503).toBe(true)
    // every analysis completed (an analysis cut by the grace, or by an early exit, is no 200)
    expect(results.filter((r) => r.status === 200)).toHaveLength(200)
    // before the grace: the service never cut anything, and exited 0 once the requests finished
    expect(logAt(spawned, "shutdown grace expired; cutting the requests still in flight")).toBeUndefined()
    expect(logAt(spawned, "requests finished")).toBeDefined()
    expect(exit.code).toBe(0)
    // the listener stayed open for the drain delay (1 s), by the service's own clock
    expect(logged(spawned, "listener closed", "since_signal_ms")).toEqual(expect.any(Number))
    expect(Number(logged(spawned, "listener closed", "since_signal_ms"))).toBeGreaterThanOrEqual(1000)
    const timeline = {
      listener_closed_ms: logged(spawned, "listener closed", "since_signal_ms"),
      requests_finished_ms: logged(spawned, "requests finished", "since_signal_ms"),
      last_response_ms: Math.max(...results.map((r) => r.at)) - signalAt,
      exit_ms: exit.at - signalAt
    }
    console.info(`drain timeline (ms after SIGTERM): ${JSON.stringify(timeline)}`)
  }, 60_000)

  it("analyses that outlast the grace are cut: the process still exits in time and upstream connections close", async () => {
    double.reset()
    double.script = () => ({ kind: "hang" })
    const spawned = await spawnService({ SVC_DRAIN_DELAY_SECONDS: "0.2", SVC_SHUTDOWN_GRACE_SECONDS: "1.5" })
    const requests = Array.from({ length: 20 }, () => analyze(spawned.url))
    await waitFor(() => double.calls.length >= 20, 10_000)
    spawned.child.kill("SIGTERM")
    const exit = await spawned.exited
    const results = await Promise.all(requests)
    expect(exit.code).toBe(0)
    // it exited because the grace (1.5 s) ran out, by its own clock: the hung analyses never end
    expect(logged(spawned, "shutdown grace expired; cutting the requests still in flight", "grace_seconds")).toBe(1.5)
    expect(results.every((r) => r.status !== 200)).toBe(true)
    await waitFor(() => double.calls.every((call) => call.closedEarly), 3000)
    expect(logAt(spawned, "requests finished")).toBeDefined()
  }, 30_000)

  it("SIGINT skips the drain delay; a second signal exits at once", async () => {
    double.reset()
    double.script = () => ({ kind: "hang" })
    // A drain delay of an hour: a process that waited for it would outlive the test (its timeout
    // fails it), so exiting at all is skipping it, on any machine.
    const first = await spawnService({ SVC_DRAIN_DELAY_SECONDS: "3600", SVC_SHUTDOWN_GRACE_SECONDS: "1" })
    first.child.kill("SIGINT")
    const exit = await first.exited
    expect(exit.code).toBe(0)
    // through the drain (listener closed, requests cut at the grace), not killed
    expect(logAt(first, "listener closed")).toBeDefined()

    const second = await spawnService({ SVC_DRAIN_DELAY_SECONDS: "3600" })
    second.child.kill("SIGTERM")
    await waitFor(() => logAt(second, "draining") !== undefined, 20_000)
    second.child.kill("SIGTERM")
    // the second signal's own exit (1), not the drain's end (0), which is an hour away
    const forced = await second.exited
    expect(forced.code).toBe(1)
    expect(logAt(second, "listener closed")).toBeUndefined()
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
    const readyz503 = await readyz503WhileListening(spawned)
    const results = await Promise.all(calls)
    expect(readyz503).toBe(true)
    for (const result of results) {
      expect(result.status).toBe(200)
      const answer: unknown = JSON.parse(result.body)
      expect(answer).toMatchObject({ jsonrpc: "2.0", result: { structuredContent: { pattern: "lewin" } } })
    }
    expect((await spawned.exited).code).toBe(0)
  }, 30_000)
})
