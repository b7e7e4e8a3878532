import { describe, expect, it } from "@effect/vitest"
import { lencioniSignals, markerIndices } from "../../patterns/lencioni/signals.js"

describe("lencioni signals", () => {
  it("counts the markers of each level of the pyramid", () => {
    const result = lencioniSignals({
      agents: ["lead", "dev", "qa", "docs"],
      messages: [
        { from: "dev", content: "Build passed with a few minor warnings, nothing serious." },
        { from: "qa", content: "Sounds good." },
        { from: "lead", to: "dev", content: "Maybe we should look at them at some point?" },
        { from: "dev", content: "My part is done." },
        { from: "qa", to: "docs", content: "Can you check that the runbook covers rollback?" }
      ]
    })
    expect(result.values["concealment_messages"]).toBe(1)
    expect(result.values["agreement_messages"]).toBe(1)
    expect(result.values["challenge_messages"]).toBe(0)
    expect(result.values["harmony_ratio"]).toBe(1)
    expect(result.values["hedge_messages"]).toBe(1)
    expect(result.values["commitment_ratio"]).toBe(0)
    expect(result.values["ends_with_decision"]).toBe(false)
    expect(result.values["self_focus_messages"]).toBe(1)
    expect(result.values["vulnerability_messages"]).toBe(1)
    // the question to dev is answered by dev's later message; the one to docs never is
    expect(result.values["questions"]).toBe(2)
    expect(result.values["unanswered_questions"]).toBe(1)
    expect(result.values["silent_agents"]).toEqual(["docs"])
    // participation [1, 2, 2, 0] sorted [0, 1, 2, 2]: Gini = 2 * (0 + 2 + 6 + 8) / (4 * 5) - 5/4 = 0.35
    expect(result.values["participation_gini"]).toBe(0.35)
    expect(result.highlights.map((h) => h.ref)).toEqual([
      "messages[0]",
      "messages[1]",
      "messages[2]",
      "messages[4]",
      "messages[3]"
    ])
  })

  it("sees healthy conflict and commitment", () => {
    const result = lencioniSignals({
      agents: ["a", "b"],
      messages: [
        { from: "a", content: "I disagree: the p95 latency doubles with that index." },
        { from: "b", content: "I was wrong about the cache; agreed." },
        { from: "a", content: "Decision: we will ship the version without the index, owner: b." }
      ]
    })
    expect(result.values["challenge_messages"]).toBe(1)
    expect(result.values["vulnerability_messages"]).toBe(1)
    expect(result.values["harmony_ratio"]).toBe(0.5)
    expect(result.values["commitment_ratio"]).toBe(1)
    expect(result.values["ends_with_decision"]).toBe(true)
    expect(result.values["results_messages"]).toBe(1)
    expect(result.values["results_share"]).toBe(0.3333)
    // a challenge exists, so agreements are not flagged as artificial harmony
    expect(result.highlights).toEqual([])
  })

  it("is total on a log without markers", () => {
    const result = lencioniSignals({ agents: ["a"], messages: [{ from: "a", content: "hello" }] })
    expect(result.values["harmony_ratio"]).toBeNull()
    expect(result.values["commitment_ratio"]).toBeNull()
    expect(result.values["participation_gini"]).toBe(0)
    expect(markerIndices([{ from: "a", content: "not my problem" }], "self_focus")).toEqual([0])
  })
})
