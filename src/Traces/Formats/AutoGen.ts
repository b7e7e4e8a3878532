/**
 * AutoGen / AG2 / Magentic-One group chats (DECISIONS §12, format `autogen`): a list of messages,
 * or `{history | messages | chat_history: [...]}` with optional siblings (`question`, `task`,
 * `summary`, `cost`, `stop_reason`, `chat_id`), or a list of such chat results (AG2's
 * `initiate_chats`), one trace each; also a recorded ChatCompletionClient session (a list of
 * `{mode, messages, response}` calls, history de-duplicated).
 *
 * Messages come in three families:
 *  - AG2 / AutoGen 0.2 `{name?, role, content}`: content may be null with `tool_calls` /
 *    `function_call`; `role: "tool"` carries `tool_responses`; a user proxy's
 *    `exitcode: N (...)` reply is a code-execution result.
 *  - AutoGen 0.4 AgentChat `{source, content, type}`: TextMessage, ToolCallRequestEvent,
 *    ToolCallExecutionEvent, ToolCallSummaryMessage, HandoffMessage, StopMessage,
 *    MultiModalMessage, ThoughtEvent, MemoryQueryEvent, CodeGenerationEvent, CodeExecutionEvent ...
 *  - AutoGen core LLMMessage histories `{type: UserMessage | AssistantMessage | SystemMessage |
 *    FunctionExecutionResultMessage, source?, content}`.
 *
 * The actor is the message's `name` / `source`; user-proxy-like names speak as the user. Success
 * is unknown unless a StopMessage or `stop_reason` says the run was cut off (limits, timeouts,
 * errors); a termination keyword says the agents stopped, not that the task was done.
 */
import * as Either from "effect/Either"
import * as Predicate from "effect/Predicate"
import type { EventInput } from "../Builder.js"
import { makeTraceBuilder } from "../Builder.js"
import type { Importer } from "../Importer.js"
import { stringField } from "../Importer.js"
import type { NormalizedTrace } from "../Model.js"
import { contentTextOf, detectSafely, idOf, nonEmpty, sample, toolCallOf, type Rec, type ToolCallRead } from "./Common.js"

const HISTORY_FIELDS = ["history", "messages", "chat_history"] as const

const AGENTCHAT_TYPES: ReadonlySet<string> = new Set([
  "TextMessage",
  "MultiModalMessage",
  "StructuredMessage",
  "ToolCallRequestEvent",
  "ToolCallExecutionEvent",
  "ToolCallSummaryMessage",
  "HandoffMessage",
  "StopMessage",
  "ThoughtEvent",
  "MemoryQueryEvent",
  "CodeGenerationEvent",
  "CodeExecutionEvent",
  "UserInputRequestedEvent",
  "ModelClientStreamingChunkEvent",
  "SelectSpeakerEvent",
  "SelectorEvent",
  "Reflection"
])
const CORE_TYPES: ReadonlySet<string> = new Set(["UserMessage", "AssistantMessage", "SystemMessage", "FunctionExecutionResultMessage"])
/** Control events that carry no trace content of their own. */
const CONTROL_TYPES: ReadonlySet<string> = new Set(["UserInputRequestedEvent", "ModelClientStreamingChunkEvent", "SelectSpeakerEvent", "SelectorEvent"])
/** Top-level fields that are dataset labels or scores, never trace content (counted as skipped). */
const LABEL_FIELDS = ["mistake_step", "mistake_agent", "mistake_reason", "mistake_type", "ground_truth", "is_correct", "is_corrected", "score", "scores", "label", "labels", "annotation", "annotations", "correct", "resolved", "reward"]

const TEXT_PARTS: ReadonlySet<string> = new Set(["text"])

/** Text of a content: a string; the strings and text parts of a list (images left out); else JSON. */
const textOf = (content: unknown): string | undefined => contentTextOf(content, { textParts: TEXT_PARTS, emptyList: "undefined" })

const timestampOf = (record: Rec): string | undefined => nonEmpty(stringField(record, "created_at") ?? stringField(record, "timestamp"))

/** `user`, `User`, `user_proxy`, `UserProxy`, `human`, `admin` (AG2's human-in-the-loop proxy) ... */
const isUserName = (name: string): boolean => {
  let known = userNames.get(name)
  if (known === undefined) {
    const key = name.toLowerCase().replace(/[^a-z]/g, "")
    known = USER_NAMES.has(key) || key.startsWith("userproxy") || key.startsWith("humanproxy")
    // a conversation has few speakers: each name is judged once
    if (userNames.size >= 1024) userNames.clear()
    userNames.set(name, known)
  }
  return known
}
const USER_NAMES: ReadonlySet<string> = new Set(["user", "human", "admin", "customer", "client", "humanuser"])
const userNames = new Map<string, boolean>()

/** A stop reason that says the run was cut off rather than finished. */
const FAILED_STOP = /max(imum|imal)?[ _]?(number|turns?|messages?|rounds?|iterations?)|exceed|limit|timeout|timed out|cancel|abort|interrupt|error|exception|fail/i

/** FunctionCall `{id, name, arguments}` or OpenAI `{id, function: {name, arguments}}`. */
const callOf = (call: unknown): ToolCallRead | undefined => toolCallOf(call, { nested: ["arguments", "args"], flat: ["arguments", "args"] })

interface Conversation {
  readonly messages: ReadonlyArray<unknown>
  /** The source prefix: `history`, `messages`, `chat_history`, `[2].chat_history` or `` (a bare list). */
  readonly prefix: string
  readonly meta: Rec
}

interface ReadState {
  readonly toolNames: Map<string, string>
  stopReason: string | undefined
}

const EXITCODE = /^exitcode: (-?\d+)/

/** The events of one message, or undefined when it is of an unknown type or malformed. */
const messageEvents = (message: unknown, source: string, state: ReadState): ReadonlyArray<EventInput> | undefined => {
  if (!Predicate.isRecord(message)) return undefined
  const timestamp = timestampOf(message)
  const type = stringField(message, "type")
  const sourceName = nonEmpty(stringField(message, "source"))
  const base = { source, timestamp }
  const speaker = (name: string | undefined, defaultUser: boolean) => {
    const user = name === undefined ? defaultUser : isUserName(name)
    return user ? { actor: name ?? "user", role: "user" as const } : { actor: name ?? "assistant", role: "agent" as const }
  }
  const toolResults = (results: unknown): ReadonlyArray<EventInput> | undefined => {
    if (!Array.isArray(results)) return undefined
    const events: Array<EventInput> = []
    for (const result of results) {
      if (!Predicate.isRecord(result)) continue
      const callId = idOf(result["call_id"] ?? result["tool_call_id"])
      const tool = nonEmpty(stringField(result, "name")) ?? (callId === undefined ? undefined : state.toolNames.get(callId))
      const failed = result["is_error"] === true
      events.push({
        source: base.source,
        timestamp: base.timestamp,
        actor: tool ?? "tool",
        role: "tool",
        kind: failed ? "error" : "tool_result",
        content: textOf(result["content"]) ?? "",
        tool,
        call_id: callId,
        status: failed ? "error" : result["is_error"] === false ? "ok" : undefined
      })
    }
    return events
  }
  const toolCalls = (calls: unknown, actor: string): Array<EventInput> => {
    const events: Array<EventInput> = []
    if (!Array.isArray(calls)) return events
    for (const raw of calls) {
      const call = callOf(raw)
      if (call === undefined) continue
      if (call.id !== undefined) state.toolNames.set(call.id, call.name)
      events.push({ source: base.source, timestamp: base.timestamp, actor, role: "agent", kind: "tool_call", content: call.args, tool: call.name, call_id: call.id })
    }
    return events
  }

  // AutoGen 0.4 AgentChat messages and events.
  if (type !== undefined && AGENTCHAT_TYPES.has(type)) {
    if (CONTROL_TYPES.has(type)) return undefined
    const { actor, role } = speaker(sourceName, false)
    const content = message["content"]
    switch (type) {
      case "ToolCallRequestEvent":
        return toolCalls(content, actor)
      case "ToolCallExecutionEvent":
        return toolResults(content)
      case "ThoughtEvent": {
        const text = textOf(content)
        return text === undefined ? undefined : [{ source: base.source, timestamp: base.timestamp, actor, role: "agent", kind: "thought", content: text }]
      }
      case "HandoffMessage": {
        const text = textOf(content) ?? ""
        return [{ source: base.source, timestamp: base.timestamp, actor, role, kind: "handoff", content: text, to: nonEmpty(stringField(message, "target")) }]
      }
      case "MemoryQueryEvent": {
        const texts = Array.isArray(content) ? content.map((item) => (Predicate.isRecord(item) ? textOf(item["content"]) : textOf(item))).filter((t): t is string => t !== undefined) : []
        return [{ source: base.source, timestamp: base.timestamp, actor: "memory", role: "tool", kind: "tool_result", content: texts.length > 0 ? texts.join("\n") : (textOf(content) ?? ""), tool: "memory" }]
      }
      case "CodeGenerationEvent": {
        const text = textOf(content)
        return text === undefined ? undefined : [{ source: base.source, timestamp: base.timestamp, actor, role: "agent", kind: "tool_call", content: text, tool: "code_execution" }]
      }
      case "CodeExecutionEvent": {
        const result = Predicate.isRecord(message["result"]) ? message["result"] : {}
        const exit = result["exit_code"]
        const output = textOf(result["output"]) ?? textOf(content) ?? ""
        return [{ source: base.source, timestamp: base.timestamp, actor: "code_execution", role: "tool", kind: typeof exit === "number" && exit !== 0 ? "error" : "tool_result", content: output, tool: "code_execution" }]
      }
      default: {
        if (type === "StopMessage") state.stopReason = textOf(content) ?? state.stopReason
        const text = textOf(content)
        if (text === undefined) return undefined
        return [{ source: base.source, timestamp: base.timestamp, actor, role, kind: "message", content: text }]
      }
    }
  }

  // AutoGen core LLMMessages.
  if (type !== undefined && CORE_TYPES.has(type)) {
    const content = message["content"]
    switch (type) {
      case "SystemMessage": {
        const text = textOf(content)
        return text === undefined ? undefined : [{ source: base.source, timestamp: base.timestamp, actor: "system", role: "system", kind: "message", content: text }]
      }
      case "UserMessage": {
        const text = textOf(content)
        return text === undefined ? undefined : [{ source: base.source, timestamp: base.timestamp, ...speaker(sourceName, true), kind: "message", content: text }]
      }
      case "FunctionExecutionResultMessage":
        return toolResults(content)
      default: {
        const actor = sourceName ?? "assistant"
        const events: Array<EventInput> = []
        const thought = nonEmpty(stringField(message, "thought"))
        if (thought !== undefined) events.push({ source: base.source, timestamp: base.timestamp, actor, role: "agent", kind: "thought", content: thought })
        if (Array.isArray(content) && content.some((item) => callOf(item) !== undefined)) events.push(...toolCalls(content, actor))
        else {
          const text = textOf(content)
          if (text !== undefined) events.push({ source: base.source, timestamp: base.timestamp, actor, role: "agent", kind: "message", content: text })
        }
        return events.length > 0 ? events : undefined
      }
    }
  }

  // AG2 / AutoGen 0.2 `{name?, role, content}`.
  const role = stringField(message, "role")
  if (role === undefined) return undefined
  const name = nonEmpty(stringField(message, "name"))
  const content = message["content"]
  switch (role) {
    case "tool": {
      const responses = toolResults(message["tool_responses"])
      if (responses !== undefined && responses.length > 0) return responses
      const callId = idOf(message["tool_call_id"])
      const tool = callId === undefined ? undefined : state.toolNames.get(callId)
      const text = textOf(content)
      return text === undefined ? undefined : [{ source: base.source, timestamp: base.timestamp, actor: tool ?? "tool", role: "tool", kind: "tool_result", content: text, tool, call_id: callId }]
    }
    case "function": {
      const text = textOf(content)
      return text === undefined ? undefined : [{ source: base.source, timestamp: base.timestamp, actor: name ?? "tool", role: "tool", kind: "tool_result", content: text, tool: name }]
    }
    case "system": {
      const text = textOf(content)
      return text === undefined ? undefined : [{ source: base.source, timestamp: base.timestamp, actor: "system", role: "system", kind: "message", content: text }]
    }
    case "user":
    case "assistant": {
      const who = speaker(name, role === "user")
      const events: Array<EventInput> = []
      const text = textOf(content)
      const exit = text === undefined ? null : EXITCODE.exec(text)
      if (text !== undefined && exit !== null) {
        events.push({ source: base.source, timestamp: base.timestamp, actor: "code_execution", role: "tool", kind: exit[1] === "0" ? "tool_result" : "error", content: text, tool: "code_execution" })
      } else if (text !== undefined && text.trim().length > 0) events.push({ source: base.source, timestamp: base.timestamp, actor: who.actor, role: who.role, kind: "message", content: text })
      events.push(...toolCalls(message["tool_calls"], who.actor))
      if (Predicate.isRecord(message["function_call"])) events.push(...toolCalls([{ function: message["function_call"] }], who.actor))
      return events.length > 0 ? events : undefined
    }
    default: {
      // Magentic-One (and Who&When) group chats: the speaker is the role, `Orchestrator (thought)`,
      // `Orchestrator (-> WebSurfer)`, `WebSurfer`, `human`, with no `name`.
      // With a `name`, the role is an unknown chat role (skipped), not a speaker.
      // Chat roles are lowercase; `Assistant` is Magentic-One's coder agent.
      const generic = role.trim()
      if (name !== undefined || (GENERIC_ROLES.has(generic) && generic !== "human")) return undefined
      const spoken = speakerRoleOf(role)
      const text = textOf(content)
      if (spoken === undefined || text === undefined) return undefined
      if (spoken.note === undefined && isUserName(spoken.name)) return [{ source: base.source, timestamp: base.timestamp, actor: "user", role: "user", kind: "message", content: text }]
      const target = spoken.note === undefined ? undefined : HANDOFF_NOTE.exec(spoken.note)?.[1]?.trim()
      if (target !== undefined && target.length > 0) return [{ source: base.source, timestamp: base.timestamp, actor: spoken.name, role: "agent", kind: "handoff", content: text, to: target }]
      const thought = spoken.note !== undefined && /^(thought|thinking|reasoning|plan)$/i.test(spoken.note.trim())
      return [{ source: base.source, timestamp: base.timestamp, actor: spoken.name, role: "agent", kind: thought ? "thought" : "message", content: text }]
    }
  }
}

/** Roles of the chat APIs (lowercase, as the APIs write them), never a speaker's name. */
const GENERIC_ROLES: ReadonlySet<string> = new Set(["user", "assistant", "system", "tool", "function", "developer", "model", "ai", "bot", "human", "ipython"])
const SPEAKER_ROLE = /^([^()]{1,80}?)\s*\(([^()]{1,80})\)$/
const HANDOFF_NOTE = /^\s*(?:->|→|to\s)\s*(.+)$/

/**
 * A role that names its speaker (Magentic-One: `Orchestrator (thought)` is the Orchestrator's
 * thought, `Orchestrator (-> WebSurfer)` its instruction to WebSurfer, `WebSurfer` a message):
 * the speaker and the note in parentheses. Undefined for blank or over-long roles.
 */
const speakerRoleOf = (role: string): { readonly name: string; readonly note: string | undefined } | undefined => {
  const trimmed = role.trim()
  if (trimmed.length === 0 || trimmed.length > 120) return undefined
  const noted = SPEAKER_ROLE.exec(trimmed)
  const name = noted?.[1]?.trim()
  return noted !== null && name !== undefined && name.length > 0 ? { name, note: noted[2] } : { name: trimmed, note: undefined }
}

/** A message whose role is a speaker's name rather than a chat API role (Magentic-One). */
const hasSpeakerRole = (value: Rec): boolean => {
  const role = value["role"]
  return typeof role === "string" && !("name" in value) && !GENERIC_ROLES.has(role.trim()) && speakerRoleOf(role) !== undefined && "content" in value
}

const readConversation = (conversation: Conversation): NormalizedTrace | string => {
  const { messages, prefix, meta } = conversation
  // Who&When logs name their question `question_ID`.
  const id = idOf(meta["chat_id"]) ?? idOf(meta["id"]) ?? idOf(meta["question_ID"]) ?? idOf(meta["question_id"]) ?? null
  const builder = makeTraceBuilder(id)
  const state: ReadState = { toolNames: new Map(), stopReason: nonEmpty(stringField(meta, "stop_reason")) }
  messages.forEach((message, i) => {
    const events = messageEvents(message, `${prefix}[${i}]`, state)
    if (events === undefined || events.length === 0) builder.skip()
    else for (const event of events) builder.add(event)
  })
  for (const field of LABEL_FIELDS) if (field in meta) builder.skip()
  if (builder.eventCount() === 0) {
    return messages.length === 0
      ? `autogen: the ${prefix.length > 0 ? `\`${prefix}\`` : "message list"} is empty`
      : `autogen: none of the ${messages.length} messages could be read (expected {name?, role, content}, {source, content, type} or LLMMessage records)`
  }
  const task = nonEmpty(stringField(meta, "question")) ?? nonEmpty(stringField(meta, "task"))
  if (task !== undefined) builder.setTask(task)
  const summary = nonEmpty(stringField(meta, "summary"))
  if (summary !== undefined) builder.setOutcome(summary)
  if (state.stopReason !== undefined) {
    if (summary === undefined && FAILED_STOP.test(state.stopReason)) builder.setOutcome(state.stopReason)
    if (FAILED_STOP.test(state.stopReason)) builder.setSuccess(false)
  }
  return builder.build()
}

const historyOf = (record: Rec): { readonly field: string; readonly list: ReadonlyArray<unknown> } | undefined => {
  for (const field of HISTORY_FIELDS) {
    const list = record[field]
    if (Array.isArray(list)) return { field, list }
  }
  return undefined
}

const conversationsOf = (body: unknown): ReadonlyArray<Conversation> | undefined => {
  if (Array.isArray(body)) {
    const head = sample(body)
    const results = head.length > 0 && head.every((record) => Predicate.isRecord(record) && historyOf(record) !== undefined && !("role" in record) && !("type" in record))
    if (!results) return [{ messages: body, prefix: "", meta: {} }]
    return body.flatMap((record, k) => {
      if (!Predicate.isRecord(record)) return []
      const history = historyOf(record)
      return history === undefined ? [] : [{ messages: history.list, prefix: `[${k}].${history.field}`, meta: record }]
    })
  }
  if (!Predicate.isRecord(body)) return undefined
  const history = historyOf(body)
  return history === undefined ? undefined : [{ messages: history.list, prefix: history.field, meta: body }]
}

/** One recorded model call of a ChatCompletionClient session (`{mode, messages, response, stream}`). */
const isRecordedCall = (value: unknown): value is Rec =>
  Predicate.isRecord(value) && Array.isArray(value["messages"]) && Predicate.isRecord(value["response"]) && (typeof value["mode"] === "string" || "stream" in value)

/**
 * A recorded ChatCompletionClient session (autogen-ext's replay/recording clients): each call
 * carries its conversation so far, so calls go through the history de-duplication.
 */
const readSession = (calls: ReadonlyArray<unknown>): NormalizedTrace | string => {
  const builder = makeTraceBuilder(null)
  const state: ReadState = { toolNames: new Map(), stopReason: undefined }
  // The recorded histories name the assistant (`source`); the responses do not.
  let speaker: unknown
  for (const call of calls) {
    const messages = isRecordedCall(call) && Array.isArray(call["messages"]) ? call["messages"] : []
    const named = messages.find((message): message is Rec => Predicate.isRecord(message) && message["type"] === "AssistantMessage" && typeof message["source"] === "string")
    speaker = named?.["source"]
    if (speaker !== undefined) break
  }
  calls.forEach((call, k) => {
    if (!isRecordedCall(call)) {
      builder.skip()
      return
    }
    const messages = Array.isArray(call["messages"]) ? call["messages"] : []
    const events: Array<EventInput> = []
    messages.forEach((message: unknown, i) => {
      const converted = messageEvents(message, `[${k}].messages[${i}]`, state)
      if (converted === undefined || converted.length === 0) builder.skip()
      else events.push(...converted)
    })
    const response = Predicate.isRecord(call["response"]) ? call["response"] : {}
    // The response is this call's own output, never history (Builder.ts).
    const outputFrom = events.length
    const answer = messageEvents(
      { type: "AssistantMessage", content: response["content"], thought: response["thought"], source: speaker ?? "assistant" },
      `[${k}].response`,
      state
    )
    if (answer !== undefined) events.push(...answer)
    builder.addHistory(events, { outputFrom })
  })
  return builder.eventCount() > 0 ? builder.build() : "autogen: the recorded calls hold no messages"
}

const read = (body: unknown): Either.Either<ReadonlyArray<NormalizedTrace>, string> => {
  if (Array.isArray(body) && body.length > 0 && sample(body).every(isRecordedCall)) {
    const session = readSession(body)
    return typeof session === "string" ? Either.left(session) : Either.right([session])
  }
  const conversations = conversationsOf(body)
  if (conversations === undefined) return Either.left("autogen: expected a list of messages or {history | messages | chat_history: [...]}")
  if (conversations.length === 0) return Either.left("autogen: the body holds no chats")
  const traces: Array<NormalizedTrace> = []
  let firstProblem: string | undefined
  for (const conversation of conversations) {
    const trace = readConversation(conversation)
    if (typeof trace === "string") firstProblem = firstProblem ?? trace
    else traces.push(trace)
  }
  if (traces.length === 0) return Either.left(firstProblem ?? "autogen: the body holds no messages")
  return Either.right(traces)
}

// ---------------------------------------------------------------------------------------------
// Detection: records that carry `name` or `source` (or an AutoGen `type`), and none of the
// other formats' markers (OpenHands `action`/`observation`, LangSmith `run_type`, span ids).

const FOREIGN_KEYS = ["action", "observation", "run_type", "span_id", "spanId", "trace_id", "traceId", "attributes", "dotted_order"]

const looksLikeMessage = (value: unknown): boolean => {
  if (!Predicate.isRecord(value)) return false
  const type = value["type"]
  if (typeof type === "string" && (AGENTCHAT_TYPES.has(type) || CORE_TYPES.has(type))) return true
  if (hasSpeakerRole(value)) return true
  const named = typeof value["name"] === "string" || typeof value["source"] === "string"
  const content = "content" in value || "tool_calls" in value || "function_call" in value || "tool_responses" in value
  return named && content && ("role" in value || "type" in value || "source" in value)
}

const looksLikeHistory = (list: ReadonlyArray<unknown>): boolean => {
  const head = sample(list)
  if (head.some((record) => Predicate.isRecord(record) && FOREIGN_KEYS.some((key) => key in record))) return false
  return head.some(looksLikeMessage)
}

const detect = (body: unknown): boolean => {
  if (Array.isArray(body)) {
    if (looksLikeHistory(body)) return true
    const head = sample(body)
    if (head.length > 0 && head.every(isRecordedCall)) {
      return head.some((call) => Predicate.isRecord(call) && Array.isArray(call["messages"]) && sample(call["messages"]).some(looksLikeMessage))
    }
    return sample(body).some((record) => Predicate.isRecord(record) && detectObject(record))
  }
  return Predicate.isRecord(body) && detectObject(body)
}

/** Top-level keys of other formats' bodies: a Chat Completions or Messages request or response. */
const FOREIGN_TOP_KEYS = ["trajectory", "resourceSpans", "resourceLogs", "post", "model", "tools", "tool_choice", "response", "choices", "system", "temperature", "max_tokens"]

const detectObject = (body: Rec): boolean => {
  if (FOREIGN_TOP_KEYS.some((key) => key in body)) return false
  const history = historyOf(body)
  if (history === undefined) return false
  if (looksLikeHistory(history.list)) return true
  // An AG2 ChatResult whose history is empty is still one.
  return history.field === "chat_history" && history.list.length === 0 && ("chat_id" in body || "summary" in body || "cost" in body)
}

export const autoGenImporter: Importer = {
  format: "autogen",
  detect: detectSafely(detect),
  read
}
