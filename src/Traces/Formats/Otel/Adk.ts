/**
 * Google ADK's own span attributes (DECISIONS §12). ADK (instrumentation scope `gcp.vertex.agent`)
 * writes a model call's request and response as Gemini JSON on its `call_llm` spans
 * (`gcp.vertex.agent.llm_request`: `{model, config: {system_instruction, tools}, contents}`;
 * `gcp.vertex.agent.llm_response`: `{content, finish_reason, error_message?}`), and a tool's
 * arguments and response on its `execute_tool` spans (`gcp.vertex.agent.tool_call_args`,
 * `gcp.vertex.agent.tool_response`); a span without one writes `{}`. Gemini parts are read as
 * text (`thought: true` as a thought), `function_call` as tool calls and `function_response` as
 * tool results (snake_case as the Python SDK dumps them, camelCase as the API writes them).
 */
import * as Predicate from "effect/Predicate"
import { firstPresent, type Rec } from "../Common.js"
import { isoOf, parseJsonish, parseMessage, spanSource, stampMessage, textOf, type Message, type MessageParts, type ModelCall, type Span } from "../Spans.js"

export const ADK_REQUEST = "gcp.vertex.agent.llm_request"
export const ADK_RESPONSE = "gcp.vertex.agent.llm_response"
const ADK_TOOL_ARGS = "gcp.vertex.agent.tool_call_args"
const ADK_TOOL_RESPONSE = "gcp.vertex.agent.tool_response"

/** A JSON attribute as a record with at least one key (ADK writes `{}` for "none"). */
const jsonRecord = (value: unknown): Rec | undefined => {
  const parsed = parseJsonish(value)
  return Predicate.isRecord(parsed) && Object.keys(parsed).length > 0 ? parsed : undefined
}

/** A Gemini part in the common part shape (`text`, `reasoning`, `tool_call`, `tool_call_response`). */
const geminiPart = (part: unknown): unknown => {
  if (!Predicate.isRecord(part)) return part
  const call = firstPresent(part["function_call"], part["functionCall"])
  if (Predicate.isRecord(call)) return { type: "tool_call", id: call["id"], name: call["name"], arguments: call["args"] ?? {} }
  const response = firstPresent(part["function_response"], part["functionResponse"])
  if (Predicate.isRecord(response)) return { type: "tool_call_response", id: response["id"], name: response["name"], response: response["response"] }
  if (typeof part["text"] === "string") return { type: part["thought"] === true ? "reasoning" : "text", content: part["text"] }
  return part
}

/** A Gemini `Content` (`{role, parts}`) as a message; undefined (counted) for anything else. */
const geminiMessage = (content: unknown, defaultRole: string, skip: () => void): MessageParts | undefined => {
  if (!Predicate.isRecord(content) || !Array.isArray(content["parts"])) {
    skip()
    return undefined
  }
  return parseMessage({ role: content["role"] ?? defaultRole, parts: content["parts"].map(geminiPart) }, defaultRole, skip)
}

/** `config.system_instruction`: text, a `Content`, or a list of parts. */
const systemInstruction = (config: Rec | undefined, skip: () => void): MessageParts | undefined => {
  const value = config === undefined ? undefined : firstPresent(config["system_instruction"], config["systemInstruction"])
  if (value === undefined || value === null) return undefined
  if (typeof value === "string") return value.trim().length === 0 ? undefined : { role: "system", name: undefined, items: [{ type: "text", text: value }] }
  const parts = Array.isArray(value) ? value : Predicate.isRecord(value) && Array.isArray(value["parts"]) ? value["parts"] : undefined
  if (parts === undefined) return geminiMessage(value, "system", skip)
  return parseMessage({ role: "system", parts: parts.map(geminiPart) }, "system", skip)
}

/** A `call_llm` span's request and response as a model call; undefined when it has neither. */
export const adkCall = (span: Span, skip: () => void): ModelCall | undefined => {
  const request = jsonRecord(span.attributes[ADK_REQUEST])
  const response = jsonRecord(span.attributes[ADK_RESPONSE])
  if (request === undefined && response === undefined) return undefined
  const start = isoOf(span.startNanos)
  const input: Array<Message> = []
  const config = request === undefined || !Predicate.isRecord(request["config"]) ? undefined : request["config"]
  const system = systemInstruction(config, skip)
  if (system !== undefined && system.items.length > 0) input.push(stampMessage(system, spanSource(span, "system_instructions"), start))
  const contents = request?.["contents"]
  if (Array.isArray(contents)) {
    contents.forEach((content, i) => {
      const message = geminiMessage(content, "user", skip)
      if (message !== undefined && message.items.length > 0) input.push(stampMessage(message, spanSource(span, `input[${i}]`), start))
    })
  }
  const output: Array<Message> = []
  const answer = response?.["content"]
  if (answer !== undefined && answer !== null) {
    const message = geminiMessage(answer, "model", skip)
    if (message !== undefined && message.items.length > 0) output.push(stampMessage(message, spanSource(span, "output[0]"), isoOf(span.endNanos)))
  }
  return { input, output }
}

/** An `execute_tool` span's arguments (`gcp.vertex.agent.tool_call_args`), as JSON text. */
export const adkToolArgs = (span: Span): string | undefined => {
  const value = span.attributes[ADK_TOOL_ARGS]
  return value === undefined || value === null ? undefined : textOf(value)
}

/** An `execute_tool` span's response (`gcp.vertex.agent.tool_response`) when it is not the empty `{}`. */
export const adkToolResponse = (span: Span): string | undefined => {
  const value = span.attributes[ADK_TOOL_RESPONSE]
  if (value === undefined || value === null) return undefined
  const parsed = parseJsonish(value)
  return Predicate.isRecord(parsed) && Object.keys(parsed).length === 0 ? undefined : textOf(value)
}
