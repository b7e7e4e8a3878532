import { describe, expect, it } from "@effect/vitest"
import {
  applyRules,
  attributesOf,
  groupDecisionSignals,
  type GroupDecisionRequest
} from "../../patterns/group_decision/signals.js"

const base: GroupDecisionRequest = {
  title: "pick a cache",
  options: ["redis", "memcached"],
  agents: [{ name: "a" }, { name: "b" }],
  stakes: "medium"
}

describe("group_decision signals", () => {
  it("leaves unknown attributes null and keeps every process feasible", () => {
    const result = groupDecisionSignals(base)
    expect(result.values["quality_requirement"]).toBe(true)
    expect(result.values["leader_has_information"]).toBeNull()
    expect(result.values["commitment_required"]).toBeNull()
    expect(result.values["goal_congruence"]).toBeNull()
    expect(result.values["feasible_set"]).toEqual(["AI", "AII", "CI", "CII", "GII"])
    expect(result.values["rule_based_code"]).toBe("AI")
    expect(result.values["rule_based_model"]).toBe("decide_alone")
    expect(result.values["rules_fired"]).toEqual([])
    expect(result.values["preference_agreement"]).toBe(0)
    expect(result.values["same_model_share"]).toBe(0)
    expect(result.highlights).toEqual([])
  })

  it("applies the information rule when an agent holds what the decider lacks", () => {
    const result = groupDecisionSignals({
      ...base,
      agents: [{ name: "a", holds_unique_information: true }, { name: "b", holds_unique_information: false }]
    })
    expect(result.values["rules_fired"]).toEqual(["information"])
    expect(result.values["rule_based_code"]).toBe("AII")
    expect(result.highlights.map((h) => h.ref)).toEqual(["agents[0]"])
  })

  it("adds the unstructured-problem rule for an open-ended option", () => {
    const result = groupDecisionSignals({
      ...base,
      options: ["redis", "other"],
      agents: [{ name: "a", holds_unique_information: true }]
    })
    expect(result.values["structured"]).toBe(false)
    expect(result.values["feasible_set"]).toEqual(["CII", "GII"])
    expect(result.highlights.map((h) => h.ref)).toEqual(["agents[0]", "options[1]"])
  })

  it("removes everything but CII when executors disagree and one diverges from the goal", () => {
    const request: GroupDecisionRequest = {
      ...base,
      options: ["x", "y", "z"],
      stakes: "high",
      agents: [
        { name: "a", holds_unique_information: true, implements_decision: true, shares_goal: true, preferred_option: "x", model: "m1" },
        { name: "b", implements_decision: true, shares_goal: true, preferred_option: "y", model: "m1" },
        { name: "c", implements_decision: true, shares_goal: false, preferred_option: "Z ", model: "m1" },
        { name: "d", preferred_option: "w", model: "m2" }
      ]
    }
    const result = groupDecisionSignals(request)
    expect(result.values["acceptance_if_alone"]).toBe(false)
    expect(result.values["rules_fired"]).toEqual(["information", "goal_congruence", "acceptance", "conflict"])
    expect(result.values["feasible_set"]).toEqual(["CII"])
    expect(result.values["distinct_preferences"]).toBe(4)
    expect(result.values["preference_agreement"]).toBe(0.25)
    expect(result.values["off_menu_preferences"]).toBe(1)
    expect(result.values["same_model_share"]).toBe(0.75)
    expect(result.values["distinct_models"]).toBe(2)
  })

  it("applies the fairness rule when quality does not matter but acceptance does", () => {
    const attributes = attributesOf({
      ...base,
      stakes: "low",
      agents: [{ name: "a", implements_decision: true, shares_goal: false }]
    })
    expect(attributes.quality_requirement).toBe(false)
    expect(applyRules(attributes).feasible).toEqual(["GII"])
  })

  it("applies the acceptance-priority rule when the group shares the goal", () => {
    const { feasible, fired } = applyRules({
      quality_requirement: true,
      leader_has_information: true,
      structured: true,
      commitment_required: true,
      acceptance_if_alone: false,
      goal_congruence: true,
      conflict_likely: false
    })
    expect(fired).toEqual(["acceptance", "acceptance_priority"])
    expect(feasible).toEqual(["GII"])
  })
})
