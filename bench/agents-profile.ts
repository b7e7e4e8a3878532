/**
 * `npx tsx bench/agents-profile.ts [agents...]`: in process, the time of each step of diagnose's
 * triage (normalize, then each pattern's projection and validation, and its signals) on the
 * many-agent traces of bench/agents-traces.ts, the best of PROFILE_REPEAT runs (default 3), slowest
 * patterns first (PROFILE_TOP of them, default 8). Finds what grows with the agents (issue 27);
 * bench/agents.ts measures the whole service.
 */
import { ConfigProvider, Effect, Either } from "effect"
import { performance } from "node:perf_hooks"
import { validateAdmitted } from "../src/Analysis/RawTraces.js"
import { patternCodes } from "../src/Catalogue/Catalogue.js"
import { appConfig } from "../src/Config.js"
import { keepAsRead, normalizeTrace } from "../src/Traces/Normalize.js"
import { autogenGroupChat, mixedRun, otelAgentChain } from "./agents-traces.js"

const limits = Effect.runSync(Effect.withConfigProvider(appConfig, ConfigProvider.fromMap(new Map()))).limits
const counts = process.argv.slice(2).map(Number).filter((n) => Number.isInteger(n) && n > 0)
const repeat = Number(process.env["PROFILE_REPEAT"] ?? 3)
const top = Number(process.env["PROFILE_TOP"] ?? 8)

for (const agents of counts.length > 0 ? counts : [250, 5000]) {
  const mixed = { steps: mixedRun(agents, 1).events.map((event) => ({ ...event, type: event.kind })) }
  for (const [name, body] of [["autogen", autogenGroupChat(agents)], ["otel", otelAgentChain(agents)], ["mixed", mixed]] as const) {
    const best = new Map<string, number>()
    const note = (step: string, ms: number) => best.set(step, Math.min(best.get(step) ?? Number.POSITIVE_INFINITY, ms))
    let events = 0
    for (let run = 0; run < repeat; run++) {
      const started = performance.now()
      const normalized = normalizeTrace(body, "auto", limits, keepAsRead)
      if (Either.isLeft(normalized)) throw new Error(normalized.left.message)
      const trace = normalized.right.traces[0]
      if (trace === undefined) throw new Error("no trace")
      events = trace.events.length
      note("normalize", performance.now() - started)
      for (const code of patternCodes) {
        if (!code.reading.accepts) continue
        const t = performance.now()
        const validated = validateAdmitted(code, { _tag: "Raw", format: normalized.right.format, trace }, {})
        if (Either.isRight(validated)) validated.right.trace.signals()
        note(code.slug, performance.now() - t)
      }
    }
    const { normalize = 0, ...patterns } = Object.fromEntries(best)
    const slowest = Object.entries(patterns).sort((a, b) => b[1] - a[1])
    const triage = slowest.reduce((sum, [, ms]) => sum + ms, 0)
    console.log(`${name} ${agents} agents, ${events} events: normalize ${normalize.toFixed(1)} ms, triage ${triage.toFixed(1)} ms`)
    console.log(`  ${slowest.slice(0, top).map(([slug, ms]) => `${slug} ${ms.toFixed(1)}`).join(", ")}`)
  }
}
