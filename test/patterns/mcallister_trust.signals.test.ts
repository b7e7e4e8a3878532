import { describe, expect, it } from "@effect/vitest"
import { mcallisterSignals, trustorRole } from "../../patterns/mcallister_trust/signals.js"

describe("mcallister_trust signals", () => {
  it("tracks the trustor's challenges and what the agent did before them", () => {
    const result = mcallisterSignals({
      turns: [
        { role: "user", content: "I'm worried about the deadline. What is the limit?" },
        { role: "assistant", content: "The limit is definitely 50 requests." },
        { role: "user", content: "Are you sure? Show me the source." },
        { role: "assistant", content: "Sorry! You're right, the limit is 50 requests per minute." },
        { role: "user", content: "That's wrong, the docs say 100." },
        { role: "assistant", content: "I apologize. I'll fix it: 100." },
        { role: "user", content: "Thanks, never mind, I'll check the docs myself." }
      ]
    })
    const v = result.values
    expect(v["trustor_role"]).toBe("user")
    expect(v["trustor_turns"]).toBe(4)
    expect(v["trustee_turns"]).toBe(3)
    expect(v["monitoring_turns"]).toBe(1)
    expect(v["correction_turns"]).toBe(1)
    expect(v["withdrawal_turns"]).toBe(1)
    // challenges at turns 2, 4, 6 out of 4 trustor turns
    expect(v["challenge_share"]).toBe(0.75)
    // first half (turns 0, 2): 1/2; second half (turns 4, 6): 2/2
    expect(v["challenge_trend"]).toBe(0.5)
    expect(v["first_challenge_turn"]).toBe(2)
    expect(v["assurance_turns"]).toBe(1)
    expect(v["assurance_then_challenge"]).toBe(1)
    expect(v["apology_turns"]).toBe(2)
    expect(v["apology_then_challenge"]).toBe(2)
    expect(v["deference_turns"]).toBe(1)
    expect(v["commitment_turns"]).toBe(1)
    expect(v["disclosure_turns"]).toBe(1)
    expect(v["appreciation_turns"]).toBe(1)
    expect(v["frustration_turns"]).toBe(0)
    expect(v["affect_balance"]).toBe(1)
    expect(v["repeated_trustee_figures"]).toEqual(["50"])
    expect(result.highlights.map((h) => h.ref)).toEqual([
      "turns[6]",
      "turns[4]",
      "turns[2]",
      "turns[1]",
      "turns[3]",
      "turns[5]",
      "turns[0]"
    ])
  })

  it("falls back to the first speaking party as trustor when there is no user", () => {
    expect(
      trustorRole([
        { role: "system", content: "You are a team." },
        { role: "planner", content: "Coder, write the parser." },
        { role: "coder", content: "Done." }
      ])
    ).toBe("planner")
    expect(trustorRole([{ role: "tool", content: "ok" }])).toBeNull()
    expect(trustorRole([])).toBeNull()
  })

  it("is total on an empty or one-sided conversation", () => {
    const empty = mcallisterSignals({ turns: [] })
    expect(empty.values["trustor_role"]).toBeNull()
    expect(empty.values["challenge_share"]).toBe(0)
    expect(empty.values["challenge_trend"]).toBe(0)
    expect(empty.values["first_challenge_turn"]).toBeNull()
    expect(empty.values["affect_balance"]).toBeNull()
    expect(empty.values["care_share"]).toBe(0)
    expect(empty.highlights).toEqual([])

    const single = mcallisterSignals({ turns: [{ role: "user", content: "Hello there" }] })
    expect(single.values["trustor_turns"]).toBe(1)
    expect(single.values["trustee_turns"]).toBe(0)
    expect(single.values["challenge_trend"]).toBe(0)
  })

  it("counts tool errors and verbatim repeats on the agent side", () => {
    const result = mcallisterSignals({
      turns: [
        { role: "user", content: "Deploy it" },
        { role: "assistant", content: "Deploying now." },
        { role: "tool", content: "Error 503: deploy service unavailable" },
        { role: "assistant", content: "Deploying now." }
      ]
    })
    expect(result.values["agent_error_turns"]).toBe(1)
    expect(result.values["repeated_trustee_turns"]).toBe(1)
    expect(result.values["tool_turns"]).toBe(1)
    expect(result.highlights.map((h) => h.ref)).toEqual(["turns[3]", "turns[2]"])
  })
})
