/**
 * The `codex` importer (DECISIONS §12): OpenAI Codex CLI runs, in either of the two JSON Lines
 * files Codex writes (a JSONL body reaches the importer as the list of its records):
 *
 *  - Rollouts (`~/.codex/sessions/.../rollout-*.jsonl`): `{timestamp, type, payload}` records.
 *    `session_meta` gives the trace id (`payload.id`); `response_item` payloads are Responses API
 *    items: `message` (the user's input, the agent's answer; developer messages and the context
 *    Codex injects as the user, `<environment_context>`, `<user_instructions>` and AGENTS.md, are
 *    the system's), `reasoning` (its summary, a thought; `encrypted_content` is not read),
 *    `function_call` / `custom_tool_call` / `local_shell_call` / `web_search_call` (tool calls,
 *    content the arguments as sent) and their `*_output` (tool results; a non-zero exit code or
 *    `success: false` is an error). `spawn_agent` calls also hand off to the sub-agent they start.
 *    `event_msg` records repeat the conversation for the UI: their `user_message`,
 *    `agent_message` and `agent_reasoning` are read only when the rollout has no such items;
 *    `error` and `turn_aborted` are errors; the rest (token counts, command begin/end, ...) and
 *    `turn_context` are not content.
 *  - `codex exec --json` event streams: `thread.started` (the trace id, `thread_id`),
 *    `turn.started`, `item.started` / `item.updated` / `item.completed` with items
 *    `agent_message` (message), `reasoning` (thought), `command_execution` (a `shell` call when it
 *    starts, its output when it completes: an error when it failed or exited non-zero),
 *    `file_change` (an `apply_patch` call and its result), `mcp_tool_call`, `web_search`,
 *    `todo_list` (a thought per change of the list), `plan` and `error`; `turn.completed`,
 *    `turn.failed` and `error` (errors, success false).
 *
 * Records that are not content, malformed records and unknown types are skipped and counted.
 * Events are in time order (rollout records by `timestamp`, stable). The task is the user's first
 * message (a stream from `codex exec` holds none: empty); the outcome the agent's last message, or
 * the failure. Sources: `lines[i]`, the i-th record.
 */
import * as Either from "effect/Either"
import * as Predicate from "effect/Predicate"
import type { EventInput, TraceBuilder } from "../Builder.js"
import { makeTraceBuilder } from "../Builder.js"
import type { Importer } from "../Importer.js"
import { stringField } from "../Importer.js"
import type { NormalizedTrace } from "../Model.js"
import { contentTextOf, detectSafely, jsonText, nonEmpty, sample, type Rec, type Who } from "./Common.js"

/** The agent's actor name. */
export const CODEX_AGENT = "codex"

const AGENT: Who = { actor: CODEX_AGENT, role: "agent" }
const USER: Who = { actor: "user", role: "user" }
const SYSTEM: Who = { actor: "system", role: "system" }

// ---------------------------------------------------------------------------------------------
// Detection

const ROLLOUT_TYPES: ReadonlySet<string> = new Set(["session_meta", "response_item", "event_msg", "turn_context", "compacted"])
const EXEC_TYPES: ReadonlySet<string> = new Set(["thread.started", "turn.started", "turn.completed", "turn.failed", "item.started", "item.updated", "item.completed"])

const isRolloutRecord = (record: unknown): boolean =>
  Predicate.isRecord(record) && typeof record["type"] === "string" && ROLLOUT_TYPES.has(record["type"]) && Predicate.isRecord(record["payload"])

const isExecEvent = (record: unknown): boolean => {
  if (!Predicate.isRecord(record)) return false
  const type = record["type"]
  if (typeof type !== "string" || !EXEC_TYPES.has(type)) return false
  if (type === "thread.started") return typeof record["thread_id"] === "string"
  if (type.startsWith("item.")) {
    const item = record["item"]
    return Predicate.isRecord(item) && typeof item["type"] === "string"
  }
  if (type === "turn.failed") return Predicate.isRecord(record["error"])
  return true
}

type Shape = "rollout" | "exec"

const shapeOf = (body: unknown): Shape | undefined => {
  if (!Array.isArray(body)) return undefined
  const head = sample(body)
  if (head.some(isRolloutRecord)) return "rollout"
  // one of the stream's own records besides turn.started / turn.completed, which say little alone
  if (head.some((record) => isExecEvent(record) && Predicate.isRecord(record) && record["type"] !== "turn.started" && record["type"] !== "turn.completed")) return "exec"
  return undefined
}

// ---------------------------------------------------------------------------------------------
// Shared

interface Reader {
  readonly builder: TraceBuilder
  task: string | undefined
  lastAgentMessage: string | undefined
  lastEvent: EventInput | undefined
  failure: string | undefined
}

const makeReader = (id: string | null): Reader => ({ builder: makeTraceBuilder(id), task: undefined, lastAgentMessage: undefined, lastEvent: undefined, failure: undefined })

const add = (reader: Reader, event: EventInput) => {
  reader.builder.add(event)
  reader.lastEvent = event
  if (event.role === "agent" && event.kind === "message" && event.content.trim().length > 0) reader.lastAgentMessage = event.content
  if (event.role === "user" && event.kind === "message" && reader.task === undefined && event.content.trim().length > 0) reader.task = event.content
}

const fail = (reader: Reader, event: EventInput) => {
  add(reader, event)
  reader.failure = event.content
}

const finish = (reader: Reader): NormalizedTrace => {
  const { builder } = reader
  if (reader.failure !== undefined) builder.setSuccess(false)
  const last = reader.lastEvent
  const trace = builder.build()
  // the task is the user's first message, never the model's: empty when the user said nothing;
  // the outcome the agent's last message, or the failure the run ended on
  const outcome = last?.kind === "error" ? last.content : (reader.lastAgentMessage ?? reader.failure ?? "")
  const agents = [...trace.agents]
  for (const event of trace.events) if (event.kind === "handoff" && event.to !== undefined && !agents.includes(event.to)) agents.push(event.to)
  return { ...trace, task: reader.task ?? "", outcome, agents }
}

/** The texts of a list of content parts (`input_text`, `output_text`, `text`); other parts skipped and counted. */
const partsText = (builder: TraceBuilder, parts: ReadonlyArray<unknown>): string | undefined => {
  const texts: Array<string> = []
  for (const part of parts) {
    if (typeof part === "string") texts.push(part)
    else if (Predicate.isRecord(part) && typeof part["text"] === "string") texts.push(part["text"])
    else builder.skip()
  }
  return texts.length > 0 ? texts.join("\n") : undefined
}

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

// ---------------------------------------------------------------------------------------------
// Rollouts

/** Context Codex sends as the user's message: the system's, not the user's. */
const INJECTED = /^\s*(<environment_context>|<user_instructions>|<INSTRUCTIONS>|# AGENTS\.md instructions|<permissions instructions>|<turn_aborted>)/

/** A tool output's text and whether it says the call failed (exit code, `success: false`). */
const outputOf = (builder: TraceBuilder, output: unknown): { readonly text: string; readonly failed: boolean } => {
  if (typeof output === "string") {
    const exit = /^Exit code: (-?\d+)/m.exec(output)
    if (exit !== null) return { text: output, failed: exit[1] !== "0" }
    const parsed = output.trimStart().startsWith("{") ? parseJson(output) : undefined
    const metadata = Predicate.isRecord(parsed) ? parsed["metadata"] : undefined
    const code = Predicate.isRecord(metadata) ? metadata["exit_code"] : undefined
    return { text: output, failed: typeof code === "number" && code !== 0 }
  }
  if (Array.isArray(output)) return { text: partsText(builder, output) ?? "", failed: false }
  if (Predicate.isRecord(output)) {
    const content = output["content"]
    const text = typeof content === "string" ? content : Array.isArray(content) ? (partsText(builder, content) ?? "") : jsonText(output)
    return { text, failed: output["success"] === false }
  }
  return { text: jsonText(output), failed: false }
}

interface Rollout extends Reader {
  /** call_id → tool name. */
  readonly tools: Map<string, string>
  readonly items: { user: boolean; assistant: boolean; reasoning: boolean }
}

const readResponseItem = (reader: Rollout, item: Rec, base: { readonly source: string; readonly timestamp: string | undefined }): boolean => {
  const { builder } = reader
  switch (stringField(item, "type")) {
    case "message": {
      const role = stringField(item, "role")
      const content = item["content"]
      const text = typeof content === "string" ? content : Array.isArray(content) ? partsText(builder, content) : undefined
      if (text === undefined || text.length === 0) return false
      const who = role === "assistant" ? AGENT : role === "user" && !INJECTED.test(text) ? USER : role === "user" || role === "developer" || role === "system" ? SYSTEM : undefined
      if (who === undefined) return false
      add(reader, { actor: who.actor, role: who.role, ...base, kind: "message", content: text })
      return true
    }
    case "reasoning": {
      const summary = item["summary"]
      const content = item["content"]
      const text = (Array.isArray(summary) ? partsText(builder, summary) : undefined) ?? (Array.isArray(content) ? partsText(builder, content) : undefined)
      if (text === undefined || text.length === 0) return false
      add(reader, { actor: AGENT.actor, role: AGENT.role, ...base, kind: "thought", content: text })
      return true
    }
    case "function_call":
    case "custom_tool_call": {
      const name = stringField(item, "name") ?? "tool"
      const callId = stringField(item, "call_id")
      if (callId !== undefined) reader.tools.set(callId, name)
      const args = item["type"] === "function_call" ? item["arguments"] : item["input"]
      const content = jsonText(args ?? "")
      add(reader, { actor: AGENT.actor, role: AGENT.role, ...base, kind: "tool_call", content, tool: name, call_id: callId })
      if (name === "spawn_agent") {
        const parsed = parseJson(content)
        const spec: Rec = Predicate.isRecord(parsed) ? parsed : {}
        const to = nonEmpty(stringField(spec, "task_name")) ?? nonEmpty(stringField(spec, "agent_name")) ?? "sub-agent"
        add(reader, { actor: AGENT.actor, role: AGENT.role, ...base, kind: "handoff", content: nonEmpty(stringField(spec, "message")) ?? content, to })
      }
      return true
    }
    case "local_shell_call":
    case "web_search_call": {
      const name = item["type"] === "local_shell_call" ? "local_shell" : "web_search"
      const callId = stringField(item, "call_id") ?? stringField(item, "id")
      if (callId !== undefined) reader.tools.set(callId, name)
      const action = item["action"]
      const query = Predicate.isRecord(action) ? stringField(action, "query") : undefined
      add(reader, { actor: AGENT.actor, role: AGENT.role, ...base, kind: "tool_call", content: query ?? jsonText(action ?? {}), tool: name, call_id: callId })
      return true
    }
    case "function_call_output":
    case "custom_tool_call_output":
    case "local_shell_call_output": {
      const callId = stringField(item, "call_id")
      const tool = callId === undefined ? undefined : reader.tools.get(callId)
      const { text, failed } = outputOf(builder, item["output"])
      add(reader, { actor: tool ?? "tool", role: "tool", ...base, kind: failed ? "error" : "tool_result", content: text, tool, call_id: callId, status: failed ? "error" : undefined })
      return true
    }
  }
  return false
}

const readEventMsg = (reader: Rollout, event: Rec, base: { readonly source: string; readonly timestamp: string | undefined }): boolean => {
  switch (stringField(event, "type")) {
    case "user_message": {
      const message = nonEmpty(stringField(event, "message"))
      if (reader.items.user || message === undefined) return false
      add(reader, { ...(INJECTED.test(message) ? SYSTEM : USER), ...base, kind: "message", content: message })
      return true
    }
    case "agent_message": {
      const message = nonEmpty(stringField(event, "message"))
      if (reader.items.assistant || message === undefined) return false
      add(reader, { actor: AGENT.actor, role: AGENT.role, ...base, kind: "message", content: message })
      return true
    }
    case "agent_reasoning": {
      const text = nonEmpty(stringField(event, "text"))
      if (reader.items.reasoning || text === undefined) return false
      add(reader, { actor: AGENT.actor, role: AGENT.role, ...base, kind: "thought", content: text })
      return true
    }
    case "error": {
      const message = nonEmpty(stringField(event, "message"))
      if (message === undefined) return false
      fail(reader, { actor: AGENT.actor, role: AGENT.role, ...base, kind: "error", content: message })
      return true
    }
    case "turn_aborted": {
      add(reader, { actor: AGENT.actor, role: AGENT.role, ...base, kind: "error", content: `turn aborted: ${stringField(event, "reason") ?? "unknown reason"}` })
      return true
    }
  }
  return false
}

interface Entry {
  readonly record: Rec
  readonly index: number
  readonly time: number
}

const readRollout = (records: ReadonlyArray<unknown>): NormalizedTrace | string => {
  let id: string | null = null
  const entries: Array<Entry> = []
  const items = { user: false, assistant: false, reasoning: false }
  let unread = 0
  let previous = Number.NEGATIVE_INFINITY
  records.forEach((record: unknown, index) => {
    if (!Predicate.isRecord(record)) {
      unread++
      return
    }
    const stamp = stringField(record, "timestamp")
    const ms = stamp === undefined ? Number.NaN : Date.parse(stamp)
    const time = Number.isNaN(ms) ? previous : ms
    previous = time
    entries.push({ record, index, time })
    const payload = record["payload"]
    if (!Predicate.isRecord(payload)) return
    if (record["type"] === "session_meta" && id === null) id = nonEmpty(stringField(payload, "id")) ?? null
    if (record["type"] === "response_item") {
      if (payload["type"] === "message" && payload["role"] === "user") items.user = true
      if (payload["type"] === "message" && payload["role"] === "assistant") items.assistant = true
      if (payload["type"] === "reasoning") items.reasoning = true
    }
  })
  const reader: Rollout = { ...makeReader(id), tools: new Map(), items }
  reader.builder.skip(unread)
  entries.sort((a, b) => a.time - b.time || a.index - b.index)
  for (const { record, index } of entries) {
    const payload = record["payload"]
    const base = { source: `lines[${index}]`, timestamp: stringField(record, "timestamp") }
    const read = Predicate.isRecord(payload) &&
      (record["type"] === "response_item" ? readResponseItem(reader, payload, base) : record["type"] === "event_msg" ? readEventMsg(reader, payload, base) : false)
    // session_meta, turn_context, compacted, repeated event messages, unknown or malformed records
    if (!read) reader.builder.skip()
  }
  return reader.builder.eventCount() > 0 ? finish(reader) : `codex: the rollout holds no messages, reasoning or tool calls (${reader.builder.build().skipped} records skipped)`
}

// ---------------------------------------------------------------------------------------------
// codex exec --json

const todoText = (item: Rec): string | undefined => {
  const list = item["items"]
  if (!Array.isArray(list)) return undefined
  const lines = list.flatMap((todo) => (Predicate.isRecord(todo) && typeof todo["text"] === "string" ? [`[${todo["completed"] === true ? "x" : " "}] ${todo["text"]}`] : []))
  return lines.length > 0 ? lines.join("\n") : undefined
}

interface Stream extends Reader {
  /** Items whose call was read when they started. */
  readonly started: Set<string>
  /** The last text read of each to-do list. */
  readonly todos: Map<string, string>
}

/** The tool call an item stands for (undefined for items that are not calls). */
const callOf = (item: Rec): { readonly tool: string; readonly content: string } | undefined => {
  switch (stringField(item, "type")) {
    case "command_execution":
      return { tool: "shell", content: stringField(item, "command") ?? "" }
    case "mcp_tool_call":
      return { tool: stringField(item, "tool") ?? "mcp", content: jsonText(item["arguments"] ?? {}) }
    case "web_search":
      return { tool: "web_search", content: stringField(item, "query") ?? "" }
    case "file_change":
      return { tool: "apply_patch", content: jsonText(item["changes"] ?? []) }
  }
  return undefined
}

const readItem = (reader: Stream, phase: "started" | "updated" | "completed", item: Rec, base: { readonly source: string }): boolean => {
  const type = stringField(item, "type")
  const id = stringField(item, "id")
  if (type === "todo_list") {
    const text = todoText(item)
    const key = id ?? ""
    if (text === undefined || reader.todos.get(key) === text) return false
    reader.todos.set(key, text)
    add(reader, { actor: AGENT.actor, role: AGENT.role, ...base, kind: "thought", content: text })
    return true
  }
  const call = callOf(item)
  if (phase !== "completed") {
    if (call === undefined || (id !== undefined && reader.started.has(id))) return false
    if (id !== undefined) reader.started.add(id)
    add(reader, { actor: AGENT.actor, role: AGENT.role, ...base, kind: "tool_call", content: call.content, tool: call.tool, call_id: id })
    return true
  }
  // an item is its call and its result: its id links them
  if (call !== undefined && (id === undefined || !reader.started.has(id))) add(reader, { actor: AGENT.actor, role: AGENT.role, ...base, kind: "tool_call", content: call.content, tool: call.tool, call_id: id })
  const status = stringField(item, "status")
  switch (type) {
    case "agent_message":
    case "plan":
    case "reasoning": {
      const text = nonEmpty(stringField(item, "text"))
      if (text === undefined) return false
      add(reader, { actor: AGENT.actor, role: AGENT.role, ...base, kind: type === "reasoning" ? "thought" : "message", content: text })
      return true
    }
    case "error": {
      const message = nonEmpty(stringField(item, "message"))
      if (message === undefined) return false
      add(reader, { actor: AGENT.actor, role: AGENT.role, ...base, kind: "error", content: message })
      return true
    }
    case "command_execution": {
      const code = item["exit_code"]
      const failed = status === "failed" || (typeof code === "number" && code !== 0)
      add(reader, {
        actor: "shell",
        role: "tool",
        ...base,
        kind: failed ? "error" : "tool_result",
        content: stringField(item, "aggregated_output") ?? "",
        tool: "shell",
        call_id: id,
        status: failed ? "error" : status === "completed" ? "ok" : undefined,
        status_code: typeof code === "number" && code !== 0 ? `exit ${code}` : undefined
      })
      return true
    }
    case "file_change": {
      const changes = Array.isArray(item["changes"]) ? item["changes"] : []
      const text = changes.flatMap((change) => (Predicate.isRecord(change) ? [`${stringField(change, "kind") ?? "change"} ${stringField(change, "path") ?? ""}`] : [])).join("\n")
      add(reader, { actor: "apply_patch", role: "tool", ...base, kind: status === "failed" ? "error" : "tool_result", content: text.length > 0 ? text : (status ?? ""), tool: "apply_patch", call_id: id, status: status === "failed" ? "error" : status === "completed" ? "ok" : undefined })
      return true
    }
    case "mcp_tool_call": {
      const tool = call?.tool
      const error = item["error"]
      if (status === "failed" || Predicate.isRecord(error)) {
        const message = Predicate.isRecord(error) ? stringField(error, "message") : undefined
        add(reader, { actor: tool ?? "mcp", role: "tool", ...base, kind: "error", content: message ?? status ?? "failed", tool, call_id: id, status: "error", status_message: message })
        return true
      }
      const result = item["result"]
      const content = Predicate.isRecord(result)
        ? (contentTextOf(result["content"], { textParts: MCP_TEXT_PARTS, emptyList: "undefined" }) ?? jsonText(result["structured_content"] ?? null))
        : ""
      add(reader, { actor: tool ?? "mcp", role: "tool", ...base, kind: "tool_result", content, tool, call_id: id, status: status === "completed" ? "ok" : undefined })
      return true
    }
    case "web_search":
      return true
  }
  return false
}

/** The MCP content blocks read as text. */
const MCP_TEXT_PARTS: ReadonlySet<string> = new Set(["text"])

const readExec = (records: ReadonlyArray<unknown>): NormalizedTrace | string => {
  const started = records.find((record) => Predicate.isRecord(record) && record["type"] === "thread.started")
  const id = Predicate.isRecord(started) ? (nonEmpty(stringField(started, "thread_id")) ?? null) : null
  const reader: Stream = { ...makeReader(id), started: new Set(), todos: new Map() }
  records.forEach((record: unknown, index) => {
    const base = { source: `lines[${index}]` }
    const read = ((): boolean => {
      if (!Predicate.isRecord(record)) return false
      const type = stringField(record, "type")
      switch (type) {
        case "item.started":
        case "item.updated":
        case "item.completed": {
          const item = record["item"]
          return Predicate.isRecord(item) && readItem(reader, type === "item.started" ? "started" : type === "item.updated" ? "updated" : "completed", item, base)
        }
        case "turn.failed": {
          const error = record["error"]
          const message = Predicate.isRecord(error) ? nonEmpty(stringField(error, "message")) : undefined
          fail(reader, { actor: AGENT.actor, role: AGENT.role, ...base, kind: "error", content: message ?? jsonText(error ?? "turn failed") })
          return true
        }
        case "error": {
          const message = nonEmpty(stringField(record, "message"))
          if (message === undefined) return false
          fail(reader, { actor: AGENT.actor, role: AGENT.role, ...base, kind: "error", content: message })
          return true
        }
        case "request_user_input": {
          const questions = Array.isArray(record["questions"]) ? record["questions"] : []
          const text = questions.flatMap((question) => (Predicate.isRecord(question) && typeof question["question"] === "string" ? [question["question"]] : [])).join("\n")
          if (text.length === 0) return false
          add(reader, { actor: AGENT.actor, role: AGENT.role, ...base, kind: "message", content: text, to: "user" })
          return true
        }
      }
      // thread.started, turn.started, turn.completed, item.plan.delta, unknown or malformed records
      return false
    })()
    if (!read) reader.builder.skip()
  })
  return reader.builder.eventCount() > 0 ? finish(reader) : `codex: the exec stream holds no items or errors (${reader.builder.build().skipped} records skipped)`
}

// ---------------------------------------------------------------------------------------------

const read = (body: unknown): Either.Either<ReadonlyArray<NormalizedTrace>, string> => {
  const shape = shapeOf(body)
  if (!Array.isArray(body) || shape === undefined) return Either.left("codex: expected the records of a Codex rollout or of a `codex exec --json` stream (JSON Lines)")
  const result = shape === "rollout" ? readRollout(body) : readExec(body)
  return typeof result === "string" ? Either.left(result) : Either.right([result])
}

export const codexImporter: Importer = {
  format: "codex",
  detect: detectSafely((body) => shapeOf(body) !== undefined),
  read
}
