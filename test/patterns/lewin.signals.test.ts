import { describe, expect, it } from "@effect/vitest"
import { kelleyPrediction, lewinSignals } from "../../patterns/lewin/signals.js"

describe("lewin signals", () => {
  it("splits error steps into environmental and internal markers", () => {
    const result = lewinSignals({
      steps: [
        { type: "tool_call", content: "fetch the report" },
        { type: "observation", content: "Error 503 service unavailable" },
        { type: "observation", content: "request timed out" },
        { type: "thought", content: "I will assume the value is 4%" },
        { type: "error", content: "invalid JSON in my own output" }
      ],
      individual_factors: ["temperature 1.2"],
      environmental_factors: ["flaky API", "stale cache", "quota"]
    })
    expect(result.values["error_steps"]).toBe(3)
    expect(result.values["environmental_error_steps"]).toBe(2)
    expect(result.values["internal_marker_steps"]).toBe(2)
    expect(result.values["environmental_share_of_errors"]).toBe(0.6667)
    expect(result.values["factor_balance"]).toBe(0.25)
    expect(result.values["kelley_prediction"]).toBeNull()
    expect(result.highlights.map((h) => h.ref)).toEqual(["steps[1]", "steps[2]", "steps[3]", "steps[4]"])
  })

  it("follows Kelley's covariance table", () => {
    expect(kelleyPrediction({ consensus: 0.9, distinctiveness: 0.8, consistency: 0.9 })).toBe("environmental")
    expect(kelleyPrediction({ consensus: 0.1, distinctiveness: 0.2, consistency: 0.9 })).toBe("internal")
    expect(kelleyPrediction({ consensus: 0.9, distinctiveness: 0.9, consistency: 0.1 })).toBe("circumstance")
    expect(kelleyPrediction({ consensus: 0.9, distinctiveness: 0.1, consistency: 0.9 })).toBe("mixed")
    expect(kelleyPrediction(undefined)).toBeNull()
  })

  it("is total on a trace with no errors", () => {
    const result = lewinSignals({ steps: [{ type: "thought", content: "all fine" }] })
    expect(result.values["error_rate"]).toBe(0)
    expect(result.values["environmental_share_of_errors"]).toBe(0)
    expect(result.values["factor_balance"]).toBeNull()
    expect(result.highlights).toEqual([])
  })
})
