/**
 * Yerkes-Dodson from a raw trace: `pressure` estimated by code. Limits are taken only where the
 * set-up states them (system and user messages: "within 10 minutes", "at most 20 tool calls",
 * "retry up to 3 times"), with what the run used of them counted from the events (elapsed time
 * from timestamps, tool calls, retries). `observed` always carries the counts themselves (retries,
 * errors, tool calls, elapsed time), which add no load: the trace states no limit for them.
 * Complexity and context fill are not derived (they stay absent, or come from hints).
 */
import type { NormalizedTrace, TraceEvent } from "../../src/Traces/Model.js"
import type { DeriveFromTrace } from "../../src/Traces/Reading.js"

const unitSeconds = (unit: string): number => {
  const u = unit.toLowerCase()
  return u.startsWith("h") ? 3600 : u.startsWith("m") ? 60 : 1
}

const TIME_UNIT = "(seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h)"
const DEADLINE = new RegExp(
  `\\b(?:within|in under|in less than|under|deadline(?: is| of)?|time limit(?: is| of)?|time budget(?: is| of)?|timeout(?: is| of)?)\\s+(\\d+(?:\\.\\d+)?)\\s*${TIME_UNIT}\\b`,
  "i"
)
const BUDGET =
  /\b(?:budget of|budget is|at most|no more than|maximum of|max(?:imum)?|up to|limit of|limited to)\s+(\d+)\s+(tool calls?|calls|tool uses|steps|actions)\b/i
const RETRY_CAP =
  /\b(?:retry|retries|re-try)\b[^.\n]{0,30}?\b(?:up to|at most|max(?:imum)?(?: of)?|no more than)\s+(\d+)\s*(times|retries|attempts)?|\b(?:at most|up to|max(?:imum)?(?: of)?|no more than)\s+(\d+)\s+(retries|re-tries|attempts)\b/i
const NO_RETRY = /\b(?:do not|don't|never) retry\b|\bno retries\b/i

/** The set-up: system and user messages, where limits are stated. */
const setUp = (trace: NormalizedTrace): ReadonlyArray<TraceEvent> =>
  trace.events.filter((event) => (event.role === "system" || event.role === "user") && event.kind === "message")

const firstMatch = (events: ReadonlyArray<TraceEvent>, pattern: RegExp): { match: RegExpMatchArray; event: TraceEvent } | undefined => {
  for (const event of events) {
    const match = event.content.match(pattern)
    if (match !== null) return { match, event }
  }
  return undefined
}

/** Seconds from the first to the last parseable timestamp; undefined with fewer than two. */
export const elapsedSeconds = (trace: NormalizedTrace): number | undefined => {
  const times = trace.events.flatMap((event) => {
    if (event.timestamp === undefined) return []
    const t = Date.parse(event.timestamp)
    return Number.isNaN(t) ? [] : [t]
  })
  if (times.length < 2) return undefined
  return Math.round((Math.max(...times) - Math.min(...times)) / 100) / 10
}

/**
 * Retries: tool calls to a tool whose previous call failed (an error event naming the tool, or an
 * error with no tool name that follows its call).
 */
export const countRetries = (trace: NormalizedTrace): number => {
  const failed = new Map<string, boolean>()
  let lastTool: string | undefined
  let retries = 0
  for (const event of trace.events) {
    if (event.kind === "tool_call") {
      const tool = event.tool ?? event.actor
      if (failed.get(tool) === true) retries += 1
      failed.set(tool, false)
      lastTool = tool
    } else if (event.kind === "error") {
      const tool = event.tool ?? lastTool
      if (tool !== undefined && failed.has(tool)) failed.set(tool, true)
    }
  }
  return retries
}

export const deriveFromTrace: DeriveFromTrace = (trace) => {
  const sources = new Map<string, string>()
  const events = setUp(trace)
  const toolCalls = trace.events.filter((event) => event.kind === "tool_call").length
  const errors = trace.events.filter((event) => event.kind === "error").length
  const retries = countRetries(trace)
  const elapsed = elapsedSeconds(trace)

  const deadlineHit = firstMatch(events, DEADLINE)
  const limitSeconds = deadlineHit === undefined ? undefined : Number(deadlineHit.match[1]) * unitSeconds(deadlineHit.match[2] ?? "s")
  const deadline = deadlineHit !== undefined && limitSeconds !== undefined && limitSeconds > 0 && elapsed !== undefined
    ? { limit_seconds: limitSeconds, elapsed_seconds: elapsed }
    : undefined
  if (deadline !== undefined && deadlineHit !== undefined) sources.set("pressure.deadline", deadlineHit.event.source)

  const budgetHit = firstMatch(events, BUDGET)
  const budgetLimit = budgetHit === undefined ? 0 : Number(budgetHit.match[1])
  const budgetUnit = budgetHit !== undefined && /call|use/i.test(budgetHit.match[2] ?? "") ? "tool_calls" : "steps"
  const spent = budgetUnit === "tool_calls" ? toolCalls : trace.events.filter((event) => event.role === "agent").length
  const budget = budgetHit !== undefined && budgetLimit > 0 ? { limit: budgetLimit, spent, unit: budgetUnit } : undefined
  if (budget !== undefined && budgetHit !== undefined) sources.set("pressure.budget", budgetHit.event.source)

  const capHit = firstMatch(events, RETRY_CAP)
  const noRetry = firstMatch(events, NO_RETRY)
  const capNumber = capHit === undefined ? undefined : Number(capHit.match[1] ?? capHit.match[3])
  const capUnit = capHit === undefined ? "" : (capHit.match[2] ?? capHit.match[4] ?? "")
  // "3 attempts" allows 2 retries; "retry up to 3 times" allows 3
  const cap = capNumber === undefined || Number.isNaN(capNumber)
    ? noRetry === undefined ? undefined : 0
    : /attempt/i.test(capUnit) ? Math.max(0, capNumber - 1) : capNumber
  const retryCap = cap === undefined ? undefined : { cap, used: retries }
  const capSource = capHit?.event.source ?? noRetry?.event.source
  if (retryCap !== undefined && capSource !== undefined) sources.set("pressure.retry_cap", capSource)

  return {
    fields: {
      pressure: {
        ...(deadline === undefined ? {} : { deadline }),
        ...(budget === undefined ? {} : { budget }),
        ...(retryCap === undefined ? {} : { retry_cap: retryCap }),
        observed: { retries, errors, tool_calls: toolCalls, ...(elapsed === undefined ? {} : { elapsed_seconds: elapsed }) }
      }
    },
    sources
  }
}
