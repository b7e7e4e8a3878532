/**
 * Superflocks signals (Muir 1996; Heffernan 2014). Muir's hens bred from the most productive
 * individuals did worse as a flock than hens selected as whole groups; Heffernan drew the lesson
 * for organisations that route everything to their stars. For an agent router the measurable
 * quantities are how concentrated routing is (top-agent share, Gini, Herfindahl index, effective
 * number of agents), whether the star is chosen even when alternatives are offered, how many
 * decisions have no fallback, how failures distribute across agents, and whether concentration
 * grows over the window.
 */
import type { Signals } from "../../src/Catalogue/Detection.js"
import { gini, type Highlight, longestRun, mean, ratio, round, signals } from "../../src/Catalogue/SignalKit.js"

export interface SuperflocksTrace {
  readonly agents: ReadonlyArray<string>
  readonly routing_decisions: ReadonlyArray<{
    readonly task_id: string
    readonly routed_to: string
    readonly candidates?: ReadonlyArray<string> | undefined
    readonly outcome?: string | undefined
  }>
  readonly individual_scores?: ReadonlyArray<{ readonly agent: string; readonly score: number }> | undefined
}

const FAILURE = /\b(fail\w*|error\w*|time[sd]? ?out|timeout|rate[- ]?limit\w*|429|5\d\d|reject\w*|escalat\w*|reopen\w*|wrong|incorrect|abandon\w*|breach\w*|unresolved)\b/i
const SUCCESS = /\b(success\w*|resolved|ok|pass(ed)?|accepted|done|completed|closed|merged)\b/i

/** Reads a free-text routing outcome as a failure, a success, or unknown (failure wording wins). */
export const outcomeClass = (outcome: string | undefined): "failure" | "success" | "unknown" => {
  if (outcome === undefined || outcome.trim().length === 0) return "unknown"
  if (FAILURE.test(outcome)) return "failure"
  if (SUCCESS.test(outcome)) return "success"
  return "unknown"
}

export const superflocksSignals = (trace: SuperflocksTrace): Signals => {
  const decisions = trace.routing_decisions
  const roster = [...new Set([...trace.agents, ...decisions.map((d) => d.routed_to)])]
  const listed = new Set(trace.agents)
  const counts: Record<string, number> = {}
  for (const agent of roster) counts[agent] = 0
  for (const d of decisions) counts[d.routed_to] = (counts[d.routed_to] ?? 0) + 1
  const shares: Record<string, number> = {}
  for (const agent of roster) shares[agent] = ratio(counts[agent] ?? 0, decisions.length)

  const top = roster.reduce<string | null>((best, agent) => (best === null || (counts[agent] ?? 0) > (counts[best] ?? 0) ? agent : best), null)
  const topShare = top === null ? 0 : (shares[top] ?? 0)
  const hhi = round(roster.reduce((sum, agent) => sum + (shares[agent] ?? 0) ** 2, 0))
  const routingGini = gini(roster.map((agent) => counts[agent] ?? 0))

  const topIndices = decisions.flatMap((d, i) => (d.routed_to === top ? [i] : []))
  const half = Math.ceil(decisions.length / 2)
  const firstHalf = decisions.slice(0, half)
  const secondHalf = decisions.slice(half)
  const shareIn = (part: typeof decisions) => ratio(part.filter((d) => d.routed_to === top).length, part.length)

  const withCandidates = decisions.flatMap((d, i) => (d.candidates !== undefined && d.candidates.length > 0 ? [i] : []))
  const withAlternatives = withCandidates.filter((i) => {
    const candidates = decisions[i]?.candidates ?? []
    return top !== null && candidates.includes(top) && new Set(candidates).size >= 2
  })
  const noFallback = withCandidates.filter((i) => {
    const d = decisions[i]
    return d !== undefined && (d.candidates ?? []).every((c) => c === d.routed_to)
  })

  const classes = decisions.map((d) => outcomeClass(d.outcome))
  // Known outcomes per agent in one pass (a pass per agent was agents × decisions, issue 27).
  const known = new Map<string, { count: number; failed: number }>()
  decisions.forEach((d, i) => {
    const c = classes[i]
    if (c === undefined || c === "unknown") return
    const tally = known.get(d.routed_to) ?? { count: 0, failed: 0 }
    known.set(d.routed_to, tally)
    tally.count += 1
    if (c === "failure") tally.failed += 1
  })
  const failureRate = (agent: string): number | null => {
    const tally = known.get(agent)
    return tally === undefined ? null : ratio(tally.failed, tally.count)
  }
  const failureByAgent: Record<string, number | null> = {}
  for (const agent of roster) failureByAgent[agent] = failureRate(agent)
  const failures = classes.flatMap((c, i) => (c === "failure" ? [i] : []))
  const topFailures = failures.filter((i) => decisions[i]?.routed_to === top)
  const onTop = new Set(topFailures)
  const othersKnown = decisions.flatMap((d, i) => (d.routed_to !== top && classes[i] !== "unknown" ? [classes[i]] : []))

  const scores = trace.individual_scores ?? []
  const topScored = scores.reduce<{ agent: string; score: number } | null>((best, s) => (best === null || s.score > best.score ? s : best), null)

  const idle = trace.agents.flatMap((agent, i) => ((counts[agent] ?? 0) === 0 ? [{ agent, i }] : []))
  const highlights: Array<Highlight> = [
    ...topFailures.map((i) => ({ ref: `routing_decisions[${i}]`, reason: "failure on the most-routed agent" })),
    ...noFallback.map((i) => ({ ref: `routing_decisions[${i}]`, reason: "no candidate other than the chosen agent: no fallback" })),
    ...idle.map(({ i }) => ({ ref: `agents[${i}]`, reason: "agent never routed to in the window" })),
    ...failures.filter((i) => !onTop.has(i)).map((i) => ({ ref: `routing_decisions[${i}]`, reason: "failure on another agent" }))
  ]

  return signals(
    {
      decision_count: decisions.length,
      agent_count: roster.length,
      routed_counts: counts,
      routed_shares: shares,
      top_agent: top,
      top_agent_share: topShare,
      routing_gini: routingGini,
      herfindahl_index: hhi,
      effective_agents: hhi === 0 ? 0 : round(1 / hhi),
      concentration: routingGini >= 0.6 ? "high" : routingGini >= 0.3 ? "moderate" : "low",
      idle_agents: idle.map(({ agent }) => agent),
      unlisted_routees: roster.filter((agent) => !listed.has(agent)),
      longest_top_streak: longestRun(topIndices),
      top_share_first_half: shareIn(firstHalf),
      top_share_second_half: shareIn(secondHalf),
      decisions_with_candidates: withCandidates.length,
      mean_candidates: mean(withCandidates.map((i) => new Set(decisions[i]?.candidates ?? []).size)) ?? 0,
      top_chosen_when_alternatives: ratio(
        withAlternatives.filter((i) => decisions[i]?.routed_to === top).length,
        withAlternatives.length
      ),
      no_fallback_share: ratio(noFallback.length, withCandidates.length),
      outcomes_known_share: ratio(classes.filter((c) => c !== "unknown").length, decisions.length),
      failure_rate_by_agent: failureByAgent,
      top_agent_failure_rate: top === null ? null : (failureByAgent[top] ?? null),
      others_failure_rate:
        othersKnown.length === 0 ? null : ratio(othersKnown.filter((c) => c === "failure").length, othersKnown.length),
      failure_share_on_top: ratio(topFailures.length, failures.length),
      top_agent_is_top_scored: topScored === null || top === null ? null : topScored.agent === top
    },
    highlights
  )
}
