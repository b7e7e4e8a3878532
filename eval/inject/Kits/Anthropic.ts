/**
 * Anthropic Messages (`anthropic`): the carrier request's messages and its response, the
 * injection written in as content blocks (`tool_use` with an `input` object, `tool_result` with
 * `is_error: true` for a failure), and the run written as one request carrying the conversation
 * with the last model call's answer under `response`: `stop_reason: "max_tokens"` for a cut
 * answer, an empty `content` for an empty one, an API error body `{type: "error", error: {type,
 * message}}` for a failed call, the `tool_use` message itself when the run stopped on a call.
 */
import { copy, list, rec, records, str, type Rec } from "../Json.js"
import type { Rng } from "../Random.js"
import type { Injection } from "../Scenario.js"
import { resultText } from "../Wording.js"
import { type Carrier, type Kit, readFixture } from "./Kit.js"

const load = (path: string): Carrier => {
  const body = rec(readFixture(path))
  const response = rec(body["response"])
  const answer = records(response["content"]).flatMap((block) => (block["type"] === "text" ? str(block["text"]) ?? [] : [])).join("\n")
  return { path, facts: { tools: records(body["tools"]).flatMap((tool) => str(tool["name"]) ?? []), agents: ["assistant"], answer }, body }
}

const inject = (carrier: Carrier, injection: Injection, rng: Rng): unknown => {
  const body = rec(copy(carrier.body))
  const response = rec(body["response"])
  const history = records(body["messages"])
  const turns = [...history.flatMap((message, index) => (message["role"] === "assistant" && index > 0 ? [index] : [])), history.length]
  const where = turns[Math.min(turns.length - 1, Math.round(injection.at * (turns.length - 1)))] ?? history.length
  const injected: Array<Rec> = []
  for (const step of injection.steps) {
    if (step.kind !== "calls") continue
    injected.push({
      role: "assistant",
      content: [
        ...(step.text === null ? [] : [{ type: "text", text: step.text }]),
        // a tool_use carries an object; arguments that are no JSON object cannot be written here
        ...step.calls.map((call) => ({ type: "tool_use", id: call.id, name: call.tool, input: call.input ?? {} }))
      ]
    })
    const results = step.calls.flatMap((call, index) => {
      const result = step.results[index]
      if (result === undefined) return []
      return [result.ok
        ? { type: "tool_result", tool_use_id: call.id, content: result.content }
        : { type: "tool_result", tool_use_id: call.id, content: rng.chance(0.5) ? resultText(result.failure, call.tool, rng) : [{ type: "text", text: resultText(result.failure, call.tool, rng) }], is_error: true }]
    })
    if (results.length > 0) injected.push({ role: "user", content: results })
  }
  let messages = [...history.slice(0, where), ...injected, ...history.slice(where)]
  const declared = records(body["tools"])
  const names = new Set(declared.map((tool) => str(tool["name"])))
  const tools = [...declared, ...injection.declare.filter((spec) => !names.has(spec.name)).map((spec) => ({ name: spec.name, description: spec.description, input_schema: spec.parameters }))]
  const id = `msg_01${rng.token(22)}`
  const usage = { input_tokens: rng.int(400, 9000), output_tokens: rng.int(10, 400), cache_creation_input_tokens: 0, cache_read_input_tokens: 0 }
  const message = (content: ReadonlyArray<unknown>, stop: string) => ({ ...response, id, content, stop_reason: stop, stop_sequence: null, usage })
  const ending = injection.ending
  let answer: Rec
  switch (ending.kind) {
    case "keep":
      answer = { ...response, id }
      break
    case "answer":
      answer = message([{ type: "text", text: ending.text }], ending.finish === "length" ? "max_tokens" : "end_turn")
      if (ending.finish === "length") answer = { ...answer, usage: { ...usage, output_tokens: typeof body["max_tokens"] === "number" ? body["max_tokens"] : 1024 } }
      break
    case "empty":
      answer = message([], "end_turn")
      break
    case "model_error":
      answer = { type: "error", error: { type: ending.failure.type, message: ending.failure.message }, request_id: `req_011C${rng.token(20)}` }
      break
    default: {
      // the run stopped on its last call: that call's message is the last answer recorded
      const last = messages[messages.length - 1]
      messages = messages.slice(0, -1)
      answer = message(list(last?.["content"]), "tool_use")
    }
  }
  return { ...body, tools, messages, response: answer }
}

export const anthropicKit: Kit = {
  name: "anthropic",
  format: "anthropic",
  provider: "anthropic",
  carriers: ["anthropic/request-tool-use.json"].map(load),
  inject
}
