import { describe, expect, it } from "@effect/vitest"
import { emptyFinalAnswer } from "../../src/Checks/EmptyFinalAnswer.js"
import { agentError, call, citedOf, longTrace, modelCall, result, runOne, say, traceOf, user } from "./support.js"

describe("empty_final_answer", () => {
  it("fires when the run ends on an empty message of an agent whose messages the trace records", () => {
    const trace = traceOf([
      user("What's the refund policy?"),
      say("Let me look that up."),
      call("search_docs", '{"q":"refund policy"}'),
      result("search_docs", "Refunds within 30 days."),
      modelCall({ finish_reason: "stop" })
    ])
    const [finding] = runOne(emptyFinalAnswer, trace).findings
    expect(citedOf(finding)).toEqual([4])
    expect(finding?.evidence[0]).toMatchObject({ quote: null, describes: "message, finish stop" })
    expect(finding?.explanation).toBe("The run ended at events[4] with agent's message empty (message, finish stop), though the trace records the agent's messages (events[1] has text).")
  })

  it("fires when the last output is reasoning alone from a call that finished normally", () => {
    const trace = traceOf([user("2+2?"), { actor: "agent", role: "agent", kind: "thought", content: "It is 4, obviously.", finish_reason: "end_turn" }])
    expect(runOne(emptyFinalAnswer, trace).findings[0]?.explanation).toContain("with agent's reasoning alone")
  })

  it("fires where model calls record no text of their own, when the last finished normally and the run's recorded output is empty too", () => {
    // LangSmith: the root run's outputs `{"answer": ""}`; OTel: the agent span's output message empty
    const silent = (outcome: string, success: boolean | null) =>
      traceOf([user("Which release added it?"), call("search_docs", '{"query":"retry budget"}', "s"), result("search_docs", "Release 2.4", "s"), modelCall({ finish_reason: "stop" })], { outcome, success })
    for (const outcome of ['{"answer":""}', "", '{"output":{"text":null}}']) {
      const [finding] = runOne(emptyFinalAnswer, silent(outcome, true)).findings
      expect(citedOf(finding), outcome).toEqual([3])
      expect(finding?.explanation, outcome).toContain("the run's own output is empty")
    }
    // the run's output has text, or the trace does not record how the run ended: nothing says the answer was empty
    expect(runOne(emptyFinalAnswer, silent('{"answer":"Release 2.4"}', true)).findings).toEqual([])
    expect(runOne(emptyFinalAnswer, silent("", null)).findings).toEqual([])
    // a trace without content
    expect(runOne(emptyFinalAnswer, traceOf(silent("", true).events, { success: true, content: "absent" })).findings).toEqual([])
  })

  it("is quiet on content-free traces, on answers with text, and when an error ends the run", () => {
    const contentFree = traceOf([{ actor: "agent", role: "agent", kind: "tool_call", tool: "get_weather", content: '{"city":"Paris"}' }, modelCall({ finish_reason: "stop" })])
    expect(runOne(emptyFinalAnswer, contentFree).findings).toEqual([])
    expect(runOne(emptyFinalAnswer, traceOf([user("hi"), say("Hello!"), say("How can I help?")])).findings).toEqual([])
    const failed = traceOf([user("hi"), say("Let me check."), modelCall(), agentError("429 Too Many Requests")], { success: false })
    expect(runOne(emptyFinalAnswer, failed).findings).toEqual([])
    const throughTool = traceOf([user("2+2?"), say("Let me compute."), call("final_answer", '{"answer":"4"}'), result("final_answer", "4"), modelCall()])
    expect(runOne(emptyFinalAnswer, throughTool).findings).toEqual([])
    const thinkingThenTool = traceOf([user("x"), say("ok"), { actor: "agent", role: "agent", kind: "thought", content: "I need a tool", finish_reason: "tool_calls" }, call("a", "{}")])
    expect(runOne(emptyFinalAnswer, thinkingThenTool).findings).toEqual([])
  })

  it("is linear: read from the end, as far back as the agent last spoke", () => {
    const trace = longTrace(1_000)
    expect(runOne(emptyFinalAnswer, trace).visits).toBeLessThanOrEqual(2 * trace.events.length)
    // an empty last message after a thousand calls since the agent last spoke: every event read once
    const silent = traceOf([say("I'll work through the files."), ...Array.from({ length: 1_000 }, (_, n) => [call("read_file", `{"n":${n}}`), result("read_file", `text ${n}`)]).flat(), modelCall({ finish_reason: "stop" })])
    const { visits, findings } = runOne(emptyFinalAnswer, silent)
    expect(findings).toHaveLength(1)
    expect(visits).toBeLessThanOrEqual(silent.events.length + 1)
  })
})
