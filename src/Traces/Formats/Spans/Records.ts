/**
 * Span records (DECISIONS §12): every span and log record of a body in one of the supported
 * container shapes (OTLP/JSON traces and logs, span lists as SDKs write them, wrappers such as
 * `{spans: [...]}` and ADOT's `{session_id, span_count, spans}`, a single span), with ids,
 * statuses, kinds and times read from each shape's own field names.
 */
import * as Predicate from "effect/Predicate"
import { str } from "../Common.js"
import { attributesOf, bodyOf, EMPTY, first, recordAt, type Attributes, type Json } from "./Attributes.js"
import type { LogRecord, Span, SpanBody, SpanEvent, SpanStatus, StatusCode } from "./Shapes.js"
import { nanosOf } from "./Times.js"

const NO_EVENTS: ReadonlyArray<SpanEvent> = Object.freeze([])
const STATUS_UNSET: SpanStatus = Object.freeze({ code: "unset" })
const STATUS_OK: SpanStatus = Object.freeze({ code: "ok" })
const STATUS_ERROR: SpanStatus = Object.freeze({ code: "error" })

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

export const scopeNameOf = (record: Json): string | undefined =>
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

export const hasOtlpKeys = (record: Json): boolean => "resourceSpans" in record || "resourceLogs" in record

/** A record that is a span on its own (not a container): it has an id or a span context. */
export const looksLikeSpan = (record: Json): boolean =>
  "span_id" in record || "spanId" in record || Predicate.isRecord(record["spanContext"]) || Predicate.isRecord(record["context"])

/** A span's GenAI operation (`gen_ai.operation.name`), lower-cased; "" when it names none. */
export const operationOf = (span: Span): string => {
  const operation = span.attributes["gen_ai.operation.name"]
  return typeof operation === "string" ? operation.toLowerCase() : ""
}

/**
 * The entity an OpenLLMetry span stands for, when it is one of the given kind: the spans its
 * `withTool` / `withAgent` (and `withTask`, `withWorkflow`) wrappers make carry
 * `traceloop.span.kind` (`tool`, `agent`, `task`, `workflow`) and `traceloop.entity.name`, named
 * `<name>.<kind>`; content on or off (read from @traceloop/node-server-sdk 0.27.0 and its exported
 * spans). The entity's name, else the span name before `.<kind>`; undefined for any other span.
 */
export const traceloopEntityOf = (span: Span, kind: "tool" | "agent"): string | undefined => {
  const spanKind = span.attributes["traceloop.span.kind"]
  if (typeof spanKind !== "string" || spanKind.toLowerCase() !== kind) return undefined
  const name = str(span.attributes["traceloop.entity.name"])
  if (name !== undefined) return name
  const suffix = `.${kind}`
  return span.name.endsWith(suffix) && span.name.length > suffix.length ? span.name.slice(0, -suffix.length) : kind
}

/**
 * One span's attribute map sent on its own (as instrumentations' and converters' tests write a
 * span): no span fields, and at least two GenAI (`gen_ai.*`) or OpenInference
 * (`openinference.span.kind`, `llm.*`) attribute keys. Read as the attributes of one span.
 */
export const isAttributeMap = (record: Json): boolean => {
  if ("attributes" in record || "spans" in record || "name" in record || looksLikeSpan(record)) return false
  let attributes = 0
  for (const key in record) {
    if (key.startsWith("gen_ai.") || key === "openinference.span.kind" || key.startsWith("llm.")) attributes += 1
    if (attributes >= 2) return true
  }
  return false
}

/**
 * Reads every span and log record of a body in one of the supported container shapes. Never
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
    else if (isAttributeMap(value)) spans.push(readSpan({ attributes: value }, spans.length, PLAIN, counter))
  }

  readTop(body, false)
  return { spans, logs, skipped: counter.skipped }
}

