/**
 * Schein culture signals. Schein reads culture at three levels: artifacts (what can be seen),
 * espoused values (what is said) and basic underlying assumptions (what is taken for granted).
 * For an agent, the system prompt is the espoused level, the observed behaviours are artifacts,
 * and assumptions are inferred where the two disagree. The signals map both texts onto the same
 * value categories with fixed lexicons, then compare: values espoused but violated, values espoused
 * and enacted, values enacted but never espoused (candidates for tacit assumptions), and value
 * pairs the prompt espouses together that are known to pull against each other.
 */
import type { Signals } from "../../src/Catalogue/Detection.js"
import { type Highlight, ratio, signals, wordCount } from "../../src/Catalogue/SignalKit.js"

export interface ScheinTrace {
  readonly observed_behaviors: ReadonlyArray<string>
  readonly system_prompt: string
}

/** Value categories and the wording that names them, in a prompt or in a behaviour. */
export const VALUE_LEXICON = {
  accuracy: /\b(accura\w*|correct(ness|ly)?|precise\w*|factual\w*|verif\w*|hallucinat\w*|fabricat\w*|invent\w*|guess\w*)\b/i,
  honesty: /\b(honest\w*|transparen\w*|admit\w*|disclos\w*|uncertain\w*|don'?t know|do not know)\b/i,
  speed: /\b(fast|faster|quick\w*|speed|promptly|immediate\w*|asap|latency|right away|handle time|within \d+ ?(s|sec\w*|min\w*))\b/i,
  thoroughness: /\b(thorough\w*|comprehensive\w*|careful\w*|exhaustive\w*|in detail|step by step|double.?check\w*)\b/i,
  safety: /\b(safe\w*|harm\w*|danger\w*|secur\w*|privacy|pii|confidential\w*|complian\w*|policy|policies)\b/i,
  customer_care: /\b(customer (satisfaction|experience)|empath\w*|friendly|polite\w*|courteous\w*|kind\w*|satisf\w*|delight\w*)\b/i,
  brevity: /\b(concise\w*|brief\w*|short|succinct\w*|terse\w*)\b/i,
  evidence: /\b(cit(e|es|ed|ing)|citations?|sources?|referenc\w*|evidence|articles?)\b/i,
  escalation: /\b(escalat\w*|hand ?off|handover|human review|human agent|ask the user|clarif\w*|approval)\b/i,
  autonomy: /\b(autonom\w*|independent\w*|ownership|initiative|proactive\w*|without asking)\b/i,
  cost: /\b(costs?|budget\w*|cheap\w*|tokens?|frugal\w*|spend\w*)\b/i
} as const

export type ValueCategory = keyof typeof VALUE_LEXICON
const CATEGORIES: ReadonlyArray<ValueCategory> = [
  "accuracy",
  "honesty",
  "speed",
  "thoroughness",
  "safety",
  "customer_care",
  "brevity",
  "evidence",
  "escalation",
  "autonomy",
  "cost"
]

/** Espoused together, these pairs pull against each other unless the prompt ranks them. */
export const TENSIONS: ReadonlyArray<readonly [ValueCategory, ValueCategory]> = [
  ["speed", "thoroughness"],
  ["speed", "accuracy"],
  ["brevity", "thoroughness"],
  ["customer_care", "safety"],
  ["autonomy", "escalation"],
  ["cost", "thoroughness"]
]

/** Wording that marks a behaviour as departing from, omitting or inverting what it names. */
const DEPARTURE = /\b(no|not|never|without|skip\w*|ignor\w*|despite|instead of|failed to|didn'?t|did not|omit\w*|bypass\w*|fabricat\w*|invent\w*|guess\w*|overr?id\w*|zero|none|0 (of|out of))\b/i
const DIRECTIVE = /\b(always|never|must|should|do not|don'?t|prioriti[sz]e\w*|important|critical|required?)\b/i
const ABSOLUTE = /\b(always|never|must|under no circumstances|at all times)\b/gi
const PRIORITY = /\b(priorit\w*|above all|first and foremost|more important than|takes precedence)\b/i
const EMPHASIS = /\b[A-Z]{3,}\b/g

export const categoriesIn = (text: string): Array<ValueCategory> => CATEGORIES.filter((c) => VALUE_LEXICON[c].test(text))

/** Sentences (or lines) of the prompt: the units directives are counted in. */
export const sentences = (text: string): Array<string> =>
  text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0)

export const scheinSignals = (trace: ScheinTrace): Signals => {
  const prompt = trace.system_prompt
  const espoused = categoriesIn(prompt)
  const promptSentences = sentences(prompt)
  const directives = promptSentences.filter((s) => DIRECTIVE.test(s)).length
  const absolutes = (prompt.match(ABSOLUTE) ?? []).length
  const emphasis = (prompt.match(EMPHASIS) ?? []).filter((w) => !/^(API|URL|JSON|PII|SLA|FAQ|CRM|HTTP|SQL|ID|USD|EUR)$/.test(w)).length

  const enacted = new Set<ValueCategory>()
  const violated = new Set<ValueCategory>()
  const departures: Array<number> = []
  const violations: Array<number> = []
  const behaviourCounts: Record<string, number> = {}
  trace.observed_behaviors.forEach((behaviour, i) => {
    const hits = categoriesIn(behaviour)
    const departs = DEPARTURE.test(behaviour)
    if (departs) departures.push(i)
    for (const c of hits) {
      behaviourCounts[c] = (behaviourCounts[c] ?? 0) + 1
      if (departs) violated.add(c)
      else enacted.add(c)
    }
    if (departs && hits.some((c) => espoused.includes(c))) violations.push(i)
  })

  const espousedViolated = espoused.filter((c) => violated.has(c))
  const espousedEnacted = espoused.filter((c) => enacted.has(c) && !violated.has(c))
  const espousedUnseen = espoused.filter((c) => !enacted.has(c) && !violated.has(c))
  const unespoused = CATEGORIES.filter((c) => !espoused.includes(c) && (enacted.has(c) || violated.has(c)))
  const tensions = TENSIONS.filter(([a, b]) => espoused.includes(a) && espoused.includes(b)).map(([a, b]) => `${a}~${b}`)

  const highlights: Array<Highlight> = [
    ...violations.map((i) => ({ ref: `observed_behaviors[${i}]`, reason: "departs from a value the system prompt espouses" })),
    ...(espousedViolated.length > 0 ? [{ ref: "system_prompt", reason: `espouses values the behaviour contradicts: ${espousedViolated.join(", ")}` }] : []),
    ...departures.map((i) => ({ ref: `observed_behaviors[${i}]`, reason: "worded as an omission, bypass or departure" }))
  ]

  return signals(
    {
      behaviour_count: trace.observed_behaviors.length,
      prompt_words: wordCount(prompt),
      prompt_directives: directives,
      absolute_directives: absolutes,
      emphasis_words: emphasis,
      states_priorities: PRIORITY.test(prompt),
      espoused_values: espoused,
      behaviour_value_mentions: behaviourCounts,
      espoused_and_enacted: espousedEnacted,
      espoused_but_violated: espousedViolated,
      espoused_not_observed: espousedUnseen,
      enacted_not_espoused: unespoused,
      espoused_tensions: tensions,
      unranked_tensions: PRIORITY.test(prompt) ? 0 : tensions.length,
      departure_behaviours: departures.length,
      violating_behaviours: violations.length,
      alignment_ratio: espoused.length === 0 ? null : ratio(espoused.length - espousedViolated.length, espoused.length)
    },
    highlights
  )
}
