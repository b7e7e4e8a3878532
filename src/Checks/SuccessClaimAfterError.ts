/**
 * `success_claim_after_error` (DECISIONS §23): the final answer claims success while the last result
 * of the tool it concerns was an error (no later success of that tool), or while the run's own
 * status is an error. A claim is a sentence that states work as done (Claims.ts `isClaim`: "I've
 * sent", "has been issued", "Posted the update", "all set"); it concerns a failed call when it names
 * it (its tool's work, its error's code, a value of its arguments: Claims.ts `namesFailure`), and
 * the answer does not own up to that failure elsewhere. An answer that repeats a tool's result word
 * for word (AutoGen's tool call summary) is the tool's text, not the agent's claim. It cites the
 * claim and the error it contradicts.
 */
import type { Check, RawFinding } from "./Check.js"
import { admitsFailure, claimsOf, lowerOf, namesFailure, sentencesOf } from "./Claims.js"
import { errorClassOf, errorTextOf, firstWordsOf, textKey } from "./Errors.js"
import { failedCalls } from "./ToolFailures.js"
import type { TraceView } from "./View.js"

/** How far back from the answer a result it repeats is looked for. */
const ECHO_WINDOW = 8

/** The answer is a tool's result repeated (a framework's summary of the call), not words of the agent. */
const repeatsResult = (view: TraceView, at: number, text: string): boolean => {
  const key = textKey(text)
  for (let index = at - 1; index >= 0 && index >= at - ECHO_WINDOW; index--) {
    const event = view.at(index)
    if (event?.kind === "tool_result" && textKey(event.content) === key) return true
  }
  return false
}

export const successClaimAfterError: Check = {
  id: "success_claim_after_error",
  title: "The agent claimed success after an error it did not recover from",
  severity: "high",
  rule:
    "A sentence of the final answer states work as done and names a tool call that failed and was not retried successfully (its tool's work, its error's code or a value of its arguments), with no sentence of the answer owning up to that failure; or the answer claims success while the run's own status is an error (read in the answer's words, English).",
  reads: "content",
  playbooks: ["johari/blind.contradicted_success_claim", "aar/execution_drift.false_completion", "goleman_ei/self_awareness_gap.overclaimed_success"],
  fingerprint: ["tool", "error_class", "agent"],
  run: (view, settings) => {
    // the answer is read only when something failed: most runs' calls all worked
    const failures = failedCalls(view, settings)
    if (failures.length === 0 && view.trace.success !== false) return []
    const at = view.finalAnswer
    const answer = at === undefined ? undefined : view.at(at)
    if (at === undefined || answer === undefined) return []
    // its words only when something failed before it
    const open = failures.filter((failure) => !failure.recovered && failure.error < at)
    if (open.length === 0 && view.trace.success !== false) return []
    const claims = claimsOf(answer.content)
    const [firstClaim] = claims
    if (firstClaim === undefined || repeatsResult(view, at, answer.content)) return []
    const admissions = sentencesOf(answer.content).filter((sentence) => admitsFailure(sentence)).map(lowerOf)
    const lowerClaims = claims.map(lowerOf)
    const findings: Array<RawFinding> = []
    for (const failure of open) {
      // the claim must be about the failed call's work ("refunded" for issue_refund, the order it named);
      // by the tool's name alone only when no other call of it succeeded for the claim to rest on
      const claim = claims.find((_, position) => namesFailure(lowerClaims[position] ?? "", failure.terms(), !failure.toolSucceeded))
      if (claim === undefined || admissions.some((sentence) => namesFailure(sentence, failure.terms()))) continue
      const error = view.at(failure.error)
      if (error === undefined) continue
      findings.push({
        cites: [{ event: at, quote: claim }, { event: failure.error }],
        explanation: `The final answer at events[${at}] says "${firstWordsOf(claim, 100)}", but ${failure.tool} failed at events[${failure.error}] (${firstWordsOf(errorTextOf(error)) || failure.errorClass()}) and was not called again successfully.`,
        tool: failure.tool,
        errorClass: failure.errorClass(),
        agent: answer.actor
      })
    }
    if (findings.length > 0 || view.trace.success !== false || admissions.length > 0) return findings
    // the run's own status is an error: cite the last error event, else the last agent event
    let lastError: number | undefined
    view.scan((_event, index) => {
      if (index < at && view.failed(index)) lastError = index
    })
    const errorEvent = lastError === undefined ? undefined : view.at(lastError)
    return [{
      cites: [{ event: at, quote: firstClaim }, ...(lastError === undefined ? [] : [{ event: lastError }])],
      explanation: `The final answer at events[${at}] says "${firstWordsOf(firstClaim, 100)}", but the run itself ended with an error status${errorEvent === undefined ? "" : ` (${firstWordsOf(errorTextOf(errorEvent))})`}.`,
      errorClass: errorEvent === undefined ? "run_error" : errorClassOf(errorEvent),
      agent: answer.actor
    }]
  }
}
