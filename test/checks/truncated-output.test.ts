import { describe, expect, it } from "@effect/vitest"
import { truncatedOutput } from "../../src/Checks/TruncatedOutput.js"
import { call, citedOf, longTrace, modelCall, result, runOne, say, traceOf, user } from "./support.js"

describe("truncated_output", () => {
  it("is high when the run's last output was cut at the token limit, quoting where it was cut", () => {
    const trace = traceOf([
      user("Summarize the report"),
      { ...say("The report covers three incidents. First, the checkout outage on the 4th, caused by"), finish_reason: "length" }
    ])
    const [finding] = runOne(truncatedOutput, trace).findings
    expect(finding?.severity).toBe("high")
    expect(citedOf(finding)).toEqual([1])
    expect(finding?.evidence[0]?.quote).toBe("The report covers three incidents. First, the checkout outage on the 4th, caused by")
    expect(finding?.explanation).toContain("agent's output stopped at its token limit (finish reason length) at events[1]")
    expect(finding?.explanation).toContain("it is the run's last output")
  })

  it("reads every provider's spelling, and is medium when the run went on after the cut output", () => {
    for (const reason of ["max_tokens", "MAX_TOKENS", "max_output_tokens", "FINISH_REASON_MAX_TOKENS"]) {
      const trace = traceOf([
        { ...call("write_file", '{"path":"a.py","text":"def f(', "c"), finish_reason: reason },
        result("write_file", "written", "c"),
        { ...say("Wrote a.py."), finish_reason: "stop" }
      ])
      const [finding] = runOne(truncatedOutput, trace).findings
      expect(finding?.severity, reason).toBe("medium")
      expect(finding?.evidence[0]?.event).toBe(0)
    }
  })

  it("is quiet on a model that stopped of its own accord, or stopped to call tools", () => {
    const trace = traceOf([{ ...call("a", "{}", "1"), finish_reason: "tool_calls" }, result("a", "x", "1"), { ...say("Done."), finish_reason: "stop" }, { ...say("Bye."), finish_reason: "end_turn" }])
    expect(runOne(truncatedOutput, trace).findings).toEqual([])
  })

  it("works on a content-free trace (finish reasons are structure): described, not quoted", () => {
    const [finding] = runOne(truncatedOutput, traceOf([modelCall({ finish_reason: "length", tokens: { output: 4096 } })])).findings
    expect(finding?.evidence[0]).toMatchObject({ quote: null, describes: "message, finish length" })
    expect(finding?.severity).toBe("high")
  })

  it("is linear: only events with a finish reason are read, a thousand cut outputs once each", () => {
    const trace = longTrace(1_000)
    expect(runOne(truncatedOutput, trace).visits).toBeLessThanOrEqual(2 * trace.events.length)
    const cut = traceOf(Array.from({ length: 1_000 }, (_, n) => ({ ...say(`Part ${n} of the report covers`), finish_reason: "length" })))
    const { visits, findings } = runOne(truncatedOutput, cut)
    expect(findings).toHaveLength(1)
    expect(findings[0]?.severity).toBe("high")
    expect(visits).toBeLessThanOrEqual(2 * cut.events.length)
  })
})
