/**
 * Finding an injected failure again in the normalized trace (issue 48): each expectation names
 * the event by what the injection made up (a call id, the marker in its arguments, an error's
 * words, a handoff's target), and the generator reads its `source` from the events the importer
 * wrote. An expectation that finds nothing stops the generator: an item is never labelled with a
 * source its trace does not have.
 */
import type { TraceEvent } from "../../src/Traces/Model.js"
import type { Call, CheckId } from "./Scenario.js"

export interface Locator {
  /** What is looked for, for the generator's error messages. */
  readonly what: string
  /** The indices of the matching events, the labelled one first. */
  readonly find: (events: ReadonlyArray<TraceEvent>) => ReadonlyArray<number>
}

/** One check the item must raise, at the event `locate` finds (any event `also` finds localises too). */
export interface Expectation {
  readonly check: CheckId
  readonly locate: Locator
  readonly also?: ReadonlyArray<Locator>
}

/** Whether a text holds the words as written, JSON-escaped (a body quoted in JSON), or whitespace aside. */
const holds = (text: string, words: string): boolean => {
  const collapse = (value: string) => value.replace(/\s+/g, " ").trim()
  return text.includes(words) || text.includes(JSON.stringify(words).slice(1, -1)) || collapse(text).includes(collapse(words))
}

const indices = (events: ReadonlyArray<TraceEvent>, test: (event: TraceEvent) => boolean): Array<number> =>
  events.flatMap((event, index) => (test(event) ? [index] : []))

const sameCall = (event: TraceEvent, call: Call) =>
  event.call_id === call.id || ((event.call_id === undefined || event.call_id.length === 0) && event.tool === call.tool && event.content.includes(call.marker))

/** The tool call event of a call. */
export const callEvent = (call: Call): Locator => ({
  what: `the tool_call ${call.tool} ${call.id}`,
  find: (events) => indices(events, (event) => event.kind === "tool_call" && sameCall(event, call))
})

/** The failed result of a call: its error event (its tool_result when the format has no error kind for it). */
export const failedResult = (call: Call, words: string): Locator => ({
  what: `the failed result of ${call.tool} ${call.id}`,
  find: (events) => {
    const mine = (event: TraceEvent) =>
      event.call_id === call.id || ((event.call_id === undefined || event.call_id.length === 0) && (event.tool === call.tool || event.tool === undefined) && (holds(event.content, words) || holds(event.status_message ?? "", words)))
    const errors = indices(events, (event) => event.kind === "error" && mine(event))
    return errors.length > 0 ? errors : indices(events, (event) => event.kind === "tool_result" && mine(event))
  }
})

/** An error event whose text or status message holds the words. */
export const errorWith = (words: string): Locator => ({
  what: `an error saying ${JSON.stringify(words.slice(0, 60))}`,
  find: (events) => indices(events, (event) => event.kind === "error" && (holds(event.content, words) || holds(event.status_message ?? "", words)))
})

/**
 * The run's stop, by its words: an error saying them, else any event saying them, else the last
 * event (DECISIONS §23: a run-level status that no event carries is cited at the last event).
 */
export const stopWith = (words: string): Locator => ({
  what: `the run's stop ${JSON.stringify(words)}`,
  find: (events) => {
    const errors = indices(events, (event) => event.kind === "error" && (holds(event.content, words) || holds(event.status_message ?? "", words)))
    if (errors.length > 0) return errors
    const any = indices(events, (event) => holds(event.content, words))
    return any.length > 0 ? any : events.length > 0 ? [events.length - 1] : []
  }
})

/** The agent's last message that holds the words (the final answer as injected). */
export const answerWith = (words: string): Locator => ({
  what: `the agent's message ${JSON.stringify(words.slice(0, 60))}`,
  find: (events) => indices(events, (event) => event.role === "agent" && event.kind === "message" && event.content.includes(words)).reverse()
})

/** The run's last message by an agent, whatever it says (an empty final answer). */
export const lastAgentMessage: Locator = {
  what: "the agent's last message",
  find: (events) => {
    const found = indices(events, (event) => event.role === "agent" && event.kind === "message").reverse()
    return found.slice(0, 1)
  }
}

/** The agent message that carries a finish reason (a truncated output). */
export const finishedWith = (reasons: ReadonlyArray<string>): Locator => ({
  what: `the event with finish_reason ${reasons.join(" or ")}`,
  find: (events) => indices(events, (event) => event.finish_reason !== undefined && reasons.includes(event.finish_reason)).reverse()
})

/** Handoffs to an agent (the first of them labelled). */
export const handoffTo = (to: string, from?: string): Locator => ({
  what: `a handoff${from === undefined ? "" : ` from ${from}`} to ${to}`,
  find: (events) => indices(events, (event) => event.kind === "handoff" && event.to === to && (from === undefined || event.actor === from))
})

/** Every event any of the locators finds, in the order of the trace. */
export const anyOf = (what: string, locators: ReadonlyArray<Locator>): Locator => ({
  what,
  find: (events) => Array.from(new Set(locators.flatMap((locator) => locator.find(events)))).sort((a, b) => a - b)
})
