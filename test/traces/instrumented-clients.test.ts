/**
 * What two agent clients really export, read by the `otel` importer: a refund agent whose tool
 * fails and whose answer then claims the refund was issued, recorded with message content on and
 * off (scripts/record-trace-fixtures/instrumented-clients.mjs; provenance in
 * test/fixtures/traces/otel/README.md):
 * - the Vercel AI SDK 7 with `@ai-sdk/otel` (GenAI attributes under scope `gen_ai`) is recognised
 *   as the AI SDK, so a content-free trace names its switch (`recordInputs` / `recordOutputs`),
 *   not the GenAI instrumentations' variable;
 * - OpenLLMetry's `withTool` span (`traceloop.span.kind` `tool`) marked ERROR is a call of the tool
 *   and its failed result, content on or off, so the checks find the failure on a content-free
 *   trace instead of reading an error of the agent.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { runChecks } from "../../src/Checks/Run.js"
import { appConfig } from "../../src/Config.js"
import { contentOf, settingSentence } from "../../src/Diagnose/Content.js"
import type { NormalizedTrace } from "../../src/Traces/Model.js"
import { keepAsRead, normalizeTrace } from "../../src/Traces/Normalize.js"

const LIMITS = Effect.runSync(appConfig).limits
const FAILURE = "payments API returned 503 for order A-1001: upstream unavailable"

/** The one trace of a recorded fixture, read with format detection. */
const recorded = (file: string): NormalizedTrace => {
  const body: unknown = JSON.parse(readFileSync(join(import.meta.dirname, "..", "fixtures", "traces", "otel", file), "utf8"))
  const read = normalizeTrace(body, "auto", LIMITS, keepAsRead)
  if (Either.isLeft(read)) throw new Error(read.left.message)
  expect(read.right.format).toBe("otel")
  expect(read.right.traces).toHaveLength(1)
  const [trace] = read.right.traces
  if (trace === undefined) throw new Error(`no trace in ${file}`)
  return trace
}

const shape = (trace: NormalizedTrace) => trace.events.map((event) => [event.actor, event.kind, event.tool ?? null])
const checksOf = (trace: NormalizedTrace) => runChecks(trace).map((finding) => [finding.check, finding.severity])

describe("Vercel AI SDK 7 (@ai-sdk/otel 1.0.173), recorded", () => {
  it("content on: the messages, the tool call and its failure, the answer; both checks at high", () => {
    const trace = recorded("ai-sdk-7-refund-agent.otlp-traces.json")
    expect(trace.content).toBeUndefined()
    expect(trace.instrumentation).toBeUndefined()
    expect(shape(trace)).toEqual([
      ["system", "message", null],
      ["user", "message", null],
      ["refund-agent", "tool_call", "issue_refund"],
      ["issue_refund", "error", "issue_refund"],
      ["refund-agent", "message", null]
    ])
    expect(trace.events[3]).toMatchObject({ status: "error", status_message: FAILURE, call_id: trace.events[2]?.call_id })
    expect(checksOf(trace)).toEqual([["tool_error_unrecovered", "high"], ["success_claim_after_error", "high"]])
  })

  it("content off: recognised as the AI SDK, so the report names recordInputs / recordOutputs, not the GenAI instrumentations' variable", () => {
    const trace = recorded("ai-sdk-7-refund-agent-no-content.otlp-traces.json")
    expect(trace.content).toBe("absent")
    expect(trace.instrumentation).toBe("vercel_ai_sdk")
    const content = contentOf(trace)
    expect(content).toMatchObject({ absent: true, instrumentation: "vercel_ai_sdk" })
    if (content === undefined) return
    expect(content.setting).toContain("telemetry: { recordInputs: true, recordOutputs: true }")
    expect(settingSentence(content)).toContain("(Vercel AI SDK)")
    expect(settingSentence(content)).not.toContain("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT")
    // what ran: two model calls and the failed tool (the AI SDK drops the error's text with recordOutputs off)
    expect(shape(trace)).toEqual([
      ["refund-agent", "message", null],
      ["refund-agent", "tool_call", "issue_refund"],
      ["issue_refund", "error", "issue_refund"],
      ["refund-agent", "message", null]
    ])
    expect(trace.events[2]).toMatchObject({ content: "ERROR", status: "error" })
    expect(checksOf(trace)).toEqual([["tool_error_unrecovered", "medium"]])
  })
})

describe("OpenLLMetry (@traceloop/node-server-sdk 0.27.0), recorded", () => {
  it("content off: the withTool span marked ERROR is a call of issue_refund and its failed result, and the check fires", () => {
    const trace = recorded("openllmetry-refund-agent-no-content.otlp-traces.json")
    expect(trace.content).toBe("absent")
    expect(trace.instrumentation).toBe("openllmetry")
    expect(contentOf(trace)?.setting).toBe("TRACELOOP_TRACE_CONTENT=true")
    expect(trace.agents).toEqual(["refund_agent"])
    expect(shape(trace)).toEqual([
      ["refund_agent", "message", null],
      ["refund_agent", "tool_call", "issue_refund"],
      ["issue_refund", "error", "issue_refund"],
      ["refund_agent", "message", null]
    ])
    expect(trace.events[1]).toMatchObject({ role: "agent", content: "" })
    expect(trace.events[2]).toMatchObject({ role: "tool", status: "error", status_code: "Error", status_message: FAILURE, content: `Error: ${FAILURE}` })
    // no error of the agent's own: the failure is the tool's
    expect(trace.events.filter((event) => event.kind === "error" && event.role === "agent")).toEqual([])
    const [finding, ...others] = runChecks(trace)
    expect(others).toEqual([])
    expect(finding).toMatchObject({ check: "tool_error_unrecovered", severity: "medium" })
    expect(finding?.explanation).toMatch(/^issue_refund failed at events\[2\]/)
    expect(finding?.evidence[0]).toMatchObject({ event: 2, quote: `Error: ${FAILURE}` })
  })

  it("content on: the tool span joins the model's tool call (its id), one failed result in place of the returned error, both checks at high", () => {
    const trace = recorded("openllmetry-refund-agent.otlp-traces.json")
    expect(trace.content).toBeUndefined()
    expect(shape(trace)).toEqual([
      ["system", "message", null],
      ["user", "message", null],
      ["refund_agent", "tool_call", "issue_refund"],
      ["issue_refund", "error", "issue_refund"],
      ["refund_agent", "message", null]
    ])
    const [, , toolCall, failure] = trace.events
    expect(toolCall?.call_id).toBeDefined()
    expect(failure).toMatchObject({ call_id: toolCall?.call_id, status: "error", status_message: FAILURE })
    expect(checksOf(trace)).toEqual([["tool_error_unrecovered", "high"], ["success_claim_after_error", "high"]])
  })
})
