/**
 * Bring your own trace over HTTP (issue 13, DECISIONS §12), against the real service and the
 * provider double: normalize for every format family, JSON Lines, several traces and `select`,
 * unsupported formats, raw traces analysed by patterns with evidence pointing back to the source,
 * derived fields named in the prompt, hints, dataset labels kept away from the model, the cache
 * key of a raw trace, large traces, the OpenAPI document and the typed client.
 */
import { FetchHttpClient } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { makeClient } from "../../src/Client.js"
import { FORMATS, NormalizedTrace } from "../../src/Traces/Model.js"
import { useProviderDouble } from "../support/Harness.js"
import { exampleOutput } from "../support/ProviderDouble.js"
import type { RunningService } from "../support/Service.js"
import { fixture, fixtureText, jsonLines } from "./support.js"

const harness = useProviderDouble()
const start = (env: Record<string, string> = {}) =>
  harness.start({ ANTHROPIC_API_KEY: "sk-ant-traces-0123456789", ANTHROPIC_BASE_URL: harness.double.url, ...env })

const post = (service: RunningService, path: string, body: unknown, contentType = "application/json") =>
  fetch(`${service.url}${path}`, {
    method: "POST",
    headers: { "content-type": contentType },
    body: typeof body === "string" ? body : JSON.stringify(body)
  })

const One = Schema.Struct({ format: Schema.String, events: Schema.Int, trace: NormalizedTrace })
const Many = Schema.Struct({ format: Schema.String, traces: Schema.Array(NormalizedTrace) })
const ErrorBody = Schema.Struct({ detail: Schema.Struct({ error: Schema.String, message: Schema.String }) })

const normalizeOne = async (service: RunningService, body: unknown) => {
  const response = await post(service, "/v1/traces/normalize", body)
  const json: unknown = await response.json()
  expect(response.status, JSON.stringify(json).slice(0, 300)).toBe(200)
  return Schema.decodeUnknownSync(One)(json)
}
const errorOf = async (response: Response) => ({ status: response.status, ...Schema.decodeUnknownSync(ErrorBody)(await response.json()).detail })

const Evidence = Schema.Struct({ ref: Schema.String, quote: Schema.String, source: Schema.optional(Schema.String) })
const Detection = Schema.Struct({
  cached: Schema.Boolean,
  detection: Schema.Struct({
    findings: Schema.Array(Schema.Struct({ title: Schema.String, evidence: Schema.Array(Evidence) })),
    evidence_check: Schema.Struct({ cited: Schema.Int, verified: Schema.Int, dropped: Schema.Int }),
    coverage: Schema.Struct({ elements_total: Schema.Int, condensed: Schema.Boolean }),
    intake: Schema.Struct({
      format: Schema.String,
      trace_id: Schema.NullOr(Schema.String),
      events: Schema.Int,
      success: Schema.NullOr(Schema.Boolean),
      derived: Schema.Array(Schema.String),
      hints: Schema.Array(Schema.String)
    })
  })
})
const analyze = async (service: RunningService, slug: string, body: unknown, contentType?: string) => {
  const response = await post(service, `/v1/analyze/${slug}`, body, contentType)
  const json: unknown = await response.json()
  expect(response.status, JSON.stringify(json).slice(0, 400)).toBe(200)
  return Schema.decodeUnknownSync(Detection)(json)
}

/** The example detection of a pattern with its findings' evidence quoting the given events. */
const quoting = (slug: string, field: string, trace: NormalizedTrace, picks: ReadonlyArray<number>) => {
  const output = exampleOutput(slug)
  const findings = Array.isArray(output["findings"]) ? output["findings"] : []
  return {
    ...output,
    findings: findings.slice(0, 1).map((finding: unknown) => ({
      ...(typeof finding === "object" && finding !== null ? finding : {}),
      evidence: picks.map((i) => ({ ref: `${field}[${i}]`, quote: (trace.events[i]?.content ?? "").trim().slice(0, 40) }))
    }))
  }
}
const substantial = (trace: NormalizedTrace) =>
  trace.events.flatMap((event, i) => (event.content.trim().length >= 20 ? [i] : []))

describe("POST /v1/traces/normalize", () => {
  it.each([
    ["otel/openai-chat-agent.otlp-traces.json", "otel"],
    ["openinference/openai-chat-agent.spans.json", "openinference"],
    ["openai/chat-tool-calls.json", "openai"],
    ["openai/responses-tool-calls.json", "openai"],
    ["openai/agents-sdk-chat-completions.json", "openai"],
    ["anthropic/request-tool-use.json", "anthropic"],
    ["langsmith/traceable-batch.json", "langsmith"],
    ["autogen/ag2-chat-result.json", "autogen"],
    ["autogen/agentchat-task-result.json", "autogen"],
    ["trajectory/mini-swe-agent.traj.json", "trajectory"],
    ["trajectory/openhands-events.json", "trajectory"]
  ])("reads %s as %s, every event pointing back to its source", async (path, format) => {
    const service = await start()
    const response = await post(service, "/v1/traces/normalize", fixture(path))
    const json: unknown = await response.json()
    expect(response.status).toBe(200)
    const traces = Schema.is(Many)(json) ? json.traces : [Schema.decodeUnknownSync(One)(json).trace]
    expect(Schema.is(Many)(json) ? json.format : Schema.decodeUnknownSync(One)(json).format).toBe(format)
    for (const trace of traces) {
      expect(trace.events.length).toBeGreaterThan(0)
      for (const event of trace.events) expect(event.source.length).toBeGreaterThan(0)
    }
  })

  it("reads JSON Lines bodies, returns every trace, and selects one by id or index", async () => {
    const service = await start()
    const jsonl = fixtureText("trajectory/openhands-output.jsonl")
    const many = Schema.decodeUnknownSync(Many)(await (await post(service, "/v1/traces/normalize", jsonl, "application/x-ndjson")).json())
    expect(many.format).toBe("trajectory")
    expect(many.traces.map((trace) => trace.id)).toEqual(["acme__reports-212", "acme__reports-219"])
    const records = jsonLines(jsonl)
    const byId = await normalizeOne(service, { trace: records, select: "acme__reports-219" })
    expect(byId.trace.id).toBe("acme__reports-219")
    const byIndex = await normalizeOne(service, { trace: records, select: 0, format: "trajectory" })
    expect(byIndex.trace.id).toBe("acme__reports-212")
    const wrong = await errorOf(await post(service, "/v1/traces/normalize", { trace: records, select: "nope" }))
    expect(wrong).toMatchObject({ status: 400, error: "validation_error" })
    expect(wrong.message).toContain("acme__reports-212")
    const badLine = await errorOf(await post(service, "/v1/traces/normalize", `${jsonl}\n{"truncated": `, "application/x-ndjson"))
    expect(badLine).toMatchObject({ status: 400, error: "validation_error" })
    expect(badLine.message).toMatch(/line \d+ of the JSON Lines body/)
  })

  it("answers unsupported_trace_format naming the formats and what was seen", async () => {
    const service = await start()
    for (const body of [{ hello: "world" }, [1, 2, 3], [{ x: 1 }], []]) {
      const error = await errorOf(await post(service, "/v1/traces/normalize", body))
      expect(error).toMatchObject({ status: 400, error: "unsupported_trace_format" })
      // Every format, in the registry's order (the order auto detection asks them in).
      expect(error.message).toContain(`(${FORMATS.join(", ")})`)
    }
    expect((await errorOf(await post(service, "/v1/traces/normalize", { hello: "world" }))).message).toContain("keys hello")
    const named = await errorOf(await post(service, "/v1/traces/normalize", { trace: fixture("anthropic/request-tool-use.json"), format: "otel" }))
    expect(named).toMatchObject({ status: 400, error: "unsupported_trace_format" })
    expect(named.message).toContain("not readable as otel")
    expect(await errorOf(await post(service, "/v1/traces/normalize", { trace: [], format: "yaml" }))).toMatchObject({ error: "validation_error" })
  })

  it("never answers 500 to malformed traces of each format", async () => {
    const service = await start()
    const malformed: ReadonlyArray<unknown> = [
      { resourceSpans: [{ scopeSpans: [{ spans: [{ name: "x" }, null, 7, { spanId: 5, attributes: "no" }] }] }] },
      { resourceSpans: [{ scopeSpans: "truncated" }] },
      [{ trace_id: "t", span_id: "a", parent_span_id: "b", attributes: { "gen_ai.operation.name": "chat" } }, { trace_id: "t", span_id: "b", parent_span_id: "a", attributes: { "gen_ai.operation.name": "chat" } }],
      { messages: [{ role: "user", content: [{ type: "hologram" }] }, { role: "assistant", content: 42 }] },
      { post: [{ id: "r", parent_run_id: "r", run_type: "llm", inputs: { messages: "no" } }], patch: "x" },
      { history: [{ name: "a", role: "user", content: { nested: true } }] },
      { trajectory: [{ action: null, observation: 5 }], info: "x" }
    ]
    for (const body of malformed) {
      const response = await post(service, "/v1/traces/normalize", body)
      expect(response.status, JSON.stringify(body)).toBeLessThan(500)
      expect([200, 400]).toContain(response.status)
    }
  })

  it("counts the trace limits on the normalized trace", async () => {
    const service = await start({ SVC_API_MAX_TRACE_STEPS: "3" })
    const error = await errorOf(await post(service, "/v1/traces/normalize", fixture("openai/chat-tool-calls.json")))
    expect(error).toMatchObject({ status: 413, error: "request_too_large" })
    expect(error.message).toContain("after normalization")
    expect(error.message).toContain("SVC_API_MAX_TRACE_STEPS")
  })
})

describe("POST /v1/analyze/{name} with a raw trace", () => {
  it("analyses an OTLP export: quotes checked against the normalized events, evidence carries its span", async () => {
    const service = await start()
    const otlp = fixture("otel/openai-chat-agent.otlp-traces.json")
    const normalized = await normalizeOne(service, { trace: otlp, select: 0 })
    const picks = substantial(normalized.trace).slice(0, 2)
    harness.double.script = () => ({ kind: "object", value: quoting("lewin", "steps", normalized.trace, picks) })
    const result = await analyze(service, "lewin", { trace: otlp, select: 0, mode: "quick" })
    expect(result.detection.evidence_check).toEqual({ cited: 2, verified: 2, dropped: 0 })
    const evidence = result.detection.findings.flatMap((finding) => finding.evidence)
    expect(evidence.map((item) => item.source)).toEqual(picks.map((i) => normalized.trace.events[i]?.source))
    expect(evidence.every((item) => item.source?.startsWith("span:") === true)).toBe(true)
    expect(result.detection.intake).toMatchObject({ format: "otel", trace_id: normalized.trace.id, events: normalized.events })
    // The model saw the normalized events, one numbered element each.
    expect(harness.double.calls[0]?.text).toContain(`steps[${picks[0]}]`)
    expect(harness.double.calls[0]?.text).toContain("normalized to")
  })

  it("takes a raw trace sent as it is (no envelope), and a several-trace body only with select", async () => {
    const service = await start()
    const twoRuns = fixture("openai/agents-sdk-two-runs.json")
    const error = await errorOf(await post(service, "/v1/analyze/aar", twoRuns))
    expect(error).toMatchObject({ status: 400, error: "validation_error" })
    expect(error.message).toContain("select")
    const result = await analyze(service, "aar", { trace: twoRuns, select: 0, mode: "quick" })
    expect(result.detection.intake.format).toBe("openai")
    const anthropic = await analyze(service, "trust_triangle", fixture("anthropic/request-tool-use.json"))
    expect(anthropic.detection.intake.format).toBe("anthropic")
  })

  it("names derived fields in the prompt as derived, and lets hints win over them", async () => {
    const service = await start()
    const trace = fixture("openai/chat-tool-calls.json")
    const derived = await analyze(service, "grant_strengths", { trace, mode: "quick" })
    expect(derived.detection.intake.derived).toContain("task_class")
    expect(harness.double.calls[0]?.text).toContain("derived by code from the trace")
    const hinted = await analyze(service, "grant_strengths", { trace, mode: "quick", hints: { task_class: "travel planning" } })
    expect(hinted.detection.intake.hints).toEqual(["task_class"])
    expect(hinted.detection.intake.derived).not.toContain("task_class")
    expect(harness.double.calls[1]?.text).toContain("travel planning")
  })

  it("answers 400 naming what a pattern needs beyond a trace, and accepts it in hints", async () => {
    const service = await start()
    const trace = fixture("openai/chat-tool-calls.json")
    const needs = await errorOf(await post(service, "/v1/analyze/process_gain_loss", { trace }))
    expect(needs).toMatchObject({ status: 400, error: "validation_error" })
    expect(needs.message).toContain("individual_baselines")
    const danva = await errorOf(await post(service, "/v1/analyze/danva_emotion", { trace }))
    expect(danva.message).toContain("does not read agent runs")
    const record = await (await fetch(`${service.url}/v1/patterns/process_gain_loss`)).json()
    expect(record).toMatchObject({ accepts_traces: true, needs: expect.stringContaining("individual_baselines") })
    expect(await (await fetch(`${service.url}/v1/patterns/lewin`)).json()).toMatchObject({ accepts_traces: true, needs: "" })
  })

  it("keeps the pattern's own shape native: a malformed native body is still a validation_error naming fields", async () => {
    const service = await start()
    const error = await errorOf(await post(service, "/v1/analyze/lewin", { task: "t", steps: [{ type: 3 }], outcome: "o" }))
    expect(error).toMatchObject({ status: 400, error: "validation_error" })
    expect(error.message).toContain("steps")
    const bare = await errorOf(await post(service, "/v1/analyze/lewin", { history_of: "nothing" }))
    expect(bare).toMatchObject({ status: 400, error: "unsupported_trace_format" })
  })

  it("never lets dataset labels reach the model or the signals", async () => {
    const service = await start()
    const records = fixtureText("trajectory/openhands-output.jsonl").split("\n").filter((line) => line.trim().length > 0)
      .map((line): Record<string, unknown> => JSON.parse(line))
    const labelled = records.map((record, i) => ({
      ...record,
      mistake_step: `LABEL-MISTAKE-${i}-7f3a`,
      ground_truth: `LABEL-TRUTH-${i}-7f3a`,
      is_correct: false,
      score: 0.123456789,
      test_result: { report: `LABEL-REPORT-${i}-7f3a`, resolved: false }
    }))
    const body = labelled.map((record) => JSON.stringify(record)).join("\n")
    const normalized = await (await post(service, "/v1/traces/normalize", body, "application/x-ndjson")).text()
    expect(normalized).not.toContain("LABEL-")
    const response = await post(service, "/v1/analyze/aar", { trace: labelled, select: 1, mode: "quick" })
    const text = await response.text()
    expect(response.status).toBe(200)
    expect(text).not.toContain("LABEL-")
    expect(text).not.toContain("0.123456789")
    for (const call of harness.double.calls) {
      expect(call.text).not.toContain("LABEL-")
      expect(call.text).not.toContain("0.123456789")
    }
  })

  it("keys the cache by format, selected trace and hints", async () => {
    const service = await start({ SVC_CACHE: "memory" })
    const trace = fixture("openai/chat-tool-calls.json")
    expect((await analyze(service, "grant_strengths", { trace, mode: "quick" })).cached).toBe(false)
    expect((await analyze(service, "grant_strengths", { trace, mode: "quick" })).cached).toBe(true)
    expect((await analyze(service, "grant_strengths", { trace, mode: "quick", hints: { task_class: "travel" } })).cached).toBe(false)
    expect((await analyze(service, "grant_strengths", { trace, mode: "quick", format: "openai" })).cached).toBe(true)
    expect(harness.double.calls).toHaveLength(2)
  })
})

describe("large traces", () => {
  it("analyses a 300,000-character multi-agent AutoGen history, condensed", async () => {
    const service = await start()
    const names = ["planner", "researcher", "critic", "writer"]
    const history = Array.from({ length: 400 }, (_, i) => ({
      name: names[i % names.length],
      role: "user",
      content: `Round ${i}: ${names[i % names.length]} reports on the ledger migration, item ${i}. ${"The reconciliation of vendor invoices continues with cross-checks. ".repeat(11)}`
    }))
    const body = { trace: { history, question: "Migrate the vendor ledger and reconcile every invoice." }, mode: "quick" }
    expect(JSON.stringify(history).length).toBeGreaterThan(300_000)
    const result = await analyze(service, "lencioni", body)
    expect(result.detection.intake).toMatchObject({ format: "autogen", events: 400 })
    expect(result.detection.coverage.condensed).toBe(true)
  })

  it("normalizes and analyses a 5,000-span OTLP export with the limits raised through their variables", async () => {
    const spans = Array.from({ length: 5000 }, (_, i) => ({
      traceId: "5b8efff798038103d269b633813fc60c",
      spanId: (i + 1).toString(16).padStart(16, "0"),
      ...(i === 0 ? {} : { parentSpanId: "0000000000000001" }),
      name: i === 0 ? "invoke_agent ledger" : "execute_tool lookup",
      startTimeUnixNano: String(1_700_000_000_000_000_000n + BigInt(i) * 1_000_000n),
      endTimeUnixNano: String(1_700_000_000_000_000_000n + BigInt(i) * 1_000_000n + 500_000n),
      attributes: i === 0
        ? [{ key: "gen_ai.operation.name", value: { stringValue: "invoke_agent" } }, { key: "gen_ai.agent.name", value: { stringValue: "ledger" } }]
        : [
          { key: "gen_ai.operation.name", value: { stringValue: "execute_tool" } },
          { key: "gen_ai.tool.name", value: { stringValue: "lookup" } },
          { key: "gen_ai.tool.call.arguments", value: { stringValue: `{"invoice": ${i}}` } },
          { key: "gen_ai.tool.call.result", value: { stringValue: `row ${i * 3} matched` } }
        ],
      status: { code: i % 500 === 7 ? 2 : 0 }
    }))
    const otlp = { resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: "test" }, spans }] }] }
    const defaults = await start()
    expect(await errorOf(await post(defaults, "/v1/traces/normalize", otlp))).toMatchObject({ status: 413, error: "request_too_large" })
    const raised = await start({ SVC_API_MAX_TRACE_STEPS: "20000", SVC_API_MAX_TOTAL_CHARS: "4000000" })
    const normalized = await normalizeOne(raised, otlp)
    expect(normalized.events).toBeGreaterThan(5000)
    const result = await analyze(raised, "lewin", { trace: otlp, mode: "quick" })
    expect(result.detection.intake.events).toBe(normalized.events)
    expect(result.detection.coverage.condensed).toBe(true)
  })
})

describe("the contract", () => {
  it("describes the envelope with format, select and hints, and the normalize endpoint", async () => {
    const service = await start()
    const document = JSON.stringify(await (await fetch(`${service.url}/openapi.json`)).json())
    for (const name of ["LewinAnalyzeEnvelope", "RawTrace", "TraceSelect", "TraceHints", "TraceFormatOption", "NormalizedTrace", "UnsupportedTraceFormatError", "DetectedEvidence", "TraceIntake"]) {
      expect(document).toContain(`"${name}"`)
    }
    expect(document).toContain("/v1/traces/normalize")
  })

  it("lets the typed client send a raw trace and normalize one", async () => {
    const service = await start()
    const trace = fixture("openai/chat-tool-calls.json")
    const result = await Effect.runPromise(
      Effect.gen(function*() {
        const client = yield* makeClient(service.url)
        const raw = Array.isArray(trace) ? trace : []
        const analysed = yield* client.analyze.aar({ payload: { trace: raw, mode: "quick", format: "openai" } })
        const normalized = yield* client.traces.normalize({ payload: raw, urlParams: {} })
        return { analysed, normalized }
      }).pipe(Effect.provide(FetchHttpClient.layer))
    )
    expect(result.analysed.detection.intake?.format).toBe("openai")
    expect("trace" in result.normalized ? result.normalized.events : 0).toBeGreaterThan(0)
  })
})
