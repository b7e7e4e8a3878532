/**
 * The service's own spans over OTLP (DECISIONS §21, issue 37), against the real service, the
 * provider double and a collector double that decodes protobuf and JSON: span names, parentage,
 * the HTTP and GenAI attributes, `traceparent` continued, no trace content, key or key name unless
 * asked, the exporter's headers, failures, and a run's own trace (run → diagnose → lens → chat).
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { type CollectedSpan, type Collector, startCollector } from "../support/Collector.js"
import { useProviderDouble } from "../support/Harness.js"
import { exampleTrace } from "../support/ProviderDouble.js"
import type { RunningService } from "../support/Service.js"
import { chatTrace, freshHome, quotingEvents, submitOne, waitForRun } from "../runs/support.js"
import { connectHttp } from "../mcp/support.js"

let collector: Collector
beforeAll(async () => {
  collector = await startCollector()
})
// Declared before the harness, so it runs after the harness's (vitest runs afterAll hooks last
// declared first): the services flush their last spans at close to a collector still listening,
// not to a closed port, which the exporter retries until its timeout (10 s by default).
afterAll(() => collector.close())
const harness = useProviderDouble()

const KEY = "svc-key-tracing-0123456789abcdef"
const KEY_NAME = "alice-the-operator"
const PROVIDER_KEY = "sk-ant-tracing-0123456789"
const MARKER = "ZEBRA-MARKER-7731"

const start = (env: Record<string, string> = {}) =>
  harness.start({
    ANTHROPIC_API_KEY: PROVIDER_KEY,
    ANTHROPIC_BASE_URL: harness.double.url,
    SVC_API_KEYS: `${KEY_NAME}=${KEY}`,
    OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
    OTEL_BSP_SCHEDULE_DELAY: "50",
    ...env
  })

/** Lewin's example trace, its task carrying the marker (trace content that must not be on a span). */
const traceWithMarker = (): unknown => {
  const trace = exampleTrace("lewin")
  return { ...trace, task: `${MARKER} ${String(trace["task"])}` }
}

const post = (service: RunningService, path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${service.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${KEY}`, ...headers },
    body: JSON.stringify(body)
  })

const randomHex = (bytes: number) => Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (byte) => byte.toString(16).padStart(2, "0")).join("")

const inTrace = (traceId: string) => collector.spans.filter((span) => span.traceId === traceId)
const only = (spans: ReadonlyArray<CollectedSpan>, name: string): CollectedSpan => {
  const found = spans.filter((span) => span.name === name)
  expect(found.map((span) => span.name), `one span named ${name} among ${spans.map((span) => span.name).join(", ")}`).toEqual([name])
  const [span] = found
  if (span === undefined) throw new Error(`no span ${name}`)
  return span
}
const childrenOf = (spans: ReadonlyArray<CollectedSpan>, parent: CollectedSpan) => spans.filter((span) => span.parentSpanId === parent.spanId)
/** The GenAI conventions' messages, as the spans carry them (JSON). */
const Messages = Schema.Array(Schema.Struct({ role: Schema.String, parts: Schema.Array(Schema.Struct({ type: Schema.Literal("text"), content: Schema.String })) }))

/** Everything a backend would store of these spans, as text. */
const stored = (spans: ReadonlyArray<CollectedSpan>) => JSON.stringify(spans)

describe("the service's own spans (DECISIONS §21)", () => {
  it("an analyze request: a server span continuing traceparent → lens → chat with the GenAI attributes; no content, key or key name", async () => {
    const service = await start({ OTEL_EXPORTER_OTLP_HEADERS: "x-collector-token=tok%20en-42,x-tenant=acme" })
    const traceId = randomHex(16)
    const parentId = randomHex(8)
    const response = await post(service, "/v1/analyze/lewin", traceWithMarker(), { traceparent: `00-${traceId}-${parentId}-01`, "user-agent": "tracing-test/1" })
    expect(response.status).toBe(200)
    await collector.until(() => inTrace(traceId).length >= 4)
    const spans = inTrace(traceId)

    const server = only(spans, "POST /v1/analyze/lewin")
    expect(server.parentSpanId).toBe(parentId)
    expect(server.kind).toBe(2)
    expect(server.attrs).toMatchObject({
      "http.request.method": "POST",
      "http.route": "/v1/analyze/lewin",
      "url.path": "/v1/analyze/lewin",
      "url.scheme": "http",
      "http.response.status_code": 200,
      "server.address": "127.0.0.1",
      "server.port": service.port,
      "user_agent.original": "tracing-test/1"
    })
    expect(server.status?.code).not.toBe(2)

    const lens = only(spans, "lens lewin")
    expect(lens.parentSpanId).toBe(server.spanId)
    expect(lens.attrs).toMatchObject({ "svc.pattern": "lewin", "svc.mode": "standard", "svc.cache": "miss", "svc.usage.llm_calls": 2 })

    // standard mode: two model calls (analysis, grounding), each a client span under the lens
    const calls = childrenOf(spans, lens).filter((span) => span.name.startsWith("chat "))
    expect(calls).toHaveLength(2)
    for (const call of calls) {
      expect(call.kind).toBe(3)
      expect(call.attrs).toMatchObject({
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "anthropic",
        "gen_ai.output.type": "json",
        "gen_ai.response.finish_reasons": ["tool_use"],
        "server.address": "127.0.0.1"
      })
      expect(call.name).toBe(`chat ${String(call.attrs["gen_ai.request.model"])}`)
      expect(call.attrs["gen_ai.response.model"]).toBe(call.attrs["gen_ai.request.model"])
      expect(call.attrs["gen_ai.response.id"]).toMatch(/^msg_/)
      for (const usage of ["gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens", "gen_ai.usage.cache_read.input_tokens"]) {
        expect(typeof call.attrs[usage], usage).toBe("number")
      }
      expect(call.attrs["gen_ai.usage.input_tokens"]).toBeGreaterThan(0)
      expect(call.attrs).not.toHaveProperty("gen_ai.input.messages")
      expect(call.attrs).not.toHaveProperty("gen_ai.output.messages")
    }
    // the resource names the service; the spans hold no trace content, no key and no key name
    expect(server.resource).toMatchObject({ "service.name": "pattern-analysis-service" })
    expect(typeof server.resource["service.version"]).toBe("string")
    for (const secret of [MARKER, KEY, KEY_NAME, PROVIDER_KEY]) expect(stored(spans)).not.toContain(secret)
    // the exporter's headers, percent-decoded, and its default encoding
    const request = collector.requests.find((each) => each.headers["x-collector-token"] !== undefined)
    expect(request?.headers["x-collector-token"]).toBe("tok en-42")
    expect(request?.headers["x-tenant"]).toBe("acme")
    expect(request?.encoding).toBe("protobuf")
  })

  it("a diagnose over OTLP/JSON with SVC_OTEL_CAPTURE_CONTENT: server → diagnose → lenses → chat, prompts and answers on the calls", async () => {
    const service = await start({ OTEL_EXPORTER_OTLP_PROTOCOL: "http/json", SVC_OTEL_CAPTURE_CONTENT: "true", OTEL_SERVICE_NAME: "svc-under-test" })
    const traceId = randomHex(16)
    const response = await post(service, "/v1/diagnose?mode=quick", { trace: chatTrace(MARKER), patterns: ["lewin", "lencioni"] }, { traceparent: `00-${traceId}-${randomHex(8)}-01` })
    expect(response.status).toBe(200)
    await collector.until(() => inTrace(traceId).filter((span) => span.name.startsWith("chat ")).length >= 2)
    await collector.until(() => inTrace(traceId).some((span) => span.kind === 2))
    const spans = inTrace(traceId)
    const server = only(spans, "POST /v1/diagnose")
    const diagnose = only(spans, "diagnose")
    expect(diagnose.parentSpanId).toBe(server.spanId)
    expect(diagnose.attrs).toMatchObject({ "svc.mode": "quick", "svc.lenses": 2 })
    const lenses = childrenOf(spans, diagnose).map((span) => span.name).sort()
    expect(lenses).toEqual(["lens lencioni", "lens lewin"])
    for (const lens of childrenOf(spans, diagnose)) {
      const [call] = childrenOf(spans, lens)
      expect(call?.name).toMatch(/^chat /)
      // the prompts and the answer, as the conventions' JSON messages
      const input: unknown = JSON.parse(String(call?.attrs["gen_ai.input.messages"]))
      expect(JSON.stringify(input)).toContain(MARKER)
      expect(Schema.is(Messages)(input)).toBe(true)
      expect(String(call?.attrs["gen_ai.system_instructions"])).toContain("\"type\":\"text\"")
      expect(String(call?.attrs["gen_ai.output.messages"])).toContain("\"role\":\"assistant\"")
    }
    expect(server.resource["service.name"]).toBe("svc-under-test")
    expect(collector.requests.filter((request) => request.headers["content-type"]?.includes("json") === true).length).toBeGreaterThan(0)
    // content, never keys
    for (const secret of [KEY, KEY_NAME, PROVIDER_KEY]) expect(stored(spans)).not.toContain(secret)
  })

  it("a provider failure: the call, the lens and the server span fail with the error's kind, not its message", async () => {
    const service = await start()
    harness.double.script = () => ({ kind: "status", status: 400, body: JSON.stringify({ type: "error", error: { type: "invalid_request_error", message: `bad request ${MARKER}` } }) })
    const traceId = randomHex(16)
    const response = await post(service, "/v1/analyze/lewin?mode=quick", traceWithMarker(), { traceparent: `00-${traceId}-${randomHex(8)}-01` })
    expect(response.status).toBeGreaterThanOrEqual(500)
    await collector.until(() => inTrace(traceId).some((span) => span.kind === 2))
    const spans = inTrace(traceId)
    const server = only(spans, "POST /v1/analyze/lewin")
    const lens = only(spans, "lens lewin")
    const [call] = childrenOf(spans, lens)
    for (const span of [call, lens, server]) {
      expect(span?.status?.code, span?.name).toBe(2)
      expect(typeof span?.attrs["error.type"], span?.name).toBe("string")
    }
    expect(call?.attrs["error.type"]).toBe(lens.attrs["error.type"])
    expect(server.attrs["http.response.status_code"]).toBe(response.status)
    expect(stored(spans)).not.toContain(MARKER)
  })

  it("an MCP tool call: the request's server span → the MCP server's tools/call → lens → chat", async () => {
    const service = await start({ SVC_API_KEYS: "" })
    const { client } = await connectHttp(service.url)
    const result = await client.callTool({ name: "svc_lewin", arguments: { trace: traceWithMarker(), mode: "quick" } })
    expect(result.isError ?? false).toBe(false)
    await client.close()
    await collector.until(() => collector.spans.some((span) => span.name === "McpServer.tools/call"))
    const call = collector.spans.filter((span) => span.name === "McpServer.tools/call").at(-1)
    if (call === undefined) throw new Error("no tools/call span")
    await collector.until(() => inTrace(call.traceId).some((span) => span.name === "POST /mcp" && span.spanId === call.parentSpanId))
    const lens = only(inTrace(call.traceId), "lens lewin")
    expect(lens.parentSpanId).toBe(call.spanId)
    expect(childrenOf(inTrace(call.traceId), lens).map((span) => span.name)).toEqual([expect.stringMatching(/^chat /)])
    expect(stored(inTrace(call.traceId))).not.toContain(MARKER)
  })

  it("a run: a trace of its own (run → diagnose → lens → chat); its submission's statements under the request; no statement outside one", async () => {
    const service = await start({ SVC_WORKERS: "1", SVC_HOME: freshHome("tracing"), SVC_API_KEYS: "", SVC_CACHE: "off" })
    const contents = chatTrace(MARKER).messages.map((message) => message.content)
    harness.double.script = quotingEvents(contents, [2, 4])
    const id = await submitOne(service, { trace: chatTrace(MARKER), patterns: ["lewin"], mode: "quick" })
    expect((await waitForRun(service, id)).status).toBe("done")
    await collector.until(() => collector.spans.some((span) => span.name === "run" && span.attrs["svc.run.id"] === id))
    const run = collector.spans.find((span) => span.name === "run" && span.attrs["svc.run.id"] === id)
    if (run === undefined) throw new Error("no run span")
    expect(run.parentSpanId ?? "").toBe("")
    expect(run.kind).toBe(5)
    expect(run.attrs).toMatchObject({ "svc.run.status": "done", "svc.run.attempt": 1, "svc.run.source": "api" })
    await collector.until(() => inTrace(run.traceId).some((span) => span.name.startsWith("chat ")))
    const spans = inTrace(run.traceId)
    const diagnose = only(spans, "diagnose")
    expect(diagnose.parentSpanId).toBe(run.spanId)
    const lens = only(spans, "lens lewin")
    expect(lens.parentSpanId).toBe(diagnose.spanId)
    expect(childrenOf(spans, lens).map((span) => span.name)).toEqual([expect.stringMatching(/^chat /)])
    // the finish's statements are in the run's trace
    expect(spans.some((span) => span.name === "sql.execute" && span.kind === 3)).toBe(true)
    // the submission: a server span with its statements under it
    await collector.until(() => collector.spans.some((span) => span.name === "POST /v1/runs"))
    const submission = collector.spans.filter((span) => span.name === "POST /v1/runs")
    expect(submission.length).toBeGreaterThan(0)
    expect(submission.map((span) => span.traceId)).not.toContain(run.traceId)
    const submitted = collector.spans.filter((span) => submission.some((server) => span.parentSpanId === server.spanId))
    expect(submitted.some((span) => span.name === "sql.execute" || span.name === "sql.transaction")).toBe(true)
    // the workers' polling makes no span: every statement has a parent
    expect(collector.spans.filter((span) => span.name.startsWith("sql.") && (span.parentSpanId ?? "") === "")).toEqual([])
    expect(stored([...spans, ...submission, ...submitted])).not.toContain(MARKER)
  })
})

describe("the OTEL_* settings reach the SDK", () => {
  it("the sampler (parent-based ratio 0: only traces a caller sampled), the resource's attributes, the batch size", async () => {
    const service = await start({
      OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
      OTEL_TRACES_SAMPLER_ARG: "0",
      OTEL_RESOURCE_ATTRIBUTES: "deployment.environment.name=staging%2Deu,team=agents",
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: "1",
      OTEL_EXPORTER_OTLP_HEADERS: "x-batch-test=one"
    })
    const unsampled = randomHex(16)
    const sampled = randomHex(16)
    const dropped = randomHex(16)
    // no traceparent: a root, sampled at ratio 0 (dropped); a caller's sampled trace is followed, an unsampled one is not
    expect((await post(service, "/v1/analyze/lewin?mode=quick", traceWithMarker(), { "x-request-id": `root-${unsampled}` })).status).toBe(200)
    expect((await post(service, "/v1/analyze/lewin?mode=quick", traceWithMarker(), { traceparent: `00-${sampled}-${randomHex(8)}-01` })).status).toBe(200)
    expect((await post(service, "/v1/analyze/lewin?mode=quick", traceWithMarker(), { traceparent: `00-${dropped}-${randomHex(8)}-00` })).status).toBe(200)
    // A later sampled trace's server span, exported after (the batch processor exports one batch
    // at a time, in the order the spans ended): had the dropped trace's spans been sampled, they
    // would have arrived before it.
    const after = randomHex(16)
    expect((await post(service, "/v1/analyze/lewin?mode=quick", traceWithMarker(), { traceparent: `00-${after}-${randomHex(8)}-01` })).status).toBe(200)
    await collector.until(() => inTrace(sampled).length >= 3 && inTrace(after).some((span) => span.kind === 2))
    expect(inTrace(dropped)).toEqual([])
    expect(collector.spans.filter((span) => span.attrs["svc.request.id"] === `root-${unsampled}`)).toEqual([])
    const [server] = inTrace(sampled).filter((span) => span.kind === 2)
    expect(server?.resource).toMatchObject({ "deployment.environment.name": "staging-eu", team: "agents", "service.name": "pattern-analysis-service" })
    // one span per export request
    const mine = collector.requests.filter((request) => request.headers["x-batch-test"] === "one")
    expect(mine.length).toBeGreaterThanOrEqual(3)
    expect(mine.length).toBe(collector.spans.filter((span) => span.resource["team"] === "agents").length)
  })
})

describe("a collector that is down", () => {
  it("costs nothing but the lost spans: requests are served, the failed spans counted (svc_telemetry_spans_total)", async () => {
    const { freePort } = await import("../support/Net.js")
    const closed = await freePort()
    const service = await start({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${closed}`, OTEL_EXPORTER_OTLP_TIMEOUT: "300" })
    for (let i = 0; i < 3; i++) expect((await post(service, "/v1/analyze/lewin?mode=quick", traceWithMarker())).status).toBe(200)
    const failed = async () => {
      const text = await (await fetch(`${service.url}/metrics`)).text()
      return Number(/^svc_telemetry_spans_total\{[^}]*outcome="failed"[^}]*\} (\d+)/m.exec(text)?.[1] ?? "0")
    }
    const deadline = Date.now() + 10_000
    while ((await failed()) < 9) {
      if (Date.now() > deadline) throw new Error(`the failed exports were not counted (${await failed()})`)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    expect((await fetch(`${service.url}/readyz`)).status).toBe(200)
  })
})

describe("a service exporting to itself", () => {
  it("drops its own spans on arrival and makes no span of those exports (no loop)", async () => {
    const { freePort } = await import("../support/Net.js")
    const port = await freePort()
    const service = await harness.start({
      SVC_PORT: String(port),
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      OTEL_BSP_SCHEDULE_DELAY: "50",
      // its last spans, flushed at close, go to its own closed listener: retried for this long
      OTEL_EXPORTER_OTLP_TIMEOUT: "3000",
      SVC_OTLP_QUIET_SECONDS: "1",
      SVC_OTLP_DIAGNOSE: "all",
      SVC_HOME: freshHome("self-export"),
      ANTHROPIC_API_KEY: PROVIDER_KEY,
      ANTHROPIC_BASE_URL: harness.double.url
    })
    const normalize = await fetch(`${service.url}/v1/traces/normalize`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ trace: chatTrace(MARKER) }) })
    expect(normalize.status).toBe(200)
    const own = async () => {
      const text = await (await fetch(`${service.url}/metrics`)).text()
      return text.split("\n").filter((line) => line.startsWith("svc_otlp_items_total{") && line.includes("outcome=\"own\"")).reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(" ") + 1)), 0)
    }
    // the normalize request's spans (and the metrics reads') come back and are counted as the service's own
    const deadline = Date.now() + 10_000
    while ((await own()) === 0) {
      if (Date.now() > deadline) throw new Error("the service's own spans never arrived")
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    // quiet: nothing else is asked of it; the exports it receives make no span, so the count settles
    await new Promise((resolve) => setTimeout(resolve, 1500))
    const settled = await own()
    await new Promise((resolve) => setTimeout(resolve, 1500))
    // the one read above made one more span (a GET /metrics), and nothing else did
    expect(await own()).toBeLessThanOrEqual(settled + 1)
    // none of it became a run
    const runs = await fetch(`${service.url}/v1/runs`)
    expect(Schema.decodeUnknownSync(Schema.Struct({ runs: Schema.Array(Schema.Unknown) }))(await runs.json()).runs).toEqual([])
  })
})
