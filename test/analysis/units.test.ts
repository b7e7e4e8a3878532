import { describe, expect, it } from "@effect/vitest"
import { Either, Option, Redacted } from "effect"
import { groundOutput } from "../../src/Analysis/Evidence.js"
import { boundaryFor, fence } from "../../src/Analysis/Prompts.js"
import { chunkTrace, renderTrace } from "../../src/Analysis/Render.js"
import { quoteOccurs, resolveRef } from "../../src/Analysis/TraceRefs.js"
import type { ModelOutput } from "../../src/Catalogue/Detection.js"
import type { AppConfigShape } from "../../src/Config.js"
import { resolveProvider } from "../../src/Providers/Resolution.js"
import { isTransientStatus, retryAfterMillis } from "../../src/Providers/Retry.js"

const trace = {
  task: "Book a flight",
  steps: [
    { type: "thought", content: "I will search flights." },
    { type: "tool_call", content: "search(LHR, JFK)\nreturned 3 results" },
    { type: "error", content: "Error 503 from airline API" }
  ],
  outcome: "No booking",
  success: false
}
const noSignals = { values: {}, highlights: [] }

describe("trace references", () => {
  it("resolve fields, indices and nested paths; nothing else", () => {
    expect(resolveRef(trace, "steps[2]")).toEqual(trace.steps[2])
    expect(resolveRef(trace, "steps[2].content")).toBe("Error 503 from airline API")
    expect(resolveRef(trace, "task")).toBe("Book a flight")
    expect(resolveRef(trace, "steps[9]")).toBeUndefined()
    expect(resolveRef(trace, "__proto__")).toBeUndefined()
    expect(resolveRef(trace, "steps[1]; drop table")).toBeUndefined()
  })

  it("match quotes whitespace- and case-insensitively", () => {
    expect(quoteOccurs(trace, "steps[1]", "search(lhr, jfk) RETURNED   3 results")).toBe(true)
    expect(quoteOccurs(trace, "steps[1]", "4 results")).toBe(false)
    expect(quoteOccurs(trace, "steps[1]", "   ")).toBe(false)
  })
})

describe("rendering", () => {
  it("numbers every element on one line, all shown within budget", () => {
    const view = renderTrace(trace, noSignals, 10_000, 1000)
    expect(view.lines.split("\n")).toEqual([
      "task Book a flight",
      "steps[0] type: thought | content: I will search flights.",
      "steps[1] type: tool_call | content: search(LHR, JFK) returned 3 results",
      "steps[2] type: error | content: Error 503 from airline API",
      "outcome No booking",
      "success false"
    ])
    expect(view).toMatchObject({ elementsTotal: 6, elementsSeen: 6, condensed: false })
  })

  it("caps long elements with an explicit marker", () => {
    const view = renderTrace({ task: "x".repeat(50) }, noSignals, 10_000, 10)
    expect(view.lines).toBe("task xxxxxxxxxx […40 more characters not shown]")
  })

  it("condenses over budget: scalars, highlights, head and tail, gaps marked", () => {
    const long = { task: "t", steps: Array.from({ length: 200 }, (_, i) => ({ type: "s", content: `step number ${i}` })), outcome: "o" }
    const view = renderTrace(long, { values: {}, highlights: [{ ref: "steps[100]", reason: "error" }] }, 1200, 100)
    expect(view.condensed).toBe(true)
    expect(view.lines).toContain("task t")
    expect(view.lines).toContain("steps[100]")
    expect(view.lines).toContain("steps[0]")
    expect(view.lines).toContain("steps[199]")
    expect(view.lines).toMatch(/\[… \d+ elements not shown: steps\[\d+\] to steps\[\d+\] …\]/)
    expect(view.lines.length).toBeLessThanOrEqual(1200)
    expect(renderTrace(long, noSignals, 1200, 100)).toEqual(renderTrace(long, noSignals, 1200, 100))
  })

  it("chunks for the forensic map step, repeating scalars in each chunk", () => {
    const long = { task: "t", steps: Array.from({ length: 100 }, (_, i) => ({ type: "s", content: `step ${i} ${"x".repeat(80)}` })) }
    const chunks = chunkTrace(long, noSignals, 3000, 1000, 4)
    expect(chunks.views.length).toBe(4)
    expect(chunks.views.every((view) => view.lines.startsWith("task t"))).toBe(true)
    expect(chunks.elementsTotal).toBe(101)
  })
})

describe("fencing", () => {
  it("uses a boundary that does not occur in the content", () => {
    const content = "hello"
    const boundary = boundaryFor(content)
    expect(boundary).toMatch(/^[0-9a-f]{16}$/)
    expect(fence(content)).toBe(`<trace-data boundary="${boundary}">\nhello\n</trace-data boundary="${boundary}">`)
    const hostile = `ignore this ${boundaryFor("x")}`
    expect(hostile).not.toContain(boundaryFor(hostile))
  })
})

describe("grounding", () => {
  const output: ModelOutput = {
    severity: "high",
    confidence: 0.8,
    profile: "p",
    summary: "s",
    headline: {},
    findings: [
      { id: "a", title: "t", severity: "high", confidence: 0.9, explanation: "e", playbook: "k1", evidence: [{ ref: "steps[2]", quote: "error 503" }] },
      { id: "b", title: "t", severity: "low", confidence: 0.5, explanation: "e", playbook: "nope", evidence: [{ ref: "steps[0]", quote: "invented" }] }
    ],
    interventions: [
      { type: "prompt", description: "d", rationale: "r", effort: "low", impact: "high", playbook: "nope", compose_pattern: "aar" },
      { type: "compose", description: "d", rationale: "r", effort: "low", impact: "high", playbook: "k1", compose_pattern: "invented_slug" }
    ]
  }

  it("keeps verified evidence, drops the rest, clears unknown references", () => {
    const grounded = groundOutput(output, trace, new Set(["k1"]), new Set(["aar", "lewin"]), "lewin")
    expect(grounded.check).toEqual({ cited: 2, verified: 1, dropped: 1 })
    expect(grounded.droppedFindings).toEqual(["b"])
    expect(grounded.output.findings.map((f) => f.id)).toEqual(["a"])
    expect(grounded.output.interventions.map((i) => [i.playbook, i.compose_pattern])).toEqual([[null, "aar"], ["k1", null]])
  })
})

describe("retries", () => {
  it("treats 408, 409, 429 and 5xx as transient", () => {
    expect([408, 409, 429, 500, 503].every(isTransientStatus)).toBe(true)
    expect([400, 401, 403, 404, 422].some(isTransientStatus)).toBe(false)
  })

  it("reads Retry-After as seconds or an HTTP date", () => {
    const now = Date.parse("2026-01-01T00:00:00Z")
    expect(retryAfterMillis("2", now)).toBe(2000)
    expect(retryAfterMillis("Thu, 01 Jan 2026 00:00:05 GMT", now)).toBe(5000)
    expect(retryAfterMillis("soon", now)).toBeUndefined()
    expect(retryAfterMillis(undefined, now)).toBeUndefined()
  })
})

describe("provider resolution", () => {
  const providers = (over: Partial<AppConfigShape["providers"]>): AppConfigShape["providers"] => ({
    forced: Option.none(),
    defaultModel: Option.none(),
    anthropicKey: Option.none(),
    anthropicBaseUrl: Option.none(),
    openaiKey: Option.none(),
    openaiBaseUrl: Option.none(),
    localHost: Option.none(),
    ...over
  })

  it("resolves by precedence and default models", () => {
    const both = providers({ anthropicKey: Option.some(Redacted.make("a")), openaiKey: Option.some(Redacted.make("b")) })
    expect(Either.getOrThrow(resolveProvider(both, null))).toMatchObject({ provider: "anthropic", model: "claude-sonnet-4-6" })
    expect(Either.getOrThrow(resolveProvider(both, "openai:gpt-4o-mini"))).toMatchObject({ provider: "openai", model: "gpt-4o-mini" })
    expect(Either.getOrThrow(resolveProvider(both, "claude-opus-4"))).toMatchObject({ provider: "anthropic", model: "claude-opus-4" })
  })

  it("names the missing variables", () => {
    const none = resolveProvider(providers({}), null)
    expect(Either.isLeft(none) && none.left.message).toContain("OLLAMA_HOST")
    const forced = resolveProvider(providers({ forced: Option.some("local") }), null)
    expect(Either.isLeft(forced) && forced.left.message).toContain("LOCAL_MODEL_HOST")
  })
})
