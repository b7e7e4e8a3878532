/**
 * OpenInference messages (DECISIONS §12): the flattened `llm.input_messages.N.message.*` /
 * `llm.output_messages.N.message.*` attributes, `input.value` / `output.value` as request and
 * response bodies or text, and ADOT exports' messages in span-event bodies (LangChain-serialized
 * contents unwrapped).
 */
import * as Predicate from "effect/Predicate"
import { firstPresent, str, type Rec } from "../Common.js"
import { isoOf, parseJsonish, parseMessage, parseMessages, spanSource, stampMessages, textOf, unflatten, type Message, type MessageParts, type Span } from "../Spans.js"

export const adotBody = (span: Span): Rec | undefined => {
  for (const event of span.events) {
    if (Predicate.isRecord(event.body) && (Predicate.isRecord(event.body["input"]) || Predicate.isRecord(event.body["output"]))) return event.body
  }
  return undefined
}

/** An OpenInference message (`{message: {role, content, contents, tool_calls, ...}}`) in the common shape. */
const oiMessage = (raw: unknown): unknown => {
  const message = Predicate.isRecord(raw) && Predicate.isRecord(raw["message"]) ? raw["message"] : raw
  if (!Predicate.isRecord(message)) return message
  const contents = Array.isArray(message["contents"])
    ? message["contents"].map((entry) => {
        const content = Predicate.isRecord(entry) && Predicate.isRecord(entry["message_content"]) ? entry["message_content"] : entry
        if (!Predicate.isRecord(content)) return content
        const type = str(content["type"]) ?? "text"
        return type === "text" ? { type, text: content["text"] } : { type }
      })
    : undefined
  const calls = Array.isArray(message["tool_calls"])
    ? message["tool_calls"].map((entry) => (Predicate.isRecord(entry) && Predicate.isRecord(entry["tool_call"]) ? entry["tool_call"] : entry))
    : undefined
  const content = message["content"]
  return {
    role: message["role"],
    name: message["name"],
    content: content === undefined || content === null || content === "" ? contents : content,
    tool_calls: calls,
    tool_call_id: message["tool_call_id"]
  }
}

export const oiMessages = (span: Span, key: "llm.input_messages" | "llm.output_messages", defaultRole: string, skip: () => void): Array<MessageParts> => {
  const nested = span.attributes[key]
  if (nested !== undefined && !Array.isArray(nested)) skip()
  const list = Array.isArray(nested) ? nested : unflatten(span.attributes, `${key}.`)
  const messages: Array<MessageParts> = []
  for (const raw of list) {
    const message = parseMessage(oiMessage(raw), defaultRole, skip)
    if (message !== undefined) messages.push(message)
  }
  return messages
}

const isJsonMime = (span: Span, key: "input.mime_type" | "output.mime_type"): boolean => str(span.attributes[key])?.includes("json") ?? false

const isTextMime = (span: Span, key: "input.mime_type" | "output.mime_type"): boolean => str(span.attributes[key])?.startsWith("text/") ?? false

/**
 * `input.value` as messages: a request body's `messages` or `input`, a list of messages, or text
 * (an agent's input only when it says it is text: agents' inputs are often their arguments).
 */
export const inputValueMessages = (span: Span, skip: () => void, agent = false): Array<MessageParts> => {
  const value = span.attributes["input.value"]
  if (value === undefined || value === null || value === "") return []
  const parsed = parseJsonish(value)
  if (typeof parsed === "string") {
    return agent && !isTextMime(span, "input.mime_type") ? [] : [{ role: "user", name: undefined, items: [{ type: "text", text: parsed }] }]
  }
  if (Array.isArray(parsed)) return [...parseMessages(parsed, "user", skip)]
  if (Predicate.isRecord(parsed)) {
    const messages = firstPresent(parsed["messages"], parsed["input"])
    if (messages !== undefined) return [...parseMessages(messages, "user", skip)]
    const instruction = taskField(parsed)
    if (instruction !== undefined) return [{ role: "user", name: undefined, items: [{ type: "text", text: instruction }] }]
  }
  return isJsonMime(span, "input.mime_type") ? [] : [{ role: "user", name: undefined, items: [{ type: "text", text: textOf(value) }] }]
}

/** `output.value` as messages: a Chat Completion's choice, a Responses `output`, a message, or text. */
export const outputValueMessages = (span: Span, skip: () => void, agent = false): Array<MessageParts> => {
  const value = span.attributes["output.value"]
  if (value === undefined || value === null || value === "") return []
  const parsed = parseJsonish(value)
  if (typeof parsed === "string") {
    return agent && !isTextMime(span, "output.mime_type") ? [] : [{ role: "assistant", name: undefined, items: [{ type: "text", text: parsed }] }]
  }
  if (Predicate.isRecord(parsed)) {
    const choices = parsed["choices"]
    if (Array.isArray(choices)) return [...parseMessages(choices.slice(0, 1), "assistant", skip)]
    if (Array.isArray(parsed["output"])) return [...parseMessages(parsed["output"], "assistant", skip)]
    if ("role" in parsed || "content" in parsed) return [...parseMessages(parsed, "assistant", skip)]
  }
  return []
}

/** A task-like field of a JSON input (`task`, `input`, `query`, `question`, `prompt`). */
const taskField = (record: Rec): string | undefined =>
  str(record["task"]) ?? str(record["input"]) ?? str(record["query"]) ?? str(record["question"]) ?? str(record["prompt"])

export const rootText = (value: unknown): string | undefined => {
  const parsed = parseJsonish(value)
  if (typeof parsed === "string") return parsed
  return Predicate.isRecord(parsed) ? taskField(parsed) ?? textOf(value) : value === undefined ? undefined : textOf(value)
}

export const stamp = (parts: ReadonlyArray<MessageParts>, span: Span, direction: "input" | "output", nanos: bigint | undefined): Array<Message> =>
  stampMessages(parts, (i) => spanSource(span, `${direction}[${i}]`), isoOf(nanos))

// ADOT (LangChain through CloudWatch): messages in span-event bodies, contents often JSON-wrapped.

const LANGCHAIN_ROLES: Readonly<Record<string, string>> = { human: "user", ai: "assistant", tool: "tool", system: "system" }

/** A LangChain-serialized content (`{generations}`, `{messages}`, a tool message) as messages. */
const unwrapLangChain = (role: string, content: string, skip: () => void): ReadonlyArray<MessageParts> | undefined => {
  const parsed = parseJsonish(content)
  if (!Predicate.isRecord(parsed)) return undefined
  const generations = parsed["generations"]
  if (Array.isArray(generations)) {
    const batch: unknown = generations[0]
    const generation: unknown = Array.isArray(batch) ? batch[0] : undefined
    if (!Predicate.isRecord(generation)) return []
    const message = Predicate.isRecord(generation["message"]) ? generation["message"] : undefined
    const kwargs = message !== undefined && Predicate.isRecord(message["kwargs"]) ? message["kwargs"] : message
    const calls = kwargs?.["tool_calls"]
    const parsedMessage = parseMessage(
      {
        role: "assistant",
        content: generation["text"],
        tool_calls: Array.isArray(calls)
          ? calls.map((call) => (Predicate.isRecord(call) ? { id: call["id"], name: call["name"], arguments: firstPresent(call["args"], call["arguments"]) } : call))
          : undefined
      },
      "assistant",
      skip
    )
    return parsedMessage === undefined ? [] : [parsedMessage]
  }
  if (Array.isArray(parsed["messages"])) {
    return parsed["messages"].flatMap((raw) => {
      const entry = Predicate.isRecord(raw) && Predicate.isRecord(raw["kwargs"]) ? raw["kwargs"] : raw
      if (!Predicate.isRecord(entry)) return []
      const type = str(entry["type"])
      const message = parseMessage({ ...entry, role: entry["role"] ?? (type === undefined ? role : LANGCHAIN_ROLES[type] ?? type) }, role, skip)
      return message === undefined ? [] : [message]
    })
  }
  if (parsed["type"] === "tool" && "content" in parsed) {
    const message = parseMessage({ role: "tool", content: parsed["content"], tool_call_id: parsed["tool_call_id"], name: parsed["name"] }, "tool", skip)
    return message === undefined ? [] : [message]
  }
  return undefined
}

/** LangGraph's graph sentinels, which ADOT exports carry as message contents. */
const SENTINELS = new Set(["__start__", "__end__"])

export const adotMessages = (side: unknown, defaultRole: string, skip: () => void): Array<MessageParts> => {
  const list = Predicate.isRecord(side) ? side["messages"] : undefined
  if (!Array.isArray(list)) return []
  const messages: Array<MessageParts> = []
  for (const raw of list) {
    if (Predicate.isRecord(raw) && typeof raw["content"] === "string" && SENTINELS.has(raw["content"])) continue
    if (Predicate.isRecord(raw) && typeof raw["content"] === "string") {
      const unwrapped = unwrapLangChain(str(raw["role"]) ?? defaultRole, raw["content"], skip)
      if (unwrapped !== undefined) {
        messages.push(...unwrapped)
        continue
      }
    }
    const message = parseMessage(raw, defaultRole, skip)
    if (message !== undefined) messages.push(message)
  }
  return messages
}
