/**
 * Chat Completions (`openai`): the carrier's last request and its response read back into one
 * conversation, the injection written in, and the run written as the API's `[{request,
 * response}]` pairs (each request carrying the whole conversation so far, as clients send it):
 * tool calls in `tool_calls` with their `arguments` text, results as `tool` messages (an error is
 * only the text the framework put there), `finish_reason: "length"` for a cut answer, and an API
 * error body `{error: {message, type, param, code}}` for a failed call.
 */
import { copy, list, rec, records, str, type Rec } from "../Json.js"
import type { Rng } from "../Random.js"
import type { Injection } from "../Scenario.js"
import { chatRun, openAiError } from "./Chat.js"
import { type Carrier, type Kit, readFixture } from "./Kit.js"

const load = (path: string): Carrier => {
  const raw = readFixture(path)
  const exchanges = Array.isArray(raw) ? records(raw) : [rec(raw)]
  const last = exchanges[exchanges.length - 1] ?? {}
  // a single call is the request's own fields beside its `response`
  const request = "request" in last ? rec(last["request"]) : Object.fromEntries(Object.entries(last).filter(([key]) => key !== "response"))
  const response = rec(last["response"])
  const choice = rec(list(response["choices"])[0])
  const final = rec(choice["message"])
  const tools = records(request["tools"]).flatMap((tool) => str(rec(tool["function"])["name"]) ?? [])
  const answer = str(final["content"]) ?? str(final["refusal"]) ?? ""
  return { path, facts: { tools, agents: ["assistant"], answer }, body: { request, response } }
}

const toolOf = (spec: Injection["declare"][number]) => ({ type: "function", function: { name: spec.name, description: spec.description, parameters: spec.parameters } })

const inject = (carrier: Carrier, injection: Injection, rng: Rng): unknown => {
  const body = rec(copy(carrier.body))
  const request = rec(body["request"])
  const response = rec(body["response"])
  const final = rec(rec(list(response["choices"])[0])["message"])
  const history = records(request["messages"])
  const run = chatRun(history, final, injection, rng)
  const declared = records(request["tools"])
  const names = new Set(declared.map((tool) => str(rec(tool["function"])["name"])))
  const tools = [...declared, ...injection.declare.filter((spec) => !names.has(spec.name)).map(toolOf)]
  const model = str(request["model"]) ?? "gpt-4o-mini"
  const served = str(response["model"]) ?? `${model}-2024-07-18`
  let created = typeof response["created"] === "number" ? response["created"] - run.calls.length * 3 : 1767225600
  return run.calls.map((call): Rec => {
    created += rng.int(1, 5)
    const sent: Rec = { ...request, model, messages: call.input, ...(tools.length > 0 ? { tools } : {}) }
    if ("failure" in call.output) return { request: sent, response: { error: openAiError(call.output.failure) } }
    const id = `chatcmpl-${rng.token(29)}`
    const inputTokens = 40 * call.input.length + rng.int(20, 400)
    const outputTokens = call.output.finish === "length" ? (typeof request["max_tokens"] === "number" ? request["max_tokens"] : rng.pick([256, 512, 1024])) : rng.int(8, 300)
    return {
      request: sent,
      response: {
        id,
        object: "chat.completion",
        created,
        model: served,
        choices: [{ index: 0, message: { refusal: null, annotations: [], ...call.output.message, role: "assistant" }, logprobs: null, finish_reason: call.output.finish }],
        usage: { prompt_tokens: inputTokens, completion_tokens: outputTokens, total_tokens: inputTokens + outputTokens },
        system_fingerprint: `fp_${rng.token(10, "0123456789abcdef")}`
      }
    }
  })
}

export const openAiChatKit: Kit = {
  name: "openai-chat",
  format: "openai",
  provider: "openai",
  carriers: ["openai/chat-tool-calls.json", "openai/chat-request.json"].map(load),
  inject
}
