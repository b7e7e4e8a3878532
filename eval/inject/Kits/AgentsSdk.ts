/**
 * OpenAI Agents SDK trace exports (`openai`): `{data: [trace, spans…]}` as the SDK's exporter
 * posts them. The carrier is a triage agent handing a billing question to the billing agent, who
 * looks the invoice up and answers. Injected: handoffs as the SDK records them (an `agent` span
 * whose `generation` calls `transfer_to_<agent>`, then a `handoff` span `{from_agent,
 * to_agent}`), tool turns (`generation` and `function` spans), and the SDK's turn limit, which
 * attaches `{message: "Max turns exceeded", data: {max_turns}}` to the running agent's span and
 * ends the run (MaxTurnsExceeded).
 */
import { copy, list, rec, records, str, type Rec } from "../Json.js"
import type { Rng } from "../Random.js"
import type { Injection } from "../Scenario.js"
import { resultText } from "../Wording.js"
import { type Carrier, type Kit, readFixture } from "./Kit.js"

const load = (path: string): Carrier => {
  const data = records(rec(readFixture(path))["data"])
  const spans = data.filter((span) => span["object"] === "trace.span")
  const agents = spans.filter((span) => rec(span["span_data"])["type"] === "agent").map((span) => str(rec(span["span_data"])["name"]) ?? "Agent")
  const generations = spans.filter((span) => rec(span["span_data"])["type"] === "generation")
  const last = rec(list(rec(generations[generations.length - 1]?.["span_data"])["output"])[0])
  const answer = str(rec(rec(list(last["choices"])[0])["message"])["content"]) ?? ""
  return { path, facts: { tools: ["lookup_invoice"], agents, answer }, body: data }
}

const ms = (value: unknown) => Date.parse(str(value) ?? "2026-01-01T00:00:00.000Z")
const iso = (value: number) => new Date(value).toISOString()
const transfer = (agent: string) => `transfer_to_${agent.replace(/\s+/g, "_")}`

const inject = (carrier: Carrier, injection: Injection, rng: Rng): unknown => {
  const data = records(copy(carrier.body))
  const trace = data.find((record) => record["object"] === "trace") ?? {}
  const traceId = str(trace["id"]) ?? "trace_0"
  const spans = data.filter((record) => record["object"] === "trace.span")
  const typeOf = (span: Rec) => rec(span["span_data"])["type"]
  const root = spans.find((span) => span["parent_id"] === null) ?? {}
  const agentSpans = spans.filter((span) => typeOf(span) === "agent").sort((a, b) => ms(a["started_at"]) - ms(b["started_at"]))
  const lastAgent = agentSpans[agentSpans.length - 1] ?? {}
  const generations = spans.filter((span) => typeOf(span) === "generation").sort((a, b) => ms(a["started_at"]) - ms(b["started_at"]))
  const finalGeneration = generations[generations.length - 1] ?? {}
  const model = str(rec(finalGeneration["span_data"])["model"]) ?? "gpt-4.1-mini"
  const spanId = () => `span_${rng.token(24, "0123456789abcdef")}`
  const handoffs = injection.steps.some((step) => step.kind === "handoff")
  // handoffs before the last agent's work (a ping-pong), tool turns and endings in place of its final answer
  const before = handoffs && injection.ending.kind === "keep"
  const pivot = before ? ms(lastAgent["started_at"]) : ms(finalGeneration["started_at"])
  // the conversation the next model call is sent: the first generation from the pivot on
  const history = records(rec((generations.find((span) => ms(span["started_at"]) >= pivot) ?? finalGeneration)["span_data"])["input"])
  const parents = new Map(spans.map((span) => [span, str(span["parent_id"])]))
  const byId = new Map(spans.map((span) => [str(span["id"]), span]))
  const within = (span: Rec): boolean => span === lastAgent || (parents.get(span) !== undefined && within(byId.get(parents.get(span)) ?? {}))
  let clock = pivot
  const times = (duration: number) => {
    const started = clock
    clock += duration
    return { started_at: iso(started), ended_at: iso(clock) }
  }
  const span = (parent: string, spanData: Rec, duration: number, id = spanId()): Rec => ({ object: "trace.span", id, trace_id: traceId, parent_id: parent, ...times(duration), span_data: spanData, error: null })
  const completion = (message: Rec, finish: string) => [{
    id: `chatcmpl-${rng.token(29)}`,
    object: "chat.completion",
    created: Math.floor(clock / 1000),
    model: `${model}-2025-04-14`,
    choices: [{ index: 0, message: { role: "assistant", refusal: null, annotations: [], ...message }, logprobs: null, finish_reason: finish }],
    usage: { prompt_tokens: rng.int(100, 3000), completion_tokens: rng.int(8, 200), total_tokens: 0 },
    service_tier: "default"
  }]
  const added: Array<Rec> = []
  const messages: Array<Rec> = [...history]
  const parentOfFinal = str(finalGeneration["parent_id"]) ?? str(lastAgent["id"]) ?? ""
  const extraTools: Array<string> = []
  for (const step of injection.steps) {
    if (step.kind === "handoff") {
      const callId = `call_${rng.token(24)}`
      const agentId = spanId()
      const ownSpans: Array<Rec> = []
      const start = clock
      ownSpans.push(span(agentId, { type: "generation", model, model_config: {}, input: [...messages], output: completion({ content: null, tool_calls: [{ id: callId, type: "function", function: { name: transfer(step.to), arguments: "{}" } }] }, "tool_calls") }, rng.int(300, 1500)))
      ownSpans.push(span(agentId, { type: "handoff", from_agent: step.from, to_agent: step.to }, 0))
      messages.push({ role: "assistant", content: null, tool_calls: [{ id: callId, type: "function", function: { name: transfer(step.to), arguments: "{}" } }] }, { role: "tool", tool_call_id: callId, content: JSON.stringify({ assistant: step.to }) })
      const inOwnAgent = !(injection.ending.kind === "stop" && step === injection.steps[injection.steps.length - 1])
      if (inOwnAgent) added.push({ object: "trace.span", id: agentId, trace_id: traceId, parent_id: str(root["id"]) ?? null, started_at: iso(start), ended_at: iso(clock), span_data: { type: "agent", name: step.from, handoffs: [step.to], tools: [], output_type: "text" }, error: null }, ...ownSpans)
      // the last agent hands off in its own span, in place of its answer
      else added.push(...ownSpans.map((each) => ({ ...each, parent_id: parentOfFinal })))
      continue
    }
    step.calls.forEach((call, index) => {
      if (!extraTools.includes(call.tool)) extraTools.push(call.tool)
      const toolCall = { id: call.id, type: "function", function: { name: call.tool, arguments: call.args } }
      added.push(span(parentOfFinal, { type: "generation", model, model_config: {}, input: [...messages], output: completion({ content: index === 0 ? step.text : null, tool_calls: [toolCall] }, "tool_calls") }, rng.int(300, 2000)))
      messages.push({ role: "assistant", content: step.text, tool_calls: [toolCall] })
      const result = step.results[index]
      if (result === undefined) return
      const output = result.ok ? result.content : "An error occurred while running the tool. Please try again."
      added.push({ ...span(parentOfFinal, { type: "function", name: call.tool, input: call.args, output }, rng.int(10, 800)), error: result.ok ? null : { message: "Error running tool (non-fatal)", data: { tool_name: call.tool, error: resultText(result.failure, call.tool, rng) } } })
      messages.push({ role: "tool", tool_call_id: call.id, content: output })
    })
  }
  const ending = injection.ending
  const shift = clock - pivot
  const keepFinal = ending.kind === "keep" || (handoffs && ending.kind !== "stop")
  const rewritten = spans.flatMap((each): Array<Rec> => {
    if (each === finalGeneration && !keepFinal) return []
    const started = ms(each["started_at"])
    // what starts at the pivot moves when it belongs to the last agent (the previous agent's handoff ends there too)
    const later = started > pivot || (started === pivot && (!before || within(each)))
    const moved = later ? { ...each, started_at: iso(started + shift), ended_at: iso(ms(each["ended_at"]) + shift) } : ms(each["ended_at"]) >= pivot ? { ...each, ended_at: iso(ms(each["ended_at"]) + shift) } : each
    if (each === lastAgent) {
      const spanData = rec(moved["span_data"])
      const tools = [...list(spanData["tools"]), ...extraTools.filter((name) => !list(spanData["tools"]).includes(name))]
      const withTools = { ...moved, span_data: { ...spanData, tools } }
      return [ending.kind === "turn_limit" ? { ...withTools, error: { message: "Max turns exceeded", data: { max_turns: ending.limit } } } : withTools]
    }
    return [moved]
  })
  if (ending.kind === "stop" && rng.chance(0.5)) {
    // the receiving agent's span opened and closed with nothing in it
    const last = injection.steps[injection.steps.length - 1]
    if (last !== undefined && last.kind === "handoff") added.push({ object: "trace.span", id: spanId(), trace_id: traceId, parent_id: str(root["id"]) ?? null, ...times(rng.int(1, 30)), span_data: { type: "agent", name: last.to, handoffs: [], tools: [], output_type: "text" }, error: null })
  }
  return { data: [trace, ...rewritten, ...added] }
}

export const agentsSdkKit: Kit = {
  name: "agents-sdk",
  format: "openai",
  provider: "openai",
  carriers: ["openai/agents-sdk-chat-completions.json"].map(load),
  inject,
  turnLimitText: () => "Max turns exceeded"
}
