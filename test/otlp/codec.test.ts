/**
 * The OTLP/HTTP wire codec (src/Otlp/Wire/Proto.ts, src/Otlp/Wire/Json.ts) against the OpenTelemetry SDK's
 * own serializers (@opentelemetry/otlp-transformer): real spans, log records and metrics made by the
 * SDKs, serialized both ways, read into the same objects with the right values (hex ids, exact
 * nanoseconds); requests re-encoded and responses read back by the SDK; and malformed input
 * refused, never thrown (truncated and random bytes, over-deep values, wrong JSON types by path).
 */
import { Either } from "effect"
import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { context, type HrTime, type Link, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api"
import { SeverityNumber } from "@opentelemetry/api-logs"
import {
  JsonLogsSerializer,
  JsonMetricsSerializer,
  JsonTraceSerializer,
  ProtobufLogsSerializer,
  ProtobufMetricsSerializer,
  ProtobufTraceSerializer
} from "@opentelemetry/otlp-transformer"
import { resourceFromAttributes } from "@opentelemetry/resources"
import { InMemoryLogRecordExporter, LoggerProvider, SimpleLogRecordProcessor } from "@opentelemetry/sdk-logs"
import { MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics"
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { exportResponseJson, readLogsJson, readMetricsJson, readTracesJson } from "../../src/Otlp/Wire/Json.js"
import { statusBody, statusProtobuf } from "../../src/Otlp/Wire/Status.js"
import type { AnyValue, KeyValue, LogRecord, LogsRequest, Span, TracesRequest } from "../../src/Otlp/Wire/Model.js"
import {
  decodeLogs,
  decodeMetrics,
  decodeStatus,
  decodeTraces,
  encodeExportResponse,
  encodeLogs,
  encodeTraces
} from "../../src/Otlp/Wire/Proto.js"
import { unsignedDecimal } from "../../src/Otlp/Wire/TracesReader.js"

const json = (bytes: Uint8Array | undefined): unknown => JSON.parse(new TextDecoder().decode(bytes))
const bytesOf = (value: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(value))

/** The Right of an Either, failing the test with the Left's message otherwise. */
const right = <A>(result: Either.Either<A, string>): A => {
  if (Either.isLeft(result)) expect.fail(result.left)
  return Either.getOrThrow(result)
}
const left = <A>(result: Either.Either<A, string>): string => {
  if (Either.isRight(result)) expect.fail(`expected a Left, got ${JSON.stringify(result.right)}`)
  return Either.isLeft(result) ? result.left : ""
}

/** An HrTime as the exact decimal nanoseconds OTLP carries. */
const nanos = (time: HrTime): string => (BigInt(time[0]) * 1_000_000_000n + BigInt(time[1])).toString()

const RESOURCE = resourceFromAttributes({ "service.name": "codec-test", "service.instance.id": "i-1", "host.cpus": 4 })

// Nanoseconds a double cannot hold (mid-2025, far past 2⁵³): exactness is visible.
const START: HrTime = [1_750_000_000, 123_456_789]
const EVENT: HrTime = [1_750_000_000, 200_000_001]
const END: HrTime = [1_750_000_001, 999_999_999]

const REMOTE_LINK: Link = {
  context: { traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331", traceFlags: 1, isRemote: true },
  attributes: { "link.kind": "follows", "link.n": 2 }
}

/** A parent and an erroring child with attributes of every type, an event and a link. */
const makeSpans = async (): Promise<ReadonlyArray<ReadableSpan>> => {
  const exporter = new InMemorySpanExporter()
  const provider = new BasicTracerProvider({ resource: RESOURCE, spanProcessors: [new SimpleSpanProcessor(exporter)] })
  const tracer = provider.getTracer("codec-test-scope", "1.2.3")
  const parent = tracer.startSpan("invoke_agent", { kind: SpanKind.SERVER, startTime: START })
  const child = tracer.startSpan(
    "execute_tool",
    {
      kind: SpanKind.CLIENT,
      startTime: START,
      links: [REMOTE_LINK],
      attributes: {
        "a.string": "héllo",
        "a.empty": "",
        "a.int": 42,
        "a.negative": -7,
        "a.big": 9_007_199_254_740_991,
        "a.double": 3.25,
        "a.bool": true,
        "a.false": false,
        "a.strings": ["x", "y"],
        "a.ints": [1, 2, 3],
        "a.doubles": [0.5, 1.5],
        "a.bools": [true, false]
      }
    },
    trace.setSpan(context.active(), parent)
  )
  child.addEvent("exception", { "exception.message": "boom", "exception.count": 1 }, EVENT)
  child.setStatus({ code: SpanStatusCode.ERROR, message: "tool failed" })
  child.end(END)
  parent.setStatus({ code: SpanStatusCode.OK })
  parent.end(END)
  await provider.forceFlush()
  return exporter.getFinishedSpans()
}

/** Log records: a kvlist body (with bytes, an array and a nested map) and an array body, with an event name. */
const makeLogs = async (): Promise<ReturnType<InMemoryLogRecordExporter["getFinishedLogRecords"]>> => {
  const exporter = new InMemoryLogRecordExporter()
  const provider = new LoggerProvider({ resource: RESOURCE, processors: [new SimpleLogRecordProcessor({ exporter })] })
  const logger = provider.getLogger("codec-test-logs", "0.1.0")
  const spanContext = { traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7", traceFlags: 1 }
  logger.emit({
    eventName: "gen_ai.choice",
    timestamp: START,
    observedTimestamp: END,
    severityNumber: SeverityNumber.INFO,
    severityText: "INFO",
    body: { index: 0, message: { role: "assistant", content: "hi" }, tokens: [1, 2.5, "three", true], raw: new Uint8Array([0, 1, 254, 255]) },
    attributes: { "gen_ai.system": "openai", "event.count": 3 },
    context: trace.setSpanContext(context.active(), spanContext)
  })
  logger.emit({ body: ["a", 1, false], severityNumber: SeverityNumber.WARN, timestamp: EVENT })
  await provider.forceFlush()
  return exporter.getFinishedLogRecords()
}

const spansOf = (request: TracesRequest): ReadonlyArray<Span> =>
  request.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans))
const spanNamed = (request: TracesRequest, name: string): Span =>
  spansOf(request).find((candidate) => candidate.name === name) ?? expect.fail(`no span ${name}`)

/** A metric reader collected by hand. */
class ManualReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

describe("OTLP codec: traces against the SDK's serializers", () => {
  it("reads the protobuf and the JSON serialization of real spans into the same objects", async () => {
    const spans = [...(await makeSpans())]
    const fromProtobuf = right(decodeTraces(ProtobufTraceSerializer.serializeRequest(spans) ?? new Uint8Array()))
    const fromJson = right(readTracesJson(json(JsonTraceSerializer.serializeRequest(spans))))
    expect(fromProtobuf).toStrictEqual(fromJson)
    expect(spansOf(fromProtobuf)).toHaveLength(2)
  })

  it("has the SDK's values: hex ids, exact nanoseconds, kinds, status, typed attributes, events, links", async () => {
    const spans = await makeSpans()
    const sdkChild = spans.find((span) => span.name === "execute_tool")
    const sdkParent = spans.find((span) => span.name === "invoke_agent")
    if (sdkChild === undefined || sdkParent === undefined) return expect.fail("the SDK made no spans")
    const request = right(decodeTraces(ProtobufTraceSerializer.serializeRequest([...spans]) ?? new Uint8Array()))
    expect(request.resourceSpans).toHaveLength(1)
    const [resourceSpans] = request.resourceSpans
    expect(resourceSpans?.resource?.attributes).toEqual([
      { key: "service.name", value: { stringValue: "codec-test" } },
      { key: "service.instance.id", value: { stringValue: "i-1" } },
      { key: "host.cpus", value: { intValue: "4" } }
    ])
    expect(resourceSpans?.scopeSpans[0]?.scope).toStrictEqual({ name: "codec-test-scope", version: "1.2.3" })

    const child = spanNamed(request, "execute_tool")
    const parent = spanNamed(request, "invoke_agent")
    expect(child.traceId).toBe(sdkChild.spanContext().traceId)
    expect(child.traceId).toMatch(/^[0-9a-f]{32}$/)
    expect(child.spanId).toBe(sdkChild.spanContext().spanId)
    expect(child.spanId).toMatch(/^[0-9a-f]{16}$/)
    expect(child.parentSpanId).toBe(sdkParent.spanContext().spanId)
    expect(parent.parentSpanId).toBeUndefined()
    expect("parentSpanId" in parent).toBe(false)
    expect(child.startTimeUnixNano).toBe(nanos(sdkChild.startTime))
    expect(child.startTimeUnixNano).toBe("1750000000123456789")
    expect(child.endTimeUnixNano).toBe(nanos(sdkChild.endTime))
    expect(child.endTimeUnixNano).toBe("1750000001999999999")
    expect(child.kind).toBe(3)
    expect(parent.kind).toBe(2)
    // Sampled, with the parent known to be local (SPAN_FLAGS_CONTEXT_HAS_IS_REMOTE_MASK).
    expect(child.flags).toBe(0x101)
    expect(child.status).toStrictEqual({ code: 2, message: "tool failed" })
    expect(parent.status).toStrictEqual({ code: 1 })
    expect(Object.fromEntries(child.attributes.map((kv) => [kv.key, kv.value]))).toStrictEqual({
      "a.string": { stringValue: "héllo" },
      "a.empty": { stringValue: "" },
      "a.int": { intValue: "42" },
      "a.negative": { intValue: "-7" },
      "a.big": { intValue: "9007199254740991" },
      "a.double": { doubleValue: 3.25 },
      "a.bool": { boolValue: true },
      "a.false": { boolValue: false },
      "a.strings": { arrayValue: { values: [{ stringValue: "x" }, { stringValue: "y" }] } },
      "a.ints": { arrayValue: { values: [{ intValue: "1" }, { intValue: "2" }, { intValue: "3" }] } },
      "a.doubles": { arrayValue: { values: [{ doubleValue: 0.5 }, { doubleValue: 1.5 }] } },
      "a.bools": { arrayValue: { values: [{ boolValue: true }, { boolValue: false }] } }
    })
    expect(child.events).toStrictEqual([
      {
        timeUnixNano: "1750000000200000001",
        name: "exception",
        attributes: [
          { key: "exception.message", value: { stringValue: "boom" } },
          { key: "exception.count", value: { intValue: "1" } }
        ]
      }
    ])
    expect(nanos(EVENT)).toBe("1750000000200000001")
    expect(child.links).toStrictEqual([
      {
        traceId: REMOTE_LINK.context.traceId,
        spanId: REMOTE_LINK.context.spanId,
        attributes: [
          { key: "link.kind", value: { stringValue: "follows" } },
          { key: "link.n", value: { intValue: "2" } }
        ],
        // Sampled, remote, and known to be (0x100 | 0x200).
        flags: 0x301
      }
    ])
    expect(parent).toStrictEqual({
      traceId: child.traceId,
      spanId: child.parentSpanId,
      flags: 0x101,
      name: "invoke_agent",
      kind: 2,
      startTimeUnixNano: "1750000000123456789",
      endTimeUnixNano: "1750000001999999999",
      attributes: [],
      events: [],
      links: [],
      status: { code: 1 }
    })
  })

  it("encodes what it decoded back to bytes that decode the same", async () => {
    const spans = [...(await makeSpans())]
    const decoded = right(decodeTraces(ProtobufTraceSerializer.serializeRequest(spans) ?? new Uint8Array()))
    expect(right(decodeTraces(encodeTraces(decoded)))).toStrictEqual(decoded)
    // And the JSON form of the same spans, sent as protobuf.
    const fromJson = right(readTracesJson(json(JsonTraceSerializer.serializeRequest(spans))))
    expect(right(decodeTraces(encodeTraces(fromJson)))).toStrictEqual(decoded)
  })

  it("keeps what only hand-made messages carry: bytes, kvlists, empty values, trace state, counts, extremes", () => {
    const request: TracesRequest = {
      resourceSpans: [
        {
          resource: { attributes: [], droppedAttributesCount: 2 },
          schemaUrl: "https://opentelemetry.io/schemas/1.26.0",
          scopeSpans: [
            {
              scope: { name: "s", attributes: [{ key: "k", value: { stringValue: "v" } }] },
              schemaUrl: "https://example.com/scope",
              spans: [
                {
                  traceId: "ffffffffffffffffffffffffffffffff",
                  spanId: "0000000000000001",
                  traceState: "vendor=a,other=b",
                  name: "",
                  startTimeUnixNano: "18446744073709551615",
                  endTimeUnixNano: "0",
                  attributes: [
                    { key: "bytes", value: { bytesValue: "AAH+/w==" } },
                    { key: "empty", value: {} },
                    { key: "min", value: { intValue: "-9223372036854775808" } },
                    { key: "max", value: { intValue: "9223372036854775807" } },
                    {
                      key: "map",
                      value: { kvlistValue: { values: [{ key: "nested", value: { arrayValue: { values: [{ doubleValue: -0.5 }, {}] } } }] } }
                    }
                  ],
                  droppedAttributesCount: 1,
                  events: [{ timeUnixNano: "1", name: "e", attributes: [], droppedAttributesCount: 4 }],
                  droppedEventsCount: 5,
                  links: [{ traceId: "", spanId: "", traceState: "t=1", attributes: [] }],
                  droppedLinksCount: 6,
                  status: {}
                }
              ]
            }
          ]
        }
      ]
    }
    const bytes = encodeTraces(request)
    expect(right(decodeTraces(bytes))).toStrictEqual(request)
    expect(right(readTracesJson(JSON.parse(JSON.stringify(request))))).toStrictEqual(request)
  })
})

describe("OTLP codec: logs against the SDK's serializers", () => {
  it("reads the protobuf and the JSON serialization of real log records into the same objects, with the SDK's values", async () => {
    const records = [...(await makeLogs())]
    const fromProtobuf = right(decodeLogs(ProtobufLogsSerializer.serializeRequest(records) ?? new Uint8Array()))
    const fromJson = right(readLogsJson(json(JsonLogsSerializer.serializeRequest(records))))
    expect(fromProtobuf).toStrictEqual(fromJson)

    const logRecords: ReadonlyArray<LogRecord> = fromProtobuf.resourceLogs.flatMap((rl) => rl.scopeLogs.flatMap((sl) => sl.logRecords))
    expect(fromProtobuf.resourceLogs[0]?.scopeLogs[0]?.scope).toStrictEqual({ name: "codec-test-logs", version: "0.1.0" })
    const [choice, warning] = logRecords
    expect(choice).toStrictEqual({
      timeUnixNano: "1750000000123456789",
      observedTimeUnixNano: "1750000001999999999",
      severityNumber: 9,
      severityText: "INFO",
      eventName: "gen_ai.choice",
      body: {
        kvlistValue: {
          values: [
            { key: "index", value: { intValue: "0" } },
            {
              key: "message",
              value: {
                kvlistValue: {
                  values: [
                    { key: "role", value: { stringValue: "assistant" } },
                    { key: "content", value: { stringValue: "hi" } }
                  ]
                }
              }
            },
            {
              key: "tokens",
              value: {
                arrayValue: { values: [{ intValue: "1" }, { doubleValue: 2.5 }, { stringValue: "three" }, { boolValue: true }] }
              }
            },
            { key: "raw", value: { bytesValue: Buffer.from([0, 1, 254, 255]).toString("base64") } }
          ]
        }
      },
      attributes: [
        { key: "gen_ai.system", value: { stringValue: "openai" } },
        { key: "event.count", value: { intValue: "3" } }
      ],
      flags: 1,
      traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
      spanId: "00f067aa0ba902b7"
    })
    expect(warning?.body).toStrictEqual({ arrayValue: { values: [{ stringValue: "a" }, { intValue: "1" }, { boolValue: false }] } })
    expect(warning?.traceId).toBe("")
    expect(warning?.spanId).toBe("")
    expect(warning?.severityNumber).toBe(13)
    expect(warning?.timeUnixNano).toBe(nanos(EVENT))
    expect(right(decodeLogs(encodeLogs(fromProtobuf)))).toStrictEqual(fromProtobuf)
  })
})

describe("OTLP codec: metrics", () => {
  it("counts the data points of a real sdk-metrics export, in both encodings", async () => {
    const reader = new ManualReader()
    const provider = new MeterProvider({ resource: resourceFromAttributes({ "service.name": "codec-test" }), readers: [reader] })
    const meter = provider.getMeter("codec-test-metrics")
    const counter = meter.createCounter("requests")
    counter.add(1, { route: "/a" })
    counter.add(2, { route: "/b" })
    counter.add(3, { route: "/c" })
    meter.createHistogram("latency").record(5)
    meter.createHistogram("size").record(7, { kind: "x" })
    meter.createGauge("queue").record(3)
    meter.createUpDownCounter("inflight").add(-1)
    const { resourceMetrics, errors } = await reader.collect()
    expect(errors).toEqual([])
    const expected = resourceMetrics.scopeMetrics.flatMap((sm) => sm.metrics).reduce((n, metric) => n + metric.dataPoints.length, 0)
    expect(expected).toBe(7)
    expect(right(decodeMetrics(ProtobufMetricsSerializer.serializeRequest(resourceMetrics) ?? new Uint8Array()))).toEqual({
      dataPoints: 7
    })
    expect(right(readMetricsJson(json(JsonMetricsSerializer.serializeRequest(resourceMetrics))))).toEqual({ dataPoints: 7 })
    await provider.shutdown()
  })

  it("counts every kind of data, summaries and exponential histograms included", () => {
    const metric = (data: string, points: number) => ({ name: data, [data]: { dataPoints: Array.from({ length: points }, () => ({})) } })
    const request = {
      resourceMetrics: [
        { scopeMetrics: [{ metrics: [metric("gauge", 1), metric("sum", 2), metric("histogram", 3)] }] },
        { scopeMetrics: [{ metrics: [metric("exponentialHistogram", 4), metric("summary", 5), { name: "empty" }] }, {}] }
      ]
    }
    expect(right(readMetricsJson(request))).toEqual({ dataPoints: 15 })
    expect(right(decodeMetrics(new Uint8Array()))).toEqual({ dataPoints: 0 })
  })
})

describe("OTLP codec: responses", () => {
  it("writes Export…ServiceResponses the SDK reads, partial success included", () => {
    expect(ProtobufTraceSerializer.deserializeResponse(encodeExportResponse("traces", { rejected: 3, errorMessage: "too old" }))).toEqual({
      partialSuccess: { rejectedSpans: 3, errorMessage: "too old" }
    })
    expect(ProtobufLogsSerializer.deserializeResponse(encodeExportResponse("logs", { rejected: 2, errorMessage: "" }))).toEqual({
      partialSuccess: { rejectedLogRecords: 2 }
    })
    expect(ProtobufMetricsSerializer.deserializeResponse(encodeExportResponse("metrics", { rejected: 0, errorMessage: "odd" }))).toEqual({
      partialSuccess: { errorMessage: "odd" }
    })
    // Full success: no partial_success at all (an empty message).
    expect(encodeExportResponse("traces", null)).toHaveLength(0)
    expect(encodeExportResponse("logs", { rejected: 0, errorMessage: "" })).toHaveLength(0)
    expect(ProtobufTraceSerializer.deserializeResponse(encodeExportResponse("traces", null))).toEqual({})

    expect(exportResponseJson("traces", null)).toStrictEqual({})
    expect(exportResponseJson("metrics", { rejected: 0, errorMessage: "" })).toStrictEqual({})
    const partial = exportResponseJson("traces", { rejected: 3, errorMessage: "too old" })
    expect(partial).toStrictEqual({ partialSuccess: { rejectedSpans: "3", errorMessage: "too old" } })
    expect(JsonTraceSerializer.deserializeResponse(bytesOf(partial))).toEqual({ partialSuccess: { rejectedSpans: "3", errorMessage: "too old" } })
    expect(exportResponseJson("logs", { rejected: 1, errorMessage: "x" })).toStrictEqual({ partialSuccess: { rejectedLogRecords: "1", errorMessage: "x" } })
    expect(exportResponseJson("metrics", { rejected: 9, errorMessage: "" })).toStrictEqual({ partialSuccess: { rejectedDataPoints: "9", errorMessage: "" } })
  })

  it("round-trips google.rpc.Status (written by Status.ts, read by the codec)", () => {
    expect(right(decodeStatus(statusProtobuf(3, "resourceSpans[0]: expected an array")))).toStrictEqual({
      code: 3,
      message: "resourceSpans[0]: expected an array"
    })
    expect(right(decodeStatus(statusProtobuf(0, "")))).toStrictEqual({ code: 0, message: "" })
    expect(left(decodeStatus(new Uint8Array([0x0a, 0x05, 0x01])))).toMatch(/^not an OTLP Status: /)
    expect(statusBody(429, "slow down", "json")).toStrictEqual({ contentType: "application/json", body: JSON.stringify({ code: 8, message: "slow down", details: [] }) })
  })
})

/** An AnyValue nested `depth` deep (kvlists, or arrays), the innermost a string. */
const deepValue = (depth: number, nest: "kvlist" | "array" = "kvlist"): AnyValue => {
  let value: AnyValue = { stringValue: "bottom" }
  for (let i = 1; i < depth; i++) value = nest === "array" ? { arrayValue: { values: [value] } } : { kvlistValue: { values: [{ key: "k", value }] } }
  return value
}

/** Protobuf's wire form by hand, for what protobufjs's own encoder would refuse to write. */
const varint = (n: number): Array<number> => {
  const out: Array<number> = []
  while (n > 127) {
    out.push((n & 127) | 128)
    n = Math.floor(n / 128)
  }
  out.push(n)
  return out
}
const field = (id: number, contents: ReadonlyArray<number>): Array<number> => [...varint((id << 3) | 2), ...varint(contents.length), ...contents]
const utf8 = (s: string): Array<number> => [...new TextEncoder().encode(s)]
/** An ExportTraceServiceRequest of one span whose one attribute is `depth` arrays deep. */
const deepRequestBytes = (depth: number): Uint8Array => {
  let value = field(1, utf8("bottom")) // AnyValue.string_value
  for (let i = 1; i < depth; i++) value = field(5, field(1, value)) // AnyValue.array_value → ArrayValue.values
  const keyValue = [...field(1, utf8("deep")), ...field(2, value)]
  const span = [...field(5, utf8("s")), ...field(9, keyValue)]
  return Uint8Array.from(field(1, field(2, field(2, span)))) // request → resource_spans → scope_spans → spans
}

const oneSpan = (attributes: ReadonlyArray<KeyValue>): TracesRequest => ({
  resourceSpans: [
    {
      scopeSpans: [
        {
          spans: [
            {
              traceId: "0af7651916cd43dd8448eb211c80319c",
              spanId: "b7ad6b7169203331",
              name: "s",
              startTimeUnixNano: "1",
              endTimeUnixNano: "2",
              attributes,
              events: [],
              links: []
            }
          ]
        }
      ]
    }
  ]
})

describe("OTLP codec: malformed input is a Left, never a throw", () => {
  it("refuses truncated protobuf", async () => {
    const bytes = ProtobufTraceSerializer.serializeRequest([...(await makeSpans())]) ?? new Uint8Array()
    for (const cut of [1, 5, Math.floor(bytes.length / 2)]) {
      expect(left(decodeTraces(bytes.subarray(0, bytes.length - cut)))).toMatch(/^not an OTLP ExportTraceServiceRequest: /)
    }
    const logs = ProtobufLogsSerializer.serializeRequest([...(await makeLogs())]) ?? new Uint8Array()
    expect(left(decodeLogs(logs.subarray(0, logs.length - 3)))).toMatch(/^not an OTLP ExportLogsServiceRequest: /)
  })

  it("never throws on random bytes or random JSON", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 512 }), (bytes) => {
        for (const result of [decodeTraces(bytes), decodeLogs(bytes), decodeMetrics(bytes), decodeStatus(bytes)]) {
          expect(Either.isEither(result)).toBe(true)
        }
      }),
      { numRuns: 2000 }
    )
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), (value) => {
        for (const result of [readTracesJson(value), readLogsJson(value), readMetricsJson(value)]) expect(Either.isEither(result)).toBe(true)
        expect(Either.isEither(readTracesJson({ resourceSpans: [{ scopeSpans: [{ spans: [value] }] }] }))).toBe(true)
      }),
      { numRuns: 1000 }
    )
  })

  it("never throws on mutations of a real request", async () => {
    const bytes = ProtobufTraceSerializer.serializeRequest([...(await makeSpans())]) ?? new Uint8Array()
    fc.assert(
      fc.property(fc.nat(bytes.length - 1), fc.integer({ min: 0, max: 255 }), (at, byte) => {
        const mutated = Uint8Array.from(bytes)
        mutated[at] = byte
        expect(Either.isEither(decodeTraces(mutated))).toBe(true)
      }),
      { numRuns: 2000 }
    )
  })

  it("refuses AnyValues nested deeper than 64, in both encodings", () => {
    expect(right(decodeTraces(deepRequestBytes(10)))).toBeDefined()
    expect(left(decodeTraces(deepRequestBytes(100)))).toBe("not an OTLP ExportTraceServiceRequest: AnyValue nested deeper than 64")
    expect(left(decodeTraces(deepRequestBytes(1_000)))).toMatch(/^not an OTLP ExportTraceServiceRequest: /)
    const deep = oneSpan([{ key: "deep", value: deepValue(100) }])
    expect(left(readTracesJson(JSON.parse(JSON.stringify(deep))))).toMatch(
      /^resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[0\]\.attributes\[0\]\.value\.kvlistValue\.values\[0\]\.value\..*: AnyValue nested deeper than 64$/
    )
    // The limit is the same in both: 64 kvlists deep (the most nested messages a level) pass, 65 do not.
    for (const nest of ["kvlist", "array"] as const) {
      const at64 = oneSpan([{ key: "d", value: deepValue(64, nest) }])
      expect(right(decodeTraces(encodeTraces(at64)))).toStrictEqual(at64)
      expect(right(readTracesJson(JSON.parse(JSON.stringify(at64))))).toStrictEqual(at64)
      const at65 = oneSpan([{ key: "d", value: deepValue(65, nest) }])
      expect(left(decodeTraces(encodeTraces(at65)))).toBe("not an OTLP ExportTraceServiceRequest: AnyValue nested deeper than 64")
      expect(left(readTracesJson(JSON.parse(JSON.stringify(at65))))).toMatch(/nested deeper than 64$/)
    }
    // A log body too.
    const body: LogsRequest = { resourceLogs: [{ scopeLogs: [{ logRecords: [{ attributes: [], traceId: "", spanId: "", body: deepValue(65) }] }] }] }
    expect(left(decodeLogs(encodeLogs(body)))).toBe("not an OTLP ExportLogsServiceRequest: AnyValue nested deeper than 64")
    expect(left(readLogsJson(JSON.parse(JSON.stringify(body))))).toMatch(/^resourceLogs\[0\]\.scopeLogs\[0\]\.logRecords\[0\]\.body\..*nested deeper than 64$/)
  })

  it("names the path of a wrong JSON type", async () => {
    const [valid] = spansOf(right(readTracesJson(json(JsonTraceSerializer.serializeRequest([...(await makeSpans())])))))
    /** A request of one span, the SDK's, with one field replaced. */
    const withSpanField = (key: string, value: unknown): unknown => ({
      resourceSpans: [{ scopeSpans: [{ spans: [{ ...valid, [key]: value }] }] }]
    })
    const span = "resourceSpans[0].scopeSpans[0].spans[0]"
    expect(left(readTracesJson(withSpanField("startTimeUnixNano", 1.5)))).toBe(
      `${span}.startTimeUnixNano: expected a decimal string or an integer (unsigned 64-bit)`
    )
    expect(left(readTracesJson(withSpanField("endTimeUnixNano", "-1")))).toBe(
      `${span}.endTimeUnixNano: expected a decimal string or an integer (unsigned 64-bit)`
    )
    expect(left(readTracesJson(withSpanField("kind", "SPAN_KIND_SERVER")))).toBe(`${span}.kind: expected an integer (enum names are not OTLP/JSON)`)
    expect(left(readTracesJson(withSpanField("name", 7)))).toBe(`${span}.name: expected a string`)
    expect(left(readTracesJson(withSpanField("traceId", 7)))).toBe(`${span}.traceId: expected a hex string`)
    expect(left(readTracesJson(withSpanField("events", {})))).toBe(`${span}.events: expected an array`)
    expect(left(readTracesJson(withSpanField("status", "error")))).toBe(`${span}.status: expected an object`)
    expect(left(readTracesJson(withSpanField("status", { code: "2" })))).toBe(`${span}.status.code: expected an integer (enum names are not OTLP/JSON)`)
    expect(left(readTracesJson(withSpanField("attributes", [{ key: "a", value: { intValue: "1.5" } }])))).toBe(
      `${span}.attributes[0].value.intValue: expected a decimal string or an integer (signed 64-bit)`
    )
    expect(left(readTracesJson(withSpanField("attributes", [{ key: "a", value: { arrayValue: { values: [{}, 3] } } }])))).toBe(
      `${span}.attributes[0].value.arrayValue.values[1]: expected an object`
    )
    expect(left(readTracesJson(withSpanField("links", [{ traceId: "ab", spanId: "cd", attributes: [{ key: 1 }] }])))).toBe(
      `${span}.links[0].attributes[0].key: expected a string`
    )
    expect(left(readTracesJson({ resourceSpans: {} }))).toBe("resourceSpans: expected an array")
    expect(left(readTracesJson([]))).toBe("not an OTLP ExportTraceServiceRequest: expected a JSON object")
    expect(left(readLogsJson({ resourceLogs: [{ scopeLogs: [{ logRecords: [{ severityNumber: 9.5 }] }] }] }))).toBe(
      "resourceLogs[0].scopeLogs[0].logRecords[0].severityNumber: expected an integer (enum names are not OTLP/JSON)"
    )
    expect(left(readLogsJson({ resourceLogs: [{ scopeLogs: [{ logRecords: [{ body: { bytesValue: "not base64!" } }] }] }] }))).toBe(
      "resourceLogs[0].scopeLogs[0].logRecords[0].body.bytesValue: expected a base64 string"
    )
    expect(left(readMetricsJson({ resourceMetrics: [{ scopeMetrics: [{ metrics: [{ sum: { dataPoints: 3 } }] }] }] }))).toBe(
      "resourceMetrics[0].scopeMetrics[0].metrics[0].sum.dataPoints: expected an array"
    )
  })

  it("reads OTLP/JSON's liberties: numbers for 64-bit integers, uppercase ids, unknown keys, nulls", () => {
    const request = right(
      readTracesJson({
        resourceSpans: [
          {
            futureField: { anything: true },
            scopeSpans: [
              {
                spans: [
                  {
                    traceId: "0AF7651916CD43DD8448EB211C80319C",
                    spanId: "B7AD6B7169203331",
                    parentSpanId: null,
                    name: "s",
                    kind: 0,
                    flags: 0,
                    startTimeUnixNano: 1_750_000_000_000_000_000,
                    endTimeUnixNano: "0001750000000000000001",
                    attributes: [
                      { key: "n", value: { intValue: -3 } },
                      { key: "s", value: { intValue: "-0" } },
                      { key: "inf", value: { doubleValue: "Infinity" } }
                    ],
                    status: { code: 0, message: "" }
                  }
                ]
              }
            ]
          }
        ]
      })
    )
    expect(request).toStrictEqual({
      resourceSpans: [
        {
          scopeSpans: [
            {
              spans: [
                {
                  traceId: "0af7651916cd43dd8448eb211c80319c",
                  spanId: "b7ad6b7169203331",
                  name: "s",
                  startTimeUnixNano: "1750000000000000000",
                  endTimeUnixNano: "1750000000000000001",
                  attributes: [
                    { key: "n", value: { intValue: "-3" } },
                    { key: "s", value: { intValue: "0" } },
                    { key: "inf", value: { doubleValue: Infinity } }
                  ],
                  events: [],
                  links: [],
                  status: {}
                }
              ]
            }
          ]
        }
      ]
    })
  })

  it("writes 64-bit unsigned integers in decimal exactly", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), (n) => {
        expect(unsignedDecimal(Number(n & 0xffffffffn), Number(n >> 32n))).toBe(n.toString())
      }),
      { numRuns: 5000 }
    )
  })
})
