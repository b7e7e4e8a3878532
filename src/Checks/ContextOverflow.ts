/**
 * `context_overflow` (DECISIONS §23): the model refused the run's input as too long. Read from the
 * agent's and the run's errors (codes and messages are structure; the providers' wordings are
 * Stops.ts's), and from Anthropic's stop reason `model_context_window_exceeded`. A per-minute token
 * rate limit is not an overflow (provider_error reads it).
 */
import type { TraceEvent } from "../Traces/Model.js"
import type { Check, Cited, RawFinding } from "./Check.js"
import { errorTextOf, firstWordsOf } from "./Errors.js"
import { CONTEXT_FULL, failureReportsOverflow, failureTextsOf, finishOf, isRunFailure } from "./Stops.js"
import { union } from "./View.js"

const CODE = /\b(context_length_exceeded|ContextWindowExceededError|model_context_window_exceeded|string_above_max_length)\b/

export const contextOverflow: Check = {
  id: "context_overflow",
  title: "The model refused the input as longer than its context",
  severity: "high",
  rule:
    "A model call of the agent failed because its input was longer than the model's context (context_length_exceeded, maximum context length, prompt is too long, input length exceeds the context limit, input is too long, too many tokens), or stopped with model_context_window_exceeded.",
  reads: "structure",
  playbooks: ["yerkes_dodson/over_aroused.context_saturation", "lewin/environmental.resource_exhaustion", "psych_safety/error_hiding.lossy_summary"],
  fingerprint: ["error_class", "agent"],
  run: (view) => {
    const hits: Array<{ index: number; event: TraceEvent }> = []
    // an overflow is a failure or a finish reason: only those events are read
    view.scanAt(union(view.failures, view.finished), (event, index) => {
      const full = event.role === "agent" && finishOf(event) === CONTEXT_FULL
      if (full || (isRunFailure(event) && failureReportsOverflow(event))) hits.push({ index, event })
    })
    const [first, ...rest] = hits
    if (first === undefined) return []
    const text = errorTextOf(first.event)
    const cites: Array<Cited> = [first, ...rest.slice(0, 5)].map((hit) => ({ event: hit.index }))
    const findings: Array<RawFinding> = [{
      cites,
      explanation: `The model refused ${first.event.actor}'s input as too long at events[${first.index}]: ${text.length > 0 ? `"${firstWordsOf(text, 100)}"` : `finish reason ${first.event.finish_reason ?? CONTEXT_FULL}`}${rest.length > 0 ? ` (${hits.length} times)` : ""}.`,
      errorClass: first.event.status_code?.trim() || CODE.exec(failureTextsOf(first.event).join(" "))?.[1] || (finishOf(first.event) === CONTEXT_FULL ? CONTEXT_FULL : "context_overflow"),
      agent: first.event.role === "agent" ? first.event.actor : undefined
    }]
    return findings
  }
}
