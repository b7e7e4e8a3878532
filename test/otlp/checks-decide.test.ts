/**
 * SVC_OTLP_DIAGNOSE with the checks (DECISIONS §23), through the real service: the checks run on
 * every complete trace, on the trace as its run keeps it, and one at medium or above makes it
 * failed. A run of the same search three times with the same result, no span marked in error, is
 * queued under `failed` and under `sample:0`; the same run without the loop is
 * `skipped: not_failed` or `sampled_out`. No workers: the queued run stays queued.
 */
import { describe, expect, it } from "@effect/vitest"
import { useProviderDouble } from "../support/Harness.js"
import type { RunningService } from "../support/Service.js"
import { agentTrace } from "../runs/content-traces.js"
import { call, freshHome, listRuns, sleep } from "../runs/support.js"

const harness = useProviderDouble()

const start = (diagnose: string) =>
  harness.start({
    ANTHROPIC_API_KEY: "sk-ant-checks-decide-0123456789",
    ANTHROPIC_BASE_URL: harness.double.url,
    SVC_HOME: freshHome("checks-decide"),
    SVC_OTLP_DIAGNOSE: diagnose,
    SVC_OTLP_QUIET_SECONDS: "1",
    SVC_OTLP_MAX_AGE_SECONDS: "60"
  })

const QUESTION = { question: "Find the cheapest flight to Oslo tomorrow.", answer: "The cheapest flight to Oslo costs 89 EUR." }
/** Three searches: the same arguments and result each time (a loop, medium), or new ones each time (none). */
const searches = (looping: boolean) =>
  agentTrace({
    agent: "search_agent",
    content: QUESTION,
    tools: [1, 2, 3].map((day) => ({
      name: "search_flights",
      args: JSON.stringify({ to: "OSL", day: looping ? 1 : day }),
      result: JSON.stringify({ flights: looping ? [] : [{ price: 80 + day }] })
    }))
  })

/** The run an OTLP trace became (queued or skipped). */
const runOfTrace = async (service: RunningService, traceId: string) => {
  const deadline = Date.now() + 20_000
  while (Date.now() < deadline) {
    const [run] = (await listRuns(service, `?trace_id=${traceId}`)).runs
    if (run !== undefined) return run
    await sleep(50)
  }
  throw new Error(`no run of trace ${traceId}`)
}

const decisions = async (diagnose: string) => {
  const service = await start(diagnose)
  const loop = searches(true)
  const plain = searches(false)
  for (const trace of [loop, plain]) {
    const response = await call(service, "POST", "/v1/traces", { body: trace.body })
    expect(response.status, (await response.text()).slice(0, 300)).toBe(200)
  }
  return { loop: await runOfTrace(service, loop.traceId), plain: await runOfTrace(service, plain.traceId) }
}

describe("SVC_OTLP_DIAGNOSE reads the checks", () => {
  it("failed: a trace without an error status but with a check at medium or above is queued, not skipped: not_failed", async () => {
    const { loop, plain } = await decisions("failed")
    expect(loop).toMatchObject({ source: "otlp", status: "queued", reason: null })
    expect(plain).toMatchObject({ source: "otlp", status: "skipped", reason: "not_failed" })
    expect(harness.double.calls).toEqual([])
  })

  it("sample:0: the check makes it a failure, which is always queued; the other is sampled out", async () => {
    const { loop, plain } = await decisions("sample:0")
    expect(loop).toMatchObject({ status: "queued", reason: null })
    expect(plain).toMatchObject({ status: "skipped", reason: "sampled_out" })
  })
})
