/**
 * How checks read an error: its text (the status message, else the event's content), its class (a
 * code token: an HTTP status, an exception type; failing that its first six words with numbers, ids
 * and quotes removed: DECISIONS §24) and its first words for an explanation.
 */
import type { TraceEvent } from "../Traces/Model.js"
import { isError } from "./View.js"

/** The error's text: the source's status message, else the event's own content. */
export const errorTextOf = (event: TraceEvent): string => (event.status_message ?? "").trim() || event.content.trim()

const HTTP_STATUS = /\b(?:HTTP|status|code|error)?[\s:=]*([45]\d\d)\b/i
const EXCEPTION_TYPE = /\b([A-Z][A-Za-z0-9]*(?:Error|Exception|Timeout|Refused|Denied|Exceeded))\b/
const NAMED_CODE = /\b(E[A-Z]{3,}|[A-Z][A-Z0-9]*_[A-Z0-9_]+)\b/

const classes = new WeakMap<TraceEvent, string>()

/** An HTTP status (`503`), an exception type, a system code (`ECONNREFUSED`), or the first six plain words; read once per event however many checks ask. */
export const errorClassOf = (event: TraceEvent): string => {
  let known = classes.get(event)
  if (known === undefined) {
    known = classOf(event)
    classes.set(event, known)
  }
  return known
}

const classOf = (event: TraceEvent): string => {
  const code = event.status_code?.trim()
  const text = errorTextOf(event).slice(0, 2_000)
  // An HTTP status first, wherever the format keeps it (one instrumentation records the exception's
  // type as the code and the status in its message, another the status alone): the same failure
  // is one class across formats (DECISIONS §24).
  const status = HTTP_STATUS.exec(code ?? "")?.[1] ?? HTTP_STATUS.exec(text)?.[1]
  if (status !== undefined) return status
  if (code !== undefined && code.length > 0) return code.slice(0, 64)
  const type = EXCEPTION_TYPE.exec(text)?.[1] ?? NAMED_CODE.exec(text)?.[1]
  if (type !== undefined) return type
  return plainWords(text, 6)
}

/** The first `count` words, lower case, with quoted stretches, numbers and ids removed. */
export const plainWords = (text: string, count: number): string =>
  text
    .slice(0, 1_000)
    .replace(/"[^"]*"|'[^']*'|`[^`]*`/g, " ")
    .toLowerCase()
    .split(/[^\p{L}]+/u)
    .filter((word) => word.length > 1)
    .slice(0, count)
    .join(" ")

/** The first words of a text for an explanation (at most `max` characters, cut at a word). */
export const firstWordsOf = (text: string, max = 80): string => {
  const flat = text.replace(/\s+/g, " ").trim()
  if (flat.length <= max) return flat
  const cut = flat.slice(0, max)
  const space = cut.lastIndexOf(" ")
  return `${space > max / 2 ? cut.slice(0, space) : cut}…`
}

/** What a content-free event is, from its structure: `tool_call issue_refund, status error 503`. */
export const describeEvent = (event: TraceEvent): string => {
  const parts = [event.tool === undefined ? event.kind : `${event.kind} ${event.tool}`]
  if (event.status !== undefined || isError(event)) parts.push(`status ${event.status ?? "error"}${event.status_code === undefined ? "" : ` ${event.status_code}`}`)
  if (event.finish_reason !== undefined) parts.push(`finish ${event.finish_reason}`)
  return parts.join(", ")
}

/** Events named for an explanation: `events[3], events[5]`, the first `max` of them and how many more. */
export const listEvents = (indices: ReadonlyArray<number>, max = 6): string => {
  const shown = indices.slice(0, max).map((index) => `events[${index}]`).join(", ")
  return indices.length > max ? `${shown} and ${indices.length - max} more` : shown
}

/** White space other than single spaces: only a text that has some needs rewriting to compare. */
const SPACED = /[^\S ]| {2}/

/** Texts up to this long are compared but for white space; longer ones by their length, start and end. */
const COMPARED = 512
const ENDS = 200

/**
 * A key two texts share when they are the same: short texts equal but for white space; long ones
 * (a file's text, a page) of the same length with the same first and last 200 characters. Constant
 * work for long texts, where reading them whole again cost more than normalize (bench/checks.ts).
 */
export const textKey = (text: string): string =>
  text.length <= COMPARED
    ? (SPACED.test(text) ? text.replace(/\s+/g, " ").trim() : text.trim())
    : `${text.length}\u0000${text.slice(0, ENDS)}\u0000${text.slice(-ENDS)}`
