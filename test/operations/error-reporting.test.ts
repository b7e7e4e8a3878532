/**
 * Error reporting (DECISIONS §10): without the SDK, one info line and nothing else; with the SDK
 * (@sentry/node, an optional dependency), unexpected 5xx reach the DSN host (a loopback endpoint
 * here) with request id, pattern and mode, and without trace content or keys.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "@effect/vitest"
import { Effect, Logger, Option, Redacted } from "effect"
import { createServer, type Server } from "node:http"
import { gunzipSync } from "node:zlib"
import { makeErrorReporting } from "../../src/Observability/ErrorReporting.js"
import { exampleTrace, type ProviderDouble, startProviderDouble } from "../support/ProviderDouble.js"
import { type RunningService, startService } from "../support/Service.js"

const KEY = "sk-ant-report-0123456789abcdef"
const MARKER = "OKAPI-5521 private customer remark"

describe("without the SDK", () => {
  it("logs one info line and reports nothing", async () => {
    const messages: Array<string> = []
    const collect = Logger.make(({ message }) => {
      messages.push(Array.isArray(message) ? message.map(String).join(" ") : String(message))
    })
    const reporting = await Effect.runPromise(
      Effect.scoped(
        makeErrorReporting(Option.some(Redacted.make("http://public@127.0.0.1:9/1")), Option.none(), () =>
          Promise.reject(new Error("Cannot find package '@sentry/node'"))).pipe(
            Effect.tap((r) => r.report({ kind: "internal_error", status: 500, message: "m", requestId: "r", pattern: null, mode: null }))
          )
      ).pipe(Effect.provide(Logger.replace(Logger.defaultLogger, collect)))
    )
    expect(reporting.enabled).toBe(false)
    expect(messages).toEqual(["error reporting is off: ERROR_REPORTING_DSN is set but @sentry/node is not installed"])
  })

  it("does nothing at all without a DSN", async () => {
    const reporting = await Effect.runPromise(Effect.scoped(makeErrorReporting(Option.none(), Option.none(), () => Promise.reject(new Error("unused")))))
    expect(reporting.enabled).toBe(false)
  })
})

describe("with the SDK and a DSN", () => {
  let double: ProviderDouble
  let service: RunningService
  let sink: Server
  const received: Array<{ readonly path: string; readonly body: string }> = []

  beforeAll(async () => {
    double = await startProviderDouble()
    sink = createServer((req, res) => {
      const chunks: Array<Buffer> = []
      req.on("data", (chunk: Buffer) => chunks.push(chunk))
      req.on("end", () => {
        const raw = Buffer.concat(chunks)
        const body = req.headers["content-encoding"] === "gzip" ? gunzipSync(raw).toString("utf8") : raw.toString("utf8")
        received.push({ path: req.url ?? "", body })
        res.writeHead(200, { "content-type": "application/json" })
        res.end("{}")
      })
    })
    await new Promise<void>((resolve) => sink.listen(0, "127.0.0.1", resolve))
    const address = sink.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    service = await startService({
      ANTHROPIC_API_KEY: KEY,
      ANTHROPIC_BASE_URL: double.url,
      ERROR_REPORTING_DSN: `http://publickey@127.0.0.1:${port}/42`,
      ERROR_REPORTING_ENVIRONMENT: "ci"
    })
  })
  afterAll(async () => {
    await service.close()
    await double.close()
    await new Promise<void>((resolve) => sink.close(() => resolve()))
  })

  it("sends a 5xx with request id, pattern and mode, and no trace content or keys", async () => {
    double.script = () => ({ kind: "status", status: 500 })
    const trace = exampleTrace("lewin")
    const steps = Array.isArray(trace["steps"]) ? trace["steps"] : []
    const response = await fetch(`${service.url}/v1/analyze/lewin`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-request-id": "report-me-1" },
      body: JSON.stringify({ ...trace, steps: [...steps, { type: "note", content: MARKER }], mode: "quick" })
    })
    expect(response.status).toBe(502)
    const deadline = Date.now() + 10_000
    while (!received.some((r) => r.body.includes("report-me-1")) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    const envelope = received.find((r) => r.body.includes("report-me-1"))
    expect(envelope, JSON.stringify(received).slice(0, 500)).toBeDefined()
    expect(envelope!.path).toContain("/api/42/envelope")
    const body = envelope!.body
    expect(body).toContain('"request_id":"report-me-1"')
    expect(body).toContain('"pattern":"lewin"')
    expect(body).toContain('"mode":"quick"')
    expect(body).toContain('"kind":"analyzer_error"')
    expect(body).toContain('"environment":"ci"')
    expect(body).not.toContain(MARKER)
    expect(body).not.toContain(KEY)
    expect(body).not.toContain("analytics service unavailable")
  })

  it("does not report client errors", async () => {
    const before = received.length
    const refused = await fetch(`${service.url}/v1/analyze/lewin`, { method: "POST", headers: { "content-type": "application/json", "x-request-id": "client-error-1" }, body: "{}" })
    expect(refused.status).toBe(400)
    // Then a 5xx, which is reported: its report, sent after any report of the 400 would have been,
    // is the event waited for (not a time); once it is in, it is the only new one.
    double.script = () => ({ kind: "status", status: 500 })
    const failed = await fetch(`${service.url}/v1/analyze/lewin`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-request-id": "report-me-after-400" },
      body: JSON.stringify({ ...exampleTrace("lewin"), mode: "quick" })
    })
    expect(failed.status).toBe(502)
    await vi.waitFor(() => expect(received.slice(before).some((r) => r.body.includes("report-me-after-400"))).toBe(true), { timeout: 30_000, interval: 20 })
    const reports = received.slice(before)
    expect(reports.filter((r) => r.body.includes("client-error-1"))).toEqual([])
    expect(reports).toHaveLength(1)
  })
})
