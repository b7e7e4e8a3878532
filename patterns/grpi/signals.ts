/**
 * GRPI signals. Beckhard's model is a cascade: goals first, then roles, then processes, then
 * interpersonal relationships, and a gap higher up shows as trouble lower down. The request is
 * a plan, not a run, so the signals measure what the request *specifies* at each level: whether
 * the goal is checkable, whether each agent's role is described, distinct, and includes a decision
 * owner and a verifier, whether handoffs, stop rules, deadlines, budgets and escalation are stated, and
 * whether any norm for disagreement or uncertainty exists. They are lexical coverage checks of
 * the text, not a verdict: the model decides whether a gap matters.
 */
import type { Signals } from "../../src/Catalogue/Detection.js"
import { type Highlight, mean, ratio, round, signals, wordCount } from "../../src/Catalogue/SignalKit.js"

export interface GrpiTrace {
  readonly task: string
  readonly agents: ReadonlyArray<{
    readonly name: string
    readonly description: string
    readonly tools?: ReadonlyArray<string> | undefined
  }>
  readonly constraints?: ReadonlyArray<string> | undefined
  readonly success_criteria?: ReadonlyArray<string> | undefined
}

const STOPWORDS = new Set([
  "the", "and", "for", "with", "from", "that", "this", "into", "our", "your", "its", "are", "was", "were",
  "will", "has", "have", "had", "any", "all", "each", "every", "than", "then", "them", "they", "their",
  "who", "what", "when", "which", "also", "not", "but", "can", "may", "should", "must", "agent", "agents"
])

/** Content tokens, crudely stemmed to their first five letters so `searches` and `search` meet. */
export const contentTokens = (text: string): Set<string> =>
  new Set(
    text
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter((word) => word.length >= 3 && !STOPWORDS.has(word))
      .map((word) => word.slice(0, 5))
  )

/** Jaccard similarity of two token sets (0 when both are empty). */
export const jaccard = (a: ReadonlySet<string>, b: ReadonlySet<string>): number => {
  if (a.size === 0 && b.size === 0) return 0
  let shared = 0
  for (const token of a) if (b.has(token)) shared += 1
  return round(shared / (a.size + b.size - shared))
}

/** Role-overlap pairs listed in the signals (their agents are all highlighted); the first in agent order. */
export const MAX_OVERLAP_PAIRS = 50

/**
 * The agents whose descriptions overlap (Jaccard of their content tokens ≥ 0.25, as `jaccard`
 * rounds it), the first such pairs, and the largest overlap of any two. Comparing every pair of
 * agents was quadratic (issue 27: 5,000 agents took most of a second); here identical
 * descriptions are compared once, and distinct ones only when they share a token, their shared
 * tokens counted through an index of which descriptions hold each token.
 */
const roleOverlaps = (tokens: ReadonlyArray<ReadonlySet<string>>) => {
  // Distinct non-empty token sets, in order of first holder, with their holders (ascending).
  const byKey = new Map<string, number>()
  const groups: Array<{ readonly set: ReadonlySet<string>; readonly holders: Array<number>; readonly similar: Array<number> }> = []
  const groupOf: Array<number> = []
  tokens.forEach((set, i) => {
    let g = -1
    if (set.size > 0) {
      const key = Array.from(set).sort().join(" ")
      g = byKey.get(key) ?? groups.length
      if (g === groups.length) {
        byKey.set(key, g)
        groups.push({ set, holders: [], similar: [] })
      }
      groups[g]?.holders.push(i)
    }
    groupOf.push(g)
  })
  // Two agents with the same description overlap fully (jaccard 1).
  let maxOverlap = groups.some((group) => group.holders.length > 1) ? 1 : 0
  const postings = new Map<string, Array<number>>()
  // Shared tokens with each earlier description, and which ones have any (reset after each).
  const shared = new Int32Array(groups.length)
  const touched: Array<number> = []
  groups.forEach((group, g) => {
    for (const token of group.set) {
      const holders = postings.get(token)
      if (holders === undefined) postings.set(token, [g])
      else {
        for (const h of holders) {
          if (shared[h] === 0) touched.push(h)
          shared[h] = (shared[h] ?? 0) + 1
        }
        holders.push(g)
      }
    }
    for (const h of touched) {
      const count = shared[h] ?? 0
      shared[h] = 0
      const other = groups[h]
      if (other === undefined) continue
      // jaccard's own arithmetic, from the count of shared tokens.
      const similarity = round(count / (group.set.size + other.set.size - count))
      maxOverlap = Math.max(maxOverlap, similarity)
      if (similarity >= 0.25) {
        group.similar.push(h)
        other.similar.push(g)
      }
    }
    touched.length = 0
  })
  const overlapping = tokens.flatMap((_, i) => {
    const group = groups[groupOf[i] ?? -1]
    return group !== undefined && (group.holders.length > 1 || group.similar.length > 0) ? [i] : []
  })
  // The first pairs (i < j) in agent order: for each agent, the next holders of its own and of
  // similar descriptions, only as many as the list still takes.
  const pairs: Array<readonly [number, number]> = []
  for (const i of overlapping) {
    const remaining = MAX_OVERLAP_PAIRS - pairs.length
    if (remaining <= 0) break
    const group = groups[groupOf[i] ?? -1]
    if (group === undefined) continue
    const later: Array<number> = []
    for (const g of [groupOf[i] ?? -1, ...group.similar]) {
      const holders = groups[g]?.holders ?? []
      let low = 0
      let high = holders.length
      while (low < high) {
        const mid = (low + high) >> 1
        if ((holders[mid] ?? 0) <= i) low = mid + 1
        else high = mid
      }
      later.push(...holders.slice(low, low + remaining))
    }
    later.sort((a, b) => a - b)
    for (const j of later.slice(0, remaining)) pairs.push([i, j])
  }
  return { pairs, overlapping, maxOverlap }
}

const VAGUE = /\b(good|better|best|nice|great|high[- ]quality|robust|optimal|optimi[sz]e|appropriate(ly)?|as needed|etc|various|comprehensive|thorough(ly)?|properly|efficient(ly)?|asap|user[- ]friendly|seamless(ly)?)\b/gi
const CHECKABLE = /\d|%|\b(at least|at most|no more than|fewer than|more than|less than|within|before|deadline|every|each|zero|none|must (include|name|cite|pass|return|state|list|contain))\b/i
const DECISION_OWNER = /\b(decid\w*|approv\w*|final (say|call|decision|answer|recommendation)|sign(s)?[- ]off|owner|owns|accountable|authority|chooses?|selects?|arbitrat\w*)\b/i
const VERIFIER = /\b(review\w*|verif\w*|check\w*|test\w*|validat\w*|qa|critic\w*|critique\w*|audit\w*|evaluat\w*|fact[- ]check\w*)\b/i
const HANDOFF = /\b(hand(s|ed)? (off|over)|handoff|passes? (it )?(to|on)|sends? (it )?to|receives? (\w+ )?from|reports? to|after (the|it|they)|then|in order|sequence|format|schema|json|template)\b/i
const TERMINATION = /\b(stop (when|after|if)|done when|until|max(imum)? (of )?\d* ?(rounds?|iterations?|turns?|steps?|revisions?)|at most \d+ (rounds?|iterations?|turns?|revisions?|drafts?)|time ?box(ed)?|terminat\w*)\b/i
const DEADLINE = /\b(deadline|due|by (mon|tues|wednes|thurs|fri|satur|sun)day|by (end of|eod|eow)|by \d{4}-\d{2}-\d{2})\b/i
const BUDGET = /\b(budget|at most|no more than|limit(ed)?|cap(ped)?|max(imum)?|quota)\b/i
const ESCALATION = /\b(escalat\w*|human|ask the user|operator|on[- ]call|page (the|a))\b/i
const DISSENT = /\b(disagree\w*|challenge\w*|objection|object|dissent\w*|push back|raise concerns?|contest\w*|counter[- ]?argument)\b/i
const UNCERTAINTY = /\b(uncertain\w*|confidence|flag\w*|ask (for )?clarification|clarify\w*|unknowns?|not sure|unsure|assumption)\b/i

const levelNames = ["goals", "roles", "processes", "interpersonal"] as const

export const grpiSignals = (trace: GrpiTrace): Signals => {
  const agents = trace.agents
  const constraints = trace.constraints ?? []
  const criteria = trace.success_criteria ?? []
  const allText = [trace.task, ...constraints, ...criteria, ...agents.map((a) => a.description)]

  // Goals: is the goal checkable?
  const vagueTerms = [...new Set((trace.task.match(VAGUE) ?? []).map((term) => term.toLowerCase()))]
  const taskCheckable = CHECKABLE.test(trace.task) || DEADLINE.test(trace.task)
  const checkableCriteria = criteria.flatMap((c, i) => (CHECKABLE.test(c) ? [i] : []))
  const checkableShare = ratio(checkableCriteria.length, criteria.length)

  // Roles: described, distinct, owned, verified.
  const descriptionWords = agents.map((a) => wordCount(a.description))
  const empty = agents.flatMap((a, i) => (a.description.trim().length === 0 ? [i] : []))
  const short = agents.flatMap((a, i) => (a.description.trim().length > 0 && (descriptionWords[i] ?? 0) < 6 ? [i] : []))
  const nameCounts = new Map<string, number>()
  for (const a of agents) nameCounts.set(a.name.toLowerCase(), (nameCounts.get(a.name.toLowerCase()) ?? 0) + 1)
  const duplicateNames = [...nameCounts.entries()].filter(([, n]) => n > 1).map(([name]) => name)
  const { pairs, overlapping, maxOverlap } = roleOverlaps(agents.map((a) => contentTokens(a.description)))
  const overlapPairs = pairs.map(([i, j]) => `${agents[i]?.name ?? ""}~${agents[j]?.name ?? ""}`)
  const owners = agents.filter((a) => DECISION_OWNER.test(a.description)).map((a) => a.name)
  const verifiers = agents.filter((a) => VERIFIER.test(a.description)).map((a) => a.name)
  const toolHolders = new Map<string, number>()
  for (const a of agents) for (const tool of new Set(a.tools ?? [])) toolHolders.set(tool, (toolHolders.get(tool) ?? 0) + 1)
  const sharedTools = [...toolHolders.entries()].filter(([, n]) => n > 1).map(([tool]) => tool)

  // Processes: handoffs, stop rule, budget, escalation.
  const withHandoff = agents.filter((a) => HANDOFF.test(a.description)).length
  const hasTermination = allText.some((t) => TERMINATION.test(t))
  const hasDeadline = [trace.task, ...constraints, ...criteria].some((t) => DEADLINE.test(t))
  const hasBudget = [trace.task, ...constraints].some((t) => BUDGET.test(t))
  const hasEscalation = allText.some((t) => ESCALATION.test(t))

  // Interpersonal: norms for disagreement and uncertainty.
  const hasDissentNorm = allText.some((t) => DISSENT.test(t))
  const hasUncertaintyNorm = allText.some((t) => UNCERTAINTY.test(t))

  const describedShare = ratio(agents.length - empty.length - short.length, agents.length)
  const coverage = {
    goals: round(
      (criteria.length > 0 ? 0.4 : 0) + 0.3 * checkableShare + (taskCheckable ? 0.15 : 0) + (vagueTerms.length === 0 ? 0.15 : 0)
    ),
    roles: round(
      0.3 * describedShare +
        0.3 * (duplicateNames.length > 0 ? 0 : 1 - maxOverlap) +
        (owners.length > 0 ? 0.2 : 0) +
        (verifiers.length > 0 ? 0.2 : 0)
    ),
    processes: round(
      0.4 * ratio(withHandoff, agents.length) + (hasTermination ? 0.3 : 0) + (hasEscalation ? 0.15 : 0) + (hasBudget ? 0.15 : 0)
    ),
    interpersonal: round((hasDissentNorm ? 0.5 : 0) + (hasUncertaintyNorm ? 0.5 : 0))
  }
  const firstGap = levelNames.find((level) => coverage[level] < 0.5) ?? "none"

  const highlights: Array<Highlight> = [
    ...(vagueTerms.length > 0 ? [{ ref: "task", reason: `vague goal wording: ${vagueTerms.join(", ")}` }] : []),
    ...empty.map((i) => ({ ref: `agents[${i}]`, reason: "agent has no description: its role is undefined" })),
    ...short.map((i) => ({ ref: `agents[${i}]`, reason: "agent description under six words: role barely defined" })),
    ...overlapping.map((i) => ({ ref: `agents[${i}]`, reason: "description overlaps another agent's (possible duplicated responsibility)" })),
    ...criteria.flatMap((c, i) =>
      CHECKABLE.test(c) ? [] : [{ ref: `success_criteria[${i}]`, reason: "criterion has no number, threshold or checkable condition" }]
    )
  ]

  return signals(
    {
      agent_count: agents.length,
      task_words: wordCount(trace.task),
      task_vague_terms: vagueTerms,
      task_checkable: taskCheckable,
      success_criteria_count: criteria.length,
      checkable_criteria_share: checkableShare,
      constraints_count: constraints.length,
      agents_without_description: empty.length,
      short_descriptions: short.length,
      mean_description_words: mean(descriptionWords) ?? 0,
      duplicate_agent_names: duplicateNames,
      role_overlap_pairs: overlapPairs,
      max_role_overlap: maxOverlap,
      decision_owner_agents: owners,
      verifier_agents: verifiers,
      agents_with_handoff: withHandoff,
      has_deadline: hasDeadline,
      has_stop_rule: hasTermination,
      has_budget: hasBudget,
      has_escalation_path: hasEscalation,
      has_dissent_norm: hasDissentNorm,
      has_uncertainty_norm: hasUncertaintyNorm,
      shared_tools: sharedTools,
      level_coverage: coverage,
      first_unspecified_level: firstGap
    },
    highlights
  )
}
