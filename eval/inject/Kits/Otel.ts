/**
 * OpenTelemetry GenAI over OTLP/JSON (`otel`): the carrier's trace (an `invoke_agent` span, its
 * `chat` spans from the OpenAI instrumentation, its `execute_tool` spans), the injection written
 * in as new spans in the time order of the run (later spans moved on): a `chat` span with
 * `gen_ai.output.messages` holding the tool calls and `gen_ai.tool.definitions`, an
 * `execute_tool` span per call with its id, arguments and result, or, when the tool failed, span
 * status code 2 with the message, `error.type` and an `exception` event. Endings change the last
 * `chat` span's `gen_ai.response.finish_reasons` and the agent span's output, or replace that call
 * by a failed one (status 2, the SDK's `Error code: 429 - {...}` message, an `exception` event),
 * or drop it when the run stopped.
 */
import { copy, list, rec, records, str, type Rec } from "../Json.js"
import type { Rng } from "../Random.js"
import type { Injection, ModelFailure, ToolFailure, ToolSpec } from "../Scenario.js"
import { sdkErrorText } from "./Chat.js"
import { type Carrier, type Kit, readFixture } from "./Kit.js"

const CARRIER = "otel/openai-chat-agent.otlp-traces.json"
const TRACE = "0e100000000000000000000000000001"

/** The carrier's tool, as its agent's instructions describe it (the export declares no tools). */
const GET_WEATHER: ToolSpec = {
  name: "get_weather",
  description: "Current conditions for a city.",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false }
}

type Attribute = { readonly key: string; readonly value: Rec }
const text = (key: string, value: string): Attribute => ({ key, value: { stringValue: value } })
const int = (key: string, value: number): Attribute => ({ key, value: { intValue: value } })
const strings = (key: string, values: ReadonlyArray<string>): Attribute => ({ key, value: { arrayValue: { values: values.map((each) => ({ stringValue: each })) } } })

const attributeOf = (span: Rec, key: string): unknown => {
  const found = records(span["attributes"]).find((attribute) => attribute["key"] === key)
  return found === undefined ? undefined : rec(found["value"])["stringValue"]
}
const withAttributes = (span: Rec, set: ReadonlyArray<Attribute>, drop: ReadonlyArray<string> = []): Rec => {
  const keys = new Set([...set.map((attribute) => attribute.key), ...drop])
  return { ...span, attributes: [...records(span["attributes"]).filter((attribute) => !keys.has(String(attribute["key"]))), ...set] }
}

const load = (path: string): Carrier => {
  const body = rec(readFixture(path))
  // the export holds a second, failed trace: the carrier is the first one alone
  const resourceSpans = records(body["resourceSpans"]).map((resource) => ({
    ...resource,
    scopeSpans: records(resource["scopeSpans"]).map((scope) => ({ ...scope, spans: records(scope["spans"]).filter((span) => span["traceId"] === TRACE) }))
  }))
  const agent = resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans)).find((span) => attributeOf(span, "gen_ai.operation.name") === "invoke_agent") ?? {}
  const output = list(JSON.parse(str(attributeOf(agent, "gen_ai.output.messages")) ?? "[]"))
  const answer = records(rec(output[0])["parts"]).flatMap((part) => str(part["content"]) ?? []).join("\n")
  return { path, facts: { tools: [], agents: [str(attributeOf(agent, "gen_ai.agent.name")) ?? "assistant"], answer }, body: { ...body, resourceSpans } }
}

const nanos = (value: unknown): bigint => BigInt(typeof value === "string" || typeof value === "number" ? value : 0)

const exceptionEvent = (at: bigint, type: string, message: string, rng: Rng) => ({
  timeUnixNano: String(at),
  name: "exception",
  attributes: [
    text("exception.type", type),
    text("exception.message", message),
    text("exception.stacktrace", `Traceback (most recent call last):\n  File "/srv/agent/run.py", line ${rng.int(30, 300)}, in _run\n    result = await step()\n${type}: ${message}`)
  ]
})

const inject = (carrier: Carrier, injection: Injection, rng: Rng): unknown => {
  const body = rec(copy(carrier.body))
  const resources = records(body["resourceSpans"])
  const scopes = resources.flatMap((resource) => records(resource["scopeSpans"]))
  const all = scopes.flatMap((scope) => records(scope["spans"]))
  const isChat = (span: Rec) => attributeOf(span, "gen_ai.operation.name") === "chat"
  const agent = all.find((span) => attributeOf(span, "gen_ai.operation.name") === "invoke_agent") ?? {}
  const root = str(agent["spanId"]) ?? ""
  const chats = all.filter(isChat).sort((a, b) => (nanos(a["startTimeUnixNano"]) < nanos(b["startTimeUnixNano"]) ? -1 : 1))
  const finalChat = chats[chats.length - 1]
  const spanId = () => rng.token(16, "0123456789abcdef")
  const model = str(attributeOf(chats[0] ?? {}, "gen_ai.request.model")) ?? "gpt-4o-mini"
  const tools = injection.declare.length > 0 ? [GET_WEATHER, ...injection.declare] : []
  const definitions = tools.length > 0 ? [text("gen_ai.tool.definitions", JSON.stringify(tools.map((tool) => ({ type: "function", name: tool.name, description: tool.description, parameters: tool.parameters }))))] : []
  const chatAttributes = (finish: string) => [
    text("gen_ai.operation.name", "chat"),
    text("gen_ai.request.model", model),
    text("gen_ai.system", "openai"),
    strings("gen_ai.response.finish_reasons", [finish]),
    text("gen_ai.response.id", `chatcmpl-${rng.token(29)}`),
    text("gen_ai.response.model", `${model}-2024-07-18`),
    int("gen_ai.usage.input_tokens", rng.int(100, 3000)),
    int("gen_ai.usage.output_tokens", rng.int(10, 200)),
    ...definitions
  ]
  // where the steps go: before one of the carrier's chat spans
  const slot = chats[Math.min(chats.length - 1, Math.round(injection.at * (chats.length - 1)))]
  let clock = nanos(slot?.["startTimeUnixNano"])
  const tick = (ms: number) => {
    const start = clock
    clock += BigInt(ms) * 1_000_000n
    return { startTimeUnixNano: String(start), endTimeUnixNano: String(clock) }
  }
  const startAt = clock
  const newChats: Array<Rec> = []
  const newTools: Array<Rec> = []
  const base = (name: string, kind: number) => ({ traceId: TRACE, spanId: spanId(), parentSpanId: root, name, kind, droppedAttributesCount: 0, droppedEventsCount: 0, links: [], droppedLinksCount: 0, flags: 257 })
  const failedStatus = (type: string, message: string, end: bigint) => ({ status: { code: 2, message }, events: [exceptionEvent(end, type, message, rng)] })
  for (const step of injection.steps) {
    if (step.kind !== "calls") continue
    const output = [{ role: "assistant", parts: [...(step.text === null ? [] : [{ type: "text", content: step.text }]), ...step.calls.map((call) => ({ type: "tool_call", id: call.id, name: call.tool, arguments: call.input ?? call.args }))], finish_reason: "tool_calls" }]
    newChats.push({ ...base(`chat ${model}`, 3), ...tick(rng.int(300, 2500)), attributes: [...chatAttributes("tool_calls"), text("gen_ai.output.messages", JSON.stringify(output))], events: [], status: { code: 0 } })
    step.calls.forEach((call, index) => {
      const result = step.results[index]
      if (result === undefined) return
      const times = tick(rng.int(5, 900))
      const attributes = [
        text("gen_ai.operation.name", "execute_tool"),
        text("gen_ai.tool.name", call.tool),
        text("gen_ai.tool.type", "function"),
        text("gen_ai.tool.call.id", call.id),
        text("gen_ai.tool.call.arguments", call.args)
      ]
      if (result.ok) newTools.push({ ...base(`execute_tool ${call.tool}`, 1), ...times, attributes: [...attributes, text("gen_ai.tool.call.result", result.content)], events: [], status: { code: 0 } })
      else {
        const failure: ToolFailure = result.failure
        newTools.push({ ...base(`execute_tool ${call.tool}`, 1), ...times, attributes: [...attributes, text("error.type", failure.type)], ...failedStatus(failure.type, failure.message, nanos(times.endTimeUnixNano)) })
      }
    })
  }
  const shift = clock - startAt
  const moved = (span: Rec): Rec => {
    if (span === agent) return { ...span, endTimeUnixNano: String(nanos(span["endTimeUnixNano"]) + shift) }
    if (nanos(span["startTimeUnixNano"]) < startAt) return span
    return { ...span, startTimeUnixNano: String(nanos(span["startTimeUnixNano"]) + shift), endTimeUnixNano: String(nanos(span["endTimeUnixNano"]) + shift) }
  }
  const ending = injection.ending
  const replaced = new Map<Rec, Rec | undefined>()
  let agentSpan: Rec = agent
  const finalOutput = (parts: ReadonlyArray<Rec>, finish: string) => text("gen_ai.output.messages", JSON.stringify([{ role: "assistant", parts, finish_reason: finish }]))
  if (finalChat !== undefined) {
    switch (ending.kind) {
      case "answer":
        replaced.set(finalChat, withAttributes(finalChat, [strings("gen_ai.response.finish_reasons", [ending.finish])]))
        agentSpan = withAttributes(agentSpan, [finalOutput([{ type: "text", content: ending.text }], ending.finish)])
        break
      case "empty":
        agentSpan = withAttributes(agentSpan, [finalOutput(rng.chance(0.5) ? [] : [{ type: "text", content: "" }], "stop")])
        break
      case "model_error": {
        const failure: ModelFailure = ending.failure
        const message = sdkErrorText(failure)
        const failed = withAttributes(finalChat, [text("error.type", failure.exception)], ["gen_ai.response.finish_reasons", "gen_ai.response.id", "gen_ai.response.model", "gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens"])
        replaced.set(finalChat, { ...failed, ...failedStatus(failure.exception, message, nanos(finalChat["endTimeUnixNano"])) })
        agentSpan = { ...withAttributes(agentSpan, [], ["gen_ai.output.messages"]), status: { code: 2, message } }
        break
      }
      case "stop":
        replaced.set(finalChat, undefined)
        agentSpan = { ...withAttributes(agentSpan, [], ["gen_ai.output.messages"]), status: { code: 0 } }
        break
      default:
    }
  }
  const rewrite = (span: Rec): Array<Rec> => {
    const changed = span === agent ? agentSpan : replaced.has(span) ? replaced.get(span) : span
    if (changed === undefined) return []
    // the agent span keeps its place in time; its end moves with the run
    return [span === agent ? { ...changed, endTimeUnixNano: moved(span)["endTimeUnixNano"] } : moved(changed)]
  }
  return {
    ...body,
    resourceSpans: resources.map((resource) => ({
      ...resource,
      scopeSpans: records(resource["scopeSpans"]).map((scope) => {
        const spans = records(scope["spans"])
        const chatScope = spans.some(isChat)
        return { ...scope, spans: [...spans.flatMap(rewrite), ...(chatScope ? newChats : newTools)] }
      })
    }))
  }
}

export const otelKit: Kit = {
  name: "otel",
  format: "otel",
  provider: "openai",
  carriers: [CARRIER].map(load),
  inject
}
