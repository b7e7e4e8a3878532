import { describe, expect, it } from "@effect/vitest"
import { dominantStrength, grantStrengthsSignals, toolRuns } from "../../patterns/grant_strengths/signals.js"

describe("grant_strengths signals", () => {
  it("doses each strength and measures same-tool runs", () => {
    const result = grantStrengthsSignals({
      success: false,
      steps: [
        { type: "tool_call", tool: "search", content: "search('x')" },
        { type: "observation", tool: "search", content: "3 results" },
        { type: "tool_call", tool: "search", content: "search('x') again to be sure" },
        { type: "tool_call", tool: "search", content: "retry search('x')" },
        { type: "tool_call", tool: "fetch", content: "fetch(url)" },
        { type: "thought", content: "You're right, I apologise. Should I continue?" },
        { type: "observation", tool: "fetch", content: "Error 500 from server" }
      ]
    })
    expect(result.values["strength_marker_steps"]).toEqual({
      thoroughness: 1,
      persistence: 1,
      helpfulness: 1,
      caution: 0,
      initiative: 0,
      confidence: 0
    })
    // a three-way tie goes to the first strength in the fixed order
    expect(result.values["dominant_marker_strength"]).toBe("thoroughness")
    expect(result.values["dominant_marker_share"]).toBe(0.1429)
    expect(result.values["strengths_marked"]).toBe(3)
    // tool calls are steps 0, 2, 3, 4 (observations excluded): search, search, search, fetch
    expect(result.values["tool_calls"]).toBe(4)
    expect(result.values["distinct_tools_called"]).toBe(2)
    expect(result.values["tool_diversity"]).toBe(0.5)
    expect(result.values["longest_same_tool_run"]).toBe(3)
    expect(result.values["same_tool_repeat_calls"]).toBe(2)
    expect(result.values["question_steps"]).toBe(1)
    expect(result.values["first_error_step"]).toBe(6)
    expect(result.values["steps_after_first_error"]).toBe(0)
    expect(result.values["stated_confidence_mean"]).toBeNull()
    expect(result.values["confident_on_failed_run"]).toBe(false)
    expect(result.highlights.map((h) => h.ref)).toEqual(["steps[2]", "steps[0]", "steps[6]"])
  })

  it("flags stated confidence on a failed run, not on a successful one", () => {
    const steps = [
      { type: "thought", content: "This is definitely the cause.", confidence: 0.9 },
      { type: "answer", content: "Fixed.", confidence: 0.7 }
    ]
    const failed = grantStrengthsSignals({ success: false, steps })
    expect(failed.values["stated_confidence_mean"]).toBe(0.8)
    expect(failed.values["confident_on_failed_run"]).toBe(true)
    expect(failed.values["dominant_marker_strength"]).toBe("confidence")
    expect(failed.values["dominant_marker_share"]).toBe(0.5)
    expect(grantStrengthsSignals({ success: true, steps }).values["confident_on_failed_run"]).toBe(false)
  })

  it("counts steps after the first error", () => {
    const result = grantStrengthsSignals({
      success: false,
      steps: [
        { type: "tool_call", tool: "build", content: "npm run build" },
        { type: "observation", tool: "build", content: "build failed: missing module" },
        { type: "tool_call", tool: "build", content: "try again: npm run build" },
        { type: "tool_call", tool: "build", content: "try again: npm run build" },
        { type: "thought", content: "Still failing, one more try." }
      ]
    })
    expect(result.values["first_error_step"]).toBe(1)
    expect(result.values["steps_after_first_error"]).toBe(3)
    expect(result.values["dominant_marker_strength"]).toBe("persistence")
    expect(result.values["longest_marker_run"]).toBe(3)
    expect(result.values["longest_same_tool_run"]).toBe(3)
    expect(result.values["repeated_steps"]).toBe(1)
  })

  it("is total on a trace without markers, tools or errors", () => {
    const result = grantStrengthsSignals({ success: true, steps: [{ type: "thought", content: "done" }] })
    expect(result.values["dominant_marker_strength"]).toBeNull()
    expect(result.values["dominant_marker_share"]).toBe(0)
    expect(result.values["tool_calls"]).toBe(0)
    expect(result.values["tool_diversity"]).toBe(0)
    expect(result.values["longest_same_tool_run"]).toBe(0)
    expect(result.values["first_error_step"]).toBeNull()
    expect(result.values["steps_after_first_error"]).toBe(0)
    expect(result.values["longest_marker_run"]).toBe(0)
    expect(result.highlights).toEqual([])
  })

  it("breaks ties by the fixed order and finds the longest run's start", () => {
    expect(
      dominantStrength({ thoroughness: 0, persistence: 2, helpfulness: 2, caution: 0, initiative: 0, confidence: 0 })
    ).toBe("persistence")
    expect(
      dominantStrength({ thoroughness: 0, persistence: 0, helpfulness: 0, caution: 0, initiative: 0, confidence: 0 })
    ).toBeNull()
    const runs = toolRuns([
      { type: "tool_call", tool: "a", content: "" },
      { type: "tool_call", tool: "b", content: "" },
      { type: "tool_call", tool: "b", content: "" },
      { type: "observation", tool: "b", content: "" },
      { type: "tool_call", tool: "b", content: "" }
    ])
    expect(runs.calls).toEqual([0, 1, 2, 4])
    expect(runs.longest).toBe(3)
    expect(runs.longestStart).toBe(1)
    expect(runs.repeats).toBe(2)
  })
})
