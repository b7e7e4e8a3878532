/**
 * Size limits (SEED §8): body bytes from Content-Length and from the bytes actually read (a
 * 50 MiB chunked upload), and each trace cap with a message naming the limit and its variable.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { request } from "node:http"
import { exampleTrace } from "../support/ProviderDouble.js"
import { type RunningService, startService } from "../support/Service.js"

let service: RunningService
beforeAll(async () => {
  service = await startService({
    SVC_API_MAX_TRACE_STEPS: "50",
    SVC_API_MAX_MESSAGES: "40",
    SVC_API_MAX_STRING_CHARS: "1000",
    SVC_API_MAX_TOTAL_CHARS: "20000"
  })
})
afterAll(async () => {
  await service.close()
})

const analyze = async (name: string, body: unknown) => {
  const response = await fetch(`${service.url}/v1/analyze/${name}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body)
  })
  return { status: response.status, body: await response.text() }
}

describe("body bytes", () => {
  it("answers a 50 MiB chunked upload with a JSON 413 (no reset), and keeps serving", async () => {
    const started = Date.now()
    const reply = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${service.url}/v1/analyze/lewin`, {
        method: "POST",
        headers: { "content-type": "application/json", "transfer-encoding": "chunked" }
      }, (res) => {
        const chunks: Array<Buffer> = []
        res.on("data", (chunk: Buffer) => chunks.push(chunk))
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }))
      })
      req.on("error", reject)
      const chunk = Buffer.alloc(1024 * 1024, "x")
      let sent = 0
      const pump = () => {
        while (sent < 50) {
          sent += 1
          if (!req.write(chunk)) {
            req.once("drain", pump)
            return
          }
        }
        req.end()
      }
      pump()
    })
    expect(reply.status).toBe(413)
    expect(JSON.parse(reply.body)).toEqual({ detail: { error: "request_too_large", message: expect.stringContaining("SVC_API_MAX_BODY_BYTES") } })
    expect(Date.now() - started).toBeLessThan(30_000)
    for (let i = 0; i < 3; i++) expect((await fetch(`${service.url}/healthz`)).status).toBe(200)
  })
})

describe("trace caps", () => {
  const steps = (n: number, text = "x") => Array.from({ length: n }, () => ({ type: "thought", content: text }))

  it.each([
    ["steps", () => analyze("lewin", { task: "t", steps: steps(51), outcome: "o" }), "SVC_API_MAX_TRACE_STEPS"],
    ["messages", () => analyze("lencioni", { ...exampleTrace("lencioni"), messages: Array.from({ length: 41 }, () => ({ from: "a", content: "m" })) }), "SVC_API_MAX_MESSAGES"],
    ["turns", () => analyze("trust_triangle", { task: "t", turns: Array.from({ length: 51 }, () => ({ role: "user", content: "x" })), outcome: "o" }), "SVC_API_MAX_TRACE_STEPS"],
    ["per-string characters", () => analyze("lewin", { task: "t", steps: [{ type: "a", content: "y".repeat(1001) }], outcome: "o" }), "SVC_API_MAX_STRING_CHARS"],
    ["total characters", () => analyze("lewin", { task: "t", steps: steps(30, "z".repeat(900)), outcome: "o" }), "SVC_API_MAX_TOTAL_CHARS"],
    ["a list the pattern does not declare", () => analyze("lewin", { task: "t", steps: steps(1), outcome: "o", individual_factors: Array.from({ length: 51 }, () => "f") }), "SVC_API_MAX_TRACE_STEPS"]
  ])("%s: 413 naming the limit and its variable", async (_label, send, variable) => {
    const reply = await send()
    expect(reply.status).toBe(413)
    const body = JSON.parse(reply.body)
    expect(body).toEqual({ detail: { error: "request_too_large", message: expect.stringContaining(variable) } })
  })

  it("rejects nesting deeper than 64 levels as validation_error, without crashing", async () => {
    const deep = `${'{"d":'.repeat(10_000)}"bottom"${"}".repeat(10_000)}`
    const text = `{"task":"t","steps":[{"type":"a","content":"b"}],"outcome":"o","metadata":${deep}}`
    const response = await fetch(`${service.url}/v1/analyze/lewin`, { method: "POST", headers: { "content-type": "application/json" }, body: text })
    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({ detail: { error: "validation_error", message: expect.stringContaining("nested") } })
    expect((await fetch(`${service.url}/healthz`)).status).toBe(200)
  })
})
