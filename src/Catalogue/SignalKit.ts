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

/**
 * For each token set in order, whether an earlier one is at least `threshold` (0 < threshold ≤ 1)
 * similar to it by `similarity`, the caller's own Jaccard function (so its arithmetic decides).
 * Only sets `probe` accepts are asked about; with `owner`, only earlier sets of another owner count.
 *
 * Comparing each set with every earlier one was quadratic (issue 27: 5,000 speakers took about a
 * second per pattern). Prefix filtering (Chaudhuri et al. 2006) finds the same answers: Jaccard ≥ t
 * needs |a ∩ b| ≥ t·max(|a|, |b|), so with the tokens of every set in one order (rarest first) two
 * such sets share a token among the first |x| − ⌈t·|x|⌉ + 1 of each; only sets met there are
 * compared, and identical sets once.
 */
export const similarToEarlier = (
  sets: ReadonlyArray<ReadonlySet<string>>,
  threshold: number,
  similarity: (a: ReadonlySet<string>, b: ReadonlySet<string>) => number,
  options: { readonly probe?: (i: number) => boolean; readonly owner?: (i: number) => string } = {}
): Array<boolean> => {
  const frequency = new Map<string, number>()
  for (const set of sets) for (const token of set) frequency.set(token, (frequency.get(token) ?? 0) + 1)
  const rarestFirst = (a: string, b: string) => (frequency.get(a) ?? 0) - (frequency.get(b) ?? 0) || (a < b ? -1 : a > b ? 1 : 0)
  // Distinct sets seen so far (identical ones merged, `shared` once more than one owner holds one).
  const distinct: Array<{ readonly set: ReadonlySet<string>; readonly prefix: ReadonlyArray<string>; readonly owner: string | undefined; shared: boolean }> = []
  const byKey = new Map<string, number>()
  // Per token, the sets whose prefix holds it, in runs of one owner, so a probe passes over its own
  // owner's sets at once (`owner` undefined: anyone's, as a set held by several owners is re-listed).
  const postings = new Map<string, Array<{ readonly owner: string | undefined; readonly sets: Array<number> }>>()
  const post = (token: string, d: number, owner: string | undefined) => {
    const runs = postings.get(token)
    const last = runs?.[runs.length - 1]
    if (last !== undefined && last.owner === owner) last.sets.push(d)
    else if (runs !== undefined) runs.push({ owner, sets: [d] })
    else postings.set(token, [{ owner, sets: [d] }])
  }
  const probedBy: Array<number> = []
  return sets.map((set, i) => {
    if (set.size === 0) return false
    const ordered = Array.from(set).sort(rarestFirst)
    // The 1e-9 keeps the prefix long enough when t·|x| is a whole number computed a hair high.
    const prefix = ordered.slice(0, ordered.length - Math.max(0, Math.ceil(threshold * ordered.length - 1e-9)) + 1)
    const owner = options.owner?.(i)
    const matches = (d: number): boolean => {
      if (probedBy[d] === i) return false
      probedBy[d] = i
      const earlier = distinct[d]
      if (earlier === undefined || (owner !== undefined && !earlier.shared && earlier.owner === owner)) return false
      return similarity(set, earlier.set) >= threshold
    }
    const found = (options.probe?.(i) ?? true) &&
      prefix.some((token) => (postings.get(token) ?? []).some((run) => (owner === undefined || run.owner !== owner) && run.sets.some(matches)))
    const key = ordered.join("\u0000")
    const known = byKey.get(key)
    const same = known === undefined ? undefined : distinct[known]
    if (known !== undefined && same !== undefined) {
      if (same.owner !== owner && !same.shared) {
        same.shared = true
        for (const token of same.prefix) post(token, known, undefined)
      }
    } else {
      byKey.set(key, distinct.length)
      for (const token of prefix) post(token, distinct.length, owner)
      distinct.push({ set, prefix, owner, shared: false })
    }
    return found
  })
}

/** `[A-Za-z0-9_]`: what may not touch a mentioned name on either side. */
const isWordUnit = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95
const foldedUnits = new Map<number, number>()
/** A code unit as a case-insensitive regular expression compares it (without `u`): its upper case, kept if that is not one unit or leaves non-ASCII for ASCII. */
const foldUnit = (c: number): number => {
  if (c < 128) return c >= 97 && c <= 122 ? c - 32 : c
  let folded = foldedUnits.get(c)
  if (folded === undefined) {
    const upper = String.fromCharCode(c).toUpperCase()
    const u = upper.charCodeAt(0)
    folded = upper.length !== 1 || u < 128 ? c : u
    foldedUnits.set(c, folded)
  }
  return folded
}

/**
 * An Aho-Corasick automaton (Aho & Corasick 1975) of `patterns`, code unit by code unit after
 * `fold`: nodes are prefixes of the patterns, `failure` leads to the longest proper suffix that is
 * one too, `order` lists the nodes breadth first. Finds every pattern in a text in one pass, where
 * searching for each pattern in turn costs texts × patterns.
 */
const automaton = (patterns: ReadonlyArray<string>, fold: (unit: number) => number) => {
  const next: Array<Map<number, number>> = [new Map()]
  const failure: Array<number> = [0]
  const depth: Array<number> = [0]
  /** The smallest index of a pattern ending at each node, -1 when none does. */
  const ends: Array<number> = [-1]
  /** Each pattern's node. */
  const nodeOf = patterns.map((pattern, index) => {
    let node = 0
    for (let i = 0; i < pattern.length; i++) {
      const unit = fold(pattern.charCodeAt(i))
      let child = next[node]?.get(unit)
      if (child === undefined) {
        child = next.length
        next[node]?.set(unit, child)
        next.push(new Map())
        failure.push(0)
        depth.push(i + 1)
        ends.push(-1)
      }
      node = child
    }
    if ((ends[node] ?? -1) < 0) ends[node] = index
    return node
  })
  const order: Array<number> = [0]
  for (let head = 0; head < order.length; head++) {
    const node = order[head] ?? 0
    for (const [unit, child] of next[node] ?? []) {
      let fallback = failure[node] ?? 0
      while (fallback > 0 && next[fallback]?.get(unit) === undefined) fallback = failure[fallback] ?? 0
      const target = next[fallback]?.get(unit)
      failure[child] = node > 0 && target !== undefined ? target : 0
      order.push(child)
    }
  }
  /** The node after reading `unit` at `node`. */
  const step = (node: number, unit: number): number => {
    let at = node
    while (at > 0 && next[at]?.get(unit) === undefined) at = failure[at] ?? 0
    return next[at]?.get(unit) ?? 0
  }
  return { failure, depth, ends, nodeOf, order, step }
}

/**
 * For each of `terms`, whether `text` contains it (as `text.includes(term)` says, without a scan
 * of the text per term: a long task's words against a long output was words × characters). One
 * pass marks the automaton's nodes the text reaches; a term occurs when its node is reached or is
 * the failure target, directly or in turn, of a reached node.
 */
export const containsEach = (text: string, terms: ReadonlyArray<string>): Array<boolean> => {
  const { failure, nodeOf, order, step } = automaton(terms, (unit) => unit)
  const reached: Array<boolean> = new Array<boolean>(order.length).fill(false)
  reached[0] = true
  let node = 0
  for (let i = 0; i < text.length; i++) {
    node = step(node, text.charCodeAt(i))
    reached[node] = true
  }
  for (let k = order.length - 1; k > 0; k--) {
    const at = order[k] ?? 0
    if (reached[at] === true) reached[failure[at] ?? 0] = true
  }
  return nodeOf.map((at) => reached[at] === true)
}

/**
 * A finder of the first of `names` (in list order) that a text mentions: the name, ignoring case,
 * with no `[A-Za-z0-9_]` character just before or after it; the same answer as testing each name's
 * `/(^|[^A-Za-z0-9_])name([^A-Za-z0-9_]|$)/i` in turn, which was texts × names (issue 27), in one
 * pass over the text through an automaton of the folded names.
 */
export const mentionFinder = (names: ReadonlyArray<string>): ((text: string) => number | undefined) => {
  const { failure, depth, ends, order, step } = automaton(names, foldUnit)
  /** The nearest node down the failure chain (this one included) where a name ends, -1 when none. */
  const output: Array<number> = new Array<number>(order.length).fill(-1)
  for (const node of order) {
    if (node > 0) output[node] = (ends[node] ?? -1) >= 0 ? node : output[failure[node] ?? 0] ?? -1
  }
  return (text) => {
    let best = -1
    let node = 0
    for (let i = 0; i < text.length; i++) {
      node = step(node, foldUnit(text.charCodeAt(i)))
      const after = i + 1 < text.length && isWordUnit(text.charCodeAt(i + 1))
      for (let found = output[node] ?? -1; found > 0; found = output[failure[found] ?? 0] ?? -1) {
        const index = ends[found] ?? -1
        const start = i + 1 - (depth[found] ?? 0)
        if (!after && (start === 0 || !isWordUnit(text.charCodeAt(start - 1))) && (best < 0 || index < best)) best = index
      }
    }
    return best < 0 ? undefined : best
  }
}
