/**
 * One span's attribute map sent on its own (Spans/Records.ts `isAttributeMap`), as the
 * instrumentations' and converters' own tests write a span: the fixtures of Arize-ai/openinference's
 * openinference-genai package (see the otel and openinference fixture READMEs), read as one span
 * of their format, with its messages, tool call and result.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { detectFormat, keepAsRead, normalizeTrace } from "../../src/Traces/Normalize.js"
import { unflatten } from "../../src/Traces/Formats/Spans.js"
import { fixtureIn } from "./support.js"
import { raisedLimits } from "../../scripts/trace-files.js"

const CONVERSATION = [
  ["message", "user", "Weather in Paris?"],
  ["message", "assistant", "Absolutely! Let me check the weather for you."],
  ["tool_call", "assistant", "{\"location\":\"Paris\"}"],
  ["tool_result", "get_weather", "rainy, 57°F"]
] as const
const ANSWER = ["message", "assistant", "The weather in Paris is currently rainy with a temperature of 57°F."] as const

const cases = [
  ["otel", "otel_genai_client_span_tool_calls.attributes.json", [...CONVERSATION, ANSWER]],
  ["otel", "otel_genai_deprecated_client_span_tool_calls.attributes.json", CONVERSATION],
  ["openinference", "openinference_client_span_tool_calls.attributes.json", [...CONVERSATION, ANSWER]],
  ["openinference", "openinference_client_span_input_output_only.attributes.json", CONVERSATION]
] as const

describe("a span's attribute map on its own", () => {
  it.each(cases)("%s: %s is read as one span of its format", (format, name, events) => {
    const body = fixtureIn(format)(name)
    expect(detectFormat(body)?.format).toBe(format)
    const read = normalizeTrace(body, "auto", raisedLimits, keepAsRead)
    expect(Either.isRight(read)).toBe(true)
    if (Either.isLeft(read)) return
    const trace = read.right.traces[0]
    expect(trace?.events.map((event) => [event.kind, event.actor, event.content])).toEqual(events)
    expect(trace?.events.every((event) => event.source.startsWith("span:#0"))).toBe(true)
    expect(trace?.task).toBe("Weather in Paris?")
  })

  it("an object of two loose keys that happen to look like attributes is still not a span: it needs no name, spans or attributes field", () => {
    expect(detectFormat({ name: "x", "gen_ai.system": "openai", "gen_ai.request.model": "m" })).toBeUndefined()
  })
})

describe("unflatten (flattened attributes as nested values)", () => {
  it("orders list items by index, keeps `__proto__` as an own key, and lets a parent win over a value", () => {
    const list = unflatten(
      {
        "llm.input_messages.10.message.role": "tool",
        "llm.input_messages.2.message.role": "user",
        "llm.input_messages.2.message.__proto__.polluted": "yes",
        "llm.input_messages.0.message": "a value and a parent",
        "llm.input_messages.0.message.role": "system",
        "other.0.role": "ignored"
      },
      "llm.input_messages."
    )
    expect(list.map((item) => JSON.stringify(item))).toEqual([
      "{\"message\":{\"role\":\"system\"}}",
      "{\"message\":{\"role\":\"user\",\"__proto__\":{\"polluted\":\"yes\"}}}",
      "{\"message\":{\"role\":\"tool\"}}"
    ])
    expect(Object.prototype).not.toHaveProperty("polluted")
  })
})
