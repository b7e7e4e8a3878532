/**
 * Traces for the checks' tests, in the normalized model (the importers' own tests show each format
 * reaches it): a few builders, and a counted run of one check.
 */
import type { Check } from "../../src/Checks/Check.js"
import { runChecks, DEFAULT_CHECKS, type ScopeChecks } from "../../src/Checks/Run.js"
import { viewOf } from "../../src/Checks/View.js"
import type { NormalizedTrace, TraceEvent } from "../../src/Traces/Model.js"

type Event = Omit<TraceEvent, "source"> & { readonly source?: string }

export const traceOf = (events: ReadonlyArray<Event>, extra: Partial<NormalizedTrace> = {}): NormalizedTrace => ({
  id: null,
  task: "t",
  outcome: "",
  success: null,
  agents: ["agent"],
  skipped: 0,
  ...extra,
  events: events.map((event, index) => ({ ...event, source: event.source ?? `span:${index}` }))
})

export const user = (content: string): Event => ({ actor: "user", role: "user", kind: "message", content })
export const say = (content: string, actor = "agent"): Event => ({ actor, role: "agent", kind: "message", content })
export const call = (tool: string, content: string, callId?: string, actor = "agent"): Event => ({
  actor,
  role: "agent",
  kind: "tool_call",
  tool,
  content,
  ...(callId === undefined ? {} : { call_id: callId })
})
export const result = (tool: string, content: string, callId?: string): Event => ({
  actor: tool,
  role: "tool",
  kind: "tool_result",
  tool,
  content,
  status: "ok",
  ...(callId === undefined ? {} : { call_id: callId })
})
export const failure = (tool: string, content: string, callId?: string, code?: string): Event => ({
  actor: tool,
  role: "tool",
  kind: "tool_result",
  tool,
  content,
  status: "error",
  ...(callId === undefined ? {} : { call_id: callId }),
  ...(code === undefined ? {} : { status_code: code })
})

/** A handoff from one agent to another. */
export const handoff = (from: string, to: string, content = to): Event => ({ actor: from, role: "agent", kind: "handoff", to, content })
/** An error of the agent's own (a failed model call, a framework's stop), with the source's code and message when given. */
export const agentError = (content: string, extra: Partial<Event> = {}, actor = "agent"): Event => ({ actor, role: "agent", kind: "error", content, status: "error", ...extra })
/** A model call of the agent without content (a content-free trace), with the facts its span carries. */
export const modelCall = (extra: Partial<Event> = {}, actor = "agent"): Event => ({ actor, role: "agent", kind: "message", content: "", ...extra })

/** The events a finding cites, in its order. */
export const citedOf = (finding: { readonly evidence: ReadonlyArray<{ readonly event: number }> } | undefined): ReadonlyArray<number> =>
  finding?.evidence.map((each) => each.event) ?? []

/** One check's findings on a trace, and the events it read doing it. */
export const runOne = (check: Check, trace: NormalizedTrace) => {
  const view = viewOf(trace)
  const raw = check.run(view, DEFAULT_CHECKS.settingsOf(check))
  return { raw, visits: view.visits(), findings: runChecks(trace, DEFAULT_CHECKS, [check]) }
}

/** Every check on, with these thresholds (`{ min_repeats: 2 }`) over the defaults: what SVC_CHECKS_FILE sets. */
export const withThresholds = (values: Readonly<Record<string, number>>): ScopeChecks => ({
  enabled: () => true,
  settingsOf: (check) => ({ threshold: (name) => values[name] ?? check.thresholds?.[name]?.default ?? 0, expected: () => false })
})

/** A trace of `n` healthy tool round trips, to count a check's work against. */
export const longTrace = (n: number, tool = "search"): NormalizedTrace =>
  traceOf([
    user("find it"),
    ...Array.from({ length: n }, (_, index) => [call(tool, `{"q":${index}}`, `c${index}`), result(tool, `found ${index}`, `c${index}`)]).flat(),
    say("Here is what I found.")
  ])
