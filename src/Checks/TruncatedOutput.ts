/**
 * `truncated_output` (DECISIONS §23): a model call stopped at its output token limit (finish reason
 * `length`, `max_tokens`, `MAX_TOKENS`, `max_output_tokens`, ...: Stops.ts). What it wrote is cut
 * short: an answer that ends mid-sentence, a tool call whose arguments end mid-JSON. High when the
 * cut output is the run's last model output (nothing answered after it); one finding per agent.
 */
import type { TraceEvent } from "../Traces/Model.js"
import type { Check, Cited, RawFinding } from "./Check.js"
import { describeEvent, listEvents } from "./Errors.js"
import { finishOf, TRUNCATED } from "./Stops.js"
import { hasText } from "./View.js"

export const truncatedOutput: Check = {
  id: "truncated_output",
  title: "A model's output was cut off at its token limit",
  severity: "medium",
  rule:
    "A model call's finish reason says it stopped at its output token limit (length, max_tokens, MAX_TOKENS, max_output_tokens, ...); high when that is the run's last model output, with no tool result after it.",
  reads: "structure",
  playbooks: ["yerkes_dodson/over_aroused.budget_starvation", "lewin/environmental.resource_exhaustion", "smart_goal/realistic.exceeds_capability"],
  fingerprint: ["agent", "error_class"],
  run: (view) => {
    const byAgent = new Map<string, Array<{ index: number; reason: string; event: TraceEvent }>>()
    let lastFinish = -1
    let lastCut = false
    // only events with a finish reason can have stopped at the limit
    view.scanAt(view.finished, (event, index) => {
      const reason = finishOf(event)
      if (reason === undefined) return
      lastFinish = index
      lastCut = TRUNCATED.has(reason)
      if (!lastCut) return
      const same = byAgent.get(event.actor)
      if (same === undefined) byAgent.set(event.actor, [{ index, reason, event }])
      else same.push({ index, reason, event })
    })
    if (byAgent.size === 0) return []
    // a tool result at or after the last model output, read only when that output is a cut one
    let resultAfter = false
    if (lastCut) for (let index = lastFinish; index < view.length && !resultAfter; index++) resultAfter = view.at(index)?.kind === "tool_result"
    const findings: Array<RawFinding> = []
    for (const [agent, cut] of byAgent) {
      const last = cut[cut.length - 1]
      const first = cut[0]
      if (first === undefined || last === undefined) continue
      // the run's last model output, and nothing came back after it: what the run ended on is cut short
      const final = last.index === lastFinish && !resultAfter
      const decisive = final ? last : first
      const event = decisive.event
      const what = hasText(event) ? ` (it ends "…${event.content.trim().slice(-60).replace(/\s+/g, " ")}")` : ` (${describeEvent(event)})`
      // the quote is where the text was cut: its end
      const tail = hasText(event) ? event.content.trimEnd().slice(-120) : undefined
      const cites: Array<Cited> = [{ event: decisive.index, quote: tail }, ...cut.filter((each) => each !== decisive).slice(0, 11).map((each) => ({ event: each.index }))]
      findings.push({
        cites,
        explanation: `${agent}'s output stopped at its token limit (finish reason ${event.finish_reason ?? decisive.reason}) at ${listEvents([decisive, ...cut.filter((each) => each !== decisive)].map((each) => each.index))}${what}${final ? "; it is the run's last output" : ""}.`,
        severity: final ? "high" : "medium",
        errorClass: decisive.reason,
        agent
      })
    }
    return findings
  }
}
