/**
 * The OpenTelemetry GenAI message conventions (DECISIONS §12): a model call's messages from the
 * span's `gen_ai.input.messages` / `gen_ai.output.messages` (with `gen_ai.system_instructions`),
 * the older flattened `gen_ai.prompt.N.*` / `gen_ai.completion.N.*`, the Vercel AI SDK's `ai.*`
 * attributes or Google ADK's `gcp.vertex.agent.*` (`Otel/Adk`), the event-based convention's span
 * events, or log records linked by span id.
 */
import * as Predicate from "effect/Predicate"
import { firstPresent } from "../Common.js"
import { isoOf, parseJsonish, parseMessage, parseMessages, spanSource, stampMessage, stampMessages, unflatten, type Attributes, type LogRecord, type Message, type ModelCall, type Span, type TraceSession } from "../Spans.js"
import { adkCall } from "./Adk.js"

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
      if (message !== undefined) input.push(stampMessage(message, event.source("input", input.length), event.timestamp))
    } else if (event.name === "gen_ai.choice") {
      found = true
      const message = parseMessage(eventPayload(event), "assistant", skip)
      if (message !== undefined) output.push(stampMessage(message, event.source("output", output.length), event.timestamp))
    } else if (event.name === "gen_ai.client.inference.operation.details" || event.name === "gen_ai.content.prompt" || event.name === "gen_ai.content.completion") {
      found = true
      const payload = Predicate.isRecord(event.body) ? { ...event.attributes, ...event.body } : event.attributes
      const system = systemMessage(payload["gen_ai.system_instructions"], (i) => event.source("input", i), event.timestamp, skip)
      const inputs = parseMessages(firstPresent(payload["gen_ai.input.messages"], payload["gen_ai.prompt"]), "user", skip)
      if (system !== undefined && !inputs.some((message) => message.role === "system") && !input.some((message) => message.role === "system")) {
        input.push(stampMessage(system, event.source("input", input.length), system.timestamp))
      }
      for (const message of inputs) input.push(stampMessage(message, event.source("input", input.length), event.timestamp))
      for (const message of parseMessages(firstPresent(payload["gen_ai.output.messages"], payload["gen_ai.completion"]), "assistant", skip)) {
        output.push(stampMessage(message, event.source("output", output.length), event.timestamp))
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
  return stampMessage(message, source(0), timestamp)
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
  const output = response === undefined || response.items.length === 0 ? [] : [stampMessage(response, spanSource(span, "output[0]"), end)]
  return { input, output }
}

/** A model call's messages, from the first source that holds messages (see the module comment). */
export const callOf = (span: Span, session: TraceSession): ModelCall => {
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
    const vendor = vercelCall(span, skip) ?? adkCall(span, skip)
    if (vendor !== undefined) {
      input = [...vendor.input]
      output = [...vendor.output]
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

export const callOfLogs = (logs: ReadonlyArray<LogRecord>, skip: () => void): ModelCall | undefined =>
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
