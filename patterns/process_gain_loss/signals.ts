/**
 * Process gain/loss signals (Steiner 1972). Actual productivity = potential productivity − process
 * losses. The potential depends on the task type: a disjunctive task (one right answer suffices)
 * can reach the best member's quality, a conjunctive one only the weakest member's, a compensatory
 * one the mean, an additive one (bounded here at 1) the sum. Against the solo baselines the team
 * shows strong synergy (above the best member), weak synergy (above the mean), or a loss (Larson
 * 2010's terms). The optional interaction log is scanned for the usual loss mechanisms:
 * aggregation steps, conformity, challenges, errors and repeats.
 */
import type { Signals } from "../../src/Catalogue/Detection.js"
import {
  countBy,
  errorIndices,
  type Highlight,
  mean,
  ratio,
  repeatedIndices,
  round,
  signals
} from "../../src/Catalogue/SignalKit.js"

export type TaskType = "disjunctive" | "conjunctive" | "additive" | "compensatory" | "discretionary"

export interface ProcessGainLossTrace {
  readonly individual_baselines: ReadonlyArray<{
    readonly agent: string
    readonly quality: number
    readonly cost?: number | undefined
  }>
  readonly team_result: { readonly quality: number; readonly cost?: number | undefined }
  readonly interaction_log?:
    | ReadonlyArray<{ readonly from: string; readonly content: string; readonly type?: string | undefined }>
    | undefined
  readonly task_type?: TaskType | undefined
}

/** Steiner's potential productivity for a task type, from the members' solo qualities (0..1). */
export const potentialProductivity = (taskType: TaskType, qualities: ReadonlyArray<number>): number => {
  if (qualities.length === 0) return 0
  switch (taskType) {
    case "conjunctive":
      return round(Math.min(...qualities))
    case "compensatory":
      return mean(qualities) ?? 0
    case "additive":
      return round(Math.min(1, qualities.reduce((a, b) => a + b, 0)))
    case "disjunctive":
    case "discretionary":
      return round(Math.max(...qualities))
  }
}

const TOLERANCE = 0.005

/** Larson's synergy reading of the team result against the best, mean and worst member. */
export const synergy = (
  team: number,
  best: number,
  meanQuality: number,
  worst: number
): "strong_synergy" | "weak_synergy" | "par" | "below_mean" | "below_worst" => {
  if (team > best + TOLERANCE) return "strong_synergy"
  if (team > meanQuality + TOLERANCE) return "weak_synergy"
  if (team < worst - TOLERANCE) return "below_worst"
  if (team < meanQuality - TOLERANCE) return "below_mean"
  return "par"
}

const CONFORMITY = /\b(i agree|you('| a)re right|i('ll| will) go with|go with the (majority|consensus|group)|i defer|changing my (answer|vote|position)|i (revise|change|withdraw) my|on reflection|fair enough|happy to go along)\b/i
const CHALLENGE = /\b(i disagree|that('s| is) (wrong|incorrect|not right)|are you sure|this (fails|breaks)|does(n'| no)t (work|pass|hold)|hide[sd]? the (error|problem)|counter[- ]?example|objection)\b/i
const AGGREGATION = /\b(majority|vot(e|es|ed|ing)|consensus|averag(e|ed|ing)|merg(e|ed|ing)|combin(e|ed|ing)|tally|final answer|select(ed)? (proposal|answer|patch))\b/i

export const processGainLossSignals = (trace: ProcessGainLossTrace): Signals => {
  const baselines = trace.individual_baselines
  const qualities = baselines.map((b) => b.quality)
  const bestIndex = qualities.reduce((best, q, i) => (q > (qualities[best] ?? -1) ? i : best), 0)
  const best = baselines[bestIndex]
  const bestQuality = best?.quality ?? 0
  const worst = qualities.length === 0 ? 0 : Math.min(...qualities)
  const meanQuality = mean(qualities) ?? 0
  const taskType: TaskType = trace.task_type ?? "disjunctive"
  const potential = potentialProductivity(taskType, qualities)
  const team = trace.team_result.quality
  const loss = Math.max(0, potential - team)

  const teamCost = trace.team_result.cost ?? null
  const bestCost = best?.cost ?? null
  const costRatio = teamCost !== null && bestCost !== null && bestCost > 0 ? round(teamCost / bestCost) : null

  const log = trace.interaction_log ?? []
  const hasLog = trace.interaction_log !== undefined && log.length > 0
  const conformity = log.flatMap((m, i) => (CONFORMITY.test(m.content) ? [i] : []))
  const challenges = log.flatMap((m, i) => (CHALLENGE.test(m.content) ? [i] : []))
  const aggregation = log.flatMap((m, i) => (AGGREGATION.test(m.content) ? [i] : []))
  const errors = errorIndices(log)
  const repeats = repeatedIndices(log.map((m) => m.content))
  const speakers = new Set(log.map((m) => m.from))
  const bestName = best?.agent ?? ""
  const bestMessages = log.filter((m) => m.from === bestName).length
  const bestConformity = conformity.filter((i) => log[i]?.from === bestName)
  const lastSpeaker = log.length === 0 ? null : (log[log.length - 1]?.from ?? null)

  const highlights: Array<Highlight> = [
    ...(best === undefined ? [] : [{ ref: `individual_baselines[${bestIndex}]`, reason: "best solo baseline: the potential a disjunctive task could reach" }]),
    ...(team < potential - TOLERANCE ? [{ ref: "team_result", reason: `team quality ${team} below potential ${potential}` }] : []),
    ...bestConformity.map((i) => ({ ref: `interaction_log[${i}]`, reason: "the best solo performer conforms to the group" })),
    ...aggregation.map((i) => ({ ref: `interaction_log[${i}]`, reason: "aggregation step: where member answers are combined" })),
    ...conformity.map((i) => ({ ref: `interaction_log[${i}]`, reason: "conformity marker" })),
    ...challenges.map((i) => ({ ref: `interaction_log[${i}]`, reason: "challenge of another member's answer" })),
    ...errors.map((i) => ({ ref: `interaction_log[${i}]`, reason: "reads as an error" })),
    ...repeats.map((i) => ({ ref: `interaction_log[${i}]`, reason: "repeats an earlier message" }))
  ]

  return signals(
    {
      members: baselines.length,
      task_type: taskType,
      task_type_assumed: trace.task_type === undefined,
      best_individual: best?.agent ?? null,
      best_individual_quality: round(bestQuality),
      mean_individual_quality: meanQuality,
      worst_individual_quality: round(worst),
      baseline_spread: round(bestQuality - worst),
      team_quality: round(team),
      potential_productivity: potential,
      net_vs_potential: round(team - potential),
      process_loss: round(loss),
      relative_process_loss: ratio(loss, potential),
      gain_vs_best: round(team - bestQuality),
      gain_vs_mean: round(team - meanQuality),
      synergy: synergy(team, bestQuality, meanQuality, worst),
      team_cost: teamCost,
      best_individual_cost: bestCost,
      cost_ratio_vs_best: costRatio,
      log_messages: log.length,
      messages_per_agent: countBy(log, (m) => m.from),
      best_member_message_share: hasLog ? ratio(bestMessages, log.length) : null,
      silent_members: hasLog ? baselines.map((b) => b.agent).filter((agent) => !speakers.has(agent)) : [],
      conformity_messages: conformity.length,
      best_member_conformity: bestConformity.length,
      challenge_messages: challenges.length,
      aggregation_messages: aggregation.length,
      error_messages: errors.length,
      repeated_messages: repeats.length,
      last_speaker: lastSpeaker
    },
    highlights
  )
}
