/**
 * GRPI from a raw trace: the team as the run shows it. `agents` are the run's agents with the tools
 * each called; an agent's `description` is the system prompt the trace holds for it (a system
 * message is read as the prompt of the next agent to act, the only agent's when there is one),
 * verbatim, and empty when the trace holds none: that is a role the run never wrote down.
 * `constraints` are the system prompts' sentences that state a limit (must not, never, only, at
 * most, budget, deadline, ...), verbatim.
 */
import type { NormalizedTrace, TraceEvent } from "../../src/Traces/Model.js"
import { actorActivity } from "../../src/Catalogue/Project.js"
import type { DeriveFromTrace } from "../../src/Traces/Reading.js"

export const CONSTRAINT =
  /\b(must not|may not|do not|don't|never|cannot|can't|only|at most|no more than|up to|within|limit\w*|budget|deadline|not allowed|forbidden|required to|must)\b/i

/** A text's sentences (and lines), trimmed, non-empty. */
const sentences = (text: string): Array<string> =>
  text
    .split(/\n+|(?<=[.!?])\s+/)
    .map((part) => part.trim())
    .filter((part) => part.length > 0)

/** Sentences of the system prompts that state a limit, verbatim, each with its event. */
export const constraintSentences = (trace: NormalizedTrace): Array<{ readonly text: string; readonly event: TraceEvent }> => {
  const found = new Map<string, { readonly text: string; readonly event: TraceEvent }>()
  for (const event of trace.events) {
    if (event.role !== "system") continue
    for (const text of sentences(event.content)) {
      if (CONSTRAINT.test(text) && !found.has(text)) found.set(text, { text, event })
    }
  }
  return Array.from(found.values())
}

const agentNames = (trace: NormalizedTrace): Array<string> => {
  const acting = trace.events.filter((event) => event.role === "agent").map((event) => event.actor)
  const names = Array.from(new Set([...trace.agents, ...acting])).filter((name) => name.trim().length > 0)
  return names.length > 0 ? names : ["agent"]
}

/** Each agent's system prompt: a system message belongs to the next agent to act. */
export const systemPrompts = (trace: NormalizedTrace, names: ReadonlyArray<string>): Map<string, TraceEvent> => {
  const prompts = new Map<string, TraceEvent>()
  let pending: TraceEvent | undefined
  for (const event of trace.events) {
    if (event.role === "system" && event.content.trim().length > 0) {
      pending ??= event
    } else if (event.role === "agent" && pending !== undefined) {
      if (!prompts.has(event.actor)) prompts.set(event.actor, pending)
      pending = undefined
    }
  }
  const only = names[0]
  const first = trace.events.find((event) => event.role === "system" && event.content.trim().length > 0)
  if (names.length === 1 && only !== undefined && !prompts.has(only) && first !== undefined) prompts.set(only, first)
  return prompts
}

export const deriveFromTrace: DeriveFromTrace = (trace) => {
  const names = agentNames(trace)
  const prompts = systemPrompts(trace, names)
  const sources = new Map<string, string>()
  // Each agent's events from one pass over the trace (a pass per agent was quadratic, issue 27).
  const activity = actorActivity(trace)
  const agents = names.map((name, i) => {
    const own = activity.get(name)
    if (own !== undefined) sources.set(`agents[${i}]`, own.first.source)
    const tools = own?.tools ?? []
    return { name, description: prompts.get(name)?.content ?? "", ...(tools.length === 0 ? {} : { tools }) }
  })
  const constraints = constraintSentences(trace)
  constraints.forEach((c, i) => sources.set(`constraints[${i}]`, c.event.source))
  return {
    fields: { agents, ...(constraints.length === 0 ? {} : { constraints: constraints.map((c) => c.text) }) },
    sources
  }
}
