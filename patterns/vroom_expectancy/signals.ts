/**
 * Vroom signals. Motivational force = E × I × V: expectancy (effort leads to performance),
 * instrumentality (performance leads to the reward) and valence (how much the reward is sought).
 * What the trace makes computable is computed: E from effort signals whose performance is known,
 * I from those that reached the performance and whose reward is known, V from the declared
 * reward, and the force only when all three are known. The rate of rewards that followed *missed*
 * performance shows a reward decoupled from the task, the condition for force to flow to a proxy.
 */
import type { Signals } from "../../src/Catalogue/Detection.js"
import { type Highlight, ratio, round, signals, contentWords as kitContentWords } from "../../src/Catalogue/SignalKit.js"

export type Performance = "achieved" | "partial" | "missed"

export interface EffortSignal {
  readonly signal: string
  readonly amount?: number | undefined
  readonly unit?: string | undefined
  readonly performance?: Performance | undefined
  readonly rewarded?: boolean | undefined
}

export interface VroomTrace {
  readonly task: string
  readonly observed_behaviors: ReadonlyArray<string>
  readonly effort_signals: ReadonlyArray<EffortSignal>
  readonly declared_reward?:
    | { readonly description: string; readonly contingent_on?: string | undefined; readonly valence?: number | undefined }
    | undefined
}

/** Content words of a text (SignalKit's definition, re-exported for this pattern's tests). */
export const contentWords = (text: string): Array<string> => kitContentWords(text)

/** Share of the task's content words that the reward's contingency mentions (0 = the reward checks something else). */
export const contingencyOverlap = (task: string, contingentOn: string): number => {
  const taskWords = contentWords(task)
  const contingency = new Set(contentWords(contingentOn))
  return ratio(taskWords.filter((w) => contingency.has(w)).length, taskWords.length)
}

export const MARKERS = {
  expectancy_doubt:
    /\b(won'?t work|will not work|unlikely to (work|succeed|pass)|no way to|can'?t be fixed|cannot be fixed|not going to (work|pass)|impossible|hopeless|out of ideas|give up)\b/i,
  instrumentality_doubt:
    /\b(doesn'?t matter|does not matter|won'?t be (checked|reviewed|noticed|tested)|not (checked|reviewed|verified|graded)|nobody (checks|reviews|reads)|regardless|either way|counts as (done|complete|a success)|only (checks|looks at))\b/i,
  valence_low: /\b(not worth|don'?t care|pointless|no (benefit|point)|waste of (time|effort)|not (rewarded|scored|counted))\b/i,
  effort_reduction: /\b(skip\w*|stub\w*|placeholder|todo|minimal|shortcut|quick fix|hack\w*|workaround|mock(ed)? out)\b/i,
  proxy_gaming:
    /\b(changed the (expected|assert\w*|test)|edit(ed)? the test|updated the (snapshot|expected)|hard-?cod\w*|special[- ]cas\w*|disabled (the )?(test|check|lint)\w*|to make (ci|the tests?|it) (green|pass)|(marked|set) (it |the ticket |the task )?(as |to )?(done|complete|resolved))\b/i
} as const
export type Marker = keyof typeof MARKERS
const MARKER_KEYS: ReadonlyArray<Marker> = ["expectancy_doubt", "instrumentality_doubt", "valence_low", "effort_reduction", "proxy_gaming"]

const PERFORMANCE_VALUE: Readonly<Record<Performance, number>> = { achieved: 1, partial: 0.5, missed: 0 }

/** The Vroom components the trace makes computable, and the force when all three are known. */
export const vroomComponents = (trace: Pick<VroomTrace, "effort_signals" | "declared_reward">) => {
  const known = trace.effort_signals.flatMap((s) => (s.performance === undefined ? [] : [s.performance]))
  const expectancy = known.length === 0 ? null : ratio(known.reduce((sum, p) => sum + PERFORMANCE_VALUE[p], 0), known.length)
  const achievedWithReward = trace.effort_signals.filter((s) => s.performance === "achieved" && s.rewarded !== undefined)
  const instrumentality =
    achievedWithReward.length === 0 ? null : ratio(achievedWithReward.filter((s) => s.rewarded === true).length, achievedWithReward.length)
  const missedWithReward = trace.effort_signals.filter((s) => s.performance === "missed" && s.rewarded !== undefined)
  const rewardWithoutPerformance =
    missedWithReward.length === 0 ? null : ratio(missedWithReward.filter((s) => s.rewarded === true).length, missedWithReward.length)
  const valence = trace.declared_reward?.valence ?? null
  const ei = expectancy === null || instrumentality === null ? null : round(expectancy * instrumentality)
  const force = ei === null || valence === null ? null : round(ei * valence)
  return { expectancy, instrumentality, valence, rewardWithoutPerformance, ei, force, performanceKnown: known.length }
}

export const vroomSignals = (trace: VroomTrace): Signals => {
  const components = vroomComponents(trace)
  const effortByUnit: Record<string, number> = {}
  for (const s of trace.effort_signals) {
    if (s.amount === undefined) continue
    const unit = s.unit === undefined || s.unit.trim().length === 0 ? "units" : s.unit.trim()
    effortByUnit[unit] = round((effortByUnit[unit] ?? 0) + s.amount)
  }
  const count = (p: Performance) => trace.effort_signals.filter((s) => s.performance === p).length
  const highlights: Array<Highlight> = []
  trace.effort_signals.forEach((s, i) => {
    if (s.performance === "missed" && s.rewarded === true) {
      highlights.push({ ref: `effort_signals[${i}]`, reason: "rewarded although the performance was missed" })
    } else if (s.performance === "achieved" && s.rewarded === false) {
      highlights.push({ ref: `effort_signals[${i}]`, reason: "performance achieved but not rewarded" })
    }
  })
  const markerCounts: Record<Marker, number> = {
    expectancy_doubt: 0,
    instrumentality_doubt: 0,
    valence_low: 0,
    effort_reduction: 0,
    proxy_gaming: 0
  }
  trace.observed_behaviors.forEach((behavior, i) => {
    const hits = MARKER_KEYS.filter((key) => MARKERS[key].test(behavior))
    for (const key of hits) markerCounts[key] += 1
    if (hits.length > 0) highlights.push({ ref: `observed_behaviors[${i}]`, reason: `worded as ${hits.join(", ")}` })
  })
  const computable = [
    ...(components.expectancy === null ? [] : ["expectancy"]),
    ...(components.instrumentality === null ? [] : ["instrumentality"]),
    ...(components.valence === null ? [] : ["valence"])
  ]
  const contingentOn = trace.declared_reward?.contingent_on

  return signals(
    {
      behavior_count: trace.observed_behaviors.length,
      effort_signal_count: trace.effort_signals.length,
      effort_by_unit: effortByUnit,
      performance_known: components.performanceKnown,
      performance_achieved: count("achieved"),
      performance_partial: count("partial"),
      performance_missed: count("missed"),
      expectancy_observed: components.expectancy,
      instrumentality_observed: components.instrumentality,
      reward_without_performance_rate: components.rewardWithoutPerformance,
      valence_declared: components.valence,
      expectancy_x_instrumentality: components.ei,
      motivational_force: components.force,
      computable_components: computable,
      has_declared_reward: trace.declared_reward !== undefined,
      reward_task_overlap:
        contingentOn === undefined || contingentOn.trim().length === 0 ? null : contingencyOverlap(trace.task, contingentOn),
      behavior_markers: markerCounts
    },
    highlights
  )
}
