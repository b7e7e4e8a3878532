/**
 * The `anthropic` importer (DECISIONS §12) on its fixtures: Messages API requests, responses and
 * lists of calls, hand-written from the Messages API reference shapes, and Managed Agents session
 * recordings from the LangSmith JS SDK's test data (see test/fixtures/traces/anthropic/README.md):
 * exact events and counts, task, outcome and trace id, sent events read once, sources that point
 * back into the file, and detection against every other format.
 */
import { Predicate } from "effect"
import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { anthropicImporter } from "../../src/Traces/Formats/Anthropic.js"
import { openAiImporter } from "../../src/Traces/Formats/OpenAI.js"
import type { NormalizedTrace } from "../../src/Traces/Model.js"
import {
  brief as fullBrief,
  type Counts,
  countsOf,
  detectionBothWays,
  expectNoDuplicates,
  fixtureIn,
  fixtureNames,
  neverThrowsOnJson,
  readersOf,
  shortBrief as brief
} from "./support.js"

const fixture = fixtureIn("anthropic")
const openAiFixture = fixtureIn("openai")
const { readAll, readOne, failure } = readersOf(anthropicImporter)
/** The folder's fixtures, JSON and JSON Lines. */
const OWN_FIXTURES = fixtureNames("anthropic", [".json", ".jsonl"])

describe("anthropic importer: Messages API", () => {
  it("reads a request with system blocks, thinking, parallel tool use, an error result, and its response", () => {
    const trace = readOne(fixture("request-tool-use.json"))
    expect(trace.events.map((event) => [...brief(event), event.source])).toEqual([
      ["system", "message", "", "You are an on-call assistant for the payments service. Use the tools to check facts before answering.", "system[0]"],
      ["user", "message", "", "Checkout latency alerts fired at 14:02. Is it the database?", "messages[0]"],
      ["assistant", "thought", "", "The alert could come from the database or from the card gateway. I should look at both latencies.", "messages[1].content[0]"],
      ["assistant", "message", "", "Let me compare database and gateway latency around 14:02.", "messages[1].content[1]"],
      ["assistant", "tool_call", "query_metrics", "{\"metric\":\"db.query.p99\",\"window\":\"13:50-14:15\"}", "messages[1].content[2]"],
      ["assistant", "tool_call", "query_metrics", "{\"metric\":\"gateway.latency.p99\",\"window\":\"13:50-14:15\"}", "messages[1].content[3]"],
      ["query_metrics", "tool_result", "query_metrics", "db.query.p99 stayed between 11 ms and 14 ms.", "messages[2].content[0]"],
      ["query_metrics", "error", "query_metrics", "metric gateway.latency.p99 is not exported in this region", "messages[2].content[1]"],
      ["assistant", "message", "", "The database looks healthy. The gateway metric is missing here, so I'll check the runbook.", "messages[3].content[0]"],
      ["assistant", "tool_call", "read_runbook", "{\"page\":\"checkout-latency\"}", "messages[3].content[1]"],
      [
        "read_runbook",
        "tool_result",
        "read_runbook",
        "Checkout latency: 1. Check the card gateway status page. 2. If degraded, enable the fallback acquirer.",
        "messages[4].content[0]"
      ],
      ["user", "message", "", "Also: the gateway status page says degraded since 13:58.", "messages[4].content[1]"],
      [
        "assistant",
        "thought",
        "",
        "The runbook says to enable the fallback acquirer when the gateway is degraded, and the user confirmed it is.",
        "response.content[0]"
      ],
      [
        "assistant",
        "message",
        "",
        "It is not the database: db p99 stayed at 11-14 ms. The card gateway has been degraded since 13:58, so per the runbook, enable the fallback acquirer.",
        "response.content[1]"
      ]
    ])
    expect(trace.events.map((event) => event.role)).toEqual([
      "system", "user", "agent", "agent", "agent", "agent", "tool", "tool", "agent", "agent", "tool", "user", "agent", "agent"
    ])
    expect(trace.skipped).toBe(1) // the image inside the runbook's tool_result
    expect(trace.id).toBe("msg_01XFDUDYJgAACzvnptvVoYEL")
    expect(trace.task).toBe("Checkout latency alerts fired at 14:02. Is it the database?")
    expect(trace.outcome).toMatch(/^It is not the database/)
    expect(trace.success).toBeNull()
    expect(trace.agents).toEqual(["assistant"])
  })

  it("reads a single response message; redacted thinking is skipped and counted", () => {
    const trace = readOne(fixture("response-message.json"))
    expect(trace.id).toBe("msg_013Zva2CMHLNnXjNJJKqJ2EF")
    expect(trace.events.map((event) => [...brief(event), event.source])).toEqual([
      ["assistant", "thought", "", "The user wants the weather in San Francisco. I'll call get_weather with the city.", "content[0]"],
      ["assistant", "message", "", "I'll check the current weather in San Francisco for you.", "content[2]"],
      ["assistant", "tool_call", "get_weather", "{\"location\":\"San Francisco, CA\",\"unit\":\"celsius\"}", "content[3]"]
    ])
    expect(trace.skipped).toBe(1)
  })

  it("takes the task from the user's input only: a single response holds none, so it is empty", () => {
    // Before: the first non-empty event, the model's own thinking.
    expect(readOne(fixture("response-message.json")).task).toBe("")
    const toolOnly = readOne({ type: "message", role: "assistant", content: [{ type: "tool_use", id: "t1", name: "search", input: { q: "weather" } }], stop_reason: "tool_use" })
    expect(toolOnly.task).toBe("")
    const systemOnly = readOne({ system: "You are a weather assistant.", messages: [{ role: "assistant", content: "Hello." }] })
    expect(systemOnly.task).toBe("")
    const asked = readOne({ request: { system: "You are a weather assistant.", messages: [{ role: "user", content: "Weather in Paris?" }] }, response: { type: "message", role: "assistant", content: [{ type: "text", text: "Sunny." }] } })
    expect(asked.task).toBe("Weather in Paris?")
  })

  it("keeps a tool called again with the same arguments in a later call's response, and the history once", () => {
    const ask = { role: "user", content: "Is the deploy done?" }
    const check = { type: "tool_use", id: "t1", name: "deploy_status", input: { id: 42 } }
    const checkAgain = { ...check, id: "t2" }
    const pending = { type: "tool_result", tool_use_id: "t1", content: "pending" }
    const trace = readOne([
      { request: { messages: [ask] }, response: { type: "message", role: "assistant", content: [check] } },
      { request: { messages: [ask, { role: "assistant", content: [check] }, { role: "user", content: [pending] }] }, response: { type: "message", role: "assistant", content: [checkAgain] } }
    ])
    expect(trace.events.map((event) => [event.kind, event.content, event.source])).toEqual([
      ["message", "Is the deploy done?", "[0].request.messages[0]"],
      ["tool_call", "{\"id\":42}", "[0].response.content[0]"],
      ["tool_result", "pending", "[1].request.messages[2].content[0]"],
      ["tool_call", "{\"id\":42}", "[1].response.content[0]"]
    ])
    // Two independent calls (each a fresh conversation, as a sub-agent's): each response's call is
    // the model's own output, kept; the repeated input is history, read once.
    const independent = readOne([
      { request: { messages: [ask] }, response: { type: "message", role: "assistant", content: [check] } },
      { request: { messages: [ask] }, response: { type: "message", role: "assistant", content: [checkAgain] } }
    ])
    expect(independent.events.map((event) => [event.kind, event.source])).toEqual([
      ["message", "[0].request.messages[0]"],
      ["tool_call", "[0].response.content[0]"],
      ["tool_call", "[1].response.content[0]"]
    ])
  })

  it("de-duplicates a list of request bodies that each carry the whole conversation", () => {
    const body = fixture("requests-history.json")
    const trace = readOne(body)
    const sent = (Array.isArray(body) ? body : []).filter(Predicate.isRecord).reduce((sum, request) => {
      const messages = request["messages"]
      return sum + (Array.isArray(messages) ? messages.length : 0)
    }, 0)
    expect(sent).toBe(1 + 3 + 5 + 7)
    expect(trace.events.map(brief)).toEqual([
      ["system", "message", "", "You are a coding agent. Fix the failing test with the fewest changes."],
      ["user", "message", "", "tests/test_dates.py::test_leap_year fails. Please fix it."],
      ["assistant", "message", "", "I'll run the failing test first."],
      ["assistant", "tool_call", "run_tests", "{\"path\":\"tests/test_dates.py\"}"],
      ["run_tests", "tool_result", "run_tests", "FAILED tests/test_dates.py::test_leap_year - assert is_leap(1900) is False"],
      ["assistant", "thought", "", "1900 is divisible by 100 but not by 400, so it is not a leap year. is_leap must be missing the century rule."],
      ["assistant", "tool_call", "edit_file", "{\"path\":\"dates.py\",\"old\":\"return year % 4 == 0\",\"new\":\"return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)\"}"],
      ["edit_file", "tool_result", "edit_file", "edited dates.py (1 replacement)"],
      ["assistant", "tool_call", "run_tests", "{\"path\":\"tests/test_dates.py\"}"],
      ["run_tests", "tool_result", "run_tests", "4 passed in 0.03s"]
    ])
    // every event at its first occurrence
    expect(trace.events.map((event) => event.source)).toEqual([
      "[0].system",
      "[0].messages[0]",
      "[1].messages[1].content[0]",
      "[1].messages[1].content[1]",
      "[1].messages[2].content[0]",
      "[2].messages[3].content[0]",
      "[2].messages[3].content[1]",
      "[2].messages[4].content[0]",
      "[3].messages[5].content[0]",
      "[3].messages[6].content[0]"
    ])
    expect(trace.id).toBeNull()
  })

  it("reads server tools: web search calls, results without encrypted content, and a search error", () => {
    const trace = readOne(fixture("server-tools.json"))
    expect(trace.events.map(brief)).toEqual([
      ["system", "message", "", "You are a research assistant. Cite your sources."],
      ["user", "message", "", "When does the Artemis II mission launch, and does that clash with our launch?"],
      ["assistant", "tool_call", "web_search", "{\"query\":\"Artemis II launch date\"}"],
      [
        "web_search",
        "tool_result",
        "web_search",
        "[{\"type\":\"web_search_result\",\"url\":\"https://www.nasa.gov/mission/artemis-ii/\",\"title\":\"Artemis II - NASA\",\"page_age\":\"April 30, 2025\"}]"
      ],
      ["assistant", "message", "", "NASA targets Artemis II for early 2026, so it does not clash with a November launch."],
      ["assistant", "tool_call", "web_search", "{\"query\":\"Artemis II launch window update\"}"],
      ["web_search", "error", "web_search", "max_uses_exceeded"]
    ])
    expect(trace.events.map((event) => event.source)).toContain("messages[1].content[4]")
    expect(trace.skipped).toBe(2) // the document block and the unknown block type
  })

  it("reads an error response as an error event and success=false", () => {
    const trace = readOne(fixture("exchange-error.json"))
    expect(trace.events.map((event) => [...brief(event), event.source])).toEqual([
      ["system", "message", "", "You are a helpful assistant.", "request.system"],
      ["user", "message", "", "Summarize the incident report in three bullet points.", "request.messages[0].content[0]"],
      ["assistant", "error", "", "Overloaded", "response.error"]
    ])
    expect(trace.success).toBe(false)
    expect(trace.outcome).toBe("Overloaded")
  })

  it("reads a plain message list with list sources", () => {
    const trace = readOne([
      { role: "user", content: "hi" },
      { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "lookup", input: {} }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t1" }] }
    ])
    expect(trace.events.map((event) => [...brief(event), event.source])).toEqual([
      ["user", "message", "", "hi", "[0]"],
      ["assistant", "tool_call", "lookup", "{}", "[1].content[0]"],
      ["lookup", "tool_result", "lookup", "", "[2].content[0]"]
    ])
  })
})

describe("anthropic importer: malformed input", () => {
  it("never throws, counts unreadable blocks, and keeps results of unknown tool ids", () => {
    const trace = readOne({
      system: 42,
      messages: [
        { role: "user", content: 7 },
        { role: "user", content: [{ type: "text", text: 9 }, "loose string", null, { type: "hologram" }, { type: "image", source: { type: "url", url: "x" } }] },
        { role: "wizard", content: "?" },
        null,
        { role: "assistant", content: [{ type: "tool_use", name: "no_id", input: { a: [1, 2] } }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "never-called", content: [{ type: "text", text: "orphan" }, { type: "image" }], is_error: true }] }
      ]
    })
    expect(trace.events.map(brief)).toEqual([
      ["user", "message", "", "loose string"],
      ["assistant", "tool_call", "no_id", "{\"a\":[1,2]}"],
      ["tool", "error", "", "orphan"]
    ])
    expect(trace.events[2]?.tool).toBeUndefined()
    // content 7, text 9, null, hologram, image, the wizard, null message, the image in the result
    expect(trace.skipped).toBe(8)
  })

  it("answers a Left with a clear message for empty or unreadable bodies", () => {
    expect(failure([])).toBe("anthropic: the body is an empty list: no messages to read")
    expect(failure({ messages: [] })).toMatch(/^anthropic: no readable messages/)
    expect(failure("text")).toMatch(/^anthropic: expected/)
    expect(failure({ hello: "world" })).toMatch(/^anthropic: expected/)
    expect(failure([{ role: "assistant", content: [{ type: "redacted_thinking", data: "x" }] }])).toMatch(/1 records skipped/)
  })

  it("does not recurse into deeply nested request / response pairs", () => {
    let nested: unknown = { system: "s", messages: [{ role: "user", content: [{ type: "tool_result", tool_use_id: "x", content: "deep" }] }] }
    for (let i = 0; i < 20_000; i++) nested = { request: nested }
    expect(() => anthropicImporter.detect(nested)).not.toThrow()
    expect(failure(nested)).toMatch(/^anthropic: no readable messages/)
  })

  it("never throws on any JSON value, and detect never throws", () => {
    neverThrowsOnJson(anthropicImporter, { nonEmptyTraces: true })
    const block = fc.record({
      type: fc.constantFrom("text", "thinking", "tool_use", "tool_result", "web_search_tool_result", "image", "x"),
      text: fc.jsonValue(),
      input: fc.jsonValue(),
      content: fc.jsonValue(),
      id: fc.jsonValue(),
      tool_use_id: fc.jsonValue()
    })
    fc.assert(
      fc.property(fc.array(fc.record({ role: fc.constantFrom("user", "assistant"), content: fc.oneof(fc.string(), fc.array(block, { maxLength: 4 })) }), { maxLength: 6 }), (messages) => {
        anthropicImporter.detect({ system: "s", messages })
        anthropicImporter.read({ system: "s", messages })
        anthropicImporter.read(messages)
      }),
      { numRuns: 200 }
    )
  })
})

describe("anthropic importer: detect", () => {
  it("recognises its own fixtures and Anthropic-only shapes", () => {
    for (const name of OWN_FIXTURES) expect([name, anthropicImporter.detect(fixture(name))]).toEqual([name, true])
    expect(anthropicImporter.detect({ type: "message", role: "assistant", content: [{ type: "text", text: "hi" }], stop_reason: "end_turn" })).toBe(true)
    expect(anthropicImporter.detect({ system: "s", messages: [{ role: "user", content: "hi" }] })).toBe(true)
    expect(anthropicImporter.detect([{ role: "assistant", content: [{ type: "text", text: "a" }, { type: "tool_use", id: "t", name: "f", input: {} }] }])).toBe(true)
  })

  it("leaves other formats alone", () => {
    for (const name of fixtureNames("openai")) {
      expect([name, anthropicImporter.detect(openAiFixture(name))]).toEqual([name, false])
    }
    for (const body of [
      {},
      [],
      null,
      true,
      { steps: [{ agent: "a" }] },
      { agents: ["a"], messages: [{ from: "a", content: "x" }] },
      { resourceSpans: [] },
      [{ role: "user", content: "hi" }, { role: "assistant", content: "hello" }],
      { messages: [{ role: "user", content: [{ type: "text", text: "OpenAI parts look the same" }] }] },
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "a Responses item" }] }
    ]) {
      expect([body, anthropicImporter.detect(body)]).toEqual([body, false])
    }
  })

  it("is never claimed by openai when it has an Anthropic marker", () => {
    for (const name of OWN_FIXTURES) expect([name, openAiImporter.detect(fixture(name))]).toEqual([name, false])
  })
})

// ---------------------------------------------------------------------------------------------
// Managed Agents sessions (JSON Lines of `[method, payload]`, as the LangSmith JS SDK records them)

/** The value a source pointer (`lines[4]`, `lines[0][1].agent.system`, `lines[1][1][1].events[0]`) names in the records. */
const pointed = (records: unknown, source: string): unknown => {
  const steps = /^lines((?:\[\d+\]|\.\w+)*)$/.exec(source)?.[1]
  if (steps === undefined) return expect.fail(`not a lines pointer: ${source}`)
  let value: unknown = records
  for (const [, index, key] of steps.matchAll(/\[(\d+)\]|\.(\w+)/g)) {
    if (index !== undefined && Array.isArray(value)) value = value[Number(index)]
    else if (key !== undefined && Predicate.isRecord(value)) value = value[key]
    else return expect.fail(`${source} leads nowhere`)
  }
  return value
}

/**
 * Every event's source names a value of the file that holds its content: a tool call's input as
 * JSON, else the content's last characters (a denial's reason), and, for a streamed event, its time.
 */
const expectSourcesPointBack = (records: unknown, trace: NormalizedTrace): void => {
  for (const event of trace.events) {
    const pointee = pointed(records, event.source)
    // `lines[i]` is the recorded call `[method, event]`: its event
    const value = Array.isArray(pointee) && typeof pointee[0] === "string" ? pointee[1] : pointee
    if (event.kind === "tool_call") {
      expect([event.source, Predicate.isRecord(value) ? JSON.stringify(value["input"]) : value]).toEqual([event.source, event.content])
      continue
    }
    const tail = Array.from(event.content).slice(-30).join("")
    expect([event.source, JSON.stringify(value).includes(JSON.stringify(tail).slice(1, -1))]).toEqual([event.source, true])
    if (Predicate.isRecord(value) && "processed_at" in value) expect(event.timestamp).toBe(value["processed_at"])
  }
}

const MANAGED: ReadonlyArray<readonly [string, string, Counts]> = [
  ["managed-builtin-tools.jsonl", "sesn_01UunETy25dNCWyPpkXe27t5", { messages: 3, toolCalls: 1, withArguments: 1, toolResults: 1, errors: 0, agents: 1, handoffs: 0, thoughts: 0, skipped: 9 }],
  ["managed-custom-tools.jsonl", "sesn_014fc5Q6rWwrXD3vWBfPRUes", { messages: 3, toolCalls: 1, withArguments: 1, toolResults: 1, errors: 0, agents: 1, handoffs: 0, thoughts: 0, skipped: 14 }],
  ["managed-mcp-tools.jsonl", "sesn_01FYL2vWeckHzjuCjjpAudtE", { messages: 3, toolCalls: 1, withArguments: 1, toolResults: 1, errors: 0, agents: 1, handoffs: 0, thoughts: 0, skipped: 17 }],
  ["managed-mcp-tools-reject.jsonl", "sesn_01KW5vhbxfVqMHgLH2dWKbJG", { messages: 6, toolCalls: 2, withArguments: 2, toolResults: 1, errors: 1, agents: 1, handoffs: 0, thoughts: 0, skipped: 17 }]
]

const QUESTION = "How many stars does langchain-ai/langsmith-sdk have? Use MCP and Exa"

describe("anthropic importer: Managed Agents sessions (LangSmith JS SDK recordings)", () => {
  it.each(MANAGED)("%s: one trace, the session id, exact counts, no duplicate events, sources that point back", (name, id, counts) => {
    const records = fixture(name)
    const trace = readOne(records)
    expect(trace.id).toBe(id)
    expect(countsOf(trace)).toEqual(counts)
    expectNoDuplicates(trace)
    expectSourcesPointBack(records, trace)
  })

  it("reads built-in tools: the agent's system prompt first, the user's message once (sent, then echoed), bash and its result", () => {
    const trace = readOne(fixture("managed-builtin-tools.jsonl"))
    expect(trace.events.map(fullBrief)).toEqual([
      ["system", "system", "message", "", "You are a helpful coding assistant. Write clean, well-documented code.", "lines[0][1].agent.system"],
      ["user", "user", "message", "", "Call 'date' to get the current date time", "lines[4]"],
      ["Coding Assistant", "agent", "tool_call", "bash", "{\"command\":\"date\"}", "lines[6]"],
      ["bash", "tool", "tool_result", "bash", "Mon Jul  6 16:26:37 UTC 2026\n", "lines[8]"],
      ["Coding Assistant", "agent", "message", "", "The current date and time is:\n\n**Monday, July 6, 2026, 16:26:37 UTC**", "lines[10]"]
    ])
    expect(trace.events.map((event) => event.timestamp)).toEqual([
      "2026-07-06T16:26:33.279196Z",
      "2026-07-06T16:26:34.516296Z",
      "2026-07-06T16:26:35.886686Z",
      "2026-07-06T16:26:38.120281Z",
      "2026-07-06T16:26:39.707779Z"
    ])
    expect(trace.task).toBe("Call 'date' to get the current date time")
    expect(trace.outcome).toBe("The current date and time is:\n\n**Monday, July 6, 2026, 16:26:37 UTC**")
    expect(trace.success).toBeNull()
    expect(trace.agents).toEqual(["Coding Assistant"])
  })

  it("reads a custom tool: the call, and the client's result once (sent, then echoed), by the tool's name", () => {
    const trace = readOne(fixture("managed-custom-tools.jsonl"))
    expect(trace.events.map(fullBrief)).toEqual([
      ["system", "system", "message", "", "You are a helpful coding assistant. Write clean, well-documented code.", "lines[0][1].agent.system"],
      ["user", "user", "message", "", "What's the weather in Prague?", "lines[4]"],
      ["Coding Assistant", "agent", "tool_call", "get_weather", "{\"location\":\"Prague\"}", "lines[6]"],
      ["get_weather", "tool", "tool_result", "get_weather", "It's 23°C and sunny in Prague.", "lines[11]"],
      ["Coding Assistant", "agent", "message", "", "It's currently **23°C and sunny** in Prague — a nice, warm day overall!", "lines[15]"]
    ])
    expect(trace.task).toBe("What's the weather in Prague?")
    expect(trace.outcome).toBe("It's currently **23°C and sunny** in Prague — a nice, warm day overall!")
  })

  it("reads an MCP tool: an allowed confirmation adds nothing, thinking without text is skipped", () => {
    const trace = readOne(fixture("managed-mcp-tools.jsonl"))
    expect(trace.events.map((event) => [event.actor, event.kind, event.tool ?? "", event.source])).toEqual([
      ["system", "message", "", "lines[0][1].agent.system"],
      ["user", "message", "", "lines[4]"],
      ["Exa assistant", "tool_call", "web_search_exa", "lines[7]"],
      ["web_search_exa", "tool_result", "web_search_exa", "lines[15]"],
      ["Exa assistant", "message", "", "lines[18]"]
    ])
    expect(trace.events[2]?.content).toBe("{\"numResults\":5,\"query\":\"langchain-ai/langsmith-sdk GitHub repository stars\"}")
    expect(trace.events[3]?.content).toMatch(/^Title: langchain-ai\/langsmith-sdk - GitHub\n/)
    expect(trace.events[3]?.content).toContain("- Stars: 917")
    expect(trace.task).toBe(QUESTION)
    expect(trace.outcome).toMatch(/^The \*\*langchain-ai\/langsmith-sdk\*\* repository has approximately \*\*936 stars\*\*/)
    expect(trace.agents).toEqual(["Exa assistant"])
  })

  it("reads a denied MCP call as the user's message to the agent, the rejection as the tool's error, and the fetched page as text", () => {
    const trace = readOne(fixture("managed-mcp-tools-reject.jsonl"))
    expect(trace.events.map((event) => [event.actor, event.role, event.kind, event.tool ?? "", event.to ?? "", event.source])).toEqual([
      ["system", "system", "message", "", "", "lines[0][1].agent.system"],
      ["user", "user", "message", "", "", "lines[4]"],
      ["Exa assistant", "agent", "message", "", "", "lines[6]"],
      ["Exa assistant", "agent", "tool_call", "web_search_exa", "", "lines[7]"],
      ["user", "user", "message", "", "Exa assistant", "lines[12]"],
      ["web_search_exa", "tool", "error", "web_search_exa", "", "lines[15]"],
      ["Exa assistant", "agent", "message", "", "", "lines[18]"],
      ["Exa assistant", "agent", "tool_call", "web_fetch", "", "lines[19]"],
      ["web_fetch", "tool", "tool_result", "web_fetch", "", "lines[21]"],
      ["Exa assistant", "agent", "message", "", "", "lines[23]"]
    ])
    expect(trace.events[4]?.content).toBe("Denied web_search_exa: This tool is not allowed in this demo.")
    expect(trace.events[5]?.content).toBe("Permission to use mcp__exa__web_search_exa has been rejected. Rejection message: This tool is not allowed in this demo.")
    // web_fetch answers with a document whose source is the page as text
    expect(trace.events[8]?.content).toMatch(/^---\nmeta-analytics-location: /)
    expect(trace.events[8]?.content.length).toBe(25170)
    expect(trace.task).toBe(QUESTION)
    expect(trace.outcome).toMatch(/^The \*\*langchain-ai\/langsmith-sdk\*\* repository has \*\*894 stars\*\*/)
    expect(trace.success).toBeNull()
  })

  const created = (id: string, name?: string) => ["client.beta.sessions.create", { id, type: "session", agent: { name, system: "Be brief.", tools: [] }, created_at: "2026-07-06T10:00:00Z" }]
  const sent = (id: string, ...events: ReadonlyArray<unknown>) => ["client.beta.sessions.events.send", [id, { events }]]
  const streamed = (event: object) => ["client.beta.sessions.events.stream", event]
  const say = (text: string) => ({ type: "user.message", content: [{ type: "text", text }] })

  it("reads a sent event the stream never echoes where it was sent, and a replayed event id once", () => {
    const answer = { id: "sevt_2", type: "agent.message", processed_at: "2026-07-06T10:00:02Z", content: [{ type: "text", text: "Done." }] }
    const trace = readOne([
      created("sesn_1"),
      sent("sesn_1", say("Tidy the repo.")),
      streamed(answer),
      streamed(answer),
      streamed({ id: "sevt_3", type: "agent.thinking", processed_at: "2026-07-06T10:00:03Z", thinking: "Nothing left to do." })
    ])
    expect(trace.events.map(fullBrief)).toEqual([
      ["system", "system", "message", "", "Be brief.", "lines[0][1].agent.system"],
      ["user", "user", "message", "", "Tidy the repo.", "lines[1][1][1].events[0]"],
      ["agent", "agent", "message", "", "Done.", "lines[2]"],
      ["agent", "agent", "thought", "", "Nothing left to do.", "lines[4]"]
    ])
    expect(trace.events[1]?.timestamp).toBeUndefined()
    expect(trace.skipped).toBe(1) // the replayed event
    expect(trace.task).toBe("Tidy the repo.")
  })

  it("reads session errors (success false unless retried), interrupts and termination", () => {
    const retried = readOne([
      created("sesn_1", "Fixer"),
      streamed({ id: "e1", type: "user.message", processed_at: "t1", content: [{ type: "text", text: "Fix it." }] }),
      streamed({ id: "e2", type: "session.error", processed_at: "t2", error: { type: "model_overloaded_error", message: "Overloaded", retry_status: { type: "retrying" } } }),
      streamed({ id: "e3", type: "agent.message", processed_at: "t3", content: [{ type: "text", text: "Fixed." }] })
    ])
    expect(retried.events.map(brief)).toEqual([
      ["system", "message", "", "Be brief."],
      ["user", "message", "", "Fix it."],
      ["Fixer", "error", "", "Overloaded"],
      ["Fixer", "message", "", "Fixed."]
    ])
    expect([retried.success, retried.outcome]).toEqual([null, "Fixed."])
    const failed = readOne([
      created("sesn_2"),
      streamed({ id: "e1", type: "session.error", processed_at: "t1", error: { type: "model_request_failed_error", message: "Bad request", retry_status: { type: "terminal" } } }),
      streamed({ id: "e2", type: "session.status_terminated", processed_at: "t2" })
    ])
    expect([failed.success, failed.outcome, failed.task, failed.skipped]).toEqual([false, "Bad request", "", 1])
    const interrupted = readOne([created("sesn_3"), sent("sesn_3", say("Go.")), sent("sesn_3", { type: "user.interrupt" })])
    expect(interrupted.events.map(brief).slice(1)).toEqual([["user", "message", "", "Go."], ["user", "error", "", "interrupted by the user"]])
    expect(interrupted.outcome).toBe("interrupted by the user")
  })

  it("reads one trace per session, and counts other methods and malformed records", () => {
    const traces = readAll([
      created("sesn_a", "A"),
      sent("sesn_a", say("first")),
      ["client.beta.sessions.retrieve", { id: "sesn_a" }],
      created("sesn_b", "B"),
      sent("sesn_b", say("second")),
      streamed({ id: "x1", type: "agent.message", processed_at: "t", content: [{ type: "text", text: "to B" }] }),
      ["client.beta.sessions.events.stream"],
      "not a call"
    ])
    expect(traces.map((trace) => [trace.id, trace.task, trace.agents, trace.events.length, trace.skipped])).toEqual([
      ["sesn_a", "first", [], 2, 1],
      ["sesn_b", "second", ["B"], 3, 2]
    ])
    expect(failure([["client.beta.sessions.events.stream", { id: "s", type: "session.status_running" }]])).toBe(
      "anthropic: the Managed Agents recording holds no messages, tool calls or errors (1 records skipped)"
    )
  })

  it("never throws on records shaped like calls", () => {
    const call = fc.tuple(
      fc.constantFrom("client.beta.sessions.create", "client.beta.sessions.events.send", "client.beta.sessions.events.stream", "client.beta.sessions.retrieve"),
      fc.oneof(
        fc.jsonValue(),
        fc.record({ id: fc.jsonValue(), type: fc.constantFrom("user.message", "agent.message", "agent.tool_use", "agent.tool_result", "user.tool_confirmation", "session.error"), content: fc.jsonValue(), input: fc.jsonValue(), tool_use_id: fc.jsonValue(), error: fc.jsonValue(), agent: fc.jsonValue() }),
        fc.tuple(fc.jsonValue(), fc.record({ events: fc.jsonValue() }))
      )
    )
    fc.assert(
      fc.property(fc.array(call, { maxLength: 8 }), (records) => {
        anthropicImporter.detect(records)
        const result = anthropicImporter.read(records)
        if (result._tag === "Right") for (const trace of result.right) expect(trace.events.length).toBeGreaterThan(0)
      }),
      { numRuns: 300 }
    )
  })
})

describe("anthropic importer: detection both ways", () => {
  detectionBothWays(anthropicImporter, [
    [["client.messages.create", { model: "claude" }]],
    [["client.beta.sessions.create"]],
    [["client.beta.sessions.create", {}], { type: "user.message" }],
    [{ type: "user.message", content: [{ type: "text", text: "a session event alone" }] }],
    [[1, 2]]
  ])
})
