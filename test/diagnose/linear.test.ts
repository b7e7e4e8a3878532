/**
 * Diagnose on many agents (issue 27): its work grows with the events, not events × agents, and it
 * gives the event loop turns while it works, so probes and other requests go on. No timing
 * thresholds (house rule): turns and reads are counted. The traces are bench/agents-traces.ts's,
 * the ones bench/agents.ts measures.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Context, Effect, Either, Exit, Layer, Scope } from "effect"
import { autogenGroupChat, mixedRun, otelAgentChain } from "../../bench/agents-traces.js"
import { Caller, callerFrom, type CallerShape } from "../../src/Auth/Caller.js"
import { Scopes } from "../../src/Auth/Scopes.js"
import { ResourcesLive } from "../../src/Resources.js"
import { patternCodes } from "../../src/Catalogue/Catalogue.js"
import { appConfig } from "../../src/Config.js"
import { DiagnoseService, type DiagnoseServiceShape } from "../../src/Diagnose/DiagnoseService.js"
import type { NormalizedTrace, TraceEvent } from "../../src/Traces/Model.js"
import { keepAsRead, normalizeTrace } from "../../src/Traces/Normalize.js"
import { projectTrace } from "../../src/Catalogue/Project.js"

/** The patterns triage projects a trace for (those that read runs). */
const readers = patternCodes.filter((code) => code.reading.accepts)

describe("diagnose on 5,000 agents", () => {
  const scope = Effect.runSync(Scope.make())
  let diagnoses: DiagnoseServiceShape | undefined
  let caller: CallerShape | undefined
  beforeAll(async () => {
    // No provider configured: diagnose answers with triage and the deterministic signals.
    const provider = ConfigProvider.fromMap(new Map([["SVC_LOG_LEVEL", "none"]]))
    const context = await Effect.runPromise(
      Effect.flatMap(appConfig, (config) => Layer.buildWithScope(ResourcesLive(config), scope)).pipe(Effect.withConfigProvider(provider))
    )
    diagnoses = Context.get(context, DiagnoseService)
    caller = Effect.runSync(callerFrom(Context.get(context, Scopes), null))
  })
  afterAll(() => Effect.runPromise(Scope.close(scope, Exit.void)))

  /** Runs a diagnose in this process, counting the event-loop turns taken while it runs. */
  const diagnoseCountingTurns = async (trace: unknown) => {
    const service = diagnoses
    if (service === undefined || caller === undefined) throw new Error("the service did not start")
    let turns = 0
    let running = true
    // setImmediate runs once per turn of the loop, whatever the machine's speed: each time it
    // runs, the diagnose had let go of the thread.
    const tick = () => {
      turns += 1
      if (running) setImmediate(tick)
    }
    setImmediate(tick)
    const outcome = await Effect.runPromise(Effect.either(service.diagnose({ trace }, "linear-test")).pipe(Effect.provideService(Caller, caller)))
    running = false
    return { outcome, turns }
  }

  it.each([
    ["an AutoGen group chat of 5,000 speakers", autogenGroupChat(5000)],
    ["5,000 nested OpenTelemetry agent spans", otelAgentChain(5000)]
  ])("yields between its chunks of work on %s", async (_, trace) => {
    const { outcome, turns } = await diagnoseCountingTurns(trace)
    if (Either.isLeft(outcome)) throw new Error(outcome.left.message)
    const { report } = outcome.right
    expect(report.trace.events).toBeGreaterThanOrEqual(4999)
    expect(report.triage).toHaveLength(patternCodes.length)
    // At least one turn of the loop per pattern triage projects the trace for (the work yields
    // between patterns), so a probe never waits behind the whole diagnose.
    expect(turns).toBeGreaterThanOrEqual(readers.length)
  })
})

/** A trace whose events count their own reads (each element read by index or iteration). */
const counted = (trace: NormalizedTrace) => {
  let reads = 0
  const events = new Proxy<Array<TraceEvent>>(Array.from(trace.events), {
    get: (target, key, receiver) => {
      if (typeof key === "string" && /^\d+$/.test(key)) reads += 1
      return Reflect.get(target, key, receiver)
    }
  })
  return { trace: { ...trace, events }, reads: () => reads }
}

const normalized = (body: unknown): NormalizedTrace => {
  const limits = Effect.runSync(appConfig.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map())))).limits
  const result = normalizeTrace(body, "auto", limits, keepAsRead)
  if (Either.isLeft(result)) throw new Error(result.left.message)
  const trace = result.right.traces[0]
  if (trace === undefined) throw new Error("no trace")
  return trace
}

describe("projections read each event a bounded number of times", () => {
  const shapes: ReadonlyArray<readonly [string, (agents: number) => NormalizedTrace]> = [
    ["an AutoGen group chat", (agents) => normalized(autogenGroupChat(agents))],
    ["nested OpenTelemetry agent spans", (agents) => normalized(otelAgentChain(agents))],
    ["a run with every kind of event", (agents) => mixedRun(agents, 2)]
  ]
  it.each(shapes)("on %s, 5,000 agents cost at most 25 times 250 agents (20 times the events)", (_, make) => {
    const small = make(250)
    const large = make(5000)
    expect(large.events.length / small.events.length).toBeCloseTo(20, 0)
    for (const code of readers) {
      const reads = (trace: NormalizedTrace) => {
        const probe = counted(trace)
        projectTrace(code.family, code.derive, probe.trace, {})
        return probe.reads()
      }
      const [few, many] = [reads(small), reads(large)]
      // Reads per event, not per event and agent: the crew projection once filtered the events once per agent.
      expect(many, code.slug).toBeLessThanOrEqual(25 * Math.max(few, 1))
    }
  })
})
