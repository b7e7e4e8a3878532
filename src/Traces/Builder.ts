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
import { Predicate } from "effect"
import type { ActorRole, EventKind, NormalizedTrace, TraceEvent } from "./Model.js"

export interface EventInput {
  readonly actor: string
  readonly role: ActorRole
  readonly kind: EventKind
  readonly content: string
  readonly tool?: string | undefined
  readonly to?: string | undefined
  readonly timestamp?: string | undefined
  readonly source: string
}

export interface HistoryOptions {
  /** The index of the call's first output message (the model's answer); the messages before it are its input. */
  readonly outputFrom?: number | undefined
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
  count: number
  next: Slot | undefined
}
class Counts {
  private readonly byContent = new Map<string, Slot>()
  get(event: TraceEvent): number {
    for (let slot = this.byContent.get(event.content); slot !== undefined; slot = slot.next) if (sameKind(slot, event)) return slot.count
    return 0
  }
  /** Adds one and returns the new count. */
  bump(event: TraceEvent): number {
    const head = this.byContent.get(event.content)
    for (let slot = head; slot !== undefined; slot = slot.next) if (sameKind(slot, event)) return ++slot.count
    this.byContent.set(event.content, { role: event.role, kind: event.kind, tool: event.tool, count: 1, next: head })
    return 1
  }
}
/** Same role, kind and tool: the same message when the content is the same too. */
const sameKind = (a: Pick<TraceEvent, "role" | "kind" | "tool">, b: Pick<TraceEvent, "role" | "kind" | "tool">): boolean =>
  a.role === b.role && a.kind === b.kind && a.tool === b.tool

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

/** Drops absent optional fields, so events are plain JSON with no `undefined` members. */
const eventOf = (input: EventInput): TraceEvent => {
  const event: { -readonly [K in keyof TraceEvent]: TraceEvent[K] } = {
    actor: input.actor,
    role: input.role,
    kind: input.kind,
    content: input.content,
    source: input.source
  }
  if (input.tool !== undefined && input.tool.length > 0) event.tool = input.tool
  if (input.to !== undefined && input.to.length > 0) event.to = input.to
  if (input.timestamp !== undefined && input.timestamp.length > 0) event.timestamp = input.timestamp
  return event
}

export const makeTraceBuilder = (id: string | null): TraceBuilder => {
  const events: Array<TraceEvent> = []
  const seen = new Counts()
  let skipped = 0
  let task: string | undefined
  let outcome: string | undefined
  let success: boolean | undefined

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
    input.forEach((message, i) => {
      if ((occurrences[i] ?? 1) > seen.get(message)) push(message)
    })
    for (let i = outputFrom; i < messages.length; i++) {
      const message = messages[i]
      if (message !== undefined) push(message)
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
    // What ran, without what was said (DECISIONS §18): marked, so no surface analyses it.
    const contentFree = events.length > 0 && events.every((event) => event.content.trim().length === 0)
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
    // (not `{...marker, id, ...}`: a spread followed by properties is V8's slow path)
    return contentFree ? { content: "absent", ...trace } : trace
  }

  return {
    add: (input) => push(eventOf(input)),
    addHistory,
    skip: (count = 1) => {
      skipped += count
    },
    setTask: (value) => {
      if (value.trim().length > 0) task = value
    },
    setOutcome: (value) => {
      if (value.trim().length > 0) outcome = value
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
