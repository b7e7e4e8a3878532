/**
 * Traces without message content (DECISIONS §18), as the GenAI instrumentations write them by
 * default: recorded with the real `@opentelemetry/instrumentation-openai` in its default
 * configuration (scripts/record-trace-fixtures/otel.mjs no-content). One rule on every surface:
 * normalize says `content: "absent"`, analyze answers 400 naming the settings that turn content
 * on, and diagnose answers 200 with the triage and every lens skipped as no_content, with no model
 * call.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Predicate, Schema } from "effect"
import { appConfig } from "../../src/Config.js"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { DiagnoseResponse } from "../../src/Contract/DiagnoseReport.js"
import { NormalizedTrace } from "../../src/Traces/Model.js"
import { keepAsRead, normalizeTrace } from "../../src/Traces/Normalize.js"
import { useProviderDouble } from "../support/Harness.js"
import { exampleOutput } from "../support/ProviderDouble.js"
import type { RunningService } from "../support/Service.js"

const body: unknown = JSON.parse(readFileSync(join(import.meta.dirname, "..", "fixtures", "traces", "otel", "openai-chat-agent-no-content.otlp.json"), "utf8"))
const SETTINGS = ["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "TRACELOOP_TRACE_CONTENT", "recordInputs", "OPENINFERENCE_HIDE_INPUTS"]
const LIMITS = Effect.runSync(appConfig).limits

/** The spans of an OTLP/JSON body. */
const spansOf = (otlp: unknown): Array<Readonly<Record<string, unknown>>> => {
  const groups = Predicate.isRecord(otlp) && Array.isArray(otlp["resourceSpans"]) ? otlp["resourceSpans"] : []
  return groups.flatMap((group: unknown) => {
    const scopes = Predicate.isRecord(group) && Array.isArray(group["scopeSpans"]) ? group["scopeSpans"] : []
    return scopes.flatMap((scope: unknown) => (Predicate.isRecord(scope) && Array.isArray(scope["spans"]) ? scope["spans"].filter(Predicate.isRecord) : []))
  })
}

const harness = useProviderDouble()
const start = () => harness.start({ ANTHROPIC_API_KEY: "sk-ant-content-0123456789", ANTHROPIC_BASE_URL: harness.double.url })
const post = (service: RunningService, path: string, payload: unknown) =>
  fetch(`${service.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(payload) })

describe("a trace without message content", () => {
  it("is read as what ran, marked content: absent (spans and their empty log records; model-call spans alone)", () => {
    const read = normalizeTrace(body, "auto", LIMITS, keepAsRead)
    expect(Either.isRight(read) && read.right.traces[0]?.content).toBe("absent")
    // The model-call spans alone (no tool spans, no log records): one empty event per call.
    const chatOnly = {
      resourceSpans: [{
        resource: { attributes: [] },
        scopeSpans: spansOf(body).filter((span) => String(span["name"]).startsWith("chat ")).map((span) => ({ spans: [span] }))
      }]
    }
    const alone = normalizeTrace(chatOnly, "auto", LIMITS, keepAsRead)
    expect(Either.isRight(alone)).toBe(true)
    if (Either.isLeft(alone)) return
    const trace = alone.right.traces[0]
    expect(trace?.content).toBe("absent")
    expect(trace?.events.map((event) => [event.kind, event.actor])).toEqual([
      ["message", "gpt-4o-mini"],
      ["message", "gpt-4o-mini"],
      ["message", "gpt-4o-mini"]
    ])
    expect(trace?.events.every((event) => event.content === "")).toBe(true)
  })

  it("normalize says content: absent; analyze answers 400 naming the settings; diagnose triages and skips every lens, calling no model", async () => {
    harness.double.script = () => ({ kind: "object", value: exampleOutput("lewin") })
    const service = await start()
    const normalized = await post(service, "/v1/traces/normalize", body)
    expect(normalized.status).toBe(200)
    const trace = Schema.decodeUnknownSync(Schema.Struct({ trace: NormalizedTrace }))(await normalized.json()).trace
    expect(trace.content).toBe("absent")

    const analyzed = await post(service, "/v1/analyze/lewin", { trace: body, mode: "quick" })
    expect(analyzed.status).toBe(400)
    const refusal = Schema.decodeUnknownSync(Schema.Struct({ detail: Schema.Struct({ error: Schema.String, message: Schema.String }) }))(await analyzed.json())
    expect(refusal.detail.error).toBe("validation_error")
    for (const setting of SETTINGS) expect(refusal.detail.message).toContain(setting)

    const diagnosed = await post(service, "/v1/diagnose", { trace: body, mode: "quick" })
    expect(diagnosed.status).toBe(200)
    const report = Schema.decodeUnknownSync(DiagnoseResponse)(await diagnosed.json()).report
    expect(report.patterns).toEqual([])
    const readable = report.triage.filter((entry) => entry.skipped?.startsWith("no_content") === true)
    expect(readable.length).toBeGreaterThan(20)
    expect(report.triage.every((entry) => !entry.chosen)).toBe(true)
    expect(harness.double.calls).toHaveLength(0)
  })
})
