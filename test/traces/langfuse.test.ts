/**
 * The `langfuse` importer (DECISIONS §12) on Langfuse's own framework traces (the seeder's
 * `framework-traces/*.json`, exports of real LangGraph, OpenAI Agents SDK, Pydantic AI, Google
 * Gemini, Google ADK and LlamaIndex runs; see test/fixtures/traces/langfuse/README.md), detection
 * both ways against every other format's fixtures, and the intake: a Langfuse export's `trace`
 * field is trace data, never the envelope; a Gemini export is read with its content.
 */
import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { langfuseImporter } from "../../src/Traces/Formats/Langfuse.js"
import { NormalizedTrace } from "../../src/Traces/Model.js"
import { useProviderDouble } from "../support/Harness.js"
import { type Counts, countsOf, detectionBothWays, expectNoDuplicates, fixtureIn, fixtureText, neverThrowsOnJson, readersOf } from "./support.js"

const fixture = fixtureIn("langfuse")
const { readOne, failure } = readersOf(langfuseImporter)

const FIXTURES: ReadonlyArray<{
  readonly file: string
  readonly id: string
  readonly task: string
  readonly outcome: RegExp
  readonly counts: Counts
}> = [
  {
    file: "langgraph-2025-08-22.json",
    id: "e1fde3efec57ce8a69bafd3fb928a7eb",
    task: "Search the web for 'example' and summarize.",
    outcome: /^The search for "example" primarily leads to the website/,
    // the two tool definitions the LangChain handler appends as `tool` messages are skipped
    counts: { messages: 3, toolCalls: 1, withArguments: 1, toolResults: 1, errors: 0, agents: 1, handoffs: 0, thoughts: 0, skipped: 2 }
  },
  {
    file: "openai-agents-2025-09-30.json",
    id: "fee618f96dc31e0ca38b2f7b26eb8b29",
    task: "What's the weather in Tokyo?",
    outcome: /^The weather in Tokyo is currently sunny\./,
    // the system message is the Responses object's `instructions`, in both responses: read once
    counts: { messages: 3, toolCalls: 1, withArguments: 1, toolResults: 1, errors: 0, agents: 2, handoffs: 1, thoughts: 0, skipped: 0 }
  },
  {
    file: "pydantic-ai-tools-2025-12-04.json",
    id: "7a38edd8123db47ad8dcb8aa4c5e3926",
    task: "Select and call THREE of the available tools to get joke suggestions about 'programming'.",
    outcome: /^Why do programmers hate nature\?/,
    counts: { messages: 7, toolCalls: 4, withArguments: 4, toolResults: 3, errors: 0, agents: 2, handoffs: 0, thoughts: 0, skipped: 0 }
  },
  {
    file: "google-gemini-2025-08-01.json",
    id: "9f2f0fe0228fd81a9fe75882934b384a",
    task: "What is Langfuse?",
    outcome: /^\*\*Langfuse\*\* is an \*\*open-source observability and evaluation platform/,
    counts: { messages: 2, toolCalls: 0, withArguments: 0, toolResults: 0, errors: 0, agents: 1, handoffs: 0, thoughts: 0, skipped: 0 }
  },
  {
    file: "google-adk-2025-08-28.json",
    id: "b82a0bdc1994fc5d1c8576ca032543f7",
    task: "hi",
    outcome: /^Hello Langfuse 👋!/,
    // the user's message, the agent's instruction, its answer; the call of say_hello (no arguments) and its result
    counts: { messages: 3, toolCalls: 1, withArguments: 0, toolResults: 1, errors: 0, agents: 1, handoffs: 0, thoughts: 0, skipped: 0 }
  },
  {
    file: "llamaindex-2025-06-05.json",
    id: "12ea412956f99347b0503c1144acd0ec",
    task: "What is Langfuse?",
    outcome: /^Langfuse is a tool designed to help developers monitor and debug applications/,
    counts: { messages: 2, toolCalls: 0, withArguments: 0, toolResults: 0, errors: 0, agents: 1, handoffs: 0, thoughts: 0, skipped: 0 }
  }
]

describe("langfuse importer: framework traces", () => {
  it.each(FIXTURES)("reads $file with the expected counts, no duplicates, task, outcome and trace id", ({ file, id, task, outcome, counts }) => {
    const trace = readOne(fixture(file))
    expect(countsOf(trace)).toEqual(counts)
    expectNoDuplicates(trace)
    expect(trace.id).toBe(id)
    expect(trace.task).toBe(task)
    expect(trace.outcome).toMatch(outcome)
    for (const event of trace.events) expect(event.source).toMatch(/^observation:[0-9a-f]{16}(\/(input|output)[\w.[\]]*)?$/)
    // in time order
    const times = trace.events.map((event) => event.timestamp ?? "")
    expect(times).toEqual([...times].sort())
  })

  it("reads a LangGraph run once: states and generations repeat the history, the tool result comes from the tool's span", () => {
    const trace = readOne(fixture("langgraph-2025-08-22.json"))
    expect(trace.events.map((event) => [event.actor, event.kind, event.tool ?? "", event.source])).toEqual([
      ["user", "message", "", "observation:b024c7ee7680b708/input.messages[0]"],
      ["user", "message", "", "observation:4f6535aaebcda355/input[0]"],
      ["assistant", "tool_call", "Web-Search", "observation:4f6535aaebcda355/output"],
      ["Web-Search", "tool_result", "Web-Search", "observation:21441266a9f21251"],
      ["assistant", "message", "", "observation:5ba09605e0929d78/output"]
    ])
    expect(trace.events[2]?.content).toBe("{\"query\":\"example\"}")
    expect(trace.events[3]?.content).toBe("[{\"url\":\"https://example.com\",\"title\":\"Example Result\",\"q\":\"example\"}]")
  })

  it("reads the OpenAI Agents SDK through OpenInference: the agent under the workflow is a handoff; Responses items, output objects, instructions", () => {
    const trace = readOne(fixture("openai-agents-2025-09-30.json"))
    expect(trace.events.map((event) => [event.actor, event.kind, event.tool ?? event.to ?? "", event.content.slice(0, 30)])).toEqual([
      ["Agent workflow", "handoff", "Hello world", "Hello world"],
      ["user", "message", "", "What's the weather in Tokyo?"],
      ["system", "message", "", "You are a helpful agent."],
      ["Hello world", "tool_call", "get_weather", "{\"city\":\"Tokyo\"}"],
      ["get_weather", "tool_result", "get_weather", "The weather in Tokyo is sunny."],
      ["Hello world", "message", "", "The weather in Tokyo is curren"]
    ])
    // the trace's scores (toxicity, hallucination: evaluations) are labels: never copied
    const text = JSON.stringify(trace)
    expect(text).not.toContain("toxicity")
    expect(text).not.toContain("aggressive and dismissive")
    expect(text).not.toContain("hallucination")
  })

  it("reads Pydantic AI's gen_ai parts: parallel tool calls each with its own part pointer, agents from gen_ai.agent.name", () => {
    const trace = readOne(fixture("pydantic-ai-tools-2025-12-04.json"))
    const calls = trace.events.filter((event) => event.kind === "tool_call")
    expect(calls.map((event) => [event.actor, event.tool, event.source])).toEqual([
      ["joke_agent", "get_pun_suggestion", "observation:be64c23f44dd98be/output[0].parts[0]"],
      ["joke_agent", "get_dad_joke_suggestion", "observation:be64c23f44dd98be/output[0].parts[1]"],
      ["joke_agent", "get_one_liner_suggestion", "observation:be64c23f44dd98be/output[0].parts[2]"],
      ["evaluator_agent", "final_result", "observation:eb0cc14cf7943ad5/output[0]"]
    ])
    expect(trace.agents).toEqual(["joke_agent", "evaluator_agent"])
    // the evaluator agent's verdict is trace content (its tool call), not a dataset label
    expect(trace.success).toBeNull()
  })
})

describe("langfuse importer: Gemini, Google ADK and LlamaIndex", () => {
  it("reads a Gemini GenerateContent call: the request's contents and the response's candidate, with its tokens", () => {
    const trace = readOne(fixture("google-gemini-2025-08-01.json"))
    expect(trace.events.map((event) => [event.actor, event.role, event.kind, event.source])).toEqual([
      ["user", "user", "message", "observation:b7a63ca7e1d083bc/input.contents"],
      ["assistant", "agent", "message", "observation:b7a63ca7e1d083bc/output.candidates[0].content"]
    ])
    expect(trace.events[0]?.content).toBe("What is Langfuse?")
    expect(trace.events[1]?.tokens).toEqual({ input: 6, output: 2055 })
    // with its content, so it is analysed: not the content-free trace it was read as before
    expect(trace.content).toBeUndefined()
    // the HTTP response's headers are not content
    expect(JSON.stringify(trace)).not.toContain("sdk_http_response")
  })

  it("reads a Google ADK run: the instruction, the function call matched with its tool span's id, the function response, the answer", () => {
    const trace = readOne(fixture("google-adk-2025-08-28.json"))
    expect(trace.events.map((event) => [event.actor, event.kind, event.tool ?? "", event.call_id ?? "", event.content, event.source])).toEqual([
      ["user", "message", "", "", "hi", "observation:86cd4912944ddc41/input.new_message"],
      ["system", "message", "", "", "Always greet using the say_hello tool.\n\nYou are an agent. Your internal name is \"hello_agent\".", "observation:f6e4c65297e40c96/input.config.system_instruction"],
      ["agent_run [hello_agent]", "tool_call", "say_hello", "adk-8bd8dc65-717d-4102-858b-3a1dd6b75a00", "{}", "observation:04290e4d82aba1bc"],
      ["say_hello", "tool_result", "say_hello", "", "{\"greeting\":\"Hello Langfuse 👋\"}", "observation:bded677884f031ce/input.contents[2]"],
      ["agent_run [hello_agent]", "message", "", "", "Hello Langfuse 👋!\n", "observation:bded677884f031ce/output.content"]
    ])
    expect(trace.events.at(-1)?.finish_reason).toBe("stop")
    expect(trace.tools?.map((tool) => tool.name)).toEqual(["say_hello"])
    // the trace's scores are evaluations: never copied
    expect(JSON.stringify(trace)).not.toContain("toxicity")
  })

  it("reads LlamaIndex's LLM call through OpenInference: the prompt in its bound arguments, then the answer", () => {
    const trace = readOne(fixture("llamaindex-2025-06-05.json"))
    expect(trace.events.map((event) => [event.actor, event.kind, event.content.slice(0, 30), event.source])).toEqual([
      ["user", "message", "What is Langfuse?", "observation:7ca8b22f6628d0c7/input.args[0]"],
      ["assistant", "message", "Langfuse is a tool designed to", "observation:7ca8b22f6628d0c7/output"]
    ])
    expect(trace.events[1]?.tokens).toEqual({ input: 13, output: 81 })
  })

  const generation = (input: unknown, output: unknown) => ({
    id: "g1",
    traceId: "t-2",
    type: "GENERATION",
    name: "generate_content",
    startTime: "2025-01-01T00:00:00.000Z",
    endTime: "2025-01-01T00:00:01.000Z",
    parentObservationId: null,
    input,
    output
  })

  it("reads Gemini function calls and responses with their ids, failed responses, thoughts and the JS SDK's camel case", () => {
    const trace = readOne([
      generation(
        {
          model: "gemini-2.5-pro",
          config: { systemInstruction: { parts: [{ text: "You book tables." }] } },
          contents: [
            { role: "user", parts: [{ text: "Book a table for two" }] },
            { role: "model", parts: [{ text: "Checking availability.", thought: true }, { functionCall: { id: "fc-1", name: "book", args: { people: 2 } } }] },
            { role: "user", parts: [{ functionResponse: { id: "fc-1", name: "book", response: { error: "fully booked" } } }] }
          ]
        },
        { candidates: [{ content: { role: "model", parts: [{ text: "Sorry, it is fully booked." }] }, finishReason: "STOP" }], usageMetadata: { promptTokenCount: 40 } }
      )
    ])
    expect(trace.events.map((event) => [event.actor, event.kind, event.tool ?? "", event.call_id ?? "", event.status ?? "", event.content, event.source])).toEqual([
      ["system", "message", "", "", "", "You book tables.", "observation:g1/input.config.systemInstruction"],
      ["user", "message", "", "", "", "Book a table for two", "observation:g1/input.contents[0]"],
      ["assistant", "thought", "", "", "", "Checking availability.", "observation:g1/input.contents[1].parts[0]"],
      ["assistant", "tool_call", "book", "fc-1", "", "{\"people\":2}", "observation:g1/input.contents[1].parts[1]"],
      ["book", "error", "book", "fc-1", "error", "{\"error\":\"fully booked\"}", "observation:g1/input.contents[2]"],
      ["assistant", "message", "", "", "", "Sorry, it is fully booked.", "observation:g1/output.candidates[0].content"]
    ])
    expect([trace.task, trace.outcome]).toEqual(["Book a table for two", "Sorry, it is fully booked."])
  })

  it("reads LlamaIndex chat messages by their text blocks, and a function's arguments only as a model call's prompt", () => {
    const trace = readOne([
      generation(
        { messages: [{ role: "system", additional_kwargs: {}, blocks: [{ block_type: "text", text: "Answer briefly." }] }, { role: "user", additional_kwargs: {}, blocks: [{ block_type: "text", text: "Capital of France?" }, { block_type: "image", url: "x" }] }] },
        "Paris."
      ),
      { ...generation({ args: ["not a prompt"], kwargs: {} }, null), id: "s1", type: "SPAN", startTime: "2025-01-01T00:00:02.000Z" }
    ])
    expect(trace.events.map((event) => [event.actor, event.kind, event.content, event.source])).toEqual([
      ["system", "message", "Answer briefly.", "observation:g1/input.messages[0]"],
      ["user", "message", "Capital of France?", "observation:g1/input.messages[1]"],
      ["assistant", "message", "Paris.", "observation:g1/output"]
    ])
  })
})

describe("langfuse importer: other shapes and failures", () => {
  const observation = (id: string, fields: Record<string, unknown>) => ({
    id,
    traceId: "t-1",
    type: "SPAN",
    name: id,
    startTime: "2025-01-01T00:00:00.000Z",
    endTime: "2025-01-01T00:00:01.000Z",
    parentObservationId: null,
    level: "DEFAULT",
    statusMessage: null,
    input: null,
    output: null,
    metadata: {},
    ...fields
  })

  it("reads the API's trace with observations, an ERROR level as an error, and success=false from a failed root", () => {
    const trace = readOne({
      id: "t-1",
      timestamp: "2025-01-01T00:00:00.000Z",
      input: { question: "Book a table for two" },
      scores: [{ name: "correctness", value: 0 }],
      observations: [
        observation("root", { type: "AGENT", name: "booker", level: "ERROR", statusMessage: "booking API unavailable", endTime: "2025-01-01T00:00:05.000Z" }),
        observation("gen", {
          type: "GENERATION",
          parentObservationId: "root",
          startTime: "2025-01-01T00:00:01.000Z",
          input: [{ role: "user", content: "Book a table for two" }],
          output: { role: "assistant", content: "", tool_calls: [{ id: "c1", type: "function", function: { name: "book", arguments: "{\"people\":2}" } }] }
        }),
        observation("tool", {
          type: "TOOL",
          name: "book",
          parentObservationId: "root",
          startTime: "2025-01-01T00:00:02.000Z",
          input: { people: 2 },
          level: "ERROR",
          statusMessage: "503 Service Unavailable"
        }),
        observation("eval", { type: "EVALUATOR", parentObservationId: "root", startTime: "2025-01-01T00:00:03.000Z", output: { score: 0 } }),
        "not an observation"
      ]
    })
    expect(trace.events.map((event) => [event.actor, event.kind, event.tool ?? "", event.content])).toEqual([
      ["user", "message", "", "Book a table for two"],
      ["booker", "tool_call", "book", "{\"people\":2}"],
      ["book", "error", "book", "503 Service Unavailable"],
      ["booker", "error", "", "booking API unavailable"]
    ])
    expect(trace.id).toBe("t-1")
    expect(trace.success).toBe(false)
    expect(trace.skipped).toBe(2) // the evaluator and the string
    expect(JSON.stringify(trace)).not.toContain("correctness")
  })

  it("reads a bare list of observations as one trace per trace id, and gives an empty task when no user spoke", () => {
    const body = [
      observation("a", { type: "GENERATION", traceId: "x", output: "first answer" }),
      observation("b", { type: "GENERATION", traceId: "y", output: "second answer" })
    ]
    expect(langfuseImporter.detect(body)).toBe(true)
    const result = langfuseImporter.read(body)
    expect(result._tag).toBe("Right")
    if (result._tag !== "Right") return
    expect(result.right.map((trace) => [trace.id, trace.task, trace.outcome])).toEqual([
      ["x", "", "first answer"],
      ["y", "", "second answer"]
    ])
  })

  it("answers a Left for exports with nothing readable, and never throws", () => {
    expect(failure({ trace: { id: "t" }, observations: [] })).toMatch(/^langfuse: /)
    expect(failure([])).toMatch(/^langfuse: /)
    neverThrowsOnJson(langfuseImporter, { nonEmptyTraces: true })
  })
})

describe("langfuse importer: detect", () => {
  detectionBothWays(langfuseImporter, [{}, [], null, { trace: { steps: [] }, mode: "quick" }, { trace: { id: "x" } }, { observations: [{ id: "a" }] }])
})

describe("POST /v1/traces/normalize with a Langfuse export", () => {
  const harness = useProviderDouble()
  const One = Schema.Struct({ format: Schema.String, events: Schema.Int, trace: NormalizedTrace })

  it("reads the export's `trace` field as trace data, not as the envelope's trace", async () => {
    const service = await harness.start({ ANTHROPIC_API_KEY: "sk-ant-traces-0123456789", ANTHROPIC_BASE_URL: harness.double.url })
    const post = (body: string) => fetch(`${service.url}/v1/traces/normalize`, { method: "POST", headers: { "content-type": "application/json" }, body })
    const response = await post(fixtureText("langfuse/langgraph-2025-08-22.json"))
    const json: unknown = await response.json()
    expect(response.status, JSON.stringify(json).slice(0, 300)).toBe(200)
    const read = Schema.decodeUnknownSync(One)(json)
    expect(read.format).toBe("langfuse")
    expect(read.trace.id).toBe("e1fde3efec57ce8a69bafd3fb928a7eb")
    expect(read.events).toBe(5)
    // in the envelope, it is the envelope's trace, with the envelope's options
    const wrapped = await post(JSON.stringify({ trace: fixture("openai-agents-2025-09-30.json"), format: "langfuse" }))
    expect(wrapped.status).toBe(200)
    expect(Schema.decodeUnknownSync(One)(await wrapped.json()).trace.id).toBe("fee618f96dc31e0ca38b2f7b26eb8b29")
    // a Gemini run: read with its content (before, one empty event: a trace without content, which analyze refuses)
    const gemini = await post(fixtureText("langfuse/google-gemini-2025-08-01.json"))
    expect(gemini.status).toBe(200)
    const geminiRead = Schema.decodeUnknownSync(One)(await gemini.json())
    expect([geminiRead.format, geminiRead.events, geminiRead.trace.task, geminiRead.trace.content]).toEqual(["langfuse", 2, "What is Langfuse?", undefined])
  })
})
