/**
 * DECISIONS §3's order of checks for `POST /v1/analyze/{name}`, one test per adjacent pair: a
 * request that earns both refusals gets the earlier one. (§16's refusals before these, Host to
 * body size, are tested pair by pair in test/resilience/edge-bounds.test.ts.)
 *
 * unknown pattern 404 → body bytes 413 → not JSON / not an object / depth and keys 400 → trace
 * limits 413 → mode 400 invalid_mode → schema 400 validation_error → cache → provider 502
 * llm_resolution_error → the run under the deadline (504 / 502 analyzer_error).
 */
import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { request as httpRequest } from "node:http"
import { useProviderDouble } from "../support/Harness.js"
import { exampleOutput, exampleTrace } from "../support/ProviderDouble.js"
import type { RunningService } from "../support/Service.js"

const harness = useProviderDouble()
const ErrorBody = Schema.Struct({ detail: Schema.Struct({ error: Schema.String, message: Schema.String }) })

const post = async (service: RunningService, path: string, body: string, headers: Record<string, string> = {}) => {
  const response = await fetch(`${service.url}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body })
  const text = await response.text()
  const parsed = Schema.decodeUnknownEither(ErrorBody)(JSON.parse(text))
  return { status: response.status, kind: parsed._tag === "Right" ? parsed.right.detail.error : "ok", headers: response.headers }
}

/** A request that announces a body larger than it sends (fetch will not). */
const announce = (service: RunningService, path: string, length: number) =>
  new Promise<{ status: number; kind: string }>((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port: service.port, method: "POST", path, headers: { "content-type": "application/json", "content-length": String(length) } }, (res) => {
      let text = ""
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => {
        text += chunk
      })
      res.on("end", () => resolve({ status: res.statusCode ?? 0, kind: Schema.decodeUnknownSync(ErrorBody)(JSON.parse(text)).detail.error }))
    })
    req.on("error", reject)
    req.write("{")
  })

const lewin = exampleTrace("lewin")
const tooManySteps = Array.from({ length: 11 }, (_, i) => ({ type: "action", content: `step ${i}` }))

describe("DECISIONS §3: of two refusals, the earlier", () => {
  it("unknown pattern 404 before body bytes 413", async () => {
    const service = await harness.start({ SVC_API_MAX_BODY_BYTES: "4096" })
    expect(await announce(service, "/v1/analyze/no_such_pattern", 10_000)).toEqual({ status: 404, kind: "unknown_pattern" })
    expect(await announce(service, "/v1/analyze/lewin", 10_000)).toEqual({ status: 413, kind: "request_too_large" })
  })

  it("body bytes 413 before not JSON 400", async () => {
    const service = await harness.start({ SVC_API_MAX_BODY_BYTES: "4096" })
    expect(await post(service, "/v1/analyze/lewin", `{not json${" ".repeat(5000)}`)).toMatchObject({ status: 413, kind: "request_too_large" })
    expect(await post(service, "/v1/analyze/lewin", "{not json")).toMatchObject({ status: 400, kind: "validation_error" })
  })

  it("not JSON, a scalar, or too deep 400 before trace limits 413", async () => {
    const service = await harness.start({ SVC_API_MAX_TRACE_STEPS: "10" })
    const deep = `${"[".repeat(70)}0${"]".repeat(70)}`
    expect(await post(service, "/v1/analyze/lewin", JSON.stringify({ ...lewin, steps: tooManySteps }).replace(/}$/, `,"x":${deep}}`))).toMatchObject({ status: 400, kind: "validation_error" })
    expect(await post(service, "/v1/analyze/lewin", `${JSON.stringify({ ...lewin, steps: tooManySteps })},`)).toMatchObject({ status: 400, kind: "validation_error" })
    expect(await post(service, "/v1/analyze/lewin", JSON.stringify({ ...lewin, steps: tooManySteps }))).toMatchObject({ status: 413, kind: "request_too_large" })
  })

  it("trace limits 413 before mode 400 invalid_mode", async () => {
    const service = await harness.start({ SVC_API_MAX_TRACE_STEPS: "10" })
    expect(await post(service, "/v1/analyze/lewin", JSON.stringify({ trace: { ...lewin, steps: tooManySteps }, mode: "slow" }))).toMatchObject({ status: 413, kind: "request_too_large" })
  })

  it("mode 400 invalid_mode before schema 400 validation_error", async () => {
    const service = await harness.start({})
    expect(await post(service, "/v1/analyze/lewin", JSON.stringify({ trace: { ...lewin, steps: "not a list" }, mode: "slow" }))).toMatchObject({ status: 400, kind: "invalid_mode" })
    expect(await post(service, "/v1/analyze/lewin", JSON.stringify({ trace: { ...lewin, steps: "not a list" }, mode: "quick" }))).toMatchObject({ status: 400, kind: "validation_error" })
  })

  it("schema 400 before the cache: a body that fails the schema is never answered or kept by it, and calls no model", async () => {
    harness.double.script = () => ({ kind: "object", value: exampleOutput("lewin") })
    const service = await harness.start({ ANTHROPIC_API_KEY: "sk-ant-order-0123456789", ANTHROPIC_BASE_URL: harness.double.url, SVC_CACHE: "memory" })
    const bad = JSON.stringify({ trace: { ...lewin, steps: "not a list" }, mode: "quick" })
    for (let i = 0; i < 2; i++) {
      const answer = await post(service, "/v1/analyze/lewin", bad)
      expect(answer).toMatchObject({ status: 400, kind: "validation_error" })
      expect(answer.headers.get("x-cache")).toBeNull()
    }
    expect(harness.double.calls).toHaveLength(0)
  })

  it("the cache before the run: an answer kept is given again while the provider fails", async () => {
    harness.double.script = () => ({ kind: "object", value: exampleOutput("lewin") })
    const service = await harness.start({ ANTHROPIC_API_KEY: "sk-ant-order-0123456789", ANTHROPIC_BASE_URL: harness.double.url, SVC_CACHE: "memory" })
    const body = JSON.stringify({ trace: lewin, mode: "quick" })
    expect(await post(service, "/v1/analyze/lewin", body)).toMatchObject({ status: 200 })
    const calls = harness.double.calls.length
    harness.double.script = () => ({ kind: "status", status: 500, body: "{}" })
    const again = await post(service, "/v1/analyze/lewin", body)
    expect(again.status).toBe(200)
    expect(again.headers.get("x-cache")).toBe("hit")
    expect(harness.double.calls).toHaveLength(calls)
  })

  it("provider resolution 502 llm_resolution_error before the run under the deadline (504)", async () => {
    const service = await harness.start({ SVC_API_REQUEST_TIMEOUT: "1ms" })
    expect(await post(service, "/v1/analyze/lewin", JSON.stringify({ trace: lewin, mode: "quick" }))).toMatchObject({ status: 502, kind: "llm_resolution_error" })
  })

  it("the run under the deadline: 504 timeout when the model is slower than it, 502 analyzer_error when it fails", async () => {
    harness.double.script = () => ({ kind: "delay", ms: 3000, then: { kind: "object", value: exampleOutput("lewin") } })
    const slow = await harness.start({ ANTHROPIC_API_KEY: "sk-ant-order-0123456789", ANTHROPIC_BASE_URL: harness.double.url, SVC_API_REQUEST_TIMEOUT: "1s" })
    expect(await post(slow, "/v1/analyze/lewin", JSON.stringify({ trace: lewin, mode: "quick" }))).toMatchObject({ status: 504, kind: "timeout" })
    harness.double.script = () => ({ kind: "object", value: { not: "a detection" } })
    const failing = await harness.start({ ANTHROPIC_API_KEY: "sk-ant-order-0123456789", ANTHROPIC_BASE_URL: harness.double.url })
    expect(await post(failing, "/v1/analyze/lewin", JSON.stringify({ trace: lewin, mode: "quick" }))).toMatchObject({ status: 502, kind: "analyzer_error" })
  })
})
