/**
 * From a normalized trace to a pattern's input (DECISIONS §12): the family's projection (one
 * element per event, so `steps[i]`, `messages[i]`, `turns[i]` and `observed_behaviors[i]` are
 * `events[i]` and point back to its source), then the pattern's derived extras (estimates, named
 * as derived), then the operator's `hints`, which win. Contents stay verbatim, so quotes are
 * checked against the source's own text.
 */
import type { Family } from "./Families.js"
import type { NormalizedTrace, TraceEvent } from "../Traces/Model.js"
import type { DeriveFromTrace, Projection } from "../Traces/Reading.js"

const optional = (key: string, value: string | undefined): Readonly<Record<string, string>> =>
  value === undefined || value.length === 0 ? {} : { [key]: value }

/** How an event reads as one line where the family has only text (behaviours, turn roles). */
export const eventLabel = (event: TraceEvent): string =>
  event.kind === "message" ? event.actor : `${event.actor} ${event.kind}${event.tool === undefined ? "" : ` ${event.tool}`}`

const runFields = (trace: NormalizedTrace) => ({
  task: trace.task.trim().length > 0 ? trace.task : "(the trace states no task)",
  outcome: trace.outcome,
  ...(trace.success === null ? {} : { success: trace.success })
})

const lastIndex = <A>(list: ReadonlyArray<A>, test: (a: A) => boolean): number => {
  for (let i = list.length - 1; i >= 0; i--) {
    const item = list[i]
    if (item !== undefined && test(item)) return i
  }
  return -1
}

/** Sources of `task` and `outcome` (a sequence's elements are looked up by index: `sequence`). */
const runSources = (trace: NormalizedTrace): Map<string, string> => {
  const sources = new Map<string, string>()
  const task = trace.events.find((event) => event.role === "user" && event.content === trace.task)
  if (task !== undefined) sources.set("task", task.source)
  const outcome = lastIndex(trace.events, (event) => event.content === trace.outcome)
  const outcomeEvent = trace.events[outcome]
  if (outcomeEvent !== undefined) sources.set("outcome", outcomeEvent.source)
  return sources
}

const agentsOf = (trace: NormalizedTrace): ReadonlyArray<string> => (trace.agents.length > 0 ? trace.agents : ["agent"])

/** What one actor did in a trace: its events, the first of them, the tools it called (first-seen order). */
export interface ActorActivity {
  readonly events: number
  readonly first: TraceEvent
  readonly tools: ReadonlyArray<string>
}

/**
 * Per trace: triage projects one trace for every pattern, and several read each actor's activity;
 * filtering the events once per agent was events × agents (issue 27: 5,000 agents took seconds).
 */
const activityOf = new WeakMap<NormalizedTrace, ReadonlyMap<string, ActorActivity>>()

/** Each actor's activity, from one pass over the events (computed once per trace). */
export const actorActivity = (trace: NormalizedTrace): ReadonlyMap<string, ActorActivity> => {
  const known = activityOf.get(trace)
  if (known !== undefined) return known
  const building = new Map<string, { events: number; readonly first: TraceEvent; readonly tools: Set<string> }>()
  for (const event of trace.events) {
    let activity = building.get(event.actor)
    if (activity === undefined) {
      activity = { events: 0, first: event, tools: new Set() }
      building.set(event.actor, activity)
    }
    activity.events += 1
    if (event.kind === "tool_call" && event.tool !== undefined) activity.tools.add(event.tool)
  }
  const activity = new Map<string, ActorActivity>()
  for (const [actor, { events, first, tools }] of building) activity.set(actor, { events, first, tools: Array.from(tools) })
  activityOf.set(trace, activity)
  return activity
}

/** An agent's role as the run shows it: `agent in the run (3 events; tools: search, fetch)`. */
export const agentRoleText = (activity: ActorActivity | undefined): string => {
  const events = activity?.events ?? 0
  const tools = activity?.tools ?? []
  return `agent in the run (${events} event${events === 1 ? "" : "s"}${tools.length > 0 ? `; tools: ${tools.join(", ")}` : ""})`
}

/** The family's projection of a normalized trace. */
export const familyProjection = (family: Family, trace: NormalizedTrace): Projection => {
  switch (family) {
    case "step_trace":
      return {
        input: {
          ...runFields(trace),
          steps: trace.events.map((event) => ({
            type: event.kind,
            content: event.content,
            actor: event.actor,
            ...optional("tool", event.tool),
            ...optional("timestamp", event.timestamp)
          }))
        },
        sources: runSources(trace),
        sequence: { field: "steps", events: trace.events }
      }
    case "message_log":
      return {
        input: {
          ...runFields(trace),
          agents: agentsOf(trace),
          messages: trace.events.map((event) => ({
            from: event.actor,
            content: event.content,
            type: event.kind,
            ...optional("to", event.to),
            ...optional("timestamp", event.timestamp)
          }))
        },
        sources: runSources(trace),
        sequence: { field: "messages", events: trace.events }
      }
    case "conversation":
      return {
        input: { ...runFields(trace), turns: trace.events.map((event) => ({ role: eventLabel(event), content: event.content })) },
        sources: runSources(trace),
        sequence: { field: "turns", events: trace.events }
      }
    case "behaviour_report": {
      const system = trace.events.find((event) => event.role === "system" && event.content.trim().length > 0)
      return {
        input: {
          ...runFields(trace),
          observed_behaviors: trace.events.map((event) => `${eventLabel(event)}: ${event.content}`),
          ...optional("system_prompt", system?.content)
        },
        sources: runSources(trace),
        sequence: { field: "observed_behaviors", events: trace.events }
      }
    }
    case "crew": {
      const sources = runSources(trace)
      const reportsTo = new Map<string, string>()
      for (const event of trace.events) {
        if (event.kind === "handoff" && event.to !== undefined && event.to !== event.actor && !reportsTo.has(event.to)) {
          reportsTo.set(event.to, event.actor)
        }
      }
      const activity = actorActivity(trace)
      const agents = agentsOf(trace).map((name, i) => {
        const own = activity.get(name)
        if (own !== undefined) sources.set(`agents[${i}]`, own.first.source)
        const manager = reportsTo.get(name)
        return { id: name, role: agentRoleText(own), reports_to: manager === undefined ? [] : [manager] }
      })
      return { input: { ...runFields(trace), agents }, sources, sequence: undefined }
    }
    case "request":
    case "special":
      return { input: runFields(trace), sources: runSources(trace), sequence: undefined }
  }
}

export interface PatternProjection extends Projection {
  /** Input fields derived by code (named as derived in the prompt). */
  readonly derived: ReadonlyArray<string>
  /** Input fields the operator gave in `hints`. */
  readonly hinted: ReadonlyArray<string>
}

/** The pattern's input from a trace: family projection, then derived extras, then hints (which win). */
export const projectTrace = (
  family: Family,
  derive: DeriveFromTrace | undefined,
  trace: NormalizedTrace,
  hints: Readonly<Record<string, unknown>>
): PatternProjection => {
  const base = familyProjection(family, trace)
  const derived = derive === undefined ? { fields: {} } : derive(trace, base)
  const sources = new Map(base.sources)
  const derivedNames: Array<string> = []
  const input: Record<string, unknown> = { ...base.input }
  for (const [field, value] of Object.entries(derived.fields)) {
    if (Object.hasOwn(hints, field) || value === undefined) continue
    input[field] = value
    derivedNames.push(field)
  }
  for (const [ref, source] of derived.sources ?? []) sources.set(ref, source)
  const hinted = Object.keys(hints)
  for (const field of hinted) input[field] = hints[field]
  // A derived sequence that annotates the events one for one (debate rounds, say) keeps their
  // sources; one given in hints, or of another length, does not.
  const field = base.sequence?.field
  const list = field === undefined ? undefined : input[field]
  const sequence = base.sequence !== undefined && field !== undefined && !hinted.includes(field) && Array.isArray(list) &&
      list.length === base.sequence.events.length
    ? base.sequence
    : undefined
  return { input, sources, sequence, derived: derivedNames, hinted }
}
