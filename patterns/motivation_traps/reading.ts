/**
 * Motivation traps from a raw trace. `abandonment_signal` is how the run stopped, verbatim: the
 * final error when the run ended on one, else the agent's last message, else its last event.
 * `prior_failures` are the error events before that stop, verbatim. Neither says *why* the agent
 * gave up: that is the model's reading.
 */
import type { TraceEvent } from "../../src/Traces/Model.js"
import type { DeriveFromTrace } from "../../src/Traces/Reading.js"

const lastIndex = (events: ReadonlyArray<TraceEvent>, test: (event: TraceEvent) => boolean): number => {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]
    if (event !== undefined && test(event)) return i
  }
  return -1
}

const filled = (event: TraceEvent): boolean => event.content.trim().length > 0

export const deriveFromTrace: DeriveFromTrace = (trace) => {
  const events = trace.events
  const final = lastIndex(events, (event) => event.role !== "system" && filled(event))
  const finalEvent = events[final]
  const stop = finalEvent !== undefined && finalEvent.kind === "error"
    ? final
    : [
        lastIndex(events, (event) => event.role === "agent" && event.kind === "message" && filled(event)),
        lastIndex(events, (event) => event.role === "agent" && filled(event))
      ].find((i) => i >= 0) ?? -1
  const stopEvent = events[stop]
  const sources = new Map<string, string>()
  const failures = events.flatMap((event, i) => (event.kind === "error" && i !== stop && filled(event) && (stop < 0 || i < stop) ? [event] : []))
  failures.forEach((event, i) => sources.set(`prior_failures[${i}]`, event.source))
  if (stopEvent !== undefined) sources.set("abandonment_signal", stopEvent.source)
  const outcome = trace.outcome.trim()
  return {
    fields: {
      abandonment_signal: stopEvent?.content ?? (outcome.length > 0 ? trace.outcome : "(the trace ends with no message or error from the agent)"),
      ...(failures.length === 0 ? {} : { prior_failures: failures.map((event) => event.content) })
    },
    sources
  }
}
