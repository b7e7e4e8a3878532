/**
 * The `otel` importer (DECISIONS §12): OpenTelemetry GenAI semantic conventions in any span shape
 * that `Spans.ts` reads (OTLP/JSON traces and/or logs, span lists, ADOT wrappers).
 *
 * Messages, per model call, from the first of these that holds messages:
 *  1. the span's `gen_ai.input.messages` / `gen_ai.output.messages` (JSON strings or arrays of
 *     `{role, parts}`), with `gen_ai.system_instructions`; else the older flattened
 *     `gen_ai.prompt.N.*` / `gen_ai.completion.N.*` attributes (or the Vercel AI SDK's
 *     `ai.prompt.messages` / `ai.response.*`);
 *  2. the span's events of the event-based convention (`gen_ai.system.message`,
 *     `gen_ai.user.message`, `gen_ai.assistant.message`, `gen_ai.tool.message`, `gen_ai.choice`,
 *     `gen_ai.client.inference.operation.details`);
 *  3. log records with those names linked to the span by span id (log records of spans not in the
 *     body are read as calls of their own).
 * Agent spans (`gen_ai.operation.name` `invoke_agent` / `create_agent`) name the actor of the
 * spans under them; an agent span under a different agent is a handoff, as is a span whose
 * operation names a handoff (or a `transfer_to_<agent>` tool). `execute_tool` spans are tool calls
 * and results (a result of kind `error` when the span failed); ERROR statuses and `exception`
 * events are errors.
 */
import { Predicate } from "effect"
import type { Importer } from "../Importer.js"
import { firstPresent, str } from "./Common.js"
import {
  addSpanErrors,
  firstText,
  isOpenInferenceSample,
  isoOf,
  parseJsonish,
  parseMessage,
  parseMessages,
  readSpanTraces,
  sampleSpans,
  spanErrorText,
  spanSource,
  stampMessages,
  textOf,
  unflatten,
  type Attributes,
  type LogRecord,
  type Message,
  type ModelCall,
  type Span,
  type SpanInterpreter,
  type TraceSession
} from "./Spans.js"

const operationOf = (span: Span): string => (str(span.attributes["gen_ai.operation.name"]) ?? "").toLowerCase()
const AGENT_OPERATIONS = new Set(["invoke_agent", "create_agent"])
const isAgentSpan = (span: Span): boolean => AGENT_OPERATIONS.has(operationOf(span)) || /^(invoke_agent|create_agent)\s/.test(span.name)
const isToolSpan = (span: Span): boolean =>
  operationOf(span) === "execute_tool" || /^execute_tool\s/.test(span.name) || (span.name === "ai.toolCall" && "ai.toolCall.name" in span.attributes)
const isHandoffSpan = (span: Span): boolean => operationOf(span).includes("handoff")

/** An agent span's agent: `gen_ai.agent.name`, else the name after `invoke_agent`; undefined when neither. */
const agentNameOf = (span: Span): string | undefined =>
  str(span.attributes["gen_ai.agent.name"]) ?? /^(?:invoke_agent|create_agent)\s+(.+)$/.exec(span.name)?.[1]?.trim()

const toolNameOf = (span: Span): string =>
  str(span.attributes["gen_ai.tool.name"]) ??
  str(span.attributes["ai.toolCall.name"]) ??
  /^execute_tool\s+(.+)$/.exec(span.name)?.[1]?.trim() ??
  (span.name.length > 0 ? span.name : "tool")

// ---------------------------------------------------------------------------------------------
// Messages

const MESSAGE_EVENTS: Readonly<Record<string, string>> = {
  "gen_ai.system.message": "system",
  "gen_ai.user.message": "user",
  "gen_ai.assistant.message": "assistant",
  "gen_ai.tool.message": "tool"
}

/** An event-like record: a span event or a log record of the event-based convention. */
interface EventLike {
  readonly name: string
  readonly attributes: Attributes
  readonly body: unknown
  readonly timestamp: string | undefined
  /** The pointer of the record's `i`-th input or output message. */
  readonly source: (direction: "input" | "output", index: number) => string
}

const eventPayload = (event: EventLike): unknown => (Predicate.isRecord(event.body) || typeof event.body === "string" ? event.body : event.attributes)

/** The messages of a run of event-like records; `undefined` when none is of the convention. */
const callOfEvents = (events: ReadonlyArray<EventLike>, skip: () => void): ModelCall | undefined => {
  const input: Array<Message> = []
  const output: Array<Message> = []
  let found = false
  for (const event of events) {
    const role = MESSAGE_EVENTS[event.name]
    if (role !== undefined) {
      found = true
      const message = parseMessage(eventPayload(event), role, skip)
      if (message !== undefined) input.push({ ...message, source: event.source("input", input.length), timestamp: event.timestamp })
    } else if (event.name === "gen_ai.choice") {
      found = true
      const message = parseMessage(eventPayload(event), "assistant", skip)
      if (message !== undefined) output.push({ ...message, source: event.source("output", output.length), timestamp: event.timestamp })
    } else if (event.name === "gen_ai.client.inference.operation.details" || event.name === "gen_ai.content.prompt" || event.name === "gen_ai.content.completion") {
      found = true
      const payload = Predicate.isRecord(event.body) ? { ...event.attributes, ...event.body } : event.attributes
      const system = systemMessage(payload["gen_ai.system_instructions"], (i) => event.source("input", i), event.timestamp, skip)
      const inputs = parseMessages(firstPresent(payload["gen_ai.input.messages"], payload["gen_ai.prompt"]), "user", skip)
      if (system !== undefined && !inputs.some((message) => message.role === "system") && !input.some((message) => message.role === "system")) {
        input.push({ ...system, source: event.source("input", input.length) })
      }
      for (const message of inputs) input.push({ ...message, source: event.source("input", input.length), timestamp: event.timestamp })
      for (const message of parseMessages(firstPresent(payload["gen_ai.output.messages"], payload["gen_ai.completion"]), "assistant", skip)) {
        output.push({ ...message, source: event.source("output", output.length), timestamp: event.timestamp })
      }
    }
  }
  return found ? { input, output } : undefined
}

/** `gen_ai.system_instructions` (a JSON list of parts, or text) as one system message. */
const systemMessage = (
  value: unknown,
  source: (index: number) => string,
  timestamp: string | undefined,
  skip: () => void
): Message | undefined => {
  if (value === undefined || value === null) return undefined
  const parsed = parseJsonish(value)
  const message = parseMessage(Array.isArray(parsed) ? { role: "system", parts: parsed } : { role: "system", content: parsed }, "system", skip)
  if (message === undefined || message.items.length === 0) return undefined
  return { ...message, source: source(0), timestamp }
}

/** The Vercel AI SDK's call attributes (`ai.prompt.messages`, `ai.response.text` / `.toolCalls`). */
const vercelCall = (span: Span, skip: () => void): ModelCall | undefined => {
  const attributes = span.attributes
  if (!("ai.prompt.messages" in attributes)) return undefined
  const start = isoOf(span.startNanos)
  const end = isoOf(span.endNanos)
  const input = stampMessages(parseMessages(attributes["ai.prompt.messages"], "user", skip), (i) => spanSource(span, `input[${i}]`), start)
  const calls = parseJsonish(attributes["ai.response.toolCalls"])
  const response = parseMessage(
    {
      role: "assistant",
      content: firstPresent(attributes["ai.response.text"], attributes["ai.response.object"]),
      tool_calls: Array.isArray(calls)
        ? calls.map((call) => (Predicate.isRecord(call) ? { id: call["toolCallId"], name: call["toolName"], arguments: firstPresent(call["args"], call["input"]) } : call))
        : undefined
    },
    "assistant",
    skip
  )
  const output = response === undefined || response.items.length === 0 ? [] : [{ ...response, source: spanSource(span, "output[0]"), timestamp: end }]
  return { input, output }
}

/** A model call's messages, from the first source that holds messages (see the module comment). */
const callOf = (span: Span, session: TraceSession): ModelCall => {
  const skip = session.skip
  const attributes = span.attributes
  const start = isoOf(span.startNanos)
  const end = isoOf(span.endNanos)
  const inputSource = (i: number) => spanSource(span, `input[${i}]`)
  const outputSource = (i: number) => spanSource(span, `output[${i}]`)

  let input: Array<Message> = stampMessages(parseMessages(attributes["gen_ai.input.messages"], "user", skip), inputSource, start)
  let output: Array<Message> = stampMessages(parseMessages(attributes["gen_ai.output.messages"], "assistant", skip), outputSource, end)
  if (input.length === 0) {
    const legacy = [...unflatten(attributes, "gen_ai.prompt."), ...(typeof attributes["gen_ai.prompt"] === "string" ? [attributes["gen_ai.prompt"]] : [])]
    input = stampMessages(legacy.flatMap((raw) => parseMessages(raw, "user", skip)), inputSource, start)
  }
  if (output.length === 0) {
    const legacy = [...unflatten(attributes, "gen_ai.completion."), ...(typeof attributes["gen_ai.completion"] === "string" ? [attributes["gen_ai.completion"]] : [])]
    output = stampMessages(legacy.flatMap((raw) => parseMessages(raw, "assistant", skip)), outputSource, end)
  }
  if (input.length === 0 && output.length === 0) {
    const vercel = vercelCall(span, skip)
    if (vercel !== undefined) {
      input = [...vercel.input]
      output = [...vercel.output]
    }
  }
  if (input.length === 0 || output.length === 0) {
    const fromEvents = callOfEvents(
      span.events.map((event) => ({
        name: event.name,
        attributes: event.attributes,
        body: event.body,
        timestamp: isoOf(event.timeNanos) ?? start,
        source: (direction, i) => spanSource(span, `${direction}[${i}]`)
      })),
      skip
    )
    for (const found of [fromEvents, callOfLogs(session.logsOf(span), skip)]) {
      if (found === undefined) continue
      if (input.length === 0) input = [...found.input]
      if (output.length === 0) output = [...found.output]
    }
  }
  const system = systemMessage(attributes["gen_ai.system_instructions"], () => spanSource(span, "system_instructions"), start, skip)
  if (system !== undefined && !input.some((message) => message.role === "system")) input = [system, ...input]
  return { input, output }
}

const callOfLogs = (logs: ReadonlyArray<LogRecord>, skip: () => void): ModelCall | undefined =>
  logs.length === 0
    ? undefined
    : callOfEvents(
        logs.map((log) => ({
          name: log.name,
          attributes: log.attributes,
          body: log.body,
          timestamp: isoOf(log.timeNanos),
          source: () => `log:${log.index}`
        })),
        skip
      )

// ---------------------------------------------------------------------------------------------
// The interpreter

const makeInterpreter = (): SpanInterpreter => {
  const calls = new Map<Span, ModelCall>()
  const actorOf = (span: Span, session: TraceSession): string =>
    session.agentAbove(span) ?? str(span.attributes["gen_ai.agent.name"]) ?? "assistant"

  /** Whether a span can hold messages at all (most spans of a large trace cannot). */
  const mayHoldMessages = (span: Span, session: TraceSession): boolean => {
    if (span.events.length > 0 || session.logsOf(span).length > 0) return true
    for (const key in span.attributes) if (key.startsWith("gen_ai.") || key.startsWith("ai.prompt")) return true
    return false
  }
  const enterCall = (span: Span, session: TraceSession, actor: string) => {
    const call = callOf(span, session)
    if (call.input.length === 0 && call.output.length === 0) return
    calls.set(span, call)
    if (call.input.length > 0) session.addCall(call.input, [], actor)
    if (session.tree.parentOf(span) === undefined) {
      const text = firstText(call.input, "user") ?? firstText(call.input)
      if (text !== undefined) session.rootInput(text)
    }
  }
  const exitCall = (span: Span, session: TraceSession, actor: string) => {
    const call = calls.get(span)
    if (call === undefined) return
    calls.delete(span)
    if (call.output.length > 0) session.addCall(call.input, call.output, actor)
    if (session.tree.parentOf(span) === undefined) {
      const text = firstText(call.output)
      if (text !== undefined) session.rootOutput(text)
    }
  }

  return {
    agentName: (span) => (isAgentSpan(span) ? agentNameOf(span) : undefined),
    enter: (span, session) => {
      if (isAgentSpan(span)) {
        const start = isoOf(span.startNanos)
        const name = agentNameOf(span)
        const above = session.agentAbove(span)
        if (name !== undefined && above !== undefined && above !== name) session.handoff(above, name, span.name, spanSource(span), start, false)
        enterCall(span, session, name ?? actorOf(span, session))
        return
      }
      if (isToolSpan(span)) {
        const start = isoOf(span.startNanos)
        const name = toolNameOf(span)
        const actor = actorOf(span, session)
        const args = firstPresent(span.attributes["gen_ai.tool.call.arguments"], span.attributes["ai.toolCall.args"])
        session.toolStart({
          id: str(span.attributes["gen_ai.tool.call.id"]) ?? str(span.attributes["ai.toolCall.id"]),
          name,
          args: args === undefined ? undefined : textOf(args),
          actor,
          source: spanSource(span),
          timestamp: start
        })
        const target = /^transfer_to_(.+)$/.exec(name)?.[1]
        if (target !== undefined) session.handoff(actor, target, span.name, spanSource(span), start, true)
        return
      }
      if (isHandoffSpan(span)) {
        const from = str(span.attributes["gen_ai.handoff.from_agent"]) ?? actorOf(span, session)
        const to =
          str(span.attributes["gen_ai.handoff.to_agent"]) ??
          str(span.attributes["gen_ai.handoff.target_agent"]) ??
          /^(?:\S*handoff|transfer)\S*\s+(?:to\s+)?(.+)$/i.exec(span.name)?.[1]?.trim() ??
          ""
        session.handoff(from, to, span.name.length > 0 ? span.name : `${from} -> ${to}`, spanSource(span), isoOf(span.startNanos), true)
        return
      }
      if (mayHoldMessages(span, session)) enterCall(span, session, actorOf(span, session))
    },
    exit: (span, session) => {
      if (isAgentSpan(span)) {
        const name = agentNameOf(span) ?? actorOf(span, session)
        exitCall(span, session, name)
        addSpanErrors(span, name, session)
        session.noteStatus(span, true)
        return
      }
      if (isToolSpan(span)) {
        const result = firstPresent(span.attributes["gen_ai.tool.call.result"], span.attributes["ai.toolCall.result"])
        const error = spanErrorText(span)
        session.toolEnd({
          name: toolNameOf(span),
          id: str(span.attributes["gen_ai.tool.call.id"]),
          result: result === undefined ? undefined : textOf(result),
          error: error === undefined ? undefined : error,
          source: spanSource(span),
          timestamp: isoOf(span.endNanos)
        })
        session.noteStatus(span, false)
        return
      }
      if (calls.has(span) || span.events.length > 0 || span.status.code === "error") {
        const actor = actorOf(span, session)
        exitCall(span, session, actor)
        addSpanErrors(span, actor, session)
      }
      session.noteStatus(span, false)
    },
    orphanLogs: (logs, session) => {
      // Log records without their span: one call per run of input records ended by choices.
      let run: Array<LogRecord> = []
      let sawOutput = false
      const flush = () => {
        const call = callOfLogs(run, session.skip)
        run = []
        sawOutput = false
        if (call === undefined) return
        session.addCall(call.input, [], "assistant")
        if (call.output.length > 0) session.addCall(call.input, call.output, "assistant")
      }
      for (const log of logs) {
        const isOutput = log.name === "gen_ai.choice" || (log.name === "gen_ai.client.inference.operation.details" && !("gen_ai.input.messages" in log.attributes))
        if (sawOutput && !isOutput) flush()
        run.push(log)
        if (isOutput) sawOutput = true
      }
      flush()
    }
  }
}

const hasGenAi = (record: ReturnType<typeof sampleSpans>["records"][number]): boolean =>
  record.keys.some((key) => key.startsWith("gen_ai.")) || record.eventNames.some((name) => name.startsWith("gen_ai."))

export const otelImporter: Importer = {
  format: "otel",
  detect: (body) => {
    const sample = sampleSpans(body)
    if (sample.records.some(isOpenInferenceSample)) return false
    return sample.otlp || sample.records.some(hasGenAi)
  },
  read: (body) => readSpanTraces(body, makeInterpreter(), "OpenTelemetry")
}
