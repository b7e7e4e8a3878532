/**
 * Responses API items (DECISIONS §12): `message`, `function_call` / `function_call_output`,
 * `reasoning` (summary as a thought), and the hosted tools' `*_call` items as tool calls.
 */
import * as Predicate from "effect/Predicate"
import type { EventInput } from "../../Builder.js"
import { stringField } from "../../Importer.js"
import { jsonText, type Rec, type Who } from "../Common.js"
import { chatMessageEvents } from "./Chat.js"
import { contentOf, type Options, type Reader, toolResult } from "./Reader.js"

/** The first readable description of a hosted tool call's input. */
const callInput = (item: Rec): string => {
  for (const field of ["arguments", "input", "code", "action", "queries", "operation", "query", "revised_prompt"]) {
    const value = item[field]
    if (value !== undefined && value !== null) return jsonText(value)
  }
  const rest: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(item)) {
    if (!["id", "type", "status", "result", "results", "outputs", "output", "call_id"].includes(key)) rest[key] = value
  }
  return jsonText(rest)
}

export const itemEvents = (reader: Reader, item: unknown, source: string, options: Options): Array<EventInput> => {
  if (!Predicate.isRecord(item)) {
    if (typeof item === "string" && item.length > 0) return [{ actor: "user", role: "user", kind: "message", content: item, source, timestamp: options.timestamp }]
    reader.builder.skip()
    return []
  }
  const type = stringField(item, "type")
  const timestamp = options.timestamp
  // An input message without `type` (EasyInputMessage) or a Chat Completions message.
  if (type === undefined || type === "message") {
    if (typeof item["role"] === "string") return chatMessageEvents(reader, item, source, options)
    reader.builder.skip()
    return []
  }
  const agent: Who = { actor: options.assistant ?? "assistant", role: "agent" }
  switch (type) {
    case "function_call":
    case "custom_tool_call": {
      const tool = stringField(item, "name") ?? "function"
      const id = stringField(item, "call_id")
      if (id !== undefined) reader.tools.set(id, tool)
      return [{ actor: agent.actor, role: agent.role, kind: "tool_call", content: jsonText(item[type === "function_call" ? "arguments" : "input"]), tool, source, timestamp, call_id: id }]
    }
    case "reasoning": {
      const parts: Array<string> = []
      for (const field of ["summary", "content"]) {
        const list = item[field]
        if (!Array.isArray(list)) continue
        for (const part of list) {
          if (Predicate.isRecord(part) && typeof part["text"] === "string" && part["text"].length > 0) parts.push(part["text"])
        }
      }
      if (parts.length === 0) {
        reader.builder.skip()
        return []
      }
      return [{ actor: agent.actor, role: agent.role, kind: "thought", content: parts.join("\n\n"), source, timestamp }]
    }
    case "mcp_call": {
      const tool = stringField(item, "name") ?? "mcp"
      const call_id = stringField(item, "id")
      const events: Array<EventInput> = [{ actor: agent.actor, role: agent.role, kind: "tool_call", content: jsonText(item["arguments"]), tool, source, timestamp, call_id }]
      const error = item["error"]
      if (error !== undefined && error !== null) events.push({ actor: tool, role: "tool", kind: "error", content: jsonText(error), tool, source, timestamp, call_id, status: "error" })
      else if (item["output"] !== undefined && item["output"] !== null) events.push({ actor: tool, role: "tool", kind: "tool_result", content: jsonText(item["output"]), tool, source, timestamp, call_id })
      return events
    }
    case "computer_call_output":
    case "mcp_list_tools":
    case "mcp_approval_request":
    case "mcp_approval_response":
    case "item_reference":
    case "compaction":
      // screenshots, tool listings, approvals and references: not trace content
      reader.builder.skip()
      return []
    default:
      break
  }
  if (type.endsWith("_call_output")) {
    const output = item["output"]
    const content = typeof output === "string" ? output : (contentOf(reader, output) ?? jsonText(output))
    return [toolResult(reader, stringField(item, "call_id"), type.slice(0, -"_call_output".length), content, source, timestamp)]
  }
  if (type.endsWith("_call")) {
    const tool = type.slice(0, -"_call".length)
    const id = stringField(item, "call_id")
    if (id !== undefined) reader.tools.set(id, tool)
    // a hosted tool's call and its results are one item: its id links them
    const call_id = id ?? stringField(item, "id")
    const events: Array<EventInput> = [{ actor: agent.actor, role: agent.role, kind: "tool_call", content: callInput(item), tool, source, timestamp, call_id }]
    // code interpreter logs and file search results come back on the same item
    const results = item["results"] ?? item["outputs"]
    if (Array.isArray(results) && results.length > 0) events.push({ actor: tool, role: "tool", kind: "tool_result", content: jsonText(results), tool, source, timestamp, call_id })
    if (item["status"] === "failed") events.push({ actor: tool, role: "tool", kind: "error", content: `${type} failed`, tool, source, timestamp, call_id, status: "error" })
    return events
  }
  reader.builder.skip()
  return []
}
