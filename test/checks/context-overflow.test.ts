import { describe, expect, it } from "@effect/vitest"
import { contextOverflow } from "../../src/Checks/ContextOverflow.js"
import { agentError, call, citedOf, failure, longTrace, modelCall, runOne, say, traceOf, user } from "./support.js"

const refused = (text: string, extra = {}) => traceOf([user("Summarize these logs"), say("Reading them."), agentError(text, extra)], { success: false })

describe("context_overflow", () => {
  it("fires on each provider's wording, high, citing the error", () => {
    const wordings = [
      "Error code: 400 - {'error': {'message': \"This model's maximum context length is 128000 tokens. However, your messages resulted in 140000 tokens.\", 'code': 'context_length_exceeded'}}",
      "prompt is too long: 210000 tokens > 200000 maximum",
      "ValidationException: Input is too long for requested model.",
      "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).",
      "litellm.ContextWindowExceededError: too many tokens",
      "input length and `max_tokens` exceed context limit: 150000 + 4096 > 128000, decrease input length or `max_tokens` and try again"
    ]
    for (const text of wordings) {
      const [finding] = runOne(contextOverflow, refused(text)).findings
      expect(finding?.severity, text).toBe("high")
      expect(citedOf(finding), text).toEqual([2])
    }
    const [finding] = runOne(contextOverflow, refused("This model's maximum context length is 8192 tokens", { status_code: "context_length_exceeded" })).findings
    expect(finding?.explanation).toBe("The model refused agent's input as too long at events[2]: \"This model's maximum context length is 8192 tokens\".")
  })

  it("reads Anthropic's stop reason for a full context, on a content-free trace too", () => {
    const [finding] = runOne(contextOverflow, traceOf([modelCall({ finish_reason: "model_context_window_exceeded" })])).findings
    expect(finding?.evidence[0]).toMatchObject({ quote: null, describes: "message, finish model_context_window_exceeded" })
  })

  it("is quiet on token rate limits, on tools' errors, and on answers about context windows", () => {
    expect(runOne(contextOverflow, refused("Rate limit reached for gpt-4o on tokens per min (TPM): Limit 30000, Requested 45000. Too many tokens.")).findings).toEqual([])
    expect(runOne(contextOverflow, refused("This request would exceed the rate limit for your organization of 40,000 input tokens per minute.")).findings).toEqual([])
    const tool = traceOf([call("summarize", "{}"), failure("summarize", "input is too long")])
    expect(runOne(contextOverflow, tool).findings).toEqual([])
    expect(runOne(contextOverflow, traceOf([say("Your prompt is too long for the small model; use the 128k one.")])).findings).toEqual([])
  })

  it("is linear: a healthy trace is not read, a thousand overflows and full stops each once", () => {
    const trace = longTrace(1_000)
    expect(runOne(contextOverflow, trace).visits).toBeLessThanOrEqual(2 * trace.events.length)
    const full = traceOf(Array.from({ length: 1_000 }, (_, n) => (n % 2 === 0 ? agentError("prompt is too long: 210000 tokens > 200000 maximum") : modelCall({ finish_reason: "model_context_window_exceeded" }))), { success: false })
    const { visits, findings } = runOne(contextOverflow, full)
    expect(findings).toHaveLength(1)
    expect(findings[0]?.explanation).toContain("(1000 times)")
    expect(visits).toBeLessThanOrEqual(2 * full.events.length)
  })
})
