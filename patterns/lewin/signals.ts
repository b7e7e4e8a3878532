/**
 * Lewin / Kelley signals. Kelley's covariance model predicts the attribution from three
 * judgements (consensus, distinctiveness, consistency); the trace's error steps are split by
 * whether their wording points at the environment (tools, network, quotas) or at the agent
 * (its own reasoning and output).
 */
import type { Signals } from "../../src/Catalogue/Detection.js"
import { errorIndices, ratio, signals, stepStats } from "../../src/Catalogue/SignalKit.js"

export interface LewinTrace {
  readonly steps: ReadonlyArray<{ readonly type: string; readonly content: string; readonly tool?: string | undefined }>
  readonly individual_factors?: ReadonlyArray<string> | undefined
  readonly environmental_factors?: ReadonlyArray<string> | undefined
  readonly covariance?:
    | { readonly consensus: number; readonly distinctiveness: number; readonly consistency: number }
    | undefined
}

const ENVIRONMENTAL = /\b(timeout|timed out|rate.?limit|429|5\d\d|unavailable|connection|network|quota|permission denied|forbidden|not found|dns|schema changed|deprecated)\b/i
const INTERNAL = /\b(hallucinat\w*|misread|misunderst\w*|wrong (format|tool|argument)|invalid json|assum\w*|forgot|ignored|skipped|loop\w*)\b/i

/** Kelley (1967): the attribution the covariance pattern predicts, or null without covariance. */
export const kelleyPrediction = (
  covariance: LewinTrace["covariance"]
): "internal" | "environmental" | "circumstance" | "mixed" | null => {
  if (covariance === undefined) return null
  const high = (x: number) => x >= 0.5
  const { consensus, distinctiveness, consistency } = covariance
  if (!high(consistency)) return "circumstance"
  if (high(consensus) && high(distinctiveness)) return "environmental"
  if (!high(consensus) && !high(distinctiveness)) return "internal"
  return "mixed"
}

export const lewinSignals = (trace: LewinTrace): Signals => {
  const base = stepStats(trace.steps)
  const errors = errorIndices(trace.steps)
  const environmental = errors.filter((i) => ENVIRONMENTAL.test(trace.steps[i]?.content ?? ""))
  const internal = trace.steps.flatMap((step, i) => (INTERNAL.test(step.content) ? [i] : []))
  const individual = trace.individual_factors?.length ?? 0
  const environmentalFactors = trace.environmental_factors?.length ?? 0
  return signals(
    {
      ...base.values,
      environmental_error_steps: environmental.length,
      internal_marker_steps: internal.length,
      environmental_share_of_errors: ratio(environmental.length, errors.length),
      individual_factors: individual,
      environmental_factors: environmentalFactors,
      factor_balance: individual + environmentalFactors === 0 ? null : ratio(individual, individual + environmentalFactors),
      kelley_prediction: kelleyPrediction(trace.covariance)
    },
    [
      ...environmental.map((i) => ({ ref: `steps[${i}]`, reason: "error worded as an environmental cause" })),
      ...internal.map((i) => ({ ref: `steps[${i}]`, reason: "wording points at the agent's own reasoning" })),
      ...base.highlights
    ]
  )
}
