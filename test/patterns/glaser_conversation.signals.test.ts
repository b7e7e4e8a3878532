import { describe, expect, it } from "@effect/vitest"
import { dominantLevel, glaserSignals, levelPath, turnLevel } from "../../patterns/glaser_conversation/signals.js"

describe("glaser_conversation signals", () => {
  it("labels turns by conversation level", () => {
    expect(turnLevel("Here is the report.")).toBe("I")
    expect(turnLevel("I recommend the second option.")).toBe("II")
    expect(turnLevel("As I said, it works.")).toBe("II")
    expect(turnLevel("What decision will this help them make?")).toBe("III")
    expect(turnLevel("What if we split it by cohort?")).toBe("III")
  })

  it("takes the dominant level per third, ties to the lower level", () => {
    expect(dominantLevel([])).toBeNull()
    expect(dominantLevel(["II", "III"])).toBe("II")
    expect(levelPath(["I", "II"])).toEqual(["I", "II"])
    // six turns: thirds are [I, I], [II, III], [III, III]
    expect(levelPath(["I", "I", "II", "III", "III", "III"])).toEqual(["I", "II", "III"])
  })

  it("measures questions, pushback and what the agent did after it", () => {
    const result = glaserSignals({
      turns: [
        { role: "user", content: "Make me a plan." },
        { role: "assistant", content: "Here is a plan. Step one is research." },
        { role: "user", content: "That's not what I need." },
        { role: "assistant", content: "I recommend this plan. You should follow it." },
        { role: "user", content: "I disagree." },
        { role: "assistant", content: "What would success look like for you? Is the deadline fixed?" },
        { role: "tool", content: "calendar.lookup -> deadline Friday" }
      ]
    })
    const v = result.values
    expect(v["counterpart_role"]).toBe("user")
    expect(v["agent_turns"]).toBe(3)
    expect(v["agent_questions"]).toBe(2)
    expect(v["agent_open_questions"]).toBe(1)
    expect(v["agent_closed_questions"]).toBe(1)
    // 2 questions against 4 statements
    expect(v["ask_tell_ratio"]).toBe(0.5)
    expect(v["agent_question_turn_share"]).toBe(0.3333)
    expect(v["first_agent_question_turn"]).toBe(5)
    expect(v["longest_agent_run_without_question"]).toBe(2)
    expect(v["agent_level_counts"]).toEqual({ I: 1, II: 1, III: 1 })
    expect(v["counterpart_level_counts"]).toEqual({ I: 1, II: 2, III: 0 })
    expect(v["level_path"]).toEqual(["I", "II", "III"])
    expect(v["counterpart_pushback_turns"]).toBe(2)
    expect(v["pushback_met_with_advocacy"]).toBe(1)
    expect(v["pushback_met_with_question"]).toBe(1)
    // agent pronouns: I (1), you (2: "You should", "for you"), we (0)
    expect(v["agent_we_share"]).toBe(0)
    expect(result.highlights.map((h) => h.ref)).toEqual(["turns[3]", "turns[2]", "turns[4]", "turns[5]"])
  })

  it("is total on a conversation with no agent turns", () => {
    const result = glaserSignals({ turns: [{ role: "user", content: "Hello?" }] })
    expect(result.values["agent_turns"]).toBe(0)
    expect(result.values["ask_tell_ratio"]).toBe(0)
    expect(result.values["dominant_agent_level"]).toBeNull()
    expect(result.values["level_path"]).toEqual([])
    expect(result.values["agent_word_share"]).toBe(0)
    expect(result.values["first_agent_question_turn"]).toBeNull()
    const empty = glaserSignals({ turns: [] })
    expect(empty.values["counterpart_role"]).toBeNull()
    expect(empty.highlights).toEqual([])
  })
})
