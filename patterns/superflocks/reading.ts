/**
 * Superflocks from a raw trace: the routing the run shows. Each user request is routed to the
 * first agent that acts after it, and each handoff routes the current request to its receiver.
 * The last decision's outcome is the run's own status when the trace states one; a decision whose
 * share of the run ends on an error event is `failed`; other outcomes are left out. `window` is
 * the span of the trace's timestamps, or the whole trace. `agents` are the run's agents and every
 * receiver of a handoff. Candidates and individual scores are not derived.
 */
import type { NormalizedTrace } from "../../src/Traces/Model.js"
import type { DeriveFromTrace } from "../../src/Traces/Reading.js"

interface Decision {
  readonly task_id: string
  readonly routed_to: string
  readonly at: number
  readonly source: string
}

export const routingDecisions = (trace: NormalizedTrace): Array<Decision> => {
  const decisions: Array<Decision> = []
  let requests = 0
  let pending: { readonly id: string; readonly source: string } | undefined
  let current = "task"
  trace.events.forEach((event, i) => {
    if (event.role === "user" && event.kind === "message") {
      requests += 1
      current = `request-${requests}`
      pending = { id: current, source: event.source }
      return
    }
    if (event.role !== "agent" || event.actor.trim().length === 0) return
    if (pending !== undefined) {
      decisions.push({ task_id: pending.id, routed_to: event.actor, at: i, source: pending.source })
      pending = undefined
    }
    if (event.kind === "handoff" && event.to !== undefined && event.to.trim().length > 0 && event.to !== event.actor) {
      decisions.push({ task_id: current, routed_to: event.to, at: i, source: event.source })
    }
  })
  return decisions
}

const windowOf = (trace: NormalizedTrace): string => {
  const stamps = trace.events.flatMap((event) => (event.timestamp === undefined || Number.isNaN(Date.parse(event.timestamp)) ? [] : [event.timestamp]))
  const first = stamps[0]
  const last = stamps[stamps.length - 1]
  return first !== undefined && last !== undefined && first !== last
    ? `${first}..${last}`
    : `the whole trace (${trace.events.length} event${trace.events.length === 1 ? "" : "s"})`
}

export const deriveFromTrace: DeriveFromTrace = (trace) => {
  const found = routingDecisions(trace)
  const fallback = trace.agents[0] ?? trace.events.find((event) => event.role === "agent")?.actor ?? "agent"
  const decisions = found.length > 0 ? found : [{ task_id: "task", routed_to: fallback, at: 0, source: trace.events[0]?.source ?? "" }]
  const sources = new Map<string, string>()
  const routing = decisions.map((d, k) => {
    if (d.source.length > 0) sources.set(`routing_decisions[${k}]`, d.source)
    const until = decisions[k + 1]?.at ?? trace.events.length
    const segment = trace.events.slice(d.at, until).filter((event) => event.role !== "system" && event.role !== "user")
    const endedOnError = segment[segment.length - 1]?.kind === "error"
    const last = k === decisions.length - 1
    const outcome = last && trace.success !== null ? (trace.success ? "resolved" : "failed") : endedOnError ? "failed" : undefined
    return { task_id: d.task_id, routed_to: d.routed_to, ...(outcome === undefined ? {} : { outcome }) }
  })
  const agents = Array.from(new Set([...trace.agents, ...routing.map((d) => d.routed_to)])).filter((name) => name.trim().length > 0)
  return { fields: { window: windowOf(trace), agents: agents.length > 0 ? agents : [fallback], routing_decisions: routing }, sources }
}
