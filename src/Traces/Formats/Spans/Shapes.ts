/**
 * The span shapes every span format is read into (DECISIONS §12): spans, their events and status,
 * log records, and a body's records.
 */
import type { Attributes } from "./Attributes.js"

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

