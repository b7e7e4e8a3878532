/**
 * OpenAI Agents SDK trace exports (DECISIONS §12): `{object: "trace" | "trace.span", span_data, ...}`
 * records as a list or the ingest batch `{data: [...]}`, one trace per trace id: agent spans name
 * the actors, function spans are tool calls and results, handoff spans handoffs, generation and
 * response spans go through `addHistory`, span errors are error events.
 */
import * as Either from "effect/Either"
import * as Predicate from "effect/Predicate"
import { type CallFacts, type EventInput, mergeFacts } from "../../Builder.js"
import { stringField } from "../../Importer.js"
import type { NormalizedTrace } from "../../Model.js"
import { declaredToolsOf, jsonText, sample, type Rec, type Who } from "../Common.js"
import { callEvents, type ResponseRead } from "./Calls.js"
import { isCompletion, isSpanObject } from "./Detect.js"
import { fail, isoTime, makeReader, type Options, usageOf } from "./Reader.js"
import { itemEvents } from "./Responses.js"

export const spanList = (body: unknown): ReadonlyArray<unknown> | undefined => {
  if (Array.isArray(body)) return sample(body).some(isSpanObject) ? body : undefined
  if (!Predicate.isRecord(body)) return undefined
  const data = body["data"]
  if (Array.isArray(data) && (data.length === 0 || sample(data).some(isSpanObject))) return data
  return isSpanObject(body) ? [body] : undefined
}

interface Span {
  readonly id: string | undefined
  readonly parent: string | undefined
  readonly start: string | undefined
  readonly end: string | undefined
  readonly data: Rec | undefined
  readonly error: unknown
  readonly order: number
}

interface Action {
  readonly time: number
  readonly order: number
  readonly run: () => void
}

const spanOf = (record: Rec, order: number): Span => {
  const data = record["span_data"]
  return {
    id: stringField(record, "id") ?? stringField(record, "span_id"),
    parent: stringField(record, "parent_id"),
    start: isoTime(record["started_at"]),
    end: isoTime(record["ended_at"]),
    data: Predicate.isRecord(data) ? data : undefined,
    error: record["error"],
    order
  }
}

/** A span's duration in milliseconds, from its ISO start and end. */
const durationOf = (span: Span): number | undefined => {
  const start = span.start === undefined ? Number.NaN : Date.parse(span.start)
  const end = span.end === undefined ? Number.NaN : Date.parse(span.end)
  return Number.isFinite(start) && Number.isFinite(end) && end >= start ? end - start : undefined
}

/** What a span says of how it went: an error (its message) when it has one, and its duration. */
const spanFacts = (span: Span): CallFacts => {
  const failed = span.error !== undefined && span.error !== null
  const message = Predicate.isRecord(span.error) ? stringField(span.error, "message") : undefined
  return failed ? { status: "error", status_message: message, duration_ms: durationOf(span) } : { duration_ms: durationOf(span) }
}

/** An Agents SDK span error's text: its message, and the error detail in `data.error` when given. */
const spanErrorText = (error: unknown): string => {
  if (!Predicate.isRecord(error)) return jsonText(error)
  const message = stringField(error, "message")
  const data = error["data"]
  const detail = Predicate.isRecord(data) ? stringField(data, "error") : undefined
  if (message === undefined) return detail ?? jsonText(error)
  return detail === undefined || detail === message ? message : `${message}\n${detail}`
}

const readAgentTrace = (id: string | null, workflow: string | undefined, records: ReadonlyArray<Rec>): NormalizedTrace => {
  const reader = makeReader(id)
  const { builder } = reader
  const spans = records.map(spanOf)
  const byId = new Map<string, Span>()
  for (const span of spans) if (span.id !== undefined && !byId.has(span.id)) byId.set(span.id, span)

  // The agent a span runs under: the nearest agent span up the parent chain (cycles stop the walk).
  const agentOf = new Map<string, string | undefined>()
  const agentName = (span: Span): string | undefined => {
    const path: Array<string> = []
    const visited = new Set<string>()
    let current: Span | undefined = span
    let found: string | undefined
    while (current !== undefined) {
      const key = current.id
      if (key !== undefined) {
        if (agentOf.has(key)) {
          found = agentOf.get(key)
          break
        }
        if (visited.has(key)) break
        visited.add(key)
        path.push(key)
      }
      if (current.data?.["type"] === "agent" && typeof current.data["name"] === "string") {
        found = current.data["name"]
        break
      }
      current = current.parent === undefined ? undefined : byId.get(current.parent)
    }
    for (const key of path) agentOf.set(key, found)
    return found
  }

  const hasGenerations = spans.some((span) => span.data?.["type"] === "generation" && (Array.isArray(span.data["input"]) || Array.isArray(span.data["output"])))
  const actions: Array<Action> = []
  let fatal = false
  let userMessages = 0
  const push = (time: string | undefined, order: number, run: () => void) => {
    const parsed = time === undefined ? Number.NaN : Date.parse(time)
    actions.push({ time: parsed, order, run })
  }
  const addTool = (event: EventInput) => (hasGenerations ? builder.addHistory([event]) : builder.add(event))

  /**
   * Input and output messages of a model call, as one history (so k-th copies count right); the
   * call's facts (the span's tokens and duration, the response's own) on its output's first new
   * event, or on an empty message keeping a call that recorded no output (DECISIONS §23).
   */
  const modelCall = (span: Span, source: string, agent: string | undefined, input: unknown, output: unknown, facts: CallFacts) => {
    const events: Array<EventInput> = []
    const options: Options = { assistant: agent, timestamp: span.start }
    if (typeof input === "string" && input.length > 0) events.push({ actor: "user", role: "user", kind: "message", content: input, source: `${source}/input`, timestamp: span.start })
    else if (Array.isArray(input)) input.forEach((item, index) => events.push(...itemEvents(reader, item, `${source}/input[${index}]`, options)))
    const answer = events.length
    let response: ResponseRead | undefined
    const outputs = Array.isArray(output) ? output : Predicate.isRecord(output) ? [output] : []
    outputs.forEach((item, index) => {
      const itemSource = `${source}/output${Array.isArray(output) ? `[${index}]` : ""}`
      if (Predicate.isRecord(item) && (isCompletion(item) || item["object"] === "response" || Predicate.isRecord(item["error"]))) {
        const read = callEvents(reader, item, itemSource, { assistant: agent, timestamp: span.end })
        if (response === undefined && read.response !== undefined) response = { ...read.response, at: read.response.at + events.length }
        events.push(...read.events)
      } else {
        events.push(...itemEvents(reader, item, itemSource, { assistant: agent, timestamp: span.end }))
      }
    })
    userMessages += events.filter((event) => event.role === "user" && event.kind === "message").length
    builder.addHistory(events, {
      call: { outputAt: response?.at ?? answer, facts: mergeFacts(facts, response?.facts ?? {}), actor: agent ?? "assistant", source, timestamp: span.end ?? span.start }
    })
  }

  for (const span of spans) {
    const data = span.data
    const source = `span:${span.id ?? `#${span.order}`}`
    if (data === undefined) {
      builder.skip()
      continue
    }
    const type = stringField(data, "type")
    const agent = agentName(span)
    const actor = agent ?? "assistant"
    const hasError = span.error !== undefined && span.error !== null
    const errorEvent = (who: Who, tool?: string, facts?: CallFacts): EventInput => ({
      actor: who.actor,
      role: who.role,
      kind: "error",
      content: spanErrorText(span.error),
      tool,
      source,
      timestamp: span.end ?? span.start,
      ...mergeFacts(facts ?? {}, spanFacts(span))
    })
    switch (type) {
      case "agent": {
        builder.declareTools(declaredToolsOf(data["tools"]))
        if (hasError) {
          fatal = true
          push(span.end ?? span.start, span.order, () => builder.add(errorEvent({ actor, role: "agent" })))
        }
        break
      }
      case "generation":
      case "response": {
        const input = data["input"] ?? data["_input"]
        const output = data["output"] ?? data["response"] ?? data["_response"]
        // The span's usage (generation spans) and duration; a failed call's facts are its error's.
        const facts: CallFacts = { ...spanFacts(span), tokens: usageOf(data["usage"]) }
        // A call that recorded neither input nor output (the SDK's response spans hold only an
        // id; trace_include_sensitive_data off) is still a call: kept, empty, unless its error says it.
        if (input !== undefined || output !== undefined || !hasError) push(span.start, span.order, () => modelCall(span, source, agent, input, output, facts))
        if (hasError) {
          fatal = true
          const bare = input === undefined && output === undefined
          push(span.end ?? span.start, span.order, () => builder.add(errorEvent({ actor, role: "agent" }, undefined, bare ? facts : undefined)))
        }
        break
      }
      case "function": {
        const tool = stringField(data, "name") ?? "function"
        const input = data["input"]
        const output = data["output"]
        const answered = output !== undefined && output !== null
        // how the execution went: on its result, or on its call when it recorded none
        const facts = spanFacts(span)
        push(span.start, span.order, () => addTool({ actor, role: "agent", kind: "tool_call", content: jsonText(input), tool, source, timestamp: span.start, ...(answered ? {} : facts) }))
        if (answered) {
          push(span.end ?? span.start, span.order, () => addTool({ actor: tool, role: "tool", kind: "tool_result", content: jsonText(output), tool, source, timestamp: span.end ?? span.start, ...facts }))
        }
        if (hasError) push(span.end ?? span.start, span.order, () => builder.add(errorEvent({ actor: tool, role: "tool" }, tool)))
        break
      }
      case "handoff": {
        const from = stringField(data, "from_agent") ?? actor
        const to = stringField(data, "to_agent")
        push(span.start, span.order, () => builder.add({ actor: from, role: "agent", kind: "handoff", content: to ?? "", to, source, timestamp: span.start }))
        if (hasError) push(span.end ?? span.start, span.order, () => builder.add(errorEvent({ actor: from, role: "agent" })))
        break
      }
      case "guardrail": {
        const name = stringField(data, "name") ?? "guardrail"
        if (data["triggered"] === true) push(span.start, span.order, () => builder.add({ actor, role: "agent", kind: "error", content: name, tool: name, source, timestamp: span.end ?? span.start }))
        else builder.skip()
        break
      }
      case "custom": {
        // The SDK's task / turn spans mirror the agent spans (and their errors); others may fail.
        const custom = data["data"]
        const structural = Predicate.isRecord(custom) && (custom["sdk_span_type"] === "task" || custom["sdk_span_type"] === "turn")
        if (hasError && !structural) push(span.end ?? span.start, span.order, () => builder.add(errorEvent({ actor, role: "agent" })))
        builder.skip()
        break
      }
      default: {
        if (hasError) push(span.end ?? span.start, span.order, () => builder.add(errorEvent({ actor, role: "agent" })))
        builder.skip()
      }
    }
  }

  // Events in time order when every action has a time, otherwise in export order.
  if (actions.every((action) => !Number.isNaN(action.time))) actions.sort((a, b) => a.time - b.time || a.order - b.order)
  for (const action of actions) action.run()

  if (spans.length > 0) builder.setSuccess(!fatal)
  if (userMessages === 0 && workflow !== undefined) builder.setTask(workflow)
  return builder.build()
}

export const readAgents = (list: ReadonlyArray<unknown>): Either.Either<ReadonlyArray<NormalizedTrace>, string> => {
  if (list.length === 0) return fail("the trace export holds no traces or spans (an empty list)")
  const groups = new Map<string, { records: Array<Rec>; workflow: string | undefined }>()
  const NO_ID = "\u0000"
  let skipped = 0
  for (const record of list) {
    if (!Predicate.isRecord(record)) {
      skipped++
      continue
    }
    const isTrace = record["object"] === "trace"
    const traceId = (isTrace ? stringField(record, "id") : stringField(record, "trace_id")) ?? NO_ID
    const group = groups.get(traceId) ?? { records: [], workflow: undefined }
    groups.set(traceId, group)
    if (isTrace) group.workflow = stringField(record, "workflow_name") ?? group.workflow
    else if (record["object"] === "trace.span" || Predicate.isRecord(record["span_data"])) group.records.push(record)
    else skipped++
  }
  const traces: Array<NormalizedTrace> = []
  for (const [traceId, group] of groups) {
    // a trace without readable spans (only its trace record, or spans without content) is left out
    const trace = readAgentTrace(traceId === NO_ID ? null : traceId, group.workflow, group.records)
    if (trace.events.length > 0) traces.push(traces.length === 0 ? { ...trace, skipped: trace.skipped + skipped } : trace)
  }
  if (traces.length === 0) return fail(`no readable spans in ${groups.size} trace(s) (${list.length} records, none with messages, tool calls, handoffs or errors)`)
  return Either.right(traces)
}
