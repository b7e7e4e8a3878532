/**
 * OTLP's messages in one form (DECISIONS §18): the OTLP/JSON form, whichever encoding they arrived
 * in. Protobuf is decoded into this form (Proto.ts) and JSON is checked into it (Json.ts), so both
 * encodings of the same spans are the same objects from here on: the pending spans kept in the
 * store are these, and a completed trace is handed to the span readers as an OTLP/JSON document
 * (`OtlpDocument`: `resourceSpans`, `resourceLogs`), the format they already read. What the service
 * writes in OTLP (a diagnose's `gen_ai.evaluation.result` records, Diagnose/Render/Otlp.ts) is made
 * of the same values.
 *
 * The form's rules (OTLP/JSON): trace and span ids are lowercase hex (32 and 16 digits; empty when
 * absent), 64-bit integers are decimal strings, enums are integers, field names lowerCamelCase.
 * Absent optional fields are absent, not defaults.
 */

/**
 * AnyValue nesting accepted (arrays and kvlists in values); deeper is refused, in both encodings.
 * Here, not in Proto.ts, so the JSON side does not load the protobuf codec (loaded on first use).
 */
export const MAX_ANY_VALUE_DEPTH = 64

/** An attribute's value: one of OTLP's AnyValue cases (an empty object: no value). */
export type AnyValue =
  | { readonly stringValue: string }
  | { readonly boolValue: boolean }
  | { readonly intValue: string }
  | { readonly doubleValue: number }
  | { readonly arrayValue: { readonly values: ReadonlyArray<AnyValue> } }
  | { readonly kvlistValue: { readonly values: ReadonlyArray<KeyValue> } }
  /** Base64, as OTLP/JSON writes bytes. */
  | { readonly bytesValue: string }
  | Readonly<Record<string, never>>

export interface KeyValue {
  readonly key: string
  readonly value: AnyValue
}

/** The key of each AnyValue case (its object's one key). */
type AnyValueCase = AnyValue extends infer Case ? Case extends Readonly<Record<string, never>> ? never : keyof Case : never
const CASES: { readonly [Case in AnyValueCase]: true } = {
  stringValue: true,
  boolValue: true,
  intValue: true,
  doubleValue: true,
  arrayValue: true,
  kvlistValue: true,
  bytesValue: true
}
/** Every AnyValue case's key, compiler-checked against the type: how a reader of untyped JSON tells an AnyValue. */
export const ANY_VALUE_CASES: ReadonlySet<string> = new Set(Object.keys(CASES))

export const stringValue = (value: string): AnyValue => ({ stringValue: value })
export const boolValue = (value: boolean): AnyValue => ({ boolValue: value })
/** An integer, truncated, as OTLP/JSON writes 64-bit integers: a decimal string. */
export const intValue = (value: number): AnyValue => ({ intValue: String(Math.trunc(value)) })
export const doubleValue = (value: number): AnyValue => ({ doubleValue: value })
export const arrayValue = (values: ReadonlyArray<AnyValue>): AnyValue => ({ arrayValue: { values } })

export interface Resource {
  readonly attributes: ReadonlyArray<KeyValue>
  readonly droppedAttributesCount?: number
}

export interface InstrumentationScope {
  readonly name: string
  readonly version?: string
  readonly attributes?: ReadonlyArray<KeyValue>
}

export interface SpanEvent {
  readonly timeUnixNano: string
  readonly name: string
  readonly attributes: ReadonlyArray<KeyValue>
  readonly droppedAttributesCount?: number
}

export interface SpanLink {
  readonly traceId: string
  readonly spanId: string
  readonly traceState?: string
  readonly attributes: ReadonlyArray<KeyValue>
  readonly flags?: number
}

export interface SpanStatus {
  /** 0 unset, 1 ok, 2 error. */
  readonly code?: number
  readonly message?: string
}

export interface Span {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly traceState?: string
  /** W3C trace flags in bits 0-7; bits 8 and 9: whether the parent is known to be remote, and is. */
  readonly flags?: number
  readonly name: string
  /** 0 unspecified, 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  readonly kind?: number
  readonly startTimeUnixNano: string
  readonly endTimeUnixNano: string
  readonly attributes: ReadonlyArray<KeyValue>
  readonly droppedAttributesCount?: number
  readonly events: ReadonlyArray<SpanEvent>
  readonly droppedEventsCount?: number
  readonly links: ReadonlyArray<SpanLink>
  readonly droppedLinksCount?: number
  readonly status?: SpanStatus
}

export interface ScopeSpans {
  readonly scope?: InstrumentationScope
  readonly spans: ReadonlyArray<Span>
  readonly schemaUrl?: string
}

export interface ResourceSpans {
  readonly resource?: Resource
  readonly scopeSpans: ReadonlyArray<ScopeSpans>
  readonly schemaUrl?: string
}

/** `ExportTraceServiceRequest`. */
export interface TracesRequest {
  readonly resourceSpans: ReadonlyArray<ResourceSpans>
}

export interface LogRecord {
  readonly timeUnixNano?: string
  readonly observedTimeUnixNano?: string
  readonly severityNumber?: number
  readonly severityText?: string
  readonly body?: AnyValue
  readonly attributes: ReadonlyArray<KeyValue>
  readonly droppedAttributesCount?: number
  readonly flags?: number
  /** Empty when the record has no trace context. */
  readonly traceId: string
  readonly spanId: string
  readonly eventName?: string
}

export interface ScopeLogs {
  readonly scope?: InstrumentationScope
  readonly logRecords: ReadonlyArray<LogRecord>
  readonly schemaUrl?: string
}

export interface ResourceLogs {
  readonly resource?: Resource
  readonly scopeLogs: ReadonlyArray<ScopeLogs>
  readonly schemaUrl?: string
}

/** `ExportLogsServiceRequest`. */
export interface LogsRequest {
  readonly resourceLogs: ReadonlyArray<ResourceLogs>
}

/** A trace's spans and log records in one OTLP/JSON document: what the span readers take of a trace the assembly completed. */
export interface OtlpDocument extends TracesRequest, LogsRequest {}

/** `ExportMetricsServiceRequest`, as far as the receiver reads it: metrics are counted and discarded. */
export interface MetricsRequest {
  readonly dataPoints: number
}

/** The `partialSuccess` of an `Export…ServiceResponse`: what was refused, and why. */
export interface PartialSuccess {
  /** Spans, log records or data points refused. */
  readonly rejected: number
  /** Empty when nothing was refused. */
  readonly errorMessage: string
}

/** The three OTLP/HTTP signals. */
export type Signal = "traces" | "logs" | "metrics"

/** The encodings OTLP/HTTP speaks: its protobuf binary, and OTLP/JSON. */
export type Encoding = "protobuf" | "json"
