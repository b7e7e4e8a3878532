import { describe, expect, it } from "@effect/vitest"
import { isAgreementOnly, isDeferral, socialLoafingSignals } from "../../patterns/social_loafing/signals.js"

describe("social_loafing signals", () => {
  it("computes contribution shares and names loafers against the even share", () => {
    const result = socialLoafingSignals({
      agents: ["a", "b", "c", "d"],
      messages: [
        { from: "a", content: "one two three four five six seven eight" },
        { from: "b", content: "LGTM" },
        { from: "a", content: "nine ten eleven twelve" },
        { from: "c", content: "I'll leave that to a." },
        { from: "lead", content: "merging now" }
      ]
    })
    expect(result.values["team_size"]).toBe(4)
    expect(result.values["team_messages"]).toBe(4)
    expect(result.values["outside_senders"]).toEqual(["lead"])
    expect(result.values["messages_per_agent"]).toEqual({ a: 2, b: 1, c: 1, d: 0 })
    // words: a 12, b 1, c 5, d 0 = 18
    expect(result.values["word_share"]).toEqual({ a: 0.6667, b: 0.0556, c: 0.2778, d: 0 })
    // only a's messages are substantive
    expect(result.values["substantive_share"]).toEqual({ a: 1, b: 0, c: 0, d: 0 })
    expect(result.values["expected_share"]).toBe(0.25)
    expect(result.values["loafing_agents"]).toEqual(["b", "c", "d"])
    expect(result.values["silent_agents"]).toEqual(["d"])
    expect(result.values["rubber_stamp_agents"]).toEqual(["b", "c"])
    // substantive words [12, 0, 0, 0]: Gini = 0.75
    expect(result.values["contribution_gini"]).toBe(0.75)
    expect(result.values["top_contributor"]).toBe("a")
    expect(result.highlights.map((h) => h.ref)).toEqual(["messages[1]", "messages[3]"])
  })

  it("finds echoes and effort trends", () => {
    const result = socialLoafingSignals({
      agents: ["a", "b"],
      messages: [
        { from: "a", content: "The migration fails because the orders table lacks an index on customer_id." },
        { from: "b", content: "Right: migration fails since orders table lacks index on customer_id." },
        { from: "a", content: "Adding it." },
        { from: "b", content: "ok" }
      ]
    })
    expect(result.values["echo_messages"]).toBe(1)
    expect(result.values["substantive_share"]).toEqual({ a: 1, b: 0 })
    // a: 12 words in the first half, 2 in the second; b: 10 then 1
    expect(result.values["effort_trend"]).toEqual({ a: 0.1667, b: 0.1 })
    expect(result.highlights.map((h) => h.ref)).toEqual(["messages[3]", "messages[1]"])
  })

  it("is total on an even team and on a single agent", () => {
    const even = socialLoafingSignals({
      agents: ["a", "b"],
      messages: [
        { from: "a", content: "first finding here" },
        { from: "b", content: "second finding there" }
      ]
    })
    expect(even.values["contribution_gini"]).toBe(0)
    expect(even.values["loafing_agents"]).toEqual([])
    expect(even.values["effort_trend"]).toEqual({ a: 0, b: null })
    const solo = socialLoafingSignals({ agents: ["a"], messages: [{ from: "x", content: "hello" }] })
    expect(solo.values["loafing_agents"]).toEqual([])
    expect(solo.values["substantive_share"]).toEqual({ a: 0 })
    expect(solo.values["top_contributor_share"]).toBe(0)
  })

  it("classifies approvals and deferrals", () => {
    expect(isAgreementOnly("+1")).toBe(true)
    expect(isAgreementOnly("ok")).toBe(true)
    expect(isAgreementOnly("OK, merging as is. I'll keep it simple and stop here.")).toBe(false)
    expect(isAgreementOnly("Looks good to me, ship it")).toBe(true)
    expect(isAgreementOnly("I agree with the plan but the index on orders is missing and the backfill will lock the table for hours")).toBe(false)
    expect(isDeferral("Your call.")).toBe(true)
    expect(isDeferral("I ran the tests: 3 fail.")).toBe(false)
  })
})
