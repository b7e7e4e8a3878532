import { describe, expect, it } from "@effect/vitest"
import { debateSignals, numericValue } from "../../patterns/debate_pathology/signals.js"

describe("debate_pathology signals", () => {
  it("tracks standing positions per round, carrying silent agents forward", () => {
    const result = debateSignals({
      agents: ["a", "b", "c", "d"],
      messages: [
        { from: "a", round: 1, position: "Yes", content: "Ship it." },
        { from: "b", round: 1, position: "no", content: "I disagree, the tests are flaky." },
        { from: "c", round: 1, position: "yes", content: "Ship." },
        { from: "b", round: 2, position: "yes", content: "I agree with a, fine." },
        { from: "c", round: 2, content: "Definitely, we must ship." }
      ],
      final_decision: "Yes, ship it"
    })
    expect(result.values["rounds"]).toEqual([1, 2])
    expect(result.values["distinct_positions_by_round"]).toEqual([2, 1])
    expect(result.values["modal_position_by_round"]).toEqual(["yes", "yes"])
    expect(result.values["modal_share_by_round"]).toEqual([0.6667, 1])
    expect(result.values["changed_share_by_round"]).toEqual([0, 0.3333])
    expect(result.values["total_position_changes"]).toBe(1)
    expect(result.values["agents_changed"]).toBe(1)
    expect(result.values["convergence"]).toBe(0.3333)
    expect(result.values["initial_unanimous"]).toBe(false)
    expect(result.values["final_unanimous"]).toBe(true)
    expect(result.values["majority_held"]).toBe(true)
    expect(result.values["minority_converted"]).toBe(1)
    expect(result.values["final_decision_matches_majority"]).toBe(true)
    expect(result.values["choice_shift"]).toBeNull()
    expect(result.values["mean_position_by_round"]).toEqual([])
    expect(result.values["silent_agents"]).toBe(1)
    expect(result.values["dissent_messages"]).toBe(1)
    expect(result.values["agreement_messages"]).toBe(1)
    expect(result.values["agreement_share"]).toBe(0.2)
    // round 1: 0 certainty words over 3 messages; round 2: "Definitely", "must" over 2 messages
    expect(result.values["certainty_by_round"]).toEqual([0, 1])
    expect(result.values["certainty_shift"]).toBe(1)
    expect(result.highlights.map((h) => h.ref)).toEqual(["messages[3]", "messages[1]", "agents[3]"])
  })

  it("measures Stoner's choice shift on numeric positions", () => {
    const result = debateSignals({
      agents: ["a", "b"],
      messages: [
        { from: "a", round: 0, position: "10", content: "10" },
        { from: "b", round: 0, position: "20%", content: "20" },
        { from: "a", round: 1, position: "30", content: "30" },
        { from: "b", round: 1, position: "40", content: "40" }
      ],
      final_decision: "35% of traffic"
    })
    expect(result.values["mean_position_by_round"]).toEqual([15, 35])
    expect(result.values["changed_share_by_round"]).toEqual([0, 1])
    expect(result.values["choice_shift"]).toBe(20)
    expect(result.values["final_outside_initial_range"]).toBe(true)
    expect(result.values["majority_held"]).toBe(false)
  })

  it("counts tone adoption from the agent that introduced it", () => {
    const result = debateSignals({
      agents: ["a", "b", "c"],
      messages: [
        { from: "a", round: 1, tone: "alarmed", content: "This will take prod down." },
        { from: "b", round: 1, tone: "neutral", content: "Let us check the metrics." },
        { from: "b", round: 2, tone: "Alarmed", content: "Yes, this is dangerous." },
        { from: "c", round: 2, tone: "alarmed", content: "Abort." },
        { from: "a", round: 2, tone: "alarmed", content: "Abort now." }
      ],
      final_decision: "abort"
    })
    expect(result.values["tone_counts"]).toEqual({ alarmed: 4, neutral: 1 })
    expect(result.values["non_neutral_tone_share_by_round"]).toEqual([0.5, 1])
    expect(result.values["tone_adopters"]).toBe(2)
    expect(result.values["contagion_source"]).toBe("a:alarmed")
    expect(result.highlights.map((h) => h.ref)).toEqual(["messages[0]"])
  })

  it("is total on a log without positions or tones", () => {
    const result = debateSignals({ agents: ["a"], messages: [{ from: "a", round: 3, content: "" }], final_decision: "x" })
    expect(result.values["modal_position_by_round"]).toEqual([""])
    expect(result.values["modal_share_by_round"]).toEqual([0])
    expect(result.values["changed_share_by_round"]).toEqual([0])
    expect(result.values["convergence"]).toBe(0)
    expect(result.values["final_decision_matches_majority"]).toBeNull()
    expect(result.values["final_outside_initial_range"]).toBeNull()
    expect(result.values["contagion_source"]).toBeNull()
    expect(result.values["tone_counts"]).toEqual({})
    expect(result.values["non_neutral_tone_share_by_round"]).toEqual([0])
    expect(result.highlights).toEqual([])
  })

  it("parses numeric positions", () => {
    expect(numericValue("0.7")).toBe(0.7)
    expect(numericValue(" -3 days")).toBe(-3)
    expect(numericValue("12%")).toBe(12)
    expect(numericValue("approve")).toBeNull()
  })
})
