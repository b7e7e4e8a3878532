/**
 * The `openinference` importer on live captures of agent frameworks' OpenInference
 * instrumentations (fixtures copied from public repositories, provenance in
 * test/fixtures/traces/openinference/README.md): the Claude Agent SDK's AGENT span, whose output
 * messages interleave with the tool spans run inside it, and smolagents' model calls, whose
 * inputs replay the agent's memory. Expected values are read from the fixtures.
 */
import { describe, expect, it } from "@effect/vitest"
import { openInferenceImporter } from "../../src/Traces/Formats/OpenInference.js"
import { fixtureIn, list, readersOf, sub, text, type Rec } from "./support.js"

const fixture = fixtureIn("openinference")
const { readOne } = readersOf(openInferenceImporter)

const attributes = (span: Rec): Rec => sub(span, "attributes") ?? expect.fail("no attributes")
const kindOf = (span: Rec): unknown => attributes(span)["openinference.span.kind"]
const spanWith = (spans: ReadonlyArray<Rec>, test: (span: Rec) => boolean, what: string): Rec => spans.find(test) ?? expect.fail(`no ${what} span`)

describe("openinference importer: Claude Agent SDK (openinference-instrumentation-claude-agent-sdk, live capture)", () => {
  const body = fixture("claude-agent-sdk-live.spans.json")
  const spans = list(body)
  // The top agent (its parent, the SDK's client span, is not in the capture): the one with output messages.
  const root = spanWith(spans, (span) => kindOf(span) === "AGENT" && "llm.output_messages.0.message.role" in attributes(span), "top AGENT")
  const output = (i: number, part: string) => attributes(root)[`llm.output_messages.${i}.message.${part}`]
  const toolSpanOf = (callId: unknown) => spanWith(spans, (span) => attributes(span)["tool.id"] === callId, `TOOL ${String(callId)}`)
  const newYork = toolSpanOf(output(1, "tool_calls.0.tool_call.id"))
  const math = toolSpanOf(output(4, "tool_calls.0.tool_call.id"))

  it("places the agent's output messages in time order among its tool calls, not after all of them", () => {
    const trace = readOne(body)
    const index = (content: unknown) => trace.events.findIndex((event) => event.kind === "message" && event.content === text(content))
    const first = index(output(0, "content.0"))
    const between = index(output(3, "content.0"))
    const last = index(output(5, "content.0"))
    const events = trace.events
    const newYorkCall = events.findIndex((event) => event.kind === "tool_call" && event.content === text(output(1, "tool_calls.0.tool_call.function.arguments")))
    const newYorkResult = events.findIndex((event) => event.kind === "tool_result" && event.source === `span:${text(newYork["span_id"])}`)
    const mathCall = events.findIndex((event) => event.kind === "tool_call" && event.content === text(output(4, "tool_calls.0.tool_call.function.arguments")))
    const mathResult = events.findIndex((event) => event.kind === "tool_result" && event.source === `span:${text(math["span_id"])}`)
    expect([first, newYorkCall, newYorkResult, between, mathCall, mathResult, last].every((i) => i >= 0)).toBe(true)
    expect(first).toBeLessThan(newYorkCall)
    expect(newYorkResult).toBeLessThan(between)
    expect(between).toBeLessThan(mathCall)
    expect(mathResult).toBeLessThan(last)
    expect(last).toBe(events.length - 1)
  })

  it("keeps the events' timestamps in order, each tool call once", () => {
    const trace = readOne(body)
    const times = trace.events.map((event) => event.timestamp ?? expect.fail(`no timestamp on ${event.source}`))
    expect(times).toEqual([...times].sort())
    const calls = trace.events.filter((event) => event.kind === "tool_call")
    expect(calls).toHaveLength(spans.filter((span) => kindOf(span) === "TOOL").length)
    expect(trace.outcome).toBe(text(output(5, "content.0")))
  })
})

describe("openinference importer: smolagents CodeAgent (openinference-instrumentation-smolagents, live capture)", () => {
  const body = fixture("smolagents-live.spans.json")
  const spans = list(body)
  const llm = spans.filter((span) => kindOf(span) === "LLM")
  const second = llm[1] ?? expect.fail("no second LLM span")
  const input = (i: number) => text(attributes(second)[`llm.input_messages.${i}.message.contents.0.message_content.text`])
  const firstOutput = text(attributes(llm[0] ?? expect.fail("no LLM span"))["llm.output_messages.0.message.contents.0.message_content.text"])

  it("the second call's input replays the memory: the thought with its stop sequence, the action, the observation", () => {
    expect(attributes(second)["llm.input_messages.3.message.role"]).toBe("tool-call")
    expect(attributes(second)["llm.input_messages.4.message.role"]).toBe("tool-response")
    expect(input(2).startsWith(firstOutput.trimEnd())).toBe(true)
    expect(input(2)).not.toBe(firstOutput)
    expect(input(3).startsWith("Calling tools:")).toBe(true)
    expect(input(4).startsWith("Observation:")).toBe(true)
  })

  it("reads none of the memory copies as events: the thought once, no `Calling tools:` or `Observation:` copies", () => {
    const trace = readOne(body)
    const contents = trace.events.map((event) => event.content)
    expect(contents.filter((content) => content === firstOutput)).toHaveLength(1)
    expect(contents).not.toContain(input(2))
    expect(contents).not.toContain(input(3))
    expect(contents).not.toContain(input(4))
    expect(trace.events.map((event) => event.kind)).toEqual(["message", "message", "message", "message", "tool_call", "tool_result", "message", "tool_call", "tool_result"])
  })

  it("keeps an observation no tool span returned (code that called no tool): it is the step's only output", () => {
    const observation = "Observation:\nExecution logs:\n4\nLast output from code snippet:\nNone"
    const rewritten = spans.map((span) =>
      span === second ? { ...span, attributes: { ...attributes(span), "llm.input_messages.4.message.contents.0.message_content.text": observation } } : span
    )
    const trace = readOne(rewritten)
    expect(trace.events.filter((event) => event.content === observation).map((event) => event.kind)).toEqual(["tool_result"])
  })
})
