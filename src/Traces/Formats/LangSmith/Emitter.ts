/**
 * Emitting LangSmith events (DECISIONS §12): history de-duplication shared by llm messages and
 * tool runs, with tool-call arguments compared in a canonical form.
 */
import * as Predicate from "effect/Predicate"
import type { EventInput, ModelCall, TraceBuilder } from "../../Builder.js"
import type { EventKind } from "../../Model.js"

/** The builder's history signature (role, kind, tool, content). */
const signature = (event: EventInput) => `${event.role}\u0000${event.kind}\u0000${event.tool ?? ""}\u0000${event.content}`

/** Sorts object keys, so `{"a": 1}` and `{"a":1}` compare equal. */
const stableJson = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`
  if (Predicate.isRecord(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${stableJson(value[key])}`)
      .join(",")}}`
  }
  return JSON.stringify(value) ?? "null"
}

const canonical = (content: string): string => {
  const trimmed = content.trim()
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
    try {
      return stableJson(JSON.parse(trimmed))
    } catch {
      return trimmed
    }
  }
  return trimmed
}

export interface Emitter {
  /** Adds an event that happens once (an error, a chain's own output). */
  readonly add: (event: EventInput) => void
  /** One model call's conversation (inputs then outputs): only messages not seen before; the call's facts on its output (Builder.ts). */
  readonly history: (events: ReadonlyArray<EventInput>, call?: ModelCall) => void
  /** Tool-run events: the k-th identical one is added only when fewer than k are in the trace. */
  readonly toolRun: (event: EventInput) => void
  readonly errorSeen: (content: string) => boolean
}

/**
 * The same call or result is often written twice: as the model's message (`tool_calls`, a tool
 * message in the next call's input) and as the tool run. Events equal up to JSON formatting (and
 * a tool message equal to a tool run's error) take the wording of the first one, so the builder's
 * history signature sees them as one.
 */
export const makeEmitter = (builder: TraceBuilder): Emitter => {
  const seen = new Map<string, number>()
  const toolRunCounts = new Map<string, number>()
  const aliases = new Map<string, { readonly kind: EventKind; readonly content: string }>()
  const errors = new Set<string>()

  const normalize = (event: EventInput): EventInput => {
    const outcome = event.role === "tool" && (event.kind === "tool_result" || event.kind === "error")
    const key = `${event.role}\u0000${outcome ? "outcome" : event.kind}\u0000${event.tool ?? ""}\u0000${canonical(event.content)}`
    const known = aliases.get(key)
    if (known === undefined) {
      aliases.set(key, { kind: event.kind, content: event.content })
      return event
    }
    return known.kind === event.kind && known.content === event.content ? event : { ...event, kind: known.kind, content: known.content }
  }
  const count = (event: EventInput) => {
    const sig = signature(event)
    seen.set(sig, (seen.get(sig) ?? 0) + 1)
    if (event.kind === "error") errors.add(event.content.trim())
  }
  return {
    add: (raw) => {
      const event = normalize(raw)
      builder.add(event)
      count(event)
    },
    history: (raw, call) => {
      const events = raw.map(normalize)
      const occurrences = new Map<string, number>()
      const added: Array<EventInput> = []
      for (const event of events) {
        const sig = signature(event)
        const occurrence = (occurrences.get(sig) ?? 0) + 1
        occurrences.set(sig, occurrence)
        if (occurrence > (seen.get(sig) ?? 0)) added.push(event)
      }
      builder.addHistory(events, call === undefined ? undefined : { call })
      for (const event of added) count(event)
    },
    toolRun: (raw) => {
      const event = normalize(raw)
      const sig = signature(event)
      const occurrence = (toolRunCounts.get(sig) ?? 0) + 1
      toolRunCounts.set(sig, occurrence)
      if (occurrence > (seen.get(sig) ?? 0)) {
        builder.add(event)
        count(event)
      }
    },
    errorSeen: (content) => errors.has(content.trim())
  }
}
