/**
 * What a span format's interpreter is given and gives (DECISIONS §12): the session of one trace
 * (tree, builder, and the shared event logic: model calls, tool executions, errors, handoffs,
 * status), the interpreter's hooks, and the span helpers every interpreter uses (source
 * pointers, exception and error texts).
 */
import type { CallFacts, EventFacts, TraceBuilder } from "../../Builder.js"
import { str } from "../Common.js"
import type { Message } from "./Messages.js"
import type { LogRecord, Span, SpanEvent } from "./Shapes.js"
import { isoOf } from "./Times.js"
import type { SpanTree } from "./Tree.js"

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
  /** The execution's status and duration (`spanFacts`). */
  readonly facts: CallFacts
}

/** Where a model call stands, for the empty event that keeps it when it recorded no output. */
export interface CallPlace {
  readonly facts: CallFacts
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
  readonly addCall: (input: ReadonlyArray<Message>, output: ReadonlyArray<Message>, actor: string, call?: CallPlace) => void
  /** A model call that recorded no output: an empty message of `actor` carrying its facts (DECISIONS §23). */
  readonly callWithoutContent: (actor: string, call: CallPlace) => void
  /** A tool span starting: adds its tool call unless a model's output already holds it. */
  readonly toolStart: (execution: ToolExecution) => void
  /** A tool span ending: its result (or error, as kind `error`). */
  readonly toolEnd: (outcome: ToolOutcome) => void
  readonly error: (content: string, actor: string, source: string, timestamp: string | undefined, facts?: EventFacts) => void
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


/** `span:<id>` and its message pointers. */
export const spanSource = (span: Span, part?: string): string => (part === undefined ? `span:${span.spanId}` : `span:${span.spanId}/${part}`)

/** The span id of a source `spanSource` wrote (`span:<id>`, `span:<id>/input[2]`); undefined for any other source. */
export const spanIdOfSource = (source: string): string | undefined => /^span:([^/]+)/.exec(source)?.[1]

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

const NANOS_PER_MS = 1_000_000

/** A span's duration in milliseconds, when it has both times in order. */
export const durationOf = (span: Span): number | undefined =>
  span.startNanos === undefined || span.endNanos === undefined || span.endNanos < span.startNanos ? undefined : Number(span.endNanos - span.startNanos) / NANOS_PER_MS

/** A span's error code: `error.type`, else the HTTP status it answered with. */
const errorCodeOf = (span: Span): string | undefined => {
  const status = span.attributes["http.response.status_code"] ?? span.attributes["http.status_code"]
  return str(span.attributes["error.type"]) ?? (typeof status === "number" || typeof status === "string" ? str(String(status)) : undefined)
}

/**
 * What a span says of how it went (DECISIONS §23): `ok` or `error` when its status says so
 * explicitly (an `exception` event is an error too; UNSET says nothing), its error's code and
 * message, and its duration.
 */
export const spanFacts = (span: Span): CallFacts => {
  const exception = span.events.find((event) => event.name === "exception")
  const failed = span.status.code === "error" || exception !== undefined
  return {
    status: failed ? "error" : span.status.code === "ok" ? "ok" : undefined,
    status_code: failed ? str(exception?.attributes["exception.type"]) ?? errorCodeOf(span) : undefined,
    status_message: failed ? span.status.message ?? str(exception?.attributes["exception.message"]) : undefined,
    duration_ms: durationOf(span)
  }
}

/**
 * A span's `exception` events as error events, or its ERROR status when it has none; each error
 * says `status: error` with its code and message. `facts`, a failed model call's, go on the first.
 */
export const addSpanErrors = (span: Span, actor: string, session: TraceSession, facts?: CallFacts): void => {
  let found = false
  const statusFacts = (code: string | undefined, message: string | undefined): EventFacts => ({
    ...(found ? {} : facts),
    status: "error",
    status_code: code,
    status_message: message
  })
  for (const event of span.events) {
    if (event.name !== "exception") continue
    const text = exceptionText(event)
    if (text === undefined) continue
    session.error(text, actor, spanSource(span), isoOf(event.timeNanos) ?? isoOf(span.endNanos), statusFacts(str(event.attributes["exception.type"]), str(event.attributes["exception.message"])))
    found = true
  }
  if (!found && span.status.code === "error") {
    session.error(span.status.message ?? str(span.attributes["error.type"]) ?? "ERROR", actor, spanSource(span), isoOf(span.endNanos), statusFacts(errorCodeOf(span), span.status.message))
  }
}
