import { describe, expect, it } from "@effect/vitest"
import { turnLimitReached } from "../../src/Checks/TurnLimitReached.js"
import { agentError, call, citedOf, failure, longTrace, modelCall, result, runOne, say, traceOf, user } from "./support.js"

const stoppedWith = (text: string, extra = {}) => traceOf([user("Fix the build"), call("bash", "make"), result("bash", "error: missing header"), agentError(text, extra)], { success: false })

describe("turn_limit_reached", () => {
  it("fires on each framework's report of its limit, high, citing the error", () => {
    const reports = [
      "Max turns (10) exceeded",
      "MaxTurnsExceeded: Max turns (25) exceeded",
      "GraphRecursionError: Recursion limit of 25 reached without hitting a stop condition.",
      "Agent stopped due to iteration limit or time limit.",
      "Max iterations of 10 reached",
      "AgentMaxStepsError: Reached max steps.",
      "Maximum number of messages 10 reached, current message count: 10",
      "Maximum turns (3) reached",
      "RuntimeError: Agent reached maximum iteration in headless mode. Current iteration: 30, max iteration: 30",
      "LimitsExceeded"
    ]
    for (const text of reports) {
      const [finding] = runOne(turnLimitReached, stoppedWith(text)).findings
      expect(finding?.severity, text).toBe("high")
      expect(citedOf(finding), text).toEqual([3])
    }
    const [finding] = runOne(turnLimitReached, stoppedWith("Max turns (10) exceeded", { status_code: "MaxTurnsExceeded" })).findings
    expect(finding?.explanation).toBe('The run stopped at the framework\'s turn limit: events[3] says "Max turns (10) exceeded".')
    expect(finding?.playbook).toBe("smart_goal/time_related.no_termination")
  })

  it("reads the framework's stop sentence in the agent's last message, on a tool's step, and in a failed run's outcome", () => {
    const answer = traceOf([user("x"), say("Agent stopped due to iteration limit or time limit.")])
    expect(citedOf(runOne(turnLimitReached, answer).findings[0])).toEqual([1])
    const step = traceOf([call("python_interpreter", "print(1)"), failure("python_interpreter", "Reached max steps.")])
    expect(citedOf(runOne(turnLimitReached, step).findings[0])).toEqual([1])
    const outcome = traceOf([user("x"), say("Let me look."), say("Still looking.")], { success: false, outcome: "Maximum number of turns 6 reached." })
    expect(runOne(turnLimitReached, outcome).findings[0]?.explanation).toContain('its status says "Maximum number of turns 6 reached."; the last agent event is events[2]')
  })

  it("is quiet on answers and tool output that only talk about limits, and on other errors", () => {
    const talk = traceOf([user("why does my graph fail?"), say("You hit GraphRecursionError: raise the recursion limit of 25 with config.")])
    expect(runOne(turnLimitReached, talk).findings).toEqual([])
    const program = traceOf([call("bash", "python train.py"), failure("bash", "ConvergenceWarning: max iterations reached (1000)")])
    expect(runOne(turnLimitReached, program).findings).toEqual([])
    expect(runOne(turnLimitReached, stoppedWith("RateLimitError: 429 Too Many Requests")).findings).toEqual([])
    // a run that did not fail says nothing through its outcome
    expect(runOne(turnLimitReached, traceOf([say("done")], { success: null, outcome: "Maximum number of turns 6 reached." })).findings).toEqual([])
  })

  it("works on a content-free trace: the exception type alone", () => {
    const bare = traceOf([modelCall(), { actor: "agent", role: "agent", kind: "error", content: "", status: "error", status_code: "MaxTurnsExceeded" }])
    const [finding] = runOne(turnLimitReached, bare).findings
    expect(finding?.evidence[0]).toMatchObject({ event: 1, quote: null, describes: "error, status error MaxTurnsExceeded" })
  })

  it("is linear: a healthy trace is not read, a thousand failures once each", () => {
    const trace = longTrace(1_000)
    expect(runOne(turnLimitReached, trace).visits).toBeLessThanOrEqual(2 * trace.events.length)
    const stopped = traceOf([user("Fix the build"), ...Array.from({ length: 1_000 }, (_, n) => (n % 2 === 0 ? failure("bash", "error: missing header") : agentError("Max turns (10) exceeded")))], { success: false })
    const { visits, findings } = runOne(turnLimitReached, stopped)
    expect(findings).toHaveLength(1)
    expect(visits).toBeLessThanOrEqual(2 * stopped.events.length)
  })
})
