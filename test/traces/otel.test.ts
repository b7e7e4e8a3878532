/**
 * The `otel` importer (DECISIONS §12) on what the real producers write (fixtures recorded by
 * scripts/record-trace-fixtures/otel.mjs through @opentelemetry/instrumentation-openai, and
 * hand-written ones per the GenAI semantic conventions; see test/fixtures/traces/otel/README.md):
 * OTLP/JSON traces, logs and both together, span lists; history de-duplication across model calls;
 * malformed, cyclic and very large inputs; detection. Ids and timestamps are read from the
 * fixtures, so re-recording them keeps the tests valid.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either, Predicate } from "effect"
import fc from "fast-check"
import { openInferenceImporter } from "../../src/Traces/Formats/OpenInference.js"
import { otelImporter } from "../../src/Traces/Formats/Otel.js"
import { ANSWER, brief, fixtureIn, fixtureNames, list, LONDON, neverThrowsOnJson, NOT_FOUND, PARIS, QUESTION, readersOf, sub, SYSTEM, text, type Rec } from "./support.js"

const fixture = fixtureIn("otel")
const openInferenceFixture = fixtureIn("openinference")
const isoNanos = (value: unknown): string => new Date(Number(BigInt(text(value)) / 1_000_000n)).toISOString()
const isoText = (value: unknown): string => new Date(text(value)).toISOString()

/** The spans of an OTLP/JSON body, flattened. */
const otlpSpans = (body: unknown): ReadonlyArray<Rec> =>
  list(Predicate.isRecord(body) ? body["resourceSpans"] : undefined).flatMap((group) => list(group["scopeSpans"]).flatMap((scope) => list(scope["spans"])))
/** The log records of an OTLP/JSON body, flattened (their index is the `log:<index>` pointer). */
const otlpLogs = (body: unknown): ReadonlyArray<Rec> =>
  list(Predicate.isRecord(body) ? body["resourceLogs"] : undefined).flatMap((group) => list(group["scopeLogs"]).flatMap((scope) => list(scope["logRecords"])))
const attribute = (record: Rec, key: string): unknown => {
  const entry = list(record["attributes"]).find((candidate) => candidate["key"] === key)
  const value = sub(entry, "value")
  return value === undefined ? undefined : value["stringValue"]
}
const logName = (record: Rec): string => text(record["eventName"] ?? attribute(record, "event.name"))

const { readAll, readOne } = readersOf(otelImporter)

describe("otel importer: @opentelemetry/instrumentation-openai, Chat Completions agent (recorded)", () => {
  const traces = fixture("openai-chat-agent.otlp-traces.json")
  const logs = fixture("openai-chat-agent.otlp-logs.json")
  const combined = fixture("openai-chat-agent.otlp.json")
  const spans = otlpSpans(traces)
  const records = otlpLogs(logs)
  const span = (name: string, index = 0): Rec => spans.filter((candidate) => candidate["name"] === name)[index] ?? expect.fail(`no span ${name}`)
  const agent = span("invoke_agent weather_agent")
  const toolParis = span("execute_tool get_weather", 0)
  const toolLondon = span("execute_tool get_weather", 1)
  const failed = span("chat gpt-4o-mini-typo")
  const id = (record: Rec) => text(record["spanId"])
  const choices = records.flatMap((record, index) => (logName(record) === "gen_ai.choice" ? [index] : []))
  const [firstChoice, secondChoice, lastChoice] = choices
  const log = (index: number | undefined) => records[index ?? -1] ?? expect.fail(`no log record ${index}`)
  const failedUser = records.findIndex((record) => record["spanId"] === failed["spanId"])

  it("reads spans and log records together: one event per message, tool call and result, in order", () => {
    const all = readAll(combined)
    expect(all.map((trace) => trace.id)).toEqual([agent["traceId"], failed["traceId"]])
    const trace = all[0] ?? expect.fail("no trace")
    expect(trace.events.map(brief)).toEqual([
      ["system", "system", "message", "", SYSTEM, `span:${id(agent)}/system_instructions`],
      ["user", "user", "message", "", QUESTION, `span:${id(agent)}/input[0]`],
      ["weather_agent", "agent", "tool_call", "get_weather", "{\"city\":\"Paris\"}", `log:${firstChoice}`],
      ["get_weather", "tool", "tool_result", "get_weather", PARIS, `span:${id(toolParis)}`],
      ["weather_agent", "agent", "tool_call", "get_weather", "{\"city\":\"London\"}", `log:${secondChoice}`],
      ["get_weather", "tool", "tool_result", "get_weather", LONDON, `span:${id(toolLondon)}`],
      ["weather_agent", "agent", "message", "", ANSWER, `log:${lastChoice}`]
    ])
    expect(trace.events.map((event) => event.timestamp)).toEqual([
      isoNanos(agent["startTimeUnixNano"]),
      isoNanos(agent["startTimeUnixNano"]),
      isoNanos(log(firstChoice)["timeUnixNano"]),
      isoNanos(toolParis["endTimeUnixNano"]),
      isoNanos(log(secondChoice)["timeUnixNano"]),
      isoNanos(toolLondon["endTimeUnixNano"]),
      isoNanos(log(lastChoice)["timeUnixNano"])
    ])
    expect(trace).toMatchObject({ task: QUESTION, outcome: ANSWER, success: true, agents: ["weather_agent"], skipped: 0 })
  })

  it("reads the failed call as an error with the span's status message, and the trace as failed", () => {
    const trace = readAll(combined)[1] ?? expect.fail("no second trace")
    expect(trace.id).toBe(failed["traceId"])
    expect(trace.events.map(brief)).toEqual([
      ["user", "user", "message", "", "Say hello.", `log:${failedUser}`],
      ["assistant", "agent", "error", "", NOT_FOUND, `span:${id(failed)}`]
    ])
    expect(sub(failed, "status")?.["message"]).toBe(NOT_FOUND)
    expect(trace.events[1]?.timestamp).toBe(isoNanos(failed["endTimeUnixNano"]))
    expect(trace).toMatchObject({ task: "Say hello.", outcome: NOT_FOUND, success: false })
  })

  it("de-duplicates the history each call repeats: 7 events from 15 message log records over 3 calls", () => {
    const messageLogs = records.filter((record) => record["traceId"] === agent["traceId"])
    expect(messageLogs).toHaveLength(15)
    expect(new Set(messageLogs.map((record) => record["spanId"])).size).toBe(3)
    expect(readAll(combined)[0]?.events).toHaveLength(7)
  })

  it("reads the traces alone: the agent span's messages, the tool spans, and the chat spans (which carry no content) kept as empty calls", () => {
    const [trace, error] = readAll(traces)
    const [chat1, chat2, chat3] = [span("chat gpt-4o-mini", 0), span("chat gpt-4o-mini", 1), span("chat gpt-4o-mini", 2)]
    expect(trace?.events.map(brief)).toEqual([
      ["system", "system", "message", "", SYSTEM, `span:${id(agent)}/system_instructions`],
      ["user", "user", "message", "", QUESTION, `span:${id(agent)}/input[0]`],
      ["weather_agent", "agent", "message", "", "", `span:${id(chat1)}`],
      ["weather_agent", "agent", "tool_call", "get_weather", "{\"city\":\"Paris\"}", `span:${id(toolParis)}`],
      ["get_weather", "tool", "tool_result", "get_weather", PARIS, `span:${id(toolParis)}`],
      ["weather_agent", "agent", "message", "", "", `span:${id(chat2)}`],
      ["weather_agent", "agent", "tool_call", "get_weather", "{\"city\":\"London\"}", `span:${id(toolLondon)}`],
      ["get_weather", "tool", "tool_result", "get_weather", LONDON, `span:${id(toolLondon)}`],
      ["weather_agent", "agent", "message", "", "", `span:${id(chat3)}`],
      ["weather_agent", "agent", "message", "", ANSWER, `span:${id(agent)}/output[0]`]
    ])
    expect(trace?.events[2]?.timestamp).toBe(isoNanos(chat1["startTimeUnixNano"]))
    expect(trace?.events[3]?.timestamp).toBe(isoNanos(toolParis["startTimeUnixNano"]))
    expect(trace?.events[9]?.timestamp).toBe(isoNanos(agent["endTimeUnixNano"]))
    expect(trace?.success).toBe(true)
    expect(error?.events.map(brief)).toEqual([["assistant", "agent", "error", "", NOT_FOUND, `span:${id(failed)}`]])
    expect(error?.success).toBe(false)
  })

  it("reads the log records alone (their spans absent): the same conversation, success unknown", () => {
    const [trace, second] = readAll(logs)
    expect(trace?.id).toBe(agent["traceId"])
    expect(trace?.events.map((event) => [event.kind, event.role, event.content])).toEqual([
      ["message", "system", SYSTEM],
      ["message", "user", QUESTION],
      ["tool_call", "agent", "{\"city\":\"Paris\"}"],
      ["tool_result", "tool", PARIS],
      ["tool_call", "agent", "{\"city\":\"London\"}"],
      ["tool_result", "tool", LONDON],
      ["message", "agent", ANSWER]
    ])
    expect(trace?.events.every((event) => /^log:\d+$/.test(event.source))).toBe(true)
    expect(trace?.events[0]?.timestamp).toBe(isoNanos(records[0]?.["timeUnixNano"]))
    expect(trace).toMatchObject({ task: QUESTION, outcome: ANSWER, success: null, agents: ["assistant"] })
    expect(second?.events.map(brief)).toEqual([["user", "user", "message", "", "Say hello.", `log:${failedUser}`]])
  })
})

describe("otel importer: Responses API with operation-details log records (recorded)", () => {
  const body = fixture("openai-responses-agent.otlp.json")
  const spans = otlpSpans(body)
  const records = otlpLogs(body)
  const tool = spans.find((span) => span["name"] === "execute_tool get_weather") ?? expect.fail("no tool span")
  const agent = spans.find((span) => span["name"] === "invoke_agent weather_agent") ?? expect.fail("no agent span")
  const ROME = "{\"city\":\"Rome\",\"temperature_c\":24,\"conditions\":\"clear\"}"

  it("reads structured gen_ai.input/output.messages (tool_call and tool_call_response parts) once each", () => {
    expect(records.every((record) => record["eventName"] === "gen_ai.client.inference.operation.details")).toBe(true)
    const trace = readOne(body)
    expect(trace.id).toBe(agent["traceId"])
    expect(trace.events.map(brief)).toEqual([
      ["system", "system", "message", "", SYSTEM, "log:0"],
      ["user", "user", "message", "", "How is the weather in Rome?", "log:0"],
      ["weather_agent", "agent", "tool_call", "get_weather", "{\"city\":\"Rome\"}", "log:1"],
      ["get_weather", "tool", "tool_result", "get_weather", ROME, `span:${text(tool["spanId"])}`],
      ["weather_agent", "agent", "message", "", "Rome is warm and clear at 24°C.", "log:3"]
    ])
    expect(trace.events[3]?.timestamp).toBe(isoNanos(tool["endTimeUnixNano"]))
    expect(trace).toMatchObject({ task: "How is the weather in Rome?", outcome: "Rome is warm and clear at 24°C.", success: true })
  })
})

describe("otel importer: multi-agent handoff with a failing tool (hand-written, Python SDK span JSON)", () => {
  const body = fixture("multi-agent-handoff.spans.json")
  const spans = list(body)
  const spanId = (name: string, index = 0) => text(sub(spans.filter((span) => span["name"] === name)[index], "context")?.["span_id"])
  const startOf = (name: string, index = 0) => isoText(spans.filter((span) => span["name"] === name)[index]?.["start_time"])
  const endOf = (name: string, index = 0) => isoText(spans.filter((span) => span["name"] === name)[index]?.["end_time"])
  const USER = "I was charged twice for invoice INV-1042. Please refund the duplicate charge."
  const APOLOGY =
    "I'm sorry: the refund of the duplicate charge ch_2 failed because the payment gateway timed out. I have not charged or refunded anything; please try again later."

  it("reads agents, the handoff, tool calls and results, the tool's exception and the agent's error status", () => {
    const trace = readOne(body)
    expect(trace.id).toBe("0x5b8efff798038103d269b633813fc60c")
    expect(trace.events.map(brief)).toEqual([
      ["user", "user", "message", "", USER, `span:${spanId("invoke_agent triage_agent")}/input[0]`],
      ["system", "system", "message", "", "You are the triage agent. Route billing questions to billing_agent.", `span:${spanId("chat gpt-4o", 0)}/input[0]`],
      ["triage_agent", "agent", "message", "", "This is a billing question; handing you to billing.", `span:${spanId("chat gpt-4o", 0)}/output[0]`],
      ["triage_agent", "agent", "handoff", "", "invoke_agent billing_agent", `span:${spanId("invoke_agent billing_agent")}`],
      [
        "system",
        "system",
        "message",
        "",
        "You are the billing agent. Look invoices up before refunding; never refund more than once.",
        `span:${spanId("chat gpt-4o", 1)}/system_instructions`
      ],
      ["billing_agent", "agent", "tool_call", "lookup_invoice", "{\"invoice_id\":\"INV-1042\"}", `span:${spanId("chat gpt-4o", 1)}/output[0]`],
      [
        "lookup_invoice",
        "tool",
        "tool_result",
        "lookup_invoice",
        "{\"invoice_id\":\"INV-1042\",\"charges\":[{\"id\":\"ch_1\",\"amount\":49.0},{\"id\":\"ch_2\",\"amount\":49.0}]}",
        `span:${spanId("execute_tool lookup_invoice")}`
      ],
      ["billing_agent", "agent", "tool_call", "refund_charge", "{\"invoice_id\":\"INV-1042\",\"charge_id\":\"ch_2\"}", `span:${spanId("chat gpt-4o", 2)}/output[0]`],
      ["refund_charge", "tool", "error", "refund_charge", "PaymentGatewayError: gateway timeout after 30s", `span:${spanId("execute_tool refund_charge")}`],
      ["billing_agent", "agent", "message", "", APOLOGY, `span:${spanId("chat gpt-4o", 3)}/output[0]`],
      ["billing_agent", "agent", "error", "", "refund_charge failed: gateway timeout after 30s", `span:${spanId("invoke_agent billing_agent")}`]
    ])
    expect(trace.events[3]?.to).toBe("billing_agent")
    expect(trace.events[0]?.timestamp).toBe(startOf("invoke_agent triage_agent"))
    expect(trace.events[3]?.timestamp).toBe(startOf("invoke_agent billing_agent"))
    expect(trace.events[8]?.timestamp).toBe(endOf("execute_tool refund_charge"))
    expect(trace).toMatchObject({
      task: USER,
      outcome: "refund_charge failed: gateway timeout after 30s",
      success: false,
      agents: ["triage_agent", "billing_agent"],
      skipped: 0
    })
  })
})

describe("otel importer: legacy gen_ai.prompt.N / gen_ai.completion.N attributes (hand-written, ReadableSpan JSON)", () => {
  const body = fixture("legacy-prompt-attributes.spans.json")
  const [first, second] = list(body)
  const sid = (span: Rec | undefined) => text(sub(span, "spanContext")?.["spanId"])

  it("reads the flattened messages, de-duplicated across the two calls, their parent absent (roots)", () => {
    const trace = readOne(body)
    expect(trace.events.map(brief)).toEqual([
      ["system", "system", "message", "", "You are a unit conversion assistant.", `span:${sid(first)}/input[0]`],
      ["user", "user", "message", "", "Convert 72 degrees Fahrenheit to Celsius.", `span:${sid(first)}/input[1]`],
      ["assistant", "agent", "tool_call", "convert_temperature", "{\"value\": 72, \"from_unit\": \"F\", \"to_unit\": \"C\"}", `span:${sid(first)}/output[0]`],
      ["convert_temperature", "tool", "tool_result", "convert_temperature", "22.2", `span:${sid(second)}/input[3]`],
      ["assistant", "agent", "message", "", "72 °F is about 22.2 °C.", `span:${sid(second)}/output[0]`]
    ])
    expect(trace.events.map((event) => event.timestamp)).toEqual([
      "2025-06-02T09:03:20.100Z",
      "2025-06-02T09:03:20.100Z",
      "2025-06-02T09:03:21.250Z",
      "2025-06-02T09:03:21.400Z",
      "2025-06-02T09:03:22.100Z"
    ])
    expect(trace).toMatchObject({ id: "3f6c1a0e9b2d4c8e8a7f6e5d4c3b2a19", task: "Convert 72 degrees Fahrenheit to Celsius.", outcome: "72 °F is about 22.2 °C.", success: true })
  })
})

// ---------------------------------------------------------------------------------------------

const kv = (key: string, value: string | number) => ({ key, value: typeof value === "string" ? { stringValue: value } : { intValue: String(value) } })
const userText = (content: string) => ({ role: "user", parts: [{ type: "text", content }] })
const assistantText = (content: string) => ({ role: "assistant", parts: [{ type: "text", content }], finish_reason: "stop" })

/** An OTLP body of `calls` chat spans, each carrying the whole conversation so far. */
const longConversation = (calls: number) => {
  const history: Array<unknown> = [{ role: "system", parts: [{ type: "text", content: "Be brief." }] }, userText("Start.")]
  const spans: Array<unknown> = [
    {
      traceId: "aa".repeat(16),
      spanId: "a0".repeat(8),
      name: "invoke_agent chatter",
      startTimeUnixNano: "1767225600000000000",
      endTimeUnixNano: String(1767225600000000000n + BigInt(calls + 1) * 1_000_000_000n),
      attributes: [kv("gen_ai.operation.name", "invoke_agent"), kv("gen_ai.agent.name", "chatter")],
      status: { code: 1 }
    }
  ]
  for (let k = 0; k < calls; k++) {
    const reply = assistantText(`Answer ${k}.`)
    spans.push({
      traceId: "aa".repeat(16),
      spanId: (k + 1).toString(16).padStart(16, "0"),
      parentSpanId: "a0".repeat(8),
      name: "chat model",
      startTimeUnixNano: String(1767225600000000000n + BigInt(k + 1) * 1_000_000_000n),
      endTimeUnixNano: String(1767225600000000000n + BigInt(k + 1) * 1_000_000_000n + 500_000_000n),
      attributes: [
        kv("gen_ai.operation.name", "chat"),
        kv("gen_ai.input.messages", JSON.stringify(history)),
        kv("gen_ai.output.messages", JSON.stringify([reply])),
        kv("gen_ai.usage.input_tokens", 10 * k)
      ],
      status: { code: 0 }
    })
    // Every other user turn says the same words: a message really said twice stays twice.
    history.push(reply, userText(k % 2 === 0 ? "Go on." : `Question ${k}?`))
  }
  return { resourceSpans: [{ resource: { attributes: [kv("service.name", "chatter")] }, scopeSpans: [{ scope: { name: "test" }, spans }] }] }
}

describe("otel importer: history de-duplication", () => {
  it("50 calls each carrying the whole history: ~100 events, not thousands, each message once and in order", () => {
    const body = longConversation(50)
    const raw = JSON.stringify(body).split("\\\"role\\\"").length - 1
    expect(raw).toBeGreaterThan(2500)
    const trace = readOne(body)
    // system + "Start." + 50 answers + the 49 follow-up user turns in the last call's input
    expect(trace.events).toHaveLength(101)
    expect(trace.events.filter((event) => event.content === "Go on.")).toHaveLength(25)
    expect(trace.events.slice(0, 5).map((event) => [event.role, event.content])).toEqual([
      ["system", "Be brief."],
      ["user", "Start."],
      ["agent", "Answer 0."],
      ["user", "Go on."],
      ["agent", "Answer 1."]
    ])
    expect(trace.events.at(-1)?.content).toBe("Answer 49.")
    expect(trace.events[2]?.source).toBe(`span:${(1).toString(16).padStart(16, "0")}/output[0]`)
    expect(trace).toMatchObject({ task: "Start.", outcome: "Answer 49.", success: true, agents: ["chatter"] })
  })
})

// ---------------------------------------------------------------------------------------------

const chatSpan = (spanId: string, extra: Rec = {}) => ({
  trace_id: "t1",
  span_id: spanId,
  name: "chat",
  attributes: { "gen_ai.operation.name": "chat", "gen_ai.input.messages": JSON.stringify([userText(`from ${spanId}`)]) },
  ...extra
})

describe("otel importer: malformed input never throws nor hangs", () => {
  it("reads what it can of truncated OTLP, counting what it skips", () => {
    const body = {
      resourceSpans: [
        { resource: { attributes: "not a list" } },
        7,
        { scopeSpans: "nope" },
        {
          scopeSpans: [
            {
              spans: [
                null,
                3,
                "span",
                {
                  name: "chat",
                  attributes: [kv("gen_ai.input.messages", JSON.stringify([userText("hi")])), { key: 5 }, "junk", { value: { stringValue: "x" } }],
                  status: "weird",
                  events: "nope"
                }
              ]
            },
            { scope: {}, spans: {} }
          ]
        }
      ],
      resourceLogs: "nope"
    }
    const trace = readOne(body)
    expect(trace.id).toBeNull()
    expect(trace.events.map(brief)).toEqual([["user", "user", "message", "", "hi", "span:#0/input[0]"]])
    expect(trace.skipped).toBe(8)
    expect(trace.success).toBeNull()
  })

  it("answers a Left, not a throw, for OTLP with nothing usable", () => {
    for (const body of [{ resourceSpans: [] }, { resourceSpans: [{}] }, { resourceLogs: [{ scopeLogs: [{ logRecords: [1, 2] }] }] }, { resourceSpans: null }]) {
      const result = otelImporter.read(body)
      expect(Either.isLeft(result)).toBe(true)
    }
  })

  it("tolerates attributes, events, statuses and messages of the wrong types", () => {
    const body = [
      { trace_id: "t1", span_id: "a", attributes: "oops", events: [1, { name: "exception", attributes: "x" }], status: 7, start_time: "yesterday" },
      { trace_id: "t1", span_id: "b", attributes: 42, span_events: null, end_time: [1, 2, 3] },
      { trace_id: "t1", span_id: "c", attributes: { "gen_ai.operation.name": "chat", "gen_ai.input.messages": 17, "gen_ai.output.messages": { role: "assistant" } } },
      { trace_id: "t1", span_id: "d", attributes: { "gen_ai.operation.name": "chat", "gen_ai.input.messages": "[not json", "gen_ai.system_instructions": 5 } },
      chatSpan("e", { attributes: { "gen_ai.operation.name": "chat", "gen_ai.input.messages": [null, 4, { role: "user", parts: "x" }, userText("ok")] } }),
      { trace_id: "t1", span_id: "f", name: "execute_tool", attributes: { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.call.arguments": { deep: [1] } } }
    ]
    const trace = readOne(body)
    expect(trace.events.map((event) => [event.role, event.kind, event.content])).toEqual([
      // span c: a chat call of which no message could be read, kept as a call without content
      ["agent", "message", ""],
      ["system", "message", "5"],
      ["user", "message", "[not json"],
      ["user", "message", "ok"],
      ["agent", "tool_call", "{\"deep\":[1]}"]
    ])
    // the event that is not an object, the number 17 as a message list, null and 4 as messages
    expect(trace.skipped).toBe(4)
  })

  it("skips and counts content parts of unknown types; non-string contents become text", () => {
    const body = [
      chatSpan("a", {
        attributes: {
          "gen_ai.operation.name": "chat",
          "gen_ai.input.messages": JSON.stringify([
            { role: "user", parts: [{ type: "blob", modality: "image", content: "iVBORw0K" }, { type: "text", content: "What is this?" }, { type: "uri", uri: "s3://x" }] },
            { role: "user", parts: [{ type: "text", content: 42 }, { type: "text", content: { nested: true } }] },
            { role: "user", content: { a: 1 } }
          ]),
          "gen_ai.output.messages": JSON.stringify([
            { role: "assistant", parts: [{ type: "reasoning", content: "Looks like a chart." }, { type: "tool_call", id: "c1", name: "zoom", arguments: { level: 2 } }] },
            { role: "tool", parts: [{ type: "tool_call_response", id: "c1", response: { ok: true } }] }
          ])
        }
      })
    ]
    const trace = readOne(body)
    expect(trace.events.map((event) => [event.role, event.kind, event.tool ?? "", event.content])).toEqual([
      ["user", "message", "", "What is this?"],
      ["user", "message", "", "42"],
      ["user", "message", "", "{\"nested\":true}"],
      ["user", "message", "", "{\"a\":1}"],
      ["agent", "thought", "", "Looks like a chart."],
      ["agent", "tool_call", "zoom", "{\"level\":2}"],
      ["tool", "tool_result", "zoom", "{\"ok\":true}"]
    ])
    expect(trace.skipped).toBe(2)
  })

  it("breaks parent cycles (counted) and treats dangling parents as roots", () => {
    const body = [
      chatSpan("a", { parent_span_id: "b", start_time: 3 }),
      chatSpan("b", { parent_span_id: "a", start_time: 2 }),
      chatSpan("c", { parent_span_id: "c", start_time: 4 }),
      chatSpan("d", { parent_span_id: "a", start_time: 5 }),
      chatSpan("e", { parent_span_id: "missing", start_time: 1, status: { status_code: "OK" } })
    ]
    const trace = readOne(body)
    expect(trace.events.map((event) => event.content)).toEqual(["from e", "from b", "from a", "from c", "from d"])
    expect(trace.skipped).toBe(2)
  })

  // 100,000 deep: recursion overflows Node's default stack at about 11,400 frames of the plainest
  // function (about 5,700 for a walk over a parent chain), measured on Node 20; a million spans
  // took 32 s here to prove the same.
  it("reads 100,000 tiny spans (a single parent chain) without recursion", () => {
    const spans = Array.from({ length: 100_000 }, (_, i) => ({
      trace_id: "chain",
      span_id: `s${i}`,
      parent_span_id: i === 0 ? null : `s${i - 1}`,
      name: "step",
      start_time: 1767225600000 + i,
      attributes: i % 10_000 === 0 ? { "gen_ai.operation.name": "chat", "gen_ai.input.messages": JSON.stringify([userText(`step ${i}`)]) } : {}
    }))
    const trace = readOne(spans)
    expect(trace.events).toHaveLength(10)
    expect(trace.events[9]?.content).toBe("step 90000")
  }, 120_000)

  it("splits several trace ids into several traces, in first-seen order", () => {
    const body = [chatSpan("a", { trace_id: "second" }), chatSpan("b", { trace_id: "first" }), chatSpan("c", { trace_id: "second" }), chatSpan("n", { trace_id: undefined })]
    expect(readAll(body).map((trace) => [trace.id, trace.events.map((event) => event.content)])).toEqual([
      ["second", ["from a", "from c"]],
      ["first", ["from b"]],
      [null, ["from n"]]
    ])
  })

  it("reads time in every shape: ISO strings, epoch s/ms/µs/ns, hrtime, *UnixNano strings", () => {
    const at = "2026-01-01T00:00:00.250Z"
    const ms = Date.parse(at)
    for (const time of [{ start_time: at }, { start_time: ms }, { start_time: ms / 1000 }, { start_time: ms * 1000 }, { start_time: `${ms}000000` }, { startTime: [ms / 1000 - 0.25, 250_000_000] }, { startTimeUnixNano: `${ms}000000` }]) {
      expect(readOne([chatSpan("a", time)]).events[0]?.timestamp).toBe(at)
    }
  })

  it("never throws on arbitrary JSON, span-shaped or not", () => {
    neverThrowsOnJson(otelImporter)
    const spanish = fc.record({
      trace_id: fc.oneof(fc.string(), fc.constant("t")),
      span_id: fc.oneof(fc.string(), fc.integer()),
      parent_span_id: fc.oneof(fc.string(), fc.constant("a"), fc.constant(null)),
      attributes: fc.oneof(fc.jsonValue(), fc.dictionary(fc.constantFrom("gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.operation.name", "gen_ai.prompt.0.role"), fc.jsonValue())),
      events: fc.jsonValue(),
      status: fc.jsonValue(),
      start_time: fc.jsonValue()
    })
    fc.assert(
      fc.property(fc.array(spanish, { maxLength: 8 }), (spans) => {
        otelImporter.read(spans)
        otelImporter.read({ resourceSpans: [{ scopeSpans: [{ spans }] }] })
      }),
      { numRuns: 300 }
    )
  })
})

describe("otel importer: detect", () => {
  const ownFiles = fixtureNames("otel")
  const otherFiles = fixtureNames("openinference")

  it("recognises every otel fixture, and no openinference one", () => {
    expect(ownFiles.length).toBeGreaterThanOrEqual(6)
    for (const name of ownFiles) expect([name, otelImporter.detect(fixture(name))]).toEqual([name, true])
    for (const name of otherFiles) {
      expect([name, otelImporter.detect(openInferenceFixture(name))]).toEqual([name, false])
    }
  })

  it("claims OTLP top-level keys and gen_ai span lists, nothing else", () => {
    expect(otelImporter.detect({ resourceSpans: [] })).toBe(true)
    expect(otelImporter.detect({ resourceLogs: [] })).toBe(true)
    expect(otelImporter.detect([chatSpan("a")])).toBe(true)
    expect(otelImporter.detect({ session_id: "s", span_count: 1, spans: [chatSpan("a")] })).toBe(true)
    for (const body of [
      {},
      [],
      null,
      "resourceSpans",
      42,
      { messages: [{ role: "user", content: "x" }] },
      [{ role: "user", content: "x" }],
      { steps: [{ action: "x" }] },
      [{ span_id: "a", name: "GET /", attributes: { "http.method": "GET" } }],
      [{ span_id: "a", attributes: { "openinference.span.kind": "LLM", "gen_ai.system": "openai" } }]
    ]) {
      expect([body, otelImporter.detect(body)]).toEqual([body, false])
    }
  })

  it("looks at the first records only", () => {
    const late = [...Array.from({ length: 30 }, (_, i) => ({ span_id: `s${i}`, attributes: {} })), chatSpan("z")]
    expect(otelImporter.detect(late)).toBe(false)
  })

  it("leaves OpenInference span lists to the openinference importer", () => {
    const body = [{ span_id: "a", attributes: { "openinference.span.kind": "LLM", "llm.input_messages.0.message.role": "user" } }]
    expect(otelImporter.detect(body)).toBe(false)
    expect(openInferenceImporter.detect(body)).toBe(true)
  })
})
