import { describe, expect, it } from "@effect/vitest"
import { biasSignals, slope, toolFamily } from "../../patterns/bias_stack/signals.js"

describe("bias_stack signals", () => {
  it("tracks confidence around contradicting evidence, the anchor and retries", () => {
    const result = biasSignals({
      steps: [
        { type: "thought", confidence: 0.5, content: "Estimate is 120 units." },
        { type: "tool_call", tool: "db.query", content: "query units" },
        { type: "observation", tool: "db.query", content: "Result does not match: 80 units" },
        { type: "thought", confidence: 0.4, content: "Lowering to 80." },
        { type: "tool_call", tool: "db.query", content: "query again" },
        { type: "observation", tool: "db.query", content: "Error: timeout" },
        { type: "answer", confidence: 0.6, content: "Answer: 120 units, as expected." }
      ]
    })
    expect(result.values["confidence_series"]).toEqual([0.5, 0.4, 0.6])
    expect(result.values["confidence_first"]).toBe(0.5)
    expect(result.values["confidence_last"]).toBe(0.6)
    expect(result.values["confidence_max"]).toBe(0.6)
    // points (0, .5), (3, .4), (6, .6): slope = 0.3 / 18
    expect(result.values["confidence_trend"]).toBe(0.0167)
    expect(result.values["contradiction_steps"]).toBe(2)
    expect(result.values["confidence_after_contradiction"]).toBe(0.5)
    expect(result.values["confidence_change_after_contradiction"]).toBe(0.05)
    expect(result.values["contradictions_without_confidence_drop"]).toBe(1)
    expect(result.values["anchor_value"]).toBe("120")
    expect(result.values["anchor_step"]).toBe(0)
    expect(result.values["anchor_repeats"]).toBe(1)
    expect(result.values["final_step_repeats_anchor"]).toBe(true)
    expect(result.values["confirmation_markers"]).toBe(1)
    expect(result.values["confirmation_ratio"]).toBe(1)
    expect(result.values["calls_after_failure_same_tool"]).toBe(1)
    expect(result.values["persistence_after_first_contradiction"]).toBe(1)
    expect(result.values["error_steps"]).toBe(1)
    expect(result.highlights.map((h) => h.ref)).toEqual(["steps[6]", "steps[2]", "steps[5]", "steps[0]", "steps[4]"])
  })

  it("counts availability, disconfirming and escalation wording and is total without confidence", () => {
    const result = biasSignals({
      steps: [
        { type: "thought", content: "Usually this is DNS. Let me rule out the cache first." },
        { type: "thought", content: "I already tried twice, one more attempt on v2." }
      ]
    })
    expect(result.values["availability_markers"]).toBe(1)
    expect(result.values["disconfirming_checks"]).toBe(1)
    expect(result.values["confirmation_ratio"]).toBe(0)
    expect(result.values["escalation_markers"]).toBe(1)
    expect(result.values["confidence_series"]).toEqual([])
    expect(result.values["confidence_first"]).toBeNull()
    expect(result.values["confidence_trend"]).toBeNull()
    expect(result.values["confidence_after_contradiction"]).toBeNull()
    expect(result.values["confidence_change_after_contradiction"]).toBeNull()
    expect(result.values["anchor_value"]).toBeNull()
    expect(result.values["anchor_step"]).toBeNull()
    expect(result.values["final_step_repeats_anchor"]).toBe(false)
    expect(result.values["contradiction_steps"]).toBe(0)
    expect(result.values["persistence_after_first_contradiction"]).toBe(0)
  })

  it("computes least-squares slopes and tool families", () => {
    expect(slope([0, 1, 2], [0, 1, 2])).toBe(1)
    expect(slope([0, 1, 2], [1, 1, 1])).toBe(0)
    expect(slope([1], [1])).toBeNull()
    expect(slope([2, 2], [1, 3])).toBeNull()
    expect(toolFamily("cdn.stats")).toBe("cdn")
    expect(toolFamily("search")).toBe("search")
  })
})
