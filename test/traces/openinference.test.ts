/**
 * The `openinference` importer (DECISIONS §12) on what the real producers write (fixtures recorded
 * by scripts/record-trace-fixtures/otel.mjs through @arizeai/openinference-instrumentation-openai
 * and @arizeai/openinference-core, and a hand-written multi-agent one; see
 * test/fixtures/traces/openinference/README.md): ReadableSpan lists and OTLP/JSON, span kinds
 * (declared or inferred), ADOT-style span-event bodies, history de-duplication across LLM spans,
 * malformed, cyclic and very large inputs; detection. Ids and timestamps are read from the
 * fixtures, so re-recording them keeps the tests valid.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import fc from "fast-check"
import { openInferenceImporter } from "../../src/Traces/Formats/OpenInference.js"
import { otelImporter } from "../../src/Traces/Formats/Otel.js"
import { ANSWER, brief, fixtureIn, fixtureNames, list, LONDON, neverThrowsOnJson, NOT_FOUND, PARIS, QUESTION, readersOf, sub, SYSTEM, text, type Rec } from "./support.js"

const fixture = fixtureIn("openinference")
const otelFixture = fixtureIn("otel")
const hrtimeIso = (value: unknown): string => {
  if (!Array.isArray(value)) return expect.fail(`expected hrtime, got ${JSON.stringify(value)}`)
  const [seconds, nanos] = value
  if (typeof seconds !== "number" || typeof nanos !== "number") return expect.fail("bad hrtime")
  return new Date(seconds * 1000 + Math.floor(nanos / 1e6)).toISOString()
}
const nanosIso = (value: unknown): string =>
  typeof value === "number" ? new Date(Math.floor(value / 1e6)).toISOString() : expect.fail(`expected a number, got ${JSON.stringify(value)}`)

const { readAll, readOne } = readersOf(openInferenceImporter)

describe("openinference importer: @arizeai/openinference-instrumentation-openai agent run (recorded)", () => {
  const spansBody = fixture("openai-chat-agent.spans.json")
  const otlpBody = fixture("openai-chat-agent.otlp-traces.json")
  const spans = list(spansBody)
  const named = (name: string) => spans.filter((span) => span["name"] === name)
  const agent = named("weather_agent")[0] ?? expect.fail("no agent span")
  const failedAgent = named("weather_agent")[1] ?? expect.fail("no second agent span")
  const [llm1, llm2, llm3] = named("OpenAI Chat Completions")
  const [tool1, tool2] = named("get_weather")
  const id = (span: Rec | undefined) => text(sub(span, "spanContext")?.["spanId"])
  const traceId = (span: Rec | undefined) => text(sub(span, "spanContext")?.["traceId"])

  it("reads the AGENT, LLM and TOOL spans into one event per message, tool call and result", () => {
    const all = readAll(spansBody)
    expect(all.map((trace) => trace.id)).toEqual([traceId(agent), traceId(failedAgent)])
    const trace = all[0] ?? expect.fail("no trace")
    expect(trace.events.map(brief)).toEqual([
      ["user", "user", "message", "", QUESTION, `span:${id(agent)}/input[0]`],
      ["system", "system", "message", "", SYSTEM, `span:${id(llm1)}/input[0]`],
      ["weather_agent", "agent", "tool_call", "get_weather", "{\"city\":\"Paris\"}", `span:${id(llm1)}/output[0]`],
      ["get_weather", "tool", "tool_result", "get_weather", PARIS, `span:${id(tool1)}`],
      ["weather_agent", "agent", "tool_call", "get_weather", "{\"city\":\"London\"}", `span:${id(llm2)}/output[0]`],
      ["get_weather", "tool", "tool_result", "get_weather", LONDON, `span:${id(tool2)}`],
      ["weather_agent", "agent", "message", "", ANSWER, `span:${id(llm3)}/output[0]`]
    ])
    expect(trace.events.map((event) => event.timestamp)).toEqual([
      hrtimeIso(agent["startTime"]),
      hrtimeIso(llm1?.["startTime"]),
      hrtimeIso(llm1?.["endTime"]),
      hrtimeIso(tool1?.["endTime"]),
      hrtimeIso(llm2?.["endTime"]),
      hrtimeIso(tool2?.["endTime"]),
      hrtimeIso(llm3?.["endTime"])
    ])
    expect(trace).toMatchObject({ task: QUESTION, outcome: ANSWER, success: true, agents: ["weather_agent"], skipped: 0 })
  })

  it("reads the failed run's exception event as an error, and the trace as failed", () => {
    const trace = readAll(spansBody)[1] ?? expect.fail("no second trace")
    const exception = list(failedAgent["events"])[0]
    expect(exception?.["name"]).toBe("exception")
    expect(trace.events.map(brief)).toEqual([
      ["user", "user", "message", "", "Say hello.", `span:${id(failedAgent)}/input[0]`],
      ["weather_agent", "agent", "error", "", `model_not_found: ${NOT_FOUND}`, `span:${id(failedAgent)}`]
    ])
    expect(trace.events[1]?.timestamp).toBe(hrtimeIso(exception?.["time"]))
    expect(trace).toMatchObject({ task: "Say hello.", outcome: `model_not_found: ${NOT_FOUND}`, success: false })
  })

  it("reads the OTLP/JSON export of the same spans into the same traces", () => {
    expect(readAll(otlpBody)).toEqual(readAll(spansBody))
  })

  it("de-duplicates the history each LLM span repeats: 7 events from 15 flattened messages over 3 calls", () => {
    const flattened = [llm1, llm2, llm3].flatMap((span) =>
      Object.keys(sub(span, "attributes") ?? {}).filter((key) => /^llm\.(input|output)_messages\.\d+\.message\.role$/.test(key))
    )
    expect(flattened).toHaveLength(15)
    expect(readAll(spansBody)[0]?.events).toHaveLength(7)
  })
})

describe("openinference importer: nested agents, a retriever, a failing tool (hand-written)", () => {
  const body = fixture("multi-agent-retriever.spans.json")
  const spans = list(body)
  const span = (id: string) => spans.find((candidate) => candidate["span_id"] === id) ?? expect.fail(`no span ${id}`)
  const USER = "Find our refund policy for duplicate charges and summarize it in one sentence."
  const SYS = "You coordinate support answers. Delegate policy questions to ask_researcher."
  const ARGS = "{\"question\":\"refund policy for duplicate charges\"}"
  const DOC1 = "Refunds: a duplicate charge is refunded in full within 5 business days."
  const DOC2 = "Refunds always go back to the original payment method."
  const ANSWER = "Duplicate charges are refunded in full within 5 business days, to the original payment method."
  const FINAL = "Duplicate charges are refunded in full within 5 business days to the original payment method."

  it("reads every kind, the handoff to the nested agent, and the tool's exception", () => {
    const trace = readOne(body)
    expect(trace.events.map(brief)).toEqual([
      ["user", "user", "message", "", USER, "span:oi-coordinator/input[0]"],
      ["system", "system", "message", "", SYS, "span:oi-llm-1/input[0]"],
      ["coordinator", "agent", "tool_call", "ask_researcher", ARGS, "span:oi-llm-1/output[0]"],
      ["coordinator", "agent", "handoff", "", "researcher", "span:oi-researcher"],
      ["researcher", "agent", "tool_call", "retrieve_policy", "refund policy for duplicate charges", "span:oi-retriever"],
      ["retrieve_policy", "tool", "tool_result", "retrieve_policy", `${DOC1}\n\n${DOC2}`, "span:oi-retriever"],
      ["system", "system", "message", "", `Answer from the documents only.\n\n${DOC1}\n${DOC2}`, "span:oi-llm-2/input[0]"],
      ["user", "user", "message", "", "refund policy for duplicate charges", "span:oi-llm-2/input[1]"],
      ["researcher", "agent", "message", "", ANSWER, "span:oi-llm-2/output[0]"],
      ["ask_researcher", "tool", "tool_result", "ask_researcher", ANSWER, "span:oi-ask-researcher"],
      ["coordinator", "agent", "tool_call", "send_email", "{\"to\":\"customer@example.com\",\"subject\":\"Refund policy\"}", "span:oi-send-email"],
      ["send_email", "tool", "error", "send_email", "SMTPError: relay refused", "span:oi-send-email"],
      ["coordinator", "agent", "message", "", FINAL, "span:oi-llm-3/output[0]"]
    ])
    expect(trace.events[3]?.to).toBe("researcher")
    expect(trace.events[0]?.timestamp).toBe(nanosIso(span("oi-coordinator")["start_time"]))
    expect(trace.events[5]?.timestamp).toBe(nanosIso(span("oi-retriever")["end_time"]))
    expect(trace.events[11]?.timestamp).toBe(nanosIso(span("oi-send-email")["end_time"]))
    // the root ended OK but a tool failed: whether the run succeeded is not said
    expect(trace).toMatchObject({ id: "7d0c3b2a19f8e7d6c5b4a39281706f5e", task: USER, outcome: FINAL, success: null, agents: ["coordinator", "researcher"] })
    // the image content part of the first user message
    expect(trace.skipped).toBe(1)
  })
})

describe("openinference importer: ADOT-style spans (kinds missing, messages in span-event bodies)", () => {
  const scope = { name: "openinference.instrumentation.langchain", version: "" }
  const adot = (spanId: string, second: number, input: unknown, output: unknown) => ({
    trace_id: "adot-trace",
    span_id: spanId,
    parent_span_id: null,
    name: "openinference.instrumentation.langchain",
    start_time: 1700000000000000000 + second * 1e9,
    end_time: 1700000000000000000 + (second + 1) * 1e9,
    attributes: { "event.name": "openinference.instrumentation.langchain" },
    scope,
    status: { code: "OK" },
    span_events: [{ event_name: "openinference.instrumentation.langchain", span_id: spanId, timestamp: 1700000000000000000 + second * 1e9, body: { input: { messages: input }, output: { messages: output } } }]
  })
  const body = [
    adot("inf-1", 0, [{ content: "What is the weather in Alaska?", role: "user" }], [
      {
        content: JSON.stringify({ generations: [[{ text: "Let me check.", message: { tool_calls: [{ name: "get_weather", args: { city: "Alaska" }, id: "tc_01" }] } }]], llm_output: null }),
        role: "assistant"
      }
    ]),
    adot("tool-1", 1, [{ content: "{'city': 'Alaska'}", role: "user" }], [
      { content: JSON.stringify({ name: "get_weather", type: "tool", content: "-5C, snowy", tool_call_id: "tc_01", status: "success" }), role: "assistant" }
    ]),
    adot("inf-2", 2, [{ content: "What is the weather in Alaska?", role: "user" }], [
      { content: JSON.stringify({ generations: [[{ text: "It is -5C and snowy in Alaska." }]], llm_output: null }), role: "assistant" }
    ]),
    adot("end", 3, [{ content: JSON.stringify({ messages: [{ content: "What is the weather in Alaska?", type: "human" }] }), role: "user" }], [
      { content: "__end__", role: "assistant" }
    ])
  ]

  it("unwraps the LangChain-serialized contents and pairs the tool span with the model's tool call", () => {
    expect(openInferenceImporter.detect(body)).toBe(true)
    const trace = readOne(body)
    expect(trace.events.map(brief)).toEqual([
      ["user", "user", "message", "", "What is the weather in Alaska?", "span:inf-1/input[0]"],
      ["assistant", "agent", "message", "", "Let me check.", "span:inf-1/output[0]"],
      ["assistant", "agent", "tool_call", "get_weather", "{\"city\":\"Alaska\"}", "span:inf-1/output[0]"],
      ["get_weather", "tool", "tool_result", "get_weather", "-5C, snowy", "span:tool-1"],
      ["assistant", "agent", "message", "", "It is -5C and snowy in Alaska.", "span:inf-2/output[0]"]
    ])
    expect(trace).toMatchObject({ id: "adot-trace", outcome: "It is -5C and snowy in Alaska.", success: true })
  })
})

// ---------------------------------------------------------------------------------------------

/** A span list of `calls` LLM spans with flattened messages, each carrying the whole conversation so far. */
const longConversation = (calls: number) => {
  const history: Array<readonly [string, string]> = [
    ["system", "Be brief."],
    ["user", "Start."]
  ]
  const spans: Array<Rec> = [
    { trace_id: "long", span_id: "agent", name: "chatter", start_time: 1767225600000, end_time: 1767225600000 + (calls + 1) * 1000, attributes: { "openinference.span.kind": "AGENT", "agent.name": "chatter" }, status: { code: "OK" } }
  ]
  for (let k = 0; k < calls; k++) {
    const attributes: Record<string, unknown> = { "openinference.span.kind": "LLM", "llm.model_name": "gpt-4o-mini" }
    history.forEach(([role, content], i) => {
      attributes[`llm.input_messages.${i}.message.role`] = role
      attributes[`llm.input_messages.${i}.message.content`] = content
    })
    attributes["llm.output_messages.0.message.role"] = "assistant"
    attributes["llm.output_messages.0.message.contents.0.message_content.type"] = "text"
    attributes["llm.output_messages.0.message.contents.0.message_content.text"] = `Answer ${k}.`
    spans.push({ trace_id: "long", span_id: `llm-${k}`, parent_span_id: "agent", name: "ChatOpenAI", start_time: 1767225600000 + (k + 1) * 1000, end_time: 1767225600000 + (k + 1) * 1000 + 500, attributes })
    history.push(["assistant", `Answer ${k}.`], ["user", k % 2 === 0 ? "Go on." : `Question ${k}?`])
  }
  return spans
}

describe("openinference importer: history de-duplication", () => {
  it("50 LLM spans each carrying the whole history: ~100 events, not thousands, each message once and in order", () => {
    const spans = longConversation(50)
    const flattened = spans.reduce((sum, span) => sum + Object.keys(sub(span, "attributes") ?? {}).filter((key) => key.endsWith(".message.role")).length, 0)
    expect(flattened).toBeGreaterThan(2500)
    const trace = readOne(spans)
    expect(trace.events).toHaveLength(101)
    expect(trace.events.filter((event) => event.content === "Go on.")).toHaveLength(25)
    expect(trace.events.slice(0, 5).map((event) => [event.actor, event.content])).toEqual([
      ["system", "Be brief."],
      ["user", "Start."],
      ["chatter", "Answer 0."],
      ["user", "Go on."],
      ["chatter", "Answer 1."]
    ])
    expect(trace.events.at(-1)?.source).toBe("span:llm-49/output[0]")
    expect(trace).toMatchObject({ task: "Start.", outcome: "Answer 49.", success: true, agents: ["chatter"] })
  })
})

// ---------------------------------------------------------------------------------------------

const llmSpan = (spanId: string, content: string, extra: Rec = {}) => ({
  trace_id: "t1",
  span_id: spanId,
  name: "llm",
  attributes: { "openinference.span.kind": "LLM", "llm.input_messages.0.message.role": "user", "llm.input_messages.0.message.content": content },
  ...extra
})

describe("openinference importer: malformed input never throws nor hangs", () => {
  it("skips non-object records and reads attributes of the wrong types as far as they go", () => {
    const body = [
      null,
      7,
      "span",
      { trace_id: "t1", span_id: "a", attributes: "oops", events: "x", status: 3 },
      { trace_id: "t1", span_id: "b", attributes: { "openinference.span.kind": "LLM", "llm.input_messages": 5, "input.value": 12 } },
      { trace_id: "t1", span_id: "c", attributes: { "openinference.span.kind": "LLM", "llm.input_messages.0.message.contents.0.message_content.type": "audio", "llm.input_messages.0.message.role": "user", "llm.output_messages.x.message.content": "odd" } },
      { trace_id: "t1", span_id: "d", attributes: { "openinference.span.kind": "TOOL", "tool.name": 42, "input.value": { a: 1 }, "output.value": [1, 2] } },
      { trace_id: "t1", span_id: "e", attributes: { "openinference.span.kind": "EMBEDDING", "embedding.embeddings.0.embedding.text": "ignored" } },
      llmSpan("f", "still read")
    ]
    const trace = readOne(body)
    expect(trace.events.map((event) => [event.kind, event.tool ?? "", event.content])).toEqual([
      ["message", "", "12"],
      // span c: an LLM call of which no message could be read, kept as a call without content
      ["message", "", ""],
      ["tool_call", "tool", "{\"a\":1}"],
      ["tool_result", "tool", "[1,2]"],
      ["message", "", "still read"]
    ])
    // null, 7, "span"; the number 5 as a message list; the audio content part
    expect(trace.skipped).toBe(5)
  })

  it("answers a Left, not a throw, when nothing is usable", () => {
    for (const body of [[{ span_id: "a", attributes: { "openinference.span.kind": "CHAIN" } }], { resourceSpans: [] }, [], {}]) {
      expect(Either.isLeft(openInferenceImporter.read(body))).toBe(true)
    }
  })

  it("breaks parent cycles (counted) and treats dangling parents as roots", () => {
    const body = [
      llmSpan("a", "from a", { parent_span_id: "b", start_time: 3 }),
      llmSpan("b", "from b", { parent_span_id: "a", start_time: 2 }),
      llmSpan("c", "from c", { parent_span_id: "c", start_time: 4 }),
      llmSpan("d", "from d", { parent_span_id: "nowhere", start_time: 1 })
    ]
    const trace = readOne(body)
    expect(trace.events.map((event) => event.content)).toEqual(["from d", "from b", "from a", "from c"])
    expect(trace.skipped).toBe(2)
  })

  // 100,000 deep: recursion overflows Node's default stack at about 11,400 frames of the plainest
  // function (about 5,700 for a walk over a parent chain), measured on Node 20; a million spans
  // took 36 s here to prove the same.
  it("reads 100,000 tiny spans (a single parent chain) without recursion", () => {
    const spans = Array.from({ length: 100_000 }, (_, i) =>
      i % 10_000 === 0
        ? llmSpan(`s${i}`, `step ${i}`, { parent_span_id: i === 0 ? null : `s${i - 1}`, start_time: 1767225600000 + i })
        : { trace_id: "t1", span_id: `s${i}`, parent_span_id: `s${i - 1}`, name: "chain", start_time: 1767225600000 + i, attributes: { "openinference.span.kind": "CHAIN" } }
    )
    const trace = readOne(spans)
    expect(trace.events).toHaveLength(10)
    expect(trace.events[9]?.content).toBe("step 90000")
  }, 120_000)

  it("never throws on arbitrary JSON, span-shaped or not", () => {
    neverThrowsOnJson(openInferenceImporter)
    const spanish = fc.record({
      trace_id: fc.constant("t"),
      span_id: fc.oneof(fc.string(), fc.constantFrom("a", "b")),
      parent_span_id: fc.oneof(fc.constantFrom("a", "b"), fc.constant(null)),
      attributes: fc.dictionary(
        fc.constantFrom("openinference.span.kind", "llm.input_messages.0.message.role", "llm.input_messages.0.message.content", "llm.output_messages.0.message.tool_calls.0.tool_call.function.name", "input.value", "output.value", "tool.name"),
        fc.oneof(fc.jsonValue(), fc.constantFrom("LLM", "TOOL", "AGENT", "user"))
      ),
      span_events: fc.jsonValue(),
      status: fc.jsonValue()
    })
    fc.assert(
      fc.property(fc.array(spanish, { maxLength: 8 }), (spans) => {
        openInferenceImporter.read(spans)
      }),
      { numRuns: 300 }
    )
  })
})

describe("openinference importer: detect", () => {
  const ownFiles = fixtureNames("openinference")
  const otherFiles = fixtureNames("otel")

  it("recognises every openinference fixture, and no otel one", () => {
    expect(ownFiles.length).toBeGreaterThanOrEqual(3)
    for (const name of ownFiles) expect([name, openInferenceImporter.detect(fixture(name))]).toEqual([name, true])
    for (const name of otherFiles) {
      const body = otelFixture(name)
      expect([name, openInferenceImporter.detect(body), otelImporter.detect(body)]).toEqual([name, false, true])
    }
  })

  it("claims nothing without OpenInference attributes or scope", () => {
    for (const body of [
      {},
      [],
      null,
      "openinference.span.kind",
      42,
      { messages: [{ role: "user", content: "x" }] },
      [{ role: "user", content: "x" }],
      { steps: [{ action: "x" }] },
      { resourceSpans: [] },
      [{ span_id: "a", attributes: { "input.value": "hi", "output.value": "there" } }],
      [{ span_id: "a", attributes: { "gen_ai.operation.name": "chat" } }]
    ]) {
      expect([body, openInferenceImporter.detect(body)]).toEqual([body, false])
    }
  })
})
