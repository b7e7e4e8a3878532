import { describe, expect, it } from "@effect/vitest"
import { outcomeClass, superflocksSignals } from "../../patterns/superflocks/signals.js"

describe("superflocks signals", () => {
  it("measures concentration on one agent", () => {
    const result = superflocksSignals({
      agents: ["a", "b", "c", "d"],
      routing_decisions: [
        { task_id: "1", routed_to: "a", candidates: ["a", "b"], outcome: "resolved" },
        { task_id: "2", routed_to: "a", candidates: ["a", "b"], outcome: "timeout" },
        { task_id: "3", routed_to: "a", candidates: ["a"], outcome: "failed" },
        { task_id: "4", routed_to: "a", candidates: ["a", "c"] }
      ]
    })
    expect(result.values["routed_counts"]).toEqual({ a: 4, b: 0, c: 0, d: 0 })
    expect(result.values["top_agent"]).toBe("a")
    expect(result.values["top_agent_share"]).toBe(1)
    // [0, 0, 0, 4]: Gini = 0.75
    expect(result.values["routing_gini"]).toBe(0.75)
    expect(result.values["herfindahl_index"]).toBe(1)
    expect(result.values["effective_agents"]).toBe(1)
    expect(result.values["concentration"]).toBe("high")
    expect(result.values["idle_agents"]).toEqual(["b", "c", "d"])
    expect(result.values["longest_top_streak"]).toBe(4)
    expect(result.values["top_chosen_when_alternatives"]).toBe(1)
    expect(result.values["no_fallback_share"]).toBe(0.25)
    expect(result.values["outcomes_known_share"]).toBe(0.75)
    // a: 1 success, 2 failures among known outcomes
    expect(result.values["top_agent_failure_rate"]).toBe(0.6667)
    expect(result.values["others_failure_rate"]).toBeNull()
    expect(result.values["failure_share_on_top"]).toBe(1)
    expect(result.values["top_agent_is_top_scored"]).toBeNull()
    expect(result.highlights.map((h) => h.ref)).toEqual([
      "routing_decisions[1]",
      "routing_decisions[2]",
      "agents[1]",
      "agents[2]",
      "agents[3]"
    ])
  })

  it("reads an even distribution as low concentration and tracks drift over the window", () => {
    const result = superflocksSignals({
      agents: ["a", "b"],
      routing_decisions: [
        { task_id: "1", routed_to: "b", outcome: "ok" },
        { task_id: "2", routed_to: "b" },
        { task_id: "3", routed_to: "a" },
        { task_id: "4", routed_to: "a" }
      ],
      individual_scores: [
        { agent: "a", score: 0.9 },
        { agent: "b", score: 0.5 }
      ]
    })
    expect(result.values["routing_gini"]).toBe(0)
    expect(result.values["herfindahl_index"]).toBe(0.5)
    expect(result.values["effective_agents"]).toBe(2)
    expect(result.values["concentration"]).toBe("low")
    // ties go to the first agent listed
    expect(result.values["top_agent"]).toBe("a")
    expect(result.values["top_share_first_half"]).toBe(0)
    expect(result.values["top_share_second_half"]).toBe(1)
    expect(result.values["decisions_with_candidates"]).toBe(0)
    expect(result.values["no_fallback_share"]).toBe(0)
    expect(result.values["failure_rate_by_agent"]).toEqual({ a: null, b: 0 })
    expect(result.values["top_agent_is_top_scored"]).toBe(true)
  })

  it("reports routees missing from the agent list", () => {
    const result = superflocksSignals({
      agents: ["a"],
      routing_decisions: [{ task_id: "1", routed_to: "ghost", outcome: "resolved" }]
    })
    expect(result.values["unlisted_routees"]).toEqual(["ghost"])
    expect(result.values["agent_count"]).toBe(2)
    expect(result.values["top_agent"]).toBe("ghost")
    expect(result.values["idle_agents"]).toEqual(["a"])
  })

  it("classifies outcomes with failure wording first", () => {
    expect(outcomeClass("resolved")).toBe("success")
    expect(outcomeClass("resolved after retry, then reopened")).toBe("failure")
    expect(outcomeClass("rate limited (429)")).toBe("failure")
    expect(outcomeClass("pending")).toBe("unknown")
    expect(outcomeClass(undefined)).toBe("unknown")
  })
})
