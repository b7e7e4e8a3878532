/**
 * Plus/delta from a raw trace: the run reviewed as one contribution. `subject` is the agent with
 * the most events (the first to appear on a tie); `reviewer` is this service, reviewing the trace
 * automatically; `task_context` is the task; `contribution_summary` is what the trace shows the
 * subject did, counted by code (its events by kind, the tools it called, the errors it met, how
 * the run ended); `artifact` is the run's final output, verbatim (its outcome, else the subject's
 * last message, else the last event).
 */
import type { NormalizedTrace, TraceEvent } from "../../src/Traces/Model.js"
import type { DeriveFromTrace } from "../../src/Traces/Reading.js"

export const REVIEWER = "pattern-analysis-service (automated review of the trace)"

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? "" : "s"}`

export const mainAgent = (trace: NormalizedTrace): string => {
  const counts = new Map<string, number>()
  for (const event of trace.events) {
    if (event.role === "agent" && event.actor.trim().length > 0) counts.set(event.actor, (counts.get(event.actor) ?? 0) + 1)
  }
  let best: string | undefined
  for (const [name, count] of counts) if (best === undefined || count > (counts.get(best) ?? 0)) best = name
  return best ?? trace.agents[0] ?? "agent"
}

const lastOf = (events: ReadonlyArray<TraceEvent>, test: (event: TraceEvent) => boolean): TraceEvent | undefined => {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]
    if (event !== undefined && test(event)) return event
  }
  return undefined
}

export const contributionSummary = (trace: NormalizedTrace, subject: string): string => {
  const own = trace.events.filter((event) => event.actor === subject)
  const kinds = ["message", "thought", "tool_call", "handoff", "error"].flatMap((kind) => {
    const n = own.filter((event) => event.kind === kind).length
    return n === 0 ? [] : [plural(n, kind.replace("_", " "))]
  })
  const tools = new Map<string, number>()
  for (const event of own) if (event.kind === "tool_call") tools.set(event.tool ?? "tool", (tools.get(event.tool ?? "tool") ?? 0) + 1)
  const errors = trace.events.filter((event) => event.kind === "error").length
  const others = trace.agents.filter((name) => name !== subject)
  const ending = trace.success === null ? "the trace does not state whether it succeeded" : trace.success ? "the run succeeded" : "the run failed"
  return [
    `From the trace: ${subject} took ${plural(own.length, "event")}${kinds.length > 0 ? ` (${kinds.join(", ")})` : ""}`,
    tools.size > 0 ? `it called ${Array.from(tools, ([tool, n]) => `${tool} ×${n}`).join(", ")}` : "it called no tools",
    `the run met ${plural(errors, "error")}`,
    ...(others.length > 0 ? [`other agents: ${others.join(", ")}`] : []),
    `${ending}.`
  ].join("; ")
}

export const deriveFromTrace: DeriveFromTrace = (trace, base) => {
  const subject = mainAgent(trace)
  const sources = new Map<string, string>()
  const taskSource = base.sources.get("task")
  if (taskSource !== undefined) sources.set("task_context", taskSource)
  const finalMessage = lastOf(trace.events, (event) => event.actor === subject && event.kind === "message" && event.content.trim().length > 0)
  const finalEvent = lastOf(trace.events, (event) => event.role !== "system" && event.content.trim().length > 0)
  const outcomeSource = base.sources.get("outcome")
  const artifact = trace.outcome.trim().length > 0
    ? { text: trace.outcome, source: outcomeSource }
    : finalMessage !== undefined
    ? { text: finalMessage.content, source: finalMessage.source }
    : finalEvent !== undefined
    ? { text: finalEvent.content, source: finalEvent.source }
    : { text: "(the run produced no output)", source: undefined }
  if (artifact.source !== undefined) sources.set("artifact", artifact.source)
  const task = base.input["task"]
  return {
    fields: {
      reviewer: REVIEWER,
      subject,
      task_context: typeof task === "string" && task.trim().length > 0 ? task : "(the trace states no task)",
      contribution_summary: contributionSummary(trace, subject),
      artifact: artifact.text
    },
    sources
  }
}
