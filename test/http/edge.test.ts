/**
 * The edge (src/Edge/Edge.ts) answers prepared responses and cache hits itself and hands the rest
 * to the HttpApi app. These tests hold both to one contract: the same bytes and headers, guards
 * counted once (also when a request is handed on), the same metrics, and refusals in the
 * documented error shape.
 */
import { describe, expect, it, vi } from "@effect/vitest"
import { Schema } from "effect"
import { request } from "node:http"
import { connect } from "node:net"
import { useProviderDouble } from "../support/Harness.js"
import { exampleOutput, exampleTrace } from "../support/ProviderDouble.js"
import type { RunningService } from "../support/Service.js"

const KEY = "edge-path-key-0123456789"
const harness = useProviderDouble()
const start = (env: Record<string, string> = {}) =>
  harness.start({
    ANTHROPIC_API_KEY: "sk-ant-fast-0123456789",
    ANTHROPIC_BASE_URL: harness.double.url,
    SVC_CACHE: "memory",
    SVC_API_REQUIRE_AUTH: "true",
    SVC_API_KEYS: `tester=${KEY}`,
    SVC_API_RATE_LIMIT: "1000/60",
    ...env
  })
const body = JSON.stringify({ trace: exampleTrace("lewin"), mode: "quick" })
const analyze = (service: RunningService, headers: Record<string, string> = {}, signal?: AbortSignal) =>
  fetch(`${service.url}/v1/analyze/lewin`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${KEY}`, ...headers },
    body,
    ...(signal === undefined ? {} : { signal })
  })

/** A POST with a chunked body (no Content-Length): the edge reads it as it arrives. */
const chunkedAnalyze = (service: RunningService) =>
  new Promise<{ status: number; headers: Record<string, string | Array<string> | undefined>; text: string }>((resolve, reject) => {
    const req = request(`${service.url}/v1/analyze/lewin`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${KEY}`, "transfer-encoding": "chunked" }
    }, (res) => {
      let text = ""
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => (text += chunk))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }))
    })
    req.on("error", reject)
    req.write(body.slice(0, 100))
    req.end(body.slice(100))
  })

const Reply = Schema.Struct({ cached: Schema.Boolean, detection: Schema.Unknown, pattern: Schema.String, mode: Schema.String })
const reply = async (response: Response) => Schema.decodeUnknownSync(Reply)(await response.json())

const metricValue = (text: string, name: string, labels: Record<string, string>): number => {
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`)) continue
    const set = line.slice(name.length + 1, line.indexOf("}"))
    if (Object.entries(labels).every(([key, value]) => set.includes(`${key}="${value}"`))) return Number(line.slice(line.lastIndexOf(" ") + 1))
  }
  return 0
}
const metrics = async (service: RunningService) => (await fetch(`${service.url}/metrics`)).text()

describe("cache hits at the edge", () => {
  it("answers an identical body from the cache with the same bytes and headers as a computed answer, counting the limit once per request", async () => {
    const service = await start()
    harness.double.script = () => ({ kind: "object", value: exampleOutput("lewin") })
    const miss = await analyze(service)
    expect(miss.status).toBe(200)
    expect(miss.headers.get("x-cache")).toBe("miss")
    const computed = await reply(miss)

    const hit = await analyze(service, { "x-request-id": "fast-hit-1" })
    expect(hit.status).toBe(200)
    expect(hit.headers.get("x-cache")).toBe("hit")
    expect(hit.headers.get("x-request-id")).toBe("fast-hit-1")
    expect(hit.headers.get("content-type")).toBe("application/json")
    expect(hit.headers.get("x-content-type-options")).toBe("nosniff")
    expect(hit.headers.get("content-security-policy")).toBe(miss.headers.get("content-security-policy"))
    expect(hit.headers.get("cache-control")).toBe("no-store")
    const cached = await reply(hit)
    expect(cached).toMatchObject({ cached: true, pattern: "lewin", mode: "quick" })
    expect(cached.detection).toEqual(computed.detection)
    expect(harness.double.calls).toHaveLength(1)

    // The limit is counted once per request, whichever path answered it.
    const remaining = [miss, hit].map((response) => Number(response.headers.get("x-ratelimit-remaining")))
    expect(remaining[0]! - remaining[1]!).toBe(1)
    const third = await analyze(service)
    expect(Number(third.headers.get("x-ratelimit-remaining"))).toBe(remaining[1]! - 1)
  })

  it("reads a chunked body as it arrives and still finds the hit", async () => {
    const service = await start()
    harness.double.script = () => ({ kind: "object", value: exampleOutput("lewin") })
    expect((await analyze(service)).status).toBe(200)
    const before = Number((await analyze(service)).headers.get("x-ratelimit-remaining"))
    const chunked = await chunkedAnalyze(service)
    expect(chunked.status).toBe(200)
    expect(chunked.headers["x-cache"]).toBe("hit")
    expect(Number(chunked.headers["x-ratelimit-remaining"])).toBe(before - 1)
    expect(Schema.decodeUnknownSync(Schema.parseJson(Reply))(chunked.text).cached).toBe(true)
    expect(harness.double.calls).toHaveLength(1)
  })

  it("counts cache hits at the edge in the HTTP and analyze metrics", async () => {
    const service = await start()
    harness.double.script = () => ({ kind: "object", value: exampleOutput("lewin") })
    await analyze(service)
    const before = await metrics(service)
    for (let i = 0; i < 3; i++) expect((await analyze(service)).headers.get("x-cache")).toBe("hit")
    const after = await metrics(service)
    const http = { method: "POST", route: "/v1/analyze/lewin", code: "200" }
    expect(metricValue(after, "svc_http_requests_total", http) - metricValue(before, "svc_http_requests_total", http)).toBe(3)
    const hits = { pattern: "lewin", mode: "quick", status: "cache_hit" }
    expect(metricValue(after, "svc_requests_total", hits) - metricValue(before, "svc_requests_total", hits)).toBe(3)
    const events = { event: "hit" }
    expect(metricValue(after, "svc_cache_events_total", events) - metricValue(before, "svc_cache_events_total", events)).toBe(3)
  })

  it("refuses a wrong key with 401 before reading the body, and closes the connection", async () => {
    const service = await start()
    const response = await analyze(service, { authorization: "Bearer not-the-key" })
    expect(response.status).toBe(401)
    expect(response.headers.get("www-authenticate")).toBe('Bearer realm="svc"')
    expect(response.headers.get("connection")).toBe("close")
    expect(await response.json()).toEqual({ detail: { error: "unauthorized", message: "the API key is not valid" } })
    expect(harness.double.calls).toHaveLength(0)
  })

  it("survives a client that leaves halfway through its body, and keeps serving", async () => {
    const service = await start()
    await new Promise<void>((resolve, reject) => {
      const socket = connect(service.port, "127.0.0.1", () => {
        socket.write(
          `POST /v1/analyze/lewin HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nauthorization: Bearer ${KEY}\r\ncontent-length: ${body.length}\r\n\r\n${
            body.slice(0, 50)
          }`
        )
        setTimeout(() => {
          socket.destroy()
          resolve()
        }, 100)
      })
      socket.on("error", reject)
    })
    expect((await fetch(`${service.url}/healthz`)).status).toBe(200)
    // counted once the server has seen the socket close: wait for the count, then check it is one
    const gone = async () => metricValue(await metrics(service), "svc_http_requests_total", { method: "POST", code: "499" })
    await vi.waitFor(async () => expect(await gone()).toBeGreaterThanOrEqual(1), { timeout: 30_000, interval: 20 })
    expect(await gone()).toBe(1)
  })

  it("a client that leaves while its analysis waits on the provider aborts the provider request, counted once as client_closed", async () => {
    const service = await start()
    harness.double.script = () => ({ kind: "hang" })
    const before = await metrics(service)
    const counted = (text: string) => ({
      closed: metricValue(text, "svc_requests_total", { surface: "rest", pattern: "lewin", mode: "quick", status: "client_closed" }),
      gone: metricValue(text, "svc_http_requests_total", { method: "POST", code: "499" })
    })
    const controller = new AbortController()
    const other = new AbortController()
    const pending = analyze(service, { "x-request-id": "leaves-early" }, other.signal).catch(() => "aborted")
    const abortable = fetch(`${service.url}/v1/analyze/lewin`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${KEY}` },
      body: JSON.stringify({ trace: { ...exampleTrace("lewin"), task: "another task" }, mode: "quick" }),
      signal: controller.signal
    }).catch(() => "aborted")
    await vi.waitFor(() => expect(harness.double.calls.length).toBeGreaterThanOrEqual(2), { timeout: 30_000, interval: 20 })
    expect(harness.double.calls).toHaveLength(2)
    controller.abort()
    expect(await abortable).toBe("aborted")
    const closedEarly = () => harness.double.calls.filter((call) => call.closedEarly === true).length
    await vi.waitFor(() => expect(closedEarly()).toBeGreaterThanOrEqual(1), { timeout: 30_000, interval: 20 })
    expect(closedEarly()).toBe(1)
    // counted as the request ends, which may follow the provider's close: wait for both counts
    await vi.waitFor(async () => {
      const now = counted(await metrics(service))
      expect(Math.min(now.closed - counted(before).closed, now.gone - counted(before).gone)).toBeGreaterThanOrEqual(1)
    }, { timeout: 30_000, interval: 20 })
    const after = counted(await metrics(service))
    expect(after.closed - counted(before).closed).toBe(1)
    expect(after.gone - counted(before).gone).toBe(1)
    // The other request still waits on its own provider call, untouched.
    expect(harness.double.calls.filter((call) => call.closedEarly !== true)).toHaveLength(1)
    harness.double.script = () => ({ kind: "object", value: exampleOutput("lewin") })
    // It leaves too, and its request ends: left hanging, it would hold the service's close for the
    // whole shutdown grace (20 s) at the end of the file.
    other.abort()
    expect(await pending).toBe("aborted")
    await vi.waitFor(async () => expect(counted(await metrics(service)).gone - counted(before).gone).toBe(2), { timeout: 30_000, interval: 20 })
  })
})

describe("prepared responses at the edge", () => {
  it("serve GETs with the same security headers as the Effect path, and the documented 401 and 429", async () => {
    const service = await start({ SVC_API_RATE_LIMIT: "3/60" })
    const fast = await fetch(`${service.url}/v1/patterns`, { headers: { authorization: `Bearer ${KEY}` } })
    const effect = await fetch(`${service.url}/readyz`)
    expect(fast.status).toBe(200)
    for (const header of ["x-content-type-options", "x-frame-options", "referrer-policy", "content-security-policy", "cross-origin-opener-policy", "cache-control"]) {
      expect(fast.headers.get(header)).toBe(effect.headers.get(header))
    }
    expect(fast.headers.get("x-ratelimit-limit")).toBe("3")

    const unauthorized = await fetch(`${service.url}/v1/patterns/lewin`)
    expect(unauthorized.status).toBe(401)
    expect(await unauthorized.json()).toMatchObject({ detail: { error: "unauthorized" } })

    // 3 per minute: the first request above and two more are allowed, the fourth is refused.
    const statuses: Array<number> = []
    let limited = fast
    for (let i = 0; i < 3; i++) {
      limited = await fetch(`${service.url}/v1/patterns`, { headers: { authorization: `Bearer ${KEY}` } })
      statuses.push(limited.status)
    }
    expect(statuses).toEqual([200, 200, 429])
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0)
    expect(await limited.json()).toMatchObject({ detail: { error: "rate_limited" } })
  })
})
