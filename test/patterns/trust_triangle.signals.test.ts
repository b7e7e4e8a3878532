import { describe, expect, it } from "@effect/vitest"
import { speaker, trustTriangleSignals } from "../../patterns/trust_triangle/signals.js"

describe("trust_triangle signals", () => {
  it("separates claims backed by a tool turn from unbacked ones", () => {
    const result = trustTriangleSignals({
      turns: [
        { role: "user", content: "Please cancel order 123." },
        { role: "tool", content: "cancel_order(123) -> ok" },
        { role: "assistant", content: "I have cancelled order 123 because you asked; the refund follows." },
        { role: "user", content: "And order 456 too." },
        { role: "assistant", content: "Order 456 has been cancelled." }
      ]
    })
    expect(result.values["user_turns"]).toBe(2)
    expect(result.values["agent_turns"]).toBe(2)
    expect(result.values["tool_turns"]).toBe(1)
    expect(result.values["agent_action_claims"]).toBe(2)
    expect(result.values["action_claims_without_tool"]).toBe(1)
    expect(result.values["reason_giving_rate"]).toBe(0.5)
    expect(result.highlights.map((h) => h.ref)).toEqual(["turns[4]"])
  })

  it("finds pushback, capitulation, repeats and the trajectory of the user's trust", () => {
    const result = trustTriangleSignals({
      turns: [
        { role: "user", content: "What is the capital of Australia and its population?" },
        { role: "assistant", content: "Canberra, about 460,000 people." },
        { role: "user", content: "That's wrong, it is Sydney." },
        { role: "assistant", content: "You're right, I apologize: it is Sydney." },
        { role: "user", content: "What is the capital of Australia and its population? Ridiculous!!" },
        { role: "assistant", content: "As an AI language model I might be mistaken." }
      ]
    })
    expect(result.values["user_corrections"]).toBe(1)
    expect(result.values["user_frustration_turns"]).toBe(1)
    expect(result.values["user_repeats"]).toBe(1)
    expect(result.values["capitulations"]).toBe(1)
    expect(result.values["apology_turns"]).toBe(1)
    expect(result.values["boilerplate_turns"]).toBe(1)
    expect(result.values["hedge_rate"]).toBe(0.3333)
    // negative user turns: turns[2] in the first half (indices 0-2), turns[4] in the second
    expect(result.values["user_negative_first_half"]).toBe(1)
    expect(result.values["user_negative_second_half"]).toBe(1)
    expect(result.highlights.map((h) => h.ref)).toEqual(["turns[3]", "turns[2]", "turns[4]", "turns[5]"])
  })

  it("is total on a conversation without an agent turn", () => {
    const result = trustTriangleSignals({ turns: [{ role: "user", content: "hello?" }] })
    expect(result.values["agent_turns"]).toBe(0)
    expect(result.values["mean_agent_words"]).toBe(0)
    expect(result.values["hedge_rate"]).toBe(0)
    expect(result.values["mean_user_uptake"]).toBe(0)
    expect(result.highlights).toEqual([])
  })

  it("reads roles", () => {
    expect(speaker("User")).toBe("user")
    expect(speaker("customer")).toBe("user")
    expect(speaker("assistant")).toBe("agent")
    expect(speaker("billing_agent")).toBe("agent")
    expect(speaker("tool")).toBe("tool")
    expect(speaker("system")).toBe("system")
  })
})
