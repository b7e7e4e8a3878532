import { describe, expect, it } from "@effect/vitest"
import { lean, robbinsSignals, taskDemand } from "../../patterns/robbins_culture/signals.js"

describe("robbins_culture signals", () => {
  it("scores cues per dimension against a service task class", () => {
    const result = robbinsSignals({
      task_class: "customer support",
      observed_behaviors: [
        "Insisted the customer was wrong and refused to back down",
        "Apologised and clarified the refund terms",
        "Deferred to the user's choice",
        "Verified the order id before answering",
        "Said hello"
      ]
    })
    expect(result.values["task_family"]).toBe("service")
    expect(result.values["task_needs_high"]).toEqual(["people_orientation", "attention_to_detail"])
    expect(result.values["task_needs_low"]).toEqual(["aggressiveness"])
    const leans = result.values["cue_lean"]
    expect(leans).toMatchObject({ aggressiveness: 0, people_orientation: 1, attention_to_detail: 1, innovation: null })
    expect(result.values["cue_score"]).toMatchObject({ aggressiveness: 0.5, people_orientation: 0.6667, stability: 0.5 })
    expect(result.values["dimensions_with_evidence"]).toBe(3)
    expect(result.values["evidence_coverage"]).toBe(0.4286)
    expect(result.values["uncued_behaviours"]).toBe(1)
    expect(result.values["misfit_candidates"]).toEqual([])
    expect(result.highlights).toEqual([])
  })

  it("flags dimensions on the wrong side of what an exploratory task needs", () => {
    const result = robbinsSignals({
      task_class: "brainstorm product names",
      observed_behaviors: ["Followed the template exactly", "Kept using the same list of names"]
    })
    expect(result.values["task_family"]).toBe("exploratory")
    expect(result.values["misfit_candidates"]).toEqual(["innovation:too_low", "stability:too_high"])
    expect(result.highlights.map((h) => h.ref)).toEqual(["observed_behaviors[0]", "observed_behaviors[1]"])
  })

  it("is total without cues or a recognised task class", () => {
    const result = robbinsSignals({ task_class: "misc", observed_behaviors: ["Said hello"] })
    expect(result.values["task_family"]).toBe("general")
    expect(result.values["dimensions_with_evidence"]).toBe(0)
    expect(result.values["evidence_coverage"]).toBe(0)
    expect(result.values["misfit_candidates"]).toEqual([])
    expect(result.highlights).toEqual([])
  })

  it("computes the lean by hand and maps task classes", () => {
    expect(lean(0, 0)).toBeNull()
    expect(lean(3, 1)).toBe(0.5)
    expect(lean(0, 2)).toBe(-1)
    expect(taskDemand("month-end ledger reconciliation").family).toBe("precision_critical")
    expect(taskDemand("fix flaky CI tests").family).toBe("delivery")
  })
})
