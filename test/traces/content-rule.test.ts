/**
 * What is message content (DECISIONS §23), as the trace builder decides `content: "absent"`, and
 * which instrumentation recorded a content-free span trace (so the report can name the one setting
 * that turns content on). Exception and status texts, labels made up for an error (`ERROR`), span
 * names carried by handoffs, and the instrumentations' placeholders are not content; a handoff
 * that says something is.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { appConfig } from "../../src/Config.js"
import { type EventInput, makeTraceBuilder } from "../../src/Traces/Builder.js"
import { instrumentationOf } from "../../src/Traces/Formats/Spans/Instrumentation.js"
import type { Span } from "../../src/Traces/Formats/Spans/Shapes.js"
import { keepAsRead, normalizeTrace } from "../../src/Traces/Normalize.js"
import { agentTrace, exceptionOnly } from "../runs/content-traces.js"

const LIMITS = Effect.runSync(appConfig).limits

const built = (events: ReadonlyArray<EventInput>) => {
  const builder = makeTraceBuilder("t")
  for (const event of events) builder.add(event)
  return builder.build()
}
const call = (source: string): EventInput => ({ actor: "billing", role: "agent", kind: "message", content: "", source })
const error = (content: string): EventInput => ({ actor: "refund", role: "tool", kind: "error", content, source: "span:2", status: "error" })
const handoff = (content: string): EventInput => ({ actor: "triage", role: "agent", kind: "handoff", content, to: "billing", source: "span:3" })

const span = (scope: string | undefined, attributes: Readonly<Record<string, unknown>>): Span => ({
  index: 0,
  traceId: "t",
  spanId: "s",
  parentId: undefined,
  name: "chat",
  kind: undefined,
  startNanos: undefined,
  endNanos: undefined,
  attributes,
  events: [],
  status: { code: "unset" },
  resource: {},
  scope
})

describe("message content", () => {
  it("exception and status texts, ERROR, span names on handoffs and placeholders are not content; a handoff that says something is", () => {
    expect(built([call("span:1"), error("HTTPError: Refund service unavailable (503)"), error("ERROR")]).content).toBe("absent")
    expect(built([call("span:1"), handoff("invoke_agent billing"), handoff("triage -> billing")]).content).toBe("absent")
    expect(built([call("span:1"), { ...call("span:4"), content: "__REDACTED__" }]).content).toBe("absent")
    expect(built([call("span:1"), handoff("Transferring you to billing: the customer wants a refund for order 4711")]).content).toBeUndefined()
    expect(built([call("span:1"), error("boom"), { ...call("span:4"), content: "The refund is done." }]).content).toBeUndefined()
  })

  it("an OTLP trace whose only texts are an exception event and a status message normalizes content-free, naming its instrumentation", () => {
    const read = normalizeTrace(exceptionOnly().body, "auto", LIMITS, keepAsRead)
    if (Either.isLeft(read)) throw new Error(read.left.message)
    const [trace] = read.right.traces
    expect(trace?.content).toBe("absent")
    expect(trace?.instrumentation).toBe("opentelemetry_genai")
    // the texts stay on their events, for the checks to quote
    expect(trace?.events.map((event) => event.kind)).toEqual(["error", "error"])
    expect(trace?.events[0]?.content).toContain("Connection to the model endpoint was reset by peer")
    // a trace with content names no instrumentation
    const withContent = normalizeTrace(agentTrace({ agent: "a", tools: [], content: { question: "Hello?", answer: "Hi." } }).body, "auto", LIMITS, keepAsRead)
    expect(Either.isRight(withContent) && withContent.right.traces[0]?.instrumentation).toBeUndefined()
  })

  it("the instrumentation, from the spans' scopes and attribute keys, the most specific first", () => {
    expect(instrumentationOf([span("opentelemetry.instrumentation.openai_v2", { "gen_ai.operation.name": "chat" })])).toBe("opentelemetry_genai")
    expect(instrumentationOf([span("opentelemetry.instrumentation.openai.v1", { "gen_ai.system": "openai", "llm.request.type": "chat" })])).toBe("openllmetry")
    expect(instrumentationOf([span("@traceloop/instrumentation-openai", {})])).toBe("openllmetry")
    expect(instrumentationOf([span("ai", { "ai.operationId": "ai.generateText", "gen_ai.system": "openai" })])).toBe("vercel_ai_sdk")
    // AI SDK 7's @ai-sdk/otel: GenAI keys under scope gen_ai, told by its step spans or its span-level durations
    const aiSdkChat = span("gen_ai", { "gen_ai.operation.name": "chat", "gen_ai.client.operation.duration": 0.08 })
    expect(instrumentationOf([span("gen_ai", { "gen_ai.operation.name": "invoke_agent" }), aiSdkChat])).toBe("vercel_ai_sdk")
    expect(instrumentationOf([span("gen_ai", { "gen_ai.operation.name": "agent_step" })])).toBe("vercel_ai_sdk")
    expect(instrumentationOf([span("gen_ai", { "gen_ai.operation.name": "execute_tool", "gen_ai.execute_tool.duration": 0.001 })])).toBe("vercel_ai_sdk")
    // the scope alone, or those keys under another scope, are the GenAI instrumentations'
    expect(instrumentationOf([span("gen_ai", { "gen_ai.operation.name": "chat" })])).toBe("opentelemetry_genai")
    expect(instrumentationOf([span("@opentelemetry/instrumentation-openai", { "gen_ai.operation.name": "chat", "gen_ai.client.operation.duration": 0.08 })])).toBe("opentelemetry_genai")
    expect(instrumentationOf([span("openinference.instrumentation.openai", {})])).toBe("openinference")
    expect(instrumentationOf([span(undefined, { "gen_ai.operation.name": "chat" }), span(undefined, { "openinference.span.kind": "LLM" })])).toBe("openinference")
    expect(instrumentationOf([span("my-service", { "http.method": "GET" })])).toBeUndefined()
  })
})
