/**
 * The OTLP test agent (test/support/otlp-agent.mjs via runAgent) against a tiny loopback OTLP/HTTP
 * sink: what the REAL OpenTelemetry JS exporters (@opentelemetry/exporter-{trace,logs}-otlp-proto
 * and -otlp-http 0.223, configured through OTEL_EXPORTER_OTLP_* only) send for an agent loop
 * instrumented with @opentelemetry/instrumentation-openai, and the exporter behaviours the receiver
 * relies on: batching over several requests, two replicas, and otlp-exporter-base's retrying
 * transport (429/502/503/504 retried, Retry-After honoured within OTEL_EXPORTER_OTLP_TIMEOUT; other
 * statuses given up at once).
 */
import { afterEach, describe, expect, it } from "@effect/vitest"
import { createServer, type IncomingMessage } from "node:http"
import { Schema } from "effect"
import { runAgent } from "../support/OtlpAgent.js"

// ---------------------------------------------------------------------------------------------
// The sink: records every request, answers 200 with an empty response of the request's encoding
// unless `answer` says otherwise.
interface Received {
  readonly path: string
  readonly contentType: string | undefined
  readonly authorization: string | undefined
  readonly body: Buffer
  readonly at: number
}
interface Answer {
  readonly status: number
  readonly headers?: Record<string, string>
}
/** `seen`: how many requests to the same path came before this one. */
type Answering = (path: string, seen: number) => Answer | undefined

const sinks: Array<{ close: () => Promise<void> }> = []
afterEach(async () => {
  await Promise.all(sinks.splice(0).map((sink) => sink.close()))
})

const startSink = async (answering: Answering = () => undefined) => {
  const received: Array<Received> = []
  const read = (request: IncomingMessage) =>
    new Promise<Buffer>((resolve, reject) => {
      const chunks: Array<Buffer> = []
      request.on("data", (chunk: Buffer) => chunks.push(chunk))
      request.on("end", () => resolve(Buffer.concat(chunks)))
      request.on("error", reject)
    })
  const server = createServer((request, response) => {
    void read(request).then((body) => {
      const path = request.url ?? ""
      const seen = received.filter((earlier) => earlier.path === path).length
      const contentType = request.headers["content-type"]
      received.push({ path, contentType, authorization: request.headers.authorization, body, at: Date.now() })
      const answer = answering(path, seen)
      if (answer !== undefined) {
        response.writeHead(answer.status, { "content-type": "text/plain", ...answer.headers })
        response.end(`refused by the test sink (${answer.status})`)
        return
      }
      // An empty Export*ServiceResponse: `{}` in JSON, zero bytes in protobuf.
      const json = contentType === "application/json"
      response.writeHead(200, { "content-type": json ? "application/json" : "application/x-protobuf" })
      response.end(json ? "{}" : "")
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address()
  const port = typeof address === "object" && address !== null ? address.port : 0
  const sink = {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
  sinks.push(sink)
  return sink
}

// ---------------------------------------------------------------------------------------------
// The parts of OTLP/JSON (ExportTraceServiceRequest, ExportLogsServiceRequest) the tests read.
const KeyValue = Schema.Struct({ key: Schema.String, value: Schema.Unknown })
const Attributes = Schema.Array(KeyValue)
const Span = Schema.Struct({
  traceId: Schema.String,
  spanId: Schema.String,
  parentSpanId: Schema.optional(Schema.String),
  name: Schema.String,
  kind: Schema.Number,
  attributes: Attributes,
  status: Schema.optional(Schema.Struct({ code: Schema.optional(Schema.Number), message: Schema.optional(Schema.String) })),
  events: Schema.optional(Schema.Array(Schema.Struct({ name: Schema.String, attributes: Schema.optional(Attributes) })))
})
const Resource = Schema.Struct({ attributes: Attributes })
const Scope = Schema.Struct({ name: Schema.String })
const TracesRequest = Schema.Struct({
  resourceSpans: Schema.Array(Schema.Struct({ resource: Resource, scopeSpans: Schema.Array(Schema.Struct({ scope: Scope, spans: Schema.Array(Span) })) }))
})
const LogRecord = Schema.Struct({
  eventName: Schema.optional(Schema.String),
  attributes: Schema.optional(Attributes),
  body: Schema.optional(Schema.Unknown),
  traceId: Schema.optional(Schema.String)
})
const LogsRequest = Schema.Struct({
  resourceLogs: Schema.Array(Schema.Struct({ resource: Resource, scopeLogs: Schema.Array(Schema.Struct({ scope: Scope, logRecords: Schema.Array(LogRecord) })) }))
})
const StringValue = Schema.Struct({ stringValue: Schema.String })
const IntValue = Schema.Struct({ intValue: Schema.Union(Schema.Number, Schema.String) })

const attribute = (attributes: ReadonlyArray<typeof KeyValue.Type> | undefined, key: string): string | number | undefined => {
  const value = attributes?.find((entry) => entry.key === key)?.value
  if (Schema.is(StringValue)(value)) return value.stringValue
  if (Schema.is(IntValue)(value)) return Number(value.intValue)
  return undefined
}
const decodeTraces = Schema.decodeUnknownSync(Schema.parseJson(TracesRequest))
const decodeLogs = Schema.decodeUnknownSync(Schema.parseJson(LogsRequest))

const requestsTo = (received: ReadonlyArray<Received>, path: string) => received.filter((request) => request.path === path)
const spansOf = (received: ReadonlyArray<Received>) =>
  requestsTo(received, "/v1/traces").flatMap((request) =>
    decodeTraces(request.body.toString("utf8")).resourceSpans.flatMap((resource) =>
      resource.scopeSpans.flatMap((scope) => scope.spans.map((span) => ({ ...span, scope: scope.scope.name, resource: resource.resource })))
    )
  )
const logsOf = (received: ReadonlyArray<Received>) =>
  requestsTo(received, "/v1/logs").flatMap((request) =>
    decodeLogs(request.body.toString("utf8")).resourceLogs.flatMap((resource) => resource.scopeLogs.flatMap((scope) => scope.logRecords))
  )
/** A log record's event name: the field, or the `event.name` attribute older emitters use. */
const eventName = (record: typeof LogRecord.Type) => record.eventName ?? attribute(record.attributes, "event.name")

// OTLP span kinds and status codes, as numbers on the wire.
const KIND = { INTERNAL: 1, SERVER: 2, CLIENT: 3 }
const STATUS_ERROR = 2
const KEY = "otlp-test-key-0123456789abcdef"
/** Short export deadlines: the retrying transport gives up when the next try falls past it. */
const FAST = { OTEL_EXPORTER_OTLP_TIMEOUT: "3000" }
/**
 * Room for a retry: a deadline no loaded machine's first attempt and wait can use up (with 3 s, a
 * slow first attempt left too little for the retry, and the export failed with one request).
 */
const ROOMY = { OTEL_EXPORTER_OTLP_TIMEOUT: "30000" }

describe("the OTLP test agent, through the real OpenTelemetry exporters", () => {
  it("http/protobuf: both signals arrive as application/x-protobuf at /v1/traces and /v1/logs with the bearer key", async () => {
    const sink = await startSink()
    const outcome = await runAgent({ endpoint: sink.url, key: KEY, protocol: "http/protobuf" })
    expect(outcome.traceIds).toHaveLength(1)
    // invoke_agent, three chat spans, two execute_tool.
    expect(outcome.spans).toBe(6)
    expect(outcome.logs).toBeGreaterThan(0)
    expect(outcome.exports.every((call) => call.ok)).toBe(true)
    expect(outcome.exports.filter((call) => call.signal === "traces").reduce((sum, call) => sum + call.items, 0)).toBe(outcome.spans)
    expect(outcome.exports.filter((call) => call.signal === "logs").reduce((sum, call) => sum + call.items, 0)).toBe(outcome.logs)
    const traces = requestsTo(sink.received, "/v1/traces")
    const logs = requestsTo(sink.received, "/v1/logs")
    expect(traces).toHaveLength(1)
    expect(logs).toHaveLength(1)
    expect(sink.received.map((request) => request.path).sort()).toEqual(["/v1/logs", "/v1/traces"])
    for (const request of sink.received) {
      expect(request.contentType).toBe("application/x-protobuf")
      expect(request.authorization).toBe(`Bearer ${KEY}`)
      expect(request.body.length).toBeGreaterThan(500)
    }
    // No request decoder ships with otlp-transformer; protobuf keeps ids as raw bytes and strings
    // as UTF-8, so the trace id and the attribute keys are findable in the body as they are.
    const traceId = Buffer.from(outcome.traceIds[0] ?? "", "hex")
    for (const request of [...traces, ...logs]) expect(request.body.includes(traceId)).toBe(true)
    expect(traces[0]?.body.includes("gen_ai.operation.name")).toBe(true)
    expect(logs[0]?.body.includes("gen_ai.user.message")).toBe(true)
  })

  it("http/json: chat spans with gen_ai attributes, agent and tool spans, gen_ai.* log records carrying the content", async () => {
    const sink = await startSink()
    const secret = "sk-proj-SEEDEDsecret0123456789abcdefABCDEF"
    const outcome = await runAgent({
      endpoint: sink.url, key: KEY, protocol: "http/json", secret, serviceName: "weather-svc", version: "1.4.2", environment: "staging"
    })
    for (const request of sink.received) {
      expect(request.contentType).toBe("application/json")
      expect(request.authorization).toBe(`Bearer ${KEY}`)
    }
    const spans = spansOf(sink.received)
    expect(spans).toHaveLength(outcome.spans)
    expect(new Set(spans.map((span) => span.traceId))).toEqual(new Set(outcome.traceIds))
    const resource = spans[0]?.resource.attributes
    expect(attribute(resource, "service.name")).toBe("weather-svc")
    expect(attribute(resource, "service.version")).toBe("1.4.2")
    expect(attribute(resource, "deployment.environment.name")).toBe("staging")

    const chats = spans.filter((span) => span.scope === "@opentelemetry/instrumentation-openai")
    expect(chats).toHaveLength(3)
    for (const chat of chats) {
      expect(chat.kind).toBe(KIND.CLIENT)
      expect(attribute(chat.attributes, "gen_ai.operation.name")).toBe("chat")
      expect(attribute(chat.attributes, "gen_ai.request.model")).toBe("gpt-4o-mini")
      expect(attribute(chat.attributes, "gen_ai.usage.input_tokens")).toBe(120)
    }
    const agent = spans.find((span) => span.name === "invoke_agent weather_agent")
    expect(agent?.parentSpanId ?? "").toBe("")
    expect(String(attribute(agent?.attributes, "gen_ai.input.messages"))).toContain(secret)
    const tools = spans.filter((span) => attribute(span.attributes, "gen_ai.operation.name") === "execute_tool")
    expect(tools.map((span) => attribute(span.attributes, "gen_ai.tool.call.id"))).toEqual(["call_paris", "call_london"])
    for (const span of [...chats, ...tools]) expect(span.parentSpanId).toBe(agent?.spanId)

    const logs = logsOf(sink.received)
    expect(logs).toHaveLength(outcome.logs)
    const names = logs.map(eventName)
    expect(names.every((name) => typeof name === "string" && name.startsWith("gen_ai."))).toBe(true)
    expect(names).toContain("gen_ai.user.message")
    expect(names).toContain("gen_ai.choice")
    const userMessages = logs.filter((record) => eventName(record) === "gen_ai.user.message")
    expect(userMessages.every((record) => JSON.stringify(record.body).includes(secret))).toBe(true)
    expect(logs.every((record) => record.traceId === outcome.traceIds[0])).toBe(true)
  })

  it("content off (the instrumentation's default): log records still arrive, without the messages", async () => {
    const sink = await startSink()
    const secret = "sk-proj-NOTCAPTURED0123456789abcdefABCDEF"
    const outcome = await runAgent({ endpoint: sink.url, key: KEY, protocol: "http/json", secret, content: false })
    expect(outcome.spans).toBe(6)
    expect(logsOf(sink.received).length).toBe(outcome.logs)
    for (const request of sink.received) expect(request.body.toString("utf8")).not.toContain(secret)
  })

  it("failing, with context spans: ERROR tool and agent spans with exceptions under an HTTP SERVER root, database CLIENT spans", async () => {
    const sink = await startSink()
    const outcome = await runAgent({ endpoint: sink.url, key: KEY, protocol: "http/json", scenario: "failing", contextSpans: true })
    const spans = spansOf(sink.received)
    // POST /chat, invoke_agent, two chat calls, two execute_tool, two SELECTs.
    expect(spans).toHaveLength(8)
    expect(outcome.spans).toBe(8)
    const root = spans.find((span) => span.name === "POST /chat")
    expect(root?.kind).toBe(KIND.SERVER)
    expect(root?.parentSpanId ?? "").toBe("")
    expect(attribute(root?.attributes, "http.request.method")).toBe("POST")
    expect(attribute(root?.attributes, "url.path")).toBe("/chat")
    expect(attribute(root?.attributes, "http.response.status_code")).toBe(500)
    const agent = spans.find((span) => span.name === "invoke_agent weather_agent")
    expect(agent?.parentSpanId).toBe(root?.spanId)
    const database = spans.filter((span) => span.kind === KIND.CLIENT && attribute(span.attributes, "db.system.name") === "postgresql")
    expect(database).toHaveLength(2)
    for (const span of [root, ...database]) expect(span?.attributes.some((entry) => entry.key.startsWith("gen_ai."))).toBe(false)
    expect(String(attribute(database[0]?.attributes, "db.query.text"))).toContain("SELECT")
    const failedTool = spans.find((span) => attribute(span.attributes, "gen_ai.tool.call.id") === "call_london")
    for (const span of [failedTool, agent]) {
      expect(span?.status?.code).toBe(STATUS_ERROR)
      expect(span?.events?.map((event) => event.name)).toContain("exception")
      expect(String(attribute(span?.events?.[0]?.attributes, "exception.message"))).toContain("weather service unavailable")
    }
    expect(outcome.exports.every((call) => call.ok)).toBe(true)
  })

  it("batchSize 2: one trace arrives over several trace requests", async () => {
    const sink = await startSink()
    const outcome = await runAgent({ endpoint: sink.url, key: KEY, protocol: "http/json", batchSize: 2 })
    const traces = requestsTo(sink.received, "/v1/traces")
    expect(traces).toHaveLength(3)
    expect(outcome.exports.filter((call) => call.signal === "traces").map((call) => call.items)).toEqual([2, 2, 2])
    const spans = spansOf(sink.received)
    expect(spans).toHaveLength(6)
    expect(new Set(spans.map((span) => span.traceId))).toEqual(new Set(outcome.traceIds))
  })

  it("secondEndpoint: export batches alternate between two replicas, each with the key", async () => {
    const first = await startSink()
    const second = await startSink()
    const outcome = await runAgent({ endpoint: first.url, secondEndpoint: second.url, key: KEY, protocol: "http/json", batchSize: 2, traces: 2 })
    expect(outcome.traceIds).toHaveLength(2)
    expect(outcome.exports.every((call) => call.ok)).toBe(true)
    for (const sink of [first, second]) {
      expect(requestsTo(sink.received, "/v1/traces").length).toBeGreaterThan(0)
      expect(requestsTo(sink.received, "/v1/logs").length).toBeGreaterThan(0)
      for (const request of sink.received) expect(request.authorization).toBe(`Bearer ${KEY}`)
    }
    const spans = [...spansOf(first.received), ...spansOf(second.received)]
    expect(spans).toHaveLength(outcome.spans)
    expect(new Set(spans.map((span) => span.spanId)).size).toBe(outcome.spans)
    // Six spans a run in batches of two: some trace is split over both replicas.
    const on = (received: ReadonlyArray<Received>) => new Set(spansOf(received).map((span) => span.traceId))
    expect(outcome.traceIds.some((id) => on(first.received).has(id) && on(second.received).has(id))).toBe(true)
  })

  describe("the exporter's retries (otlp-exporter-base's retrying transport)", () => {
    it("429 with Retry-After: 2 is retried after the two seconds asked for (not the exporter's own ~1 s backoff) and the export succeeds", async () => {
      const sink = await startSink((path, seen) => (path === "/v1/traces" && seen === 0 ? { status: 429, headers: { "retry-after": "2" } } : undefined))
      const outcome = await runAgent({ endpoint: sink.url, key: KEY, env: ROOMY })
      const traces = requestsTo(sink.received, "/v1/traces")
      expect(traces).toHaveLength(2)
      // Past the own backoff's longest (1 s + 20% jitter): the wait was the header's. A lower bound
      // only, so a loaded machine (which only delays the retry) cannot fail it.
      expect((traces[1]?.at ?? 0) - (traces[0]?.at ?? 0)).toBeGreaterThanOrEqual(1_900)
      expect(traces[1]?.body.equals(traces[0]?.body ?? Buffer.alloc(0))).toBe(true)
      // One export call, its outcome the retry's.
      expect(outcome.exports.filter((call) => call.signal === "traces")).toEqual([{ signal: "traces", items: 6, ok: true, error: null }])
    })

    it("503 without Retry-After is retried after the exporter's own backoff (about a second)", async () => {
      const sink = await startSink((path, seen) => (path === "/v1/traces" && seen === 0 ? { status: 503 } : undefined))
      const outcome = await runAgent({ endpoint: sink.url, key: KEY, env: ROOMY })
      const traces = requestsTo(sink.received, "/v1/traces")
      expect(traces).toHaveLength(2)
      // INITIAL_BACKOFF 1000 ms with ±20% jitter.
      expect((traces[1]?.at ?? 0) - (traces[0]?.at ?? 0)).toBeGreaterThanOrEqual(750)
      expect(outcome.exports.every((call) => call.ok)).toBe(true)
    })

    it("a Retry-After past the export deadline (OTEL_EXPORTER_OTLP_TIMEOUT) is not waited for: one request, the export fails", async () => {
      // An hour: an exporter that waited for it would hang the test (its timeout), whatever the load.
      const sink = await startSink((path) => (path === "/v1/traces" ? { status: 429, headers: { "retry-after": "3600" } } : undefined))
      const outcome = await runAgent({ endpoint: sink.url, key: KEY, env: FAST })
      expect(requestsTo(sink.received, "/v1/traces")).toHaveLength(1)
      const traces = outcome.exports.filter((call) => call.signal === "traces")
      expect(traces.map((call) => call.ok)).toEqual([false])
      expect(outcome.exports.filter((call) => call.signal === "logs").every((call) => call.ok)).toBe(true)
    })

    it.each([400, 401, 500])("%i is not retried: one request, the export fails at once", async (status) => {
      const sink = await startSink((path) => (path === "/v1/traces" ? { status } : undefined))
      const outcome = await runAgent({ endpoint: sink.url, key: KEY, env: FAST })
      expect(requestsTo(sink.received, "/v1/traces")).toHaveLength(1)
      const traces = outcome.exports.filter((call) => call.signal === "traces")
      expect(traces).toHaveLength(1)
      expect(traces[0]?.ok).toBe(false)
      expect(traces[0]?.error).toContain(`HTTP ${status}`)
      // The other signal is untouched.
      expect(outcome.exports.filter((call) => call.signal === "logs").every((call) => call.ok)).toBe(true)
    })
  })
})
