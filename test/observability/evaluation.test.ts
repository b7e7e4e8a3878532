/**
 * Verdicts back into the user's tracing backend (DECISIONS §21, issue 37): a run that came over
 * OTLP sends its findings to SVC_EVALUATION_ENDPOINT as `gen_ai.evaluation.result` log records
 * linked to the user's trace and the spans they cite, through the outbox, in the configured
 * encoding and with the configured headers; an endpoint that is down never holds the run. The
 * run's own span links to the trace it diagnosed. Against the real service, the provider double
 * and the collector double (which decodes protobuf and JSON).
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { AlertDeliveryList } from "../../src/Contract/ProblemsContract.js"
import { NormalizedTrace } from "../../src/Traces/Model.js"
import { type Collector, startCollector } from "../support/Collector.js"
import { useProviderDouble } from "../support/Harness.js"
import type { RunningService } from "../support/Service.js"
import { buildTrace, tracesRequest, until } from "../otlp/support.js"
import { allRunsAt, decoded, freshHome, getRun, quotingEvents } from "../runs/support.js"

const harness = useProviderDouble()
let collector: Collector
beforeAll(async () => {
  collector = await startCollector()
})
afterAll(() => collector.close())

const start = (env: Record<string, string>) =>
  harness.start({
    ANTHROPIC_API_KEY: "sk-ant-evaluation-0123456789",
    ANTHROPIC_BASE_URL: harness.double.url,
    SVC_WORKERS: "1",
    SVC_HOME: freshHome("evaluation"),
    SVC_OTLP_QUIET_SECONDS: "1",
    SVC_OTLP_DIAGNOSE: "all",
    SVC_EVALUATION_ENDPOINT: `${collector.url}/v1/logs`,
    ...env
  })

/** Sends trace `n` over OTLP/JSON, each lens quoting two of its tool calls: the trace, and the spans those events came from. */
const sendTrace = async (service: RunningService, salt: number) => {
  const built = buildTrace(salt, 1, 3)
  const request = tracesRequest(built.spans)
  const normalize = await fetch(`${service.url}/v1/traces/normalize`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ trace: request, select: 0 }) })
  const trace = (await decoded(normalize, 200, Schema.Struct({ trace: NormalizedTrace }))).trace
  const picks = trace.events.flatMap((event, index) => (event.kind === "tool_call" && event.content.length >= 20 ? [index] : [])).slice(0, 2)
  expect(picks).toHaveLength(2)
  harness.double.script = quotingEvents(trace.events.map((event) => event.content), picks)
  const cited = new Set(picks.map((index) => /^span:([0-9a-f]{16})/.exec(trace.events[index]?.source ?? "")?.[1]))
  const sent = await fetch(`${service.url}/v1/traces`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(request) })
  expect(sent.status).toBe(200)
  return { built, cited }
}

const doneRun = async (service: RunningService) => {
  await until("the OTLP trace's run is done", async () => (await allRunsAt(service.url)).some((run) => run.status === "done"), 30_000)
  const [run] = (await allRunsAt(service.url)).filter((each) => each.status === "done")
  if (run === undefined) throw new Error("no run")
  return run
}

describe("verdicts to SVC_EVALUATION_ENDPOINT", () => {
  it("protobuf (the default): one gen_ai.evaluation.result per finding on the user's trace and the cited span, with the endpoint's headers", async () => {
    const service = await start({
      SVC_EVALUATION_HEADERS: "authorization=Bearer%20eval-token-1,x-scope-orgid=tenant-7",
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_BSP_SCHEDULE_DELAY: "50"
    })
    const { built, cited } = await sendTrace(service, 0x37a1)
    const run = await doneRun(service)
    expect(run.source).toBe("otlp")
    await collector.until(() => collector.logs.some((record) => record.traceId === built.traceId))
    const records = collector.logs.filter((record) => record.traceId === built.traceId)
    const { report } = await getRun(service, run.id)
    if (report === undefined) throw new Error("a done run has a report")
    expect(records).toHaveLength(report.findings.length)
    for (const record of records) {
      expect(record.eventName).toBe("gen_ai.evaluation.result")
      expect(cited.has(record.spanId)).toBe(true)
      expect(record.attrs).toMatchObject({ "gen_ai.evaluation.score.label": "high" })
      expect(report.findings.map((finding) => finding.pattern)).toContain(record.attrs["gen_ai.evaluation.name"])
      expect(typeof record.attrs["gen_ai.evaluation.score.value"]).toBe("number")
      expect(String(record.attrs["gen_ai.evaluation.explanation"]).length).toBeGreaterThan(0)
      expect(record.resource["service.name"]).toBe("pattern-analysis-service")
    }
    const request = collector.requests.find((each) => each.path === "/v1/logs" && each.headers["x-scope-orgid"] === "tenant-7")
    expect(request?.encoding).toBe("protobuf")
    expect(request?.headers["authorization"]).toBe("Bearer eval-token-1")
    // the outbox shows the export, delivered; its URL as its origin only
    const deliveries = await decoded(await fetch(`${service.url}/v1/alerts/deliveries`), 200, AlertDeliveryList)
    const delivery = deliveries.deliveries.find((each) => each.event === "run.evaluation")
    expect(delivery).toMatchObject({ run_id: run.id, state: "delivered", attempts: 1, last_status: 200, url: `${collector.url}/…` })
    // the run's own span links to the trace it diagnosed
    await collector.until(() => collector.spans.some((span) => span.name === "run" && span.attrs["svc.run.id"] === run.id))
    const span = collector.spans.find((each) => each.name === "run" && each.attrs["svc.run.id"] === run.id)
    expect(span?.attrs["svc.run.source"]).toBe("otlp")
    expect(span?.links.map((link) => link.traceId)).toEqual([built.traceId])
  })

  it("OTLP/JSON with SVC_EVALUATION_PROTOCOL=http/json", async () => {
    const service = await start({ SVC_EVALUATION_PROTOCOL: "http/json", SVC_EVALUATION_HEADERS: "x-eval=json-42" })
    const { built, cited } = await sendTrace(service, 0x37a2)
    await doneRun(service)
    await collector.until(() => collector.logs.some((record) => record.traceId === built.traceId))
    const records = collector.logs.filter((record) => record.traceId === built.traceId)
    expect(records.length).toBeGreaterThan(0)
    for (const record of records) expect(cited.has(record.spanId)).toBe(true)
    const request = collector.requests.find((each) => each.path === "/v1/logs" && each.headers["x-eval"] === "json-42")
    expect(request?.encoding).toBe("json")
  })

  it("an endpoint that is down holds no run: the run is done, its verdicts wait in the outbox to be tried again", async () => {
    collector.failNext(1_000, 503)
    try {
      const service = await start({ SVC_EVALUATION_HEADERS: "x-eval=down" })
      const { built } = await sendTrace(service, 0x37a3)
      const run = await doneRun(service)
      await until("an attempt", async () => {
        const list = await decoded(await fetch(`${service.url}/v1/alerts/deliveries`), 200, AlertDeliveryList)
        return list.deliveries.some((each) => each.event === "run.evaluation" && each.attempts >= 1)
      }, 15_000)
      const list = await decoded(await fetch(`${service.url}/v1/alerts/deliveries`), 200, AlertDeliveryList)
      expect(list.deliveries.find((each) => each.event === "run.evaluation")).toMatchObject({ run_id: run.id, state: "pending", last_status: 503 })
      expect(collector.logs.some((record) => record.traceId === built.traceId)).toBe(false)
    } finally {
      collector.failNext(0, 503)
    }
  })
})
