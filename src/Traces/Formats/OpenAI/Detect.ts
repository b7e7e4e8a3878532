/**
 * Detection of the `openai` importer's bodies (DECISIONS §12): Chat Completions messages, requests
 * and responses, Responses API bodies and items, Agents SDK span objects. Looks at the top level
 * and a sample of records only.
 */
import * as Predicate from "effect/Predicate"
import { stringField } from "../../Importer.js"
import { hasAnthropicMarker } from "../Anthropic.js"
import { sample, type Rec } from "../Common.js"
import { isRunState } from "./RunState.js"

const CHAT_ROLES: ReadonlySet<string> = new Set(["system", "developer", "user", "assistant", "tool", "function"])

/** Responses API item types (input and output items). */
const ITEM_TYPES: ReadonlySet<string> = new Set([
  "message",
  "function_call",
  "function_call_output",
  "reasoning",
  "custom_tool_call",
  "custom_tool_call_output",
  "web_search_call",
  "file_search_call",
  "computer_call",
  "computer_call_output",
  "code_interpreter_call",
  "image_generation_call",
  "local_shell_call",
  "local_shell_call_output",
  "shell_call",
  "shell_call_output",
  "apply_patch_call",
  "apply_patch_call_output",
  "mcp_call",
  "mcp_list_tools",
  "mcp_approval_request",
  "mcp_approval_response",
  "item_reference",
  "compaction"
])

// ---------------------------------------------------------------------------------------------
// Detection

export const isSpanObject = (value: unknown): boolean =>
  Predicate.isRecord(value) &&
  (value["object"] === "trace.span" || (value["object"] === "trace" && "workflow_name" in value) || Predicate.isRecord(value["span_data"]))

const isChatMessage = (value: unknown): boolean => {
  if (!Predicate.isRecord(value) || "from" in value) return false
  const role = stringField(value, "role")
  if (role === undefined || !CHAT_ROLES.has(role)) return false
  const content = value["content"]
  return typeof content === "string" || content === null || Array.isArray(content) || Array.isArray(value["tool_calls"]) || typeof value["refusal"] === "string"
}

export const isItem = (value: unknown): boolean => {
  if (!Predicate.isRecord(value)) return false
  const type = stringField(value, "type")
  return type !== undefined && ITEM_TYPES.has(type) && (type !== "message" || typeof value["role"] === "string")
}

export const isCompletion = (value: Rec): boolean => {
  if (value["object"] === "chat.completion") return true
  const choices = value["choices"]
  if (!Array.isArray(choices)) return false
  const first: unknown = choices[0]
  return Predicate.isRecord(first) && Predicate.isRecord(first["message"]) && typeof first["message"]["role"] === "string"
}

export const isResponsesBody = (value: Rec): boolean => {
  if (value["object"] === "response") return true
  // observations and runs of other tools (`type: "GENERATION"`, `run_type`) also have input / output
  if ("type" in value || "run_type" in value) return false
  const output = value["output"]
  if (Array.isArray(output) && sample(output).some(isItem)) return true
  const input = value["input"]
  const inputOk = typeof input === "string" || (Array.isArray(input) && input.length > 0 && sample(input).every((item) => isItem(item) || isChatMessage(item)))
  return inputOk && (typeof value["model"] === "string" || typeof value["instructions"] === "string" || Array.isArray(output))
}

const isChatRequest = (value: Rec): boolean => {
  const messages = value["messages"]
  if (!Array.isArray(messages) || messages.length === 0) return false
  if ("system" in value || "agents" in value || "trajectory_format" in value) return false
  const records = sample(messages)
  if (records.some((record) => Predicate.isRecord(record) && "from" in record)) return false
  const known = records.filter((record) => isChatMessage(record) || isItem(record)).length
  return known > 0 && known * 2 >= records.length
}

const detectRecord = (value: Rec, depth: number): boolean => {
  if (isSpanObject(value) || isCompletion(value) || isResponsesBody(value) || isChatRequest(value) || isRunState(value)) return true
  const data = value["data"]
  if (Array.isArray(data) && data.length > 0 && sample(data).some(isSpanObject)) return true
  if (depth > 1) return false
  const request = value["request"]
  const response = value["response"]
  return (Predicate.isRecord(request) && detectRecord(request, depth + 1)) || (Predicate.isRecord(response) && detectRecord(response, depth + 1))
}

/** True when the first records of a list are mostly OpenAI messages, items, spans or calls. */
const listLooksOpenAI = (list: ReadonlyArray<unknown>): boolean => {
  const records = sample(list)
  let known = 0
  for (const record of records) {
    if (Predicate.isRecord(record) && "from" in record) return false
    if (isChatMessage(record) || isItem(record) || isSpanObject(record) || (Predicate.isRecord(record) && detectRecord(record, 1))) known++
  }
  return known > 0 && known * 2 >= records.length
}

export const detectBody = (body: unknown): boolean => {
  if (Array.isArray(body)) return body.length > 0 && !hasAnthropicMarker(body) && listLooksOpenAI(body)
  return Predicate.isRecord(body) && !hasAnthropicMarker(body) && detectRecord(body, 0)
}
