/**
 * Anthropic Messages API content blocks as the `anthropic` and `claude_code` importers both read
 * them (DECISIONS §12): a `tool_use` block is a tool call (content its input as JSON; its id's tool
 * name remembered), a `tool_result` block the result of the call its `tool_use_id` names (an error
 * with `is_error: true`; content a string, or the text of its blocks, others skipped and counted).
 * Sources, times and the blocks only one of the importers reads stay with the importer.
 */
import * as Predicate from "effect/Predicate"
import type { EventInput, TraceBuilder } from "../Builder.js"
import { stringField } from "../Importer.js"
import { jsonText, type Rec } from "./Common.js"

/** The text of a tool_result's content: a string, or its text blocks (others skipped, counted). */
export const toolResultText = (builder: TraceBuilder, content: unknown): string => {
  if (typeof content === "string") return content
  if (content === undefined || content === null) return ""
  if (!Array.isArray(content)) return jsonText(content)
  const texts: Array<string> = []
  for (const block of content) {
    if (typeof block === "string") texts.push(block)
    else if (Predicate.isRecord(block) && typeof block["text"] === "string") texts.push(block["text"])
    else builder.skip()
  }
  return texts.join("\n")
}

/** A tool call's event fields, without who made it and where it stands. */
export type ToolUseFields = Pick<EventInput, "kind" | "content" | "tool" | "call_id">

/** A `tool_use` block: its id, and the tool call it is (its tool name, "tool" when unnamed, recorded under its id in `tools`). */
export const toolUseOf = (tools: Map<string, string>, block: Rec): { readonly id: string | undefined; readonly call: ToolUseFields } => {
  const name = stringField(block, "name") ?? "tool"
  const id = stringField(block, "id")
  if (id !== undefined) tools.set(id, name)
  return { id, call: { kind: "tool_call", content: jsonText(block["input"] ?? {}), tool: name, call_id: id } }
}

/**
 * A `tool_result` block's event, but for its source: by the tool its `tool_use_id` names (`tool`
 * when unknown), belonging to that call; `is_error` is its status (`ok` only when it says false).
 */
export const toolResultOf = (builder: TraceBuilder, tools: ReadonlyMap<string, string>, block: Rec): Omit<EventInput, "source"> => {
  const id = stringField(block, "tool_use_id")
  const tool = id === undefined ? undefined : tools.get(id)
  const failed = block["is_error"] === true
  const kind = failed ? "error" : "tool_result"
  const status = failed ? "error" : block["is_error"] === false ? "ok" : undefined
  return { actor: tool ?? "tool", role: "tool", kind, content: toolResultText(builder, block["content"]), tool, call_id: id, status }
}
