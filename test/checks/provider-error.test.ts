import { describe, expect, it } from "@effect/vitest"
import { providerError } from "../../src/Checks/ProviderError.js"
import { runChecks } from "../../src/Checks/Run.js"
import { agentError, call, citedOf, failure, longTrace, modelCall, result, runOne, say, traceOf, user } from "./support.js"

const failedWith = (text: string, extra = {}) => traceOf([user("Summarize my inbox"), say("Looking."), agentError(text, extra)], { success: false })

describe("provider_error", () => {
  it("fires on rate limits, provider failures and refused keys, the status as the error class", () => {
    const cases: ReadonlyArray<[string, string]> = [
      ["RateLimitError: 429 Too Many Requests", "429"],
      ["Error code: 429 - {'error': {'code': 'insufficient_quota'}}", "insufficient_quota"],
      ["Overloaded", "529"],
      ["The server had an error while processing your request. Sorry about that!", "500"],
      ["Error code: 503 - Service Unavailable", "503"],
      ["litellm.AuthenticationError: AuthenticationError: OpenAIException - Incorrect API key provided", "401"],
      ["PermissionDeniedError: your key cannot use this model", "403"]
    ]
    for (const [text, status] of cases) {
      const [finding] = runOne(providerError, failedWith(text)).findings
      expect(finding?.severity, text).toBe("high")
      expect(citedOf(finding), text).toEqual([2])
      expect(finding?.explanation, text).toContain(`(${status}) at events[2]`)
    }
  })

  it("groups a run of the same failure, and groups by status in the fingerprint", () => {
    const retried = traceOf([user("x"), agentError("429 rate limit"), agentError("429 rate limit"), agentError("429 rate limit")], { success: false })
    const { findings } = runOne(providerError, retried)
    expect(findings).toHaveLength(1)
    expect(citedOf(findings[0])).toEqual([1, 2, 3])
    expect(findings[0]?.explanation).toContain("3 times")
    const [a] = runChecks(failedWith("429 Too Many Requests"), undefined, [providerError])
    const [b] = runChecks(failedWith("RateLimitError: rate limit exceeded"), undefined, [providerError])
    const [c] = runChecks(failedWith("503 Service Unavailable"), undefined, [providerError])
    expect(a?.fingerprint).toBe(b?.fingerprint)
    expect(a?.fingerprint).not.toBe(c?.fingerprint)
  })

  it("is quiet on a failure the agent recovered from, on tools' errors, on other 4xx, and on overflows and turn limits", () => {
    const recovered = traceOf([user("x"), agentError("429 Too Many Requests"), say("Here is your summary.")])
    expect(runOne(providerError, recovered).findings).toEqual([])
    const tool = traceOf([call("fetch_page", "{}"), failure("fetch_page", "503 Service Unavailable"), say("The page is down.")])
    expect(runOne(providerError, tool).findings).toEqual([])
    const carriedUp = traceOf([call("refund_charge", "{}"), failure("refund_charge", "gateway timeout"), agentError("refund_charge failed: gateway timeout after 30s")], { success: false })
    expect(runOne(providerError, carriedUp).findings).toEqual([])
    expect(runOne(providerError, failedWith("404 The model `gpt-4o-mini-typo` does not exist")).findings).toEqual([])
    expect(runOne(providerError, failedWith("400 This model's maximum context length is 8192 tokens")).findings).toEqual([])
    expect(runOne(providerError, failedWith("Max turns (10) exceeded")).findings).toEqual([])
  })

  it("works on a content-free trace: a failed model call's status code", () => {
    const bare = traceOf([modelCall({ status: "error", status_code: "429" })], { success: false })
    const [finding] = runOne(providerError, bare).findings
    expect(finding?.evidence[0]).toMatchObject({ quote: null, describes: "message, status error 429" })
    expect(finding?.explanation).toContain("rate limited (429)")
    const ok = traceOf([modelCall({ status: "error", status_code: "429" }), modelCall({ status: "ok" }), call("a", ""), result("a", "")])
    expect(runOne(providerError, ok).findings).toEqual([])
  })

  it("is linear: a healthy trace is not read, a thousand rate limits read twice at most", () => {
    const trace = longTrace(1_000)
    expect(runOne(providerError, trace).visits).toBeLessThanOrEqual(2 * trace.events.length)
    const limited = traceOf([user("Summarize my inbox"), ...Array.from({ length: 1_000 }, () => agentError("RateLimitError: 429 Too Many Requests"))], { success: false })
    const { visits, findings } = runOne(providerError, limited)
    expect(findings).toHaveLength(1)
    expect(findings[0]?.explanation).toContain("1000 times")
    expect(visits).toBeLessThanOrEqual(2 * limited.events.length)
  })
})
