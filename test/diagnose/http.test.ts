/**
 * POST /v1/diagnose end to end (issue 14, DECISIONS §13), against the real service and the
 * provider double: triage, concurrent lenses merged into one report (decisive step,
 * corroboration, ranked interventions), every output, partial failure, no provider, the deadline,
 * the bounds (patterns, max_patterns, budget_tokens), the cache and the metrics.
 */
import { describe, expect, it, vi } from "@effect/vitest"
import { Schema } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { definitions } from "../../patterns/index.js"
import { DiagnoseResponse } from "../../src/Contract/DiagnoseReport.js"
import { NormalizedTrace } from "../../src/Traces/Model.js"
import { useProviderDouble } from "../support/Harness.js"
import { exampleOutput, type RecordedCall } from "../support/ProviderDouble.js"
import { validateSarif } from "../support/Sarif.js"
import type { RunningService } from "../support/Service.js"

const FIXTURES = join(import.meta.dirname, "..", "fixtures", "traces")
const fixture = (path: string): unknown => JSON.parse(readFileSync(join(FIXTURES, path), "utf8"))

const harness = useProviderDouble()
const withProvider = (env: Record<string, string> = {}) =>
  harness.start({ ANTHROPIC_API_KEY: "sk-ant-diagnose-0123456789", ANTHROPIC_BASE_URL: harness.double.url, ...env })

const post = (service: RunningService, body: unknown, query = "", headers: Record<string, string> = {}) =>
  fetch(`${service.url}/v1/diagnose${query}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body)
  })
const reportOf = async (response: Response) => {
  const json: unknown = await response.json()
  expect(response.status, JSON.stringify(json).slice(0, 400)).toBe(200)
  return Schema.decodeUnknownSync(DiagnoseResponse)(json).report
}
const normalized = async (service: RunningService, trace: unknown) => {
  const response = await fetch(`${service.url}/v1/traces/normalize`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ trace, select: 0 })
  })
  return Schema.decodeUnknownSync(Schema.Struct({ trace: NormalizedTrace }))(await response.json()).trace
}

const FIELD: Readonly<Record<string, string>> = { step_trace: "steps", message_log: "messages", conversation: "turns", behaviour_report: "observed_behaviors" }
const bySchemaName = new Map(definitions.map((d) => [`${d.spec.name}Detection`, d]))

/** Each lens answers its example detection, its first finding quoting the given events verbatim. */
const quotingEvents = (trace: NormalizedTrace, picks: ReadonlyArray<number>, severity = "high") => (call: RecordedCall) => {
  const definition = bySchemaName.get(call.objectName)
  if (definition === undefined) return undefined
  const field = FIELD[definition.spec.family]
  const output = exampleOutput(definition.spec.slug)
  const findings = Array.isArray(output["findings"]) ? output["findings"] : []
  return {
    kind: "object" as const,
    value: {
      ...output,
      severity,
      findings: field === undefined ? [] : findings.slice(0, 1).map((finding: unknown) => ({
        ...(typeof finding === "object" && finding !== null ? finding : {}),
        severity,
        evidence: picks.map((i) => ({ ref: `${field}[${i}]`, quote: (trace.events[i]?.content ?? "").trim().slice(0, 30) }))
      }))
    }
  }
}
const substantial = (trace: NormalizedTrace) => trace.events.flatMap((event, i) => (event.content.trim().length >= 30 ? [i] : []))

describe("POST /v1/diagnose", () => {
  it("triages by code, runs the best lenses concurrently and merges one report with the decisive step and corroboration", async () => {
    const service = await withProvider()
    const otlp = fixture("otel/openai-chat-agent.otlp-traces.json")
    const trace = await normalized(service, otlp)
    const picks = substantial(trace).slice(1, 3)
    harness.double.script = quotingEvents(trace, picks)
    const report = await reportOf(await post(service, { trace: otlp, select: 0, mode: "quick" }))
    expect(report.trace).toMatchObject({ format: "otel", id: trace.id, events: trace.events.length })
    expect(report.triage).toHaveLength(34)
    expect(report.triage.every((entry) => entry.reasons.length > 0)).toBe(true)
    const chosen = report.triage.filter((entry) => entry.chosen)
    expect(chosen).toHaveLength(5)
    expect(report.patterns.map((run) => run.pattern).sort()).toEqual(chosen.map((entry) => entry.pattern).sort())
    // Triage is deterministic and costs no model call: one call per lens in quick mode.
    expect(harness.double.calls).toHaveLength(5)
    const withFindings = report.patterns.filter((run) => run.detection !== null && Array.isArray(run.detection["findings"]) && run.detection["findings"].length > 0)
    expect(withFindings.length).toBeGreaterThanOrEqual(2)
    expect(report.severity).toBe("high")
    const earliest = Math.min(...picks)
    expect(report.decisive_step).toMatchObject({ event: earliest, source: trace.events[earliest]?.source, actor: trace.events[earliest]?.actor, severity: "high" })
    // Several lenses cite the same (distinct) events: each finding is corroborated by the others.
    for (const finding of report.findings) {
      expect(finding.evidence.every((item) => item.event !== null && picks.includes(item.event))).toBe(true)
      expect(finding.corroborated_by.length).toBe(withFindings.length - 1)
    }
    expect(report.interventions.map((item) => item.rank)).toEqual(report.interventions.map((_, i) => i + 1))
    expect(report.coverage).toMatchObject({ patterns_run: 5, patterns_failed: 0, events: trace.events.length, events_cited: picks.length })
    expect(report.usage.llm_calls).toBe(5)
    expect(report.usage.estimated_tokens).toBeGreaterThan(0)
  })

  it("reads single-agent, multi-agent and tool-heavy traces in several formats", async () => {
    const service = await withProvider()
    for (const [path, format] of [
      ["anthropic/request-tool-use.json", "anthropic"],
      ["openai/agents-sdk-chat-completions.json", "openai"],
      ["autogen/ag2-chat-result.json", "autogen"],
      ["langsmith/traceable-batch.json", "langsmith"],
      ["trajectory/openhands-events.json", "trajectory"]
    ] as const) {
      const report = await reportOf(await post(service, { trace: fixture(path), mode: "quick", max_patterns: 2 }))
      expect(report.trace.format, path).toBe(format)
      expect(report.patterns.length, path).toBe(2)
    }
    // A multi-agent trace puts team lenses first; a single-agent one individual lenses.
    const team = await reportOf(await post(service, { trace: fixture("openai/agents-sdk-chat-completions.json"), mode: "quick", max_patterns: 3 }))
    const individual = await reportOf(await post(service, { trace: fixture("anthropic/request-tool-use.json"), mode: "quick", max_patterns: 3 }))
    const groupOf = (slug: string) => definitions.find((d) => d.spec.slug === slug)?.spec.group
    expect(team.patterns.some((run) => groupOf(run.pattern) !== "individual")).toBe(true)
    expect(individual.patterns.every((run) => groupOf(run.pattern) === "individual")).toBe(true)
  })

  it("runs exactly the patterns named, lists those that need hints as skipped, and keeps to budget_tokens", async () => {
    const service = await withProvider()
    const trace = fixture("openai/chat-tool-calls.json")
    const named = await reportOf(await post(service, { trace, mode: "quick", patterns: ["lewin", "process_gain_loss", "aar"] }))
    expect(named.patterns.map((run) => run.pattern)).toEqual(["lewin", "aar"])
    expect(named.triage.find((entry) => entry.pattern === "process_gain_loss")?.skipped).toContain("individual_baselines")
    const budget = await reportOf(await post(service, { trace, mode: "quick", max_patterns: 6, budget_tokens: 12_000 }))
    expect(budget.patterns.length).toBeLessThan(6)
    expect(budget.triage.some((entry) => entry.skipped?.includes("budget_tokens") === true)).toBe(true)
    expect(budget.usage.budget_tokens).toBe(12_000)
    expect(budget.usage.estimated_tokens).toBeLessThanOrEqual(12_000)
    const wrong = await post(service, { trace, patterns: ["nope"] })
    expect(wrong.status).toBe(400)
    expect(await wrong.json()).toEqual({ detail: { error: "validation_error", message: expect.stringContaining("nope") } })
  })

  it("leaves a failing lens in the report with its error kind", async () => {
    const service = await withProvider()
    const trace = fixture("openai/chat-tool-calls.json")
    // Every call of the Lewin lens fails upstream; the others answer.
    harness.double.script = (call) => (call.objectName === "LewinDetection" ? { kind: "status", status: 500 } : undefined)
    const report = await reportOf(await post(service, { trace, mode: "quick", patterns: ["lewin", "aar", "bias_stack"] }))
    const lewin = report.patterns.find((run) => run.pattern === "lewin")
    expect(lewin).toMatchObject({ status: "analyzer_error", detection: null, error: { kind: "analyzer_error" } })
    expect(report.patterns.filter((run) => run.status === "ok")).toHaveLength(2)
    expect(report.coverage.patterns_failed).toBe(1)
    expect(report.summary).toContain("lewin")
  })

  it("answers 200 with no provider configured: triage, signals and playbooks, every lens marked llm_resolution_error", async () => {
    const service = await harness.start({})
    const report = await reportOf(await post(service, fixture("openai/chat-tool-calls.json")))
    expect(report.patterns.length).toBe(5)
    for (const run of report.patterns) {
      expect(run.status).toBe("llm_resolution_error")
      expect(run.error?.message).toMatch(/ANTHROPIC_API_KEY|OPENAI_API_KEY|LOCAL_MODEL_HOST/)
      expect(run.playbooks.length).toBeGreaterThan(0)
      expect(Object.keys(run.signals.values).length).toBeGreaterThan(0)
    }
    expect(report.summary).toContain("No model provider is configured")
    expect(harness.double.calls).toHaveLength(0)
  })

  it("answers 504 at the deadline, with nothing left running upstream", async () => {
    const service = await withProvider({ SVC_API_REQUEST_TIMEOUT: "1s" })
    harness.double.script = () => ({ kind: "hang" })
    const response = await post(service, { trace: fixture("openai/chat-tool-calls.json"), mode: "quick", max_patterns: 3 })
    expect(response.status).toBe(504)
    expect(await response.json()).toEqual({ detail: { error: "timeout", message: expect.stringContaining("deadline") } })
    expect(harness.double.calls.length).toBeGreaterThan(0)
    // the upstream closes follow the answer: waited for, not slept for
    await vi.waitFor(() => expect(harness.double.calls.every((call) => call.closedEarly)).toBe(true), { timeout: 30_000, interval: 20 })
  })

  it("serves an identical diagnose from the cache and counts the request and each lens", async () => {
    const service = await withProvider({ SVC_CACHE: "memory" })
    // Metrics are per process and other tests run here too: compare before and after.
    const sample = async (name: string, labels: Readonly<Record<string, string>>) => {
      const text = await (await fetch(`${service.url}/metrics`)).text()
      const line = text.split("\n").find((l) => l.startsWith(`${name}{`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)))
      return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(" ") + 1))
    }
    const requestsBefore = await sample("svc_requests_total", { pattern: "diagnose", mode: "quick", status: "ok" })
    const body = { trace: fixture("openai/chat-tool-calls.json"), mode: "quick", max_patterns: 3 }
    const first = await reportOf(await post(service, body))
    expect(first.cached).toBe(false)
    const before = new Map<string, number>()
    for (const run of first.patterns) before.set(run.pattern, await sample("svc_analyses_total", { pattern: run.pattern, mode: "quick", outcome: "cache_hit" }))
    const again = await reportOf(await post(service, body))
    expect(again.cached).toBe(true)
    expect(again.patterns.every((run) => run.status === "cache_hit")).toBe(true)
    expect(harness.double.calls).toHaveLength(3)
    expect(await sample("svc_requests_total", { pattern: "diagnose", mode: "quick", status: "ok" })).toBe(requestsBefore + 2)
    for (const run of again.patterns) {
      expect(await sample("svc_analyses_total", { pattern: run.pattern, mode: "quick", outcome: "cache_hit" })).toBe((before.get(run.pattern) ?? 0) + 1)
    }
  })
})

describe("outputs", () => {
  it("renders markdown, sarif, html and otlp by ?output= and by Accept", async () => {
    const service = await withProvider()
    const otlp = fixture("otel/openai-chat-agent.otlp-traces.json")
    const trace = await normalized(service, otlp)
    harness.double.script = quotingEvents(trace, substantial(trace).slice(0, 2))
    const body = { trace: otlp, select: 0, mode: "quick", max_patterns: 2 }

    const markdown = await post(service, body, "", { accept: "text/markdown" })
    expect(markdown.headers.get("content-type")).toContain("text/markdown")
    expect(await markdown.text()).toContain("Decisive step")

    const sarif = await post(service, body, "?output=sarif&artifact=traces/run.json")
    expect(sarif.headers.get("content-type")).toContain("application/sarif+json")
    const sarifText = await sarif.text()
    const log = Schema.decodeUnknownSync(Schema.Struct({
      version: Schema.Literal("2.1.0"),
      runs: Schema.Array(Schema.Struct({ results: Schema.Array(Schema.Struct({ ruleId: Schema.String, locations: Schema.Array(Schema.Unknown) })) }))
    }))(JSON.parse(sarifText))
    expect(log.runs[0]?.results.length).toBeGreaterThan(0)
    expect(JSON.stringify(log)).toContain("traces/run.json")

    const html = await post(service, body, "?output=html")
    expect(html.headers.get("content-type")).toContain("text/html")
    // the page quotes the trace: it is answered sandboxed, with no script (DECISIONS §22)
    expect(html.headers.get("content-security-policy")).toMatch(/^sandbox; default-src 'none'/)
    const page = await html.text()
    expect(page).toContain("<html")
    expect(page).not.toContain("<script")

    const logs = await post(service, body, "?output=otlp")
    const exported = Schema.decodeUnknownSync(Schema.Struct({
      resourceLogs: Schema.Array(Schema.Struct({ scopeLogs: Schema.Array(Schema.Struct({ logRecords: Schema.Array(Schema.Struct({ traceId: Schema.optional(Schema.String), spanId: Schema.optional(Schema.String) })) })) }))
    }))(await logs.json())
    const records = exported.resourceLogs.flatMap((r) => r.scopeLogs.flatMap((s) => s.logRecords))
    expect(records.length).toBeGreaterThan(0)
    expect(records.every((record) => record.traceId === trace.id && typeof record.spanId === "string")).toBe(true)

    const bad = await post(service, body, "?output=pdf")
    expect(bad.status).toBe(400)

    // The live output passes Microsoft's validator with the SARIF and GitHub rules.
    expect((await validateSarif(sarifText, "live")).errors).toEqual([])
  })
})
