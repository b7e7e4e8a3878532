/**
 * The `openai` importer (DECISIONS §12) on its fixtures: Chat Completions and Responses API bodies
 * recorded from the `openai` npm SDK against a loopback double, and OpenAI Agents SDK trace exports
 * recorded from `@openai/agents` (scripts/record-trace-fixtures/openai-*.mjs). Span ids and times
 * of the Agents SDK fixtures are read from the fixtures themselves, so re-recording keeps these
 * tests valid.
 */
import { Predicate } from "effect"
import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { anthropicImporter } from "../../src/Traces/Formats/Anthropic.js"
import { openAiImporter } from "../../src/Traces/Formats/OpenAI.js"
import { fixtureIn, fixtureNames, neverThrowsOnJson, readersOf, shortBrief as brief, type Rec } from "./support.js"

const fixture = fixtureIn("openai")
const anthropicFixture = fixtureIn("anthropic")
const { readAll, readOne, failure } = readersOf(openAiImporter)

/** The exported objects of an Agents SDK fixture (a list or `{data}`). */
const exported = (body: unknown): ReadonlyArray<Rec> => {
  const list: ReadonlyArray<unknown> = Array.isArray(body) ? body : Predicate.isRecord(body) && Array.isArray(body["data"]) ? body["data"] : []
  return list.filter(Predicate.isRecord)
}
const spansOf = (body: unknown, type: string, traceId?: string): ReadonlyArray<Rec> =>
  exported(body).filter((record) => {
    const data = record["span_data"]
    return Predicate.isRecord(data) && data["type"] === type && (traceId === undefined || record["trace_id"] === traceId)
  })
const field = (record: Rec | undefined, name: string): string => {
  const value = record?.[name]
  return typeof value === "string" ? value : expect.fail(`no string ${name}`)
}
const traceIds = (body: unknown): ReadonlyArray<string> =>
  exported(body).filter((record) => record["object"] === "trace").map((record) => field(record, "id"))

describe("openai importer: Chat Completions", () => {
  it("reads a tool loop of three calls, each carrying the whole conversation, into one event per message", () => {
    const body = fixture("chat-tool-calls.json")
    const trace = readOne(body)
    expect(trace.events.map(brief)).toEqual([
      ["system", "message", "", "You are a concise travel assistant. Use the tools for weather facts."],
      ["user", "message", "", "I fly to Paris tomorrow and then to Berlin. Do I need an umbrella?"],
      ["assistant", "tool_call", "get_weather", "{\"city\": \"Paris\"}"],
      ["assistant", "tool_call", "get_weather", "{\"city\": \"Berlin\"}"],
      ["get_weather", "tool_result", "get_weather", "{\"city\":\"Paris\",\"sky\":\"light rain\",\"temp_c\":11}"],
      ["get_weather", "tool_result", "get_weather", "Error: weather service timed out for Berlin"],
      ["assistant", "message", "", "Paris has light rain. The Berlin lookup failed, so I will check tomorrow's forecast instead."],
      ["assistant", "tool_call", "get_forecast", "{\"city\": \"Berlin\"}"],
      ["get_forecast", "tool_result", "get_forecast", "{\"city\":\"Berlin\",\"tomorrow\":\"showers in the afternoon\",\"rain_probability\":0.7}"],
      ["assistant", "message", "", "Yes, take an umbrella: it is raining in Paris now, and Berlin expects afternoon showers tomorrow (70% chance)."]
    ])
    expect(trace.events.map((event) => event.source)).toEqual([
      "[0].request.messages[0]",
      "[0].request.messages[1]",
      "[0].response.choices[0].message.tool_calls[0]",
      "[0].response.choices[0].message.tool_calls[1]",
      "[1].request.messages[3]",
      "[1].request.messages[4]",
      "[1].response.choices[0].message",
      "[1].response.choices[0].message.tool_calls[0]",
      "[2].request.messages[6]",
      "[2].response.choices[0].message"
    ])
    expect(trace.events.map((event) => event.role)).toEqual(["system", "user", "agent", "agent", "tool", "tool", "agent", "agent", "tool", "agent"])
    // responses carry their `created` time; requests have none
    expect(trace.events[2]?.timestamp).toBe("2026-01-01T00:00:00.000Z")
    expect(trace.events[1]?.timestamp).toBeUndefined()
    expect(trace.task).toBe("I fly to Paris tomorrow and then to Berlin. Do I need an umbrella?")
    expect(trace.outcome).toBe("Yes, take an umbrella: it is raining in Paris now, and Berlin expects afternoon showers tomorrow (70% chance).")
    expect(trace.success).toBeNull()
    expect(trace.agents).toEqual(["assistant"])
    expect(trace.skipped).toBe(0)
    expect(trace.id).toBeNull()

    // the raw body repeats the history: 2 + 4 + 7 request messages, 3 responses → still 10 events
    const requestMessages = (Array.isArray(body) ? body : []).filter(Predicate.isRecord).reduce((sum, pair) => {
      const request = pair["request"]
      return sum + (Predicate.isRecord(request) && Array.isArray(request["messages"]) ? request["messages"].length : 0)
    }, 0)
    expect(requestMessages).toBe(2 + 5 + 7)
  })

  it("reads a single chat.completion response", () => {
    const trace = readOne(fixture("chat-completion.json"))
    expect(trace.id).toBe("chatcmpl_0001loopback000000000000")
    expect(trace.events.map(brief)).toEqual([
      ["assistant", "tool_call", "get_weather", "{\"city\": \"Paris\"}"],
      ["assistant", "tool_call", "get_weather", "{\"city\": \"Berlin\"}"]
    ])
    expect(trace.events.map((event) => event.source)).toEqual(["choices[0].message.tool_calls[0]", "choices[0].message.tool_calls[1]"])
    expect(trace.events[0]?.timestamp).toBe("2026-01-01T00:00:00.000Z")
    // A response alone holds no user input: the task is empty, never the tool's arguments.
    expect(trace.task).toBe("")
  })

  it("reads a request body with its response: developer prompt, names, parts, a refusal", () => {
    const trace = readOne(fixture("chat-request.json"))
    expect(trace.events.map((event) => [event.actor, event.role, event.kind, event.content, event.source])).toEqual([
      ["system", "system", "message", "Answer briefly. Never identify real people.", "messages[0]"],
      ["dana", "user", "message", "Who is the person in this photo?", "messages[1]"],
      ["photo_helper", "agent", "message", "Let me look at the photo.", "messages[2]"],
      ["user", "user", "message", "Please, just the name.", "messages[3]"],
      ["assistant", "agent", "message", "I can't help with identifying people in photos.", "response.choices[0].message"]
    ])
    expect(trace.skipped).toBe(1) // the image_url part
    expect(trace.agents).toEqual(["photo_helper", "assistant"])
    expect(trace.task).toBe("Who is the person in this photo?")
    expect(trace.outcome).toBe("I can't help with identifying people in photos.")
  })

  it("reads a bare message list with list sources, keeping a message said twice", () => {
    const trace = readOne([
      { role: "user", content: "ping" },
      { role: "assistant", content: "pong" },
      { role: "user", content: "ping" },
      { role: "assistant", content: "pong" }
    ])
    expect(trace.events.map((event) => [event.actor, event.content, event.source])).toEqual([
      ["user", "ping", "[0]"],
      ["assistant", "pong", "[1]"],
      ["user", "ping", "[2]"],
      ["assistant", "pong", "[3]"]
    ])
  })

  it("reads an API error response as an error event and success=false", () => {
    const trace = readOne({
      request: { model: "this-model-does-not-exist", messages: [{ role: "user", content: "Say this is a test" }] },
      response: { error: { message: "The model `this-model-does-not-exist` does not exist or you do not have access to it.", type: "invalid_request_error", param: null, code: "model_not_found" } }
    })
    expect(trace.events.map(brief)).toEqual([
      ["user", "message", "", "Say this is a test"],
      ["assistant", "error", "", "The model `this-model-does-not-exist` does not exist or you do not have access to it."]
    ])
    expect(trace.events[1]?.source).toBe("response.error")
    expect(trace.success).toBe(false)
    expect(trace.outcome).toBe("The model `this-model-does-not-exist` does not exist or you do not have access to it.")
  })

  it("reads legacy function calls and function messages", () => {
    const trace = readOne([
      { role: "user", content: "2+2?" },
      { role: "assistant", content: null, function_call: { name: "calc", arguments: "{\"expr\":\"2+2\"}" } },
      { role: "function", name: "calc", content: "4" }
    ])
    expect(trace.events.map(brief)).toEqual([
      ["user", "message", "", "2+2?"],
      ["assistant", "tool_call", "calc", "{\"expr\":\"2+2\"}"],
      ["calc", "tool_result", "calc", "4"]
    ])
  })
})

describe("openai importer: Responses API", () => {
  it("reads request/response pairs: instructions, reasoning, a hosted search, a function call and its output", () => {
    const trace = readOne(fixture("responses-tool-calls.json"))
    expect(trace.events.map(brief)).toEqual([
      ["system", "message", "", "You are a research assistant. Cite what you find."],
      ["user", "message", "", "How much is a Raspberry Pi 5 with 8 GB in euros?"],
      ["assistant", "thought", "", "**Finding the price**\n\nI need the current list price of the Raspberry Pi 5 (8 GB), then a USD to EUR conversion."],
      ["assistant", "tool_call", "web_search", "{\"type\":\"search\",\"query\":\"Raspberry Pi 5 8GB price USD\"}"],
      ["assistant", "tool_call", "convert_currency", "{\"amount\":80,\"from\":\"USD\",\"to\":\"EUR\"}"],
      ["convert_currency", "tool_result", "convert_currency", "{\"amount\":73.6,\"currency\":\"EUR\",\"rate\":0.92}"],
      ["assistant", "message", "", "The Raspberry Pi 5 (8 GB) lists at $80, which is about €73.60 at today's rate of 0.92."]
    ])
    expect(trace.events.map((event) => event.source)).toEqual([
      "[0].request.instructions",
      "[0].request.input[0]",
      "[0].response.output[0]",
      "[0].response.output[1]",
      "[0].response.output[2]",
      "[1].request.input[4]",
      "[1].response.output[0]"
    ])
    expect(trace.success).toBe(true)
    expect(trace.task).toBe("How much is a Raspberry Pi 5 with 8 GB in euros?")
    expect(trace.outcome).toBe("The Raspberry Pi 5 (8 GB) lists at $80, which is about €73.60 at today's rate of 0.92.")
    expect(trace.events[6]?.timestamp).toBe("2026-01-01T00:00:00.000Z")
  })

  it("reads {input, output} item lists", () => {
    const trace = readOne(fixture("responses-items.json"))
    expect(trace.events.map((event) => [event.kind, event.source])).toEqual([
      ["message", "input[0]"],
      ["thought", "input[1]"],
      ["tool_call", "input[2]"],
      ["tool_call", "input[3]"],
      ["tool_result", "input[4]"],
      ["message", "output[0]"]
    ])
    expect(trace.success).toBeNull()
  })

  it("reads a failed response: an error event, success=false, the error as outcome", () => {
    const trace = readOne(fixture("responses-failed.json"))
    expect(trace.id).toBe("resp_0013loopback000000000000")
    expect(trace.events.map((event) => [event.kind, event.content, event.source])).toEqual([
      ["message", "You are a research assistant. Cite what you find.", "instructions"],
      ["thought", "**Planning the summary**\n\nI should fetch the report first.", "output[0]"],
      ["error", "The server had an error while processing your request. Sorry about that!", "error"]
    ])
    expect(trace.success).toBe(false)
    expect(trace.outcome).toBe("The server had an error while processing your request. Sorry about that!")
    // No user input in it: the task is empty, never the system instructions.
    expect(trace.task).toBe("")
  })

  it("reads an incomplete response, hosted tools and skips what is not trace content", () => {
    const trace = readOne({
      object: "response",
      id: "resp_x",
      status: "incomplete",
      incomplete_details: { reason: "max_output_tokens" },
      output: [
        { type: "reasoning", id: "rs_1", summary: [], encrypted_content: "gAAAA" },
        { type: "computer_call", call_id: "cc_1", action: { type: "click", x: 10, y: 20 } },
        { type: "computer_call_output", call_id: "cc_1", output: { type: "computer_screenshot", image_url: "data:image/png;base64,AAAA" } },
        { type: "code_interpreter_call", code: "print(2**10)", outputs: [{ type: "logs", logs: "1024" }] },
        { type: "mcp_call", name: "get_issue", server_label: "github", arguments: "{\"n\":1}", output: null, error: "not found" },
        { type: "hologram_call", id: "x" },
        { type: "brand_new_item" },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "Partial" }, { type: "refusal", refusal: "and no more." }] }
      ]
    })
    expect(trace.events.map(brief)).toEqual([
      ["assistant", "tool_call", "computer", "{\"type\":\"click\",\"x\":10,\"y\":20}"],
      ["assistant", "tool_call", "code_interpreter", "print(2**10)"],
      ["code_interpreter", "tool_result", "code_interpreter", "[{\"type\":\"logs\",\"logs\":\"1024\"}]"],
      ["assistant", "tool_call", "get_issue", "{\"n\":1}"],
      ["get_issue", "error", "get_issue", "not found"],
      ["assistant", "tool_call", "hologram", "{}"],
      ["assistant", "message", "", "Partial\nand no more."],
      ["assistant", "error", "", "max_output_tokens"]
    ])
    expect(trace.skipped).toBe(3) // encrypted reasoning, the screenshot, the unknown item
    expect(trace.success).toBe(false)
    expect(trace.events.at(-1)?.source).toBe("incomplete_details.reason")
  })

  it("reads a request whose input is a string, and custom tool calls", () => {
    const trace = readOne([
      { model: "gpt-5", input: "Patch the bug." },
      { type: "custom_tool_call", call_id: "c1", name: "apply_patch", input: "*** Begin Patch" },
      { type: "custom_tool_call_output", call_id: "c1", output: "Done" }
    ])
    expect(trace.events.map(brief)).toEqual([
      ["user", "message", "", "Patch the bug."],
      ["assistant", "tool_call", "apply_patch", "*** Begin Patch"],
      ["apply_patch", "tool_result", "apply_patch", "Done"]
    ])
    expect(trace.events.map((event) => event.source)).toEqual(["[0].input", "[1]", "[2]"])
  })
})

describe("openai importer: Agents SDK trace exports", () => {
  it("reads an ingest batch of a Responses-model run: handoff, tool calls, the failing call's error", () => {
    const body = fixture("agents-sdk-responses.json")
    const trace = readOne(body)
    const [traceId] = traceIds(body)
    expect(trace.id).toBe(traceId)
    const handoff = spansOf(body, "handoff")[0]
    const [failing, working] = spansOf(body, "function")
    // response spans carry only ids in the export: each is a model call kept without content (DECISIONS §23)
    const [first, second, third, fourth] = spansOf(body, "response").map((span) => `span:${field(span, "id")}`)
    expect(trace.events.map((event) => [...brief(event), event.source])).toEqual([
      ["Triage agent", "message", "", "", first],
      ["Triage agent", "handoff", "", "Billing agent", `span:${field(handoff, "id")}`],
      ["Billing agent", "message", "", "", second],
      ["Billing agent", "tool_call", "lookup_invoice", "{\"invoice_id\":\"INV-1O42\"}", `span:${field(failing, "id")}`],
      ["lookup_invoice", "tool_result", "lookup_invoice", "An error occurred while running the tool. Please try again.", `span:${field(failing, "id")}`],
      ["lookup_invoice", "error", "lookup_invoice", "Error running tool (non-fatal)\nTool execution failed. Error details are redacted.", `span:${field(failing, "id")}`],
      ["Billing agent", "message", "", "", third],
      ["Billing agent", "tool_call", "lookup_invoice", "{\"invoice_id\":\"INV-1042\"}", `span:${field(working, "id")}`],
      [
        "lookup_invoice",
        "tool_result",
        "lookup_invoice",
        "{\"invoice_id\":\"INV-1042\",\"amount\":\"49.00\",\"currency\":\"USD\",\"charges\":2,\"second_charge\":\"retry after gateway timeout\",\"refunded\":true}",
        `span:${field(working, "id")}`
      ],
      ["Billing agent", "message", "", "", fourth]
    ])
    expect(trace.events[1]?.to).toBe("Billing agent")
    expect(trace.events[1]?.timestamp).toBe(field(handoff, "started_at"))
    expect(trace.events[3]?.timestamp).toBe(field(failing, "started_at"))
    expect(trace.events[4]?.timestamp).toBe(field(failing, "ended_at"))
    expect(trace.agents).toEqual(["Triage agent", "Billing agent"])
    // the tool's error is non-fatal: the run itself succeeded
    expect(trace.success).toBe(true)
    // no user input in the export, so the workflow names the task
    expect(trace.task).toBe("ACME support")
    expect(trace.skipped).toBe(spansOf(body, "custom").length)
  })

  it("reads a Chat Completions-model run: generation spans de-duplicated into one event per message", () => {
    const body = fixture("agents-sdk-chat-completions.json")
    const trace = readOne(body)
    const generations = spansOf(body, "generation")
    expect(generations.length).toBe(4)
    const inputs = generations.reduce((sum, span) => {
      const data = span["span_data"]
      return sum + (Predicate.isRecord(data) && Array.isArray(data["input"]) ? data["input"].length : 0)
    }, 0)
    expect(inputs).toBe(2 + 4 + 6 + 8) // the history grows with every call
    expect(trace.events.map(brief)).toEqual([
      ["system", "message", "", "You are the triage agent of ACME support. Hand billing questions to the billing agent."],
      ["user", "message", "", "Why was I charged twice on invoice INV-1042?"],
      ["Triage agent", "tool_call", "transfer_to_Billing_agent", "{}"],
      ["Triage agent", "handoff", "", "Billing agent"],
      ["system", "message", "", "You are the billing agent of ACME support. Look invoices up with lookup_invoice before answering."],
      ["transfer_to_Billing_agent", "tool_result", "transfer_to_Billing_agent", "{\"assistant\":\"Billing agent\"}"],
      ["Billing agent", "tool_call", "lookup_invoice", "{\"invoice_id\":\"INV-1O42\"}"],
      ["lookup_invoice", "tool_result", "lookup_invoice", "An error occurred while running the tool. Please try again."],
      ["lookup_invoice", "error", "lookup_invoice", "Error running tool (non-fatal)\nTool execution failed. Error details are redacted."],
      ["Billing agent", "tool_call", "lookup_invoice", "{\"invoice_id\":\"INV-1042\"}"],
      [
        "lookup_invoice",
        "tool_result",
        "lookup_invoice",
        "{\"invoice_id\":\"INV-1042\",\"amount\":\"49.00\",\"currency\":\"USD\",\"charges\":2,\"second_charge\":\"retry after gateway timeout\",\"refunded\":true}"
      ],
      [
        "Billing agent",
        "message",
        "",
        "Invoice INV-1042 was charged twice because the card payment was retried after a timeout. The duplicate charge of $49.00 has been refunded and will appear within 5 business days."
      ]
    ])
    const [first] = generations
    expect(trace.events[1]?.source).toBe(`span:${field(first, "id")}/input[1]`)
    expect(trace.events[1]?.timestamp).toBe(field(first, "started_at"))
    expect(trace.events[2]?.source).toBe(`span:${field(first, "id")}/output[0].choices[0].message.tool_calls[0]`)
    expect(trace.events[2]?.timestamp).toBe(field(first, "ended_at"))
    expect(trace.task).toBe("Why was I charged twice on invoice INV-1042?")
    expect(trace.outcome).toMatch(/^Invoice INV-1042 was charged twice/)
    expect(trace.success).toBe(true)
  })

  it("reads several trace ids as several traces; a failed run has success=false", () => {
    const body = fixture("agents-sdk-two-runs.json")
    expect(Array.isArray(body)).toBe(true)
    const traces = readAll(body)
    const ids = traceIds(body)
    expect(traces.map((trace) => trace.id)).toEqual(ids)
    const [billing, failed] = traces
    expect(billing?.agents).toEqual(["Billing agent"])
    expect(billing?.success).toBe(true)
    // each response span (ids only in the export) is a model call kept without content
    expect(billing?.events.map((event) => event.kind)).toEqual(["message", "tool_call", "tool_result", "error", "message", "tool_call", "tool_result", "message"])
    expect(failed?.success).toBe(false)
    expect(failed?.events.map((event) => [event.actor, event.kind])).toEqual([
      ["Triage agent", "error"],
      ["Triage agent", "error"]
    ])
    const agentSpan = spansOf(body, "agent", ids[1])[0]
    expect(failed?.events[1]?.source).toBe(`span:${field(agentSpan, "id")}`)
    expect(failed?.outcome).toBe("Error in agent run\nError: 400 The model `gpt-4.1-mini` does not support the requested tool_choice.")
  })

  it("orders spans by start time and reads message-list generations (the Python SDK's shape)", () => {
    const span = (id: string, parent: string | null, start: string, end: string, data: Rec) => ({
      object: "trace.span", id, trace_id: "trace_py", parent_id: parent, started_at: start, ended_at: end, span_data: data, error: null
    })
    // exported in end order (children first), times in Python's isoformat
    const trace = readOne([
      span("span_gen2", "span_agent", "2025-03-14T10:00:03.000000+00:00", "2025-03-14T10:00:04.000000+00:00", {
        type: "generation",
        input: [
          { role: "system", content: "Be brief." },
          { role: "user", content: "Weather in Oslo?" },
          { role: "assistant", tool_calls: [{ id: "c1", type: "function", function: { name: "weather", arguments: "{\"city\":\"Oslo\"}" } }] },
          { role: "tool", tool_call_id: "c1", content: "-3C, snow" }
        ],
        output: [{ role: "assistant", content: "It is -3C and snowing in Oslo." }]
      }),
      span("span_fn", "span_agent", "2025-03-14T10:00:02.000000+00:00", "2025-03-14T10:00:02.500000+00:00", { type: "function", name: "weather", input: "{\"city\":\"Oslo\"}", output: "-3C, snow" }),
      span("span_gen1", "span_agent", "2025-03-14T10:00:00.500000+00:00", "2025-03-14T10:00:01.000000+00:00", {
        type: "generation",
        input: [{ role: "system", content: "Be brief." }, { role: "user", content: "Weather in Oslo?" }],
        output: [{ role: "assistant", tool_calls: [{ id: "c1", type: "function", function: { name: "weather", arguments: "{\"city\":\"Oslo\"}" } }] }]
      }),
      span("span_agent", null, "2025-03-14T10:00:00.000000+00:00", "2025-03-14T10:00:05.000000+00:00", { type: "agent", name: "Weather bot", tools: ["weather"] }),
      { object: "trace", id: "trace_py", workflow_name: "Agent workflow", group_id: null, metadata: null }
    ])
    expect(trace.id).toBe("trace_py")
    expect(trace.events.map((event) => [...brief(event), event.source])).toEqual([
      ["system", "message", "", "Be brief.", "span:span_gen1/input[0]"],
      ["user", "message", "", "Weather in Oslo?", "span:span_gen1/input[1]"],
      ["Weather bot", "tool_call", "weather", "{\"city\":\"Oslo\"}", "span:span_gen1/output[0].tool_calls[0]"],
      ["weather", "tool_result", "weather", "-3C, snow", "span:span_fn"],
      ["Weather bot", "message", "", "It is -3C and snowing in Oslo.", "span:span_gen2/output[0]"]
    ])
    expect(trace.events[3]?.timestamp).toBe("2025-03-14T10:00:02.500000+00:00")
    expect(trace.task).toBe("Weather in Oslo?")
    expect(trace.outcome).toBe("It is -3C and snowing in Oslo.")
    expect(trace.success).toBe(true)
  })

  it("survives cycles in parent ids, missing times and malformed spans", () => {
    const trace = readOne({
      data: [
        { object: "trace.span", id: "a", trace_id: "t1", parent_id: "b", span_data: { type: "function", name: "f", input: "{}", output: "ok" }, error: null },
        { object: "trace.span", id: "b", trace_id: "t1", parent_id: "a", span_data: { type: "custom", name: "x", data: {} }, error: null },
        { object: "trace.span", id: "c", trace_id: "t1", parent_id: "c", span_data: { type: "handoff", from_agent: "A", to_agent: "B" }, error: null },
        { object: "trace.span", id: "d", trace_id: "t1", parent_id: null, span_data: "garbage" },
        { object: "trace.span", id: "e", trace_id: "t1", parent_id: "nowhere", span_data: { type: "guardrail", name: "no_pii", triggered: true } },
        42
      ]
    })
    expect(trace.events.map(brief)).toEqual([
      ["assistant", "tool_call", "f", "{}"],
      ["f", "tool_result", "f", "ok"],
      ["A", "handoff", "", "B"],
      ["assistant", "error", "no_pii", "no_pii"]
    ])
    expect(trace.skipped).toBe(3) // the custom span, the garbage span, the number
  })

  it("gives a clear Left for an export without readable spans", () => {
    expect(failure({ data: [] })).toMatch(/^openai: .*empty/)
    expect(failure([{ object: "trace", id: "trace_1", workflow_name: "w", group_id: null, metadata: {} }])).toMatch(/no readable spans/)
  })
})

describe("openai importer: malformed input", () => {
  it("never throws, counts what it cannot read, and keeps unknown tool call ids", () => {
    const trace = readOne({
      messages: [
        { role: "user", content: 42 },
        { role: "user", content: { weird: true } },
        null,
        "not a message",
        { role: "narrator", content: "?" },
        { role: "assistant", content: [{ type: "text", text: "ok" }, { type: "input_audio", input_audio: {} }, { type: "mystery" }] },
        { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: { a: 1 } } }, "bad"] },
        { role: "tool", tool_call_id: "unknown-id", content: "orphan result" }
      ]
    })
    expect(trace.events.map(brief)).toEqual([
      ["user", "message", "", "42"],
      ["assistant", "message", "", "ok"],
      ["assistant", "tool_call", "f", "{\"a\":1}"],
      ["tool", "tool_result", "", "orphan result"]
    ])
    expect(trace.events[3]?.tool).toBeUndefined()
    // the object content, null, the string, the unknown role, two unknown parts, the bad tool call
    expect(trace.skipped).toBe(7)
  })

  it("answers a Left with a clear message for empty or unreadable bodies", () => {
    expect(failure([])).toBe("openai: the body is an empty list: no messages, items or spans to read")
    expect(failure({ messages: [] })).toMatch(/^openai: no readable messages/)
    expect(failure(null)).toMatch(/^openai: expected/)
    expect(failure({ hello: "world" })).toMatch(/^openai: expected/)
    expect(failure([{ role: "assistant", content: null }])).toMatch(/1 records skipped/)
  })

  it("does not recurse into deeply nested request / response pairs", () => {
    let nested: unknown = { messages: [{ role: "user", content: "deep" }] }
    for (let i = 0; i < 20_000; i++) nested = i % 2 === 0 ? { request: nested } : { response: nested }
    expect(() => openAiImporter.detect(nested)).not.toThrow()
    expect(failure(nested)).toMatch(/^openai: no readable messages/)
    const shallow = readOne({ request: { request: { messages: [{ role: "user", content: "two levels" }] } } })
    expect(shallow.events.map((event) => event.source)).toEqual(["request.request.messages[0]"])
  })

  it("never throws on any JSON value, and detect never throws", () => {
    neverThrowsOnJson(openAiImporter, { nonEmptyTraces: true })
    fc.assert(
      fc.property(
        fc.array(fc.record({ role: fc.constantFrom("user", "assistant", "tool", "system"), content: fc.jsonValue(), tool_calls: fc.jsonValue(), tool_call_id: fc.jsonValue() }), { maxLength: 8 }),
        (messages) => {
          openAiImporter.detect({ messages })
          openAiImporter.read({ messages })
          openAiImporter.read(messages)
        }
      ),
      { numRuns: 200 }
    )
  })
})

describe("openai importer: detect", () => {
  it("recognises its own fixtures and Chat / Responses / Agents SDK shapes", () => {
    for (const name of fixtureNames("openai")) expect([name, openAiImporter.detect(fixture(name))]).toEqual([name, true])
    expect(openAiImporter.detect([{ role: "user", content: "hi" }, { role: "assistant", content: "hello" }])).toBe(true)
    expect(openAiImporter.detect({ messages: [{ role: "user", content: "hi" }] })).toBe(true)
    expect(openAiImporter.detect([{ type: "function_call", name: "f", arguments: "{}", call_id: "c" }])).toBe(true)
    expect(openAiImporter.detect({ object: "trace.span", id: "s", trace_id: "t", span_data: { type: "agent", name: "a" } })).toBe(true)
  })

  it("leaves other formats alone", () => {
    for (const name of fixtureNames("anthropic")) {
      expect([name, openAiImporter.detect(anthropicFixture(name))]).toEqual([name, false])
    }
    for (const body of [
      {},
      [],
      null,
      42,
      "text",
      { steps: [{ agent: "a", action: "x" }] },
      { agents: ["a"], messages: [{ from: "a", content: "x" }] },
      { messages: [{ from: "a", content: "x" }] },
      { resourceSpans: [] },
      { resourceLogs: [] },
      { system: "s", messages: [{ role: "user", content: "x" }] },
      { post: [], patch: [] },
      [{ source: "user", content: "x", type: "TextMessage" }]
    ]) {
      expect([body, openAiImporter.detect(body)]).toEqual([body, false])
    }
  })

  it("claims the ambiguous bare {role, content} list, which anthropic leaves", () => {
    const list = [{ role: "user", content: "hi" }, { role: "assistant", content: "hello" }]
    expect(openAiImporter.detect(list)).toBe(true)
    expect(anthropicImporter.detect(list)).toBe(false)
  })
})

describe("openai importer: an Agents SDK RunState (a paused run)", () => {
  it("reads the input, then the generated items by agent; the pending approval repeats a call and is skipped; the trace id from the state", () => {
    const trace = readOne(fixture("run-state-v1_13_pending_tool_approval.json"))
    expect(trace.id).toBe("trace_179a5e809d614cf89ac5a1f24b415704")
    expect(trace.task).toBe("historical input")
    expect(trace.events.map((event) => [event.actor, event.kind, event.tool ?? "", event.content, event.source])).toEqual([
      ["user", "message", "", "historical input", "original_input"],
      ["compat-agent", "tool_call", "historical_approval", "{\"account_id\":\"account-1\"}", "generated_items[0].raw_item"]
    ])
    expect(trace.skipped).toBe(1)
  })

  it("a custom tool call and its output; history the run owns, carried in its input, read once", () => {
    const custom = readOne(fixture("run-state-v1_9_custom_tool_call_and_tool_origin.json"))
    expect(custom.events.map((event) => [event.actor, event.kind, event.tool ?? "", event.content])).toEqual([
      ["user", "message", "", "historical input"],
      ["compat-agent", "tool_call", "custom_lookup", "account-1"],
      ["custom_lookup", "tool_result", "custom_lookup", "custom result"]
    ])
    const owned = readOne(fixture("run-state-v1_13_nested_history_ownership.json"))
    expect(owned.events.map((event) => [event.actor, event.content, event.source])).toEqual([["compat-agent", "owned history", "generated_items[0].raw_item"]])
    expect(owned.skipped).toBe(1)
    expect(owned.task).toBe("")
  })

  it("is detected as openai, and a handoff item is a handoff", () => {
    const state: Rec = {
      $schemaVersion: "1.13",
      original_input: "Refund my last invoice.",
      generated_items: [
        { type: "handoff_call_item", agent: { name: "triage" }, raw_item: { type: "function_call", call_id: "c1", name: "transfer_to_billing", arguments: "{}" } },
        { type: "handoff_output_item", agent: { name: "triage" }, source_agent: { name: "triage" }, target_agent: { name: "billing" }, raw_item: { type: "function_call_output", call_id: "c1", output: "{\"assistant\": \"billing\"}" } },
        { type: "message_output_item", agent: { name: "billing" }, raw_item: { type: "message", role: "assistant", content: [{ type: "output_text", text: "Refunded." }] } }
      ]
    }
    expect(openAiImporter.detect(state)).toBe(true)
    expect(readOne(state).events.map((event) => [event.actor, event.kind, event.to ?? ""])).toEqual([
      ["user", "message", ""],
      ["triage", "tool_call", ""],
      ["triage", "handoff", "billing"],
      ["billing", "message", ""]
    ])
  })
})
