import { describe, expect, it } from "@effect/vitest"
import { smartGoalSignals } from "../../patterns/smart_goal/signals.js"

describe("smart_goal signals", () => {
  it("reads what a vague goal lacks", () => {
    const result = smartGoalSignals({ vague_goal: "Make the bot better and faster" })
    const v = result.values
    expect(v["vague_goal_words"]).toBe(6)
    expect(v["vague_terms"]).toEqual(["better", "faster"])
    expect(v["vague_term_count"]).toBe(2)
    expect(v["criteria_hints"]).toEqual({ specific: 0, measurable: 0, assignable: 0, realistic: null, time_related: 0 })
    expect(v["criteria_missing_hint"]).toEqual(["specific", "measurable", "assignable", "time_related"])
    expect(v["smart_hint_count"]).toBe(0)
    expect(v["baseline_available"]).toBe(false)
    expect(v["constraint_count"]).toBe(0)
    expect(v["deadline_hint_present"]).toBe(false)
    expect(v["deadline_hint_has_time"]).toBe(false)
    expect(result.highlights.map((h) => h.ref)).toEqual(["vague_goal"])
  })

  it("recognises a goal that already carries metric, owner and time", () => {
    const result = smartGoalSignals({
      vague_goal: "The triage-agent will cut p95 latency to 800 ms by 2025-09-30 for support tickets",
      context: "Current p95 is 1,400 ms.",
      constraints: ["Budget at most $300 per month", "Keep the current vendor"],
      deadline_hint: "end of Q3"
    })
    const v = result.values
    expect(v["vague_terms"]).toEqual([])
    expect(v["criteria_hints"]).toEqual({ specific: 1, measurable: 1, assignable: 1, realistic: null, time_related: 1 })
    expect(v["criteria_missing_hint"]).toEqual([])
    expect(v["smart_hint_count"]).toBe(4)
    expect(v["context_figures"]).toEqual(["1,400"])
    expect(v["baseline_available"]).toBe(true)
    // only the budget constraint carries a bound
    expect(v["bounding_constraints"]).toBe(1)
    expect(v["deadline_hint_has_time"]).toBe(true)
    expect(result.highlights.map((h) => h.ref)).toEqual(["context", "constraints[0]", "deadline_hint"])
  })

  it("is total on an empty constraint list and a missing context", () => {
    const result = smartGoalSignals({ vague_goal: "Improve things", constraints: [] })
    expect(result.values["context_words"]).toBe(0)
    expect(result.values["context_figures"]).toEqual([])
    expect(result.values["constraint_count"]).toBe(0)
    expect(result.values["bounding_constraints"]).toBe(0)
  })
})
