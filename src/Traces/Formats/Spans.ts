/**
 * Shared span reading for the span-based formats (`otel`, `openinference`; DECISIONS §12): turns
 * any of the span container shapes into flat lists of spans and log records, groups them by trace,
 * arranges each trace's spans into a tree (iteratively: no recursion over the input, cycles broken
 * and counted), and offers the span importers one way of building a normalized trace from it
 * (`readSpanTraces`): chat messages in any of the common shapes, history de-duplication through
 * `TraceBuilder.addHistory`, tool executions matched with the tool calls the model asked for,
 * errors, handoffs, and task / success derived the same way for both formats; also the message
 * helpers both formats use (`ModelCall`, `stampMessages`, `firstText`).
 *
 * Shapes read: OTLP/JSON `ExportTraceServiceRequest` (`resourceSpans` → `scopeSpans` (or the older
 * `instrumentationLibrarySpans`) → `spans`, attributes as KeyValue lists of AnyValues), an
 * `ExportLogsServiceRequest` (`resourceLogs` → `scopeLogs` → `logRecords`), both together, a
 * list of such requests (JSON Lines), a plain list of spans as SDKs and exporters write them
 * (plain `attributes` objects; ids as `traceId`/`spanId`/`parentSpanId`, `trace_id`/`span_id`/
 * `parent_span_id`/`parent_id`, or in `context`/`spanContext`/`parentSpanContext`; times as ISO
 * strings, epoch numbers in s/ms/µs/ns, OTel hrtime `[seconds, nanos]` or `*UnixNano` strings),
 * wrappers such as `{spans: [...]}` and AWS ADOT's `{session_id, span_count, spans}`, and a single
 * span object.
 */
import { Either, Predicate } from "effect"
import { contentText, makeTraceBuilder, type EventInput, type TraceBuilder } from "../Builder.js"
import type { ActorRole, NormalizedTrace } from "../Model.js"
import { str } from "./Common.js"

type Json = Readonly<Record<string, unknown>>
export type Attributes = Readonly<Record<string, unknown>>
export type StatusCode = "ok" | "error" | "unset"

export interface SpanStatus {
  readonly code: StatusCode
  readonly message?: string | undefined
}

export interface SpanEvent {
  readonly name: string
  readonly timeNanos: bigint | undefined
  readonly attributes: Attributes
  /** The event's body when it has one (ADOT span events, log-style events); AnyValues converted. */
  readonly body: unknown
}

export interface Span {
  /** The span's position among the body's span records (0-based). */
  readonly index: number
  readonly traceId: string | undefined
  /** The span's id; a span written without one is named `#<index>`. */
  readonly spanId: string
  readonly parentId: string | undefined
  readonly name: string
  readonly kind: string | undefined
  readonly startNanos: bigint | undefined
  readonly endNanos: bigint | undefined
  readonly attributes: Attributes
  readonly events: ReadonlyArray<SpanEvent>
  readonly status: SpanStatus
  readonly resource: Attributes
  readonly scope: string | undefined
}

export interface LogRecord {
  /** The record's position among the body's log records (0-based): the `log:<index>` pointer. */
  readonly index: number
  readonly traceId: string | undefined
  readonly spanId: string | undefined
  /** `eventName`, or the `event.name` attribute. */
  readonly name: string
  readonly timeNanos: bigint | undefined
  readonly attributes: Attributes
  readonly body: unknown
}

export interface SpanBody {
  /** The span records in the order they were read. */
  readonly spans: ReadonlyArray<Span>
  readonly logs: ReadonlyArray<LogRecord>
  /** Records that were not read: non-objects, containers of the wrong type. */
  readonly skipped: number
}

const EMPTY: Attributes = Object.freeze({})
const NO_EVENTS: ReadonlyArray<SpanEvent> = Object.freeze([])
const STATUS_UNSET: SpanStatus = Object.freeze({ code: "unset" })
const STATUS_OK: SpanStatus = Object.freeze({ code: "ok" })
const STATUS_ERROR: SpanStatus = Object.freeze({ code: "error" })
const MAX_DEPTH = 64

const recordAt = (record: Json, key: string): Json | undefined => {
  const value = record[key]
  return Predicate.isRecord(value) ? value : undefined
}
const first = <A>(...values: ReadonlyArray<A | undefined>): A | undefined => values.find((value) => value !== undefined)

// ---------------------------------------------------------------------------------------------
// OTLP AnyValue / KeyValue

const ANY_VALUE_KEYS = new Set(["stringValue", "boolValue", "intValue", "doubleValue", "arrayValue", "kvlistValue", "bytesValue"])

/** True for an OTLP AnyValue wrapper (`{stringValue}`, `{kvlistValue}`, ..., or the empty `{}`). */
const isAnyValue = (value: unknown): value is Json => {
  if (!Predicate.isRecord(value)) return false
  const keys = Object.keys(value)
  return keys.length === 0 || (keys.length === 1 && keys[0] !== undefined && ANY_VALUE_KEYS.has(keys[0]))
}

/** An OTLP AnyValue as a plain value: arrays and kvlists become arrays and objects. */
export const fromAnyValue = (value: unknown, depth = 0): unknown => {
  if (!Predicate.isRecord(value)) return value
  if (depth > MAX_DEPTH) return undefined
  if ("stringValue" in value) return value["stringValue"]
  if ("boolValue" in value) return value["boolValue"]
  if ("intValue" in value) {
    const int = value["intValue"]
    if (typeof int === "string" && /^-?\d+$/.test(int)) {
      const number = Number(int)
      return Number.isSafeInteger(number) ? number : int
    }
    return int
  }
  if ("doubleValue" in value) {
    const double = value["doubleValue"]
    return typeof double === "string" ? Number(double) : double
  }
  if ("bytesValue" in value) return value["bytesValue"]
  if ("arrayValue" in value) {
    const array = value["arrayValue"]
    const values = Predicate.isRecord(array) ? array["values"] : undefined
    return Array.isArray(values) ? values.map((item) => fromAnyValue(item, depth + 1)) : []
  }
  if ("kvlistValue" in value) {
    const list = value["kvlistValue"]
    return keyValues(Predicate.isRecord(list) ? list["values"] : undefined, depth + 1)
  }
  return undefined
}

/** An OTLP KeyValue list as a plain object (entries without a string key are dropped). */
const keyValues = (list: unknown, depth: number): Attributes => {
  if (!Array.isArray(list) || list.length === 0) return EMPTY
  const attributes: Record<string, unknown> = {}
  let found = false
  for (const entry of list) {
    if (!Predicate.isRecord(entry)) continue
    const key = entry["key"]
    if (typeof key !== "string" || UNSAFE_KEYS.has(key)) continue
    attributes[key] = fromAnyValue(entry["value"], depth)
    found = true
  }
  return found ? attributes : EMPTY
}
/** A key that would set the prototype when assigned (Object.fromEntries never did). */
const UNSAFE_KEYS: ReadonlySet<string> = new Set(["__proto__"])

/** Attributes in either shape: a plain object (kept as it is) or an OTLP KeyValue list. */
export const attributesOf = (value: unknown): Attributes => {
  if (Array.isArray(value)) return keyValues(value, 0)
  return Predicate.isRecord(value) ? value : EMPTY
}

/** A body that may be an OTLP AnyValue (log records) or a plain value (span dicts). */
const bodyOf = (value: unknown): unknown => (isAnyValue(value) ? fromAnyValue(value) : value)

// ---------------------------------------------------------------------------------------------
// Times

const NANOS_PER_MS = 1_000_000n
const ISO = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(?:[.,](\d+))?(Z|[+-]\d{2}:?\d{2})?$/i

const scaled = (value: bigint, digits: number): bigint =>
  digits >= 18 ? value : digits >= 15 ? value * 1_000n : digits >= 12 ? value * NANOS_PER_MS : value * 1_000_000_000n

/**
 * A time as nanoseconds since the epoch: OTLP `*UnixNano` strings, epoch numbers (seconds,
 * milliseconds, microseconds or nanoseconds, told apart by magnitude), ISO-8601 strings, or OTel
 * hrtime `[seconds, nanos]`. Undefined for anything else and for zero (an unset time).
 */
export const nanosOf = (value: unknown, unit?: "ns"): bigint | undefined => {
  let nanos: bigint | undefined
  if (typeof value === "number") {
    if (!Number.isFinite(value)) return undefined
    const magnitude = Math.abs(value)
    const factor = unit === "ns" || magnitude >= 1e17 ? 1 : magnitude >= 1e14 ? 1e3 : magnitude >= 1e11 ? 1e6 : 1e9
    const whole = Math.trunc(value)
    nanos = BigInt(whole) * BigInt(factor) + BigInt(Math.round((value - whole) * factor))
  } else if (typeof value === "string") {
    const text = value.trim()
    if (/^\d+$/.test(text)) {
      nanos = unit === "ns" ? BigInt(text) : scaled(BigInt(text), text.replace(/^0+/, "").length)
    } else if (/^\d+\.\d+$/.test(text)) {
      return nanosOf(Number(text))
    } else {
      const match = ISO.exec(text)
      if (match === null) {
        const ms = Date.parse(text)
        nanos = Number.isFinite(ms) ? BigInt(ms) * NANOS_PER_MS : undefined
      } else {
        const [, date, time, fraction, zone] = match
        const ms = Date.parse(`${date}T${time}${zone === undefined ? "Z" : zone.toUpperCase()}`)
        if (!Number.isFinite(ms)) return undefined
        nanos = BigInt(ms) * NANOS_PER_MS + BigInt((fraction ?? "").slice(0, 9).padEnd(9, "0"))
      }
    }
  } else if (Array.isArray(value) && value.length === 2) {
    const [seconds, fraction] = value
    if (typeof seconds === "number" && typeof fraction === "number" && Number.isFinite(seconds) && Number.isFinite(fraction)) {
      nanos = BigInt(Math.trunc(seconds)) * 1_000_000_000n + BigInt(Math.trunc(fraction))
    }
  }
  return nanos === undefined || nanos === 0n ? undefined : nanos
}

/** Nanoseconds since the epoch as ISO-8601 (millisecond precision); undefined when out of range. */
let lastNanos: bigint | undefined
let lastIso: string | undefined
export const isoOf = (nanos: bigint | undefined): string | undefined => {
  if (nanos === undefined) return undefined
  // Every message of a span carries the span's time: the last answer is usually the next one.
  if (nanos === lastNanos) return lastIso
  lastNanos = nanos
  lastIso = isoOfNanos(nanos)
  return lastIso
}
// Spans of one trace fall in few seconds: the ISO text up to the second is reused.
let lastSecond = Number.NaN
let secondPrefix = ""
const isoOfNanos = (nanos: bigint): string | undefined => {
  const ms = Number(nanos / NANOS_PER_MS)
  if (!Number.isFinite(ms) || Math.abs(ms) > 8.64e15) return undefined
  if (ms < 0) return new Date(ms).toISOString()
  const second = Math.floor(ms / 1000)
  if (second !== lastSecond) {
    lastSecond = second
    secondPrefix = new Date(second * 1000).toISOString().slice(0, -4)
  }
  return `${secondPrefix}${String(ms - second * 1000).padStart(3, "0")}Z`
}

// ---------------------------------------------------------------------------------------------
// Span records

const idOf = (value: unknown): string | undefined => {
  if (typeof value === "number" && Number.isFinite(value)) return String(value)
  const id = str(value)
  return id === undefined || /^0+$/.test(id) ? undefined : id
}

const STATUS_WORDS: Readonly<Record<string, StatusCode>> = { OK: "ok", ERROR: "error", UNSET: "unset" }
const statusCodeOf = (value: unknown): StatusCode => {
  if (typeof value === "number") return value === 1 ? "ok" : value === 2 ? "error" : "unset"
  if (typeof value !== "string") return "unset"
  const word = value.trim().toUpperCase().replace(/^(STATUS_CODE_|STATUSCODE\.)/, "")
  return STATUS_WORDS[word] ?? (/^\d$/.test(word) ? statusCodeOf(Number(word)) : "unset")
}

export const statusOf = (value: unknown): SpanStatus => {
  if (typeof value === "string" || typeof value === "number") {
    const code = statusCodeOf(value)
    return code === "ok" ? STATUS_OK : code === "error" ? STATUS_ERROR : STATUS_UNSET
  }
  if (!Predicate.isRecord(value)) return STATUS_UNSET
  const code = statusCodeOf(first(value["code"], value["status_code"], value["statusCode"]))
  const message = str(value["message"]) ?? str(value["description"])
  if (message === undefined) return code === "ok" ? STATUS_OK : code === "error" ? STATUS_ERROR : STATUS_UNSET
  return { code, message }
}

const OTLP_KINDS = ["unspecified", "internal", "server", "client", "producer", "consumer"]
const SDK_KINDS = ["internal", "server", "client", "producer", "consumer"]
const kindOf = (value: unknown, otlp: boolean): string | undefined => {
  if (typeof value === "number") return (otlp ? OTLP_KINDS : SDK_KINDS)[value]
  if (typeof value !== "string") return undefined
  return value.trim().toLowerCase().replace(/^(span_kind_|spankind\.)/, "") || undefined
}

const scopeNameOf = (record: Json): string | undefined =>
  str(recordAt(record, "scope")?.["name"]) ??
  str(recordAt(record, "instrumentationScope")?.["name"]) ??
  str(recordAt(record, "instrumentationLibrary")?.["name"]) ??
  str(recordAt(record, "instrumentation_scope")?.["name"]) ??
  str(recordAt(record, "instrumentation_library")?.["name"])

interface Container {
  readonly resource: Attributes
  readonly scope: string | undefined
  readonly otlp: boolean
}
const PLAIN: Container = { resource: EMPTY, scope: undefined, otlp: false }

const readEvents = (value: unknown, counter: { skipped: number }): ReadonlyArray<SpanEvent> => {
  if (!Array.isArray(value) || value.length === 0) return NO_EVENTS
  const events: Array<SpanEvent> = []
  for (const event of value) {
    if (!Predicate.isRecord(event)) {
      counter.skipped++
      continue
    }
    events.push({
      name: str(event["name"]) ?? str(event["event_name"]) ?? str(event["eventName"]) ?? "",
      timeNanos: nanosOf(event["timeUnixNano"] ?? event["time_unix_nano"], "ns") ?? nanosOf(first(event["timestamp"], event["time"])),
      attributes: attributesOf(event["attributes"]),
      body: bodyOf(event["body"])
    })
  }
  return events
}

const readSpan = (record: Json, index: number, container: Container, counter: { skipped: number }): Span => {
  const context = recordAt(record, "spanContext") ?? recordAt(record, "context") ?? recordAt(record, "span_context")
  const parentContext = recordAt(record, "parentSpanContext") ?? recordAt(record, "parent_span_context") ?? recordAt(record, "parent")
  const traceId = idOf(first(record["traceId"], record["trace_id"], context?.["traceId"], context?.["trace_id"]))
  const spanId = idOf(first(record["spanId"], record["span_id"], context?.["spanId"], context?.["span_id"]))
  const parentId = idOf(
    first(
      record["parentSpanId"],
      record["parent_span_id"],
      record["parent_id"],
      record["parentId"],
      parentContext?.["spanId"],
      parentContext?.["span_id"]
    )
  )
  const resource = recordAt(record, "resource")
  return {
    index,
    traceId,
    spanId: spanId ?? `#${index}`,
    parentId,
    name: str(record["name"]) ?? "",
    kind: kindOf(record["kind"], container.otlp),
    startNanos:
      nanosOf(record["startTimeUnixNano"] ?? record["start_time_unix_nano"], "ns") ??
      nanosOf(first(record["startTime"], record["start_time"], record["start"], record["timestamp"])),
    endNanos:
      nanosOf(record["endTimeUnixNano"] ?? record["end_time_unix_nano"], "ns") ??
      nanosOf(first(record["endTime"], record["end_time"], record["end"])),
    attributes: attributesOf(record["attributes"]),
    events: readEvents(first(record["events"], record["span_events"], record["spanEvents"]), counter),
    status: statusOf(record["status"]),
    resource: resource === undefined ? container.resource : attributesOf(resource["attributes"]),
    scope: scopeNameOf(record) ?? container.scope
  }
}

const readLog = (record: Json, index: number): LogRecord => {
  const attributes = attributesOf(record["attributes"])
  return {
    index,
    traceId: idOf(first(record["traceId"], record["trace_id"])),
    spanId: idOf(first(record["spanId"], record["span_id"])),
    name: str(record["eventName"]) ?? str(record["event_name"]) ?? str(attributes["event.name"]) ?? str(record["name"]) ?? "",
    timeNanos:
      nanosOf(first(record["timeUnixNano"], record["observedTimeUnixNano"]), "ns") ?? nanosOf(first(record["timestamp"], record["time"])),
    attributes,
    body: bodyOf(record["body"])
  }
}

const hasOtlpKeys = (record: Json): boolean => "resourceSpans" in record || "resourceLogs" in record

/** A record that is a span on its own (not a container): it has an id or a span context. */
const looksLikeSpan = (record: Json): boolean =>
  "span_id" in record || "spanId" in record || Predicate.isRecord(record["spanContext"]) || Predicate.isRecord(record["context"])

/**
 * Reads every span and log record of a body in any of the supported container shapes. Never
 * throws; records that are not objects, and containers of the wrong type, are counted in
 * `skipped`.
 */
export const readSpanBody = (body: unknown): SpanBody => {
  const spans: Array<Span> = []
  const logs: Array<LogRecord> = []
  const counter = { skipped: 0 }

  const readSpanList = (list: ReadonlyArray<unknown>, container: Container) => {
    for (const record of list) {
      if (Predicate.isRecord(record)) spans.push(readSpan(record, spans.length, container, counter))
      else counter.skipped++
    }
  }

  const readOtlp = (request: Json) => {
    const resourceSpans = request["resourceSpans"]
    if (resourceSpans !== undefined && !Array.isArray(resourceSpans)) counter.skipped++
    for (const group of Array.isArray(resourceSpans) ? resourceSpans : []) {
      if (!Predicate.isRecord(group)) {
        counter.skipped++
        continue
      }
      const resource = attributesOf(recordAt(group, "resource")?.["attributes"])
      const scopes = first(group["scopeSpans"], group["instrumentationLibrarySpans"], group["scope_spans"])
      if (!Array.isArray(scopes)) {
        counter.skipped++
        continue
      }
      for (const scope of scopes) {
        if (!Predicate.isRecord(scope) || !Array.isArray(scope["spans"])) {
          counter.skipped++
          continue
        }
        readSpanList(scope["spans"], { resource, scope: scopeNameOf(scope), otlp: true })
      }
    }
    const resourceLogs = request["resourceLogs"]
    if (resourceLogs !== undefined && !Array.isArray(resourceLogs)) counter.skipped++
    for (const group of Array.isArray(resourceLogs) ? resourceLogs : []) {
      if (!Predicate.isRecord(group)) {
        counter.skipped++
        continue
      }
      const scopes = first(group["scopeLogs"], group["instrumentationLibraryLogs"], group["scope_logs"])
      if (!Array.isArray(scopes)) {
        counter.skipped++
        continue
      }
      for (const scope of scopes) {
        const records = Predicate.isRecord(scope) ? scope["logRecords"] : undefined
        if (!Array.isArray(records)) {
          counter.skipped++
          continue
        }
        for (const record of records) {
          if (Predicate.isRecord(record)) logs.push(readLog(record, logs.length))
          else counter.skipped++
        }
      }
    }
  }

  /** One level of nesting at most: a list of requests or wrappers, each read as its own body. */
  const readTop = (value: unknown, nested: boolean) => {
    if (Array.isArray(value)) {
      if (nested) {
        counter.skipped++
        return
      }
      for (const item of value) {
        if (Predicate.isRecord(item) && (hasOtlpKeys(item) || (Array.isArray(item["spans"]) && !looksLikeSpan(item)))) readTop(item, true)
        else if (Predicate.isRecord(item)) spans.push(readSpan(item, spans.length, PLAIN, counter))
        else counter.skipped++
      }
      return
    }
    if (!Predicate.isRecord(value)) return
    if (hasOtlpKeys(value)) readOtlp(value)
    else if (Array.isArray(value["spans"])) readSpanList(value["spans"], PLAIN)
    else if (looksLikeSpan(value)) spans.push(readSpan(value, spans.length, PLAIN, counter))
  }

  readTop(body, false)
  return { spans, logs, skipped: counter.skipped }
}

// ---------------------------------------------------------------------------------------------
// Detection samples

export interface SpanSample {
  /** The body has OTLP top-level keys (`resourceSpans` / `resourceLogs`). */
  readonly otlp: boolean
  /** Attribute keys, event names and the scope name of the first few span-like records. */
  readonly records: ReadonlyArray<{ readonly keys: ReadonlyArray<string>; readonly eventNames: ReadonlyArray<string>; readonly scope: string | undefined }>
}

const MAX_SAMPLE_KEYS = 400

const sampleKeys = (value: unknown): Array<string> => {
  if (Array.isArray(value)) {
    const keys: Array<string> = []
    for (let i = 0; i < value.length && i < MAX_SAMPLE_KEYS; i++) {
      const entry: unknown = value[i]
      if (Predicate.isRecord(entry) && typeof entry["key"] === "string") keys.push(entry["key"])
    }
    return keys
  }
  return Predicate.isRecord(value) ? Object.keys(value).slice(0, MAX_SAMPLE_KEYS) : []
}

const sampleRecord = (record: Json, scope: string | undefined) => {
  const events = first(record["events"], record["span_events"])
  const eventNames: Array<string> = []
  if (Array.isArray(events)) {
    for (let i = 0; i < events.length && i < 20; i++) {
      const event: unknown = events[i]
      if (Predicate.isRecord(event)) {
        const name = str(event["name"]) ?? str(event["event_name"]) ?? str(event["eventName"])
        if (name !== undefined) eventNames.push(name)
      }
    }
  }
  return { keys: sampleKeys(record["attributes"]), eventNames, scope: scopeNameOf(record) ?? scope }
}

/**
 * The first `limit` span records of a body (for `detect`): cheap, bounded loops only, and never
 * throws. Records must look like spans (an `attributes` field, or ids) to be sampled.
 */
export const sampleSpans = (body: unknown, limit = 20): SpanSample => {
  const records: Array<SpanSample["records"][number]> = []
  const take = (list: unknown, scope: string | undefined) => {
    if (!Array.isArray(list)) return
    for (let i = 0; i < list.length && records.length < limit; i++) {
      const record: unknown = list[i]
      if (Predicate.isRecord(record) && ("attributes" in record || looksLikeSpan(record))) records.push(sampleRecord(record, scope))
    }
  }
  const otlpSample = (request: Json) => {
    const groups = request["resourceSpans"]
    if (!Array.isArray(groups)) return
    for (let g = 0; g < groups.length && g < 20 && records.length < limit; g++) {
      const group: unknown = groups[g]
      if (!Predicate.isRecord(group)) continue
      const scopes = first(group["scopeSpans"], group["instrumentationLibrarySpans"])
      if (!Array.isArray(scopes)) continue
      for (let s = 0; s < scopes.length && s < 20 && records.length < limit; s++) {
        const scope: unknown = scopes[s]
        if (Predicate.isRecord(scope)) take(scope["spans"], scopeNameOf(scope))
      }
    }
  }
  try {
    if (Array.isArray(body)) {
      const head: unknown = body[0]
      if (Predicate.isRecord(head) && hasOtlpKeys(head)) {
        for (let i = 0; i < body.length && i < 5; i++) {
          const item: unknown = body[i]
          if (Predicate.isRecord(item)) otlpSample(item)
        }
        return { otlp: true, records }
      }
      if (Predicate.isRecord(head) && Array.isArray(head["spans"]) && !looksLikeSpan(head)) {
        take(head["spans"], undefined)
        return { otlp: false, records }
      }
      take(body, undefined)
      return { otlp: false, records }
    }
    if (!Predicate.isRecord(body)) return { otlp: false, records }
    if (hasOtlpKeys(body)) {
      otlpSample(body)
      return { otlp: Array.isArray(body["resourceSpans"]) || Array.isArray(body["resourceLogs"]), records }
    }
    if (Array.isArray(body["spans"])) take(body["spans"], undefined)
    else if (looksLikeSpan(body) && "attributes" in body) records.push(sampleRecord(body, undefined))
    return { otlp: false, records }
  } catch {
    return { otlp: false, records: [] }
  }
}

/** True when a sampled record carries OpenInference attributes (or comes from its instrumentation). */
export const isOpenInferenceSample = (record: SpanSample["records"][number]): boolean =>
  (record.scope !== undefined && record.scope.toLowerCase().startsWith("openinference")) ||
  record.keys.some(
    (key) => key === "openinference.span.kind" || key.startsWith("llm.input_messages") || key.startsWith("llm.output_messages")
  )

// ---------------------------------------------------------------------------------------------
// Traces and trees

export interface TraceGroup {
  readonly traceId: string | null
  readonly spans: ReadonlyArray<Span>
  readonly logs: ReadonlyArray<LogRecord>
}

/** Spans and log records grouped by trace id, in first-seen order (those without one together). */
export const groupByTrace = (body: SpanBody): ReadonlyArray<TraceGroup> => {
  const groups = new Map<string, { spans: Array<Span>; logs: Array<LogRecord> }>()
  const groupOf = (traceId: string | undefined) => {
    const key = traceId ?? ""
    let group = groups.get(key)
    if (group === undefined) {
      group = { spans: [], logs: [] }
      groups.set(key, group)
    }
    return group
  }
  for (const span of body.spans) groupOf(span.traceId).spans.push(span)
  for (const log of body.logs) groupOf(log.traceId).logs.push(log)
  return Array.from(groups, ([key, group]) => ({ traceId: key === "" ? null : key, spans: group.spans, logs: group.logs }))
}

const compareTimes = (a: bigint | undefined, b: bigint | undefined): number => {
  if (a === b) return 0
  if (a === undefined) return 1
  if (b === undefined) return -1
  return a < b ? -1 : 1
}
/**
 * Siblings by start time; of two starting together (clocks often tick in milliseconds), the one
 * that ended first goes first: a tool run of no measurable length before the call it fed.
 */
const byStart = (a: Span, b: Span): number => compareTimes(a.startNanos, b.startNanos) || compareTimes(a.endNanos, b.endNanos)
const byStartOnly = (a: Span, b: Span): number => compareTimes(a.startNanos, b.startNanos)

export interface SpanTree {
  /** Roots (no parent, a dangling parent, or where a cycle was broken), by start time. */
  readonly roots: ReadonlyArray<Span>
  readonly childrenOf: (span: Span) => ReadonlyArray<Span>
  readonly parentOf: (span: Span) => Span | undefined
  /** Parent cycles broken (each turns one span of the cycle into a root). */
  readonly cyclesBroken: number
}

/**
 * Arranges one trace's spans into a tree: children by start time, missing and dangling parents
 * making roots, each parent cycle broken at one span (counted). Linear apart from the sorts, and
 * iterative, so a chain of a million spans is fine.
 */
export const buildTree = (spans: ReadonlyArray<Span>): SpanTree => {
  const byId = new Map<string, Span>()
  for (const span of spans) if (!byId.has(span.spanId)) byId.set(span.spanId, span)
  const linkedParent = (span: Span): Span | undefined => (span.parentId === undefined ? undefined : byId.get(span.parentId))

  // Resolve each span's way up: 1 = on the current path, 2 = done. A path that meets itself is a
  // cycle: the span where it closes becomes a root.
  const state = new Map<Span, 1 | 2>()
  const broken = new Set<Span>()
  const path: Array<Span> = []
  for (const span of spans) {
    let current: Span | undefined = span
    while (current !== undefined && state.get(current) === undefined) {
      state.set(current, 1)
      path.push(current)
      current = linkedParent(current)
    }
    if (current !== undefined && state.get(current) === 1) broken.add(current)
    for (const done of path) state.set(done, 2)
    path.length = 0
  }

  const parents = new Map<Span, Span>()
  const children = new Map<Span, Array<Span>>()
  const roots: Array<Span> = []
  for (const span of spans) {
    const parent = broken.has(span) ? undefined : linkedParent(span)
    if (parent === undefined) {
      roots.push(span)
      continue
    }
    parents.set(span, parent)
    const siblings = children.get(parent)
    if (siblings === undefined) children.set(parent, [span])
    else siblings.push(span)
  }
  roots.sort(byStart)
  for (const list of children.values()) if (list.length > 1) list.sort(byStart)
  return {
    roots,
    childrenOf: (span) => children.get(span) ?? NO_SPANS,
    parentOf: (span) => parents.get(span),
    cyclesBroken: broken.size
  }
}
const NO_SPANS: ReadonlyArray<Span> = Object.freeze([])

/** Every span of a tree once, by start time (stable; ties in tree order). */
export const orderSpans = (tree: SpanTree): ReadonlyArray<Span> => {
  const preorder: Array<Span> = []
  walkTree(tree, (span) => preorder.push(span), () => undefined)
  return preorder.sort(byStartOnly)
}

/** Visits a tree depth-first, children by start time: `enter` before a span's children, `exit` after. */
export const walkTree = (tree: SpanTree, enter: (span: Span) => void, exit: (span: Span) => void): void => {
  const stack: Array<{ readonly span: Span; next: number }> = []
  for (const root of tree.roots) {
    enter(root)
    stack.push({ span: root, next: 0 })
    while (stack.length > 0) {
      const frame = stack[stack.length - 1]
      if (frame === undefined) break
      const list = tree.childrenOf(frame.span)
      const child = list[frame.next]
      if (child === undefined) {
        stack.pop()
        exit(frame.span)
        continue
      }
      frame.next++
      enter(child)
      stack.push({ span: child, next: 0 })
    }
  }
}

export interface Step {
  readonly span: Span
  /** True when the span starts here, false when it ends. */
  readonly enter: boolean
  readonly at: bigint | undefined
  /** The step's position in the depth-first tour, which breaks ties in time. */
  readonly seq: number
}

/**
 * A trace's span starts and ends in time order, so overlapping siblings interleave (an agent run
 * inside another agent's tool call, parallel calls). Times are compared to the millisecond (SDKs
 * often record starts in whole milliseconds and ends in nanoseconds, so a span can seem to start
 * before the one it followed has ended); ties, and spans without times (which take their
 * parent's start), keep the depth-first tour's order: a parent starts before its children and
 * ends after them, and a span ends before the next sibling starts.
 */
export const timeline = (tree: SpanTree): ReadonlyArray<Step> => {
  const steps: Array<Step> = []
  const starts = new Map<Span, bigint | undefined>()
  let seq = 0
  walkTree(
    tree,
    (span) => {
      const parent = tree.parentOf(span)
      const at = span.startNanos ?? (parent === undefined ? undefined : starts.get(parent))
      starts.set(span, at)
      steps.push({ span, enter: true, at, seq: seq++ })
    },
    (span) => {
      const start = starts.get(span)
      starts.delete(span)
      const at = span.endNanos !== undefined && (start === undefined || span.endNanos >= start) ? span.endNanos : start
      steps.push({ span, enter: false, at, seq: seq++ })
    }
  )
  const ms = (at: bigint | undefined) => (at === undefined ? undefined : at / NANOS_PER_MS)
  return steps.sort((a, b) => compareTimes(ms(a.at), ms(b.at)) || a.seq - b.seq)
}

// ---------------------------------------------------------------------------------------------
// Values inside attributes

/**
 * Parses a JSON-encoded attribute value (an object or array in a string); anything else is
 * returned as it is.
 */
export const parseJsonish = (value: unknown): unknown => {
  if (typeof value !== "string") return value
  const text = value.trim()
  if (!(text.startsWith("[") || text.startsWith("{"))) return value
  try {
    const parsed: unknown = JSON.parse(text)
    return parsed
  } catch {
    return value
  }
}

/** A value as text: strings verbatim, anything else as compact JSON (undefined and null as ""). */
export const textOf = (value: unknown): string => {
  if (typeof value === "string") return value
  if (value === undefined || value === null) return ""
  return JSON.stringify(value) ?? ""
}

type Tree = Map<string, Tree | unknown>

/**
 * Flattened attributes under a prefix (`llm.input_messages.0.message.role`,
 * `gen_ai.prompt.1.content`) as nested values: numeric segments make arrays (in index order),
 * others objects. A key both a value and a parent keeps the parent.
 */
export const unflatten = (attributes: Attributes, prefix: string): ReadonlyArray<unknown> => {
  const root: Tree = new Map()
  let found = false
  for (const key in attributes) {
    if (!key.startsWith(prefix)) continue
    const segments = key.slice(prefix.length).split(".")
    if (segments.length === 0 || segments[0] === "") continue
    found = true
    let node: Tree = root
    for (let i = 0; i < segments.length - 1; i++) {
      const segment = segments[i] ?? ""
      const next = node.get(segment)
      if (next instanceof Map) node = next
      else {
        const created: Tree = new Map()
        node.set(segment, created)
        node = created
      }
    }
    const leaf = segments[segments.length - 1] ?? ""
    if (!(node.get(leaf) instanceof Map)) node.set(leaf, attributes[key])
  }
  if (!found) return []
  const toValue = (node: unknown): unknown => {
    if (!(node instanceof Map)) return node
    const keys = Array.from(node.keys())
    if (keys.length > 0 && keys.every((key) => /^\d+$/.test(key))) {
      return keys
        .map(Number)
        .sort((a, b) => a - b)
        .map((index) => toValue(node.get(String(index))))
    }
    return Object.fromEntries(keys.map((key) => [key, toValue(node.get(key))]))
  }
  const value = toValue(root)
  return Array.isArray(value) ? value : []
}

// ---------------------------------------------------------------------------------------------
// Chat messages

export type MessageItem =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "thought"; readonly text: string }
  | { readonly type: "tool_call"; readonly id: string | undefined; readonly name: string; readonly args: string }
  | { readonly type: "tool_result"; readonly id: string | undefined; readonly name: string | undefined; readonly text: string; readonly error: boolean }

export interface Message {
  /** The source's role, as written (`user`, `assistant`, `tool`, `human`, an agent's name, ...). */
  readonly role: string
  readonly name: string | undefined
  readonly items: ReadonlyArray<MessageItem>
  readonly source: string
  readonly timestamp: string | undefined
}

const TEXT_PARTS = new Set(["text", "input_text", "output_text"])
const THOUGHT_PARTS = new Set(["reasoning", "thinking", "redacted_thinking"])
const CALL_PARTS = new Set(["tool_call", "function_call", "tool_use", "server_tool_call", "custom_tool_call"])
const RESULT_PARTS = new Set(["tool_call_response", "function_call_output", "tool_result", "server_tool_call_response", "custom_tool_call_output"])

const toolCallItem = (call: Json): MessageItem => {
  const fn = recordAt(call, "function")
  return {
    type: "tool_call",
    id: str(call["call_id"]) ?? str(call["id"]) ?? str(call["tool_call_id"]),
    name: str(fn?.["name"]) ?? str(call["name"]) ?? "",
    args: textOf(first(fn?.["arguments"], call["arguments"], call["args"], call["input"]))
  }
}

/** The items of one content part; unknown part types are counted with `skip`. */
const partItems = (part: unknown, skip: () => void): ReadonlyArray<MessageItem> => {
  if (typeof part === "string") return part.length > 0 ? [{ type: "text", text: part }] : []
  if (!Predicate.isRecord(part)) {
    skip()
    return []
  }
  const type = str(part["type"])
  if (type === undefined || TEXT_PARTS.has(type)) {
    const text = first(part["content"], part["text"])
    if (text === undefined && type === undefined) {
      skip()
      return []
    }
    const content = contentText(text)
    return content.length > 0 ? [{ type: "text", text: content }] : []
  }
  if (THOUGHT_PARTS.has(type)) {
    const content = contentText(first(part["content"], part["text"], part["thinking"], part["summary"]))
    return content.length > 0 ? [{ type: "thought", text: content }] : []
  }
  if (CALL_PARTS.has(type)) return [toolCallItem(part)]
  if (RESULT_PARTS.has(type)) {
    return [
      {
        type: "tool_result",
        id: str(part["call_id"]) ?? str(part["id"]) ?? str(part["tool_use_id"]) ?? str(part["tool_call_id"]),
        name: str(part["name"]),
        text: textOf(first(part["response"], part["result"], part["output"], part["content"])),
        error: part["is_error"] === true
      }
    ]
  }
  if (type === "refusal") return [{ type: "text", text: textOf(part["refusal"]) }]
  skip()
  return []
}

const contentItems = (content: unknown, skip: () => void): ReadonlyArray<MessageItem> => {
  if (content === undefined || content === null) return []
  if (typeof content === "string") return content.length > 0 ? [{ type: "text", text: content }] : []
  if (typeof content === "number" || typeof content === "boolean") return [{ type: "text", text: String(content) }]
  if (Array.isArray(content)) return content.flatMap((part) => partItems(part, skip))
  if (Predicate.isRecord(content) && typeof content["type"] === "string") return partItems(content, skip)
  return [{ type: "text", text: textOf(content) }]
}

const ITEM_ROLES: Readonly<Record<string, string>> = {
  function_call: "assistant",
  custom_tool_call: "assistant",
  reasoning: "assistant",
  function_call_output: "tool",
  custom_tool_call_output: "tool"
}

export interface MessageParts {
  readonly role: string
  readonly name: string | undefined
  readonly items: ReadonlyArray<MessageItem>
}

/**
 * One chat message in any of the common shapes: OTel GenAI `{role, parts}`, OpenAI-style
 * `{role, content, tool_calls, tool_call_id}`, a choice `{index, message}`, a Responses item
 * (`function_call`, `function_call_output`, ...), or a string. Undefined (counted with `skip`)
 * for values that are none of these; content parts of unknown types are counted too.
 */
export const parseMessage = (raw: unknown, defaultRole: string, skip: () => void): MessageParts | undefined => {
  if (typeof raw === "string") return { role: defaultRole, name: undefined, items: raw.length > 0 ? [{ type: "text", text: raw }] : [] }
  if (!Predicate.isRecord(raw)) {
    skip()
    return undefined
  }
  const inner = recordAt(raw, "message")
  if (inner !== undefined && raw["role"] === undefined && raw["parts"] === undefined && raw["content"] === undefined) {
    return parseMessage(inner, defaultRole, skip)
  }
  const itemType = str(raw["type"])
  const role = str(raw["role"]) ?? (itemType === undefined ? undefined : ITEM_ROLES[itemType]) ?? defaultRole
  const items: Array<MessageItem> = []
  if (raw["role"] === undefined && itemType !== undefined && itemType !== "message") {
    items.push(...partItems(raw, skip))
  } else if (Array.isArray(raw["parts"])) {
    for (const part of raw["parts"]) items.push(...partItems(part, skip))
  } else {
    items.push(...contentItems(raw["content"], skip))
  }
  const calls = raw["tool_calls"]
  if (Array.isArray(calls)) {
    for (const call of calls) {
      if (Predicate.isRecord(call)) items.push(toolCallItem(call))
      else skip()
    }
  }
  const name = str(raw["name"])
  if (roleOf(role) === "tool") {
    const id = str(raw["tool_call_id"]) ?? str(raw["id"]) ?? str(raw["call_id"])
    return {
      role,
      name,
      items: items.map((item) => (item.type === "text" ? { type: "tool_result", id, name, text: item.text, error: false } : item))
    }
  }
  return { role, name, items }
}

/** Parses a list of messages (an array, or a JSON string of one); a lone message or string counts as one. */
export const parseMessages = (value: unknown, defaultRole: string, skip: () => void): ReadonlyArray<MessageParts> => {
  const parsed = parseJsonish(value)
  if (parsed === undefined || parsed === null || parsed === "") return []
  const list = Array.isArray(parsed) ? parsed : [parsed]
  const messages: Array<MessageParts> = []
  for (const raw of list) {
    const message = parseMessage(raw, defaultRole, skip)
    if (message !== undefined) messages.push(message)
  }
  return messages
}

/** A model call's messages: what it was given and what it answered. */
export interface ModelCall {
  readonly input: ReadonlyArray<Message>
  readonly output: ReadonlyArray<Message>
}

/** Parsed messages with their pointers (`source(i)` for the i-th) and one timestamp. */
export const stampMessages = (parts: ReadonlyArray<MessageParts>, source: (index: number) => string, timestamp: string | undefined): Array<Message> =>
  parts.map((message, i) => ({ role: message.role, name: message.name, items: message.items, source: source(i), timestamp }))

/** The first non-blank text of the messages (of those with the given role, when one is given). */
export const firstText = (messages: ReadonlyArray<Message>, role?: string): string | undefined => {
  for (const message of messages) {
    if (role !== undefined && message.role !== role) continue
    for (const item of message.items) if (item.type === "text" && item.text.trim().length > 0) return item.text
  }
  return undefined
}

const ROLE_WORDS: Readonly<Record<string, ActorRole>> = {
  user: "user",
  human: "user",
  system: "system",
  developer: "system",
  assistant: "agent",
  ai: "agent",
  model: "agent",
  bot: "agent",
  agent: "agent",
  "tool-call": "agent",
  tool: "tool",
  function: "tool",
  ipython: "tool",
  "tool-response": "tool"
}
/** The actor role of a source role; other names (an agent's name as role) are agents. */
export const roleOf = (role: string): ActorRole => ROLE_WORDS[role.toLowerCase()] ?? "agent"

/** The canonical form of tool-call arguments, so `{"a": 1}` and `{"a":1}` match. */
const canonicalArgs = (args: string): string => {
  const parsed = parseJsonish(args)
  return typeof parsed === "string" ? parsed.trim() : JSON.stringify(parsed) ?? ""
}

// ---------------------------------------------------------------------------------------------
// Building traces from spans

export interface ToolExecution {
  readonly id: string | undefined
  readonly name: string
  readonly args: string | undefined
  readonly actor: string
  readonly source: string
  readonly timestamp: string | undefined
}

export interface ToolOutcome {
  readonly name: string
  readonly id: string | undefined
  readonly result: string | undefined
  readonly error: string | undefined
  readonly source: string
  readonly timestamp: string | undefined
}

/** What an importer gets for one trace: the tree, the builder, and the shared event logic. */
export interface TraceSession {
  readonly traceId: string | null
  readonly tree: SpanTree
  readonly builder: TraceBuilder
  /** Log records linked to this span by span id (in record order). */
  readonly logsOf: (span: Span) => ReadonlyArray<LogRecord>
  /** Counts an unreadable record. */
  readonly skip: () => void
  /** The agent of the nearest agent span above this span (`undefined` when none). */
  readonly agentAbove: (span: Span) => string | undefined
  /**
   * Adds a model call's messages: on entering its span the input (`output` empty), on leaving it
   * input and output together, so `addHistory` counts repeats within the call correctly. Tool
   * calls in `output` wait for the tool execution that runs them.
   */
  readonly addCall: (input: ReadonlyArray<Message>, output: ReadonlyArray<Message>, actor: string) => void
  /** A tool span starting: adds its tool call unless a model's output already holds it. */
  readonly toolStart: (execution: ToolExecution) => void
  /** A tool span ending: its result (or error, as kind `error`). */
  readonly toolEnd: (outcome: ToolOutcome) => void
  readonly error: (content: string, actor: string, source: string, timestamp: string | undefined) => void
  /** A handoff; one with the same from/to right after an explicit one is not repeated. */
  readonly handoff: (from: string, to: string, content: string, source: string, timestamp: string | undefined, explicit: boolean) => void
  /** Records a span's status for `success` (roots and agents decide failure). */
  readonly noteStatus: (span: Span, isAgent: boolean) => void
  /** The root span's input, used as the task when no user message was read. */
  readonly rootInput: (text: string) => void
  /** The root span's output, used as the outcome when no agent message was read. */
  readonly rootOutput: (text: string) => void
}

export interface SpanInterpreter {
  /** The agent a span stands for, when it is an agent span with a name. */
  readonly agentName: (span: Span) => string | undefined
  readonly enter: (span: Span, session: TraceSession) => void
  readonly exit: (span: Span, session: TraceSession) => void
  /** Log records of this trace whose span is not in the body, in groups by span id. */
  readonly orphanLogs?: (logs: ReadonlyArray<LogRecord>, session: TraceSession) => void
}

const messageEvents = (
  messages: ReadonlyArray<Message>,
  actor: string,
  toolNames: Map<string, string>
): Array<EventInput> => {
  const events: Array<EventInput> = []
  for (const message of messages) {
    const role = roleOf(message.role)
    const speaker = role === "user" ? "user" : role === "system" ? "system" : role === "agent" ? agentName(message, actor) : undefined
    const { source, timestamp } = message
    for (const item of message.items) {
      switch (item.type) {
        case "text":
          if (role === "tool") {
            const tool = message.name
            events.push({ source, timestamp, actor: tool ?? "tool", role: "tool", kind: "tool_result", content: item.text, tool })
          } else {
            events.push({ source, timestamp, actor: speaker ?? actor, role, kind: "message", content: item.text, tool: undefined })
          }
          break
        case "thought":
          events.push({ source, timestamp, actor: speaker ?? actor, role: "agent", kind: "thought", content: item.text, tool: undefined })
          break
        case "tool_call":
          if (item.id !== undefined && item.name.length > 0) toolNames.set(item.id, item.name)
          events.push({
            source,
            timestamp,
            actor: role === "agent" ? speaker ?? actor : actor,
            role: "agent",
            kind: "tool_call",
            content: item.args,
            tool: item.name
          })
          break
        case "tool_result": {
          const tool = item.name ?? (item.id === undefined ? undefined : toolNames.get(item.id)) ?? message.name
          events.push({ source, timestamp, actor: tool ?? "tool", role: "tool", kind: item.error ? "error" : "tool_result", content: item.text, tool })
          break
        }
      }
    }
  }
  return events
}
const agentName = (message: Message, actor: string): string => {
  const role = message.role.toLowerCase()
  if (ROLE_WORDS[role] === undefined) return message.role
  return message.name ?? actor
}

/**
 * Reads a span body into normalized traces, one per trace id in first-seen order, with the
 * importer's interpretation of each span. Traces without any event are dropped; a body with none
 * at all is a Left.
 */
export const readSpanTraces = (
  body: unknown,
  interpreter: SpanInterpreter,
  what: string
): Either.Either<ReadonlyArray<NormalizedTrace>, string> => {
  const read = readSpanBody(body)
  if (read.spans.length === 0 && read.logs.length === 0) return Either.left(`no ${what} spans or log records found`)
  const traces: Array<NormalizedTrace> = []
  let carried = read.skipped
  for (const group of groupByTrace(read)) {
    const trace = readGroup(group, interpreter)
    if (trace.events.length === 0) {
      carried += group.spans.length + group.logs.length
      continue
    }
    traces.push(trace)
  }
  const head = traces[0]
  if (head === undefined) return Either.left(`no ${what} content (messages, tool calls, errors) in ${read.spans.length} spans and ${read.logs.length} log records`)
  traces[0] = { ...head, skipped: head.skipped + carried }
  return Either.right(traces)
}

const readGroup = (group: TraceGroup, interpreter: SpanInterpreter): NormalizedTrace => {
  const builder = makeTraceBuilder(group.traceId)
  const tree = buildTree(group.spans)
  builder.skip(tree.cyclesBroken)
  const byId = new Set(group.logs.length === 0 ? [] : group.spans.map((span) => span.spanId))
  const spanLogs = new Map<string, Array<LogRecord>>()
  const orphans = new Map<string, Array<LogRecord>>()
  for (const log of group.logs) {
    const target = log.spanId !== undefined && byId.has(log.spanId) ? spanLogs : orphans
    const key = log.spanId ?? ""
    const list = target.get(key)
    if (list === undefined) target.set(key, [log])
    else list.push(log)
  }

  // The nearest agent at or above each span, filled top-down.
  const nearestAgent = new Map<Span, string | undefined>()
  walkTree(
    tree,
    (span) => {
      const parent = tree.parentOf(span)
      nearestAgent.set(span, interpreter.agentName(span) ?? (parent === undefined ? undefined : nearestAgent.get(parent)))
    },
    () => undefined
  )
  const toolNames = new Map<string, string>()
  const seenCallIds = new Set<string>()
  const pending = new Map<string, Array<{ readonly id: string | undefined; readonly args: string }>>()
  const seenResultIds = new Set<string>()
  const linkedIds = new Map<string, string>()
  // Tool calls and results that tool spans added: the same ids in a model's history are not repeated.
  const spanCallIds = new Set<string>()
  const spanResultIds = new Set<string>()
  const withoutSpanItems = (messages: ReadonlyArray<Message>): ReadonlyArray<Message> => {
    if (spanCallIds.size === 0 && spanResultIds.size === 0) return messages
    return messages.map((message) => ({
      ...message,
      items: message.items.filter(
        (item) =>
          !(item.type === "tool_call" && item.id !== undefined && spanCallIds.has(item.id)) &&
          !(item.type === "tool_result" && item.id !== undefined && spanResultIds.has(item.id))
      )
    }))
  }
  // A call's input is read on entering its span and again, with its output, on leaving it: the
  // events are made once while the span-linked tool ids are unchanged.
  const inputMemo = new WeakMap<ReadonlyArray<Message>, { readonly actor: string; readonly ids: number; readonly events: Array<EventInput> }>()
  const inputEventsOf = (input: ReadonlyArray<Message>, actor: string): Array<EventInput> => {
    const ids = spanCallIds.size * 65_536 + spanResultIds.size
    const memo = inputMemo.get(input)
    if (memo !== undefined && memo.actor === actor && memo.ids === ids) return memo.events
    const events = messageEvents(withoutSpanItems(input), actor, toolNames)
    inputMemo.set(input, { actor, ids, events })
    return events
  }
  let lastHandoff: string | undefined
  let sawUser = false
  let sawAgentMessage = false
  let rootInput: string | undefined
  let rootOutput: string | undefined
  let failed = false
  let errored = false
  const rootStatuses: Array<StatusCode> = []
  const roots = new Set(tree.roots)

  const track = (events: ReadonlyArray<EventInput>) => {
    for (const event of events) {
      if (event.kind === "message" && event.role === "user") sawUser = true
      if (event.kind === "message" && event.role === "agent") sawAgentMessage = true
      if (event.kind === "error") errored = true
    }
  }

  const session: TraceSession = {
    traceId: group.traceId,
    tree,
    builder,
    logsOf: (span) => spanLogs.get(span.spanId) ?? [],
    skip: () => builder.skip(),
    agentAbove: (span) => {
      const parent = tree.parentOf(span)
      return parent === undefined ? undefined : nearestAgent.get(parent)
    },
    addCall: (input, output, actor) => {
      const inputEvents = inputEventsOf(input, actor)
      const outputEvents = messageEvents(withoutSpanItems(output), actor, toolNames)
      const batch = outputEvents.length === 0 ? inputEvents : [...inputEvents, ...outputEvents]
      track(batch)
      builder.addHistory(batch)
      for (const message of input) {
        for (const item of message.items) {
          if (item.type === "tool_call" && item.id !== undefined) seenCallIds.add(item.id)
          if (item.type === "tool_result" && item.id !== undefined) seenResultIds.add(item.id)
        }
      }
      for (const message of output) {
        for (const item of message.items) {
          if (item.type === "tool_result" && item.id !== undefined) seenResultIds.add(item.id)
          if (item.type !== "tool_call") continue
          if (item.id !== undefined) {
            if (seenCallIds.has(item.id)) continue
            seenCallIds.add(item.id)
          }
          const queue = pending.get(item.name)
          const entry = { id: item.id, args: canonicalArgs(item.args) }
          if (queue === undefined) pending.set(item.name, [entry])
          else queue.push(entry)
        }
      }
    },
    toolStart: (execution) => {
      const queue = pending.get(execution.name)
      const args = execution.args === undefined ? undefined : canonicalArgs(execution.args)
      let match = -1
      if (queue !== undefined && queue.length > 0) {
        match = execution.id === undefined ? -1 : queue.findIndex((entry) => entry.id === execution.id)
        if (match < 0 && args !== undefined) match = queue.findIndex((entry) => entry.args === args)
        if (match < 0 && execution.id === undefined) match = 0
      }
      if (match >= 0 && queue !== undefined) {
        const [entry] = queue.splice(match, 1)
        const id = execution.id ?? entry?.id
        if (id !== undefined) linkedIds.set(execution.source, id)
        return
      }
      if (execution.id !== undefined) linkedIds.set(execution.source, execution.id)
      if (execution.id !== undefined && seenCallIds.has(execution.id)) return
      if (execution.id !== undefined) {
        seenCallIds.add(execution.id)
        spanCallIds.add(execution.id)
        toolNames.set(execution.id, execution.name)
      }
      builder.add({
        actor: execution.actor,
        role: "agent",
        kind: "tool_call",
        content: execution.args ?? "",
        tool: execution.name,
        source: execution.source,
        timestamp: execution.timestamp
      })
    },
    toolEnd: (outcome) => {
      if (outcome.error !== undefined) errored = true
      const content = outcome.error ?? outcome.result
      const id = outcome.id ?? linkedIds.get(outcome.source)
      linkedIds.delete(outcome.source)
      if (content === undefined) return
      if (id !== undefined) {
        if (seenResultIds.has(id) && outcome.error === undefined) return
        seenResultIds.add(id)
        spanResultIds.add(id)
      }
      builder.add({
        actor: outcome.name,
        role: "tool",
        kind: outcome.error === undefined ? "tool_result" : "error",
        content,
        tool: outcome.name,
        source: outcome.source,
        timestamp: outcome.timestamp
      })
    },
    error: (content, actor, source, timestamp) => {
      errored = true
      builder.add({ actor, role: "agent", kind: "error", content, source, timestamp })
    },
    handoff: (from, to, content, source, timestamp, explicit) => {
      const key = `${from}\u0000${to}`
      if (!explicit && lastHandoff === key) {
        lastHandoff = undefined
        return
      }
      lastHandoff = explicit ? key : undefined
      builder.add({ actor: from, role: "agent", kind: "handoff", content, to, source, timestamp })
    },
    noteStatus: (span, isAgent) => {
      const isRoot = roots.has(span)
      if (isRoot) rootStatuses.push(span.status.code)
      if (span.status.code === "error") {
        errored = true
        if (isRoot || isAgent) failed = true
      }
      if (span.events.some((event) => event.name === "exception")) errored = true
    },
    rootInput: (text) => {
      if (rootInput === undefined && text.trim().length > 0) rootInput = text
    },
    rootOutput: (text) => {
      if (text.trim().length > 0) rootOutput = text
    }
  }

  // Span starts and ends in time order, with the groups of orphan log records merged in by time.
  const orphanGroups = Array.from(orphans.values())
  orphanGroups.sort((a, b) => compareTimes(a[0]?.timeNanos, b[0]?.timeNanos))
  let nextOrphan = 0
  const orphanLogs = interpreter.orphanLogs
  const runOrphansBefore = (at: bigint | undefined) => {
    while (nextOrphan < orphanGroups.length) {
      const logs = orphanGroups[nextOrphan]
      if (logs === undefined || compareTimes(logs[0]?.timeNanos, at) > 0 || (at === undefined && logs[0]?.timeNanos === undefined)) return
      nextOrphan++
      if (orphanLogs === undefined) builder.skip(logs.length)
      else orphanLogs(logs, session)
    }
  }
  for (const step of timeline(tree)) {
    runOrphansBefore(step.at)
    if (step.enter) interpreter.enter(step.span, session)
    else interpreter.exit(step.span, session)
  }
  while (nextOrphan < orphanGroups.length) {
    const logs = orphanGroups[nextOrphan++]
    if (logs === undefined) continue
    if (orphanLogs === undefined) builder.skip(logs.length)
    else orphanLogs(logs, session)
  }

  if (!sawUser && rootInput !== undefined) builder.setTask(rootInput)
  if (!sawAgentMessage && rootOutput !== undefined) builder.setOutcome(rootOutput)
  if (failed) builder.setSuccess(false)
  else if (!errored && rootStatuses.length > 0 && rootStatuses.every((code) => code === "ok")) builder.setSuccess(true)
  return builder.build()
}

/** `span:<id>` and its message pointers. */
export const spanSource = (span: Span, part?: string): string => (part === undefined ? `span:${span.spanId}` : `span:${span.spanId}/${part}`)

/** The text of an `exception` event: `type: message`, or whichever of the two is present. */
export const exceptionText = (event: SpanEvent): string | undefined => {
  const type = str(event.attributes["exception.type"])
  const message = str(event.attributes["exception.message"])
  if (message !== undefined) return type === undefined ? message : `${type}: ${message}`
  return type
}

/**
 * What went wrong in a span, when something did: its `exception` events' texts, else (on an
 * ERROR status) the status message, the `error.type` attribute, or `ERROR`.
 */
export const spanErrorText = (span: Span): string | undefined => {
  const texts: Array<string> = []
  for (const event of span.events) {
    if (event.name !== "exception") continue
    const text = exceptionText(event)
    if (text !== undefined) texts.push(text)
  }
  if (texts.length > 0) return texts.join("\n")
  if (span.status.code !== "error") return undefined
  return span.status.message ?? str(span.attributes["error.type"]) ?? "ERROR"
}

/** A span's `exception` events as error events, or its ERROR status when it has none. */
export const addSpanErrors = (span: Span, actor: string, session: TraceSession): void => {
  let found = false
  for (const event of span.events) {
    if (event.name !== "exception") continue
    const text = exceptionText(event)
    if (text === undefined) continue
    found = true
    session.error(text, actor, spanSource(span), isoOf(event.timeNanos) ?? isoOf(span.endNanos))
  }
  if (!found && span.status.code === "error") {
    session.error(span.status.message ?? str(span.attributes["error.type"]) ?? "ERROR", actor, spanSource(span), isoOf(span.endNanos))
  }
}
