import { describe, expect, it } from "@effect/vitest"
import { markerStrategy, reappraisalSignals } from "../../patterns/cognitive_reappraisal/signals.js"

describe("cognitive_reappraisal signals", () => {
  it("separates suppression wording and checks reassurances against the outcome", () => {
    const result = reappraisalSignals({
      user_input: "I'm scared I lost all my files!!",
      user_emotion: " Fearful ",
      agent_response: "Don't worry. Relax, your files are completely safe. In the meantime, keep working.",
      outcome: "The files were gone.",
      success: false
    })
    expect(result.values["user_emotion"]).toBe("fearful")
    // "scared" and "!!"
    expect(result.values["user_negative_markers"]).toBe(2)
    expect(result.values["strategy_markers"]).toEqual({
      situation_selection: 0,
      situation_modification: 0,
      attentional_deployment: 1,
      cognitive_change: 0,
      response_modulation: 2
    })
    expect(result.values["marker_strategy"]).toBe("response_modulation")
    expect(result.values["antecedent_share"]).toBe(0.3333)
    expect(result.values["absolute_reassurances"]).toBe(1)
    expect(result.values["reassurance_contradicted"]).toBe(true)
    expect(result.values["acknowledgement_only"]).toBe(false)
    expect(result.highlights.map((h) => h.ref)).toEqual(["user_input", "agent_response", "outcome"])
  })

  it("recognises an antecedent-focused reply that acts and reframes", () => {
    const result = reappraisalSignals({
      user_input: "My payment failed and the account is locked.",
      agent_response: "I've retried the payment and it went through. This means your account is unlocked; it is reversible for 30 days. Anything else?",
      outcome: "Account restored.",
      success: true
    })
    expect(result.values["user_emotion"]).toBeNull()
    expect(result.values["strategy_markers"]).toEqual({
      situation_selection: 0,
      situation_modification: 1,
      attentional_deployment: 0,
      cognitive_change: 2,
      response_modulation: 0
    })
    expect(result.values["marker_strategy"]).toBe("cognitive_change")
    expect(result.values["antecedent_share"]).toBe(1)
    expect(result.values["reassurance_contradicted"]).toBe(false)
    expect(result.values["clarifying_questions"]).toBe(1)
    expect(result.highlights).toEqual([])
  })

  it("flags acknowledgement with no regulation move and stays total without markers", () => {
    const ack = reappraisalSignals({
      user_input: "ok",
      agent_response: "I understand. Here is the invoice.",
      outcome: "",
      success: false
    })
    expect(ack.values["acknowledgement_only"]).toBe(true)
    expect(ack.values["antecedent_share"]).toBeNull()
    expect(ack.values["marker_strategy"]).toBe("none")
    expect(ack.values["response_to_input_ratio"]).toBe(6)
  })

  it("reports a tie at the top as mixed", () => {
    expect(
      markerStrategy({
        situation_selection: 1,
        situation_modification: 1,
        attentional_deployment: 0,
        cognitive_change: 0,
        response_modulation: 0
      })
    ).toBe("mixed")
  })
})
