/**
 * Runs and the checks (DECISIONS §23), through the real service on a loopback port with the
 * provider double at the network boundary, which counts every call made to it:
 * - the content rule: a trace whose only texts are an exception event, a status message and span
 *   names is content-free; nothing of it reaches a provider, on diagnose, analyze (400) and runs
 *   (REST and MCP); a content-free run whose checks fired ends `done` with them, one with none
 *   `skipped: no_content`; the report names the setting that turns content on for the trace's
 *   instrumentation, also on what OpenLLMetry and the Vercel AI SDK 7 really export (recorded);
 * - without a provider, a run whose checks fired ends `done` with them (its lenses
 *   `llm_resolution_error`), one without `failed: llm_resolution_error`;
 * - a run's severity is its report's, checks counted, and `?severity=` finds it.
 */
import { describe, expect, it } from "@effect/vitest"
import { Predicate } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { DiagnoseResponse } from "../../src/Contract/DiagnoseReport.js"
import { connectHttp, firstText } from "../mcp/support.js"
import { useProviderDouble } from "../support/Harness.js"
import type { RunningService } from "../support/Service.js"
import { agentTrace, exceptionOnly, silentToolFailure } from "./content-traces.js"
import { call, decoded, freshHome, getRun, listRuns, refusal, sleep, submitOne, waitForRun } from "./support.js"

const harness = useProviderDouble()

/** A service that diagnoses runs (two workers), OTLP traces completing a second after their last span. */
const start = (env: Record<string, string> = {}) =>
  harness.start({ SVC_HOME: freshHome("content-rule"), SVC_WORKERS: "2", SVC_OTLP_QUIET_SECONDS: "1", SVC_OTLP_MAX_AGE_SECONDS: "60", ...env })
const withProvider = () => start({ ANTHROPIC_API_KEY: "sk-ant-content-rule-0123456789", ANTHROPIC_BASE_URL: harness.double.url })

const OTEL_SETTING = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true"

/** The run an OTLP trace became, once it ended. */
const runOfTrace = async (service: RunningService, traceId: string) => {
  const deadline = Date.now() + 20_000
  while (Date.now() < deadline) {
    const [run] = (await listRuns(service, `?trace_id=${traceId}`)).runs
    if (run !== undefined && ["done", "failed", "skipped"].includes(run.status)) return getRun(service, run.id)
    await sleep(50)
  }
  throw new Error(`no ended run of trace ${traceId}`)
}

const postTraces = async (service: RunningService, body: unknown) => {
  const response = await call(service, "POST", "/v1/traces", { body })
  expect(response.status, (await response.text()).slice(0, 300)).toBe(200)
}

/** The trace id of an OTLP/JSON body's first span. */
const traceIdOf = (otlp: unknown): string => {
  const groups = Predicate.isRecord(otlp) && Array.isArray(otlp["resourceSpans"]) ? otlp["resourceSpans"] : []
  for (const group of groups) {
    const scopes = Predicate.isRecord(group) && Array.isArray(group["scopeSpans"]) ? group["scopeSpans"] : []
    for (const scope of scopes) {
      const spans = Predicate.isRecord(scope) && Array.isArray(scope["spans"]) ? scope["spans"] : []
      for (const span of spans) if (Predicate.isRecord(span) && typeof span["traceId"] === "string") return span["traceId"]
    }
  }
  throw new Error("no span with a trace id")
}

const REFUND = { question: "Please refund order 4711, it arrived broken.", answer: "I refunded order 4711; the money is back in three days." }

describe("the content rule on runs", () => {
  it("a content-free OTLP trace whose tool failed silently: run done with the check's finding, no model call, the setting named", async () => {
    const service = await withProvider()
    const { body, traceId } = silentToolFailure()
    await postTraces(service, body)
    const run = await runOfTrace(service, traceId)
    expect(run).toMatchObject({ source: "otlp", status: "done", reason: null, severity: "medium" })
    const report = run.report
    if (report === undefined) throw new Error("the done run has no report")
    expect(report.checks.map((finding) => finding.check)).toEqual(["tool_error_unrecovered"])
    expect(report.checks[0]?.evidence[0]?.quote).toBe("Refund service unavailable")
    expect(report.severity).toBe("medium")
    expect(report.patterns).toEqual([])
    expect(report.usage.llm_calls).toBe(0)
    expect(report.content).toEqual({ absent: true, instrumentation: "opentelemetry_genai", setting: OTEL_SETTING })
    expect(report.summary).toContain(OTEL_SETTING)
    const skipped = report.triage.flatMap((entry) => (entry.skipped === null ? [] : [entry.skipped]))
    expect(skipped.length).toBeGreaterThan(0)
    expect(skipped.filter((reason) => reason.startsWith("no_content")).every((reason) => reason === `no_content: turn content on with ${OTEL_SETTING} (OpenTelemetry GenAI instrumentations)`)).toBe(true)
    // the run's severity is the report's, and the list filters by it
    expect((await listRuns(service, "?severity=medium")).runs.map((each) => each.id)).toEqual([run.id])
    expect((await listRuns(service, "?severity=high")).runs).toEqual([])
    expect(harness.double.calls).toEqual([])
  })

  it("a trace whose only texts are an exception and a status message: no model call on diagnose, analyze (400) or runs, over REST and MCP", async () => {
    const service = await withProvider()
    const { body } = exceptionOnly()

    const { report } = await decoded(await call(service, "POST", "/v1/diagnose", { body: { trace: body, mode: "quick" } }), 200, DiagnoseResponse)
    expect(report.content?.absent).toBe(true)
    expect(report.patterns).toEqual([])
    expect(report.triage.every((entry) => !entry.chosen)).toBe(true)
    // the checks read what the lenses may not: the exception's text, quoted
    expect(report.checks.map((finding) => finding.check)).toEqual(["provider_error"])
    expect(report.checks[0]?.evidence[0]?.quote).toContain("Connection to the model endpoint was reset by peer")

    expect(await refusal(await call(service, "POST", "/v1/analyze/lewin", { body: { trace: body, mode: "quick" } }), 400)).toBe("validation_error")

    // MCP: the same services, the same rule
    const { client } = await connectHttp(service.url)
    const analyzed = await client.callTool({ name: "svc_lewin", arguments: { trace: body, mode: "quick" } })
    expect(analyzed.isError).toBe(true)
    expect(firstText(analyzed)).toContain("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT")
    const viaMcp = await client.callTool({ name: "svc_diagnose", arguments: { trace: body, mode: "quick" } })
    expect(viaMcp.isError, firstText(viaMcp)).toBeFalsy()
    await client.close()

    const id = await submitOne(service, { trace: body, mode: "quick" })
    const run = await waitForRun(service, id)
    expect(run).toMatchObject({ status: "done", severity: "high" })
    expect(run.report?.checks.map((finding) => finding.check)).toEqual(["provider_error"])
    expect(run.report?.usage.llm_calls).toBe(0)
    expect(harness.double.calls).toEqual([])
  })

  it("what the clients really export with content off (recorded): OpenLLMetry's failed withTool span and AI SDK 7's failed tool end done with tool_error_unrecovered, each report naming its client's setting", async () => {
    const service = await withProvider()
    const clients = [
      { file: "openllmetry-refund-agent-no-content.otlp-traces.json", instrumentation: "openllmetry", setting: "TRACELOOP_TRACE_CONTENT=true" },
      { file: "ai-sdk-7-refund-agent-no-content.otlp-traces.json", instrumentation: "vercel_ai_sdk", setting: "telemetry: { recordInputs: true, recordOutputs: true } (experimental_telemetry before AI SDK 7)" }
    ]
    for (const client of clients) {
      const body: unknown = JSON.parse(readFileSync(join(import.meta.dirname, "..", "fixtures", "traces", "otel", client.file), "utf8"))
      const traceId = traceIdOf(body)
      await postTraces(service, body)
      const run = await runOfTrace(service, traceId)
      expect(run, client.file).toMatchObject({ source: "otlp", status: "done", reason: null, severity: "medium" })
      expect(run.report?.checks.map((finding) => finding.check), client.file).toEqual(["tool_error_unrecovered"])
      expect(run.report?.content, client.file).toEqual({ absent: true, instrumentation: client.instrumentation, setting: client.setting })
      expect(run.report?.usage.llm_calls).toBe(0)
    }
    expect(harness.double.calls).toEqual([])
  })

  it("a content-free run where no check fires ends skipped: no_content with its report", async () => {
    const service = await withProvider()
    const { body } = agentTrace({ agent: "refund_agent", tools: [] })
    const id = await submitOne(service, { trace: body, mode: "quick" })
    const run = await waitForRun(service, id)
    expect(run).toMatchObject({ status: "skipped", reason: "no_content", severity: "none" })
    expect(run.report?.checks).toEqual([])
    expect(run.report?.content?.setting).toBe(OTEL_SETTING)
    expect(harness.double.calls).toEqual([])
  })
})

describe("runs without a provider", () => {
  it("a run whose checks fired ends done with them, its lenses llm_resolution_error; one without checks fails llm_resolution_error", async () => {
    const service = await start()
    const flagged = agentTrace({ agent: "support_agent", content: REFUND, tools: [{ name: "issue_refund", args: "{\"order\":\"4711\"}", error: "Refund service unavailable" }] }).body
    const clean = agentTrace({ agent: "support_agent", content: REFUND, tools: [{ name: "issue_refund", args: "{\"order\":\"4711\"}", result: "{\"refunded\":true}" }] }).body

    const done = await waitForRun(service, await submitOne(service, { trace: flagged, mode: "quick" }))
    expect(done).toMatchObject({ status: "done", error: null, severity: "high" })
    const report = done.report
    if (report === undefined) throw new Error("the done run has no report")
    expect(report.checks.map((finding) => finding.check).sort()).toEqual(["success_claim_after_error", "tool_error_unrecovered"])
    expect(report.patterns.length).toBeGreaterThan(0)
    expect(report.patterns.every((lens) => lens.error?.kind === "llm_resolution_error")).toBe(true)
    expect(report.content).toBeUndefined()

    const failed = await waitForRun(service, await submitOne(service, { trace: clean, mode: "quick" }))
    expect(failed).toMatchObject({ status: "failed", severity: null, error: { error: "llm_resolution_error" } })
    expect(failed.report).toBeUndefined()

    expect((await listRuns(service, "?severity=high")).runs.map((run) => run.id)).toEqual([done.id])
    expect((await listRuns(service, "?status=failed")).runs.map((run) => run.id)).toEqual([failed.id])
  })
})
