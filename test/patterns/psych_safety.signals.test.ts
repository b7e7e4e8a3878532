import { describe, expect, it } from "@effect/vitest"
import { psychSafetySignals } from "../../patterns/psych_safety/signals.js"

describe("psych_safety signals", () => {
  it("classifies the answers to voice and measures voice before and after a punitive reply", () => {
    const result = psychSafetySignals({
      agents: ["lead", "worker", "critic"],
      messages: [
        { from: "lead", to: "worker", content: "Build the report." },
        { from: "worker", to: "lead", content: "Error: the sales API returned 500." },
        { from: "lead", to: "worker", content: "What happened? Can you retry with the backup endpoint?" },
        { from: "worker", to: "lead", content: "Retried with backup, fixed." },
        { from: "worker", to: "lead", content: "I'm not sure the totals include refunds." },
        { from: "lead", to: "worker", content: "Unacceptable. Just deliver it." },
        { from: "worker", to: "lead", content: "Done, report complete." }
      ]
    })
    const v = result.values
    expect(v["messages_per_agent"]).toEqual({ lead: 3, worker: 4, critic: 0 })
    expect(v["contribution_shares"]).toEqual({ lead: 0.4286, worker: 0.5714, critic: 0 })
    // Gini of [0, 3, 4]: 2 * (1*0 + 2*3 + 3*4) / (3 * 7) - 4/3 = 0.381
    expect(v["contribution_gini"]).toBe(0.381)
    expect(v["silent_agents"]).toEqual(["critic"])
    expect(v["error_messages"]).toBe(1)
    expect(v["question_messages"]).toBe(1)
    expect(v["uncertainty_messages"]).toBe(1)
    expect(v["voice_messages"]).toBe(2)
    expect(v["voice_share"]).toBe(0.2857)
    expect(v["responses_inquiry"]).toBe(1)
    expect(v["responses_blame"]).toBe(1)
    expect(v["responses_ignored"]).toBe(0)
    expect(v["first_blame_message"]).toBe(5)
    expect(v["first_punitive_reply"]).toBe(5)
    // voice in messages 0-4: 2 of 5; after message 5: 0 of 1
    expect(v["voice_rate_before_blame"]).toBe(0.4)
    expect(v["voice_rate_after_blame"]).toBe(0)
    expect(v["voice_drop_after_blame"]).toBe(0.4)
    // the success claim follows a repaired error, so it is not counted as hiding one
    expect(v["success_claims"]).toBe(1)
    expect(v["success_claims_over_error"]).toBe(0)
    expect(result.highlights.map((h) => h.ref)).toEqual(["messages[5]", "messages[1]", "messages[4]"])
  })

  it("flags success claimed over an unrepaired error and masked tests", () => {
    const result = psychSafetySignals({
      agents: ["lead", "tester", "coder"],
      messages: [
        { from: "tester", to: "lead", content: "3 tests failed with AssertionError." },
        { from: "tester", to: "lead", content: "All tests pass now." },
        { from: "coder", to: "lead", content: "Marked the flaky ones with @skip." }
      ]
    })
    const v = result.values
    expect(v["silent_agents"]).toEqual(["lead"])
    expect(v["success_claims_over_error"]).toBe(1)
    expect(v["masking_messages"]).toBe(1)
    expect(v["responses_ignored"]).toBe(1)
    expect(v["first_blame_message"]).toBeNull()
    expect(v["voice_rate_before_blame"]).toBeNull()
    expect(v["voice_drop_after_blame"]).toBeNull()
    expect(result.highlights.map((h) => h.ref)).toEqual(["messages[2]", "messages[1]", "messages[0]"])
  })

  it("is total on an empty log", () => {
    const result = psychSafetySignals({ agents: [], messages: [] })
    expect(result.values["message_count"]).toBe(0)
    expect(result.values["contribution_gini"]).toBe(0)
    expect(result.values["voice_share"]).toBe(0)
    expect(result.values["silent_agents"]).toEqual([])
    expect(result.values["first_punitive_reply"]).toBeNull()
    expect(result.highlights).toEqual([])
  })
})
