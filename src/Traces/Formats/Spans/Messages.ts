/**
 * Chat messages in span attributes (DECISIONS §12): one message shape for the GenAI
 * `{role, parts}` convention, OpenAI-style messages and choices, Responses items and plain strings,
 * with text, thought, tool-call and tool-result items; the actor role of a source role.
 */
import * as Predicate from "effect/Predicate"
import { contentText } from "../../Builder.js"
import { type ActorRole, isContentPlaceholder } from "../../Model.js"
import { str } from "../Common.js"
import { first, parseJsonish, recordAt, textOf, type Json } from "./Attributes.js"

export type MessageItem =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "thought"; readonly text: string }
  | { readonly type: "tool_call"; readonly id: string | undefined; readonly name: string; readonly args: string }
  | { readonly type: "tool_result"; readonly id: string | undefined; readonly name: string | undefined; readonly text: string; readonly error: boolean }

export interface Message {
  /** The source's role, as written (`user`, `assistant`, `tool`, `human`, an agent's name, ...). */
  readonly role: string
  readonly name: string | undefined
  readonly items: ReadonlyArray<MessageItem>
  readonly source: string
  readonly timestamp: string | undefined
}

const TEXT_PARTS = new Set(["text", "input_text", "output_text"])
const THOUGHT_PARTS = new Set(["reasoning", "thinking", "redacted_thinking"])
const CALL_PARTS = new Set(["tool_call", "function_call", "tool_use", "server_tool_call", "custom_tool_call"])
const RESULT_PARTS = new Set(["tool_call_response", "function_call_output", "tool_result", "server_tool_call_response", "custom_tool_call_output"])

const toolCallItem = (call: Json): MessageItem => {
  const fn = recordAt(call, "function")
  return {
    type: "tool_call",
    id: str(call["call_id"]) ?? str(call["id"]) ?? str(call["tool_call_id"]),
    name: str(fn?.["name"]) ?? str(call["name"]) ?? "",
    args: textOf(first(fn?.["arguments"], call["arguments"], call["args"], call["input"]))
  }
}

/** The items of one content part; unknown part types are counted with `skip`. */
const partItems = (part: unknown, skip: () => void): ReadonlyArray<MessageItem> => {
  if (typeof part === "string") return part.length > 0 ? [{ type: "text", text: part }] : []
  if (!Predicate.isRecord(part)) {
    skip()
    return []
  }
  const type = str(part["type"])
  if (type === undefined || TEXT_PARTS.has(type)) {
    const text = first(part["content"], part["text"])
    if (text === undefined && type === undefined) {
      skip()
      return []
    }
    const content = contentText(text)
    return content.length > 0 ? [{ type: "text", text: content }] : []
  }
  if (THOUGHT_PARTS.has(type)) {
    const content = contentText(first(part["content"], part["text"], part["thinking"], part["summary"]))
    return content.length > 0 ? [{ type: "thought", text: content }] : []
  }
  if (CALL_PARTS.has(type)) return [toolCallItem(part)]
  if (RESULT_PARTS.has(type)) {
    return [
      {
        type: "tool_result",
        id: str(part["call_id"]) ?? str(part["id"]) ?? str(part["tool_use_id"]) ?? str(part["tool_call_id"]),
        name: str(part["name"]),
        text: textOf(first(part["response"], part["result"], part["output"], part["content"])),
        error: part["is_error"] === true
      }
    ]
  }
  if (type === "refusal") return [{ type: "text", text: textOf(part["refusal"]) }]
  skip()
  return []
}

const contentItems = (content: unknown, skip: () => void): ReadonlyArray<MessageItem> => {
  if (content === undefined || content === null) return []
  if (typeof content === "string") return content.length > 0 ? [{ type: "text", text: content }] : []
  if (typeof content === "number" || typeof content === "boolean") return [{ type: "text", text: String(content) }]
  if (Array.isArray(content)) return content.flatMap((part) => partItems(part, skip))
  if (Predicate.isRecord(content) && typeof content["type"] === "string") return partItems(content, skip)
  return [{ type: "text", text: textOf(content) }]
}

const ITEM_ROLES: Readonly<Record<string, string>> = {
  function_call: "assistant",
  custom_tool_call: "assistant",
  reasoning: "assistant",
  function_call_output: "tool",
  custom_tool_call_output: "tool"
}

export interface MessageParts {
  readonly role: string
  readonly name: string | undefined
  readonly items: ReadonlyArray<MessageItem>
}

/**
 * One chat message in one of the common shapes: OTel GenAI `{role, parts}`, OpenAI-style
 * `{role, content, tool_calls, tool_call_id}`, a choice `{index, message}`, a Responses item
 * (`function_call`, `function_call_output`, ...), or a string. Undefined (counted with `skip`)
 * for values that are none of these; content parts of unknown types are counted too.
 */
export const parseMessage = (raw: unknown, defaultRole: string, skip: () => void): MessageParts | undefined => {
  if (typeof raw === "string") return { role: defaultRole, name: undefined, items: raw.length > 0 ? [{ type: "text", text: raw }] : [] }
  if (!Predicate.isRecord(raw)) {
    skip()
    return undefined
  }
  const inner = recordAt(raw, "message")
  if (inner !== undefined && raw["role"] === undefined && raw["parts"] === undefined && raw["content"] === undefined) {
    return parseMessage(inner, defaultRole, skip)
  }
  const itemType = str(raw["type"])
  const role = str(raw["role"]) ?? (itemType === undefined ? undefined : ITEM_ROLES[itemType]) ?? defaultRole
  const items: Array<MessageItem> = []
  if (raw["role"] === undefined && itemType !== undefined && itemType !== "message") {
    items.push(...partItems(raw, skip))
  } else if (Array.isArray(raw["parts"])) {
    for (const part of raw["parts"]) items.push(...partItems(part, skip))
  } else {
    items.push(...contentItems(raw["content"], skip))
  }
  const calls = raw["tool_calls"]
  if (Array.isArray(calls)) {
    for (const call of calls) {
      if (Predicate.isRecord(call)) items.push(toolCallItem(call))
      else skip()
    }
  }
  const name = str(raw["name"])
  if (roleOf(role) === "tool") {
    const id = str(raw["tool_call_id"]) ?? str(raw["id"]) ?? str(raw["call_id"])
    return {
      role,
      name,
      items: items.map((item) => (item.type === "text" ? { type: "tool_result", id, name, text: item.text, error: false } : item))
    }
  }
  return { role, name, items }
}

/** Parses a list of messages (an array, or a JSON string of one); a lone message or string counts as one. */
export const parseMessages = (value: unknown, defaultRole: string, skip: () => void): ReadonlyArray<MessageParts> => {
  const parsed = parseJsonish(value)
  if (parsed === undefined || parsed === null || parsed === "") return []
  const list = Array.isArray(parsed) ? parsed : [parsed]
  const messages: Array<MessageParts> = []
  for (const raw of list) {
    const message = parseMessage(raw, defaultRole, skip)
    if (message !== undefined) messages.push(message)
  }
  return messages
}

/** A model call's messages: what it was given and what it answered. */
export interface ModelCall {
  readonly input: ReadonlyArray<Message>
  readonly output: ReadonlyArray<Message>
}

/** Parsed messages with their pointers (`source(i)` for the i-th) and one timestamp. */
/**
 * A message with its source and time. Written out field by field: an object spread followed by
 * more properties (`{...message, source}`) costs V8 about twenty times as much, per message.
 */
export const stampMessage = (message: MessageParts, source: string, timestamp: string | undefined): Message => ({
  role: message.role,
  name: message.name,
  items: message.items,
  source,
  timestamp
})

export const stampMessages = (parts: ReadonlyArray<MessageParts>, source: (index: number) => string, timestamp: string | undefined): Array<Message> =>
  parts.map((message, i) => stampMessage(message, source(i), timestamp))

/** A text that says something: not blank, not `{}`, no instrumentation's placeholder. */
const says = (text: string): boolean => {
  const trimmed = text.trim()
  return trimmed.length > 0 && trimmed !== "{}" && !isContentPlaceholder(trimmed)
}

/** True when some item of the messages says something: text, a thought, a call's arguments, a result. */
export const hasContent = (messages: ReadonlyArray<Message>): boolean =>
  messages.some((message) => message.items.some((item) => says(item.type === "tool_call" ? item.args : item.text)))

/** The first non-blank text of the messages (of those with the given role, when one is given). */
export const firstText = (messages: ReadonlyArray<Message>, role?: string): string | undefined => {
  for (const message of messages) {
    if (role !== undefined && message.role !== role) continue
    for (const item of message.items) if (item.type === "text" && item.text.trim().length > 0) return item.text
  }
  return undefined
}

export const ROLE_WORDS: Readonly<Record<string, ActorRole>> = {
  user: "user",
  human: "user",
  system: "system",
  developer: "system",
  assistant: "agent",
  ai: "agent",
  model: "agent",
  bot: "agent",
  agent: "agent",
  "tool-call": "agent",
  tool: "tool",
  function: "tool",
  ipython: "tool",
  "tool-response": "tool"
}
/** The actor role of a source role; other names (an agent's name as role) are agents. */
export const roleOf = (role: string): ActorRole => ROLE_WORDS[role.toLowerCase()] ?? "agent"

/** The canonical form of tool-call arguments, so `{"a": 1}` and `{"a":1}` match. */
export const canonicalArgs = (args: string): string => {
  const parsed = parseJsonish(args)
  return typeof parsed === "string" ? parsed.trim() : JSON.stringify(parsed) ?? ""
}

