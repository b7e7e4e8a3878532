/**
 * `empty_final_answer` (DECISIONS §23): the run ended on a model output with nothing in it, in one
 * of three shapes:
 * - the agent's last message is empty while an earlier message of the agent has text (so the trace
 *   does record what the agent says; tool arguments alone do not show it: they may come from the
 *   tools' own spans);
 * - its last model call finished normally (`stop`, `end_turn`) with no text and no tool call, and
 *   the run's own output, on a trace that records how the run ended (its status), is empty too (`""`,
 *   LangSmith's `{"answer": ""}`): where model calls record no text of their own (the answer sits on
 *   the agent's span), the run's output says the answer was empty;
 * - its last output is reasoning alone from a model call that finished normally.
 * Never on a trace without content (`content: "absent"`: there an empty message is the normal
 * shape), not when the answer was given through a tool (`final_answer`), and not when an error ends
 * the run after it (the error is the failure, and the checks that read errors name it).
 */
import * as Predicate from "effect/Predicate"
import type { TraceEvent } from "../Traces/Model.js"
import { parseArguments } from "./Arguments.js"
import type { Check } from "./Check.js"
import { ANSWER_TOOL } from "./Claims.js"
import { describeEvent, firstWordsOf } from "./Errors.js"
import { finishOf, STOPPED } from "./Stops.js"
import { hasText } from "./View.js"

/** Outputs longer than this hold something: an empty one is `""` or a small object of empty strings (`{"answer":""}`). */
const SHORT_OUTPUT = 500

/** The run's recorded output says nothing: empty, or JSON whose every value is an empty string or null. */
const isEmptyOutput = (outcome: string): boolean => {
  const text = outcome.trim()
  if (text.length === 0) return true
  if (text.length > SHORT_OUTPUT || !(text.startsWith("{") || text.startsWith("["))) return false
  const values = parseArguments(text)
  return values.ok && isEmptyValue(values.value)
}

const isEmptyValue = (value: unknown): boolean =>
  value === null || value === "" || (typeof value === "string" && value.trim().length === 0) ||
  (Array.isArray(value) ? value.every(isEmptyValue) : Predicate.isRecord(value) && Object.values(value).every(isEmptyValue))

/** An output of the agent: any event of it but an error. */
const isOutput = (event: TraceEvent): boolean => event.role === "agent" && event.kind !== "error"

export const emptyFinalAnswer: Check = {
  id: "empty_final_answer",
  title: "The run ended with an empty answer",
  severity: "medium",
  rule:
    "The agent's last output is a message without text while an earlier message of the agent has text; or its last model call finished normally (stop, end_turn) with no text and no tool call and the run, whose status the trace records, has an empty output too; or its last output is reasoning alone from a model call that finished normally; not on traces without content, nor when the answer was given through a tool (final_answer) or an error ends the run after it.",
  reads: "structure",
  playbooks: ["motivation_traps/indeterminate.unobserved_abandonment", "yerkes_dodson/under_aroused.premature_completion", "schein_culture/tacit_assumption.always_answer"],
  fingerprint: ["agent"],
  run: (view) => {
    // Read from the end back, and only as far as needed: the agent's last output (its last event
    // that is not an error), then, when that is an empty message or reasoning, back to where the
    // agent last spoke. Most runs end on words, and only their last events are read.
    let end = view.length - 1
    let event: TraceEvent | undefined
    for (; end >= 0; end--) {
      event = view.at(end)
      if (event !== undefined && isOutput(event)) break
      // a failed model call, or an error after the last output: the error is the failure
      if (view.failed(end)) return []
    }
    if (end < 0 || event === undefined || view.failed(end)) return []
    if (!(event.kind === "message" && !hasText(event)) && event.kind !== "thought") return []
    // where the agent last spoke (an earlier output with words), unless it answered through a tool
    // after that (smolagents' final_answer): then the answer was given
    let spoke: number | undefined
    for (let index = end - 1; index >= 0 && spoke === undefined; index--) {
      const earlier = view.at(index)
      if (earlier === undefined || !isOutput(earlier)) continue
      if (earlier.kind === "tool_call" && ANSWER_TOOL.test(earlier.tool ?? "") && hasText(earlier)) return []
      // the agent's words: a tool call's arguments may come from the tool's own span, a handoff's text from the framework
      if (earlier.kind === "message" && hasText(earlier)) spoke = index
    }
    const finish = finishOf(event)
    if (event.kind === "message" && !hasText(event) && spoke !== undefined) {
      return [{
        cites: [{ event: end }],
        explanation: `The run ended at events[${end}] with ${event.actor}'s message empty (${describeEvent(event)}), though the trace records the agent's messages (events[${spoke}] has text).`,
        agent: event.actor
      }]
    }
    // a trace whose model calls record no text of their own (the answer sits on the agent's span or
    // the run): the last call finished normally with nothing, and the run, whose end the trace
    // records (its status), has an empty output too
    if (event.kind === "message" && !hasText(event) && finish !== undefined && STOPPED.has(finish) && view.trace.content !== "absent" && view.trace.success !== null && isEmptyOutput(view.trace.outcome)) {
      return [{
        cites: [{ event: end }],
        explanation: `The run ended at events[${end}] with ${event.actor}'s model call finishing normally (finish reason ${event.finish_reason ?? finish}) with no text and no tool call, and the run's own output is empty${view.trace.outcome.trim().length > 0 ? ` (${firstWordsOf(view.trace.outcome, 60)})` : ""}.`,
        agent: event.actor
      }]
    }
    if (event.kind === "thought" && finish !== undefined && STOPPED.has(finish)) {
      return [{
        cites: [{ event: end }],
        explanation: `The run ended at events[${end}] with ${event.actor}'s reasoning alone: the model call finished normally (finish reason ${event.finish_reason ?? finish}) with no answer text and no tool call.`,
        agent: event.actor
      }]
    }
    return []
  }
}
