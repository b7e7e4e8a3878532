/**
 * LangSmith message content (DECISIONS §12): OpenAI-style dicts, LangChain serialized and dict
 * messages, content blocks, and their tool calls, as events.
 */
import * as Predicate from "effect/Predicate"
import type { EventInput } from "../../Builder.js"
import { stringField } from "../../Importer.js"
import type { EventKind } from "../../Model.js"
import { idOf, nonEmpty, toolCallOf, type Rec, type ToolCallRead } from "../Common.js"
import { textOf } from "./Values.js"

export interface MessageContext {
  /** The agent speaking for assistant messages. */
  readonly actor: string
  /** Tool names by tool call id, filled as calls are read. */
  readonly toolNames: Map<string, string>
}

type Side = "user" | "agent" | "system" | "tool"

const sideOf = (type: string): Side | undefined => {
  const t = type.replace(/Chunk$/, "")
  switch (t) {
    case "user":
    case "human":
    case "HumanMessage":
      return "user"
    case "assistant":
    case "ai":
    case "AIMessage":
    case "model":
      return "agent"
    case "system":
    case "developer":
    case "SystemMessage":
      return "system"
    case "tool":
    case "function":
    case "ToolMessage":
    case "FunctionMessage":
      return "tool"
    default:
      return undefined
  }
}

/** The side and fields of a message in one of the shapes above, or undefined. */
const messageParts = (message: Rec): { readonly side: Side; readonly fields: Rec } | undefined => {
  const id = message["id"]
  if (message["lc"] === 1 && Array.isArray(id) && Predicate.isRecord(message["kwargs"])) {
    const fields = message["kwargs"]
    const cls = id.at(-1)
    if (typeof cls !== "string") return undefined
    const side = cls.replace(/Chunk$/, "") === "ChatMessage" ? sideOf(stringField(fields, "role") ?? "") : sideOf(cls)
    return side === undefined ? undefined : { side, fields }
  }
  const type = stringField(message, "type")
  const data = message["data"]
  if (type !== undefined && Predicate.isRecord(data) && ("content" in data || "tool_calls" in data)) {
    const side = type === "chat" ? sideOf(stringField(data, "role") ?? "") : sideOf(type)
    return side === undefined ? undefined : { side, fields: data }
  }
  const role = stringField(message, "role") ?? type
  if (role === undefined) return undefined
  const side = sideOf(role)
  return side === undefined ? undefined : { side, fields: message }
}

/** `{id, function: {name, arguments}}` (OpenAI) or `{id, name, args}` (LangChain). */
const callOf = (call: unknown): ToolCallRead | undefined => toolCallOf(call, { nested: ["arguments"], flat: ["args", "arguments", "input"] })

/**
 * The events of one message, or undefined when it is not a message this importer knows (counted
 * as skipped by the caller).
 */
export const messageEvents = (
  message: unknown,
  source: string,
  timestamp: string | undefined,
  context: MessageContext
): ReadonlyArray<EventInput> | undefined => {
  if (typeof message === "string") return [{ actor: "user", role: "user", kind: "message", content: message, source, timestamp }]
  if (Array.isArray(message) && message.length === 2 && typeof message[0] === "string" && typeof message[1] === "string") {
    const side = sideOf(message[0])
    if (side === undefined || side === "tool") return undefined
    return [eventFor(side, context, message[1], source, timestamp)]
  }
  if (!Predicate.isRecord(message)) return undefined
  const parts = messageParts(message)
  if (parts === undefined) return undefined
  const { side, fields } = parts
  const events: Array<EventInput> = []
  const content = fields["content"]
  const additional = Predicate.isRecord(fields["additional_kwargs"]) ? fields["additional_kwargs"] : {}

  if (side === "tool") {
    const callId = idOf(fields["tool_call_id"])
    const tool = stringField(fields, "name") ?? (callId === undefined ? undefined : context.toolNames.get(callId))
    const kind: EventKind = stringField(fields, "status") === "error" ? "error" : "tool_result"
    events.push({ actor: tool ?? "tool", role: "tool", kind, content: textOf(content) ?? "", tool, source, timestamp, call_id: callId, status: kind === "error" ? "error" : undefined })
    return events
  }

  const reasoning = stringField(fields, "reasoning_content") ?? stringField(additional, "reasoning_content")
  if (side === "agent" && nonEmpty(reasoning) !== undefined && reasoning !== undefined) {
    events.push({ actor: context.actor, role: "agent", kind: "thought", content: reasoning, source, timestamp })
  }

  // Content blocks: text, thinking, tool_use (assistant) and tool_result (user) blocks.
  const calls: Array<ToolCallRead> = []
  if (Array.isArray(content)) {
    for (const block of content) {
      if (!Predicate.isRecord(block)) continue
      const type = stringField(block, "type")
      if (side === "agent" && (type === "thinking" || type === "reasoning")) {
        const thought = stringField(block, "thinking") ?? stringField(block, "text")
        if (nonEmpty(thought) !== undefined && thought !== undefined) events.push({ actor: context.actor, role: "agent", kind: "thought", content: thought, source, timestamp })
      } else if (type === "tool_use" || type === "tool_call" || type === "function_call") {
        const call = callOf(block)
        if (call !== undefined) calls.push(call)
      } else if (type === "tool_result") {
        const callId = idOf(block["tool_use_id"])
        const tool = callId === undefined ? undefined : context.toolNames.get(callId)
        events.push({
          actor: tool ?? "tool",
          role: "tool",
          kind: block["is_error"] === true ? "error" : "tool_result",
          content: textOf(block["content"]) ?? "",
          tool,
          source,
          timestamp,
          call_id: callId,
          status: block["is_error"] === true ? "error" : undefined
        })
      }
    }
  }
  const text = textOf(content)
  if (text !== undefined && text.trim().length > 0) events.push(eventFor(side, context, text, source, timestamp))

  if (side === "agent") {
    const toolCalls = Array.isArray(fields["tool_calls"]) && fields["tool_calls"].length > 0 ? fields["tool_calls"] : additional["tool_calls"]
    if (Array.isArray(toolCalls)) {
      for (const raw of toolCalls) {
        const call = callOf(raw)
        if (call !== undefined) calls.push(call)
      }
    }
    const functionCall = fields["function_call"] ?? additional["function_call"]
    const fnCall = callOf(Predicate.isRecord(functionCall) ? { function: functionCall } : undefined)
    if (fnCall !== undefined && calls.length === 0) calls.push(fnCall)
    for (const call of calls) {
      if (call.id !== undefined) context.toolNames.set(call.id, call.name)
      events.push({ actor: context.actor, role: "agent", kind: "tool_call", content: call.args, tool: call.name, source, timestamp, call_id: call.id })
    }
  }
  return events
}

const eventFor = (side: Exclude<Side, "tool">, context: MessageContext, content: string, source: string, timestamp: string | undefined): EventInput => {
  switch (side) {
    case "user":
      return { actor: "user", role: "user", kind: "message", content, source, timestamp }
    case "system":
      return { actor: "system", role: "system", kind: "message", content, source, timestamp }
    case "agent":
      return { actor: context.actor, role: "agent", kind: "message", content, source, timestamp }
  }
}
