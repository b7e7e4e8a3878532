import { describe, expect, it } from "@effect/vitest"
import { handoffPingPong } from "../../src/Checks/HandoffPingPong.js"
import { runChecks } from "../../src/Checks/Run.js"
import { call, citedOf, handoff, longTrace, result, runOne, say, traceOf, user, withThresholds } from "./support.js"

const bounce = (times: number, between: (n: number) => ReadonlyArray<Parameters<typeof traceOf>[0][number]> = () => []) =>
  traceOf([
    user("Why was I charged twice?"),
    ...Array.from({ length: times }, (_, n) => [
      ...between(n),
      n % 2 === 0 ? handoff("Triage agent", "Billing agent") : handoff("Billing agent", "Triage agent")
    ]).flat()
  ])

describe("handoff_ping_pong", () => {
  it("fires on two agents handing the run back and forth four times with nothing new, the first return first", () => {
    const [finding, ...rest] = runOne(handoffPingPong, bounce(4)).findings
    expect(rest).toEqual([])
    expect(citedOf(finding)).toEqual([2, 1, 3, 4])
    expect(finding?.severity).toBe("medium")
    expect(finding?.explanation).toBe("Triage agent and Billing agent handed the run to each other 4 times in a row (events[1], events[2], events[3], events[4]) with no new result or message in between.")
  })

  it("counts a message as new only the first time its words are said", () => {
    const sameWords = bounce(6, (n) => (n === 0 ? [] : [say(n % 2 === 1 ? "This is for triage." : "This is for billing.")]))
    // each wording is new once (events[2], events[4]); from the third handoff on nothing is
    const [finding] = runOne(handoffPingPong, sameWords).findings
    expect(finding?.explanation).toContain("4 times in a row (events[5], events[7], events[9], events[11])")
    const newWords = bounce(6, (n) => [say(`Reason ${n}: the charge needs a different team.`)])
    expect(runOne(handoffPingPong, newWords).findings).toEqual([])
  })

  it("is quiet below the threshold, with new results between the handoffs, and across more than two agents", () => {
    expect(runOne(handoffPingPong, bounce(3)).findings).toEqual([])
    const working = bounce(4, (n) => [call("lookup_invoice", `{"n":${n}}`), result("lookup_invoice", `invoice ${n}`)])
    expect(runOne(handoffPingPong, working).findings).toEqual([])
    const round = traceOf([handoff("a", "b"), handoff("b", "c"), handoff("c", "a"), handoff("a", "b"), handoff("b", "c")])
    expect(runOne(handoffPingPong, round).findings).toEqual([])
    expect(runChecks(bounce(3), withThresholds({ min_exchanges: 3 }), [handoffPingPong])).toHaveLength(1)
  })

  it("reads a transfer tool's result as part of its handoff, not as news (the Agents SDK's transfer_to_… answering {\"assistant\": …})", () => {
    const transfers = traceOf([
      user("Why was I charged twice?"),
      ...Array.from({ length: 4 }, (_, n) => {
        const [from, to] = n % 2 === 0 ? ["Billing agent", "Refunds agent"] : ["Refunds agent", "Billing agent"]
        const tool = `transfer_to_${to.replace(" ", "_")}`
        return [call(tool, "{}", `t${n}`, from), handoff(from, to), result(tool, JSON.stringify({ assistant: to }), `t${n}`)]
      }).flat()
    ])
    const [finding] = runOne(handoffPingPong, transfers).findings
    expect(finding?.explanation).toContain("4 times in a row (events[2], events[5], events[8], events[11])")
    // a result of other work between two handoffs is news
    const working = traceOf([...transfers.events.slice(0, 7), call("lookup_invoice", "{}", "l"), result("lookup_invoice", "INV-1042: charged twice", "l"), ...transfers.events.slice(7)])
    expect(runOne(handoffPingPong, working).findings).toEqual([])
  })

  it("works on a content-free trace: handoffs are structure, described not quoted", () => {
    const bare = traceOf(Array.from({ length: 4 }, (_, n) => ({ actor: n % 2 === 0 ? "a" : "b", role: "agent" as const, kind: "handoff" as const, to: n % 2 === 0 ? "b" : "a", content: "" })))
    expect(runOne(handoffPingPong, bare).findings[0]?.evidence[0]).toMatchObject({ event: 1, quote: null, describes: "handoff" })
  })

  it("is linear", () => {
    const trace = longTrace(1_000)
    expect(runOne(handoffPingPong, trace).visits).toBeLessThanOrEqual(trace.events.length)
    const long = bounce(2_000)
    const { visits, findings } = runOne(handoffPingPong, long)
    expect(visits).toBeLessThanOrEqual(long.events.length)
    expect(findings).toHaveLength(1)
  })
})
