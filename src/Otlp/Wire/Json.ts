/**
 * OTLP/JSON (DECISIONS §18): export requests checked into Model.ts's form, and the JSON responses.
 *
 * The rules are OTLP's "JSON Protobuf Encoding" (opentelemetry-proto docs/specification.md): proto3's
 * JSON mapping with lowerCamelCase keys only, unknown keys ignored, trace and span ids as hex
 * strings (lowercased here; their length is the receiver's to check), 64-bit integers as decimal
 * strings or JSON numbers (normalized to decimal strings), enums as integers only (the spec forbids
 * their names), bytes as base64. `null` counts as absent, as in proto3's mapping.
 *
 * The result is the same objects Proto.ts makes of the same message: fields at their proto3
 * default (0, "", "0") are left out where the model marks them optional, since protobuf cannot tell
 * them from absent ones. A value of the wrong type is refused with its path
 * (`resourceSpans[0].scopeSpans[1].spans[3].startTimeUnixNano: expected …`).
 */
import * as Either from "effect/Either"
import type { Mutable } from "effect/Types"
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
  ResourceSpans,
  ScopeLogs,
  ScopeSpans,
  Signal,
  Span,
  SpanEvent,
  SpanLink,
  SpanStatus,
  TracesRequest
} from "./Model.js"
import { MAX_ANY_VALUE_DEPTH } from "./Model.js"

/**
 * The JSON nesting an OTLP/JSON request needs for AnyValues nested MAX_ANY_VALUE_DEPTH deep, the
 * depth protobuf accepts. The deepest value is an event's or a link's attribute, its first level at
 * depth 12 (request, resourceSpans, one, scopeSpans, one, spans, a span, events, an event,
 * attributes, a KeyValue, its value); each kvlist level adds 4 (kvlistValue, values, a KeyValue, its
 * value), and a level's own list 2. SVC_API_MAX_DEPTH (default 64) counts JSON levels and would
 * refuse at about 14 kvlist levels: the OTLP/JSON route reads bodies under this bound instead (or
 * SVC_API_MAX_DEPTH when higher). It leaves room for one level more, so that a value one level too
 * deep is refused by the readers below, naming its path, as protobuf's are.
 */
export const OTLP_JSON_MAX_DEPTH = 12 + 4 * MAX_ANY_VALUE_DEPTH + 2

type Fields = { readonly [key: string]: unknown }
/**
 * A refusal on its way out: thrown where the wrong value is met, each enclosing reader adds its
 * segment while it passes (so paths are only built on failure), the top turns it into a Left.
 */
class Invalid {
  /** Innermost first. */
  readonly segments: Array<string>
  constructor(segment: string, readonly problem: string) {
    this.segments = [segment]
  }
}

const refuse = (key: string, problem: string): never => {
  throw new Invalid(key, problem)
}

/** Adds a segment to a refusal passing through; other errors pass unchanged. */
const within = (error: unknown, segment: string): unknown => {
  if (error instanceof Invalid) error.segments.push(segment)
  return error
}

const isFields = (value: unknown): value is Fields =>
  typeof value === "object" && value !== null && !Array.isArray(value)

// -- Scalars: `o[key]`, absent (undefined or null) as the proto3 default ------------------------

const string = (o: Fields, key: string): string => {
  const value = o[key]
  if (typeof value === "string") return value
  return value === undefined || value === null ? "" : refuse(key, "expected a string")
}

const DECIMAL = /^-?[0-9]+$/

/** int32 / uint32 / fixed32: a JSON integer, or its decimal string (proto3's mapping allows both). */
const integer = (o: Fields, key: string, min: number, max: number): number => {
  const value = o[key]
  if (value === undefined || value === null) return 0
  const n = typeof value === "number" ? value : typeof value === "string" && DECIMAL.test(value) ? Number(value) : NaN
  return Number.isInteger(n) && n >= min && n <= max ? n : refuse(key, `expected an integer from ${min} to ${max}`)
}
const uint32 = (o: Fields, key: string): number => integer(o, key, 0, 0xffffffff)

/** Enums: integers only, as OTLP/JSON requires (`"SPAN_KIND_SERVER"` is refused). */
const enumeration = (o: Fields, key: string): number => {
  const value = o[key]
  if (value === undefined || value === null) return 0
  return typeof value === "number" && Number.isInteger(value) && Math.abs(value) <= 0x7fffffff
    ? value
    : refuse(key, "expected an integer (enum names are not OTLP/JSON)")
}

const UINT64_MAX = 18446744073709551615n
const INT64_MIN = -9223372036854775808n
const INT64_MAX = 9223372036854775807n

/** A 64-bit integer, string or number, as its canonical decimal string; undefined when out of range. */
const decimal64 = (value: unknown, min: bigint, max: bigint): string | undefined => {
  let n: bigint
  if (typeof value === "number") {
    if (!Number.isInteger(value)) return undefined
    // Safe integers print exactly; larger ones are whatever double JSON.parse made, printed exactly.
    if (Number.isSafeInteger(value)) return value < Number(min) ? undefined : String(value)
    n = BigInt(value)
  } else if (typeof value === "string" && DECIMAL.test(value)) {
    // Short, non-negative, without leading zeros: already canonical and in range.
    if (value.length < 16 && value[0] !== "0" && value[0] !== "-") return value
    n = BigInt(value)
  } else return undefined
  return n >= min && n <= max ? n.toString() : undefined
}

/** fixed64 (timestamps): "0" when absent. */
const uint64 = (o: Fields, key: string): string => {
  const value = o[key]
  if (value === undefined || value === null) return "0"
  return decimal64(value, 0n, UINT64_MAX) ?? refuse(key, "expected a decimal string or an integer (unsigned 64-bit)")
}

const int64 = (o: Fields, key: string): string => {
  const value = o[key]
  if (value === undefined || value === null) return "0"
  return decimal64(value, INT64_MIN, INT64_MAX) ?? refuse(key, "expected a decimal string or an integer (signed 64-bit)")
}

const double = (o: Fields, key: string): number => {
  const value = o[key]
  if (typeof value === "number") return value
  if (value === undefined || value === null) return 0
  // proto3's JSON mapping writes the non-finite doubles as strings, and allows numeric strings.
  if (value === "NaN") return NaN
  if (value === "Infinity") return Infinity
  if (value === "-Infinity") return -Infinity
  if (typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value))) return Number(value)
  return refuse(key, "expected a number")
}

const bool = (o: Fields, key: string): boolean => {
  const value = o[key]
  if (typeof value === "boolean") return value
  return value === undefined || value === null ? false : refuse(key, "expected a boolean")
}

const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/

/** Bytes: base64, standard or URL-safe, re-encoded standard and padded as Proto.ts writes it. */
const bytes = (o: Fields, key: string): string => {
  const value = o[key]
  if (typeof value === "string" && BASE64.test(value)) return Buffer.from(value, "base64").toString("base64")
  return value === undefined || value === null ? "" : refuse(key, "expected a base64 string")
}

/** A trace or span id: any string, lowercased; "" when absent. */
const id = (o: Fields, key: string): string => {
  const value = o[key]
  if (typeof value === "string") return value.toLowerCase()
  return value === undefined || value === null ? "" : refuse(key, "expected a hex string")
}

const NO_ITEMS: ReadonlyArray<unknown> = []

const list = (o: Fields, key: string): ReadonlyArray<unknown> => {
  const value = o[key]
  if (Array.isArray(value)) return value
  return value === undefined || value === null ? NO_ITEMS : refuse(key, "expected an array")
}

/** A nested message: undefined when absent. */
const message = (o: Fields, key: string): Fields | undefined => {
  const value = o[key]
  if (isFields(value)) return value
  return value === undefined || value === null ? undefined : refuse(key, "expected an object")
}

/** Reads each element of `o[key]`, adding `key[i]` to a refusal's path. */
const each = <A>(o: Fields, key: string, read: (element: Fields) => A): Array<A> => {
  const elements = list(o, key)
  const out: Array<A> = new Array(elements.length)
  for (let i = 0; i < elements.length; i++) {
    const element = elements[i]
    const fields = isFields(element) ? element : refuse(`${key}[${i}]`, "expected an object")
    try {
      out[i] = read(fields)
    } catch (error) {
      throw within(error, `${key}[${i}]`)
    }
  }
  return out
}

/** Reads `o[key]` as a nested message, adding `key` to a refusal's path; undefined when absent. */
const nested = <A>(o: Fields, key: string, read: (fields: Fields) => A): A | undefined => {
  const fields = message(o, key)
  if (fields === undefined) return undefined
  try {
    return read(fields)
  } catch (error) {
    throw within(error, key)
  }
}

// -- Messages ----------------------------------------------------------------------------------

const anyValue = (o: Fields, depth: number): AnyValue => {
  if (depth > MAX_ANY_VALUE_DEPTH) refuse("value", `AnyValue nested deeper than ${MAX_ANY_VALUE_DEPTH}`)
  // The oneof's case is the first key present (a sender writing two has sent a malformed value).
  if (o.stringValue !== undefined && o.stringValue !== null) return { stringValue: string(o, "stringValue") }
  if (o.intValue !== undefined && o.intValue !== null) return { intValue: int64(o, "intValue") }
  if (o.boolValue !== undefined && o.boolValue !== null) return { boolValue: bool(o, "boolValue") }
  if (o.doubleValue !== undefined && o.doubleValue !== null) return { doubleValue: double(o, "doubleValue") }
  if (o.arrayValue !== undefined && o.arrayValue !== null) {
    const values = nested(o, "arrayValue", (array) => each(array, "values", (value) => anyValue(value, depth + 1)))
    return { arrayValue: { values: values ?? [] } }
  }
  if (o.kvlistValue !== undefined && o.kvlistValue !== null) {
    const values = nested(o, "kvlistValue", (kvlist) => keyValues(kvlist, "values", depth + 1))
    return { kvlistValue: { values: values ?? [] } }
  }
  if (o.bytesValue !== undefined && o.bytesValue !== null) return { bytesValue: bytes(o, "bytesValue") }
  return {}
}

/** `o[key]`'s KeyValues, their values at `depth`. */
const keyValues = (o: Fields, key: string, depth: number): Array<KeyValue> =>
  each(o, key, (kv) => ({ key: string(kv, "key"), value: nested(kv, "value", (value) => anyValue(value, depth)) ?? {} }))

const resource = (o: Fields): Resource => {
  const out: Mutable<Resource> = { attributes: keyValues(o, "attributes", 1) }
  const dropped = uint32(o, "droppedAttributesCount")
  if (dropped !== 0) out.droppedAttributesCount = dropped
  return out
}

const scope = (o: Fields): InstrumentationScope => {
  const out: Mutable<InstrumentationScope> = { name: string(o, "name") }
  const version = string(o, "version")
  if (version !== "") out.version = version
  const attributes = keyValues(o, "attributes", 1)
  if (attributes.length > 0) out.attributes = attributes
  return out
}

const event = (o: Fields): SpanEvent => {
  const out: Mutable<SpanEvent> = {
    timeUnixNano: uint64(o, "timeUnixNano"),
    name: string(o, "name"),
    attributes: keyValues(o, "attributes", 1)
  }
  const dropped = uint32(o, "droppedAttributesCount")
  if (dropped !== 0) out.droppedAttributesCount = dropped
  return out
}

const link = (o: Fields): SpanLink => {
  const out: Mutable<SpanLink> = {
    traceId: id(o, "traceId"),
    spanId: id(o, "spanId"),
    attributes: keyValues(o, "attributes", 1)
  }
  const traceState = string(o, "traceState")
  if (traceState !== "") out.traceState = traceState
  uint32(o, "droppedAttributesCount") // checked, though the model keeps no count for links
  const flags = uint32(o, "flags")
  if (flags !== 0) out.flags = flags
  return out
}

const status = (o: Fields): SpanStatus => {
  const out: Mutable<SpanStatus> = {}
  const code = enumeration(o, "code")
  if (code !== 0) out.code = code
  const text = string(o, "message")
  if (text !== "") out.message = text
  return out
}

const span = (o: Fields): Span => {
  const out: Mutable<Span> = {
    traceId: id(o, "traceId"),
    spanId: id(o, "spanId"),
    name: string(o, "name"),
    startTimeUnixNano: uint64(o, "startTimeUnixNano"),
    endTimeUnixNano: uint64(o, "endTimeUnixNano"),
    attributes: keyValues(o, "attributes", 1),
    events: each(o, "events", event),
    links: each(o, "links", link)
  }
  const parentSpanId = id(o, "parentSpanId")
  if (parentSpanId !== "") out.parentSpanId = parentSpanId
  const traceState = string(o, "traceState")
  if (traceState !== "") out.traceState = traceState
  const flags = uint32(o, "flags")
  if (flags !== 0) out.flags = flags
  const kind = enumeration(o, "kind")
  if (kind !== 0) out.kind = kind
  const droppedAttributes = uint32(o, "droppedAttributesCount")
  if (droppedAttributes !== 0) out.droppedAttributesCount = droppedAttributes
  const droppedEvents = uint32(o, "droppedEventsCount")
  if (droppedEvents !== 0) out.droppedEventsCount = droppedEvents
  const droppedLinks = uint32(o, "droppedLinksCount")
  if (droppedLinks !== 0) out.droppedLinksCount = droppedLinks
  const spanStatus = nested(o, "status", status)
  if (spanStatus !== undefined) out.status = spanStatus
  return out
}

const scopeSpans = (o: Fields): ScopeSpans => {
  const out: Mutable<ScopeSpans> = { spans: each(o, "spans", span) }
  const read = nested(o, "scope", scope)
  if (read !== undefined) out.scope = read
  const schemaUrl = string(o, "schemaUrl")
  if (schemaUrl !== "") out.schemaUrl = schemaUrl
  return out
}

const resourceSpans = (o: Fields): ResourceSpans => {
  const out: Mutable<ResourceSpans> = { scopeSpans: each(o, "scopeSpans", scopeSpans) }
  const read = nested(o, "resource", resource)
  if (read !== undefined) out.resource = read
  const schemaUrl = string(o, "schemaUrl")
  if (schemaUrl !== "") out.schemaUrl = schemaUrl
  return out
}

const logRecord = (o: Fields): LogRecord => {
  const out: Mutable<LogRecord> = {
    attributes: keyValues(o, "attributes", 1),
    traceId: id(o, "traceId"),
    spanId: id(o, "spanId")
  }
  const time = uint64(o, "timeUnixNano")
  if (time !== "0") out.timeUnixNano = time
  const observed = uint64(o, "observedTimeUnixNano")
  if (observed !== "0") out.observedTimeUnixNano = observed
  const severityNumber = enumeration(o, "severityNumber")
  if (severityNumber !== 0) out.severityNumber = severityNumber
  const severityText = string(o, "severityText")
  if (severityText !== "") out.severityText = severityText
  const body = nested(o, "body", (value) => anyValue(value, 1))
  if (body !== undefined) out.body = body
  const dropped = uint32(o, "droppedAttributesCount")
  if (dropped !== 0) out.droppedAttributesCount = dropped
  const flags = uint32(o, "flags")
  if (flags !== 0) out.flags = flags
  const eventName = string(o, "eventName")
  if (eventName !== "") out.eventName = eventName
  return out
}

const scopeLogs = (o: Fields): ScopeLogs => {
  const out: Mutable<ScopeLogs> = { logRecords: each(o, "logRecords", logRecord) }
  const read = nested(o, "scope", scope)
  if (read !== undefined) out.scope = read
  const schemaUrl = string(o, "schemaUrl")
  if (schemaUrl !== "") out.schemaUrl = schemaUrl
  return out
}

const resourceLogs = (o: Fields): ResourceLogs => {
  const out: Mutable<ResourceLogs> = { scopeLogs: each(o, "scopeLogs", scopeLogs) }
  const read = nested(o, "resource", resource)
  if (read !== undefined) out.resource = read
  const schemaUrl = string(o, "schemaUrl")
  if (schemaUrl !== "") out.schemaUrl = schemaUrl
  return out
}

const METRIC_DATA = ["gauge", "sum", "histogram", "exponentialHistogram", "summary"] as const

/** A metric's data points, counted (their contents are not read). */
const metricPoints = (o: Fields): number => {
  let points = 0
  for (const kind of METRIC_DATA) points += nested(o, kind, (data) => list(data, "dataPoints").length) ?? 0
  return points
}

const sum = (counts: ReadonlyArray<number>): number => {
  let total = 0
  for (const n of counts) total += n
  return total
}

/** Reads a whole request, turning a refusal into its path and problem, and anything else into a Left. */
const readRequest = <A>(what: string, value: unknown, read: (request: Fields) => A): Either.Either<A, string> => {
  if (!isFields(value)) return Either.left(`not an OTLP ${what}: expected a JSON object`)
  try {
    return Either.right(read(value))
  } catch (error) {
    if (error instanceof Invalid) return Either.left(`${error.segments.reverse().join(".")}: ${error.problem}`)
    const reason = error instanceof RangeError ? "nested too deeply" : error instanceof Error ? error.message : String(error)
    return Either.left(`not an OTLP ${what}: ${reason}`)
  }
}

/** An OTLP/JSON `ExportTraceServiceRequest` (parsed JSON) into the model; Left naming the bad path. */
export const readTracesJson = (value: unknown): Either.Either<TracesRequest, string> =>
  readRequest("ExportTraceServiceRequest", value, (o) => ({ resourceSpans: each(o, "resourceSpans", resourceSpans) }))

/** An OTLP/JSON `ExportLogsServiceRequest` (parsed JSON) into the model; Left naming the bad path. */
export const readLogsJson = (value: unknown): Either.Either<LogsRequest, string> =>
  readRequest("ExportLogsServiceRequest", value, (o) => ({ resourceLogs: each(o, "resourceLogs", resourceLogs) }))

/** An OTLP/JSON `ExportMetricsServiceRequest`, its data points counted; Left naming the bad path. */
export const readMetricsJson = (value: unknown): Either.Either<MetricsRequest, string> =>
  readRequest("ExportMetricsServiceRequest", value, (o) => ({
    dataPoints: sum(
      each(o, "resourceMetrics", (rm) =>
        sum(each(rm, "scopeMetrics", (sm) => sum(each(sm, "metrics", metricPoints)))))
    )
  }))

// -- Responses ---------------------------------------------------------------------------------

/** An `Export…ServiceResponse` in OTLP/JSON: `{}` on full success. */
export interface ExportResponseJson {
  readonly partialSuccess?: {
    readonly rejectedSpans?: string
    readonly rejectedLogRecords?: string
    readonly rejectedDataPoints?: string
    readonly errorMessage: string
  }
}

const REJECTED = { traces: "rejectedSpans", logs: "rejectedLogRecords", metrics: "rejectedDataPoints" } as const

/** The signal's response; `partialSuccess` only when something was refused or there is a message. */
export const exportResponseJson = (signal: Signal, partial: PartialSuccess | null): ExportResponseJson =>
  partial === null || (partial.rejected === 0 && partial.errorMessage === "")
    ? {}
    : { partialSuccess: { [REJECTED[signal]]: String(partial.rejected), errorMessage: partial.errorMessage } }

