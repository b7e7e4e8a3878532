import { describe, expect, it } from "@effect/vitest"
import { attemptsBeforeAbandonment, motivationTrapsSignals } from "../../patterns/motivation_traps/signals.js"

describe("motivation_traps signals", () => {
  it("marks each trap's wording across behaviours and the abandonment", () => {
    const result = motivationTrapsSignals({
      observed_behaviors: [
        "I'm sorry, I apologise for the confusion.",
        "I can't access the billing API, you will need to run this yourself.",
        "The API is broken and always fails.",
        "Skipped the docs update, it is not important."
      ],
      abandonment_signal: "Stopped after two failed attempts because the tests are flaky.",
      prior_failures: ["timeout on step 3", "Timeout on  step 3", "wrong file"]
    })
    expect(result.values["trap_marker_elements"]).toEqual({
      values_mismatch: 1,
      lack_of_self_efficacy: 1,
      disruptive_emotions: 1,
      attribution_errors: 2
    })
    // shares over 5 elements (4 behaviours + the abandonment signal)
    expect(result.values["trap_marker_shares"]).toEqual({
      values_mismatch: 0.2,
      lack_of_self_efficacy: 0.2,
      disruptive_emotions: 0.2,
      attribution_errors: 0.4
    })
    expect(result.values["dominant_marker_trap"]).toBe("attribution_errors")
    expect(result.values["traps_marked"]).toBe(4)
    expect(result.values["abandonment_marker_traps"]).toEqual(["attribution_errors"])
    expect(result.values["abandonment_states_cause"]).toBe(true)
    expect(result.values["attempts_before_abandonment"]).toBe(2)
    expect(result.values["apology_count"]).toBe(2)
    expect(result.values["stable_cause_words"]).toBe(1)
    expect(result.values["external_cause_mentions"]).toBe(2)
    expect(result.values["internal_controllable_mentions"]).toBe(0)
    expect(result.values["external_attribution_share"]).toBe(1)
    expect(result.values["prior_failure_count"]).toBe(3)
    expect(result.values["repeated_prior_failures"]).toBe(1)
    expect(result.highlights.map((h) => h.ref)).toEqual(["abandonment_signal", "observed_behaviors[2]", "prior_failures[1]"])
  })

  it("weighs external against internal-controllable causes", () => {
    const result = motivationTrapsSignals({
      observed_behaviors: ["It was my mistake: I passed the wrong id.", "The server is down."],
      abandonment_signal: "Gave up."
    })
    expect(result.values["internal_controllable_mentions"]).toBe(2)
    expect(result.values["external_cause_mentions"]).toBe(1)
    expect(result.values["external_attribution_share"]).toBe(0.3333)
    expect(result.values["attempts_before_abandonment"]).toBeNull()
    expect(result.values["abandonment_states_cause"]).toBe(false)
  })

  it("reads the number of attempts in words or digits", () => {
    expect(attemptsBeforeAbandonment("gave up after three retries")).toBe(3)
    expect(attemptsBeforeAbandonment("12 failed attempts, then stopped")).toBe(12)
    expect(attemptsBeforeAbandonment("one more try and it quit")).toBeNull()
    expect(attemptsBeforeAbandonment("stopped")).toBeNull()
  })

  it("is total without prior failures or markers", () => {
    const result = motivationTrapsSignals({ observed_behaviors: ["Finished the export."], abandonment_signal: "Stopped." })
    expect(result.values["prior_failure_count"]).toBe(0)
    expect(result.values["dominant_marker_trap"]).toBeNull()
    expect(result.values["traps_marked"]).toBe(0)
    expect(result.values["apology_count"]).toBe(0)
    expect(result.values["external_attribution_share"]).toBeNull()
    expect(result.highlights).toEqual([{ ref: "abandonment_signal", reason: "the abandonment itself" }])
  })
})
