import { describe, expect, it } from "@effect/vitest"
import { repeatedCallLoop } from "../../src/Checks/RepeatedCallLoop.js"
import { runChecks } from "../../src/Checks/Run.js"
import { call, citedOf, failure, longTrace, result, runOne, say, traceOf, user, withThresholds } from "./support.js"

const searches = (extra: ReadonlyArray<Parameters<typeof traceOf>[0][number]> = []) =>
  traceOf([
    user("Find me a flight to Lisbon on the 3rd"),
    call("search_flights", '{"to":"LIS","date":"2025-03-03"}'),
    result("search_flights", "no flights found"),
    call("search_flights", '{ "date": "2025-03-03",\n  "to": "LIS" }'),
    result("search_flights", "no flights found"),
    call("search_flights", '{"to":"LIS","date":"2025-03-03"}'),
    result("search_flights", "no  flights found"),
    ...extra
  ])

describe("repeated_call_loop", () => {
  it("fires on the same call (arguments compared as canonical JSON) coming back the same three times, the first repetition first", () => {
    const { findings } = runOne(repeatedCallLoop, searches([say("I found nothing for the 3rd.")]))
    expect(findings).toHaveLength(1)
    const [finding] = findings
    expect(finding?.severity).toBe("medium")
    expect(citedOf(finding)).toEqual([3, 1, 5])
    expect(finding?.explanation).toContain("search_flights was called 3 times with the same arguments")
    expect(finding?.explanation).toContain("first at events[1], then again at events[3], events[5]")
    expect(finding?.evidence[0]?.quote).toBe('{ "date": "2025-03-03",\n  "to": "LIS" }')
    expect(finding?.playbook).toBe("bias_stack/escalation_of_commitment.retry_loop")
  })

  it("is high when the run ended inside the loop (no new result and no answer after it)", () => {
    const [finding] = runOne(repeatedCallLoop, searches()).findings
    expect(finding?.severity).toBe("high")
    expect(finding?.explanation).toContain("the run ended inside the loop")
  })

  it("fires on a cycle of different calls coming round three times with the same results", () => {
    const cycle = traceOf([
      user("Where is order 8812?"),
      ...[1, 2, 3].flatMap(() => [call("lookup_order", '{"id":"8812"}'), result("lookup_order", "status: held"), call("get_carrier", '{"id":"8812"}'), result("get_carrier", "carrier unknown")]),
      say("It is held; the carrier is unknown.")
    ])
    const { findings } = runOne(repeatedCallLoop, cycle)
    expect(findings).toHaveLength(1)
    expect(findings[0]?.explanation).toContain("The calls lookup_order, get_carrier came round 3 times with the same arguments and the same results")
    expect(citedOf(findings[0])).toEqual([5, 1, 3, 7, 9, 11])
  })

  it("is quiet on near misses: new results, new arguments, a new user message between the repeats, two rounds of a cycle", () => {
    const polling = traceOf([0, 1, 2, 3].flatMap((step) => [call("job_status", '{"id":7}'), result("job_status", `progress ${step * 30}%`)]))
    expect(runOne(repeatedCallLoop, polling).findings).toEqual([])
    const progress = traceOf([
      call("read_file", '{"path":"a.py"}'), result("read_file", "v1"),
      call("edit", '{"path":"a.py","line":1}'), result("edit", "edited"),
      call("read_file", '{"path":"a.py"}'), result("read_file", "v1"),
      call("edit", '{"path":"a.py","line":2}'), result("edit", "edited line 2"),
      call("read_file", '{"path":"a.py"}'), result("read_file", "v1")
    ])
    expect(runOne(repeatedCallLoop, progress).findings).toEqual([])
    const differentArguments = traceOf([1, 2, 3].flatMap((day) => [call("search_flights", `{"date":"2025-03-0${day}"}`), result("search_flights", "no flights found")]))
    expect(runOne(repeatedCallLoop, differentArguments).findings).toEqual([])
    const askedAgain = traceOf([1, 2, 3].flatMap(() => [user("Try again please"), call("search_flights", '{"to":"LIS"}'), result("search_flights", "no flights found")]))
    expect(runOne(repeatedCallLoop, askedAgain).findings).toEqual([])
    const twoRounds = traceOf([1, 2].flatMap(() => [call("a", "{}"), result("a", "x"), call("b", "{}"), result("b", "y")]))
    expect(runOne(repeatedCallLoop, twoRounds).findings).toEqual([])
  })

  it("reads its thresholds: min_repeats 2 makes one repetition a loop, min_cycles 2 two rounds", () => {
    const twice = traceOf([call("search", '{"q":"x"}'), result("search", "none"), call("search", '{"q":"x"}'), result("search", "none"), say("Nothing found.")])
    expect(runOne(repeatedCallLoop, twice).findings).toEqual([])
    expect(runChecks(twice, withThresholds({ min_repeats: 2 }), [repeatedCallLoop])).toHaveLength(1)
    const twoRounds = traceOf([1, 2].flatMap(() => [call("a", "{}"), result("a", "x"), call("b", "{}"), result("b", "y")]))
    expect(runChecks(twoRounds, withThresholds({ min_cycles: 2 }), [repeatedCallLoop])[0]?.explanation).toContain("came round 2 times")
  })

  it("on a content-free trace, fires only on the same failure again and again (arguments unseen), described not quoted", () => {
    const bare = (status: "ok" | "error") =>
      traceOf([1, 2, 3].flatMap((n) => [
        { actor: "agent", role: "agent" as const, kind: "tool_call" as const, tool: "charge_card", content: "", call_id: `c${n}` },
        { actor: "charge_card", role: "tool" as const, kind: "tool_result" as const, tool: "charge_card", content: "", call_id: `c${n}`, status, ...(status === "error" ? { status_code: "503" } : {}) }
      ]))
    const [finding] = runOne(repeatedCallLoop, bare("error")).findings
    expect(finding?.explanation).toContain("charge_card was called 3 times")
    expect(finding?.evidence[0]).toMatchObject({ event: 2, quote: null, describes: "tool_call charge_card" })
    // three successful calls whose arguments are not recorded may be three different calls
    expect(runOne(repeatedCallLoop, bare("ok")).findings).toEqual([])
  })

  it("is linear: a long healthy trace, and a thousand identical calls, each read a bounded number of times", () => {
    const trace = longTrace(1_000)
    expect(runOne(repeatedCallLoop, trace).visits).toBeLessThanOrEqual(3 * trace.events.length)
    const stuck = traceOf(Array.from({ length: 1_000 }, () => [call("search", '{"q":"x"}'), failure("search", "503 Service Unavailable")]).flat())
    const { visits, findings } = runOne(repeatedCallLoop, stuck)
    expect(visits).toBeLessThanOrEqual(3 * stuck.events.length)
    expect(findings).toHaveLength(1)
    expect(findings[0]?.explanation).toContain("called 1000 times")
  })
})
