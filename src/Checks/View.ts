/**
 * What the checks read of a trace (DECISIONS §23): the normalized events, and an index built once in
 * one pass (the tool calls with their results and errors, the final answer, the declared tools).
 * Every read a check makes goes through the view and is counted, so tests show each check's work is
 * linear in the events.
 */
import type { NormalizedTrace, TraceEvent } from "../Traces/Model.js"

/** One tool call: the call's event, and the events that answer it (results and errors), by call id or, without ids, in order per tool. */
export interface ToolCall {
  readonly tool: string
  readonly callId: string | undefined
  /** The call's event; undefined when only its result is in the trace. */
  readonly call: number | undefined
  /** Its results and errors, in order. */
  readonly answers: ReadonlyArray<number>
}

export interface TraceView {
  readonly trace: NormalizedTrace
  readonly length: number
  /** Every event in order. */
  readonly scan: (visit: (event: TraceEvent, index: number) => void) => void
  /** One event. */
  readonly at: (index: number) => TraceEvent | undefined
  /** Every tool call in the order it was made (or answered, when the call itself is missing). */
  readonly eachCall: (visit: (call: ToolCall) => void) => void
  /** The agent's last message with text after its last tool call: what the run answered; undefined when it answered nothing. */
  readonly finalAnswer: number | undefined
  /** The last agent event (a message, with or without text), where a run that ends ends. */
  readonly lastAgentEvent: number | undefined
  /** The tools the trace declares; undefined when it declares none. */
  readonly declaredTools: ReadonlySet<string> | undefined
  /** True when the event at `index` stands for something that failed (`isError`), read once however many checks ask. */
  readonly failed: (index: number) => boolean
  /** How many events of a kind the trace holds (counted as the view is built). */
  readonly countOf: (kind: TraceEvent["kind"]) => number
  /** Events read so far through this view. */
  readonly visits: () => number
}

/**
 * A tool result's text that reports a failure, for formats that keep no status (Chat Completions'
 * tool messages, plain logs), as SDKs write a raised exception into it: it starts with
 * `Error`/`Exception`/`Traceback` or a validation error's count; or with an exception's type
 * (`ReadTimeout: …`, `requests.exceptions.ConnectionError(…)`, `SMTPRecipientsRefused: …`); or with
 * a type in CamelCase whose first line says what failed (`UndefinedTable: relation "x" does not
 * exist`: "GitHub: 894 stars" is no failure); or is JSON whose `error` is set or whose `status` is
 * an HTTP error.
 */
const ERROR_TEXT = /^\s*(?:\[?error\]?\b|exception\b|traceback \(most recent call last\)|[a-z_.]*(?:error|exception):|\d+ validation errors? for\b)/i
/** The text's first token, with an exception's module path (`requests.exceptions.ReadTimeout`); `<` for a repr (`<HttpError 403 …>`). */
const LEADING = /^\s*<?([A-Za-z_][\w.]{0,120})/
const TYPE_NAME = /^[A-Z][A-Za-z0-9]*(?:Error|Exception|Timeout|Refused|Denied|Exceeded|Disconnected|Failure|Failed|Fault|NotFound|Unavailable|Forbidden|Unauthorized|Interrupted|Aborted)$/
const CAMEL_CASE = /^[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+$/
const SAYS_FAILED = /\b(?:does not exist|not found|no such|denied|refused|timed out|failed|invalid|unavailable|forbidden|unauthori[sz]ed|cannot|can't|could not|unable)\b/

/** The text starts with an exception: a type by its name (`ReadTimeout: …`, `ConnectionError(…)`), or a CamelCase type whose first line says what failed. */
const startsWithException = (text: string): boolean => {
  const match = LEADING.exec(text)
  const token = match?.[1]
  if (match === null || token === undefined) return false
  const end = match[0].length
  const next = text.charAt(end)
  const name = token.slice(token.lastIndexOf(".") + 1)
  if (TYPE_NAME.test(name) && (next === ":" || next === "(" || (text.length - end <= 200 && text.slice(end).trim().length === 0))) return true
  if (next !== ":" || text.charAt(end + 1) !== " " || !CAMEL_CASE.test(name)) return false
  const line = text.slice(end, end + 200)
  const lineEnd = line.indexOf("\n")
  return SAYS_FAILED.test(lineEnd < 0 ? line : line.slice(0, lineEnd))
}
const ERROR_JSON = /^\s*\{[\s\S]{0,200}?"(?:error"\s*:(?!\s*(?:null|false|""|\{\s*\}|\[\s*\]))|status(?:_?code)?"\s*:\s*"?[45]\d\d\b)/i

const reportsFailure = (text: string): boolean => ERROR_TEXT.test(text) || startsWithException(text) || ERROR_JSON.test(text)

/**
 * True when the event stands for something that failed: an error event, an event whose source says
 * `status: error`, or a tool result without a status whose text reports a failure.
 */
export const isError = (event: TraceEvent): boolean =>
  event.kind === "error" || event.status === "error" ||
  (event.status === undefined && event.kind === "tool_result" && reportsFailure(event.content))

/** A fact a check may need, read from the trace on first use and then kept (so one nobody asks for costs nothing). */
export const readOnce = <A>(make: () => A): (() => A) => {
  let made: { readonly value: A } | undefined
  return () => (made ??= { value: make() }).value
}

/**
 * True when the event holds text: a content-free model call or tool span holds none, nor does an
 * error event whose only text is the `ERROR` label the span readers give a failed span without a
 * status message (DECISIONS §23: synthesized labels are not content).
 */
export const hasText = (event: TraceEvent): boolean => {
  const text = event.content.trim()
  return text.length > 0 && !(event.kind === "error" && text === "ERROR")
}

/**
 * Builds the view in one pass. Calls pair with their answers by `call_id`; an answer without an id
 * answers an unanswered call of its tool, with an id or without (LangSmith's and several span
 * formats' tool runs carry no id while the model's call does): the oldest of the latest batch of
 * calls (consecutive calls, as a model makes parallel ones) that called the tool, else the oldest.
 */
export const viewOf = (trace: NormalizedTrace): TraceView => {
  const events = trace.events
  let visits = 0
  const calls: Array<{ tool: string; callId: string | undefined; call: number | undefined; answers: Array<number> }> = []
  const byId = new Map<string, (typeof calls)[number]>()
  // Each tool's calls in order, for answers without ids: the oldest open call of the latest batch
  // of calls the tool was called in first, then older open ones, oldest first (calls answered by
  // id are skipped). A result that follows a newer call of its tool answers that call, not one
  // left open long before. Both read positions only move forward.
  type Entry = (typeof calls)[number]
  interface Queue {
    readonly entries: Array<Entry>
    head: number
    batch: number
    batchStart: number
    batchHead: number
  }
  const open = new Map<string, Queue>()
  let batch = 0
  let inBatch = false
  const oldestOpen = (tool: string): Entry | undefined => {
    const queue = open.get(tool)
    if (queue === undefined) return undefined
    while (queue.batchHead < queue.entries.length) {
      const entry = queue.entries[queue.batchHead++]
      if (entry !== undefined && entry.answers.length === 0) return entry
    }
    while (queue.head < queue.batchStart) {
      const entry = queue.entries[queue.head++]
      if (entry !== undefined && entry.answers.length === 0) return entry
    }
    return undefined
  }
  let finalAnswer: number | undefined
  let lastAgentEvent: number | undefined
  const kinds = new Map<TraceEvent["kind"], number>()
  // several checks ask of most events whether they failed: a tool result's text is read for it once, when first asked (0 unread, 1 no, 2 yes)
  const failures = new Uint8Array(events.length)
  for (let index = 0; index < events.length; index++) {
    const event = events[index]
    if (event === undefined) continue
    kinds.set(event.kind, (kinds.get(event.kind) ?? 0) + 1)
    if (event.role === "agent" && (event.kind === "message" || event.kind === "tool_call")) lastAgentEvent = index
    if (event.kind !== "tool_call") inBatch = false
    else if (!inBatch) {
      batch++
      inBatch = true
    }
    if (event.kind === "tool_call") {
      finalAnswer = undefined
      const entry = { tool: event.tool ?? event.actor, callId: event.call_id, call: index, answers: [] }
      calls.push(entry)
      if (event.call_id !== undefined) byId.set(event.call_id, entry)
      const queue = open.get(entry.tool)
      if (queue === undefined) open.set(entry.tool, { entries: [entry], head: 0, batch, batchStart: 0, batchHead: 0 })
      else {
        if (queue.batch !== batch) {
          queue.batch = batch
          queue.batchStart = queue.entries.length
          queue.batchHead = queue.entries.length
        }
        queue.entries.push(entry)
      }
      continue
    }
    if (event.role === "agent" && event.kind === "message" && hasText(event)) finalAnswer = index
    const answersCall = event.kind === "tool_result" || (event.kind === "error" && (event.tool !== undefined || event.call_id !== undefined))
    if (!answersCall) continue
    const tool = event.tool ?? event.actor
    const byCallId = event.call_id === undefined ? undefined : byId.get(event.call_id)
    const entry = byCallId ?? (event.call_id === undefined ? oldestOpen(tool) : undefined)
    if (entry !== undefined) entry.answers.push(index)
    else {
      // a result whose call is not in the trace (a span of the tool alone): a call of its own
      const orphan = { tool, callId: event.call_id, call: undefined, answers: [index] }
      calls.push(orphan)
      if (event.call_id !== undefined) byId.set(event.call_id, orphan)
    }
  }
  const declaredTools = trace.tools === undefined || trace.tools.length === 0 ? undefined : new Set(trace.tools.map((tool) => tool.name))
  return {
    trace,
    length: events.length,
    scan: (visit) => {
      for (let index = 0; index < events.length; index++) {
        const event = events[index]
        if (event === undefined) continue
        visits++
        visit(event, index)
      }
    },
    at: (index) => {
      visits++
      return events[index]
    },
    eachCall: (visit) => {
      for (const call of calls) {
        visits += (call.call === undefined ? 0 : 1) + call.answers.length
        visit(call)
      }
    },
    finalAnswer,
    lastAgentEvent,
    declaredTools,
    failed: (index) => {
      const known = failures[index]
      if (known !== 0) return known === 2
      const event = events[index]
      const failed = event !== undefined && isError(event)
      failures[index] = failed ? 2 : 1
      return failed
    },
    countOf: (kind) => kinds.get(kind) ?? 0,
    visits: () => visits
  }
}
