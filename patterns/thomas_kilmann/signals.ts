/**
 * Thomas-Kilmann signals. Conflict markers in the user's turns locate the conflict; marker wording
 * in the agent's turns from that point on is counted per conflict-handling mode (a turn counts
 * once per mode it shows). Assertiveness and cooperativeness are proxies on the two TKI axes:
 * assertiveness = (competing + collaborating + compromising / 2) / all mode markers,
 * cooperativeness = (accommodating + collaborating + compromising / 2) / all mode markers.
 */
import type { Signals } from "../../src/Catalogue/Detection.js"
import { type Highlight, normalise, ratio, repeatedIndices, round, signals } from "../../src/Catalogue/SignalKit.js"
import { TASK_CATEGORIES } from "./contract.js"

export const MODES = ["competing", "collaborating", "compromising", "avoiding", "accommodating"] as const
export type Mode = (typeof MODES)[number]

export type TaskCategory = (typeof TASK_CATEGORIES)[number]

/**
 * The mode a task category usually calls for (a starting point for the model, which must still
 * read the situation): hold the line on safety and in emergencies, trade in negotiations, solve
 * jointly where both sides' concerns can be integrated, yield where the issue matters more to the
 * other side than to the agent.
 */
export const FIT_PRIOR: Readonly<Record<TaskCategory, Mode | null>> = {
  safety_or_policy: "competing",
  emergency: "competing",
  negotiation: "compromising",
  complex_problem_solving: "collaborating",
  customer_support: "collaborating",
  low_stakes_preference: "accommodating",
  relationship_repair: "accommodating",
  other: null
}

export interface TkTrace {
  readonly turns: ReadonlyArray<{ readonly role: string; readonly content: string }>
  readonly task_category?: TaskCategory | undefined
}

const USER = /^(user|customer|human|client|caller|requester)$/i
const NON_AGENT = /^(system|tool|function|developer)$/i
const CONFLICT = /\b(wrong|disagree|unacceptable|ridiculous|absurd|frustrat\w*|angry|annoyed|not what i|that'?s not|you said|still (not|doesn'?t|broken)|i want|i need|refund|chargeback|cancel|complain\w*|escalate|manager|why (can'?t|won'?t|didn'?t)|not happy|useless)\b/i
const MARKERS: Readonly<Record<Mode, RegExp>> = {
  competing: /\b(policy|cannot|can'?t|must|you need to|not possible|not allowed|as i (said|mentioned|explained)|the rules?|i insist|non-negotiable|required to|no exceptions?)\b/i,
  collaborating: /\b(what matters most|help me understand|could you tell me|can you (tell|share)|together|both of|so that (you|we)|your goal|what if we|let'?s (figure|work|find|look)|which (would|option)|underlying|what would work)\b/i,
  compromising: /\b(meet (you )?(halfway|in the middle)|partial|split the|as a compromise|middle ground|instead,? (we|i) (can|could)|how about|trade-?off|half (of|the))\b/i,
  avoiding: /\b(let'?s move on|moving on|anything else|(not able|unable) to (help|discuss)|can'?t discuss|please contact|reach out to|outside (my|the) scope|i don'?t have (that|information)|get back to you)\b/i,
  accommodating: /\b(you'?re (absolutely |completely )?right|i apologi[sz]e|sorry|of course|i'?ll do (that|it|whatever)|happy to|my mistake|as you wish|whatever you (prefer|want)|no problem)\b/i
}
const POSITIVE_CLOSE = /\b(thanks|thank you|great|perfect|that works|appreciate|resolved)\b/i

const isUser = (role: string) => USER.test(role.trim())
const isAgent = (role: string) => !isUser(role) && !NON_AGENT.test(role.trim())

export const thomasKilmannSignals = (trace: TkTrace): Signals => {
  const turns = trace.turns
  const highlights: Array<Highlight> = []
  const userTurns = turns.flatMap((t, i) => (isUser(t.role) ? [i] : []))
  const conflictTurns = userTurns.filter((i) => CONFLICT.test(turns[i]?.content ?? ""))
  const firstConflict = conflictTurns[0] ?? null
  if (firstConflict !== null) highlights.push({ ref: `turns[${firstConflict}]`, reason: "conflict first surfaces" })

  const scope = turns.flatMap((t, i) => (isAgent(t.role) && i > (firstConflict ?? -1) ? [i] : []))
  const counts: Record<Mode, number> = { competing: 0, collaborating: 0, compromising: 0, avoiding: 0, accommodating: 0 }
  const byTurn = new Map<number, Array<Mode>>()
  for (const i of scope) {
    const shown = MODES.filter((mode) => MARKERS[mode].test(turns[i]?.content ?? ""))
    shown.forEach((mode) => (counts[mode] += 1))
    byTurn.set(i, shown)
  }
  const total = MODES.reduce((n, mode) => n + counts[mode], 0)
  let dominant: Mode | null = null
  for (const mode of MODES) if (counts[mode] > 0 && (dominant === null || counts[mode] > counts[dominant])) dominant = mode

  // A reversal: the agent held a position (competing) and later yielded (accommodating).
  const firstCompeting = scope.find((i) => byTurn.get(i)?.includes("competing") === true)
  const reversal =
    firstCompeting === undefined ? undefined : scope.find((i) => i > firstCompeting && byTurn.get(i)?.includes("accommodating") === true)
  if (firstCompeting !== undefined) highlights.push({ ref: `turns[${firstCompeting}]`, reason: "agent holds its position" })
  if (reversal !== undefined) highlights.push({ ref: `turns[${reversal}]`, reason: "agent yields after holding its position" })
  scope.forEach((i) => {
    if (byTurn.get(i)?.includes("avoiding") === true) highlights.push({ ref: `turns[${i}]`, reason: "agent sidesteps the issue" })
  })

  const half = Math.floor(userTurns.length / 2)
  const firstHalf = userTurns.slice(0, half)
  const secondHalf = userTurns.slice(half)
  const conflictSet = new Set(conflictTurns)
  const share = (xs: ReadonlyArray<number>) => ratio(xs.filter((i) => conflictSet.has(i)).length, xs.length)
  const repeats = repeatedIndices(userTurns.map((i) => turns[i]?.content ?? ""))
  const lastUser = userTurns[userTurns.length - 1]

  return signals(
    {
      turn_count: turns.length,
      agent_turns: turns.filter((t) => isAgent(t.role)).length,
      user_turns: userTurns.length,
      user_conflict_turns: conflictTurns.length,
      first_conflict_turn: firstConflict,
      user_conflict_trend: userTurns.length < 2 ? 0 : round(share(secondHalf) - share(firstHalf)),
      repeated_user_turns: repeats.length,
      agent_turns_in_conflict: scope.length,
      mode_markers: { ...counts },
      dominant_marker_mode: dominant,
      assertiveness_proxy: total === 0 ? null : ratio(counts.competing + counts.collaborating + counts.compromising / 2, total),
      cooperativeness_proxy: total === 0 ? null : ratio(counts.accommodating + counts.collaborating + counts.compromising / 2, total),
      agent_questions: scope.filter((i) => (turns[i]?.content ?? "").includes("?")).length,
      agent_apologies: scope.filter((i) => /\b(sorry|apologi[sz]e)\b/i.test(turns[i]?.content ?? "")).length,
      stance_reversal: reversal !== undefined,
      closing_positive: lastUser === undefined ? null : POSITIVE_CLOSE.test(normalise(turns[lastUser]?.content ?? "")),
      task_category: trace.task_category ?? null,
      fit_prior_style: trace.task_category === undefined ? null : FIT_PRIOR[trace.task_category]
    },
    highlights
  )
}
