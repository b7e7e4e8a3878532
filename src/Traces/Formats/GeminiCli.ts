/**
 * The `gemini_cli` importer (DECISIONS §12): Gemini CLI's own session files.
 *
 * - The chat recording (`~/.gemini/tmp/<project>/chats/session-*.json`, packages/core
 *   `chatRecordingService`): `{sessionId, projectHash, startTime, lastUpdated, messages: [{id,
 *   timestamp, type: user | gemini | info | warning | error, content, thoughts?, toolCalls?,
 *   tokens?, model?}]}`. `content` is a string or Gemini parts (`{text}`, `{thought: true,
 *   text}`, `{functionCall}`, `{functionResponse}`, `{inlineData}`...). A gemini record's thoughts
 *   (`{subject, description, timestamp}`) become thoughts, its text a message, each of its
 *   `toolCalls` (`{id, name, args, result, status, resultDisplay, timestamp}`) a tool call (content
 *   the `args` as JSON) and its result (`result` parts, else `resultDisplay`; status `error` or
 *   `cancelled`, or a `functionResponse` with `error`, is an error). `info` and `warning` records
 *   are system messages, `error` records errors (a session that ends on one: success = false).
 * - The same recording as JSON Lines (newer CLIs append `session-*.jsonl`): a metadata record
 *   `{sessionId, projectHash, ...}`, message records (a record with an id seen before replaces it),
 *   `{$rewindTo: id}` (drops that message and the later ones) and `{$set: {messages?}}`, replayed as
 *   the CLI loads them.
 * - `/chat save` checkpoints (`checkpoint-<tag>.json`): `{history: [Content], authType?}` or the
 *   legacy bare list of Content `{role: user | model, parts}`; and the restore checkpoints written
 *   before a file edit (`{clientHistory: [Content], toolCall: {name, args}, ...}`), whose pending
 *   tool call is read last.
 *
 * A gemini record's `tokens` (input, output) are its first event's (DECISIONS §23); tool calls and
 * results carry the call's `id` and its status. `model`, `displayContent`, `projectHash`, `summary`
 * and `memoryScratchpad` are not trace content and are not read. Images and files (`inlineData`, `fileData`) and records of
 * unknown types are skipped and counted. Sources: `messages[3]`, `messages[3].thoughts[0]`,
 * `messages[3].toolCalls[1]`, `messages[3].toolCalls[1].result`, `[4]` (JSON Lines),
 * `history[2].parts[1]`.
 */
import * as Either from "effect/Either"
import * as Predicate from "effect/Predicate"
import type { EventInput, TraceBuilder } from "../Builder.js"
import { makeTraceBuilder } from "../Builder.js"
import type { Importer } from "../Importer.js"
import { stringField } from "../Importer.js"
import { countOf, detectSafely, jsonText, nonEmpty, sample, type Rec, type Who } from "./Common.js"

/** The record types of the chat recording. */
const RECORD_TYPES: ReadonlySet<string> = new Set(["user", "gemini", "info", "warning", "error"])

/** The keys a Gemini API part is made of (a part has no `type`). */
const PART_KEYS: ReadonlyArray<string> = [
  "text",
  "functionCall",
  "functionResponse",
  "inlineData",
  "fileData",
  "executableCode",
  "codeExecutionResult"
]

const GEMINI: Who = { actor: "gemini", role: "agent" }
const USER: Who = { actor: "user", role: "user" }
const SYSTEM: Who = { actor: "system", role: "system" }

// ---------------------------------------------------------------------------------------------
// Detection

/** A chat-recording message record: a known `type`, no chat-API `role` / AutoGen `source`. */
const isRecordingMessage = (message: unknown): boolean =>
  Predicate.isRecord(message) &&
  RECORD_TYPES.has(stringField(message, "type") ?? "") &&
  !("role" in message) &&
  !("source" in message) &&
  !("from" in message)

const isConversationRecord = (body: Rec): boolean => {
  const messages = body["messages"]
  if (!Array.isArray(messages)) return false
  const first = sample(messages)
  if (!first.some(isRecordingMessage)) return false
  if (first.some((message) => Predicate.isRecord(message) && ("role" in message || "source" in message))) return false
  const hasSession = typeof body["sessionId"] === "string" || typeof body["projectHash"] === "string"
  return hasSession || first.some((message) => Predicate.isRecord(message) && message["type"] === "gemini")
}

/** A Gemini API part: a record with one of the part keys and no `type`. */
const isPart = (part: unknown): boolean => Predicate.isRecord(part) && !("type" in part) && PART_KEYS.some((key) => key in part)

/** A Gemini API Content `{role: user | model, parts: [parts]}`. */
const isContent = (content: unknown): boolean => {
  if (!Predicate.isRecord(content)) return false
  const role = content["role"]
  const parts = content["parts"]
  return (role === "user" || role === "model") && Array.isArray(parts) && parts.length > 0 && sample(parts).every(isPart)
}

/** A list of Content with at least one `model` turn (no other format says `model`). */
const isContentList = (list: unknown): boolean =>
  Array.isArray(list) &&
  list.length > 0 &&
  sample(list).every(isContent) &&
  sample(list).some((content) => Predicate.isRecord(content) && content["role"] === "model")

/** The JSON Lines recording: a metadata record first, then message or update records. */
const isRecordingLines = (list: ReadonlyArray<unknown>): boolean => {
  const first = list[0]
  if (!Predicate.isRecord(first) || "messages" in first) return false
  return typeof first["sessionId"] === "string" && typeof first["projectHash"] === "string"
}

const detect = (body: unknown): boolean => {
  if (Array.isArray(body)) return isRecordingLines(body) || isContentList(body)
  if (!Predicate.isRecord(body)) return false
  if (isConversationRecord(body)) return true
  if (isContentList(body["history"]) && !("messages" in body)) return true
  return isContentList(body["clientHistory"]) && Predicate.isRecord(body["toolCall"])
}

// ---------------------------------------------------------------------------------------------
// Reading

interface Reader {
  readonly builder: TraceBuilder
  /** The type of the last message record read (an `error` there: the session failed). */
  lastType: string | undefined
  /**
   * Ids of the tool calls whose results were read from a gemini record's `toolCalls`: the CLI
   * also records each result as the next user turn's `functionResponse`, which is then the same
   * result again and is skipped.
   */
  readonly resultsRead: Set<string>
}

/** The text of a `functionResponse.response`: its `output`, else its `error` (an error), else JSON. */
const responseOf = (response: unknown): { readonly text: string; readonly error: boolean } => {
  if (typeof response === "string") return { text: response, error: false }
  if (Predicate.isRecord(response)) {
    const output = response["output"]
    if (typeof output === "string") return { text: output, error: false }
    const error = response["error"]
    if (error !== undefined && error !== null) return { text: jsonText(error), error: true }
  }
  return { text: jsonText(response ?? ""), error: false }
}

/**
 * The events of one part (Gemini API Part): text (a thought when `thought: true`), a function
 * call, a function response. Images, files and unknown parts are skipped and counted.
 */
const partEvents = (reader: Reader, part: unknown, who: Who, source: string, timestamp: string | undefined): Array<EventInput> => {
  if (typeof part === "string") return part.length > 0 ? [{ actor: who.actor, role: who.role, kind: "message", content: part, source, timestamp }] : []
  if (!Predicate.isRecord(part)) {
    reader.builder.skip()
    return []
  }
  const text = stringField(part, "text")
  if (text !== undefined) {
    if (text.length === 0) return []
    return [{ actor: who.actor, role: who.role, kind: part["thought"] === true ? "thought" : "message", content: text, source, timestamp }]
  }
  const call = part["functionCall"]
  if (Predicate.isRecord(call)) {
    const name = stringField(call, "name") ?? "tool"
    return [{ actor: who.actor, role: who.role, kind: "tool_call", content: jsonText(call["args"] ?? {}), tool: name, source, timestamp, call_id: stringField(call, "id") }]
  }
  const response = part["functionResponse"]
  if (Predicate.isRecord(response)) {
    const callId = stringField(response, "id")
    if (callId !== undefined && reader.resultsRead.has(callId)) {
      reader.builder.skip()
      return []
    }
    const name = stringField(response, "name")
    const { text: content, error } = responseOf(response["response"])
    return [{ actor: name ?? "tool", role: "tool", kind: error ? "error" : "tool_result", content, tool: name, source, timestamp, call_id: callId, status: error ? "error" : undefined }]
  }
  reader.builder.skip()
  return []
}

/**
 * The events of a record's `content`: a string as one event; parts' texts joined (as the CLI
 * joins them) into one message at the record, thoughts and function parts each their own event.
 */
const contentEvents = (reader: Reader, content: unknown, who: Who, source: string, timestamp: string | undefined): Array<EventInput> => {
  if (typeof content === "string") return content.length > 0 ? [{ actor: who.actor, role: who.role, kind: "message", content, source, timestamp }] : []
  if (content === undefined || content === null) return []
  const parts: ReadonlyArray<unknown> = Array.isArray(content) ? content : [content]
  const events: Array<EventInput> = []
  let text = ""
  let textAt = -1
  parts.forEach((part, index) => {
    if (Predicate.isRecord(part) && typeof part["text"] === "string" && part["thought"] !== true) {
      if (textAt < 0) textAt = events.length
      text += part["text"]
      return
    }
    if (typeof part === "string") {
      if (textAt < 0) textAt = events.length
      text += part
      return
    }
    events.push(...partEvents(reader, part, who, Array.isArray(content) ? `${source}.content[${index}]` : `${source}.content`, timestamp))
  })
  if (text.length > 0) events.splice(textAt, 0, { actor: who.actor, role: who.role, kind: "message", content: text, source, timestamp })
  return events
}

/** The text of a tool call's result: its parts' function responses and texts, else `resultDisplay`. */
const toolResultOf = (call: Rec): { readonly text: string; readonly error: boolean } | undefined => {
  const result = call["result"]
  const parts: ReadonlyArray<unknown> = Array.isArray(result) ? result : result === undefined || result === null ? [] : [result]
  const texts: Array<string> = []
  let error = false
  for (const part of parts) {
    if (typeof part === "string") texts.push(part)
    else if (Predicate.isRecord(part)) {
      const response = part["functionResponse"]
      if (Predicate.isRecord(response)) {
        const read = responseOf(response["response"])
        texts.push(read.text)
        error = error || read.error
      } else if (typeof part["text"] === "string") texts.push(part["text"])
    }
  }
  if (texts.length > 0) return { text: texts.join("\n"), error }
  const display = call["resultDisplay"]
  if (typeof display === "string") return { text: display, error }
  if (Predicate.isRecord(display)) return { text: jsonText(display), error }
  return undefined
}

/** A tool call record and its result. */
const toolCallEvents = (reader: Reader, call: unknown, source: string, fallbackTime: string | undefined): Array<EventInput> => {
  if (!Predicate.isRecord(call)) {
    reader.builder.skip()
    return []
  }
  const name = stringField(call, "name")
  if (name === undefined) {
    reader.builder.skip()
    return []
  }
  const timestamp = stringField(call, "timestamp") ?? fallbackTime
  const callId = stringField(call, "id")
  const events: Array<EventInput> = [{ actor: GEMINI.actor, role: GEMINI.role, kind: "tool_call", content: jsonText(call["args"] ?? {}), tool: name, source, timestamp, call_id: callId }]
  const status = stringField(call, "status")
  const failed = status === "error" || status === "cancelled"
  const result = toolResultOf(call)
  if (callId !== undefined && result !== undefined) reader.resultsRead.add(callId)
  if (result !== undefined || failed) {
    events.push({
      actor: name,
      role: "tool",
      kind: failed || result?.error === true ? "error" : "tool_result",
      content: nonEmpty(result?.text) ?? status ?? "",
      tool: name,
      source: `${source}.result`,
      timestamp,
      call_id: callId,
      status: failed || result?.error === true ? "error" : status === "success" ? "ok" : undefined,
      status_code: status === "cancelled" ? status : undefined
    })
  }
  return events
}

/** A thought summary `{subject, description}`: its subject and description, one per line. */
const thoughtText = (thought: Rec): string =>
  [stringField(thought, "subject"), stringField(thought, "description")].filter((part): part is string => part !== undefined && part.length > 0).join("\n")

/** The events of one chat-recording message record, in order: thoughts, text, tool calls. */
const recordEvents = (reader: Reader, record: unknown, source: string): Array<EventInput> => {
  if (!Predicate.isRecord(record)) {
    reader.builder.skip()
    return []
  }
  const type = stringField(record, "type")
  const timestamp = stringField(record, "timestamp")
  const content = record["content"]
  switch (type) {
    case "user":
      reader.lastType = type
      // The context the CLI sends as the user's first turn (`<session_context>`: date, OS, the
      // workspace's files) is the system's, never the task.
      return contentEvents(reader, content, USER, source, timestamp).map((event) =>
        event.kind === "message" && event.content.trimStart().startsWith("<session_context>") ? { ...event, ...SYSTEM } : event
      )
    case "info":
    case "warning":
      reader.lastType = type
      return contentEvents(reader, content, SYSTEM, source, timestamp)
    case "error": {
      reader.lastType = type
      return contentEvents(reader, content, SYSTEM, source, timestamp).map((event) => (event.kind === "message" ? { ...event, kind: "error" } : event))
    }
    case "gemini": {
      reader.lastType = type
      const events: Array<EventInput> = []
      const thoughts = record["thoughts"]
      if (Array.isArray(thoughts)) {
        thoughts.forEach((thought, index) => {
          const text = Predicate.isRecord(thought) ? thoughtText(thought) : ""
          if (!Predicate.isRecord(thought) || text.length === 0) reader.builder.skip()
          else events.push({ actor: GEMINI.actor, role: GEMINI.role, kind: "thought", content: text, source: `${source}.thoughts[${index}]`, timestamp: stringField(thought, "timestamp") ?? timestamp })
        })
      }
      events.push(...contentEvents(reader, content, GEMINI, source, timestamp))
      const calls = record["toolCalls"]
      if (Array.isArray(calls)) calls.forEach((call, index) => events.push(...toolCallEvents(reader, call, `${source}.toolCalls[${index}]`, timestamp)))
      // the model call's token usage (DECISIONS §23), on the record's first event
      const tokens = record["tokens"]
      const [first] = events
      if (first !== undefined && Predicate.isRecord(tokens)) {
        const input = countOf(tokens["input"])
        const output = countOf(tokens["output"])
        if (input !== undefined || output !== undefined) events[0] = { ...first, tokens: { input, output } }
      }
      return events
    }
    default:
      reader.builder.skip()
      return []
  }
}

/** The events of one Content `{role, parts}` (a checkpoint's history). */
const contentTurnEvents = (reader: Reader, turn: unknown, source: string): Array<EventInput> => {
  if (!Predicate.isRecord(turn)) {
    reader.builder.skip()
    return []
  }
  const role = turn["role"]
  const who = role === "model" ? GEMINI : role === "user" ? USER : undefined
  const parts = turn["parts"]
  if (who === undefined || !Array.isArray(parts)) {
    reader.builder.skip()
    return []
  }
  return parts.flatMap((part, index) => partEvents(reader, part, who, `${source}.parts[${index}]`, undefined))
}

/**
 * Message records by id in their first order (a record with a known id replaces it in place), with
 * a rewind that drops an id and everything after it: linear in the records set and dropped.
 */
class Replay {
  private readonly order: Array<string> = []
  private readonly position = new Map<string, number>()
  private readonly records = new Map<string, readonly [Rec, string]>()
  set(id: string, record: Rec, source: string): void {
    if (!this.position.has(id)) {
      this.position.set(id, this.order.length)
      this.order.push(id)
    }
    this.records.set(id, [record, source])
  }
  /** Drops `id` and the records after it; everything when the id is unknown (as the CLI does). */
  rewind(id: string): void {
    const at = this.position.get(id) ?? 0
    for (const dropped of this.order.splice(at)) {
      this.position.delete(dropped)
      this.records.delete(dropped)
    }
  }
  clear(): void {
    this.order.length = 0
    this.position.clear()
    this.records.clear()
  }
  values(): ReadonlyArray<readonly [Rec, string]> {
    return this.order.flatMap((id) => {
      const entry = this.records.get(id)
      return entry === undefined ? [] : [entry]
    })
  }
}

/** The message records of the JSON Lines form, replayed as the CLI loads them, with their sources. */
const replayLines = (reader: Reader, lines: ReadonlyArray<unknown>): { readonly id: string | undefined; readonly records: ReadonlyArray<readonly [Rec, string]> } => {
  let id: string | undefined
  const replay = new Replay()
  lines.forEach((line, index) => {
    if (!Predicate.isRecord(line)) {
      reader.builder.skip()
      return
    }
    const rewind = line["$rewindTo"]
    const set = line["$set"]
    if (typeof rewind === "string") {
      replay.rewind(rewind)
    } else if (typeof line["id"] === "string") {
      replay.set(line["id"], line, `[${index}]`)
    } else if (Predicate.isRecord(set)) {
      const messages = set["messages"]
      if (Array.isArray(messages)) {
        // a checkpoint: the messages start again from this list
        replay.clear()
        messages.forEach((message, k) => {
          if (Predicate.isRecord(message) && typeof message["id"] === "string") replay.set(message["id"], message, `[${index}].$set.messages[${k}]`)
          else reader.builder.skip()
        })
      }
    } else if (typeof line["sessionId"] === "string") {
      id = id ?? line["sessionId"]
    } else {
      reader.builder.skip()
    }
  })
  return { id, records: replay.values() }
}

const fail = (message: string) => Either.left(`gemini_cli: ${message}`)

export const geminiCliImporter: Importer = {
  format: "gemini_cli",
  detect: detectSafely(detect),
  read: (body) => {
    if (!detect(body)) return fail("expected a Gemini CLI session (`{sessionId, messages}`), its JSON Lines, or a saved chat (`{history}` of `{role, parts}`)")
    const reader: Reader = { builder: makeTraceBuilder(null), lastType: undefined, resultsRead: new Set() }
    const { builder } = reader
    let id: string | undefined
    if (Array.isArray(body) && isRecordingLines(body)) {
      const replayed = replayLines(reader, body)
      id = replayed.id
      for (const [record, source] of replayed.records) for (const event of recordEvents(reader, record, source)) builder.add(event)
    } else if (Array.isArray(body)) {
      body.forEach((turn, index) => {
        for (const event of contentTurnEvents(reader, turn, `[${index}]`)) builder.add(event)
      })
    } else if (Predicate.isRecord(body) && Array.isArray(body["messages"])) {
      id = stringField(body, "sessionId")
      body["messages"].forEach((record, index) => {
        for (const event of recordEvents(reader, record, `messages[${index}]`)) builder.add(event)
      })
    } else if (Predicate.isRecord(body)) {
      const field = Array.isArray(body["history"]) ? "history" : "clientHistory"
      const history = body[field]
      if (Array.isArray(history)) {
        history.forEach((turn, index) => {
          for (const event of contentTurnEvents(reader, turn, `${field}[${index}]`)) builder.add(event)
        })
      }
      const pending = body["toolCall"]
      if (Predicate.isRecord(pending) && typeof pending["name"] === "string") {
        builder.add({ actor: GEMINI.actor, role: GEMINI.role, kind: "tool_call", content: jsonText(pending["args"] ?? {}), tool: pending["name"], source: "toolCall" })
      }
    }
    if (reader.lastType === "error") builder.setSuccess(false)
    const trace = builder.build()
    if (trace.events.length === 0) return fail(`no readable messages, thoughts or tool calls (${trace.skipped} records skipped)`)
    return Either.right([{ ...trace, id: nonEmpty(id) ?? null }])
  }
}
