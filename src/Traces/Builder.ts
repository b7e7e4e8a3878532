/**
 * What every importer builds a normalized trace with (Traces/Model.ts): events in order, history
 * de-duplicated, records skipped counted, and task / outcome / success / agents derived the same
 * way for every format.
 *
 * History: each model call (an LLM span, a LangSmith llm run, a recorded request) carries the whole
 * conversation so far. `addHistory` adds a call's messages by occurrence: the k-th copy of an
 * identical message (same role, kind, tool and content) is new only when fewer than k copies were
 * seen before. A run of N messages repeated over N calls becomes about N events, not N²; a message
 * that really is said twice in one conversation stays twice.
 */
import * as Predicate from "effect/Predicate"
import { type ActorRole, type DeclaredTool, type EventKind, type EventStatus, isContentPlaceholder, type NormalizedTrace, type TokenUsage, type TraceEvent } from "./Model.js"

/** A model call's facts (DECISIONS §23), as its source reports them; each absent when it does not. */
export interface CallFacts {
  readonly status?: EventStatus | undefined
  readonly status_code?: string | undefined
  readonly status_message?: string | undefined
  readonly finish_reason?: string | undefined
  readonly tokens?: TokenUsage | undefined
  readonly duration_ms?: number | undefined
}

/** `over`'s facts, `base`'s where `over` has none. */
export const mergeFacts = (base: CallFacts, over: CallFacts): CallFacts => ({
  status: over.status ?? base.status,
  status_code: over.status_code ?? base.status_code,
  status_message: over.status_message ?? base.status_message,
  finish_reason: over.finish_reason ?? base.finish_reason,
  tokens: over.tokens ?? base.tokens,
  duration_ms: over.duration_ms ?? base.duration_ms
})

/** The structure an event may carry: the tool call it belongs to, and a call's or execution's facts. */
export interface EventFacts extends CallFacts {
  readonly call_id?: string | undefined
}

export interface EventInput extends EventFacts {
  readonly actor: string
  readonly role: ActorRole
  readonly kind: EventKind
  readonly content: string
  readonly tool?: string | undefined
  readonly to?: string | undefined
  readonly timestamp?: string | undefined
  readonly source: string
}

/**
 * One model call of `addHistory`: its facts go on the first event of its output that is added and
 * is the agent's; a call with no output at all (no content recorded, or an empty answer) is kept
 * as an empty message of `actor` at `source` carrying them (DECISIONS §23). An output wholly
 * de-duplicated (an agent span repeating its last model call's answer) adds nothing: that answer
 * carries its own facts.
 */
export interface ModelCall {
  /** Where the call's output starts among the messages (the ones before it are its input). */
  readonly outputAt: number
  readonly facts: CallFacts
  readonly actor: string
  readonly source: string
  readonly timestamp?: string | undefined
}

export interface HistoryOptions {
  /** The index of the call's first output message (the model's answer); the messages before it are its input. */
  readonly outputFrom?: number | undefined
  readonly call?: ModelCall | undefined
}

export interface TraceBuilder {
  /** Adds an event as it is (an event that happens once: a tool span, a log record, a run). */
  readonly add: (event: EventInput) => void
  /**
   * Adds the messages of one model call, skipping those already seen (above). Pass a call's input
   * and output together, in order, so an answer that repeats an earlier message is still counted.
   * `outputFrom`, when the importer knows it, is the index of the call's first output message:
   * what the model produced in this call is never history, so it is always added (a tool called
   * again with the same arguments, independently, stays twice), and counted so the next call's
   * input repeating it is de-duplicated.
   */
  readonly addHistory: (messages: ReadonlyArray<EventInput>, options?: HistoryOptions) => void
  /** Adds facts to the event at `index` (a tool call whose execution ended without a result to carry them). */
  readonly amend: (index: number, facts: EventFacts) => void
  /** The tools the agent was offered; the first declaration of a name wins, a later one fills what it lacked. */
  readonly declareTools: (tools: ReadonlyArray<DeclaredTool>) => void
  /** Counts records that were not read (malformed, of unknown types, or not trace content). */
  readonly skip: (count?: number) => void
  readonly setTask: (task: string) => void
  readonly setOutcome: (outcome: string) => void
  readonly setSuccess: (success: boolean) => void
  readonly eventCount: () => number
  readonly build: () => NormalizedTrace
}

/**
 * Counts of messages by content, then by role, kind and tool. Keyed by the content string itself
 * (hashed once, never copied into a longer key), with a short chain per content for the rare
 * message whose text is shared by different roles or kinds: long messages repeated across calls
 * cost neither concatenation nor a map each. A slot compares the three fields themselves, so no
 * key string is built per event.
 */
interface Slot {
  readonly role: ActorRole
  readonly kind: EventKind
  readonly tool: string | undefined
  readonly call_id: string | undefined
  count: number
  next: Slot | undefined
}
class Counts {
  private readonly byContent = new Map<string, Slot>()
  private find(event: TraceEvent): Slot | undefined {
    for (let slot = this.byContent.get(event.content); slot !== undefined; slot = slot.next) if (sameKind(slot, event)) return slot
    return undefined
  }
  /**
   * How many of this message were seen, when `wanted` are: a message with a call id may take one
   * seen without an id, and one without an id one seen with an id (the same result, its id known
   * to one side only, as an Agents SDK function span and the next call's input). What is taken
   * moves to the taker's slot, so each seen message stands for one repeat at a time: a tool called
   * again under a new call id is a new call, not history repeated.
   */
  seen(event: TraceEvent, wanted: number): number {
    const own = this.find(event)
    const count = own?.count ?? 0
    if (count >= wanted) return count
    for (let slot = this.byContent.get(event.content); slot !== undefined; slot = slot.next) {
      if (slot === own || slot.count === 0 || !sameMessage(slot, event)) continue
      if ((event.call_id === undefined) === (slot.call_id === undefined)) continue
      slot.count--
      return this.bump(event)
    }
    return count
  }
  /** Adds one and returns the new count. */
  bump(event: TraceEvent): number {
    const slot = this.find(event)
    if (slot !== undefined) return ++slot.count
    this.byContent.set(event.content, { role: event.role, kind: event.kind, tool: event.tool, call_id: event.call_id, count: 1, next: this.byContent.get(event.content) })
    return 1
  }
}
/** Same role, kind and tool: the same message when the content is the same too, whatever its call id. */
const sameMessage = (a: Pick<TraceEvent, "role" | "kind" | "tool">, b: Pick<TraceEvent, "role" | "kind" | "tool">): boolean =>
  a.role === b.role && a.kind === b.kind && a.tool === b.tool
/** The same message under the same call id (or both without one). */
const sameKind = (a: Pick<TraceEvent, "role" | "kind" | "tool" | "call_id">, b: Pick<TraceEvent, "role" | "kind" | "tool" | "call_id">): boolean =>
  sameMessage(a, b) && a.call_id === b.call_id

/** How many times each message of one call occurs in it (by position), without a map for short calls. */
const occurrencesOf = (messages: ReadonlyArray<TraceEvent>): ReadonlyArray<number> => {
  if (messages.length > 16) {
    const counts = new Counts()
    return messages.map((message) => counts.bump(message))
  }
  return messages.map((message, i) => {
    let count = 1
    for (let j = 0; j < i; j++) {
      const other = messages[j]
      if (other !== undefined && other.content === message.content && sameKind(other, message)) count++
    }
    return count
  })
}

/** A string the event keeps: not empty, and no instrumentation's placeholder. */
const kept = (value: string | undefined): value is string => value !== undefined && value.length > 0 && !isContentPlaceholder(value)

/** A token count worth keeping: a non-negative integer. */
const isCount = (value: number | undefined): value is number => value !== undefined && Number.isInteger(value) && value >= 0

type MutableEvent = { -readonly [K in keyof TraceEvent]: TraceEvent[K] }

/**
 * Writes the facts that are present onto an event, where it has none of its own yet, in the
 * model's field order. Absent ones are left out, so an event of a source without structure is
 * what it was before §23.
 */
const writeFacts = (event: MutableEvent, facts: EventFacts): void => {
  if (event.call_id === undefined && kept(facts.call_id)) event.call_id = facts.call_id
  if (event.status === undefined && facts.status !== undefined) event.status = facts.status
  if (event.status_code === undefined && kept(facts.status_code)) event.status_code = facts.status_code
  if (event.status_message === undefined && kept(facts.status_message)) event.status_message = facts.status_message
  if (event.finish_reason === undefined && kept(facts.finish_reason)) event.finish_reason = facts.finish_reason
  const input = isCount(facts.tokens?.input) ? facts.tokens?.input : undefined
  const output = isCount(facts.tokens?.output) ? facts.tokens?.output : undefined
  if (event.tokens === undefined && (input !== undefined || output !== undefined)) {
    event.tokens = { ...(input === undefined ? {} : { input }), ...(output === undefined ? {} : { output }) }
  }
  const duration = facts.duration_ms
  if (event.duration_ms === undefined && duration !== undefined && Number.isFinite(duration) && duration >= 0) {
    // microseconds at most: span times in nanoseconds give float noise beyond them
    event.duration_ms = Math.round(duration * 1000) / 1000
  }
}

const hasFacts = (input: EventFacts): boolean =>
  input.call_id !== undefined || input.status !== undefined || input.status_code !== undefined || input.status_message !== undefined ||
  input.finish_reason !== undefined || input.tokens !== undefined || input.duration_ms !== undefined

/**
 * Drops absent optional fields, so events are plain JSON with no `undefined` members. An
 * instrumentation's placeholder (`__REDACTED__`, Model.ts) is no content: the event is kept, empty.
 */
const eventOf = (input: EventInput): TraceEvent => {
  const event: MutableEvent = {
    actor: input.actor,
    role: input.role,
    kind: input.kind,
    content: isContentPlaceholder(input.content) ? "" : input.content,
    source: input.source
  }
  if (input.tool !== undefined && input.tool.length > 0) event.tool = input.tool
  if (input.to !== undefined && input.to.length > 0) event.to = input.to
  if (input.timestamp !== undefined && input.timestamp.length > 0) event.timestamp = input.timestamp
  if (hasFacts(input)) writeFacts(event, input)
  return event
}

/** The event with more facts (those it has already win). */
const withFacts = (event: TraceEvent, facts: EventFacts): TraceEvent => {
  const merged: MutableEvent = { ...event }
  writeFacts(merged, facts)
  return merged
}

/** A declared tool as kept: its description when it has one, its parameters when they are an object. */
const toolOf = (tool: DeclaredTool): DeclaredTool => {
  const { description, parameters } = tool
  return {
    name: tool.name,
    ...(description !== undefined && description.length > 0 ? { description } : {}),
    ...(parameters !== undefined ? { parameters } : {})
  }
}

/**
 * Whether an event holds message content for the lenses (DECISIONS §23). An error's text is an
 * exception's or a status's message, or a label made up for it (`ERROR`); a handoff of a few
 * name-like words is a span's name (`invoke_agent billing`, `a -> b`). Neither is what was said, so
 * a trace of such texts alone is content-free. (Placeholders never reach an event: `eventOf`.)
 */
const carriesContent = (event: TraceEvent): boolean => {
  const text = event.content.trim()
  if (text.length === 0 || event.kind === "error") return false
  return event.kind !== "handoff" || !isNameOnly(text)
}
const NAME_LIKE = /^(?:[\w.:@/-]+|->|→)$/
const isNameOnly = (text: string): boolean => {
  const words = text.split(/\s+/)
  return words.length <= 4 && words.every((word) => NAME_LIKE.test(word))
}

export const makeTraceBuilder = (id: string | null): TraceBuilder => {
  const events: Array<TraceEvent> = []
  const seen = new Counts()
  let skipped = 0
  let task: string | undefined
  let outcome: string | undefined
  let success: boolean | undefined
  const tools = new Map<string, DeclaredTool>()

  // Every input becomes its event first: what follows reads one shape of object, not each
  // importer's own (their many shapes made these reads megamorphic, the costliest part per event).
  // Counted only once a model call's history is to be de-duplicated: importers of formats without
  // history (a chat list, a session log) never pay for hashing every content (then caught up).
  let counting = false
  const push = (event: TraceEvent) => {
    events.push(event)
    if (counting) seen.bump(event)
  }

  const addHistory = (inputs: ReadonlyArray<EventInput>, history: HistoryOptions = {}) => {
    if (!counting) {
      counting = true
      for (const event of events) seen.bump(event)
    }
    const messages = inputs.map(eventOf)
    const outputFrom = Math.max(0, Math.min(history.outputFrom ?? messages.length, messages.length))
    const input = outputFrom < messages.length ? messages.slice(0, outputFrom) : messages
    const occurrences = occurrencesOf(input)
    const call = history.call
    const outputAt = call === undefined ? messages.length : Math.max(0, call.outputAt)
    let placed = call === undefined
    // The call's facts ride on the first of its output events that is added and is the agent's
    // (not a system prompt or tool result some formats list among a response's items).
    const pushAt = (message: TraceEvent, i: number) => {
      if (!placed && call !== undefined && i >= outputAt && message.role === "agent") {
        placed = true
        push(withFacts(message, call.facts))
      } else push(message)
    }
    input.forEach((message, i) => {
      const wanted = occurrences[i] ?? 1
      if (wanted > seen.seen(message, wanted)) pushAt(message, i)
    })
    for (let i = outputFrom; i < messages.length; i++) {
      const message = messages[i]
      if (message !== undefined) pushAt(message, i)
    }
    if (!placed && call !== undefined && outputAt >= messages.length) {
      push(eventOf({ actor: call.actor, role: "agent", kind: "message", content: "", source: call.source, timestamp: call.timestamp, ...call.facts }))
    }
  }

  const build = (): NormalizedTrace => {
    const agents: Array<string> = []
    const known = new Set<string>()
    for (const event of events) {
      if (event.role === "agent" && !known.has(event.actor)) {
        known.add(event.actor)
        agents.push(event.actor)
      }
    }
    const firstUser = events.find((event) => event.role === "user" && event.kind === "message" && event.content.trim().length > 0)
    let lastAgent: TraceEvent | undefined
    for (let i = events.length - 1; i >= 0 && lastAgent === undefined; i--) {
      const event = events[i]
      if (event !== undefined && event.role === "agent" && event.kind === "message" && event.content.trim().length > 0) lastAgent = event
    }
    const last = events.at(-1)
    // What ran, without what was said (DECISIONS §18, §23): marked, so no surface analyses it.
    const contentFree = events.length > 0 && !events.some(carriesContent)
    const trace: NormalizedTrace = {
      id,
      // The task is the user's input, never the model's answer, a tool's arguments or the system
      // instructions: empty when the user said nothing (DECISIONS §12; issue 30).
      task: task ?? firstUser?.content ?? "",
      outcome: outcome ?? (last?.kind === "error" ? last.content : lastAgent?.content ?? last?.content ?? ""),
      success: success ?? null,
      agents,
      events,
      skipped
    }
    const declared: NormalizedTrace = tools.size === 0 ? trace : { ...trace, tools: Array.from(tools.values()) }
    // (not `{...marker, id, ...}`: a spread followed by properties is V8's slow path)
    return contentFree ? { content: "absent", ...declared } : declared
  }

  return {
    add: (input) => push(eventOf(input)),
    addHistory,
    amend: (index, facts) => {
      const event = events[index]
      if (event !== undefined) events[index] = withFacts(event, facts)
    },
    declareTools: (declared) => {
      for (const tool of declared) {
        if (!kept(tool.name)) continue
        const known = tools.get(tool.name)
        if (known === undefined) tools.set(tool.name, toolOf(tool))
        else if ((known.description === undefined && tool.description !== undefined) || (known.parameters === undefined && tool.parameters !== undefined)) {
          tools.set(tool.name, toolOf({ name: known.name, description: known.description ?? tool.description, parameters: known.parameters ?? tool.parameters }))
        }
      }
    },
    skip: (count = 1) => {
      skipped += count
    },
    setTask: (value) => {
      if (value.trim().length > 0 && !isContentPlaceholder(value)) task = value
    },
    setOutcome: (value) => {
      if (value.trim().length > 0 && !isContentPlaceholder(value)) outcome = value
    },
    setSuccess: (value) => {
      success = value
    },
    eventCount: () => events.length,
    build
  }
}

/**
 * The text of a message content in any of the common shapes: a string; a list of parts
 * (`{type: "text", text}`, `{type: "text", content}`, `{text}`) whose texts are joined by a
 * newline; anything else as compact JSON. Parts of other types are left to the importer.
 */
export const contentText = (content: unknown): string => {
  if (typeof content === "string") return content
  if (content === null || content === undefined) return ""
  if (typeof content === "number" || typeof content === "boolean") return String(content)
  if (Array.isArray(content)) {
    const texts = content.flatMap((part) => {
      if (typeof part === "string") return [part]
      if (!Predicate.isRecord(part)) return []
      const text = part["text"] ?? part["content"]
      return typeof text === "string" ? [text] : []
    })
    if (texts.length > 0) return texts.join("\n")
  }
  return JSON.stringify(content) ?? ""
}
