/**
 * `tool_error_unrecovered` (DECISIONS §23): a tool call failed and the run went on or ended as if it
 * had not: no later call of that tool succeeded, the agent did not take another way (say the call
 * failed or that it goes another way, then succeed with another tool), and no message of the agent
 * after it owns up to this failure (ToolFailures.ts reads which failure the agent's words concern).
 * One finding per tool and error class (the first failure decisive). High; medium without an
 * answer to read; low when a failed read was replaced by another tool's results the answer says it
 * rests on. Errors SVC_CHECKS_FILE lists as expected for the tool never fire it.
 */
import type { Check, Cited, RawFinding } from "./Check.js"
import { errorTextOf, firstWordsOf, listEvents } from "./Errors.js"
import { onlyReads, restsOn } from "./Claims.js"
import { type FailedCall, failedCalls, succeededTools } from "./ToolFailures.js"
import { hasText } from "./View.js"

export const toolErrorUnrecovered: Check = {
  id: "tool_error_unrecovered",
  title: "A tool failed and the run carried on as if it had not",
  severity: "high",
  rule:
    "A tool call's last answer is an error (an error status, or a status-less result whose text reports one), no later call of the same tool succeeded, the agent did not go another way (it said the call failed or that it goes another way, then another tool succeeded), and no message of the agent after it owns up to this failure (one naming it, or its first words after it); medium when the run has no final answer to read, low when a failed read was replaced by another source the answer names.",
  reads: "structure",
  playbooks: ["lewin/environmental.tool_failure_unhandled", "psych_safety/error_hiding.masked_failures"],
  fingerprint: ["tool", "error_class", "agent"],
  run: (view, settings) => {
    // the failures no one recovered from or owned up to, by tool and error class, in order
    const groups = new Map<string, { errorClass: string; failures: Array<FailedCall> }>()
    for (const failure of failedCalls(view, settings)) {
      if (failure.recovered) continue
      const reaction = failure.reaction()
      if (reaction.workedAround || reaction.acknowledged !== undefined) continue
      const errorClass = failure.errorClass()
      const key = `${failure.tool}\u0000${errorClass}`
      const group = groups.get(key)
      if (group === undefined) groups.set(key, { errorClass, failures: [failure] })
      else group.failures.push(failure)
    }
    if (groups.size === 0) return []
    const answer = view.finalAnswer === undefined ? undefined : view.at(view.finalAnswer)
    const findings: Array<RawFinding> = []
    // the tools that worked whose results the answer says it rests on, read once
    let restingOn: ReadonlyArray<string> | undefined
    for (const { errorClass, failures } of groups.values()) {
      const [first, ...rest] = failures
      const error = first === undefined ? undefined : view.at(first.error)
      if (first === undefined || error === undefined) continue
      const readable = answer !== undefined && hasText(answer) && view.finalAnswer !== undefined && view.finalAnswer > first.error
      const text = firstWordsOf(errorTextOf(error)) || errorClass
      const cites: Array<Cited> = [
        { event: first.error },
        ...(first.call === undefined || first.call === first.error ? [] : [{ event: first.call }]),
        ...(readable && view.finalAnswer !== undefined ? [{ event: view.finalAnswer }] : []),
        ...rest.slice(0, 9).map((failure) => ({ event: failure.error }))
      ]
      const last = failures[failures.length - 1] ?? first
      const where = rest.length === 0 ? `at events[${first.error}]` : `at ${listEvents(failures.map((failure) => failure.error))} (${failures.length} times)`
      // a failed read whose answer says it rests on another tool that worked: a confirmation lost, not a failure hidden
      if (readable && answer !== undefined && onlyReads(first.tool)) restingOn ??= restsOn(answer.content, succeededTools(view))
      const restsElsewhere = readable && onlyReads(first.tool) ? restingOn?.find((tool) => tool !== first.tool) : undefined
      const ending = !readable
        ? "and the run has no answer that mentions the failure."
        : restsElsewhere === undefined
          ? `and the final answer at events[${view.finalAnswer}] does not mention the failure.`
          : `and the final answer at events[${view.finalAnswer}] does not mention the failure; it says it rests on ${restsElsewhere}'s results instead.`
      findings.push({
        cites,
        explanation: `${first.tool} failed ${where} (${text}); ${last.attempts > failures.length ? `it failed ${last.attempts} times in all and ` : "it "}was not called again successfully, ${ending}`,
        severity: !readable ? "medium" : restsElsewhere === undefined ? "high" : "low",
        tool: first.tool,
        errorClass,
        agent: first.agent
      })
    }
    return findings
  }
}
