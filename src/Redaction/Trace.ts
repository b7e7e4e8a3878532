/**
 * Redaction applied to what a request brings (DECISIONS §20): a normalized trace's content strings
 * (task, outcome, every event's content; never ids, timestamps, sources, actor or tool names), a
 * pattern's own input shape and hints (every string value; never keys). One pass per trace, so a
 * trace's placeholders never meet and its counts are its own.
 */
import { Predicate } from "effect"
import type { RedactTrace } from "../Traces/Normalize.js"
import type { RedactionCounts, ScopedRedactor } from "./Redactor.js"

/** The trace with its content redacted, and `redactions` counting what was replaced. */
export const redactTrace = (redactor: ScopedRedactor): RedactTrace => (trace) => {
  if (!redactor.enabled) return trace
  const pass = redactor.pass()
  // every content string of the trace in one batch: task, outcome, then the events in order
  const redacted = pass.texts([trace.task, trace.outcome, ...trace.events.map((event) => event.content)])
  const counts = pass.counts()
  if (Object.keys(counts).length === 0) return trace
  const events = trace.events.map((event, i) => {
    const content = redacted[i + 2] ?? event.content
    return content === event.content ? event : { ...event, content }
  })
  return { ...trace, task: redacted[0] ?? trace.task, outcome: redacted[1] ?? trace.outcome, events, redactions: counts }
}

/** A JSON object (a native trace, hints) redacted, with its counts. */
export const redactRecord = (
  redactor: ScopedRedactor,
  value: Readonly<Record<string, unknown>>
): { readonly value: Readonly<Record<string, unknown>>; readonly counts: RedactionCounts } => {
  if (!redactor.enabled) return { value, counts: {} }
  const pass = redactor.pass()
  const redacted = pass.json(value)
  // strings are replaced by strings: an object stays an object
  return { value: Predicate.isRecord(redacted) ? redacted : value, counts: pass.counts() }
}
