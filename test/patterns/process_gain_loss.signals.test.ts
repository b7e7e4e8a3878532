import { describe, expect, it } from "@effect/vitest"
import { potentialProductivity, processGainLossSignals, synergy } from "../../patterns/process_gain_loss/signals.js"

describe("process_gain_loss signals", () => {
  it("computes Steiner's potential per task type", () => {
    const qualities = [0.8, 0.6, 0.4]
    expect(potentialProductivity("disjunctive", qualities)).toBe(0.8)
    expect(potentialProductivity("discretionary", qualities)).toBe(0.8)
    expect(potentialProductivity("conjunctive", qualities)).toBe(0.4)
    expect(potentialProductivity("compensatory", qualities)).toBe(0.6)
    expect(potentialProductivity("additive", qualities)).toBe(1)
    expect(potentialProductivity("additive", [0.2, 0.3])).toBe(0.5)
    expect(potentialProductivity("disjunctive", [])).toBe(0)
  })

  it("reads strong, weak and no synergy against the best and mean member", () => {
    expect(synergy(0.9, 0.8, 0.6, 0.4)).toBe("strong_synergy")
    expect(synergy(0.7, 0.8, 0.6, 0.4)).toBe("weak_synergy")
    expect(synergy(0.6, 0.8, 0.6, 0.4)).toBe("par")
    expect(synergy(0.5, 0.8, 0.6, 0.4)).toBe("below_mean")
    expect(synergy(0.3, 0.8, 0.6, 0.4)).toBe("below_worst")
  })

  it("measures the loss against the best member and finds the conformity of the best member", () => {
    const result = processGainLossSignals({
      individual_baselines: [
        { agent: "a", quality: 0.8, cost: 2 },
        { agent: "b", quality: 0.6 },
        { agent: "c", quality: 0.4 }
      ],
      team_result: { quality: 0.5, cost: 5 },
      interaction_log: [
        { from: "a", content: "The answer is 42 because the test asserts it." },
        { from: "b", content: "I disagree, it is 41." },
        { from: "a", content: "You're right, I'll go with 41." },
        { from: "lead", content: "Majority says 41, merging." }
      ]
    })
    expect(result.values["task_type"]).toBe("disjunctive")
    expect(result.values["task_type_assumed"]).toBe(true)
    expect(result.values["best_individual"]).toBe("a")
    expect(result.values["mean_individual_quality"]).toBe(0.6)
    expect(result.values["potential_productivity"]).toBe(0.8)
    expect(result.values["net_vs_potential"]).toBe(-0.3)
    expect(result.values["process_loss"]).toBe(0.3)
    expect(result.values["relative_process_loss"]).toBe(0.375)
    expect(result.values["gain_vs_mean"]).toBe(-0.1)
    expect(result.values["synergy"]).toBe("below_mean")
    expect(result.values["cost_ratio_vs_best"]).toBe(2.5)
    expect(result.values["best_member_message_share"]).toBe(0.5)
    expect(result.values["silent_members"]).toEqual(["c"])
    expect(result.values["conformity_messages"]).toBe(1)
    expect(result.values["best_member_conformity"]).toBe(1)
    expect(result.values["challenge_messages"]).toBe(1)
    expect(result.values["aggregation_messages"]).toBe(1)
    expect(result.values["last_speaker"]).toBe("lead")
    expect(result.highlights.slice(0, 4).map((h) => h.ref)).toEqual([
      "individual_baselines[0]",
      "team_result",
      "interaction_log[2]",
      "interaction_log[3]"
    ])
  })

  it("is total without a log or costs, and records a gain", () => {
    const result = processGainLossSignals({
      individual_baselines: [{ agent: "solo", quality: 0.5 }],
      team_result: { quality: 0.7 },
      task_type: "conjunctive"
    })
    expect(result.values["potential_productivity"]).toBe(0.5)
    expect(result.values["net_vs_potential"]).toBe(0.2)
    expect(result.values["process_loss"]).toBe(0)
    expect(result.values["synergy"]).toBe("strong_synergy")
    expect(result.values["cost_ratio_vs_best"]).toBeNull()
    expect(result.values["best_member_message_share"]).toBeNull()
    expect(result.values["silent_members"]).toEqual([])
    expect(result.values["last_speaker"]).toBeNull()
    expect(result.highlights.map((h) => h.ref)).toEqual(["individual_baselines[0]"])
  })
})
