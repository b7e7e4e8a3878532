/**
 * Johari from a raw trace: `self_report` is the agent's own report on its run, as it gave it in the
 * trace: `summary` is its last message, verbatim; `claims` are that message's first-person
 * sentences about what it did ("I fixed ...", "I have verified ..."), verbatim; `confidence` is a
 * confidence it stated as a number ("90% confident", "confidence: 0.8"). When the agent never
 * sends a message there is no self-report to read, and none is made up: the pattern then needs
 * `hints.self_report`.
 */
import type { TraceEvent } from "../../src/Traces/Model.js"
import type { DeriveFromTrace } from "../../src/Traces/Reading.js"

export const CLAIM =
  /\b(?:I|we)(?:'ve| have| had|'m| am| also)?\s+(?:\w+\s+){0,2}?(?:\w{3,}ed|ran|did|made|found|wrote|sent|built|got|took|saw|tried|put|set|left|kept|rebuilt|rewrote|redid)\b/i
const PERCENT = /\b(\d{1,3}(?:\.\d+)?)\s?%\s*(?:confident|sure|certain|confidence)\b|\bconfidence(?: level)?(?: is| of|:)?\s*(\d{1,3}(?:\.\d+)?)\s?%/i
const FRACTION = /\bconfidence(?: level)?(?: is| of|:)?\s*(0?\.\d+|1\.0+|0|1)\b/i

const sentences = (text: string): Array<string> =>
  text
    .split(/\n+|(?<=[.!?])\s+/)
    .map((part) => part.trim())
    .filter((part) => part.length > 0)

/** A confidence the text states as a number, in 0..1. */
export const statedConfidence = (text: string): number | undefined => {
  const percent = text.match(PERCENT)
  const p = percent === null ? undefined : Number(percent[1] ?? percent[2])
  if (p !== undefined && !Number.isNaN(p) && p >= 0 && p <= 100) return p / 100
  const fraction = text.match(FRACTION)
  const f = fraction === null ? undefined : Number(fraction[1])
  return f !== undefined && !Number.isNaN(f) && f >= 0 && f <= 1 ? f : undefined
}

const lastReport = (events: ReadonlyArray<TraceEvent>): TraceEvent | undefined => {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]
    if (event !== undefined && event.role === "agent" && event.kind === "message" && event.content.trim().length > 0) return event
  }
  return undefined
}

export const deriveFromTrace: DeriveFromTrace = (trace) => {
  const report = lastReport(trace.events)
  if (report === undefined) return { fields: {} }
  const claims = sentences(report.content).filter((sentence) => CLAIM.test(sentence))
  const confidence = statedConfidence(report.content)
  const sources = new Map<string, string>([["self_report.summary", report.source]])
  claims.forEach((_, i) => sources.set(`self_report.claims[${i}]`, report.source))
  return {
    fields: {
      self_report: {
        summary: report.content,
        ...(claims.length === 0 ? {} : { claims }),
        ...(confidence === undefined ? {} : { confidence })
      }
    },
    sources
  }
}
