/**
 * Cognitive reappraisal from a raw trace: the exchange to read is picked by code, and both sides
 * are quoted verbatim. `user_input` is the first user message that carries negative-affect wording
 * (the signals' own markers), else the first user message, else the task; `agent_response` is the
 * agent's next message after it, else the agent's next event of any kind (what it did in reply),
 * else its last message. The user's emotion is not derived: it stays for hints or the model.
 */
import type { TraceEvent } from "../../src/Traces/Model.js"
import type { DeriveFromTrace } from "../../src/Traces/Reading.js"
import { NEGATIVE_AFFECT } from "./signals.js"

const filled = (event: TraceEvent): boolean => event.content.trim().length > 0
const emotional = (text: string): boolean => (text.match(NEGATIVE_AFFECT) ?? []).length > 0

export const deriveFromTrace: DeriveFromTrace = (trace, base) => {
  const events = trace.events
  const userIndices = events.flatMap((event, i) => (event.role === "user" && event.kind === "message" && filled(event) ? [i] : []))
  const picked = userIndices.find((i) => emotional(events[i]?.content ?? "")) ?? userIndices[0]
  const userEvent = picked === undefined ? undefined : events[picked]
  const from = picked ?? -1
  const after = (test: (event: TraceEvent) => boolean): TraceEvent | undefined => events.find((event, i) => i > from && test(event))
  let lastMessage: TraceEvent | undefined
  for (const event of events) if (event.role === "agent" && event.kind === "message" && filled(event)) lastMessage = event
  const response = after((event) => event.role === "agent" && event.kind === "message" && filled(event)) ??
    after((event) => event.role === "agent" && filled(event)) ??
    lastMessage
  const sources = new Map<string, string>()
  if (userEvent !== undefined) sources.set("user_input", userEvent.source)
  if (response !== undefined) sources.set("agent_response", response.source)
  const task = base.input["task"]
  return {
    fields: {
      user_input: userEvent?.content ?? (typeof task === "string" && task.trim().length > 0 ? task : "(the trace states no user input)"),
      agent_response: response?.content ?? "(the agent gave no response in the trace)"
    },
    sources
  }
}
