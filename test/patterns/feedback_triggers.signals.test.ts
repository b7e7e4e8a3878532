import { describe, expect, it } from "@effect/vitest"
import { feedbackIndices, feedbackTriggerSignals, reactionOf } from "../../patterns/feedback_triggers/signals.js"

describe("feedback_triggers signals", () => {
  it("reads reactions, triggered ones first", () => {
    expect(reactionOf("That's not correct, no change needed.")).toBe("rejecting")
    expect(reactionOf("You don't have the context here.")).toBe("deflecting")
    expect(reactionOf("You're absolutely right, I apologize.")).toBe("capitulating")
    expect(reactionOf("Sorry, I'll start over from scratch.")).toBe("overreacting")
    expect(reactionOf("Which line do you mean?")).toBe("clarifying")
    expect(reactionOf("Good catch, fixed.")).toBe("accepting")
    expect(reactionOf("Okay.")).toBe("other")
  })

  it("finds feedback by flag, else by type", () => {
    expect(
      feedbackIndices([
        { from: "a", content: "x", is_feedback: false },
        { from: "b", content: "y", is_feedback: true, type: "status" },
        { from: "c", content: "z", type: "critique" }
      ])
    ).toEqual({ indices: [1], source: "is_feedback" })
    expect(
      feedbackIndices([
        { from: "a", content: "x" },
        { from: "b", content: "y", type: "code_review" }
      ])
    ).toEqual({ indices: [1], source: "type" })
    expect(feedbackIndices([{ from: "a", content: "x" }])).toEqual({ indices: [], source: "none" })
  })

  it("follows each feedback message to its receiver's reply", () => {
    const result = feedbackTriggerSignals({
      agents: ["coder", "critic", "reviewer"],
      feedback_incorporated: true,
      messages: [
        { from: "coder", content: "Draft ready." },
        { from: "critic", to: "coder", content: "You should validate the input; 3/10 as is.", is_feedback: true },
        { from: "coder", to: "critic", content: "That's not correct, it works as intended." },
        { from: "critic", to: "coder", content: "Please add validation.", is_feedback: true },
        { from: "coder", to: "critic", content: "Good catch, fixed." },
        { from: "reviewer", content: "Great work overall.", is_feedback: true }
      ]
    })
    const v = result.values
    expect(v["feedback_source"]).toBe("is_feedback")
    expect(v["feedback_messages"]).toBe(3)
    expect(v["feedback_share"]).toBe(0.5)
    expect(v["feedback_by_giver"]).toEqual({ critic: 2, reviewer: 1 })
    expect(v["responses_rejecting"]).toBe(1)
    expect(v["responses_accepting"]).toBe(1)
    // the reviewer's feedback goes to coder (last other sender) who never speaks again
    expect(v["responses_missing"]).toBe(1)
    expect(v["triggered_response_share"]).toBe(0.5)
    // both answered feedback messages are followed by the coder's "fixed"
    expect(v["feedback_followed_by_change"]).toBe(2)
    expect(v["repeated_feedback"]).toBe(1)
    expect(v["feedback_kinds"]).toEqual({ appreciation: 1, coaching: 1, evaluation: 1 })
    expect(v["triggered_agents"]).toEqual(["coder"])
    expect(v["first_triggered_response"]).toBe("messages[2]")
    expect(v["trigger_hint"]).toBe("truth")
    expect(v["feedback_incorporated"]).toBe(true)
    expect(result.highlights.map((h) => h.ref)).toEqual(["messages[2]", "messages[5]", "messages[1]", "messages[3]"])
  })

  it("is total when there is no feedback", () => {
    const result = feedbackTriggerSignals({
      agents: ["a"],
      feedback_incorporated: false,
      messages: [{ from: "a", content: "Working." }]
    })
    expect(result.values["feedback_messages"]).toBe(0)
    expect(result.values["feedback_source"]).toBe("none")
    expect(result.values["triggered_response_share"]).toBe(0)
    expect(result.values["trigger_hint"]).toBeNull()
    expect(result.values["first_triggered_response"]).toBeNull()
    expect(result.highlights).toEqual([])
  })

  it("leaves feedback_incorporated null when it is not given (a raw trace)", () => {
    const result = feedbackTriggerSignals({
      agents: ["coder", "critic"],
      messages: [
        { from: "coder", content: "Draft ready." },
        { from: "critic", to: "coder", content: "Please add validation.", is_feedback: true },
        { from: "coder", to: "critic", content: "Good catch, fixed." }
      ]
    })
    expect(result.values["feedback_incorporated"]).toBeNull()
    expect(result.values["feedback_followed_by_change"]).toBe(1)
  })
})
