/**
 * The model cost of analyses (issue 18), for bench/run.ts (`BENCH_ONLY=cost`): 100 analyses of one
 * pattern (lewin) in standard mode, one after another, over the example traces it reads, against
 * the provider double playing each provider's prompt cache (test/support/PromptCache.ts). It
 * measures the static prefix's share of the input tokens, checks that the prefix is the same bytes
 * in every call of a pass, and prices the input at the providers' published rates, with and
 * without the cache.
 *
 * Rates (USD per million input tokens), from the providers' pricing pages as of 2026-11:
 * - Anthropic Claude Sonnet 4.x: input 3.00; 5-minute cache write 3.75 (1.25×); cache read 0.30 (0.1×);
 * - OpenAI gpt-4o: input 2.50; cached input 1.25 (0.5×).
 */
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { createHash } from "node:crypto"
import { defaultReply, type RecordedCall, type Reply, startProviderDouble } from "../test/support/ProviderDouble.js"

const repo = join(import.meta.dirname, "..")

export const RATES = {
  anthropic: { input: 3.0, write: 3.75, read: 0.3 },
  openai: { input: 2.5, read: 1.25 }
} as const

export interface CostResult {
  readonly provider: "anthropic" | "openai"
  readonly analyses: number
  readonly calls: number
  readonly inputTokens: number
  readonly staticShare: number
  readonly byteIdentical: boolean
  readonly cachedCost: number
  readonly uncachedCost: number
  readonly ratio: number
}

/** lewin's own example trace, and every example trace of a pattern in the same shape (a step trace). */
export const costTraces = (): ReadonlyArray<unknown> => {
  const dir = join(repo, "patterns")
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => {
      try {
        const trace: unknown = JSON.parse(readFileSync(join(dir, entry.name, "example.trace.json"), "utf8"))
        return typeof trace === "object" && trace !== null && Array.isArray(Reflect.get(trace, "steps")) ? [trace] : []
      } catch {
        return []
      }
    })
}

/** Each analysis reads a run of its own: the example trace with the run's number in its outcome. */
const runOf = (trace: unknown, index: number): unknown => {
  if (typeof trace !== "object" || trace === null) return trace
  const outcome: unknown = Reflect.get(trace, "outcome")
  return { ...trace, outcome: `${typeof outcome === "string" ? outcome : ""} (run ${index + 1})` }
}

const priced = (provider: "anthropic" | "openai", calls: ReadonlyArray<RecordedCall>) => {
  let cached = 0
  let uncached = 0
  for (const call of calls) {
    const usage = call.cacheUsage ?? { total: 0, read: 0, written: 0 }
    if (provider === "anthropic") {
      const rate = RATES.anthropic
      uncached += usage.total * rate.input
      cached += (usage.total - usage.read - usage.written) * rate.input + usage.written * rate.write + usage.read * rate.read
    } else {
      const rate = RATES.openai
      uncached += usage.total * rate.input
      cached += (usage.total - usage.read) * rate.input + usage.read * rate.read
    }
  }
  return { cached: cached / 1e6, uncached: uncached / 1e6 }
}

/**
 * Runs the analyses through a service started by `start` with the double's address, and prices them.
 * `start` returns the service's url and a function that stops it.
 */
export const measureCost = async (
  provider: "anthropic" | "openai",
  start: (env: Record<string, string>) => Promise<{ readonly url: string; readonly stop: () => Promise<void> }>,
  headers: Record<string, string>,
  analyses = 100
): Promise<CostResult> => {
  const double = await startProviderDouble({ promptCache: true })
  // A real model's draft differs from run to run: the double's example answer gets a summary of its
  // own per request, so a pass that sends the draft back cannot be served from the cache by accident.
  double.script = (call): Reply => {
    const reply = defaultReply(call)
    if (reply.kind !== "object" || typeof reply.value !== "object" || reply.value === null) return reply
    const summary: unknown = Reflect.get(reply.value, "summary")
    if (typeof summary !== "string") return reply
    const tag = createHash("sha256").update(call.text).digest("hex").slice(0, 12)
    return { ...reply, value: { ...reply.value, summary: `${summary} (run ${tag})` } }
  }
  const env: Record<string, string> = provider === "anthropic"
    ? { ANTHROPIC_API_KEY: "sk-ant-bench-0123456789", ANTHROPIC_BASE_URL: double.url }
    : { OPENAI_API_KEY: "sk-bench-openai-0123456789", OPENAI_BASE_URL: `${double.url}/v1` }
  const service = await start(env)
  const traces = costTraces()
  const passes: Array<Array<string>> = [[], []]
  try {
    for (let i = 0; i < analyses; i++) {
      const before = double.calls.length
      const response = await fetch(`${service.url}/v1/analyze/lewin`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify({ trace: runOf(traces[i % traces.length], i), mode: "standard" })
      })
      if (response.status !== 200) throw new Error(`cost: analysis ${i} answered ${response.status}: ${(await response.text()).slice(0, 300)}`)
      await response.arrayBuffer()
      double.calls.slice(before).forEach((call, pass) => passes[pass]?.push(call.staticPart))
    }
  } finally {
    await service.stop()
    await double.close()
  }
  const calls = double.calls
  const inputTokens = calls.reduce((sum, call) => sum + (call.cacheUsage?.total ?? 0), 0)
  const staticTokens = calls.reduce((sum, call) => sum + Math.ceil(call.staticPart.length / 4), 0)
  const { cached, uncached } = priced(provider, calls)
  return {
    provider,
    analyses,
    calls: calls.length,
    inputTokens,
    staticShare: staticTokens / inputTokens,
    byteIdentical: passes.every((parts) => parts.length === analyses && parts.every((part) => part === parts[0])),
    cachedCost: cached,
    uncachedCost: uncached,
    ratio: cached / uncached
  }
}
