/**
 * The `claude_code` importer (DECISIONS §12): Claude Code session transcripts, the JSON Lines files
 * under `~/.claude/projects/<project>/<session>.jsonl` (a JSONL body reaches the importer as the
 * list of its records). One record per line: `{type: "user" | "assistant" | "system" | "summary"
 * | ..., uuid, parentUuid, sessionId, timestamp, isSidechain, message, toolUseResult?, ...}`, where
 * `message` is an Anthropic Messages API message whose content is a string or blocks (`text`,
 * `thinking`, `tool_use`, `tool_result` with `is_error`).
 *
 * Mapping: the user's text is a user message; assistant blocks are the main agent's (`claude`)
 * messages, thoughts and tool calls (content the input in JSON); `tool_result` blocks are tool
 * results (`is_error: true` an error); an API error the CLI records as an assistant message
 * (`isApiErrorMessage`) is an error; `system` records with text are system messages (`level:
 * "error"` an error). Messages the CLI injects as the user (`isMeta`, `isCompactSummary`) are the
 * system's. Sub-agent sidechains (`isSidechain: true`, the Task tool's runs) are events by the
 * sub-agent (named by the Task call's `subagent_type`), and the Task call adds a handoff from the
 * main agent to it; a sidechain record is tied to its Task call by `agentId`, by its parent
 * record, or by the Task call still open at its time. `toolUseResult` repeats the tool result in
 * structured form and is not read. Records that are not content (`summary`,
 * `file-history-snapshot`, ...), malformed records, and blocks that are not text (images,
 * redacted thinking) are skipped and counted.
 *
 * One trace per `sessionId` (the trace id), events in time order (records by `timestamp`, stable;
 * blocks in their order). The task is the user's first message (empty when there is none); the
 * outcome the main agent's last message, or the last event when it is an error. Sources:
 * `lines[i]` (the i-th record), `lines[i].message.content[j]`.
 */
import * as Either from "effect/Either"
import * as Predicate from "effect/Predicate"
import type { CallFacts, EventInput, TraceBuilder } from "../Builder.js"
import { makeTraceBuilder } from "../Builder.js"
import type { Importer } from "../Importer.js"
import { stringField } from "../Importer.js"
import type { NormalizedTrace } from "../Model.js"
import { toolResultOf, toolUseOf } from "./AnthropicBlocks.js"
import { carrySkipped, countOf, detectSafely, DETECT_LIMIT, nonEmpty, type Rec, type Who } from "./Common.js"

/** The main agent's actor name. */
export const CLAUDE_CODE_AGENT = "claude"

/** Tool names under which Claude Code starts a sub-agent. */
const SUBAGENT_TOOLS: ReadonlySet<string> = new Set(["Task", "Agent"])

// ---------------------------------------------------------------------------------------------
// Detection

/** A conversation record: `type` user or assistant, a `message` object, and the transcript's own keys. */
const isConversationRecord = (record: unknown): boolean => {
  if (!Predicate.isRecord(record)) return false
  const type = record["type"]
  if (type !== "user" && type !== "assistant") return false
  if (!Predicate.isRecord(record["message"])) return false
  return typeof record["sessionId"] === "string" && ("parentUuid" in record || typeof record["isSidechain"] === "boolean" || typeof record["uuid"] === "string")
}

/** Records that open many transcripts and say nothing of the format: looked past by detection. */
const isPreamble = (record: unknown): boolean =>
  Predicate.isRecord(record) && (record["type"] === "summary" || record["type"] === "file-history-snapshot" || record["type"] === "queue-operation")

/** How many records detection looks through for conversation records (past the preamble). */
const SCAN_LIMIT = 200

const detect = (body: unknown): boolean => {
  if (!Array.isArray(body)) return isConversationRecord(body)
  let looked = 0
  for (let i = 0; i < body.length && i < SCAN_LIMIT && looked < DETECT_LIMIT; i++) {
    const record: unknown = body[i]
    if (isPreamble(record)) continue
    if (isConversationRecord(record)) return true
    looked++
  }
  return false
}

// ---------------------------------------------------------------------------------------------
// Reading

interface Entry {
  readonly record: Rec
  readonly index: number
  /** Milliseconds since the epoch; a record without a time takes the previous record's. */
  readonly time: number
}

/** A Task call: the sub-agent it starts. */
interface SubAgentCall {
  readonly id: string
  readonly actor: string
  readonly prompt: string | undefined
  readonly time: number
  /** When its result came back (the sub-agent's run is over); Infinity while open. */
  resultTime: number
}

interface Session {
  readonly builder: TraceBuilder
  /** tool_use id → tool name. */
  readonly tools: Map<string, string>
  /** Task tool_use id → its sub-agent. */
  readonly calls: Map<string, SubAgentCall>
  /** The same calls in time order. */
  readonly ordered: Array<SubAgentCall>
  /** record uuid → the Task call its sidechain serves. */
  readonly chainOf: Map<string, SubAgentCall | null>
  /** agentId → the Task call, from the main chain's results. */
  readonly byAgentId: Map<string, SubAgentCall>
  task: string | undefined
  lastMainMessage: string | undefined
  lastEvent: EventInput | undefined
  apiErrorLast: boolean
  /** The API responses (message ids) whose usage was read: once each. */
  readonly responses: Set<string>
}

const timeOf = (record: Rec): number | undefined => {
  const stamp = stringField(record, "timestamp")
  if (stamp === undefined) return undefined
  const ms = Date.parse(stamp)
  return Number.isNaN(ms) ? undefined : ms
}

const MAIN: Who = { actor: CLAUDE_CODE_AGENT, role: "agent" }
const USER: Who = { actor: "user", role: "user" }
const SYSTEM: Who = { actor: "system", role: "system" }

/**
 * Distinct actor names of new sub-agents (`general-purpose`, then `general-purpose#2`, ...). The
 * next number per type is kept, so a session of many sub-agents of one type stays linear.
 */
class SubAgentNames {
  private readonly taken = new Set<string>()
  private readonly next = new Map<string, number>()
  name(base: string): string {
    let name = base === CLAUDE_CODE_AGENT || base === "user" || base === "system" ? `${base}-agent` : base
    let k = this.next.get(base) ?? 2
    while (this.taken.has(name)) name = `${base}#${k++}`
    this.next.set(base, k)
    this.taken.add(name)
    return name
  }
}

/** Registers the Task calls and which agentId each result names, before reading (the calls' sub-agents are named by then). */
const collectSubAgents = (session: Session, entries: ReadonlyArray<Entry>) => {
  const names = new SubAgentNames()
  for (const { record, time } of entries) {
    const message = record["message"]
    const content = Predicate.isRecord(message) ? message["content"] : undefined
    if (!Array.isArray(content)) continue
    if (record["type"] === "assistant") {
      for (const block of content) {
        if (!Predicate.isRecord(block) || block["type"] !== "tool_use") continue
        const id = stringField(block, "id")
        const name = stringField(block, "name")
        if (id === undefined || name === undefined || !SUBAGENT_TOOLS.has(name)) continue
        const input = Predicate.isRecord(block["input"]) ? block["input"] : {}
        const actor = names.name(nonEmpty(stringField(input, "subagent_type")) ?? "sub-agent")
        const call: SubAgentCall = { id, actor, prompt: nonEmpty(stringField(input, "prompt")) ?? nonEmpty(stringField(input, "description")), time, resultTime: Number.POSITIVE_INFINITY }
        session.calls.set(id, call)
        session.ordered.push(call)
      }
    } else if (record["type"] === "user" && record["isSidechain"] !== true) {
      for (const block of content) {
        if (!Predicate.isRecord(block) || block["type"] !== "tool_result") continue
        const id = stringField(block, "tool_use_id")
        const call = id === undefined ? undefined : session.calls.get(id)
        if (call === undefined) continue
        call.resultTime = Math.min(call.resultTime, time)
        const result = record["toolUseResult"]
        const agentId = stringField(record, "agentId") ?? (Predicate.isRecord(result) ? stringField(result, "agentId") : undefined)
        if (agentId !== undefined) session.byAgentId.set(agentId, call)
      }
    }
  }
}

/** The Task call a sidechain record serves: by agentId, by its parent record, or the call open at its time. */
const callOf = (session: Session, entry: Entry): SubAgentCall | undefined => {
  const { record } = entry
  const agentId = stringField(record, "agentId")
  const byId = agentId === undefined ? undefined : session.byAgentId.get(agentId)
  if (byId !== undefined) return byId
  const parent = stringField(record, "parentUuid")
  const inherited = parent === undefined ? undefined : session.chainOf.get(parent)
  if (inherited !== undefined) return inherited ?? undefined
  // the calls open at its time, latest first, among the last OPEN_LOOKBACK started (linear in the input)
  const open: Array<SubAgentCall> = []
  for (let i = latestBefore(session.ordered, entry.time), looked = 0; i >= 0 && looked < OPEN_LOOKBACK; i--, looked++) {
    const call = session.ordered[i]
    if (call !== undefined && entry.time <= call.resultTime) open.push(call)
  }
  const text = userText(record)
  return open.find((call) => text !== undefined && call.prompt === text) ?? open[0]
}

/** How many of the latest Task calls a sidechain record without a link is matched against. */
const OPEN_LOOKBACK = 64

/** The index of the last call started at or before `time` in calls ordered by time (-1 when none). */
const latestBefore = (calls: ReadonlyArray<SubAgentCall>, time: number): number => {
  let low = 0
  let high = calls.length
  while (low < high) {
    const middle = (low + high) >>> 1
    const call = calls[middle]
    if (call !== undefined && call.time <= time) low = middle + 1
    else high = middle
  }
  return low - 1
}

/** A user record's text when its content is a string or a single text block. */
const userText = (record: Rec): string | undefined => {
  const message = record["message"]
  if (!Predicate.isRecord(message)) return undefined
  const content = message["content"]
  if (typeof content === "string") return content
  if (Array.isArray(content) && content.length === 1) {
    const [block] = content
    if (Predicate.isRecord(block) && block["type"] === "text") return stringField(block, "text")
  }
  return undefined
}

const add = (session: Session, event: EventInput, main: boolean) => {
  session.builder.add(event)
  session.lastEvent = event
  if (main && event.role === "agent" && event.kind === "message" && event.content.trim().length > 0) session.lastMainMessage = event.content
  if (main && event.role === "user" && event.kind === "message" && session.task === undefined && event.content.trim().length > 0) session.task = event.content
}

/** The events of one content block, added to the session. */
const readBlock = (session: Session, block: unknown, context: BlockContext, source: string) => {
  const { builder } = session
  const { who, main, failed, timestamp } = context
  const base = { timestamp, source }
  if (typeof block === "string") {
    if (block.length > 0) add(session, { actor: who.actor, role: who.role, ...base, kind: failed ? "error" : "message", content: block, to: context.to }, main)
    return
  }
  if (!Predicate.isRecord(block)) return builder.skip()
  switch (stringField(block, "type")) {
    case "text": {
      const text = stringField(block, "text")
      if (text === undefined) return builder.skip()
      if (text.length > 0) add(session, { actor: who.actor, role: who.role, ...base, kind: failed ? "error" : "message", content: text, to: context.to }, main)
      return
    }
    case "thinking": {
      const thinking = stringField(block, "thinking")
      if (thinking === undefined) return builder.skip()
      if (thinking.length > 0) add(session, { actor: who.actor, role: who.role, ...base, kind: "thought", content: thinking }, main)
      return
    }
    case "tool_use": {
      const { id, call: toolCall } = toolUseOf(session.tools, block)
      add(session, { actor: who.actor, role: who.role, ...base, ...toolCall }, main)
      const call = id === undefined ? undefined : session.calls.get(id)
      if (call !== undefined) add(session, { actor: who.actor, role: who.role, ...base, kind: "handoff", content: call.prompt ?? "", to: call.actor }, main)
      return
    }
    case "tool_result":
      add(session, { ...toolResultOf(builder, session.tools, block), ...base }, main)
      return
  }
  // image, document, redacted_thinking, unknown or malformed blocks
  builder.skip()
}

interface BlockContext {
  readonly who: Who
  readonly main: boolean
  readonly failed: boolean
  readonly timestamp: string | undefined
  readonly to?: string | undefined
}

const readEntry = (session: Session, entry: Entry) => {
  const { builder } = session
  const { record, index } = entry
  const source = `lines[${index}]`
  const type = stringField(record, "type")
  const timestamp = stringField(record, "timestamp")
  if (type === "system") {
    const content = nonEmpty(stringField(record, "content"))
    if (content === undefined) return builder.skip()
    add(session, { actor: SYSTEM.actor, role: SYSTEM.role, kind: record["level"] === "error" ? "error" : "message", content, timestamp, source }, true)
    return
  }
  if (type !== "user" && type !== "assistant") return builder.skip()
  const message = record["message"]
  const content = Predicate.isRecord(message) ? message["content"] : undefined
  if (typeof content !== "string" && !Array.isArray(content)) return builder.skip()
  const sidechain = record["isSidechain"] === true
  const call = sidechain ? callOf(session, entry) : undefined
  const uuid = stringField(record, "uuid")
  if (uuid !== undefined && sidechain) session.chainOf.set(uuid, call ?? null)
  const subAgent: Who = { actor: call?.actor ?? "sub-agent", role: "agent" }
  let context: BlockContext
  if (type === "assistant") {
    const failed = record["isApiErrorMessage"] === true
    context = { who: sidechain ? subAgent : MAIN, main: !sidechain, failed, timestamp }
    session.apiErrorLast = failed
  } else if (sidechain) {
    // the sidechain's user turns are the main agent speaking to its sub-agent
    context = { who: MAIN, main: false, failed: false, timestamp, to: subAgent.actor }
  } else {
    const injected = record["isMeta"] === true || record["isCompactSummary"] === true
    context = { who: injected ? SYSTEM : USER, main: true, failed: false, timestamp }
    session.apiErrorLast = false
  }
  const before = builder.eventCount()
  if (typeof content === "string") readBlock(session, content, context, `${source}.message.content`)
  else content.forEach((block: unknown, j) => readBlock(session, block, context, `${source}.message.content[${j}]`))
  // a record all of whose blocks were empty says nothing
  if (builder.eventCount() === before && (typeof content === "string" || content.length === 0)) builder.skip()
  else if (type === "assistant" && Predicate.isRecord(message)) builder.amend(before, responseFacts(session, message, context.failed))
}

/**
 * What an assistant record says of its API response (DECISIONS §23), for its first event: the
 * usage once per response (the CLI writes a response's blocks as records of their own, each
 * repeating it), the stop reason where it is set, `error` for an API error the CLI recorded.
 */
const responseFacts = (session: Session, message: Rec, failed: boolean): CallFacts => {
  const id = stringField(message, "id")
  const first = id === undefined || !session.responses.has(id)
  if (id !== undefined) session.responses.add(id)
  const usage = message["usage"]
  const input = first && Predicate.isRecord(usage) ? countOf(usage["input_tokens"]) : undefined
  const output = first && Predicate.isRecord(usage) ? countOf(usage["output_tokens"]) : undefined
  return {
    status: failed ? "error" : undefined,
    finish_reason: stringField(message, "stop_reason"),
    tokens: input === undefined && output === undefined ? undefined : { input, output }
  }
}

const readSession = (id: string | null, entries: ReadonlyArray<Entry>): NormalizedTrace | undefined => {
  const session: Session = {
    builder: makeTraceBuilder(id),
    tools: new Map(),
    calls: new Map(),
    ordered: [],
    chainOf: new Map(),
    byAgentId: new Map(),
    task: undefined,
    lastMainMessage: undefined,
    lastEvent: undefined,
    apiErrorLast: false,
    responses: new Set()
  }
  const ordered = [...entries].sort((a, b) => a.time - b.time || a.index - b.index)
  collectSubAgents(session, ordered)
  for (const entry of ordered) readEntry(session, entry)
  const { builder } = session
  if (builder.eventCount() === 0) return undefined
  const last = session.lastEvent
  if (session.apiErrorLast && last?.kind === "error") builder.setSuccess(false)
  const trace = builder.build()
  // the task is the user's first message, never the model's: empty when the user said nothing;
  // the outcome the main agent's last message, or the failure the run ended on
  const outcome = last?.kind === "error" ? last.content : (session.lastMainMessage ?? "")
  return { ...trace, task: session.task ?? "", outcome, agents: withHandoffTargets(trace) }
}

/** The trace's agents and the sub-agents its handoffs start, in order of first appearance. */
const withHandoffTargets = (trace: NormalizedTrace): ReadonlyArray<string> => {
  const agents = [...trace.agents]
  for (const event of trace.events) if (event.kind === "handoff" && event.to !== undefined && !agents.includes(event.to)) agents.push(event.to)
  return agents
}

const read = (body: unknown): Either.Either<ReadonlyArray<NormalizedTrace>, string> => {
  const records: ReadonlyArray<unknown> = Array.isArray(body) ? body : Predicate.isRecord(body) ? [body] : []
  if (records.length === 0) return Either.left("claude_code: expected the records of a Claude Code transcript (JSON Lines)")
  const sessions = new Map<string, Array<Entry>>()
  let current: string | undefined
  let unread = 0
  let previous = Number.NEGATIVE_INFINITY
  records.forEach((record: unknown, index) => {
    if (!Predicate.isRecord(record) || typeof record["type"] !== "string") {
      unread++
      return
    }
    const time = timeOf(record) ?? previous
    previous = time
    const sessionId = stringField(record, "sessionId") ?? current
    // records without a session of their own (summaries) go with the session before them
    const key = sessionId ?? ""
    current = sessionId
    const list = sessions.get(key) ?? []
    list.push({ record, index, time })
    sessions.set(key, list)
  })
  const traces: Array<NormalizedTrace> = []
  for (const [key, entries] of sessions) {
    const trace = readSession(key.length > 0 ? key : null, entries)
    if (trace === undefined) unread += entries.length
    else traces.push(trace)
  }
  if (traces.length === 0) return Either.left(`claude_code: no user or assistant messages to read (${unread} records skipped)`)
  return Either.right(carrySkipped(traces, unread))
}

export const claudeCodeImporter: Importer = {
  format: "claude_code",
  detect: detectSafely(detect),
  read
}
