/**
 * `unanswered_tool_call` (DECISIONS §23): a tool call that nothing answered (no result or error, by
 * call id, or as the view pairs calls without ids) while the run went on, or ended.
 *
 * Silent where a missing answer says nothing: a trace that records no answer to any call (formats
 * whose results are not events of their own: a single completion, a run paused for approval); a
 * call whose own event says how it went (`status` on the call); a hosted tool whose results come
 * back inside the model's own output (OpenAI's `web_search`, `file_search`, `code_interpreter`,
 * `image_generation`); a call through which the run gives its answer (`final_result`,
 * `final_answer`); a call a handoff of the same agent answered; and a call left open when the
 * framework stopped the run at its turn limit (turn_limit_reached names that stop). A call still
 * open when a trace that did end with another error stopped fires, citing the error too: it was
 * outstanding when the run failed. A call at the very end of a trace that does not say it ended
 * fires at low severity: the run stopped on it, or the recording was cut short (a session still
 * running), and the trace cannot tell which.
 */
import type { Check, Cited, RawFinding } from "./Check.js"
import { ANSWER_TOOL } from "./Claims.js"
import { describeEvent, errorTextOf, firstWordsOf, listEvents } from "./Errors.js"
import { callsHandedOff } from "./Handoffs.js"
import { turnLimitTextOf } from "./Stops.js"

/** Hosted tools the provider runs inside the model call, their results inline in its output: their calls have no result event. */
const HOSTED: ReadonlySet<string> = new Set(["web_search", "web_search_preview", "file_search", "code_interpreter", "image_generation"])

interface Open {
  readonly tool: string
  readonly index: number
  readonly callId: string | undefined
  readonly agent: string | undefined
  answered: boolean
}

/** First-in first-out, entries marked answered skipped on the way. */
class Queue {
  private readonly items: Array<Open> = []
  private head = 0
  push(entry: Open): void {
    this.items.push(entry)
  }
  take(): Open | undefined {
    while (this.head < this.items.length) {
      const entry = this.items[this.head++]
      if (entry !== undefined && !entry.answered) return entry
    }
    return undefined
  }
}

export const unansweredToolCall: Check = {
  id: "unanswered_tool_call",
  title: "A tool call was never answered",
  severity: "medium",
  rule:
    "A tool call got no result and no error (by call id, or its tool's open calls in order without ids) and the run went on past it or ended with it open; never on a trace that records no tool results at all, a call whose own event carries its status, a hosted tool whose results are inline, an answer given through a tool, or a call the framework's turn limit left open; low when the trace ends on it without saying the run ended.",
  reads: "structure",
  playbooks: ["johari/unknown.uninstrumented_failure", "lewin/environmental.tool_failure_unhandled", "aar/plan_flawed.no_contingency"],
  fingerprint: ["tool", "agent"],
  run: (view) => {
    // every call answered (most traces): nothing to read
    if (view.unansweredCalls === 0) return []
    const handedOff = callsHandedOff(view)
    let lastError = -1
    let recordsAnswers = false
    const called = new Set<string>()
    view.scan((event, index) => {
      if (view.failed(index)) lastError = index
      if (event.kind === "tool_call") called.add(event.tool ?? event.actor)
      // what the view pairs with calls: results, and errors of a tool or a call
      else if (event.kind === "tool_result" || (event.kind === "error" && (event.tool !== undefined || event.call_id !== undefined))) recordsAnswers = true
    })
    if (!recordsAnswers) return []

    // Answers the view could not pair (an id on the call but not on its result, a result naming no
    // tool that was called) answer the oldest open call of their tool, else the oldest open call.
    const open: Array<Open> = []
    const byTool = new Map<string, Queue>()
    const anyTool = new Queue()
    view.eachCall((call) => {
      if (call.call === undefined) {
        const entry = byTool.get(call.tool)?.take() ?? (called.has(call.tool) ? undefined : anyTool.take())
        if (entry !== undefined) entry.answered = true
        return
      }
      if (call.answers.length > 0 || handedOff.has(call.call) || HOSTED.has(call.tool) || ANSWER_TOOL.test(call.tool)) return
      const event = view.at(call.call)
      if (event === undefined || event.status !== undefined) return
      const entry: Open = { tool: call.tool, index: call.call, callId: call.callId, agent: event.role === "agent" ? event.actor : undefined, answered: false }
      open.push(entry)
      anyTool.push(entry)
      const queue = byTool.get(call.tool)
      if (queue === undefined) {
        const fresh = new Queue()
        fresh.push(entry)
        byTool.set(call.tool, fresh)
      } else queue.push(entry)
    })

    // the run's last error, when the framework's turn limit stopped it: the calls it left open are that stop's
    const lastErrorEvent = lastError < 0 ? undefined : view.at(lastError)
    const stoppedAtLimit = lastErrorEvent !== undefined && turnLimitTextOf(lastErrorEvent) !== undefined
    const byName = new Map<string, Array<Open>>()
    for (const entry of open) {
      if (entry.answered) continue
      const wentOn = (view.lastAgentEvent ?? -1) > entry.index
      if (!wentOn && stoppedAtLimit && lastError > entry.index) continue
      const same = byName.get(entry.tool)
      if (same === undefined) byName.set(entry.tool, [entry])
      else same.push(entry)
    }
    const findings: Array<RawFinding> = []
    for (const [tool, calls] of byName) {
      const [first] = calls
      if (first === undefined) continue
      const wentOn = (view.lastAgentEvent ?? -1) > first.index
      const ended = view.trace.success !== null
      const failedAfter = !wentOn && view.trace.success === false && lastError > first.index
      const cites: Array<Cited> = [...calls.slice(0, 11).map((entry) => ({ event: entry.index })), ...(failedAfter ? [{ event: lastError }] : [])]
      const where = first.callId === undefined || calls.length > 1 ? listEvents(calls.map((entry) => entry.index)) : `events[${first.index}] (${first.callId})`
      const error = failedAfter ? view.at(lastError) : undefined
      const after = wentOn
        ? `the run went on to events[${view.lastAgentEvent ?? first.index}]`
        : error !== undefined
          ? `the run ended with an error while it was open (events[${lastError}]: ${firstWordsOf(errorTextOf(error) || describeEvent(error), 60)})`
          : ended
            ? `the run ended with it open`
            : `the trace ends on it and does not say whether the run ended there or its recording was cut short`
      findings.push({
        cites,
        explanation: `${tool} was called at ${where} and ${calls.length > 1 ? `none of these ${calls.length} calls was` : "it was never"} answered (no result, no error); ${after}.`,
        // the trace cannot tell a run that stopped on the call from a recording cut short
        severity: wentOn || ended ? undefined : "low",
        tool,
        agent: first.agent
      })
    }
    return findings
  }
}
