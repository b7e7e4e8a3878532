/**
 * Debate pathology from a raw trace. `messages` are the events, one per event as in the message
 * family, each with the `round` it falls in, counted from turn order: a turn is an agent's run of
 * consecutive events, and a round closes when an agent that already took a turn in it speaks
 * again (so every full cycle of speakers is one round; events of users, tools and the system
 * belong to the round they fall in). Rounds start at 1. `final_decision` is the run's outcome,
 * else the last agent message, verbatim. Positions and tones are not derived (the model reads them).
 */
import type { NormalizedTrace, TraceEvent } from "../../src/Traces/Model.js"
import type { DeriveFromTrace } from "../../src/Traces/Reading.js"

/** The round of each event, from turn order. */
export const roundsOf = (events: ReadonlyArray<TraceEvent>): Array<number> => {
  let round = 1
  let spoke = new Set<string>()
  let lastSpeaker: string | undefined
  return events.map((event) => {
    if (event.role === "agent" && event.actor !== lastSpeaker) {
      if (spoke.has(event.actor)) {
        round += 1
        spoke = new Set()
      }
      spoke.add(event.actor)
      lastSpeaker = event.actor
    }
    return round
  })
}

const lastAgentMessage = (trace: NormalizedTrace): TraceEvent | undefined => {
  for (let i = trace.events.length - 1; i >= 0; i--) {
    const event = trace.events[i]
    if (event !== undefined && event.role === "agent" && event.kind === "message" && event.content.trim().length > 0) return event
  }
  return undefined
}

export const deriveFromTrace: DeriveFromTrace = (trace, base) => {
  const rounds = roundsOf(trace.events)
  const messages = trace.events.map((event, i) => ({
    from: event.actor.trim().length > 0 ? event.actor : event.role,
    content: event.content,
    type: event.kind,
    ...(event.to === undefined || event.to.length === 0 ? {} : { to: event.to }),
    ...(event.timestamp === undefined || event.timestamp.length === 0 ? {} : { timestamp: event.timestamp }),
    round: rounds[i] ?? 1
  }))
  const sources = new Map<string, string>()
  const last = lastAgentMessage(trace)
  const outcomeSource = base.sources.get("outcome")
  const decision = trace.outcome.trim().length > 0
    ? { text: trace.outcome, source: outcomeSource }
    : last !== undefined
    ? { text: last.content, source: last.source }
    : { text: "(the trace states no decision)", source: undefined }
  if (decision.source !== undefined) sources.set("final_decision", decision.source)
  return { fields: { messages, final_decision: decision.text }, sources }
}
