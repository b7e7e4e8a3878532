/**
 * OTLP/HTTP's binary protobuf encoding (DECISIONS §18): export requests decoded into the OTLP/JSON
 * form of Model.ts, and the responses (`Export…ServiceResponse`, `google.rpc.Status`) encoded.
 *
 * The messages are declared here as a protobufjs JSON descriptor, field names already in
 * lowerCamelCase so they are Model.ts's keys. Field numbers are those of open-telemetry/opentelemetry-proto
 * (commit ac2c4b5d1f3a6079de62f9afec860158ecc8af09):
 *   opentelemetry/proto/common/v1/common.proto, resource/v1/resource.proto, trace/v1/trace.proto,
 *   logs/v1/logs.proto, metrics/v1/metrics.proto, collector/{trace,logs,metrics}/v1/*_service.proto;
 * and googleapis google/rpc/status.proto, protocolbuffers/protobuf src/google/protobuf/any.proto.
 * Left out on purpose: the profiling-only `string_value_strindex` (AnyValue 8) and `key_strindex`
 * (KeyValue 3), `Resource.entity_refs` and `Metric.metadata`: undeclared fields are skipped, which
 * is what the spec asks of non-profiling receivers. Enums are declared as int32 (same wire form,
 * proto3 enums are open), so they arrive as the integers OTLP/JSON uses.
 *
 * Trace export requests, the receiver's hot path, are read by TracesReader.ts in one pass from the
 * bytes (no protobufjs messages); the descriptor's trace messages remain for encoding (tests,
 * benches) and as the reference that reader is tested against. Logs and metrics are decoded by
 * protobufjs and converted from its messages with plain loops (no `toObject`).
 */
import * as Either from "effect/Either"
import type { Mutable } from "effect/Types"
import Long from "long"
import protobuf from "protobufjs/light.js"
import type {
  AnyValue,
  InstrumentationScope,
  KeyValue,
  LogRecord,
  LogsRequest,
  MetricsRequest,
  PartialSuccess,
  Resource,
  ResourceLogs,
  ScopeLogs,
  Signal,
  Span,
  TracesRequest
} from "./Model.js"
import { MAX_ANY_VALUE_DEPTH } from "./Model.js"
import { asBuffer, MESSAGE_DEPTH_LIMIT, readTraces, reasonOf, signedDecimal, unsignedDecimal } from "./TracesReader.js"

// 64-bit fields decode to exact Longs only with long.js installed; set it here rather than rely on
// protobufjs finding it by itself, which a bundle may not allow.
protobuf.util.Long = Long
protobuf.configure()


// protobufjs refuses messages nested past 100 (protoc's default), which kvlists reach at an
// AnyValue depth of about 32: it gets the trace reader's limit instead (MESSAGE_DEPTH_LIMIT, whose
// comment says why), so logs' AnyValues are refused at the same depth as traces'.
protobuf.util.recursionLimit = MESSAGE_DEPTH_LIMIT
protobuf.Reader.recursionLimit = protobuf.util.recursionLimit

// ---------------------------------------------------------------------------------------------
// The schema
// ---------------------------------------------------------------------------------------------

const COMMON = ".opentelemetry.proto.common.v1."
const one = (id: number, type: string) => ({ type, id })
const many = (id: number, type: string) => ({ rule: "repeated", type, id })
const attributes = (id: number) => many(id, `${COMMON}KeyValue`)

/** The data points are only counted: declared empty, their fields are skipped (but still framed). */
const DATA_POINT = { fields: {} }

const root = protobuf.Root.fromJSON({
  nested: {
    google: {
      nested: {
        protobuf: { nested: { Any: { fields: { typeUrl: one(1, "string"), value: one(2, "bytes") } } } },
        rpc: {
          nested: {
            Status: {
              fields: { code: one(1, "int32"), message: one(2, "string"), details: many(3, ".google.protobuf.Any") }
            }
          }
        }
      }
    },
    opentelemetry: {
      nested: {
        proto: {
          nested: {
            common: {
              nested: {
                v1: {
                  nested: {
                    AnyValue: {
                      oneofs: {
                        value: {
                          oneof: [
                            "stringValue",
                            "boolValue",
                            "intValue",
                            "doubleValue",
                            "arrayValue",
                            "kvlistValue",
                            "bytesValue"
                          ]
                        }
                      },
                      fields: {
                        stringValue: one(1, "string"),
                        boolValue: one(2, "bool"),
                        intValue: one(3, "int64"),
                        doubleValue: one(4, "double"),
                        arrayValue: one(5, `${COMMON}ArrayValue`),
                        kvlistValue: one(6, `${COMMON}KeyValueList`),
                        bytesValue: one(7, "bytes")
                      }
                    },
                    ArrayValue: { fields: { values: many(1, `${COMMON}AnyValue`) } },
                    KeyValueList: { fields: { values: many(1, `${COMMON}KeyValue`) } },
                    KeyValue: { fields: { key: one(1, "string"), value: one(2, `${COMMON}AnyValue`) } },
                    InstrumentationScope: {
                      fields: {
                        name: one(1, "string"),
                        version: one(2, "string"),
                        attributes: attributes(3),
                        droppedAttributesCount: one(4, "uint32")
                      }
                    }
                  }
                }
              }
            },
            resource: {
              nested: {
                v1: {
                  nested: {
                    Resource: { fields: { attributes: attributes(1), droppedAttributesCount: one(2, "uint32") } }
                  }
                }
              }
            },
            trace: {
              nested: {
                v1: {
                  nested: {
                    ResourceSpans: {
                      fields: {
                        resource: one(1, ".opentelemetry.proto.resource.v1.Resource"),
                        scopeSpans: many(2, ".opentelemetry.proto.trace.v1.ScopeSpans"),
                        schemaUrl: one(3, "string")
                      }
                    },
                    ScopeSpans: {
                      fields: {
                        scope: one(1, `${COMMON}InstrumentationScope`),
                        spans: many(2, ".opentelemetry.proto.trace.v1.Span"),
                        schemaUrl: one(3, "string")
                      }
                    },
                    Span: {
                      fields: {
                        traceId: one(1, "bytes"),
                        spanId: one(2, "bytes"),
                        traceState: one(3, "string"),
                        parentSpanId: one(4, "bytes"),
                        flags: one(16, "fixed32"),
                        name: one(5, "string"),
                        kind: one(6, "int32"),
                        startTimeUnixNano: one(7, "fixed64"),
                        endTimeUnixNano: one(8, "fixed64"),
                        attributes: attributes(9),
                        droppedAttributesCount: one(10, "uint32"),
                        events: many(11, ".opentelemetry.proto.trace.v1.Span.Event"),
                        droppedEventsCount: one(12, "uint32"),
                        links: many(13, ".opentelemetry.proto.trace.v1.Span.Link"),
                        droppedLinksCount: one(14, "uint32"),
                        status: one(15, ".opentelemetry.proto.trace.v1.Status")
                      },
                      nested: {
                        Event: {
                          fields: {
                            timeUnixNano: one(1, "fixed64"),
                            name: one(2, "string"),
                            attributes: attributes(3),
                            droppedAttributesCount: one(4, "uint32")
                          }
                        },
                        Link: {
                          fields: {
                            traceId: one(1, "bytes"),
                            spanId: one(2, "bytes"),
                            traceState: one(3, "string"),
                            attributes: attributes(4),
                            droppedAttributesCount: one(5, "uint32"),
                            flags: one(6, "fixed32")
                          }
                        }
                      }
                    },
                    // Field 1 is reserved: `code` is 3.
                    Status: { fields: { message: one(2, "string"), code: one(3, "int32") } }
                  }
                }
              }
            },
            logs: {
              nested: {
                v1: {
                  nested: {
                    ResourceLogs: {
                      fields: {
                        resource: one(1, ".opentelemetry.proto.resource.v1.Resource"),
                        scopeLogs: many(2, ".opentelemetry.proto.logs.v1.ScopeLogs"),
                        schemaUrl: one(3, "string")
                      }
                    },
                    ScopeLogs: {
                      fields: {
                        scope: one(1, `${COMMON}InstrumentationScope`),
                        logRecords: many(2, ".opentelemetry.proto.logs.v1.LogRecord"),
                        schemaUrl: one(3, "string")
                      }
                    },
                    LogRecord: {
                      fields: {
                        timeUnixNano: one(1, "fixed64"),
                        observedTimeUnixNano: one(11, "fixed64"),
                        severityNumber: one(2, "int32"),
                        severityText: one(3, "string"),
                        body: one(5, `${COMMON}AnyValue`),
                        attributes: attributes(6),
                        droppedAttributesCount: one(7, "uint32"),
                        flags: one(8, "fixed32"),
                        traceId: one(9, "bytes"),
                        spanId: one(10, "bytes"),
                        eventName: one(12, "string")
                      }
                    }
                  }
                }
              }
            },
            metrics: {
              nested: {
                v1: {
                  nested: {
                    ResourceMetrics: {
                      fields: {
                        resource: one(1, ".opentelemetry.proto.resource.v1.Resource"),
                        scopeMetrics: many(2, ".opentelemetry.proto.metrics.v1.ScopeMetrics"),
                        schemaUrl: one(3, "string")
                      }
                    },
                    ScopeMetrics: {
                      fields: {
                        scope: one(1, `${COMMON}InstrumentationScope`),
                        metrics: many(2, ".opentelemetry.proto.metrics.v1.Metric"),
                        schemaUrl: one(3, "string")
                      }
                    },
                    Metric: {
                      oneofs: { data: { oneof: ["gauge", "sum", "histogram", "exponentialHistogram", "summary"] } },
                      fields: {
                        name: one(1, "string"),
                        description: one(2, "string"),
                        unit: one(3, "string"),
                        gauge: one(5, ".opentelemetry.proto.metrics.v1.Gauge"),
                        sum: one(7, ".opentelemetry.proto.metrics.v1.Sum"),
                        histogram: one(9, ".opentelemetry.proto.metrics.v1.Histogram"),
                        exponentialHistogram: one(10, ".opentelemetry.proto.metrics.v1.ExponentialHistogram"),
                        summary: one(11, ".opentelemetry.proto.metrics.v1.Summary")
                      }
                    },
                    Gauge: { fields: { dataPoints: many(1, ".opentelemetry.proto.metrics.v1.NumberDataPoint") } },
                    Sum: { fields: { dataPoints: many(1, ".opentelemetry.proto.metrics.v1.NumberDataPoint") } },
                    Histogram: { fields: { dataPoints: many(1, ".opentelemetry.proto.metrics.v1.HistogramDataPoint") } },
                    ExponentialHistogram: {
                      fields: { dataPoints: many(1, ".opentelemetry.proto.metrics.v1.ExponentialHistogramDataPoint") }
                    },
                    Summary: { fields: { dataPoints: many(1, ".opentelemetry.proto.metrics.v1.SummaryDataPoint") } },
                    NumberDataPoint: DATA_POINT,
                    HistogramDataPoint: DATA_POINT,
                    ExponentialHistogramDataPoint: DATA_POINT,
                    SummaryDataPoint: DATA_POINT
                  }
                }
              }
            },
            collector: {
              nested: {
                trace: {
                  nested: {
                    v1: {
                      nested: {
                        ExportTraceServiceRequest: {
                          fields: { resourceSpans: many(1, ".opentelemetry.proto.trace.v1.ResourceSpans") }
                        },
                        ExportTraceServiceResponse: {
                          fields: { partialSuccess: one(1, ".opentelemetry.proto.collector.trace.v1.ExportTracePartialSuccess") }
                        },
                        ExportTracePartialSuccess: { fields: { rejectedSpans: one(1, "int64"), errorMessage: one(2, "string") } }
                      }
                    }
                  }
                },
                logs: {
                  nested: {
                    v1: {
                      nested: {
                        ExportLogsServiceRequest: {
                          fields: { resourceLogs: many(1, ".opentelemetry.proto.logs.v1.ResourceLogs") }
                        },
                        ExportLogsServiceResponse: {
                          fields: { partialSuccess: one(1, ".opentelemetry.proto.collector.logs.v1.ExportLogsPartialSuccess") }
                        },
                        ExportLogsPartialSuccess: {
                          fields: { rejectedLogRecords: one(1, "int64"), errorMessage: one(2, "string") }
                        }
                      }
                    }
                  }
                },
                metrics: {
                  nested: {
                    v1: {
                      nested: {
                        ExportMetricsServiceRequest: {
                          fields: { resourceMetrics: many(1, ".opentelemetry.proto.metrics.v1.ResourceMetrics") }
                        },
                        ExportMetricsServiceResponse: {
                          fields: {
                            partialSuccess: one(1, ".opentelemetry.proto.collector.metrics.v1.ExportMetricsPartialSuccess")
                          }
                        },
                        ExportMetricsPartialSuccess: {
                          fields: { rejectedDataPoints: one(1, "int64"), errorMessage: one(2, "string") }
                        }
                      }
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
  }
})

const COLLECTOR = "opentelemetry.proto.collector."
/**
 * The descriptor's `ExportTraceServiceRequest`: what `encodeTraces` writes with, and the protobufjs
 * reading that TracesReader.ts is tested against (test/otlp/traces-reader.test.ts).
 */
export const TracesRequestType = root.lookupType(`${COLLECTOR}trace.v1.ExportTraceServiceRequest`)
const LogsRequestType = root.lookupType(`${COLLECTOR}logs.v1.ExportLogsServiceRequest`)
const MetricsRequestType = root.lookupType(`${COLLECTOR}metrics.v1.ExportMetricsServiceRequest`)
const RESPONSES: Record<Signal, { readonly type: protobuf.Type; readonly rejected: string }> = {
  traces: { type: root.lookupType(`${COLLECTOR}trace.v1.ExportTraceServiceResponse`), rejected: "rejectedSpans" },
  logs: { type: root.lookupType(`${COLLECTOR}logs.v1.ExportLogsServiceResponse`), rejected: "rejectedLogRecords" },
  metrics: { type: root.lookupType(`${COLLECTOR}metrics.v1.ExportMetricsServiceResponse`), rejected: "rejectedDataPoints" }
}
const StatusType = root.lookupType("google.rpc.Status")

// ---------------------------------------------------------------------------------------------
// Reading protobufjs's messages
// ---------------------------------------------------------------------------------------------

/** A decoded message, read field by field as `unknown`: protobufjs types its messages loosely. */
type Fields = { readonly [key: string]: unknown }
const isFields = (value: unknown): value is Fields => typeof value === "object" && value !== null
const hasOwn = Object.prototype.hasOwnProperty
const NO_ITEMS: ReadonlyArray<unknown> = []

const text = (value: unknown): string => (typeof value === "string" ? value : "")
const count = (value: unknown): number => (typeof value === "number" ? value : 0)
const items = (value: unknown): ReadonlyArray<unknown> => (Array.isArray(value) ? value : NO_ITEMS)

/** An id's bytes as lowercase hex; "" when absent or empty. */
const hex = (value: unknown): string =>
  value instanceof Uint8Array && value.length > 0 ? asBuffer(value).toString("hex") : ""

const base64 = (value: unknown): string => (value instanceof Uint8Array ? asBuffer(value).toString("base64") : "")

/** A fixed64 field (a Long, or 0 as the default) in decimal. */
const u64 = (value: unknown): string => {
  if (isFields(value)) {
    const low = value.low
    const high = value.high
    if (typeof low === "number" && typeof high === "number") return unsignedDecimal(low >>> 0, high >>> 0)
  }
  return typeof value === "number" ? String(value) : "0"
}

/** An int64 field in decimal, negative values included (two's complement). */
const i64 = (value: unknown): string => {
  if (isFields(value)) {
    const low = value.low
    const high = value.high
    if (typeof low === "number" && typeof high === "number") {
      return value.unsigned === true ? unsignedDecimal(low >>> 0, high >>> 0) : signedDecimal(low, high)
    }
  }
  return typeof value === "number" ? String(value) : "0"
}

/** Thrown inside the conversion, turned into a Left at its edge. */
class Refused extends Error {}

const anyValue = (message: unknown, depth: number): AnyValue => {
  if (depth > MAX_ANY_VALUE_DEPTH) throw new Refused(`AnyValue nested deeper than ${MAX_ANY_VALUE_DEPTH}`)
  if (!isFields(message)) return {}
  // The decoder keeps one case of the oneof as an own property (the others sit on the prototype as
  // defaults), so presence is own-ness: `stringValue: ""` is a value, not an absent one.
  if (hasOwn.call(message, "stringValue")) return { stringValue: text(message.stringValue) }
  if (hasOwn.call(message, "intValue")) return { intValue: i64(message.intValue) }
  if (hasOwn.call(message, "boolValue")) return { boolValue: message.boolValue === true }
  if (hasOwn.call(message, "doubleValue")) return { doubleValue: count(message.doubleValue) }
  if (hasOwn.call(message, "arrayValue")) {
    const array = message.arrayValue
    const list = items(isFields(array) ? array.values : undefined)
    const values: Array<AnyValue> = new Array(list.length)
    for (let i = 0; i < list.length; i++) values[i] = anyValue(list[i], depth + 1)
    return { arrayValue: { values } }
  }
  if (hasOwn.call(message, "kvlistValue")) {
    const kvlist = message.kvlistValue
    return { kvlistValue: { values: keyValues(isFields(kvlist) ? kvlist.values : undefined, depth + 1) } }
  }
  if (hasOwn.call(message, "bytesValue")) return { bytesValue: base64(message.bytesValue) }
  return {}
}

/** A list of KeyValues whose values sit at `depth`. */
const keyValues = (value: unknown, depth: number): Array<KeyValue> => {
  const list = items(value)
  const out: Array<KeyValue> = new Array(list.length)
  for (let i = 0; i < list.length; i++) {
    const kv = list[i]
    out[i] = isFields(kv) ? { key: text(kv.key), value: anyValue(kv.value, depth) } : { key: "", value: {} }
  }
  return out
}

const resourceOf = (message: unknown): Resource | undefined => {
  if (!isFields(message)) return undefined
  const resource: Mutable<Resource> = { attributes: keyValues(message.attributes, 1) }
  const dropped = count(message.droppedAttributesCount)
  if (dropped !== 0) resource.droppedAttributesCount = dropped
  return resource
}

const scopeOf = (message: unknown): InstrumentationScope | undefined => {
  if (!isFields(message)) return undefined
  const scope: Mutable<InstrumentationScope> = { name: text(message.name) }
  const version = text(message.version)
  if (version !== "") scope.version = version
  const attrs = keyValues(message.attributes, 1)
  if (attrs.length > 0) scope.attributes = attrs
  return scope
}

const logRecordOf = (m: Fields): LogRecord => {
  const record: Mutable<LogRecord> = {
    attributes: keyValues(m.attributes, 1),
    traceId: hex(m.traceId),
    spanId: hex(m.spanId)
  }
  const time = u64(m.timeUnixNano)
  if (time !== "0") record.timeUnixNano = time
  const observed = u64(m.observedTimeUnixNano)
  if (observed !== "0") record.observedTimeUnixNano = observed
  const severityNumber = count(m.severityNumber)
  if (severityNumber !== 0) record.severityNumber = severityNumber
  const severityText = text(m.severityText)
  if (severityText !== "") record.severityText = severityText
  if (isFields(m.body)) record.body = anyValue(m.body, 1)
  const dropped = count(m.droppedAttributesCount)
  if (dropped !== 0) record.droppedAttributesCount = dropped
  const flags = count(m.flags)
  if (flags !== 0) record.flags = flags
  const eventName = text(m.eventName)
  if (eventName !== "") record.eventName = eventName
  return record
}

const logsOf = (request: unknown): LogsRequest => {
  const resourceList = items(isFields(request) ? request.resourceLogs : undefined)
  const resourceLogs: Array<ResourceLogs> = new Array(resourceList.length)
  for (let r = 0; r < resourceList.length; r++) {
    const rm = resourceList[r]
    const rl = isFields(rm) ? rm : {}
    const scopeList = items(rl.scopeLogs)
    const scopeLogs: Array<ScopeLogs> = new Array(scopeList.length)
    for (let s = 0; s < scopeList.length; s++) {
      const sm = scopeList[s]
      const sl = isFields(sm) ? sm : {}
      const recordList = items(sl.logRecords)
      const logRecords: Array<LogRecord> = new Array(recordList.length)
      for (let i = 0; i < recordList.length; i++) {
        const record = recordList[i]
        logRecords[i] = logRecordOf(isFields(record) ? record : {})
      }
      const scoped: Mutable<ScopeLogs> = { logRecords }
      const scope = scopeOf(sl.scope)
      if (scope !== undefined) scoped.scope = scope
      const schemaUrl = text(sl.schemaUrl)
      if (schemaUrl !== "") scoped.schemaUrl = schemaUrl
      scopeLogs[s] = scoped
    }
    const resourced: Mutable<ResourceLogs> = { scopeLogs }
    const resource = resourceOf(rl.resource)
    if (resource !== undefined) resourced.resource = resource
    const schemaUrl = text(rl.schemaUrl)
    if (schemaUrl !== "") resourced.schemaUrl = schemaUrl
    resourceLogs[r] = resourced
  }
  return { resourceLogs }
}

const METRIC_DATA = ["gauge", "sum", "histogram", "exponentialHistogram", "summary"] as const

const metricsOf = (request: unknown): MetricsRequest => {
  let dataPoints = 0
  for (const rm of items(isFields(request) ? request.resourceMetrics : undefined)) {
    if (!isFields(rm)) continue
    for (const sm of items(rm.scopeMetrics)) {
      if (!isFields(sm)) continue
      for (const metric of items(sm.metrics)) {
        if (!isFields(metric)) continue
        for (const kind of METRIC_DATA) {
          const data = metric[kind]
          if (isFields(data)) dataPoints += items(data.dataPoints).length
        }
      }
    }
  }
  return { dataPoints }
}

/** Decodes and converts, catching everything: malformed input is the sender's, never a defect. */
const decodeWith = <A>(type: protobuf.Type, bytes: Uint8Array, convert: (message: unknown) => A): Either.Either<A, string> => {
  try {
    // A Buffer makes protobufjs read strings and bytes natively (and bytes come back as Buffers).
    return Either.right(convert(type.decode(protobuf.Reader.create(asBuffer(bytes)))))
  } catch (error) {
    return Either.left(`not an OTLP ${type.name}: ${reasonOf(error)}`)
  }
}

/**
 * An `ExportTraceServiceRequest` into the OTLP/JSON form; Left on malformed bytes. Read in one
 * pass by TracesReader.ts (the receiver's hot path), not through protobufjs's messages.
 */
export const decodeTraces: (bytes: Uint8Array) => Either.Either<TracesRequest, string> = readTraces

/** An `ExportLogsServiceRequest` into the OTLP/JSON form; Left on malformed bytes. */
export const decodeLogs = (bytes: Uint8Array): Either.Either<LogsRequest, string> =>
  decodeWith(LogsRequestType, bytes, logsOf)

/** An `ExportMetricsServiceRequest`, its data points counted; Left on malformed bytes. */
export const decodeMetrics = (bytes: Uint8Array): Either.Either<MetricsRequest, string> =>
  decodeWith(MetricsRequestType, bytes, metricsOf)

// ---------------------------------------------------------------------------------------------
// Encoding (requests for tests and benches; responses for the receiver)
// ---------------------------------------------------------------------------------------------

/** The model's fields are the descriptor's; only ids, 64-bit integers and bytes change form. */
const idBytes = (id: string | undefined): Buffer | undefined =>
  id === undefined || id === "" ? undefined : Buffer.from(id, "hex")
const fixed64 = (decimal: string | undefined): Long | undefined =>
  decimal === undefined ? undefined : Long.fromString(decimal, true)

const anyValueOut = (value: AnyValue): object => {
  if ("intValue" in value) return { intValue: Long.fromString(value.intValue, false) }
  if ("bytesValue" in value) return { bytesValue: Buffer.from(value.bytesValue, "base64") }
  if ("arrayValue" in value) return { arrayValue: { values: value.arrayValue.values.map(anyValueOut) } }
  if ("kvlistValue" in value) return { kvlistValue: { values: value.kvlistValue.values.map(keyValueOut) } }
  return value
}
const keyValueOut = (kv: KeyValue): object => ({ key: kv.key, value: anyValueOut(kv.value) })
const resourceOut = (resource: Resource | undefined) =>
  resource === undefined ? undefined : { ...resource, attributes: resource.attributes.map(keyValueOut) }
const scopeOut = (scope: InstrumentationScope | undefined) =>
  scope === undefined ? undefined : { ...scope, attributes: (scope.attributes ?? []).map(keyValueOut) }

const spanOut = (span: Span): object => ({
  ...span,
  traceId: idBytes(span.traceId),
  spanId: idBytes(span.spanId),
  parentSpanId: idBytes(span.parentSpanId),
  startTimeUnixNano: fixed64(span.startTimeUnixNano),
  endTimeUnixNano: fixed64(span.endTimeUnixNano),
  attributes: span.attributes.map(keyValueOut),
  events: span.events.map((event) => ({
    ...event,
    timeUnixNano: fixed64(event.timeUnixNano),
    attributes: event.attributes.map(keyValueOut)
  })),
  links: span.links.map((link) => ({
    ...link,
    traceId: idBytes(link.traceId),
    spanId: idBytes(link.spanId),
    attributes: link.attributes.map(keyValueOut)
  }))
})

const logRecordOut = (record: LogRecord): object => ({
  ...record,
  timeUnixNano: fixed64(record.timeUnixNano),
  observedTimeUnixNano: fixed64(record.observedTimeUnixNano),
  body: record.body === undefined ? undefined : anyValueOut(record.body),
  attributes: record.attributes.map(keyValueOut),
  traceId: idBytes(record.traceId),
  spanId: idBytes(record.spanId)
})

/** The model as an `ExportTraceServiceRequest` (hex ids must be well-formed). */
export const encodeTraces = (request: TracesRequest): Uint8Array =>
  TracesRequestType.encode({
    resourceSpans: request.resourceSpans.map((rs) => ({
      ...rs,
      resource: resourceOut(rs.resource),
      scopeSpans: rs.scopeSpans.map((ss) => ({ ...ss, scope: scopeOut(ss.scope), spans: ss.spans.map(spanOut) }))
    }))
  }).finish()

/** The model as an `ExportLogsServiceRequest` (hex ids must be well-formed). */
export const encodeLogs = (request: LogsRequest): Uint8Array =>
  LogsRequestType.encode({
    resourceLogs: request.resourceLogs.map((rl) => ({
      ...rl,
      resource: resourceOut(rl.resource),
      scopeLogs: rl.scopeLogs.map((sl) => ({
        ...sl,
        scope: scopeOut(sl.scope),
        logRecords: sl.logRecords.map(logRecordOut)
      }))
    }))
  }).finish()

/**
 * The signal's `Export…ServiceResponse`: empty (full success) when nothing was refused and there is
 * no message, else with `partial_success`.
 */
export const encodeExportResponse = (signal: Signal, partial: PartialSuccess | null): Uint8Array => {
  const { type, rejected } = RESPONSES[signal]
  if (partial === null || (partial.rejected === 0 && partial.errorMessage === "")) return type.encode({}).finish()
  return type
    .encode({
      partialSuccess: { [rejected]: Long.fromNumber(partial.rejected), errorMessage: partial.errorMessage }
    })
    .finish()
}

/**
 * A `google.rpc.Status`'s code and message (details ignored); Left on malformed bytes. Refusals are
 * written by Status.ts (two fields, without loading this module); this reads them back.
 */
export const decodeStatus = (bytes: Uint8Array): Either.Either<{ readonly code: number; readonly message: string }, string> =>
  decodeWith(StatusType, bytes, (status) =>
    isFields(status) ? { code: count(status.code), message: text(status.message) } : { code: 0, message: "" })
