/**
 * Yerkes-Dodson signals. The load score is computed here, from `pressure`, never by the model.
 * Each constraint becomes a pressure in 0..1: deadline = elapsed / limit, budget = spent / limit,
 * retry cap = (retries used + 1) / (cap + 1) (a cap of 0 makes every failure final),
 * context fill as given. Load = (mean + max) / 2 of the pressures present, so one saturated
 * constraint raises the load even when the others are slack. Complexity does not add load: as
 * in Yerkes and Dodson's discrimination experiments, it moves the optimum (the harder the task,
 * the lower the optimal arousal). The behaviour report is scanned for over-arousal markers
 * (retry loops, skipped checks, shortcuts, truncation) and under-arousal markers (shallow or
 * generic work, premature completion, tools not used).
 * `pressure.observed` (counted by code from a raw trace) adds no load: it is reported beside the
 * load as the strain the run showed (retries and errors per tool call), an estimate, not a limit.
 */
import type { Signals } from "../../src/Catalogue/Detection.js"
import { type Highlight, mean, repeatedIndices, round, signals } from "../../src/Catalogue/SignalKit.js"

export type Complexity = "low" | "medium" | "high"

export interface Pressure {
  readonly deadline?: { readonly limit_seconds: number; readonly elapsed_seconds: number } | undefined
  readonly budget?: { readonly limit: number; readonly spent: number; readonly unit?: string | undefined } | undefined
  readonly retry_cap?: { readonly cap: number; readonly used: number } | undefined
  readonly complexity?: Complexity | undefined
  readonly context_fill?: number | undefined
  readonly observed?:
    | { readonly retries: number; readonly errors: number; readonly tool_calls: number; readonly elapsed_seconds?: number | undefined }
    | undefined
}

export interface YerkesTrace {
  readonly observed_behaviors: ReadonlyArray<string>
  readonly success: boolean
  readonly pressure: Pressure
}

const clamp = (x: number): number => Math.min(1, Math.max(0, x))

export const PRESSURE_KEYS = ["deadline", "budget", "retry_cap", "context_fill"] as const
export type PressureKey = (typeof PRESSURE_KEYS)[number]

/** Each constraint as a pressure in 0..1, null when not given. */
export const pressureComponents = (pressure: Pressure): Record<PressureKey, number | null> => ({
  deadline: pressure.deadline === undefined
    ? null
    : round(clamp(pressure.deadline.elapsed_seconds / pressure.deadline.limit_seconds)),
  budget: pressure.budget === undefined ? null : round(clamp(pressure.budget.spent / pressure.budget.limit)),
  retry_cap: pressure.retry_cap === undefined
    ? null
    : round(clamp((pressure.retry_cap.used + 1) / (pressure.retry_cap.cap + 1))),
  context_fill: pressure.context_fill === undefined ? null : round(clamp(pressure.context_fill))
})

/** (mean + max) / 2 of the given pressures; null when none is given. */
export const loadScore = (components: Readonly<Record<PressureKey, number | null>>): number | null => {
  const given = PRESSURE_KEYS.flatMap((key) => {
    const value = components[key]
    return value === null ? [] : [value]
  })
  const average = mean(given)
  return average === null ? null : round((average + Math.max(...given)) / 2)
}

/** The optimal load band for a task's complexity: harder tasks peak at lower arousal. */
export const OPTIMAL_BAND: Readonly<Record<Complexity, readonly [number, number]>> = {
  low: [0.45, 0.8],
  medium: [0.3, 0.65],
  high: [0.15, 0.5]
}

export type Zone = "under" | "optimal" | "over" | "indeterminate"

export const zoneOf = (load: number | null, band: readonly [number, number]): Zone =>
  load === null ? "indeterminate" : load < band[0] ? "under" : load > band[1] ? "over" : "optimal"

export const OVER_AROUSAL =
  /\b(retr(y|ied|ies|ying)|loop\w*|re-?ran|repeat\w*|thrash\w*|rush\w*|hast\w*|panic\w*|timed? ?out|truncat\w*|abandon\w*|gave up|flip-?flop\w*|skipp(ed|ing)|@skip|guess\w*|shortcut\w*|cut corners|hard-?cod\w*|stubb?ed|without (testing|checking|verifying|reading)|lost track|only (read )?the (first|top|last) \d*)\b/i
export const UNDER_AROUSAL =
  /\b(minimal|shallow|generic|boilerplate|superficial|prematur\w*|stopped early|(did not|didn't|never) (use|call|check|verify|read|open|explore|run|look)|idle|lazy|low[- ]effort|terse|first (result|answer|hit)|placeholder|todo|left unfinished|no follow-?up|coast\w*)\b/i

export const yerkesSignals = (trace: YerkesTrace): Signals => {
  const behaviours = trace.observed_behaviors
  const components = pressureComponents(trace.pressure)
  const load = loadScore(components)
  const given = PRESSURE_KEYS.filter((key) => components[key] !== null)
  const peak = given.reduce<PressureKey | null>(
    (best, key) => (best === null || (components[key] ?? 0) > (components[best] ?? 0) ? key : best),
    null
  )
  const complexity = trace.pressure.complexity
  const band = OPTIMAL_BAND[complexity ?? "medium"]
  const zone = zoneOf(load, band)
  const over = behaviours.flatMap((text, i) => (OVER_AROUSAL.test(text) ? [i] : []))
  const under = behaviours.flatMap((text, i) => (UNDER_AROUSAL.test(text) ? [i] : []))
  const markerZone = over.length === 0 && under.length === 0
    ? "none"
    : over.length > under.length
    ? "over"
    : under.length > over.length
    ? "under"
    : "mixed"
  const repeats = repeatedIndices(behaviours)
  const observed = trace.pressure.observed

  const highlights: Array<Highlight> = [
    ...over.map((i) => ({ ref: `observed_behaviors[${i}]`, reason: "over-arousal marker (retry loop, shortcut, skipped check, truncation)" })),
    ...under.map((i) => ({ ref: `observed_behaviors[${i}]`, reason: "under-arousal marker (shallow work, premature stop, tool not used)" })),
    ...repeats.map((i) => ({ ref: `observed_behaviors[${i}]`, reason: "repeats an earlier behaviour" })),
    ...(peak === null ? [] : [{ ref: `pressure.${peak}`, reason: "the most saturated constraint" }])
  ]

  return signals(
    {
      pressure_components: components,
      pressures_given: given.length,
      load_score: load,
      peak_pressure: peak === null ? null : components[peak],
      dominant_pressure: peak ?? "none",
      complexity: complexity ?? null,
      complexity_assumed: complexity === undefined,
      optimal_band: [band[0], band[1]],
      load_zone_estimate: zone,
      distance_from_band: load === null ? null : load < band[0] ? round(load - band[0]) : load > band[1] ? round(load - band[1]) : 0,
      budget_unit: trace.pressure.budget?.unit ?? null,
      pressure_basis: given.length > 0 ? "stated_limits" : observed === undefined ? "none" : "observed_only",
      observed_retries: observed?.retries ?? null,
      observed_errors: observed?.errors ?? null,
      observed_tool_calls: observed?.tool_calls ?? null,
      observed_elapsed_seconds: observed?.elapsed_seconds ?? null,
      observed_strain: observed === undefined ? null : round(clamp((observed.retries + observed.errors) / Math.max(1, observed.tool_calls))),
      behaviour_count: behaviours.length,
      over_arousal_markers: over.length,
      under_arousal_markers: under.length,
      behaviour_zone_hint: markerZone,
      zones_agree: zone === "indeterminate" || markerZone === "none" || markerZone === "mixed" ? null : zone === markerZone,
      repeated_behaviours: repeats.length,
      success: trace.success
    },
    highlights
  )
}
