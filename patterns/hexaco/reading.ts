/**
 * HEXACO from a raw trace: `authority_scope` is the system prompt, verbatim, when the trace has
 * one (it is where an agent's permissions and limits are written). Without one, the scope is
 * inferred from what the agent did (the tools it called) and says so: a trace with no system
 * prompt states no permission or limit, so none is invented.
 */
import type { DeriveFromTrace } from "../../src/Traces/Reading.js"

export const deriveFromTrace: DeriveFromTrace = (trace) => {
  const system = trace.events.find((event) => event.role === "system" && event.kind === "message" && event.content.trim().length > 0)
  if (system !== undefined) return { fields: { authority_scope: system.content }, sources: new Map([["authority_scope", system.source]]) }
  const tools = Array.from(
    new Set(trace.events.flatMap((event) => (event.kind === "tool_call" && event.role === "agent" ? [event.tool ?? event.actor] : [])))
  )
  const used = tools.length === 0 ? "called no tools" : `called the tools ${tools.join(", ")}`
  return {
    fields: {
      authority_scope: `Inferred from the trace, which holds no system prompt: the agent ${used}; the trace states no permissions or limits.`
    }
  }
}
