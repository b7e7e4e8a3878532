import { describe, expect, it } from "@effect/vitest"
import { FIT_PRIOR, thomasKilmannSignals } from "../../patterns/thomas_kilmann/signals.js"

describe("thomas_kilmann signals", () => {
  it("finds the conflict, the modes and a competing-to-accommodating reversal", () => {
    const result = thomasKilmannSignals({
      turns: [
        { role: "user", content: "I want a refund." },
        { role: "assistant", content: "Our policy does not allow that." },
        { role: "user", content: "That's unacceptable." },
        { role: "assistant", content: "You're right, sorry. Refund issued." },
        { role: "user", content: "Thanks." }
      ]
    })
    expect(result.values["user_turns"]).toBe(3)
    expect(result.values["agent_turns"]).toBe(2)
    expect(result.values["user_conflict_turns"]).toBe(2)
    expect(result.values["first_conflict_turn"]).toBe(0)
    // user turns split [0] | [2, 4]: conflict share 1 then 0.5
    expect(result.values["user_conflict_trend"]).toBe(-0.5)
    expect(result.values["mode_markers"]).toEqual({ competing: 1, collaborating: 0, compromising: 0, avoiding: 0, accommodating: 1 })
    expect(result.values["dominant_marker_mode"]).toBe("competing")
    expect(result.values["assertiveness_proxy"]).toBe(0.5)
    expect(result.values["cooperativeness_proxy"]).toBe(0.5)
    expect(result.values["stance_reversal"]).toBe(true)
    expect(result.values["agent_apologies"]).toBe(1)
    expect(result.values["agent_questions"]).toBe(0)
    expect(result.values["closing_positive"]).toBe(true)
    expect(result.values["task_category"]).toBeNull()
    expect(result.values["fit_prior_style"]).toBeNull()
    expect(result.highlights.map((h) => h.ref)).toEqual(["turns[0]", "turns[1]", "turns[3]"])
  })

  it("scores collaborating and compromising on both axes and applies the category prior", () => {
    const result = thomasKilmannSignals({
      task_category: "negotiation",
      turns: [
        { role: "customer", content: "Why can't you deliver by Friday? This is wrong." },
        { role: "sales_agent", content: "Help me understand what matters most: the date or the full order? How about a partial shipment Friday?" }
      ]
    })
    expect(result.values["mode_markers"]).toEqual({ competing: 0, collaborating: 1, compromising: 1, avoiding: 0, accommodating: 0 })
    expect(result.values["dominant_marker_mode"]).toBe("collaborating")
    // (0 + 1 + 1/2) / 2 on both axes
    expect(result.values["assertiveness_proxy"]).toBe(0.75)
    expect(result.values["cooperativeness_proxy"]).toBe(0.75)
    expect(result.values["agent_questions"]).toBe(1)
    expect(result.values["fit_prior_style"]).toBe("compromising")
    expect(result.values["stance_reversal"]).toBe(false)
  })

  it("ignores system turns and reads every agent turn when there is no conflict", () => {
    const result = thomasKilmannSignals({
      turns: [
        { role: "system", content: "You must follow the policy." },
        { role: "user", content: "Hi" },
        { role: "assistant", content: "Hello! Anything else?" }
      ]
    })
    expect(result.values["first_conflict_turn"]).toBeNull()
    expect(result.values["agent_turns"]).toBe(1)
    expect(result.values["mode_markers"]).toEqual({ competing: 0, collaborating: 0, compromising: 0, avoiding: 1, accommodating: 0 })
    expect(result.values["user_conflict_trend"]).toBe(0)
    expect(result.values["closing_positive"]).toBe(false)
    expect(result.highlights.map((h) => h.ref)).toEqual(["turns[2]"])
  })

  it("is total when the agent side is missing", () => {
    const result = thomasKilmannSignals({ turns: [{ role: "user", content: "I want my money back" }] })
    expect(result.values["agent_turns_in_conflict"]).toBe(0)
    expect(result.values["dominant_marker_mode"]).toBeNull()
    expect(result.values["assertiveness_proxy"]).toBeNull()
    expect(result.values["cooperativeness_proxy"]).toBeNull()
    expect(result.values["stance_reversal"]).toBe(false)
    expect(FIT_PRIOR.other).toBeNull()
    expect(FIT_PRIOR.safety_or_policy).toBe("competing")
  })
})
