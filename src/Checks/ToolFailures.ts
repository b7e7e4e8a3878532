/**
 * The failed tool calls of a trace, shared by the checks that read them (one pass over the calls,
 * one over the events): each call whose last answer is an error (or, without an answer, whose own
 * event carries an error status), whether a later call of the same tool succeeded, whether the
 * agent worked around it or owned up to it, and how many of that tool's calls failed.
 *
 * What the agent says is read as being about a failure when it names it (its tool's work, its
 * error's code, a value of its call or error: Claims.ts `namesFailure`), or, naming no failure,
 * when it is the agent's first words after it (the failures since its last words). So a message
 * about one failure never acknowledges another, and a later apology for something else ("I'm
 * sorry, I can't identify people") acknowledges none.
 */
import type { TraceEvent } from "../Traces/Model.js"
import type { CheckSettings } from "./Check.js"
import { admitsFailure, ANSWER_TOOL, changesCourse, type FailureTerms, failureTermsOf, lowerOf, namesFailure } from "./Claims.js"
import { errorClassOf, errorTextOf } from "./Errors.js"
import { STOPPED_ANSWER } from "./Stops.js"
import { hasText, readOnce, type TraceView } from "./View.js"

export interface FailedCall {
  readonly tool: string
  /** The call's event, when the trace has it. */
  readonly call: number | undefined
  /** The event that says it failed (the error result, or the call's own event). */
  readonly error: number
  /** The error's class (Errors.ts `errorClassOf`), read when first asked. */
  readonly errorClass: () => string
  /** What names it in the agent's words (Claims.ts `namesFailure`), read from its call and error when first asked. */
  readonly terms: () => FailureTerms
  /** A later call of the same tool succeeded. */
  readonly recovered: boolean
  /** Some call of the same tool succeeded (before it, when not recovered). */
  readonly toolSucceeded: boolean
  /** How the agent reacted to it, read from its words when first asked (only a failure not recovered from is asked about). */
  readonly reaction: () => Reaction
  /** The tool's calls that failed, up to and including this one. */
  readonly attempts: number
  /** Who made the call (the agent), as the trace names it. */
  readonly agent: string | undefined
}

/** How the agent reacted to a failure. */
export interface Reaction {
  /** After the error the agent said it failed or that it would go another way, and then a call of another tool succeeded. */
  readonly workedAround: boolean
  /** The first message of the agent (or answer through a tool) after the error that owns up to this failure, if any. */
  readonly acknowledged: number | undefined
}

/** How many of the latest failures a text is compared with by name: the agent speaks of recent failures, and the reading stays linear. */
const NAMED_WINDOW = 8

interface Failure {
  readonly tool: string
  readonly call: number | undefined
  readonly error: number
  readonly errorClass: () => string
  readonly at: number
  readonly attempts: number
  readonly agent: string | undefined
  readonly terms: () => FailureTerms
  /** Where the agent first reacted to it (owned up, or said it would go another way). */
  reacted: number | undefined
  acknowledged: number | undefined
}

/** A trace's failed calls as read once (expected errors still in, each with its error's text), and the tools that succeeded. */
interface Read {
  readonly failures: ReadonlyArray<{ readonly failure: FailedCall; readonly text: string }>
  readonly succeeded: ReadonlySet<string>
}

/** What tool_error_unrecovered and success_claim_after_error both read of one view, read once. */
const reads = new WeakMap<TraceView, Read>()

/** The failed calls, in order, expected errors (SVC_CHECKS_FILE) left out. */
export const failedCalls = (view: TraceView, settings: CheckSettings): ReadonlyArray<FailedCall> => {
  // no call or answer failed (most traces): nothing to read
  if (view.toolFailures === 0) return []
  const attempts = new Map<string, number>()
  const kept: Array<FailedCall> = []
  for (const { failure, text } of readOf(view).failures) {
    if (settings.expected(failure.tool, text)) continue
    // an expected error is as if the call had not failed: it is not an attempt either
    const count = (attempts.get(failure.tool) ?? 0) + 1
    attempts.set(failure.tool, count)
    kept.push(count === failure.attempts ? failure : { ...failure, attempts: count })
  }
  return kept
}

/** The tools with a call that succeeded (its last answer not an error, or its own status ok). */
export const succeededTools = (view: TraceView): ReadonlySet<string> => readOf(view).succeeded

const readOf = (view: TraceView): Read => {
  const known = reads.get(view)
  if (known !== undefined) return known
  const read = readFailures(view)
  reads.set(view, read)
  return read
}

const readFailures = (view: TraceView): Read => {
  const failed: Array<Failure & { readonly text: string }> = []
  const lastSuccess = new Map<string, number>()
  const failures = new Map<string, number>()
  view.eachCall((call) => {
    const last = call.answers[call.answers.length - 1]
    const callEvent = call.call === undefined ? undefined : view.at(call.call)
    const lastEvent = last === undefined ? undefined : view.at(last)
    const errorAt = lastEvent !== undefined && last !== undefined && view.failed(last) ? last : callEvent !== undefined && call.call !== undefined && callEvent.status === "error" ? call.call : undefined
    const at = last ?? call.call ?? 0
    if (errorAt === undefined) {
      if (lastEvent !== undefined || callEvent?.status === "ok") lastSuccess.set(call.tool, at)
      return
    }
    const errorEvent = errorAt === last ? lastEvent : callEvent
    const text = errorEvent === undefined ? "" : errorTextOf(errorEvent)
    // the framework stopping the run on a tool's step ("Reached max steps.") is turn_limit_reached's, not the tool's failure
    if (errorEvent === undefined || STOPPED_ANSWER.test(text)) return
    const attempts = (failures.get(call.tool) ?? 0) + 1
    failures.set(call.tool, attempts)
    const errorClass = readOnce(() => errorClassOf(errorEvent))
    failed.push({
      tool: call.tool,
      call: call.call,
      error: errorAt,
      errorClass,
      at,
      attempts,
      agent: callEvent?.role === "agent" ? callEvent.actor : undefined,
      terms: readOnce(() => failureTermsOf(call.tool, callEvent?.content ?? "", text, errorClass)),
      text,
      reacted: undefined,
      acknowledged: undefined
    })
  })
  const succeeded = new Set(lastSuccess.keys())
  if (failed.length === 0) return { failures: [], succeeded }
  // the agent's words are read once, when a reaction is first asked for: a trace whose failures were all recovered from is never asked
  const reacted = readOnce(() => readReactions(view, failed))
  // the latest successes of two different tools: the latest success of a tool other than X is one of them
  let latest: { tool: string; at: number } | undefined
  let runnerUp: { tool: string; at: number } | undefined
  for (const [tool, at] of lastSuccess) {
    if (latest === undefined || at > latest.at) {
      runnerUp = latest
      latest = { tool, at }
    } else if (runnerUp === undefined || at > runnerUp.at) runnerUp = { tool, at }
  }
  return {
    succeeded,
    failures: failed.map((each) => {
      const other = latest !== undefined && latest.tool !== each.tool ? latest.at : (runnerUp?.at ?? -1)
      return {
        text: each.text,
        failure: {
          tool: each.tool,
          call: each.call,
          error: each.error,
          errorClass: each.errorClass,
          terms: each.terms,
          attempts: each.attempts,
          agent: each.agent,
          recovered: (lastSuccess.get(each.tool) ?? -1) > each.at,
          toolSucceeded: lastSuccess.has(each.tool),
          reaction: reactionOf(each, other, reacted)
        }
      }
    })
  }
}

/** A failure's reaction, once the agent's words are read (`read`); `other`: where a call of another tool last succeeded. */
const reactionOf = (failure: Failure, other: number, read: () => void) => (): Reaction => {
  read()
  return { workedAround: failure.reacted !== undefined && other > failure.reacted, acknowledged: failure.acknowledged }
}

/** The agent's words: its messages and thoughts with text, and answers given through a tool (smolagents' final_answer). */
const isWords = (event: TraceEvent): boolean =>
  event.role === "agent" && hasText(event) && (event.kind === "message" || event.kind === "thought" || (event.kind === "tool_call" && ANSWER_TOOL.test(event.tool ?? "")))

/**
 * One pass over the events, the failures by where their error is: each of the agent's words that
 * owns up to a failure or says it goes another way is given to the failures it names, else to the
 * failures since the agent last spoke.
 */
const readReactions = (view: TraceView, failed: ReadonlyArray<Failure>): void => {
  const byError = [...failed].sort((a, b) => a.error - b.error)
  let next = 0
  // the failures since the agent's last words, and the latest ones (compared by name)
  let pending: Array<Failure> = []
  const recent: Array<Failure> = []
  let speaking = false
  let unowned = failed.length
  let pendingReacted = false
  // words before the first failure react to none: the reading starts at it, and stops once every failure is owned up to
  for (let index = byError[0]?.error ?? view.length; index < view.length && !(unowned === 0 && next === byError.length); index++) {
    const event = view.at(index)
    if (event === undefined) continue
    const words = isWords(event)
    if (!words) {
      if (speaking) pending = []
      speaking = false
    }
    for (; next < byError.length && (byError[next]?.error ?? Infinity) <= index; next++) {
      const failure = byError[next]
      if (failure === undefined) continue
      if (pending.length === 0) pendingReacted = false
      pending.push(failure)
      recent.push(failure)
      if (recent.length > NAMED_WINDOW) recent.shift()
    }
    if (!words) continue
    speaking = true
    const admits = admitsFailure(event.content)
    if (!admits && !changesCourse(event.content)) continue
    const lower = lowerOf(event.content)
    const named = recent.filter((failure) => failure.error < index && namesFailure(lower, failure.terms()))
    // an answer (a message, or given through a tool) owns up to the user; a thought only reacts
    const tellsUser = event.kind !== "thought" && admits
    if (named.length === 0) {
      // the failures since the agent last spoke, each given once its reaction and once its acknowledgement: linear however long the turn
      if (!tellsUser && pendingReacted) continue
      pendingReacted = true
    }
    for (const failure of named.length > 0 ? named : pending) {
      failure.reacted ??= index
      if (tellsUser && failure.acknowledged === undefined) {
        failure.acknowledged = index
        unowned--
      }
    }
    if (named.length === 0 && tellsUser) pending = []
  }
}
