import { describe, expect, it } from "@effect/vitest"
import { contingencyOverlap, vroomComponents, vroomSignals } from "../../patterns/vroom_expectancy/signals.js"

describe("vroom_expectancy signals", () => {
  it("computes E, I, V and the force when all three are known", () => {
    const result = vroomSignals({
      task: "Fix checkout totals for JPY orders",
      declared_reward: { description: "ticket closed", contingent_on: "checkout totals verified", valence: 0.5 },
      effort_signals: [
        { signal: "a", amount: 2, unit: "calls", performance: "achieved", rewarded: true },
        { signal: "b", amount: 3, unit: "calls", performance: "achieved", rewarded: false },
        { signal: "c", amount: 10, unit: "minutes", performance: "partial" },
        { signal: "d", amount: 1, performance: "missed", rewarded: true },
        { signal: "e" }
      ],
      observed_behaviors: ["It said the fix won't work.", "It hardcoded the expected total to make CI green.", "Worked normally."]
    })
    expect(result.values["effort_by_unit"]).toEqual({ calls: 5, minutes: 10, units: 1 })
    expect(result.values["performance_known"]).toBe(4)
    expect(result.values["performance_achieved"]).toBe(2)
    expect(result.values["performance_partial"]).toBe(1)
    expect(result.values["performance_missed"]).toBe(1)
    // E = (1 + 1 + 0.5 + 0) / 4
    expect(result.values["expectancy_observed"]).toBe(0.625)
    // I = rewarded among achieved with a known reward: 1 of 2
    expect(result.values["instrumentality_observed"]).toBe(0.5)
    expect(result.values["reward_without_performance_rate"]).toBe(1)
    expect(result.values["valence_declared"]).toBe(0.5)
    expect(result.values["expectancy_x_instrumentality"]).toBe(0.3125)
    // 0.625 * 0.5 * 0.5 = 0.15625, rounded to 4 decimals
    expect(result.values["motivational_force"]).toBe(0.1563)
    expect(result.values["computable_components"]).toEqual(["expectancy", "instrumentality", "valence"])
    // task words: checkout, totals, orders; the contingency names checkout and totals
    expect(result.values["reward_task_overlap"]).toBe(0.6667)
    expect(result.values["behavior_markers"]).toEqual({
      expectancy_doubt: 1,
      instrumentality_doubt: 0,
      valence_low: 0,
      effort_reduction: 0,
      proxy_gaming: 1
    })
    expect(result.highlights.map((h) => h.ref)).toEqual([
      "effort_signals[1]",
      "effort_signals[3]",
      "observed_behaviors[0]",
      "observed_behaviors[1]"
    ])
  })

  it("keeps the sign of a negative valence", () => {
    const components = vroomComponents({
      effort_signals: [{ signal: "x", performance: "achieved", rewarded: true }],
      declared_reward: { description: "penalty", valence: -0.5 }
    })
    expect(components.expectancy).toBe(1)
    expect(components.instrumentality).toBe(1)
    expect(components.force).toBe(-0.5)
  })

  it("leaves uncomputable components null", () => {
    const result = vroomSignals({ task: "Do it", effort_signals: [{ signal: "tried" }], observed_behaviors: ["Worked."] })
    expect(result.values["expectancy_observed"]).toBeNull()
    expect(result.values["instrumentality_observed"]).toBeNull()
    expect(result.values["reward_without_performance_rate"]).toBeNull()
    expect(result.values["valence_declared"]).toBeNull()
    expect(result.values["expectancy_x_instrumentality"]).toBeNull()
    expect(result.values["motivational_force"]).toBeNull()
    expect(result.values["computable_components"]).toEqual([])
    expect(result.values["has_declared_reward"]).toBe(false)
    expect(result.values["reward_task_overlap"]).toBeNull()
    expect(result.values["effort_by_unit"]).toEqual({})
    expect(result.highlights).toEqual([])
  })

  it("measures the overlap between the task and what the reward checks", () => {
    expect(contingencyOverlap("Fix the JPY rounding in checkout", "CI status green")).toBe(0)
    expect(contingencyOverlap("Fix it", "anything")).toBe(0)
  })
})
