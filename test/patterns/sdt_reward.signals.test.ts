import { describe, expect, it } from "@effect/vitest"
import { echoes, salientWords, sdtRewardSignals } from "../../patterns/sdt_reward/signals.js"

describe("sdt_reward signals", () => {
  it("extracts salient words without stopwords or short words", () => {
    expect(salientWords("The agent must close tickets in under 10 minutes, tickets!")).toEqual(["close", "tickets", "under", "minutes"])
  })

  it("needs two salient words to echo a source, or one when the source has only one", () => {
    const words = salientWords("close tickets fast")
    expect(words).toEqual(["close", "tickets", "fast"])
    expect(echoes("closed the tickets", words)).toBe(false)
    expect(echoes("we close tickets daily", words)).toBe(true)
    expect(echoes("a refund", salientWords("refund"))).toBe(true)
    expect(echoes("anything", [])).toBe(false)
  })

  it("compares echoes of the extrinsic signals with echoes of the user's purpose", () => {
    const result = sdtRewardSignals({
      extrinsic_signals: ["close tickets fast", "survey rating"],
      user_purpose: "reverse duplicate charges",
      observed_behaviors: [
        "It tried to close tickets fast.",
        "It asked for a survey rating and a thumbs-up.",
        "It did reverse duplicate charges once.",
        "It ignored the customer and gave up."
      ]
    })
    expect(result.values["extrinsic_echo_behaviors"]).toBe(2)
    expect(result.values["extrinsic_echo_share"]).toBe(0.5)
    expect(result.values["extrinsic_echo_by_signal"]).toEqual({ "extrinsic_signals[0]": 1, "extrinsic_signals[1]": 1 })
    expect(result.values["purpose_echo_behaviors"]).toBe(1)
    expect(result.values["purpose_echo_share"]).toBe(0.25)
    expect(result.values["purpose_minus_extrinsic_echo"]).toBe(-0.25)
    expect(result.values["gaming_behaviors"]).toBe(1)
    expect(result.values["need_marker_counts"]).toEqual({
      autonomy_support: 0,
      autonomy_thwart: 0,
      competence_support: 0,
      competence_thwart: 1,
      relatedness_support: 0,
      relatedness_thwart: 1
    })
    // asking for a rating is not relatedness support; both needs score 0 and the tie goes to competence
    expect(result.values["need_support_index"]).toEqual({ autonomy: null, competence: 0, relatedness: 0 })
    expect(result.values["least_supported_need"]).toBe("competence")
    expect(result.highlights.map((h) => h.ref)).toEqual(["observed_behaviors[0]", "observed_behaviors[1]", "observed_behaviors[3]"])
  })

  it("weighs support against thwarting per need", () => {
    const result = sdtRewardSignals({
      extrinsic_signals: [],
      observed_behaviors: [
        "It proposed two options and explained why.",
        "It had to follow the template word for word.",
        "It verified the fix; the tests passed.",
        "It acknowledged the user's deadline."
      ]
    })
    expect(result.values["need_support_index"]).toEqual({ autonomy: 0.5, competence: 1, relatedness: 1 })
    expect(result.values["least_supported_need"]).toBe("autonomy")
  })

  it("is total with no extrinsic signals and no purpose", () => {
    const result = sdtRewardSignals({ extrinsic_signals: [], observed_behaviors: ["Answered the question."] })
    expect(result.values["extrinsic_signal_count"]).toBe(0)
    expect(result.values["extrinsic_echo_share"]).toBe(0)
    expect(result.values["extrinsic_echo_by_signal"]).toEqual({})
    expect(result.values["has_user_purpose"]).toBe(false)
    expect(result.values["purpose_echo_share"]).toBeNull()
    expect(result.values["purpose_minus_extrinsic_echo"]).toBeNull()
    expect(result.values["least_supported_need"]).toBeNull()
    expect(result.highlights).toEqual([])
  })
})
