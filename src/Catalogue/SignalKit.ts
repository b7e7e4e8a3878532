/**
 * Pure measurement helpers the patterns compose into their deterministic signals. Nothing here
 * calls a model; every function is total on its input (empty inputs give 0 or null, never NaN).
 */
import type { Signals, SignalValue } from "./Detection.js"
import { normalise } from "../Text.js"

export type Highlight = { readonly ref: string; readonly reason: string }

/** Rounds to 4 decimals so signals are stable in JSON and in tests. */
export const round = (x: number): number => Math.round(x * 10_000) / 10_000

export const ratio = (part: number, whole: number): number => (whole === 0 ? 0 : round(part / whole))

export const mean = (xs: ReadonlyArray<number>): number | null =>
  xs.length === 0 ? null : round(xs.reduce((a, b) => a + b, 0) / xs.length)

/** Gini coefficient of non-negative values (0 = perfectly even, → 1 = one holder takes all). */
export const gini = (values: ReadonlyArray<number>): number => {
  const xs = values.filter((x) => x >= 0).slice().sort((a, b) => a - b)
  const n = xs.length
  const total = xs.reduce((a, b) => a + b, 0)
  if (n === 0 || total === 0) return 0
  let weighted = 0
  xs.forEach((x, i) => {
    weighted += (i + 1) * x
  })
  return round((2 * weighted) / (n * total) - (n + 1) / n)
}

/** Counts occurrences of each key, in first-seen order. */
export const countBy = <A>(items: ReadonlyArray<A>, key: (a: A) => string): Record<string, number> => {
  const out: Record<string, number> = {}
  for (const item of items) {
    const k = key(item)
    out[k] = (out[k] ?? 0) + 1
  }
  return out
}

/** Shares of each key in a count table (values sum to 1 up to rounding). */
export const shares = (counts: Readonly<Record<string, number>>): Record<string, number> => {
  const total = Object.values(counts).reduce((a, b) => a + b, 0)
  const out: Record<string, number> = {}
  for (const [k, v] of Object.entries(counts)) out[k] = ratio(v, total)
  return out
}

/** Whitespace- and case-normalised text, the form used to compare contents (Text.ts). */
export { normalise }

/**
 * Repeated actions: elements whose normalised content equals an earlier one. Returns the indices
 * of the repeats (not the first occurrences).
 */
export const repeatedIndices = (contents: ReadonlyArray<string>): Array<number> => {
  const seen = new Set<string>()
  const repeats: Array<number> = []
  contents.forEach((content, i) => {
    // Long outputs repeat verbatim; normalising them would cost more than it finds.
    const key = content.length > 256 ? content : normalise(content)
    if (key.length === 0) return
    if (seen.has(key)) repeats.push(i)
    else seen.add(key)
  })
  return repeats
}

const ERROR_WORDS = /\b(error|exception|failed|failure|traceback|timed? ?out|denied|refused|invalid|not found)\b/i
/** A 4xx/5xx number only counts with an HTTP or status context ("HTTP 503", "status: 404", "503 Service Unavailable"). */
const STATUS_CODE = /\b(?:http(?:\/\d(?:\.\d)?)?|status(?: code)?|code|error)\s*[:=]?\s*[45]\d\d\b|\b[45]\d\d\s+(?:bad request|unauthorized|forbidden|not found|too many requests|internal server error|bad gateway|service unavailable|gateway timeout)\b/i
/** Counts of zero are reports of success ("0 failed", "errors: 0", "no errors"). */
const ZERO_COUNTS = /\b0\s+(?:failed|failures|errors?)\b|\b(?:failed|failures|errors?)\s*[:=]\s*0\b|\bno (?:errors?|failures)\b|\bwithout (?:errors?|failures?)\b/gi

/** The status-code pattern is costly to scan; text without a 4xx/5xx-looking number cannot match it. */
const STATUS_DIGITS = /[45]\d\d/
const hasStatusCode = (text: string) => STATUS_DIGITS.test(text) && STATUS_CODE.test(text)

/** True when a step or message reads as an error (by its type or its wording). */
export const looksLikeError = (type: string | undefined, content: string): boolean => {
  if (type !== undefined && /error|fail|exception/i.test(type)) return true
  if (!ERROR_WORDS.test(content) && !hasStatusCode(content)) return false
  const text = content.replace(ZERO_COUNTS, " ")
  return ERROR_WORDS.test(text) || hasStatusCode(text)
}

type Elements = ReadonlyArray<{ readonly type?: string | undefined; readonly content: string }>
/** Per element list: several signals of one pattern ask the same question of the same steps. */
const errorIndicesOf = new WeakMap<Elements, ReadonlyArray<number>>()

/** Indices of elements that read as errors (computed once per list). */
export const errorIndices = (elements: Elements): ReadonlyArray<number> => {
  let indices = errorIndicesOf.get(elements)
  if (indices === undefined) {
    indices = elements.flatMap((element, i) => (looksLikeError(element.type, element.content) ? [i] : []))
    errorIndicesOf.set(elements, indices)
  }
  return indices
}

/** Longest run of consecutive indices in a sorted index list. */
export const longestRun = (indices: ReadonlyArray<number>): number => {
  let best = 0
  let run = 0
  let previous = Number.NaN
  for (const i of indices) {
    run = i === previous + 1 ? run + 1 : 1
    best = Math.max(best, run)
    previous = i
  }
  return best
}

const STOPWORDS: ReadonlySet<string> = new Set([
  "about", "after", "also", "been", "before", "being", "could", "does", "done", "each", "every", "from", "have",
  "into", "made", "make", "more", "most", "must", "only", "other", "over", "should", "some", "such", "than", "that",
  "their", "them", "then", "there", "these", "they", "this", "those", "used", "uses", "using", "very", "were", "what",
  "when", "which", "will", "with", "would", "your"
])

/** Content words of a text: lower-case words of 4+ letters that are not stopwords, de-duplicated. */
export const contentWords = (text: string, extraStopwords: ReadonlySet<string> = new Set()): Array<string> => {
  const words = text.toLowerCase().match(/[a-z][a-z0-9_-]{3,}/g) ?? []
  return [...new Set(words.filter((w) => !STOPWORDS.has(w) && !extraStopwords.has(w)))]
}

/** Words in a text (for contribution volume). */
export const wordCount = (text: string): number => {
  const trimmed = text.trim()
  return trimmed.length === 0 ? 0 : trimmed.split(/\s+/).length
}

/**
 * Builds a Signals value. Highlights on the same ref are merged (their reasons joined, first
 * position kept) and the list is capped so it stays a pointer list.
 */
export const signals = (
  values: Readonly<Record<string, SignalValue>>,
  highlights: ReadonlyArray<Highlight> = [],
  maxHighlights = 40
): Signals => {
  const reasons = new Map<string, Array<string>>()
  for (const h of highlights) {
    const existing = reasons.get(h.ref)
    if (existing === undefined) {
      if (reasons.size >= maxHighlights) continue
      reasons.set(h.ref, [h.reason])
    } else if (!existing.includes(h.reason)) {
      existing.push(h.reason)
    }
  }
  return { values, highlights: Array.from(reasons, ([ref, list]) => ({ ref, reason: list.join("; ") })) }
}

/**
 * `repeatedIndices` of steps keyed by type, tool and content, without building the joined
 * `type:tool:content` string of every step: long steps (where that string would pass 256
 * characters and be compared exactly) are compared by their own content within their type and
 * tool, so a 4 MiB trace is not copied once more just to be hashed.
 */
const repeatedStepIndices = (steps: ReadonlyArray<{ readonly type: string; readonly content: string; readonly tool?: string | undefined }>) => {
  const short = new Set<string>()
  const long = new Map<string, Set<string>>()
  const repeats: Array<number> = []
  steps.forEach((step, i) => {
    const prefix = `${step.type}:${step.tool ?? ""}:`
    let seen: Set<string>
    let key: string
    if (prefix.length + step.content.length > 256) {
      key = step.content
      seen = long.get(prefix) ?? new Set<string>()
      long.set(prefix, seen)
    } else {
      key = normalise(prefix + step.content)
      if (key.length === 0) return
      seen = short
    }
    if (seen.has(key)) repeats.push(i)
    else seen.add(key)
  })
  return repeats
}

/** Generic measurements of a step list, shared by step_trace patterns. */
export const stepStats = (
  steps: ReadonlyArray<{ readonly type: string; readonly content: string; readonly tool?: string | undefined }>
) => {
  const errors = errorIndices(steps)
  const repeats = repeatedStepIndices(steps)
  const highlights: Array<Highlight> = [
    ...errors.map((i) => ({ ref: `steps[${i}]`, reason: "reads as an error" })),
    ...repeats.map((i) => ({ ref: `steps[${i}]`, reason: "repeats an earlier step" }))
  ]
  return {
    values: {
      step_count: steps.length,
      step_types: countBy(steps, (s) => s.type),
      error_steps: errors.length,
      error_rate: ratio(errors.length, steps.length),
      longest_error_run: longestRun(errors),
      repeated_steps: repeats.length,
      repeat_rate: ratio(repeats.length, steps.length),
      tools_used: Object.keys(countBy(steps.filter((s) => s.tool !== undefined), (s) => s.tool ?? "")).length
    },
    highlights
  }
}
