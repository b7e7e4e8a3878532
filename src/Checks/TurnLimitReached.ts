/**
 * `turn_limit_reached` (DECISIONS §23): the framework stopped the run at its step or turn limit.
 * Read from what the frameworks raise or report (status messages and exception types are
 * structure; the frameworks' wordings are Stops.ts's). Read on the run's errors, on a tool step's
 * error only when it is the framework's own stop sentence (smolagents reports "Reached max steps."
 * on the step's tool), on the run's status when it failed, and on the agent's last message only
 * when it is the framework's own sentence (an answer that talks about a recursion limit is not one).
 */
import type { TraceEvent } from "../Traces/Model.js"
import type { Check, Cited, RawFinding } from "./Check.js"
import { errorTextOf, firstWordsOf } from "./Errors.js"
import { failureTextsOf, reportsTurnLimit, STOPPED_ANSWER, turnLimitTextOf } from "./Stops.js"

const EXCEPTION = /\b([A-Z][A-Za-z]*(?:Error|Exception|Exceeded))\b/

/** The limit's class: the exception type as the source names it, else `turn_limit`. */
const classOf = (event: TraceEvent | undefined, text: string): string => event?.status_code?.trim() || EXCEPTION.exec(text)?.[1] || "turn_limit"

export const turnLimitReached: Check = {
  id: "turn_limit_reached",
  title: "The run hit the framework's turn or step limit",
  severity: "high",
  rule:
    "An error or status of the run (or, when it failed, its outcome; or the agent's last message when it is the framework's own stop sentence) reports the framework's step, turn, iteration or recursion limit.",
  reads: "structure",
  playbooks: ["smart_goal/time_related.no_termination", "grpi/process_gap.no_stop_rule", "motivation_traps/none.hard_stop", "yerkes_dodson/over_aroused.budget_starvation"],
  fingerprint: ["error_class", "agent"],
  run: (view) => {
    const hits: Array<{ index: number; text: string; event: TraceEvent }> = []
    view.scanAt(view.failures, (event, index) => {
      if (event.role === "user") return
      // a tool's error names the limit only in the framework's own words: a program may print "max iterations reached"
      const text = event.role === "tool" || event.tool !== undefined ? failureTextsOf(event).find((each) => STOPPED_ANSWER.test(each.trim())) : turnLimitTextOf(event)
      if (text !== undefined) hits.push({ index, text, event })
    })
    const last = view.lastAgentEvent
    const lastEvent = last === undefined ? undefined : view.at(last)
    if (hits.length === 0 && last !== undefined && lastEvent?.kind === "message" && STOPPED_ANSWER.test(lastEvent.content.trim())) {
      hits.push({ index: last, text: lastEvent.content, event: lastEvent })
    }
    const findings: Array<RawFinding> = []
    const [first, ...rest] = hits
    if (first !== undefined) {
      const agent = first.event.role === "agent" ? first.event.actor : undefined
      const cites: Array<Cited> = [first, ...rest.slice(0, 5)].map((hit) => ({ event: hit.index }))
      findings.push({
        cites,
        explanation: `The run stopped at the framework's turn limit: events[${first.index}] says "${firstWordsOf(errorTextOf(first.event) || first.text, 100)}"${rest.length > 0 ? ` (and ${rest.length} more event${rest.length > 1 ? "s" : ""} say so)` : ""}.`,
        errorClass: classOf(first.event, first.text),
        agent
      })
      return findings
    }
    // the run's own status: a failed run whose outcome names the limit, cited at its last event
    const outcome = view.trace.outcome.slice(0, 2_000)
    if (view.trace.success !== false || !reportsTurnLimit(outcome)) return []
    const at = last ?? view.length - 1
    const event = view.at(at)
    if (event === undefined) return []
    return [{
      cites: [{ event: at }],
      explanation: `The run failed at the framework's turn limit: its status says "${firstWordsOf(outcome, 100)}"; the last agent event is events[${at}].`,
      errorClass: classOf(undefined, outcome),
      agent: event.role === "agent" ? event.actor : undefined
    }]
  }
}
