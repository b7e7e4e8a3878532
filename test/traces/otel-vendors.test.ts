/**
 * The `otel` importer on what agent frameworks write with their own span attributes (fixtures
 * copied from public repositories, provenance in test/fixtures/traces/otel/README.md): Google
 * ADK's `gcp.vertex.agent.*` request, response, tool-argument and tool-response attributes.
 * Expected values are read from the fixtures, so the assertions say where each event comes from.
 */
import { describe, expect, it } from "@effect/vitest"
import { Predicate } from "effect"
import { otelImporter } from "../../src/Traces/Formats/Otel.js"
import { brief, fixtureIn, list, readersOf, sub, text, type Rec } from "./support.js"

const fixture = fixtureIn("otel")
const { readOne } = readersOf(otelImporter)

const spanNamed = (spans: ReadonlyArray<Rec>, name: string, index = 0): Rec =>
  spans.filter((span) => span["name"] === name)[index] ?? expect.fail(`no span ${name} #${index}`)
const attributes = (span: Rec): Rec => sub(span, "attributes") ?? expect.fail("no attributes")
const json = (value: unknown): Rec => {
  const parsed: unknown = JSON.parse(text(value))
  return Predicate.isRecord(parsed) ? parsed : expect.fail("not an object")
}

describe("otel importer: Google ADK spans (gcp.vertex.agent.*, strands-agents/evals live capture)", () => {
  const body = fixture("adk-live.spans.json")
  const spans = list(body)
  const firstCall = spanNamed(spans, "call_llm", 0)
  const secondCall = spanNamed(spans, "call_llm", 1)
  const tool = spanNamed(spans, "execute_tool calculator")
  const firstRequest = json(attributes(firstCall)["gcp.vertex.agent.llm_request"])
  const config = sub(firstRequest, "config")
  const question = text(list(list(firstRequest["contents"])[0]?.["parts"])[0]?.["text"])
  const answer = text(list(sub(json(attributes(secondCall)["gcp.vertex.agent.llm_response"]), "content")?.["parts"])[0]?.["text"])
  const callId = text(attributes(tool)["gen_ai.tool.call.id"])

  it("reads the model calls' messages, the tool call with its arguments and the tool's response: 5 events from 7 spans", () => {
    const trace = readOne(body)
    expect(trace.events.map(brief)).toEqual([
      ["system", "system", "message", "", text(config?.["system_instruction"]), `span:${text(firstCall["span_id"])}/system_instructions`],
      ["user", "user", "message", "", question, `span:${text(firstCall["span_id"])}/input[0]`],
      ["math_agent", "agent", "tool_call", "calculator", text(attributes(tool)["gcp.vertex.agent.tool_call_args"]), `span:${text(tool["span_id"])}`],
      ["calculator", "tool", "tool_result", "calculator", text(attributes(tool)["gcp.vertex.agent.tool_response"]), `span:${text(tool["span_id"])}`],
      ["math_agent", "agent", "message", "", answer, `span:${text(secondCall["span_id"])}/output[0]`]
    ])
    expect(trace.task).toBe(question)
    expect(trace.outcome).toBe(answer)
    expect(trace.agents).toEqual(["math_agent"])
    expect(trace.skipped).toBe(0)
  })

  it("does not repeat the call and its response that the second request carries in its history", () => {
    const trace = readOne(body)
    const history = list(json(attributes(secondCall)["gcp.vertex.agent.llm_request"])["contents"])
    expect(history.map((content) => content["role"])).toEqual(["user", "model", "user"])
    expect(sub(list(history[1]?.["parts"])[0], "function_call")?.["id"]).toBe(callId)
    expect(sub(list(history[2]?.["parts"])[0], "function_response")?.["id"]).toBe(callId)
    expect(trace.events.filter((event) => event.kind === "tool_call" || event.kind === "tool_result")).toHaveLength(2)
  })
})

describe("otel importer: AutoGen's own spans (autogen-core, strands-agents/evals live capture)", () => {
  const body = fixture("autogen-live.spans.json")
  const spans = list(body)
  const tool = spanNamed(spans, "execute_tool calculate")

  it("reads what the spans hold: the agent and its tool call by name and id; no content is made up where autogen-core writes none", () => {
    const trace = readOne(body)
    expect(Object.keys(attributes(tool)).filter((key) => key.startsWith("gen_ai.tool.call."))).toEqual(["gen_ai.tool.call.id"])
    expect(trace.id).toBe(text(tool["trace_id"]))
    expect(trace.agents).toEqual([text(attributes(spanNamed(spans, "invoke_agent math_assistant"))["gen_ai.agent.name"])])
    expect(trace.events.map(brief)).toEqual([["math_assistant", "agent", "tool_call", "calculate", "", `span:${text(tool["span_id"])}`]])
    // the other trace holds only `create_agent`: nothing to read, counted
    expect(trace.skipped).toBe(1)
  })
})
