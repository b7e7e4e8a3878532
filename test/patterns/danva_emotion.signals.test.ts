import { describe, expect, it } from "@effect/vitest"
import {
  canonicalEmotion,
  type DanvaItem,
  danvaSignals,
  kappa,
  unbiasedHitRate,
  valence
} from "../../patterns/danva_emotion/signals.js"

/** Items from a confusion table: [true emotion, inferred emotion, count]. */
const fromTable = (rows: ReadonlyArray<readonly [string, string, number]>): Array<DanvaItem> =>
  rows.flatMap(([truth, guess, count]) =>
    Array.from({ length: count }, (_, k) => ({
      id: `${truth}-${guess}-${k}`,
      user_input: "message",
      true_emotion: truth,
      true_intensity: 0.8,
      inferred_emotion: guess
    }))
  )

describe("danva_emotion signals", () => {
  it("reproduces Wagner's unbiased hit rates on a 4x4 confusion table", () => {
    // stimuli (true) by responses (inferred); 24 items, 17 correct
    const items = fromTable([
      ["happy", "happy", 4], ["happy", "fearful", 2],
      ["sad", "happy", 1], ["sad", "sad", 3],
      ["angry", "sad", 2], ["angry", "angry", 6],
      ["fearful", "happy", 1], ["fearful", "sad", 1], ["fearful", "fearful", 4]
    ])
    const result = danvaSignals({ items })
    // happy: 4² / (6 presented × 6 used); sad: 3² / (4 × 6); angry: 6² / (8 × 6); fearful: 4² / (6 × 6)
    expect(result.values["unbiased_hit_rate"]).toEqual({ angry: 0.75, fearful: 0.4444, happy: 0.4444, sad: 0.375 })
    expect(result.values["hit_rate"]).toEqual({ angry: 0.75, fearful: 0.6667, happy: 0.6667, sad: 0.75 })
    expect(result.values["accuracy"]).toBe(0.7083)
    expect(result.values["weakest_emotion"]).toBe("sad")
    expect(result.values["confusion_pairs"]).toEqual({
      "angry->sad": 2,
      "happy->fearful": 2,
      "fearful->happy": 1,
      "fearful->sad": 1,
      "sad->happy": 1
    })
    expect(result.values["top_confusion"]).toBe("angry->sad")
    // chance agreement: (6·6 + 4·6 + 8·6 + 6·6) / 24² = 144/576 = 0.25; kappa = (17/24 − 0.25) / 0.75
    expect(result.values["kappa"]).toBe(0.6111)
    expect(result.values["intensity_mae"]).toBeNull()
    expect(result.values["intensity_direction"]).toBe("not_rated")
    expect(result.values["accuracy_low_intensity"]).toBeNull()
    // happy->fearful (2), sad->happy (1), fearful->happy (1) cross valence; angry->sad does not
    expect(result.values["valence_flips"]).toBe(4)
  })

  it("measures intensity error, the high/low split, flattening and valence flips", () => {
    const result = danvaSignals({
      items: [
        { id: "a", user_input: "Great, another outage.", true_emotion: "Anger", true_intensity: 0.6, inferred_emotion: "joy", inferred_intensity: 0.5 },
        { id: "b", user_input: "Will my data be deleted?", true_emotion: "fear", true_intensity: 0.3, inferred_emotion: "Neutral", inferred_intensity: 0.1 },
        { id: "c", user_input: "THIS IS BROKEN", true_emotion: "angry", true_intensity: 0.9, inferred_emotion: "angry", inferred_intensity: 1 },
        { id: "d", user_input: "Thanks!", true_emotion: "happy", true_intensity: 0.4, inferred_emotion: "happy" }
      ]
    })
    expect(result.values["accuracy"]).toBe(0.5)
    expect(result.values["emotions_presented"]).toEqual(["angry", "fearful", "happy"])
    // high (>= 0.5): a wrong, c right; low: b wrong, d right
    expect(result.values["accuracy_high_intensity"]).toBe(0.5)
    expect(result.values["accuracy_low_intensity"]).toBe(0.5)
    // rated a, b, c: errors -0.1, -0.2, +0.1
    expect(result.values["intensity_rated_items"]).toBe(3)
    expect(result.values["intensity_mae"]).toBe(0.1333)
    expect(result.values["intensity_bias"]).toBe(-0.0667)
    expect(result.values["intensity_direction"]).toBe("under_reads")
    expect(result.values["flattened_to_neutral"]).toBe(1)
    expect(result.values["valence_flips"]).toBe(1)
    expect(result.values["dominant_inferred_label"]).toBe("happy")
    expect(result.values["dominant_inferred_share"]).toBe(0.5)
    // fearful was never used as a label: Hu = 0
    expect(result.values["weakest_emotion"]).toBe("fearful")
    expect(result.highlights.map((h) => h.ref)).toEqual(["items[0]", "items[1]"])
    expect(result.highlights[0]?.reason).toBe("valence flip: angry read as happy; angry read as happy")
  })

  it("scores a perfect reader", () => {
    const result = danvaSignals({
      items: [{ id: "1", user_input: "yay", true_emotion: "happy", true_intensity: 0.7, inferred_emotion: "happy", inferred_intensity: 0.7 }]
    })
    expect(result.values["accuracy"]).toBe(1)
    expect(result.values["kappa"]).toBeNull()
    expect(result.values["confusion_pairs"]).toEqual({})
    expect(result.values["top_confusion"]).toBeNull()
    expect(result.values["intensity_mae"]).toBe(0)
    expect(result.values["intensity_direction"]).toBe("accurate")
    expect(result.highlights).toEqual([])
  })

  it("has total helpers", () => {
    expect(unbiasedHitRate(0, 2, 0)).toBe(0)
    expect(unbiasedHitRate(2, 2, 2)).toBe(1)
    expect(kappa([])).toBeNull()
    expect(kappa([["a", "a"], ["b", "b"]])).toBe(1)
    expect(kappa([["a", "b"], ["b", "a"]])).toBe(-1)
    expect(canonicalEmotion("  Scared ")).toBe("fearful")
    expect(canonicalEmotion("Bored")).toBe("bored")
    expect(valence("happy")).toBe("positive")
    expect(valence("bored")).toBe("unknown")
  })
})
