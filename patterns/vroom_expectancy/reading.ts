/**
 * Vroom from a raw trace: `effort_signals` counted by code. Each series of consecutive calls to one
 * tool by one agent is one effort signal (amount: the calls, with its failures and retries named);
 * its performance is read from what the tool returned: missed when the series ended on an error,
 * partial when it failed and then succeeded, achieved when every call returned without error, and
 * left out when no result came back. Whether a reward followed is never derived (the trace does
 * not say). A run with no tool calls gets one signal for the run as a whole, its performance from
 * the run's status when known.
 */
import type { NormalizedTrace } from "../../src/Traces/Model.js"
import type { DeriveFromTrace } from "../../src/Traces/Reading.js"

type Performance = "achieved" | "partial" | "missed"

interface Series {
  readonly agent: string
  readonly tool: string
  readonly first: number
  calls: number
  failures: number
  results: number
  retries: number
  lastFailed: boolean
}

/**
 * Series of consecutive calls to one tool by one agent (an agent message ends a series), with the
 * results and errors that came back and the retries: calls made after the tool's last call failed.
 */
export const toolSeries = (trace: NormalizedTrace): Array<Series> => {
  const series: Array<Series> = []
  const failed = new Map<string, boolean>()
  let current: Series | undefined
  trace.events.forEach((event, i) => {
    if (event.kind === "tool_call") {
      const tool = event.tool ?? event.actor
      if (current === undefined || current.tool !== tool || current.agent !== event.actor) {
        current = { agent: event.actor, tool, first: i, calls: 0, failures: 0, results: 0, retries: 0, lastFailed: false }
        series.push(current)
      }
      current.calls += 1
      if (failed.get(tool) === true) current.retries += 1
      failed.set(tool, false)
    } else if (current !== undefined && (event.kind === "error" || event.kind === "tool_result") &&
      (event.tool === undefined || event.tool === current.tool)) {
      current.results += 1
      current.lastFailed = event.kind === "error"
      if (event.kind === "error") {
        current.failures += 1
        failed.set(current.tool, true)
      }
    } else if (event.role === "agent" && event.kind === "message") {
      current = undefined
    }
  })
  return series
}

const performanceOf = (s: Series): Performance | undefined =>
  s.results === 0 ? undefined : s.lastFailed ? "missed" : s.failures > 0 ? "partial" : "achieved"

export const deriveFromTrace: DeriveFromTrace = (trace) => {
  const sources = new Map<string, string>()
  const series = toolSeries(trace)
  const signals = series.map((s, i) => {
    const event = trace.events[s.first]
    if (event !== undefined) sources.set(`effort_signals[${i}]`, event.source)
    const performance = performanceOf(s)
    const notes = [
      ...(s.failures > 0 ? [`${s.failures} failed`] : []),
      ...(s.retries > 0 ? [`${s.retries} ${s.retries === 1 ? "retry" : "retries"} after a failure`] : [])
    ]
    return {
      signal: `${s.calls} call${s.calls === 1 ? "" : "s"} to ${s.tool} by ${s.agent}${notes.length > 0 ? ` (${notes.join("; ")})` : ""}`,
      amount: s.calls,
      unit: "calls",
      ...(performance === undefined ? {} : { performance })
    }
  })
  if (signals.length > 0) return { fields: { effort_signals: signals }, sources }
  const agentEvents = trace.events.filter((event) => event.role === "agent").length
  const performance: Performance | undefined = trace.success === null ? undefined : trace.success ? "achieved" : "missed"
  return {
    fields: {
      effort_signals: [
        {
          signal: `the run's ${trace.events.length} events, ${agentEvents} of them by the agent${agentEvents === 1 ? "" : "s"}, with no tool call`,
          amount: agentEvents,
          unit: "agent events",
          ...(performance === undefined ? {} : { performance })
        }
      ]
    }
  }
}
