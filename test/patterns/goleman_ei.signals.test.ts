import { describe, expect, it } from "@effect/vitest"
import { golemanSignals } from "../../patterns/goleman_ei/signals.js"

describe("goleman_ei signals", () => {
  it("counts user distress, stock empathy, overclaims and withheld hand-offs", () => {
    const result = golemanSignals({
      observed_behaviors: [
        "Replied: I completely understand your frustration.",
        "Called refund tool and got error 403.",
        "Replied: sorry for the inconvenience, as I already explained it is done.",
        "Replied: sorry for the inconvenience, as I already explained it is done.",
        "Did not offer a transfer to a specialist."
      ],
      user_signals: ["Where is my refund?", "This is the third time I'm asking!!", "Let me talk to a human"],
      self_reports: ["Your refund has been processed.", "I can't verify the bank side."],
      interaction_class: "customer_support",
      success: false
    })
    expect(result.values["negative_user_signals"]).toBe(2)
    expect(result.values["negative_signal_share"]).toBe(0.6667)
    // behaviours 0, 2, 3 carry stock phrases
    expect(result.values["formulaic_empathy_markers"]).toBe(3)
    expect(result.values["apology_count"]).toBe(2)
    expect(result.values["certainty_claims"]).toBe(1)
    expect(result.values["calibrated_limit_statements"]).toBe(1)
    expect(result.values["claims_contradict_outcome"]).toBe(true)
    expect(result.values["handoffs_offered"]).toBe(0)
    expect(result.values["handoffs_withheld"]).toBe(1)
    expect(result.values["defensive_markers"]).toBe(2)
    expect(result.values["repeated_behaviours"]).toBe(1)
    expect(result.values["unanswered_distress"]).toBe(true)
    expect(result.highlights.map((h) => h.ref)).toEqual([
      "user_signals[1]",
      "user_signals[2]",
      "self_reports[0]",
      "observed_behaviors[0]",
      "observed_behaviors[2]",
      "observed_behaviors[3]",
      "observed_behaviors[4]"
    ])
  })

  it("credits an offered hand-off and does not flag claims in a successful run", () => {
    const result = golemanSignals({
      observed_behaviors: ["Escalated to a human agent with a ticket summary."],
      user_signals: ["I'm really frustrated"],
      self_reports: ["The refund is confirmed by the billing API."],
      success: true
    })
    expect(result.values["handoffs_offered"]).toBe(1)
    expect(result.values["handoffs_withheld"]).toBe(0)
    expect(result.values["claims_contradict_outcome"]).toBe(false)
    expect(result.values["unanswered_distress"]).toBe(false)
    expect(result.highlights.find((h) => h.ref === "self_reports[0]")?.reason).toBe("agent claims its work is done or verified")
  })

  it("is total without user signals or self-reports", () => {
    const result = golemanSignals({ observed_behaviors: ["Answered the question."], success: false })
    expect(result.values["interaction_class"]).toBeNull()
    expect(result.values["user_signal_count"]).toBe(0)
    expect(result.values["negative_signal_share"]).toBe(0)
    expect(result.values["certainty_claims"]).toBe(0)
    expect(result.values["claims_contradict_outcome"]).toBe(false)
    expect(result.values["unanswered_distress"]).toBe(false)
    expect(result.highlights).toEqual([])
  })
})
