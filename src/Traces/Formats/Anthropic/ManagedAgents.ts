/**
 * Anthropic Managed Agents sessions, read by the `anthropic` importer (DECISIONS §12), as the
 * LangSmith JS SDK's `wrapAnthropic` records them: JSON Lines whose every record is
 * `[method, payload]` (a JSONL body reaches the importer as the list of its records):
 *
 *  - `client.beta.sessions.create`: the session object. Its `id` is the trace id, its agent's
 *    `name` the agent's actor (`agent` when unnamed) and its agent's `system` a system message.
 *  - `client.beta.sessions.events.send`: `[session id, {events}]`, the events the client sent
 *    (`user.message`, `user.custom_tool_result`, `user.tool_confirmation`, `user.interrupt`).
 *  - `client.beta.sessions.events.stream`: one streamed event `{id, type, processed_at, ...}`.
 *
 * The stream echoes each sent event with its id and time, so a sent event is read from its echo
 * (the first later streamed event of the same type and content) and the sent copy is skipped and
 * counted; a sent event that is never echoed is read where it was sent. A streamed event whose id
 * was already read (a reconnected stream replays events) is skipped and counted.
 *
 * Mapping: `user.message` is a user message; `agent.message` the agent's message, `agent.thinking`
 * its thought (the recording holds no text for it: then skipped and counted); `agent.tool_use`,
 * `agent.mcp_tool_use` and `agent.custom_tool_use` are tool calls (the tool's `name`, content the
 * input as JSON); `agent.tool_result`, `agent.mcp_tool_result` and `user.custom_tool_result` the
 * results of the call their `tool_use_id` / `mcp_tool_use_id` / `custom_tool_use_id` names (an
 * error when `is_error`; text blocks and text documents read, other blocks skipped and counted).
 * A denied `user.tool_confirmation` is the user's message to the agent, `Denied <tool>: <the
 * deny_message>`: the denial is the user's decision, and the tool result that follows already is
 * the error; an allowed one says nothing more than the result that follows and is skipped.
 * `user.interrupt` is an error (`interrupted by the user`); `session.error` an error, and success
 * false unless the error is being retried; `session.status_terminated` makes success false. Status,
 * thread status and span records (`session.status_*`, `session.thread_*`, `span.*`) are not
 * content: skipped and counted, as the other JSON Lines importers count their bookkeeping
 * records; so are other methods, unknown types and malformed records.
 *
 * One trace per session (events belong to the session last created or sent to), events in record
 * order, times from `processed_at` (`created_at` for the system message). The task is the user's
 * first `user.message`; the outcome the agent's last message, or the error the session ends on.
 * Sources: `lines[i]` (a streamed event), `lines[i][1][1].events[j]` (a sent event read where it
 * was sent), `lines[i][1].agent.system`.
 */
import * as Either from "effect/Either"
import * as Predicate from "effect/Predicate"
import type { EventFacts, TraceBuilder } from "../../Builder.js"
import { makeTraceBuilder } from "../../Builder.js"
import { stringField } from "../../Importer.js"
import type { ActorRole, EventKind, NormalizedTrace } from "../../Model.js"
import { compactJson, jsonText, nonEmpty, sample, type Rec } from "../Common.js"

const METHOD_PREFIX = "client.beta.sessions"
const CREATE = "client.beta.sessions.create"
const SEND = "client.beta.sessions.events.send"
const STREAM = "client.beta.sessions.events.stream"

// ---------------------------------------------------------------------------------------------
// Detection

/** A recorded SDK call `[method, payload]`. */
const isCall = (record: unknown): boolean => Array.isArray(record) && record.length === 2 && typeof record[0] === "string" && record[0].startsWith("client.")

/** A recorded call whose method is a Managed Agents sessions method. */
const isSessionCall = (record: unknown): boolean => isCall(record) && Array.isArray(record) && typeof record[0] === "string" && record[0].startsWith(METHOD_PREFIX)

/**
 * True for a recording of Managed Agents sessions: most of its first records are recorded SDK calls
 * `[method, payload]` (a malformed line does not hide the file), one of them a sessions method.
 * Never throws.
 */
export const isManagedAgentsRecording = (body: unknown): boolean => {
  if (!Array.isArray(body)) return false
  const head = sample(body)
  return head.some(isSessionCall) && head.filter(isCall).length * 2 > head.length
}

// ---------------------------------------------------------------------------------------------
// Reading

interface Session {
  /** The session's id, once a create or send names it. */
  id: string | null
  readonly builder: TraceBuilder
  /** The agent's actor: the session's agent's name. */
  agent: string
  /** Tool-use event id → tool name. */
  readonly tools: Map<string, string>
  /** Ids of the streamed events read. */
  readonly seen: Set<string>
  task: string | undefined
  failed: boolean
}

const makeSession = (id: string | null): Session => ({
  id,
  builder: makeTraceBuilder(null),
  agent: "agent",
  tools: new Map(),
  seen: new Set(),
  task: undefined,
  failed: false
})

/** One event, written field by field (one shape for every event of this reader). */
const addEvent = (
  session: Session,
  actor: string,
  role: ActorRole,
  kind: EventKind,
  content: string,
  source: string,
  timestamp: string | undefined,
  tool?: string | undefined,
  to?: string | undefined,
  facts?: EventFacts
) => {
  session.builder.add({ actor, role, kind, content, tool, to, timestamp, source, ...facts })
}

/**
 * The text of an event's content: a string as it is; of a list of blocks, the `text` blocks and the
 * documents whose source is text (a fetched page), joined by newlines; other blocks (images, base64
 * documents) skipped and counted.
 */
const blocksText = (builder: TraceBuilder, content: unknown): string => {
  if (typeof content === "string") return content
  if (content === undefined || content === null) return ""
  if (!Array.isArray(content)) return jsonText(content)
  const texts: Array<string> = []
  for (const block of content) {
    if (typeof block === "string") {
      texts.push(block)
      continue
    }
    const text = Predicate.isRecord(block) ? (stringField(block, "text") ?? documentText(block)) : undefined
    if (text === undefined) builder.skip()
    else texts.push(text)
  }
  return texts.join("\n")
}

/** A `document` block's text when its source is plain text. */
const documentText = (block: Rec): string | undefined => {
  const source = block["source"]
  return block["type"] === "document" && Predicate.isRecord(source) && source["type"] === "text" ? stringField(source, "data") : undefined
}

/** The id of the tool call a result or confirmation names. */
const callIdOf = (event: Rec): string | undefined =>
  stringField(event, "tool_use_id") ?? stringField(event, "mcp_tool_use_id") ?? stringField(event, "custom_tool_use_id")

/** What a sent event and its streamed echo share: type, the call it answers, the decision, the text. */
const echoKey = (event: Rec): string =>
  compactJson([stringField(event, "type") ?? "", callIdOf(event) ?? "", stringField(event, "result") ?? "", contentKey(event["content"])])

/** The content's texts, for matching only (no block counted). */
const contentKey = (content: unknown): string => {
  if (!Array.isArray(content)) return jsonText(content ?? "")
  return content.map((block) => (Predicate.isRecord(block) ? (stringField(block, "text") ?? compactJson(block)) : jsonText(block))).join("\n")
}

/**
 * One event (streamed or sent) into its session. Answers false when the event is not read (then
 * the caller counts it).
 */
const readEvent = (session: Session, event: Rec, source: string): boolean => {
  const timestamp = stringField(event, "processed_at")
  const type = stringField(event, "type")
  const agent = nonEmpty(stringField(event, "agent_name")) ?? session.agent
  const { builder } = session
  switch (type) {
    case "user.message": {
      const text = blocksText(builder, event["content"])
      if (text.length === 0) return false
      if (session.task === undefined && text.trim().length > 0) session.task = text
      addEvent(session, "user", "user", "message", text, source, timestamp)
      return true
    }
    case "agent.message": {
      const text = blocksText(builder, event["content"])
      if (text.length === 0) return false
      addEvent(session, agent, "agent", "message", text, source, timestamp)
      return true
    }
    case "agent.thinking": {
      // the recording keeps no thinking text today; read it when an event carries one
      const text = nonEmpty(stringField(event, "thinking")) ?? nonEmpty(Array.isArray(event["content"]) ? blocksText(builder, event["content"]) : undefined)
      if (text === undefined) return false
      addEvent(session, agent, "agent", "thought", text, source, timestamp)
      return true
    }
    case "agent.tool_use":
    case "agent.mcp_tool_use":
    case "agent.custom_tool_use": {
      const name = nonEmpty(stringField(event, "name")) ?? "tool"
      const id = stringField(event, "id")
      if (id !== undefined) session.tools.set(id, name)
      addEvent(session, agent, "agent", "tool_call", jsonText(event["input"] ?? {}), source, timestamp, name, undefined, { call_id: id })
      return true
    }
    case "agent.tool_result":
    case "agent.mcp_tool_result":
    case "user.custom_tool_result": {
      const id = callIdOf(event)
      const tool = id === undefined ? undefined : session.tools.get(id)
      const kind = event["is_error"] === true ? "error" : "tool_result"
      const status = kind === "error" ? "error" : event["is_error"] === false ? "ok" : undefined
      addEvent(session, tool ?? "tool", "tool", kind, blocksText(builder, event["content"]), source, timestamp, tool, undefined, { call_id: id, status })
      return true
    }
    case "user.tool_confirmation": {
      if (event["result"] !== "deny") return false
      const id = callIdOf(event)
      const tool = (id === undefined ? undefined : session.tools.get(id)) ?? "the tool call"
      const reason = nonEmpty(stringField(event, "deny_message"))
      addEvent(session, "user", "user", "message", reason === undefined ? `Denied ${tool}` : `Denied ${tool}: ${reason}`, source, timestamp, undefined, session.agent)
      return true
    }
    case "user.interrupt": {
      addEvent(session, "user", "user", "error", "interrupted by the user", source, timestamp)
      return true
    }
    case "session.error": {
      const error = event["error"]
      const message = Predicate.isRecord(error) ? (nonEmpty(stringField(error, "message")) ?? nonEmpty(stringField(error, "type"))) : nonEmpty(typeof error === "string" ? error : undefined)
      const retry = Predicate.isRecord(error) ? error["retry_status"] : undefined
      if (!(Predicate.isRecord(retry) && retry["type"] === "retrying")) session.failed = true
      addEvent(session, agent, "agent", "error", message ?? jsonText(error ?? "session error"), source, timestamp, undefined, undefined, {
        status: "error",
        status_code: Predicate.isRecord(error) ? stringField(error, "type") : undefined,
        status_message: Predicate.isRecord(error) ? stringField(error, "message") : undefined
      })
      return true
    }
    case "session.status_terminated": {
      // a status, not content (counted), but it says the session did not finish
      session.failed = true
      return false
    }
  }
  // session.status_*, session.thread_*, span.*, agent.thread_*, allowed confirmations, unknown types
  return false
}

/** Stream records' indices by echo key, in order: where each sent event's echo may be. */
const echoesOf = (records: ReadonlyArray<unknown>): Map<string, Array<number>> => {
  const echoes = new Map<string, Array<number>>()
  records.forEach((record, index) => {
    if (!Array.isArray(record) || record[0] !== STREAM) return
    const event: unknown = record[1]
    if (!Predicate.isRecord(event) || !(stringField(event, "type") ?? "").startsWith("user.")) return
    const key = echoKey(event)
    const indices = echoes.get(key)
    if (indices === undefined) echoes.set(key, [index])
    else indices.push(index)
  })
  return echoes
}

/** True when a later streamed event echoes this sent event (that echo is then taken). */
const takeEcho = (echoes: Map<string, Array<number>>, event: Rec, sentAt: number): boolean => {
  const indices = echoes.get(echoKey(event))
  if (indices === undefined) return false
  while (indices.length > 0 && (indices[0] ?? 0) < sentAt) indices.shift()
  return indices.shift() !== undefined
}

/** The traces of a Managed Agents recording, one per session, or why there are none. */
export const readManagedAgents = (records: ReadonlyArray<unknown>): Either.Either<ReadonlyArray<NormalizedTrace>, string> => {
  const sessions: Array<Session> = []
  const byId = new Map<string, Session>()
  let current: Session | undefined
  /** The session an id names (the current one, when it has none yet: what came before its name is its). */
  const sessionOf = (id: string | undefined): Session => {
    const known = id === undefined ? current : byId.get(id)
    if (known !== undefined) return known
    if (id !== undefined && current !== undefined && current.id === null) {
      current.id = id
      byId.set(id, current)
      return current
    }
    const session = makeSession(id ?? null)
    sessions.push(session)
    if (id !== undefined) byId.set(id, session)
    return session
  }
  const echoes = echoesOf(records)

  records.forEach((record, index) => {
    const source = `lines[${index}]`
    if (!Array.isArray(record) || record.length !== 2 || typeof record[0] !== "string") {
      current = sessionOf(undefined)
      current.builder.skip()
      return
    }
    const method: string = record[0]
    const payload: unknown = record[1]
    if (method === CREATE && Predicate.isRecord(payload)) {
      const session = sessionOf(nonEmpty(stringField(payload, "id")))
      current = session
      const agent = payload["agent"]
      if (Predicate.isRecord(agent)) {
        session.agent = nonEmpty(stringField(agent, "name")) ?? session.agent
        const system = nonEmpty(stringField(agent, "system"))
        if (system !== undefined) addEvent(session, "system", "system", "message", system, `${source}[1].agent.system`, stringField(payload, "created_at"))
      }
      return
    }
    if (method === SEND && Array.isArray(payload)) {
      const session = sessionOf(nonEmpty(typeof payload[0] === "string" ? payload[0] : undefined))
      current = session
      const body: unknown = payload[1]
      const events = Predicate.isRecord(body) ? body["events"] : undefined
      if (!Array.isArray(events)) return session.builder.skip()
      events.forEach((event, j) => {
        // a sent event the stream echoes is read from the echo (its id and time)
        if (!Predicate.isRecord(event) || takeEcho(echoes, event, index) || !readEvent(session, event, `${source}[1][1].events[${j}]`)) session.builder.skip()
      })
      return
    }
    const session = sessionOf(undefined)
    current = session
    if (method === STREAM && Predicate.isRecord(payload)) {
      const id = stringField(payload, "id")
      if (id !== undefined && session.seen.has(id)) return session.builder.skip()
      if (id !== undefined) session.seen.add(id)
      if (!readEvent(session, payload, source)) session.builder.skip()
      return
    }
    // other methods (retrieve, list, ...) and malformed payloads
    session.builder.skip()
  })

  const traces = sessions.flatMap((session): Array<NormalizedTrace> => {
    if (session.builder.eventCount() === 0) return []
    if (session.failed) session.builder.setSuccess(false)
    const trace = session.builder.build()
    // the task is the user's first message, never a denial or the system prompt
    return [{ ...trace, id: session.id, task: session.task ?? "" }]
  })
  if (traces.length > 0) return Either.right(traces)
  const skipped = sessions.reduce((sum, session) => sum + session.builder.build().skipped, 0)
  return Either.left(`anthropic: the Managed Agents recording holds no messages, tool calls or errors (${skipped} records skipped)`)
}
