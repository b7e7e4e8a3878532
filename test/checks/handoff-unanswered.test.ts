import { describe, expect, it } from "@effect/vitest"
import { handoffUnanswered } from "../../src/Checks/HandoffUnanswered.js"
import { call, citedOf, handoff, longTrace, result, runOne, say, traceOf, user } from "./support.js"

describe("handoff_unanswered", () => {
  it("fires on a handoff to an agent that never acts while the run goes on without it", () => {
    const trace = traceOf([
      user("I was charged twice"),
      handoff("triage_agent", "billing_agent", "Handing you to billing."),
      say("Is there anything else I can help with?", "triage_agent")
    ])
    const [finding] = runOne(handoffUnanswered, trace).findings
    expect(citedOf(finding)).toEqual([1])
    expect(finding?.severity).toBe("medium")
    expect(finding?.evidence[0]?.quote).toBe("Handing you to billing.")
    expect(finding?.explanation).toBe('triage_agent handed off to billing_agent at events[1] ("Handing you to billing."), and billing_agent never acted afterwards (no event of it, no result back); the run went on to events[2] without it.')
  })

  it("fires when a run that says it ended stopped at the handoff", () => {
    const trace = traceOf([user("x"), handoff("planner", "coder")], { success: false })
    expect(runOne(handoffUnanswered, trace).findings[0]?.explanation).toContain("the run ended there")
  })

  it("is low when the trace ends on the handoff and does not say the run ended: it stopped there, or its recording was cut short", () => {
    const trace = traceOf([user("Our backup failed"), say("Checking the log.", "ops_agent"), handoff("ops_agent", "storage_agent"), handoff("storage_agent", "Escalations agent")])
    const [finding, ...rest] = runOne(handoffUnanswered, trace).findings
    expect(rest).toEqual([])
    expect(citedOf(finding)).toEqual([3])
    expect(finding?.severity).toBe("low")
    expect(finding?.explanation).toContain("the trace ends there and does not say whether the run ended or its recording was cut short")
  })

  it("is quiet when the receiver acts (its name spelled loosely), when a delegate's result comes back, and when the trace is cut short", () => {
    const answered = traceOf([handoff("Triage agent", "Billing agent"), say("Billing here.", "billing_agent")])
    expect(runOne(handoffUnanswered, answered).findings).toEqual([])
    const shortName = traceOf([handoff("Planner", "Codebase Navigator"), say("Found the class.", "Navigator"), say("Next step.", "Planner")])
    expect(runOne(handoffUnanswered, shortName).findings).toEqual([])
    const delegate = traceOf([handoff("openhands", "BrowsingAgent"), { actor: "delegate", role: "tool", kind: "tool_result", tool: "delegate", content: "BrowsingAgent finished: isoformat pads." }, say("Good, fixing it.", "openhands")])
    expect(runOne(handoffUnanswered, delegate).findings).toEqual([])
    const cut = traceOf([call("spawn_agent", "{}"), handoff("codex", "researcher"), result("spawn_agent", "spawned")])
    expect(runOne(handoffUnanswered, cut).findings).toEqual([])
  })

  it("works on a content-free trace: described, not quoted", () => {
    const bare = traceOf([{ actor: "triage", role: "agent", kind: "handoff", to: "billing", content: "" }, { actor: "triage", role: "agent", kind: "message", content: "" }])
    expect(runOne(handoffUnanswered, bare).findings[0]?.evidence[0]).toMatchObject({ quote: null, describes: "handoff" })
  })

  it("is linear", () => {
    const trace = longTrace(1_000)
    expect(runOne(handoffUnanswered, trace).visits).toBeLessThanOrEqual(3 * trace.events.length)
    const many = traceOf(Array.from({ length: 1_000 }, (_, n) => handoff("hub", `agent_${n}`)).concat([say("done", "hub")]))
    const { visits, findings } = runOne(handoffUnanswered, many)
    expect(visits).toBeLessThanOrEqual(3 * many.events.length)
    expect(findings).toHaveLength(1_000)
  })
})
