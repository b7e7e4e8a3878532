/**
 * POST /v1/checks end to end (DECISIONS §23), against the real service: the diagnose body in, the
 * checks' findings out (`{trace, severity, checks, decisive_step}`) with no lens and no model call;
 * the same findings as the diagnose report's; a content-free trace (its events described, not
 * quoted); redaction before the quotes; the errors and the role (`read`) of DECISIONS §16.
 */
import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { ChecksResponse } from "../../src/Contract/DiagnoseContract.js"
import { DiagnoseResponse } from "../../src/Contract/DiagnoseReport.js"
import { contentFreeFailure, fixture } from "../support/Fleet.js"
import { useProviderDouble } from "../support/Harness.js"
import { exampleOutput } from "../support/ProviderDouble.js"
import type { RunningService } from "../support/Service.js"

const FIXTURES = join(import.meta.dirname, "..", "fixtures", "traces")

const harness = useProviderDouble()
const withProvider = (env: Record<string, string> = {}) =>
  harness.start({ ANTHROPIC_API_KEY: "sk-ant-checks-0123456789", ANTHROPIC_BASE_URL: harness.double.url, ...env })

const post = (service: RunningService, path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${service.url}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) })
const checksOf = async (response: Response) => {
  const json: unknown = await response.json()
  expect(response.status, JSON.stringify(json).slice(0, 400)).toBe(200)
  return Schema.decodeUnknownSync(ChecksResponse)(json)
}
const ErrorBody = Schema.Struct({ detail: Schema.Struct({ error: Schema.String, message: Schema.String }) })
const errorOf = async (response: Response, status: number) => {
  expect(response.status).toBe(status)
  return Schema.decodeUnknownSync(ErrorBody)(await response.json()).detail
}

/** A GitHub token in the tool's error text: redacted before anything quotes it (DECISIONS §20). */
const TOKEN = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"

/** A refund whose tool failed, and the agent said it was done. */
const refund = {
  model: "gpt-4o-mini",
  messages: [
    { role: "user", content: "Refund order 1182 please" },
    { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "issue_refund", arguments: "{\"order\":\"1182\"}" } }] },
    { role: "tool", tool_call_id: "call_1", content: `Error: 503 Service Unavailable: payments gateway down (token ${TOKEN})` },
    { role: "assistant", content: "Done! Your refund for order 1182 has been issued." }
  ]
}

describe("POST /v1/checks", () => {
  it("answers the checks' findings on the diagnose body, without a lens or a model call, as the diagnose report holds them", async () => {
    const service = await withProvider()
    const checked = await checksOf(await post(service, "/v1/checks", { trace: refund, mode: "quick", patterns: ["lewin"] }))
    expect(harness.double.calls).toHaveLength(0)
    expect(checked.trace).toMatchObject({ format: "openai", events: 4, task: "Refund order 1182 please" })
    expect(checked.severity).toBe("high")
    expect(checked.checks.map((check) => check.check)).toEqual(["tool_error_unrecovered", "success_claim_after_error"])
    const [unrecovered] = checked.checks
    expect(unrecovered?.explanation).toContain("issue_refund failed at events[2]")
    expect(unrecovered?.evidence.map((evidence) => [evidence.event, evidence.source])).toEqual([[2, "messages[2]"], [1, "messages[1].tool_calls[0]"], [3, "messages[3]"]])
    // The earliest event at the highest severity: the call.
    expect(checked.decisive_step).toMatchObject({ event: 1, source: "messages[1].tool_calls[0]", severity: "high", patterns: [], checks: ["tool_error_unrecovered"] })

    // Redacted before it is quoted, and counted.
    const quoted = JSON.stringify(checked.checks)
    expect(quoted).not.toContain(TOKEN)
    expect(unrecovered?.evidence[0]?.quote).toMatch(/payments gateway down \(token \[[a-z_]+:[0-9a-f]{6}\]\)/)
    expect(Object.values(checked.trace.redactions).reduce((sum, count) => sum + count, 0)).toBeGreaterThan(0)

    // One path: the diagnose of the same body carries the same checks, trace and (no lens finding) decisive step.
    harness.double.script = () => ({ kind: "object", value: { ...exampleOutput("lewin"), findings: [] } })
    const response = await post(service, "/v1/diagnose", { trace: refund, mode: "quick", patterns: ["lewin"] })
    expect(response.status).toBe(200)
    const { report } = Schema.decodeUnknownSync(DiagnoseResponse)(await response.json())
    expect(report.patterns.map((run) => run.status)).toEqual(["ok"])
    expect(report.findings).toEqual([])
    expect(report.checks).toEqual(checked.checks)
    expect(report.trace).toEqual(checked.trace)
    expect(report.severity).toBe(checked.severity)
    expect(report.decisive_step).toEqual(checked.decisive_step)
  })

  it("reads a trace without message content: the checks fire on its statuses, events without text described, not quoted", async () => {
    const service = await harness.start({})
    const checked = await checksOf(await post(service, "/v1/checks", contentFreeFailure()))
    expect(checked.trace.format).toBe("otel")
    const unrecovered = checked.checks.find((check) => check.check === "tool_error_unrecovered")
    expect(unrecovered?.severity).toBe("medium")
    expect(unrecovered?.explanation).toContain("get_weather failed")
    expect(unrecovered?.evidence.some((evidence) => evidence.source === "span:0e30000000000005")).toBe(true)
    const described = checked.checks.flatMap((check) => check.evidence).filter((evidence) => evidence.quote === null)
    expect(described.length).toBeGreaterThan(0)
    for (const evidence of described) expect(evidence.describes, evidence.ref).toMatch(/get_weather/)
    expect(checked.severity).toBe("medium")
    expect(checked.decisive_step?.checks.length).toBeGreaterThan(0)

    // The unchanged fixture: nothing failed, nothing to say about get_weather's error.
    const healthy = await checksOf(await post(service, "/v1/checks", fixture("otel/openai-chat-agent-no-content.otlp.json")))
    expect(healthy.checks.some((check) => check.check === "tool_error_unrecovered")).toBe(false)
  })

  it("takes format and select from the envelope or the query, and answers the documented errors", async () => {
    const service = await harness.start({})
    // A multi-record JSON Lines body: one trace chosen by the query, the envelope's `select` winning over it.
    const lines = readFileSync(join(FIXTURES, "trajectory/openhands-output.jsonl"), "utf8")
    const ndjson = (target: string) => fetch(`${service.url}${target}`, { method: "POST", headers: { "content-type": "application/x-ndjson" }, body: lines })
    const second = await checksOf(await ndjson("/v1/checks?select=1"))
    const first = await checksOf(await ndjson("/v1/checks?select=0"))
    expect(second.trace.format).toBe("trajectory")
    expect(second.trace.id).not.toBe(first.trace.id)
    const enveloped = await checksOf(await post(service, "/v1/checks?select=0", { trace: lines.trim().split("\n").map((line): unknown => JSON.parse(line)), select: 1 }))
    expect(enveloped.trace.id).toBe(second.trace.id)
    expect((await errorOf(await ndjson("/v1/checks"), 400)).error).toBe("validation_error")

    expect((await errorOf(await post(service, "/v1/checks", { hello: "world" }), 400)).error).toBe("unsupported_trace_format")
    expect((await errorOf(await post(service, "/v1/checks", { trace: refund, format: "nope" }), 400)).error).toBe("validation_error")
    const small = await harness.start({ SVC_API_MAX_TRACE_STEPS: "3" })
    const tooLong = await errorOf(await post(small, "/v1/checks", refund), 413)
    expect(tooLong).toMatchObject({ error: "request_too_large", message: expect.stringContaining("SVC_API_MAX_TRACE_STEPS") })
    const text = await fetch(`${service.url}/v1/checks`, { method: "POST", headers: { "content-type": "text/plain" }, body: "{}" })
    expect((await errorOf(text, 415)).error).toBe("unsupported_media_type")
    const get = await fetch(`${service.url}/v1/checks`)
    expect((await errorOf(get, 405)).error).toBe("method_not_allowed")
  })

  it("needs the read role: an ingest key is refused 403, a read key served, no key 401", async () => {
    const READ = "reader-key-0123456789abcdef"
    const INGEST = "agents-key-0123456789abcdef"
    const service = await harness.start({
      SVC_API_REQUIRE_AUTH: "true",
      SVC_API_KEYS: `reader=${READ},agents=${INGEST}`,
      SVC_API_KEY_ROLES: "agents=ingest@team,reader=read@team"
    })
    const as = (key: string) => post(service, "/v1/checks", refund, { authorization: `Bearer ${key}` })
    const refused = await errorOf(await as(INGEST), 403)
    expect(refused.error).toBe("forbidden")
    expect(refused.message).toContain("POST /v1/checks")
    expect(refused.message).toContain("needs read")
    expect((await checksOf(await as(READ))).checks.length).toBe(2)
    expect((await errorOf(await post(service, "/v1/checks", refund), 401)).error).toBe("unauthorized")
  })
})
