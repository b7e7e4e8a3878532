import { describe, expect, it } from "@effect/vitest"
import { aarSignals, contentWords, durationSeconds, termCoverage } from "../../patterns/aar/signals.js"

describe("aar signals", () => {
  it("finds the stated intent, the first error, assumptions and a completion claimed on a failed run", () => {
    const result = aarSignals({
      task: "Report the monthly revenue total from the ledger",
      steps: [
        { type: "plan", content: "Plan: fetch data, then verify totals", timestamp: "2026-01-01T00:00:00Z" },
        { type: "tool_call", tool: "db.query", content: "select sum(amount)", timestamp: "yesterday" },
        { type: "observation", tool: "db.query", content: "Error 500: connection refused" },
        { type: "thought", content: "The total is probably 1200, I assume the cache is right" },
        { type: "message", content: "Done: total is 1200", timestamp: "2026-01-01T00:01:30Z" }
      ],
      outcome: "Reported a revenue total of 1200 which was wrong",
      success: false
    })
    expect(result.values["plan_steps"]).toBe(1)
    expect(result.values["plan_before_first_action"]).toBe(true)
    expect(result.values["replans_after_first_action"]).toBe(0)
    expect(result.values["action_steps"]).toBe(1)
    expect(result.values["error_steps"]).toBe(1)
    expect(result.values["first_error_step"]).toBe(2)
    expect(result.values["first_error_position"]).toBe(0.6)
    expect(result.values["actions_after_first_error"]).toBe(0)
    expect(result.values["plan_includes_verification"]).toBe(true)
    expect(result.values["verification_actions"]).toBe(0)
    expect(result.values["assumption_steps"]).toBe(1)
    expect(result.values["completion_claims"]).toBe(1)
    expect(result.values["claimed_completion_on_failed_run"]).toBe(true)
    expect(result.values["ends_on_error"]).toBe(false)
    expect(result.values["task_terms_covered_by_outcome"]).toBe(0.4)
    expect(result.values["duration_seconds"]).toBe(90)
    expect(result.highlights.map((h) => h.ref)).toEqual(["steps[0]", "steps[2]", "steps[4]", "steps[3]"])
  })

  it("counts a plan written after the first action as a re-plan", () => {
    const result = aarSignals({
      task: "Fix the build",
      steps: [
        { type: "action", content: "npm run build" },
        { type: "plan", content: "Revised plan: pin the compiler version" }
      ],
      outcome: "Build fixed",
      success: true
    })
    expect(result.values["plan_before_first_action"]).toBe(false)
    expect(result.values["replans_after_first_action"]).toBe(1)
    expect(result.values["claimed_completion_on_failed_run"]).toBe(false)
  })

  it("counts test runs as verification but not the completion claim that cites them", () => {
    const result = aarSignals({
      task: "Fix the failing test",
      steps: [
        { type: "tool_call", tool: "shell", content: "npm test" },
        { type: "tool_call", tool: "github.comment", content: "comment('done, all tests pass')" }
      ],
      outcome: "Tests still failing",
      success: false
    })
    expect(result.values["verification_actions"]).toBe(1)
    expect(result.values["completion_claims"]).toBe(1)
    expect(result.values["plan_includes_verification"]).toBe(false)
    expect(result.highlights.map((h) => h.ref)).toEqual(["steps[1]", "steps[0]"])
  })

  it("is total on a minimal trace without plan, errors or timestamps", () => {
    const result = aarSignals({ task: "x", steps: [{ type: "action", content: "ls" }], outcome: "", success: true })
    expect(result.values["plan_steps"]).toBe(0)
    expect(result.values["plan_before_first_action"]).toBe(false)
    expect(result.values["first_error_step"]).toBeNull()
    expect(result.values["first_error_position"]).toBeNull()
    expect(result.values["task_terms_covered_by_outcome"]).toBe(0)
    expect(result.values["duration_seconds"]).toBeNull()
    expect(result.values["ends_on_error"]).toBe(false)
    expect(result.highlights).toEqual([])
  })

  it("measures term coverage and duration by hand", () => {
    expect([...contentWords("Open the PR against main and keep it green")]).toEqual(["open", "against", "main", "green"])
    expect(termCoverage("deploy service alpha beta", "alpha deployed, beta pending")).toBe(0.5)
    expect(
      durationSeconds([
        { type: "a", content: "", timestamp: "2026-01-01T00:00:10Z" },
        { type: "b", content: "", timestamp: "2026-01-01T00:00:00Z" }
      ])
    ).toBe(10)
  })
})
