import { describe, expect, it } from "@effect/vitest"
import { loadScore, OPTIMAL_BAND, pressureComponents, yerkesSignals, zoneOf } from "../../patterns/yerkes_dodson/signals.js"

describe("yerkes_dodson signals", () => {
  it("turns each constraint into a pressure and combines them as (mean + max) / 2", () => {
    const components = pressureComponents({
      deadline: { limit_seconds: 600, elapsed_seconds: 300 },
      budget: { limit: 4, spent: 1 },
      retry_cap: { cap: 3, used: 1 },
      context_fill: 0.2
    })
    // 300/600, 1/4, (1+1)/(3+1), 0.2
    expect(components).toEqual({ deadline: 0.5, budget: 0.25, retry_cap: 0.5, context_fill: 0.2 })
    // mean 0.3625, max 0.5 -> 0.43125
    expect(loadScore(components)).toBe(0.4313)
  })

  it("clamps overruns and treats a zero retry cap as full pressure", () => {
    expect(
      pressureComponents({ deadline: { limit_seconds: 60, elapsed_seconds: 90 }, retry_cap: { cap: 0, used: 0 } })
    ).toEqual({ deadline: 1, budget: null, retry_cap: 1, context_fill: null })
    expect(loadScore({ deadline: null, budget: null, retry_cap: null, context_fill: null })).toBeNull()
  })

  it("moves the optimal band with complexity", () => {
    expect(zoneOf(0.6, OPTIMAL_BAND.low)).toBe("optimal")
    expect(zoneOf(0.6, OPTIMAL_BAND.high)).toBe("over")
    expect(zoneOf(0.2, OPTIMAL_BAND.medium)).toBe("under")
    expect(zoneOf(null, OPTIMAL_BAND.medium)).toBe("indeterminate")
  })

  it("places a saturated run in the over zone and agrees with over-arousal markers", () => {
    const result = yerkesSignals({
      observed_behaviors: ["Retried the deploy 3 times.", "Skipped the smoke tests.", "Wrote the summary."],
      pressure: { deadline: { limit_seconds: 100, elapsed_seconds: 95 }, context_fill: 0.9, complexity: "high" },
      success: false
    })
    // mean 0.925, max 0.95 -> 0.9375
    expect(result.values["load_score"]).toBe(0.9375)
    expect(result.values["dominant_pressure"]).toBe("deadline")
    expect(result.values["peak_pressure"]).toBe(0.95)
    expect(result.values["optimal_band"]).toEqual([0.15, 0.5])
    expect(result.values["load_zone_estimate"]).toBe("over")
    expect(result.values["distance_from_band"]).toBe(0.4375)
    expect(result.values["over_arousal_markers"]).toBe(2)
    expect(result.values["under_arousal_markers"]).toBe(0)
    expect(result.values["behaviour_zone_hint"]).toBe("over")
    expect(result.values["zones_agree"]).toBe(true)
    expect(result.highlights.map((h) => h.ref)).toEqual(["observed_behaviors[0]", "observed_behaviors[1]", "pressure.deadline"])
  })

  it("agrees when a slack load meets under-arousal markers", () => {
    const result = yerkesSignals({
      observed_behaviors: ["Gave a generic answer without checking.", "Took the first result from search."],
      pressure: { budget: { limit: 10, spent: 0.5, unit: "usd" } },
      success: false
    })
    expect(result.values["load_score"]).toBe(0.05)
    expect(result.values["complexity_assumed"]).toBe(true)
    expect(result.values["load_zone_estimate"]).toBe("under")
    expect(result.values["distance_from_band"]).toBe(-0.25)
    // behaviour 0 carries both markers ("generic", "without checking"); behaviour 1 an under marker
    expect(result.values["over_arousal_markers"]).toBe(1)
    expect(result.values["under_arousal_markers"]).toBe(2)
    expect(result.values["behaviour_zone_hint"]).toBe("under")
    expect(result.values["zones_agree"]).toBe(true)
    expect(result.values["budget_unit"]).toBe("usd")
  })

  it("flags a contradiction between a slack load and over-arousal behaviour", () => {
    const result = yerkesSignals({
      observed_behaviors: ["Retried the same call 5 times.", "Hard-coded the answer."],
      pressure: { retry_cap: { cap: 9, used: 0 } },
      success: false
    })
    expect(result.values["load_score"]).toBe(0.1)
    expect(result.values["load_zone_estimate"]).toBe("under")
    expect(result.values["behaviour_zone_hint"]).toBe("over")
    expect(result.values["zones_agree"]).toBe(false)
  })

  it("is total without any pressure data", () => {
    const result = yerkesSignals({ observed_behaviors: ["Answered."], pressure: {}, success: true })
    expect(result.values["load_score"]).toBeNull()
    expect(result.values["peak_pressure"]).toBeNull()
    expect(result.values["dominant_pressure"]).toBe("none")
    expect(result.values["load_zone_estimate"]).toBe("indeterminate")
    expect(result.values["distance_from_band"]).toBeNull()
    expect(result.values["zones_agree"]).toBeNull()
    expect(result.highlights).toEqual([])
  })

  it("reports the strain a raw trace shows without adding it to the load", () => {
    const observed = { retries: 2, errors: 3, tool_calls: 10, elapsed_seconds: 95 }
    const alone = yerkesSignals({ observed_behaviors: ["Called run_tests."], pressure: { observed }, success: false })
    expect(alone.values["pressure_basis"]).toBe("observed_only")
    expect(alone.values["load_score"]).toBeNull()
    expect(alone.values["load_zone_estimate"]).toBe("indeterminate")
    expect(alone.values["observed_retries"]).toBe(2)
    expect(alone.values["observed_errors"]).toBe(3)
    expect(alone.values["observed_elapsed_seconds"]).toBe(95)
    expect(alone.values["observed_strain"]).toBe(0.5)
    const stated = yerkesSignals({ observed_behaviors: ["Called run_tests."], pressure: { retry_cap: { cap: 3, used: 2 }, observed }, success: false })
    expect(stated.values["pressure_basis"]).toBe("stated_limits")
    expect(stated.values["load_score"]).toBe(0.75)
    expect(yerkesSignals({ observed_behaviors: ["Answered."], pressure: {}, success: true }).values["observed_strain"]).toBeNull()
  })
})
