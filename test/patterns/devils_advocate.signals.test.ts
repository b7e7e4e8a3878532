import { describe, expect, it } from "@effect/vitest"
import { ADVOCATE_NAME, devilsAdvocateSignals, stanceOf } from "../../patterns/devils_advocate/signals.js"

describe("devils_advocate signals", () => {
  it("follows an objection that is answered before the critic concedes", () => {
    const result = devilsAdvocateSignals({
      steps: [
        { actor: "proposer", type: "thought", content: "Plan A." },
        { actor: "critic", type: "message", content: "Risk: A fails on empty input." },
        { actor: "proposer", type: "action", content: "Good catch, added a guard for empty input." },
        { actor: "critic", type: "message", content: "LGTM." }
      ]
    })
    expect(result.values["advocate_actors"]).toEqual(["critic"])
    expect(result.values["advocate_present"]).toBe(true)
    expect(result.values["advocate_share"]).toBe(0.5)
    // 7 of 17 words come from the critic
    expect(result.values["advocate_word_share"]).toBe(0.4118)
    expect(result.values["advocate_objections"]).toBe(1)
    expect(result.values["objections_answered"]).toBe(1)
    expect(result.values["objections_dismissed"]).toBe(0)
    expect(result.values["objections_unanswered"]).toBe(0)
    expect(result.values["first_objection_step"]).toBe(1)
    expect(result.values["advocate_reversed"]).toBe(true)
    expect(result.values["concession_after_answer"]).toBe(true)
    expect(result.values["advocate_final_stance"]).toBe("conceding")
    expect(result.values["decider"]).toBe("critic")
    expect(result.values["advocate_is_decider"]).toBe(true)
    expect(result.highlights.map((h) => h.ref)).toEqual(["steps[1]", "steps[3]"])
  })

  it("flags a dismissal and a concession with nothing answering it", () => {
    const result = devilsAdvocateSignals({
      steps: [
        { actor: "red_team", type: "message", content: "What if the cache is stale?" },
        { actor: "planner", type: "message", content: "Unlikely, proceed." },
        { actor: "red_team", type: "message", content: "You're right." }
      ]
    })
    expect(result.values["objections_dismissed"]).toBe(1)
    expect(result.values["objections_answered"]).toBe(0)
    expect(result.values["concession_after_answer"]).toBe(false)
    expect(result.highlights.map((h) => h.ref)).toEqual(["steps[0]", "steps[1]", "steps[2]"])
  })

  it("counts an unanswered objection and self-critique without a dissent role", () => {
    const unanswered = devilsAdvocateSignals({
      steps: [{ actor: "reviewer", type: "message", content: "However, the migration has no rollback." }]
    })
    expect(unanswered.values["objections_unanswered"]).toBe(1)
    expect(unanswered.values["advocate_reversed"]).toBe(false)
    expect(unanswered.values["concession_after_answer"]).toBeNull()

    const none = devilsAdvocateSignals({
      steps: [
        { actor: "coder", type: "thought", content: "This may fail on an edge case." },
        { actor: "coder", type: "action", content: "Ship." }
      ]
    })
    expect(none.values["advocate_present"]).toBe(false)
    expect(none.values["advocate_actors"]).toEqual([])
    expect(none.values["advocate_share"]).toBe(0)
    expect(none.values["first_objection_step"]).toBeNull()
    expect(none.values["advocate_final_stance"]).toBeNull()
    expect(none.values["proposer_self_critique_steps"]).toBe(1)
    expect(none.values["decider"]).toBe("coder")
    expect(none.values["advocate_is_decider"]).toBe(false)
    expect(none.highlights).toEqual([])
  })

  it("classifies stances and recognises dissent-role names", () => {
    expect(stanceOf("No concerns.")).toBe("conceding")
    expect(stanceOf("However, this is risky.")).toBe("objecting")
    expect(stanceOf("I agree, but the rollback is missing.")).toBe("mixed")
    expect(stanceOf("Running tests.")).toBe("neutral")
    expect(ADVOCATE_NAME.test("red_team")).toBe(true)
    expect(ADVOCATE_NAME.test("code_reviewer")).toBe(true)
    expect(ADVOCATE_NAME.test("planner")).toBe(false)
  })
})
