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
  /** True when the event at `index` stands for something that failed (`isError`), read once as the view is built. */
  readonly failed: (index: number) => boolean
  /** How many events of a kind the trace holds (counted as the view is built). */
  readonly countOf: (kind: TraceEvent["kind"]) => number
  // Indexes built in the same pass, so that a check whose events are absent (most traces fire no
  // check) answers without reading the trace; the events they point to are read through `scanAt`
  // or `at`, and counted.
  /** The events that failed (`isError`), in order. */
  readonly failures: ReadonlyArray<number>
  /** The events that carry a finish reason, in order. */
  readonly finished: ReadonlyArray<number>
  /** How many tool calls, and answers to them, failed: none means no call failed. */
  readonly toolFailures: number
  /** How many calls (their event in the trace) nothing answered. */
  readonly unansweredCalls: number
  /** The users' messages, in order. */
  readonly userMessages: ReadonlyArray<number>
  /** True when some tool was called more than once. */
  readonly repeatsATool: boolean
  /** The events at these indices, in the order given. */
  readonly scanAt: (indices: ReadonlyArray<number>, visit: (event: TraceEvent, index: number) => void) => void
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
export const isError = (event: TraceEvent): boolean => failedAs(event.kind, event.status, event)

/** `isError` of an event whose kind and status are already read (the view's pass reads each field of an event once). */
const failedAs = (kind: TraceEvent["kind"], status: TraceEvent["status"], event: TraceEvent): boolean =>
  kind === "error" || status === "error" || (status === undefined && kind === "tool_result" && reportsFailure(event.content))

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

/** One tool call being paired, as the view builds it. */
interface Entry {
  readonly tool: string
  readonly callId: string | undefined
  readonly call: number | undefined
  readonly answers: Array<number>
}

/**
 * A tool's calls in order, for answers without ids: the oldest open call of the latest batch of
 * calls the tool was called in first, then older open ones, oldest first (calls answered by id are
 * skipped). A result that follows a newer call of its tool answers that call, not one left open
 * long before. Both read positions only move forward.
 */
interface Queue {
  readonly entries: Array<Entry>
  head: number
  batch: number
  batchStart: number
  batchHead: number
}

const oldestOpen = (queue: Queue | undefined): Entry | undefined => {
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

/** A call joins its tool's queue, in `batch` (a run of consecutive calls, as a model makes parallel ones). */
const enqueue = (open: Map<string, Queue>, entry: Entry, batch: number): void => {
  const queue = open.get(entry.tool)
  if (queue === undefined) {
    open.set(entry.tool, { entries: [entry], head: 0, batch, batchStart: 0, batchHead: 0 })
    return
  }
  if (queue.batch !== batch) {
    queue.batch = batch
    queue.batchStart = queue.entries.length
    queue.batchHead = queue.entries.length
  }
  queue.entries.push(entry)
}

/**
 * The queues of the calls so far, made when the first answer without an id comes (most traces have
 * none): the calls replayed in order, a batch being calls at consecutive events, as the pass counts them.
 */
const queuesOf = (calls: ReadonlyArray<Entry>): Map<string, Queue> => {
  const open = new Map<string, Queue>()
  let batch = 0
  let previous = -2
  for (const entry of calls) {
    if (entry.call === undefined) continue
    if (entry.call !== previous + 1) batch++
    previous = entry.call
    enqueue(open, entry, batch)
  }
  return open
}

const NONE: ReadonlyArray<number> = []

/** How far back among the latest calls an answer's id is looked for before the calls are indexed by id: answers mostly follow their calls closely. */
const NEAR = 8

/** The latest call (or orphan answer) with this id: among the last `NEAR` entries, else through `byId` (made from the entries when first needed). */
const byCallId = (calls: ReadonlyArray<Entry>, callId: string, index: { byId: Map<string, Entry> | undefined }): Entry | undefined => {
  if (index.byId === undefined) {
    for (let at = calls.length - 1; at >= 0 && at >= calls.length - NEAR; at--) {
      const entry = calls[at]
      if (entry?.callId === callId) return entry
    }
    if (calls.length <= NEAR) return undefined
    const byId = new Map<string, Entry>()
    for (const entry of calls) if (entry.callId !== undefined) byId.set(entry.callId, entry)
    index.byId = byId
  }
  return index.byId.get(callId)
}

/** How many events of each kind, counted in the view's one pass. */
interface KindCounts {
  message: number
  thought: number
  tool_call: number
  tool_result: number
  error: number
  handoff: number
}

/** Counts an event's kind (a property by name, not by a key read from the event: the faster of the two). */
const countKind = (kinds: KindCounts, kind: TraceEvent["kind"]): void => {
  switch (kind) {
    case "message":
      kinds.message++
      break
    case "thought":
      kinds.thought++
      break
    case "tool_call":
      kinds.tool_call++
      break
    case "tool_result":
      kinds.tool_result++
      break
    case "error":
      kinds.error++
      break
    case "handoff":
      kinds.handoff++
  }
}

/**
 * The view of one trace, its indexes built in one pass by the constructor. A class, so that the
 * methods every check calls are made once, not once per trace (most traces fire no check, and the
 * per-trace closures were a measurable part of the checks' cost: docs/checks.md).
 */
class View implements TraceView {
  readonly length: number
  readonly lastAgentEvent: number | undefined
  readonly failures: ReadonlyArray<number>
  readonly finished: ReadonlyArray<number>
  readonly userMessages: ReadonlyArray<number>
  readonly toolFailures: number
  readonly unansweredCalls: number
  private repeats: boolean | undefined
  private answer: { readonly at: number | undefined } | undefined
  private declared: { readonly tools: ReadonlySet<string> | undefined } | undefined
  private readonly events: ReadonlyArray<TraceEvent>
  private readonly calls: ReadonlyArray<ToolCall>
  private readonly kinds: KindCounts
  private read = 0

  constructor(readonly trace: NormalizedTrace) {
    const events = trace.events
    this.events = events
    this.length = events.length
    const calls: Array<Entry> = []
    // the calls by id, made only when an answer's call is not among the latest few
    const ids: { byId: Map<string, Entry> | undefined } = { byId: undefined }
    let open: Map<string, Queue> | undefined
    const kinds: KindCounts = { message: 0, thought: 0, tool_call: 0, tool_result: 0, error: 0, handoff: 0 }
    let failures: Array<number> | undefined
    let finished: Array<number> | undefined
    let userMessages: Array<number> | undefined
    let toolFailures = 0
    let batch = 0
    let inBatch = false
    let lastAgentEvent: number | undefined
    for (let index = 0; index < events.length; index++) {
      const event = events[index]
      if (event === undefined) continue
      // each field read once: events come in many shapes, and every read of one is costly
      const kind = event.kind
      const role = event.role
      const agent = role === "agent"
      countKind(kinds, kind)
      // several checks ask of most events whether they failed: each is read for it once, here
      const failed = failedAs(kind, event.status, event)
      if (failed) (failures ??= []).push(index)
      if (event.finish_reason !== undefined) (finished ??= []).push(index)
      if (kind !== "tool_call") inBatch = false
      else if (!inBatch) {
        batch++
        inBatch = true
      }
      if (kind === "tool_call") {
        if (agent) lastAgentEvent = index
        if (failed) toolFailures++
        const callId = event.call_id
        const entry: Entry = { tool: event.tool ?? event.actor, callId, call: index, answers: [] }
        calls.push(entry)
        if (callId !== undefined) ids.byId?.set(callId, entry)
        if (open !== undefined) enqueue(open, entry, batch)
        continue
      }
      if (kind === "message") {
        if (agent) lastAgentEvent = index
        else if (role === "user") (userMessages ??= []).push(index)
        continue
      }
      // what answers a call: a result, or an error of a tool or a call
      if (kind !== "tool_result" && kind !== "error") continue
      const callId = event.call_id
      const named = event.tool
      if (kind === "error" && named === undefined && callId === undefined) continue
      if (failed) toolFailures++
      const tool = named ?? event.actor
      let entry: Entry | undefined
      if (callId !== undefined) entry = byCallId(calls, callId, ids)
      else {
        open ??= queuesOf(calls)
        entry = oldestOpen(open.get(tool))
      }
      if (entry !== undefined) entry.answers.push(index)
      else {
        // a result whose call is not in the trace (a span of the tool alone): a call of its own
        const orphan: Entry = { tool, callId, call: undefined, answers: [index] }
        calls.push(orphan)
        if (callId !== undefined) ids.byId?.set(callId, orphan)
      }
    }
    let unansweredCalls = 0
    for (const call of calls) if (call.call !== undefined && call.answers.length === 0) unansweredCalls++
    this.calls = calls
    this.kinds = kinds
    this.failures = failures ?? NONE
    this.finished = finished ?? NONE
    this.userMessages = userMessages ?? NONE
    this.toolFailures = toolFailures
    this.unansweredCalls = unansweredCalls
    this.lastAgentEvent = lastAgentEvent
  }

  /** Read from the end when first asked (most traces never are: only the checks of failed calls ask): no tool call may follow it. */
  get finalAnswer(): number | undefined {
    if (this.answer === undefined) {
      let at: number | undefined
      for (let index = this.events.length - 1; index >= 0; index--) {
        const event = this.at(index)
        if (event === undefined) continue
        if (event.kind === "tool_call") break
        if (event.role === "agent" && event.kind === "message" && hasText(event)) {
          at = index
          break
        }
      }
      this.answer = { at }
    }
    return this.answer.at
  }

  /** Made when first asked (only traces that declare tools have any). */
  get declaredTools(): ReadonlySet<string> | undefined {
    const tools = this.trace.tools
    this.declared ??= { tools: tools === undefined || tools.length === 0 ? undefined : new Set(tools.map((tool) => tool.name)) }
    return this.declared.tools
  }

  /** Read from the calls (not the events) when first asked. */
  get repeatsATool(): boolean {
    if (this.repeats === undefined) {
      const tools = new Set<string>()
      this.repeats = false
      for (const call of this.calls) {
        if (call.call === undefined) continue
        if (tools.has(call.tool)) {
          this.repeats = true
          break
        }
        tools.add(call.tool)
      }
    }
    return this.repeats
  }

  scan(visit: (event: TraceEvent, index: number) => void): void {
    const events = this.events
    for (let index = 0; index < events.length; index++) {
      const event = events[index]
      if (event === undefined) continue
      this.read++
      visit(event, index)
    }
  }

  scanAt(indices: ReadonlyArray<number>, visit: (event: TraceEvent, index: number) => void): void {
    for (const index of indices) {
      const event = this.events[index]
      if (event === undefined) continue
      this.read++
      visit(event, index)
    }
  }

  at(index: number): TraceEvent | undefined {
    this.read++
    return this.events[index]
  }

  eachCall(visit: (call: ToolCall) => void): void {
    for (const call of this.calls) {
      this.read += (call.call === undefined ? 0 : 1) + call.answers.length
      visit(call)
    }
  }

  failed(index: number): boolean {
    // the failures are in order: a binary search, rather than a flag per event made for every trace
    const failures = this.failures
    let low = 0
    let high = failures.length - 1
    while (low <= high) {
      const middle = (low + high) >>> 1
      const at = failures[middle] ?? -1
      if (at === index) return true
      if (at < index) low = middle + 1
      else high = middle - 1
    }
    return false
  }

  countOf(kind: TraceEvent["kind"]): number {
    return this.kinds[kind]
  }

  visits(): number {
    return this.read
  }
}

/** Two of the view's indexes as one, in order, each index once. */
export const union = (a: ReadonlyArray<number>, b: ReadonlyArray<number>): ReadonlyArray<number> => {
  if (a.length === 0) return b
  if (b.length === 0) return a
  const merged: Array<number> = []
  let i = 0
  let j = 0
  while (i < a.length || j < b.length) {
    const x = a[i] ?? Infinity
    const y = b[j] ?? Infinity
    merged.push(Math.min(x, y))
    if (x <= y) i++
    if (y <= x) j++
  }
  return merged
}

/**
 * Builds the view in one pass. Calls pair with their answers by `call_id`; an answer without an id
 * answers an unanswered call of its tool, with an id or without (LangSmith's and several span
 * formats' tool runs carry no id while the model's call does): the oldest of the latest batch of
 * calls (consecutive calls, as a model makes parallel ones) that called the tool, else the oldest.
 */
export const viewOf = (trace: NormalizedTrace): TraceView => new View(trace)
