import { describe, expect, it } from "@effect/vitest"
import { categoriesIn, scheinSignals, sentences } from "../../patterns/schein_culture/signals.js"

describe("schein_culture signals", () => {
  it("compares espoused values with enacted behaviour", () => {
    const result = scheinSignals({
      system_prompt: "ALWAYS cite the source. Be fast. Be thorough.",
      observed_behaviors: [
        "Answered without citing any source",
        "Replied quickly to every user",
        "Used a cheap model to save tokens"
      ]
    })
    expect(result.values["espoused_values"]).toEqual(["speed", "thoroughness", "evidence"])
    expect(result.values["espoused_but_violated"]).toEqual(["evidence"])
    expect(result.values["espoused_and_enacted"]).toEqual(["speed"])
    expect(result.values["espoused_not_observed"]).toEqual(["thoroughness"])
    expect(result.values["enacted_not_espoused"]).toEqual(["cost"])
    expect(result.values["espoused_tensions"]).toEqual(["speed~thoroughness"])
    expect(result.values["unranked_tensions"]).toBe(1)
    expect(result.values["states_priorities"]).toBe(false)
    expect(result.values["prompt_directives"]).toBe(1)
    expect(result.values["absolute_directives"]).toBe(1)
    expect(result.values["emphasis_words"]).toBe(1)
    expect(result.values["departure_behaviours"]).toBe(1)
    expect(result.values["violating_behaviours"]).toBe(1)
    expect(result.values["alignment_ratio"]).toBe(0.6667)
    expect(result.values["behaviour_value_mentions"]).toEqual({ evidence: 1, speed: 1, cost: 1 })
    expect(result.highlights.map((h) => h.ref)).toEqual(["observed_behaviors[0]", "system_prompt"])
  })

  it("treats a ranked prompt's tensions as resolved", () => {
    const result = scheinSignals({
      system_prompt: "Accuracy takes precedence over speed.",
      observed_behaviors: ["Verified every figure before answering"]
    })
    expect(result.values["espoused_tensions"]).toEqual(["speed~accuracy"])
    expect(result.values["states_priorities"]).toBe(true)
    expect(result.values["unranked_tensions"]).toBe(0)
    expect(result.values["alignment_ratio"]).toBe(1)
  })

  it("is total when the prompt espouses nothing recognisable", () => {
    const result = scheinSignals({ system_prompt: "You are a bot.", observed_behaviors: ["Said hello"] })
    expect(result.values["espoused_values"]).toEqual([])
    expect(result.values["alignment_ratio"]).toBeNull()
    expect(result.values["enacted_not_espoused"]).toEqual([])
    expect(result.highlights).toEqual([])
  })

  it("splits sentences and finds categories", () => {
    expect(sentences("One. Two!\nThree")).toEqual(["One.", "Two!", "Three"])
    expect(categoriesIn("Escalate to a human agent when unsure")).toEqual(["escalation"])
    expect(categoriesIn("Refunded without citing any KB article")).toEqual(["evidence"])
  })

  it("reads '0 of N' as a departure from an espoused value", () => {
    const result = scheinSignals({
      system_prompt: "Escalate to a human agent when unsure.",
      observed_behaviors: ["Escalated 0 of 212 tickets"]
    })
    expect(result.values["espoused_but_violated"]).toEqual(["escalation"])
    expect(result.values["alignment_ratio"]).toBe(0)
  })
})
