/**
 * Prompt caching (issue 18): every request puts its static part first (schema or tools, then the
 * system blocks: the pattern's shared block and the pass's), byte-identical across analyses of the
 * same pattern and mode, and the trace last. Anthropic requests mark the static blocks with
 * `cache_control`; OpenAI requests carry a stable `prompt_cache_key`; local hosts get the same
 * system bytes. The provider double plays the caches (test/support/PromptCache.ts), and the
 * detection reports the cached input tokens it was told of.
 */
import { Predicate } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { exampleTrace, type ProviderDouble, type RecordedCall, startProviderDouble } from "../support/ProviderDouble.js"
import { type RunningService, startService } from "../support/Service.js"

let double: ProviderDouble
beforeAll(async () => {
  double = await startProviderDouble({ promptCache: true })
})
afterAll(async () => {
  await double.close()
})

const field = (value: unknown, ...path: ReadonlyArray<string>): unknown =>
  path.reduce<unknown>((at, key) => (Predicate.isRecord(at) ? at[key] : undefined), value)

/** The lewin example trace, and a second run of the same shape with other content. */
const first = exampleTrace("lewin")
const second = {
  ...first,
  task: "Summarise the week's support tickets for the ops channel",
  outcome: "Posted a summary with an invented ticket count after the ticket API timed out"
}

const analyze = async (service: RunningService, trace: unknown, mode: string) => {
  const response = await fetch(`${service.url}/v1/analyze/lewin`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ trace, mode })
  })
  expect(response.status).toBe(200)
  const body: unknown = await response.json()
  return body
}

/** Two analyses of lewin in standard mode: their calls, pass by pass. */
const twoAnalyses = async (env: Record<string, string>) => {
  const service = await startService(env)
  try {
    double.reset()
    const one = await analyze(service, first, "standard")
    const callsOne: Array<RecordedCall> = double.calls.slice()
    double.calls.length = 0
    const two = await analyze(service, second, "standard")
    const callsTwo: Array<RecordedCall> = double.calls.slice()
    return { one, two, callsOne, callsTwo }
  } finally {
    await service.close()
  }
}

const expectStaticFirstTraceLast = (callsOne: ReadonlyArray<RecordedCall>, callsTwo: ReadonlyArray<RecordedCall>) => {
  expect(callsOne).toHaveLength(2)
  expect(callsTwo).toHaveLength(2)
  for (let pass = 0; pass < 2; pass++) {
    const a = callsOne[pass]
    const b = callsTwo[pass]
    // The same bytes before the trace, analysis after analysis.
    expect(a?.staticPart.length).toBeGreaterThan(8000)
    expect(b?.staticPart).toBe(a?.staticPart)
    // No trace content in the static part.
    expect(a?.staticPart).not.toContain(String(first["task"]))
    expect(b?.staticPart).not.toContain(String(second["task"]))
  }
  // The trace is in the user message of the analysis pass, and the last thing in it.
  expect(callsTwo[0]?.text.trimEnd()).toMatch(/<\/trace-data boundary="[0-9a-f]{16}">$/)
  // The grounding pass works from the playbooks in its static part; its user message is the draft.
  expect(callsOne[1]?.staticPart).toContain("# The pattern's playbooks in full")
  expect(callsOne[1]?.staticPart).toContain("Failure mode:")
}

describe("prompt caching", () => {
  it("Anthropic: tools and two system blocks with cache_control, the same bytes each analysis; cached tokens reported", async () => {
    const { one, two, callsOne, callsTwo } = await twoAnalyses({ ANTHROPIC_API_KEY: "sk-ant-cache-0123456789abcdef", ANTHROPIC_BASE_URL: double.url })
    expectStaticFirstTraceLast(callsOne, callsTwo)
    for (const call of [...callsOne, ...callsTwo]) {
      const system = call.body["system"]
      expect(Array.isArray(system) ? system.map((block) => field(block, "cache_control")) : system).toEqual([{ type: "ephemeral" }, { type: "ephemeral" }])
      // The pattern's shared block opens every pass.
      expect(field(system, "0", "text")).toBe(field(callsOne[0]?.body["system"], "0", "text"))
    }
    // The first analysis writes the prefixes; the second reads them.
    const usageOne = field(one, "detection", "usage")
    const usageTwo = field(two, "detection", "usage")
    expect(field(usageOne, "cached_input_tokens")).toBeGreaterThan(0) // the grounding pass shares the analysis pass's first block
    expect(Number(field(usageTwo, "cached_input_tokens"))).toBeGreaterThan(Number(field(usageOne, "cached_input_tokens")))
    expect(Number(field(usageTwo, "cached_input_tokens"))).toBeLessThan(Number(field(usageTwo, "input_tokens")))
    // input_tokens is every input token: Anthropic's uncached count plus the cache reads and writes.
    const staticTokens = callsTwo.reduce((sum, call) => sum + Math.ceil(call.staticPart.length / 4), 0)
    expect(Number(field(usageTwo, "input_tokens"))).toBeGreaterThan(staticTokens)
  })

  it("OpenAI: a stable prompt_cache_key per pattern and mode; cached_tokens become cached_input_tokens and a metric", async () => {
    const { two, callsOne, callsTwo } = await twoAnalyses({ OPENAI_API_KEY: "sk-openai-cache-0123456789", OPENAI_BASE_URL: `${double.url}/v1` })
    expectStaticFirstTraceLast(callsOne, callsTwo)
    for (const call of [...callsOne, ...callsTwo]) expect(call.body["prompt_cache_key"]).toBe("pattern-analysis-service:lewin:standard")
    expect(Number(field(two, "detection", "usage", "cached_input_tokens"))).toBeGreaterThan(2048)

    const metrics = await startService({ OPENAI_API_KEY: "sk-openai-cache-0123456789", OPENAI_BASE_URL: `${double.url}/v1` })
    try {
      await analyze(metrics, first, "quick")
      await analyze(metrics, second, "quick")
      const text = await (await fetch(`${metrics.url}/metrics`)).text()
      const cached = /svc_model_tokens_total\{[^}]*direction="cached_input"[^}]*\} (\d+)/.exec(text)
      expect(Number(cached?.[1] ?? 0)).toBeGreaterThan(0)
    } finally {
      await metrics.close()
    }
    // Another mode is another key.
    const quick = double.calls.at(-1)
    expect(quick?.body["prompt_cache_key"]).toBe("pattern-analysis-service:lewin:quick")
  })

  it("local hosts: the same system message bytes for every analysis, the trace last", async () => {
    const { callsOne, callsTwo } = await twoAnalyses({ LOCAL_MODEL_HOST: double.url })
    expectStaticFirstTraceLast(callsOne, callsTwo)
    const messages = callsTwo[0]?.body["messages"]
    expect(Array.isArray(messages) ? messages.map((message) => field(message, "role")) : []).toEqual(["system", "user"])
  })
})
