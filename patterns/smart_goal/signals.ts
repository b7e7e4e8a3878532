/**
 * SMART goal signals (Doran 1981): what the vague goal already carries for each criterion that
 * can be read from text (a number or metric for Measurable, an owner for Assignable, a time
 * expression for Time-related), the vague terms that keep it from being Specific, and what the
 * rest of the request offers: baseline figures in the context, constraints that bound what is
 * Realistic, a deadline hint. Realistic itself cannot be judged from text and stays null.
 */
import type { Signals } from "../../src/Catalogue/Detection.js"
import { type Highlight, wordCount, signals } from "../../src/Catalogue/SignalKit.js"

export interface SmartGoalTrace {
  readonly vague_goal: string
  readonly context?: string | undefined
  readonly constraints?: ReadonlyArray<string> | undefined
  readonly deadline_hint?: string | undefined
}

export const VAGUE =
  /\b(better|improv\w*|optimi[sz]\w*|enhanc\w*|more|less|faster|robust\w*|good|great|nice|some|various|etc|asap|soon|efficien\w*|seamless\w*|best|user[- ]friendly|scalabl\w*|moderni[sz]\w*|streamlin\w*|leverag\w*|world[- ]class|smarter)\b/gi
export const METRIC =
  /(\d|%|\b(rate|latency|accuracy|precision|recall|score|count|number of|nps|csat|p9[059]|errors?|revenue|cost|pass(ing)? rate|tokens?|seconds?|minutes?|hours?|tickets?|conversations?)\b)/i
export const OWNER = /(\b[\w-]+[- ]agent\b|\bteam\b|\bowner\b|\bassigned to\b|@\w+|\b(i|we) will\b|\bresponsible\b)/i
export const TIME =
  /(\bby\b|\bbefore\b|\buntil\b|\bwithin\b|\bend of\b|\beo[dwm]\b|\bq[1-4]\b|\bsprint\b|\bweeks?\b|\bmonths?\b|\bquarter\b|\byear\b|\bdays?\b|\bdeadline\b|\b\d{4}-\d{2}-\d{2}\b|\b(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\b|\b(monday|tuesday|wednesday|thursday|friday)\b)/i
const FIGURE = /(?<![A-Za-z\d])\d[\d,.]*%?(?![A-Za-z\d])/g
const BOUND = /(\$\s?\d|\d+\s*(%|ms|s|tokens?|calls?|requests?|hours?|days?)\b|\bno more than\b|\bat most\b|\bmax(imum)?\b|\bwithout\b|\bno\b|\bonly\b|\bmust\b|\bsame\b)/i

const unique = (xs: ReadonlyArray<string>): Array<string> => [...new Set(xs)]

export const smartGoalSignals = (trace: SmartGoalTrace): Signals => {
  const goal = trace.vague_goal
  const vague = unique((goal.match(VAGUE) ?? []).map((t) => t.toLowerCase()))
  const words = wordCount(goal)
  const constraints = trace.constraints ?? []
  const context = trace.context ?? ""
  const contextFigures = unique((context.match(FIGURE) ?? []).map((f) => f.replace(/[.,]+$/, "")).filter((f) => f.length > 0))
  const deadline = trace.deadline_hint ?? ""

  const hints = {
    specific: words >= 8 && vague.length === 0 ? 1 : 0,
    measurable: METRIC.test(goal) ? 1 : 0,
    assignable: OWNER.test(goal) ? 1 : 0,
    realistic: null,
    time_related: TIME.test(goal) ? 1 : 0
  }
  const missing = (["specific", "measurable", "assignable", "time_related"] as const).filter((k) => hints[k] === 0)
  const boundingConstraints = constraints.flatMap((c, i) => (BOUND.test(c) ? [i] : []))

  const highlights: Array<Highlight> = [
    ...(vague.length > 0 ? [{ ref: "vague_goal", reason: `vague terms to define: ${vague.join(", ")}` }] : []),
    ...(contextFigures.length > 0 ? [{ ref: "context", reason: "figures usable as baselines for the Measurable criterion" }] : []),
    ...boundingConstraints.map((i) => ({ ref: `constraints[${i}]`, reason: "constraint that bounds what is Realistic" })),
    ...(trace.deadline_hint !== undefined ? [{ ref: "deadline_hint", reason: "time frame for the Time-related criterion" }] : [])
  ]

  return signals(
    {
      vague_goal_words: words,
      vague_terms: vague,
      vague_term_count: vague.length,
      criteria_hints: hints,
      criteria_missing_hint: [...missing],
      smart_hint_count: 4 - missing.length,
      context_words: wordCount(context),
      context_figures: contextFigures.slice(0, 12),
      baseline_available: contextFigures.length > 0,
      constraint_count: constraints.length,
      bounding_constraints: boundingConstraints.length,
      deadline_hint_present: trace.deadline_hint !== undefined,
      deadline_hint_has_time: TIME.test(deadline)
    },
    highlights
  )
}
