/**
 * Provider faults, through the provider double: every request ends within the deadline with a
 * documented status, the in-flight gauge returns to 0, and no socket is left open.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { exampleTrace, type ProviderDouble, type Reply, startProviderDouble } from "../support/ProviderDouble.js"
import { type RunningService, startService } from "../support/Service.js"

const DEADLINE_MS = 3000
let double: ProviderDouble
let service: RunningService
beforeAll(async () => {
  double = await startProviderDouble()
  service = await startService({
    OPENAI_API_KEY: "sk-faults-0123456789abcdef",
    OPENAI_BASE_URL: `${double.url}/v1`,
    SVC_API_REQUEST_TIMEOUT: `${DEADLINE_MS}ms`
  })
})
afterAll(async () => {
  await service.close()
  await double.close()
})

const analyze = async () => {
  const started = Date.now()
  const response = await fetch(`${service.url}/v1/analyze/lewin`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ trace: exampleTrace("lewin"), mode: "quick" })
  })
  const body: unknown = await response.json()
  const detail: unknown = typeof body === "object" && body !== null ? Reflect.get(body, "detail") : undefined
  const error: unknown = typeof detail === "object" && detail !== null ? Reflect.get(detail, "error") : undefined
  return { status: response.status, error, ms: Date.now() - started }
}

const gauge = async (name: string) => {
  const text = await (await fetch(`${service.url}/metrics`)).text()
  return Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, "m").exec(text)?.[1] ?? Number.NaN)
}

const FAULTS: ReadonlyArray<readonly [string, () => Reply, number, string]> = [
  ["500 on every attempt", () => ({ kind: "status", status: 500 }), 502, "analyzer_error"],
  ["a 429 storm", () => ({ kind: "status", status: 429, headers: { "retry-after": "0" } }), 502, "analyzer_error"],
  ["a hang", () => ({ kind: "hang" }), 504, "timeout"],
  ["a truncated body", () => ({ kind: "truncated" }), 502, "analyzer_error"],
  ["invalid JSON", () => ({ kind: "raw", status: 200, body: '{"id": "resp_1", "output": [' }), 502, "analyzer_error"],
  ["a 50 MiB response", () => ({ kind: "huge", megabytes: 50 }), 502, "analyzer_error"],
  ["a slow drip", () => ({ kind: "drip", everyMs: 100 }), 504, "timeout"],
  ["a 200 that is not a Responses object", () => ({ kind: "raw", status: 200, body: '{"hello":"world"}' }), 502, "analyzer_error"]
]

describe("provider faults", () => {
  it.each(FAULTS)("%s: ends within the deadline with the documented status", async (_name, reply, status, error) => {
    double.reset()
    double.script = reply
    const results = await Promise.all(Array.from({ length: 5 }, analyze))
    for (const result of results) {
      expect(result.status).toBe(status)
      expect(result.error).toBe(error)
      expect(result.ms).toBeLessThan(DEADLINE_MS + 1500)
    }
  }, 30_000)

  it("leaves no analysis in flight and no socket open", async () => {
    double.reset()
    expect(await gauge("svc_analyses_in_flight")).toBe(0)
    // Idle keep-alive connections to the provider close after the client agent's keep-alive timeout.
    const deadline = Date.now() + 15_000
    while (double.openConnections() > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200))
    expect(double.openConnections()).toBe(0)
    expect((await analyze()).status).toBe(200)
  }, 30_000)
})
