/**
 * The `langfuse` importer (DECISIONS §12): Langfuse trace exports, from every one of its integrations.
 *
 * Bodies: the UI's export `{trace: {id, input, output, ...}, observations: [...]}`, the public
 * API's trace with observations (`GET /api/public/traces/{id}`: `{id, ..., observations}`), the
 * API's observation list `{data: [observations], meta}`, a bare list of observations (the UI's log
 * view), or a list of exports. Each observation is `{id, traceId, type, name, startTime, endTime,
 * parentObservationId, input, output, metadata, level, statusMessage}`; `metadata.attributes`
 * holds the raw OpenTelemetry attributes when the trace came in over OTLP.
 *
 * Observations become a span tree read with the span importers' logic (`Spans.ts`): history
 * repeated across generations de-duplicated, tool calls matched with their executions, errors,
 * handoffs. By type:
 * - GENERATION (and EMBEDDING): a model call; `input` and `output` read as messages in each of the
 *   integrations' shapes: OpenAI chat messages, Responses items and response objects (their
 *   `instructions` the system message), OTel GenAI
 *   `{role, parts}`, LangChain / LangGraph messages (`{type: human|ai|tool|system, content,
 *   tool_calls | additional_kwargs.tool_calls, tool_call_id}`), a plain string. The tool
 *   definitions the LangChain handler appends as `tool` messages are declared tools, counted as
 *   skipped messages. SDKs' own call shapes (Gemini requests and responses, LlamaIndex's bound
 *   arguments and blocks) are read as `Langfuse/Calls.ts` says.
 * - AGENT, or a span with `gen_ai.agent.name` / an `invoke_agent` operation: names the actor of
 *   what runs under it; an agent under a different agent is a handoff.
 * - TOOL, a span with `gen_ai.tool.name` / `tool.name` / an `execute_tool` operation, or a span
 *   whose output is a LangChain ToolMessage: a tool call (`input`) and its result (`output`; `{}`
 *   records none, as Google ADK's, whose result is the next generation's `function_response`).
 * - RETRIEVER: a retrieval tool call and its result.
 * - SPAN, CHAIN and others: their `{messages: [...]}` states (LangGraph) and message lists are
 *   read as history; otherwise only the root's input and output (task, outcome).
 * - EVENT: its messages when it holds some, an error when its level is ERROR; else skipped.
 * - EVALUATOR: skipped (an evaluation, not the run).
 * `level: ERROR` is an error (its `statusMessage`), and a failed root or agent is success=false.
 *
 * A generation's token usage (`usageDetails`, `usage`) and finish reason are its facts (DECISIONS
 * §23), on its first output event; a generation without output is kept as an empty message. The
 * tool definitions a generation was given are the trace's declared tools.
 * Never read: the trace's `scores`, evaluations and costs (labels and accounting).
 * Sources: `observation:<id>`, `observation:<id>/input[2]`, `observation:<id>/output.messages[0]`.
 * The trace id is the Langfuse trace id.
 */
import * as Either from "effect/Either"
import * as Predicate from "effect/Predicate"
import type { Importer } from "../Importer.js"
import type { NormalizedTrace } from "../Model.js"
import { carrySkipped, countOf, declaredToolOf, detectSafely, sample, str, type Rec } from "./Common.js"
import type { CallFacts } from "../Builder.js"
import type { TokenUsage } from "../Model.js"
import {
  isoOf,
  parseJsonish,
  spanFacts,
  parseMessage,
  readSpanTraces,
  stampMessages,
  textOf,
  type Message,
  type MessageParts,
  type Span,
  type SpanInterpreter,
  type TraceSession
} from "./Spans.js"
import { finishReasonOf, spanTools, tokensOf } from "./Spans/Facts.js"
import { callMessages, recordsNoResult } from "./Langfuse/Calls.js"

// ---------------------------------------------------------------------------------------------
// Detection

const OBSERVATION_TYPES: ReadonlySet<string> = new Set([
  "SPAN",
  "GENERATION",
  "EVENT",
  "AGENT",
  "TOOL",
  "CHAIN",
  "RETRIEVER",
  "EVALUATOR",
  "EMBEDDING",
  "GUARDRAIL"
])

/** An observation: an id, one of Langfuse's observation types, and a trace id or start time. */
const isObservation = (value: unknown): value is Rec =>
  Predicate.isRecord(value) &&
  typeof value["id"] === "string" &&
  typeof value["type"] === "string" &&
  OBSERVATION_TYPES.has(value["type"]) &&
  (typeof value["traceId"] === "string" || typeof value["startTime"] === "string")

/** A list whose first records are all observations (and there is at least one). */
const isObservationList = (value: unknown): value is ReadonlyArray<unknown> =>
  Array.isArray(value) && value.length > 0 && sample(value).every(isObservation)

/** `observations` holding observations (malformed ones among them are skipped), or an empty list. */
const hasObservations = (record: Rec): boolean => {
  const observations = record["observations"]
  return Array.isArray(observations) && (observations.length === 0 || sample(observations).some(isObservation))
}

/** The UI's export `{trace, observations}` or the API's trace `{id, ..., observations}`. */
const isExport = (value: unknown): value is Rec => {
  if (!Predicate.isRecord(value) || !Array.isArray(value["observations"])) return false
  const trace = value["trace"]
  const traced = Predicate.isRecord(trace) ? typeof trace["id"] === "string" : typeof value["id"] === "string" && "timestamp" in value
  return traced && hasObservations(value) && (value["observations"].length > 0 || Predicate.isRecord(trace))
}

/** The API's observation list `{data: [...], meta}`. */
const isObservationPage = (value: unknown): value is Rec =>
  Predicate.isRecord(value) && Predicate.isRecord(value["meta"]) && isObservationList(value["data"])

const detect = (body: unknown): boolean => {
  if (isExport(body) || isObservationPage(body)) return true
  if (!Array.isArray(body) || body.length === 0) return false
  return isObservationList(body) || sample(body).every(isExport)
}

// ---------------------------------------------------------------------------------------------
// Messages

/** A value parsed from JSON text, twice at most (Langfuse stores some inputs as JSON of JSON). */
const parsed = (value: unknown): unknown => {
  const once = parseJsonish(value)
  return typeof once === "string" ? parseJsonish(once) : once
}

const LANGCHAIN_ROLES: Readonly<Record<string, string>> = {
  human: "user",
  humanmessage: "user",
  humanmessagechunk: "user",
  ai: "assistant",
  aimessage: "assistant",
  aimessagechunk: "assistant",
  system: "system",
  systemmessage: "system",
  tool: "tool",
  toolmessage: "tool",
  function: "tool",
  chat: "user"
}

/** The LangChain role of a message `{type: "human" | "ai" | ..., content}`, when it is one. */
const langChainRole = (message: Rec): string | undefined => {
  const type = str(message["type"])
  if (type === undefined || message["role"] !== undefined || !("content" in message)) return undefined
  return LANGCHAIN_ROLES[type.toLowerCase()]
}

/** A tool definition the LangChain handler writes as a `tool` message: `{type: "function", function: {name, parameters}}`. */
const isToolDefinition = (message: Rec): boolean => {
  const content = message["content"]
  return message["role"] === "tool" && Predicate.isRecord(content) && content["type"] === "function" && Predicate.isRecord(content["function"])
}

/** Content kept as parts when every part is typed, else written as JSON (a tool's list of results). */
const contentOf = (content: unknown): unknown => {
  if (!Array.isArray(content)) return Predicate.isRecord(content) && typeof content["type"] !== "string" ? textOf(content) : content
  const typed = content.every((part) => typeof part === "string" || (Predicate.isRecord(part) && typeof part["type"] === "string"))
  return typed ? content : textOf(content)
}

/** LangChain tool calls `{name, args, id}` and OpenAI ones (`additional_kwargs.tool_calls`) in the OpenAI shape. */
const toolCallsOf = (message: Rec): ReadonlyArray<unknown> | undefined => {
  const direct = message["tool_calls"]
  const kwargs = message["additional_kwargs"]
  const extra = Predicate.isRecord(kwargs) ? kwargs["tool_calls"] : undefined
  const calls = Array.isArray(direct) && direct.length > 0 ? direct : Array.isArray(extra) ? extra : undefined
  if (calls === undefined) return undefined
  return calls.map((call) =>
    Predicate.isRecord(call) && !Predicate.isRecord(call["function"]) && "args" in call
      ? { id: call["id"], function: { name: call["name"], arguments: call["args"] } }
      : call
  )
}

/** A message in the shape `parseMessage` reads (LangChain messages and OpenAI ones with LangChain extras). */
const normalizeMessage = (raw: unknown): unknown => {
  if (!Predicate.isRecord(raw)) return raw
  const role = langChainRole(raw)
  const calls = toolCallsOf(raw)
  const content = raw["content"]
  if (role === undefined && calls === raw["tool_calls"] && contentOf(content) === content) return raw
  const message: Record<string, unknown> = {
    role: role ?? raw["role"],
    content: contentOf(content)
  }
  if (typeof raw["name"] === "string") message["name"] = raw["name"]
  if (raw["tool_call_id"] !== undefined) message["tool_call_id"] = raw["tool_call_id"]
  if (calls !== undefined) message["tool_calls"] = calls
  if (raw["type"] !== undefined && role === undefined) message["type"] = raw["type"]
  return message
}

/**
 * One message split into the pieces that each give one event, with the pointer suffix of each:
 * its `parts[j]` (OTel GenAI), its `content[j]` blocks, and its `tool_calls[k]`, so that two tool
 * calls of one message never share a source. A message of one piece stays whole.
 */
const piecesOf = (message: unknown): ReadonlyArray<readonly [unknown, string]> => {
  if (!Predicate.isRecord(message)) return [[message, ""]]
  const pieces: Array<readonly [unknown, string]> = []
  const parts = message["parts"]
  const content = message["content"]
  const calls = message["tool_calls"]
  if (Array.isArray(parts) && parts.length > 1) {
    parts.forEach((part, j) => pieces.push([{ ...message, parts: [part] }, `.parts[${j}]`]))
  } else if (Array.isArray(content) && content.length > 1 && message["role"] !== "tool") {
    content.forEach((part, j) => pieces.push([{ ...message, content: [part], tool_calls: undefined }, `.content[${j}]`]))
  } else if ((typeof content === "string" && content.length > 0) || (Array.isArray(content) && content.length > 0) || Array.isArray(parts)) {
    pieces.push([{ ...message, tool_calls: undefined }, ""])
  }
  if (Array.isArray(calls)) calls.forEach((call, k) => pieces.push([{ role: message["role"], content: null, tool_calls: [call] }, `.tool_calls[${k}]`]))
  return pieces.length > 1 ? pieces : [[message, ""]]
}

/** A record that reads as one message: a role, a LangChain type, or a Responses / parts item. */
const isMessageRecord = (value: unknown): boolean =>
  Predicate.isRecord(value) &&
  (typeof value["role"] === "string" ||
    langChainRole(value) !== undefined ||
    value["type"] === "function_call" ||
    value["type"] === "function_call_output" ||
    (value["type"] === "message" && Array.isArray(value["content"])))

/** Where the messages of an input or output are, with the pointer prefix of each. */
interface Located {
  readonly list: ReadonlyArray<unknown>
  readonly prefix: string
  /** The value is one message (its pointer is the prefix itself). */
  readonly single?: true
  /** A Responses object's `instructions`: the system prompt of the call. */
  readonly instructions?: string
  /** Each message's pointer, when they are not `prefix[i]` (Langfuse/Calls.ts). */
  readonly pointers?: ReadonlyArray<string>
}

/**
 * The messages of an observation's input or output. `loose`: a model call's (a string or every
 * record is a message); otherwise only message lists and `{messages: [...]}` states count.
 */
const locate = (value: unknown, part: "input" | "output", loose: boolean): Located | undefined => {
  if (value === undefined || value === null) return undefined
  if (Array.isArray(value)) {
    if (value.length === 0) return undefined
    return loose || sample(value).every(isMessageRecord) ? { list: value, prefix: part } : undefined
  }
  if (Predicate.isRecord(value)) {
    // SDKs' own call shapes first: a Gemini request's `model` and `config` are not messages
    const call = callMessages(value, part, loose)
    if (call !== undefined) return call
    const messages = value["messages"]
    if (Array.isArray(messages) && (loose || sample(messages).every(isMessageRecord))) return { list: messages, prefix: `${part}.messages` }
    if (value["object"] === "response" && Array.isArray(value["output"])) {
      const instructions = str(value["instructions"])
      return instructions === undefined ? { list: value["output"], prefix: `${part}.output` } : { list: value["output"], prefix: `${part}.output`, instructions }
    }
    const choices = value["choices"]
    if (Array.isArray(choices)) return { list: choices, prefix: `${part}.choices` }
    if (isMessageRecord(value) || loose) return { list: [value], prefix: part, single: true }
    return undefined
  }
  return loose && typeof value === "string" && value.length > 0 ? { list: [value], prefix: part, single: true } : undefined
}

// ---------------------------------------------------------------------------------------------
// Observations as spans

type Kind = "generation" | "agent" | "tool" | "retriever" | "event" | "evaluator" | "span"

interface Observation {
  readonly record: Rec
  readonly type: string
  readonly attributes: Rec
  readonly input: unknown
  readonly output: unknown
}

const attributesOf = (record: Rec): Rec => {
  const metadata = parsed(record["metadata"])
  const attributes = Predicate.isRecord(metadata) ? parsed(metadata["attributes"]) : undefined
  return Predicate.isRecord(attributes) ? attributes : {}
}

/** A ToolMessage output (`{type: "tool", tool_call_id, content}`): the span ran a LangChain tool. */
const toolMessageOf = (output: unknown): Rec | undefined =>
  Predicate.isRecord(output) && output["type"] === "tool" && "tool_call_id" in output && "content" in output ? output : undefined

const kindOf = (observation: Observation): Kind => {
  const { attributes, type } = observation
  const operation = (str(attributes["gen_ai.operation.name"]) ?? "").toLowerCase()
  if (type === "GENERATION" || type === "EMBEDDING") return "generation"
  if (type === "EVALUATOR") return "evaluator"
  if (type === "EVENT") return "event"
  if (type === "RETRIEVER") return "retriever"
  if (type === "TOOL" || type === "GUARDRAIL" || operation === "execute_tool" || "gen_ai.tool.name" in attributes || "tool.name" in attributes) return "tool"
  if (type === "AGENT" || operation === "invoke_agent" || operation === "create_agent" || typeof attributes["gen_ai.agent.name"] === "string") return "agent"
  if (toolMessageOf(observation.output) !== undefined) return "tool"
  return "span"
}

const agentNameOf = (observation: Observation): string | undefined =>
  str(observation.attributes["gen_ai.agent.name"]) ??
  str(observation.attributes["agent.name"]) ??
  str(observation.attributes["graph.node.id"]) ??
  str(observation.record["name"])

const toolNameOf = (observation: Observation): string => {
  const message = toolMessageOf(observation.output)
  return (
    str(observation.attributes["gen_ai.tool.name"]) ??
    str(observation.attributes["tool.name"]) ??
    str(message?.["name"]) ??
    /^(?:execute_tool|running tool:)\s+(.+)$/.exec(str(observation.record["name"]) ?? "")?.[1]?.trim() ??
    str(observation.record["name"]) ??
    "tool"
  )
}

const toolCallIdOf = (observation: Observation): string | undefined =>
  str(observation.attributes["gen_ai.tool.call.id"]) ?? str(observation.attributes["tool_call.id"]) ?? str(toolMessageOf(observation.output)?.["tool_call_id"])

/** The text of a value for task, outcome, tool arguments and results (JSON text parsed first). */
const valueText = (value: unknown): string | undefined => {
  const read = parsed(value)
  if (read === undefined || read === null) return undefined
  const text = textOf(read)
  return text.length > 0 ? text : undefined
}

/** A root's input or output as text: its first message's text when it holds messages. */
const rootText = (value: unknown, skip: () => void): string | undefined => {
  const located = locate(parsed(value), "input", false)
  if (located !== undefined) {
    for (const raw of located.list) {
      const message = parseMessage(normalizeMessage(raw), "user", skip)
      const text = message?.items.find((item) => item.type === "text")
      if (text !== undefined && text.type === "text") return text.text
    }
    return undefined
  }
  return valueText(value)
}

/** An observation's token usage: `usageDetails`, `usage`, the older `promptTokens` / `completionTokens`, or its OTel attributes. */
const observationTokens = (observation: Observation): TokenUsage | undefined => {
  const { record } = observation
  for (const field of ["usageDetails", "usage"]) {
    const usage = record[field]
    if (!Predicate.isRecord(usage)) continue
    const input = countOf(usage["input"]) ?? countOf(usage["promptTokens"])
    const output = countOf(usage["output"]) ?? countOf(usage["completionTokens"])
    if (input !== undefined || output !== undefined) return { input, output }
  }
  const input = countOf(record["promptTokens"])
  const output = countOf(record["completionTokens"])
  if ((input ?? 0) > 0 || (output ?? 0) > 0) return { input, output }
  return tokensOf(observation.attributes)
}

/** A generation's facts: its level (ERROR) and times (`spanFacts`), its tokens and finish reason. */
const generationFacts = (observation: Observation, span: Span): CallFacts => ({
  ...spanFacts(span),
  tokens: observationTokens(observation),
  finish_reason: finishReasonOf(observation.attributes)
})

/** What the reading learns beside the events: whether the root gave a task. */
interface ReadState {
  rootInput: boolean
}

const sameMessage = (a: Message, b: Message): boolean => a.role === b.role && JSON.stringify(a.items) === JSON.stringify(b.items)

/**
 * An output that repeats its input first (a LangGraph state: the whole conversation after the
 * step) without that repeat, so a message said once is not counted twice in one call.
 */
const newMessages = (input: ReadonlyArray<Message>, output: ReadonlyArray<Message>): ReadonlyArray<Message> => {
  if (input.length === 0 || output.length < input.length) return output
  for (let i = 0; i < input.length; i++) {
    const a = input[i]
    const b = output[i]
    if (a === undefined || b === undefined || !sameMessage(a, b)) return output
  }
  return output.slice(input.length)
}

const makeInterpreter = (observations: ReadonlyArray<Observation>, traceRecord: Rec | undefined, state: ReadState): SpanInterpreter => {
  const observationOf = (span: Span): Observation | undefined => observations[span.index]
  const kinds = new Map<Span, Kind>()
  const calls = new Map<Span, { readonly input: ReadonlyArray<Message>; readonly output: ReadonlyArray<Message> }>()
  const kindOfSpan = (span: Span): Kind => {
    let kind = kinds.get(span)
    if (kind === undefined) {
      const observation = observationOf(span)
      kind = observation === undefined ? "span" : kindOf(observation)
      kinds.set(span, kind)
    }
    return kind
  }
  const agentOf = (span: Span): string | undefined => {
    if (kindOfSpan(span) !== "agent") return undefined
    const observation = observationOf(span)
    return observation === undefined ? undefined : agentNameOf(observation)
  }
  const actorOf = (span: Span, session: TraceSession): string => agentOf(span) ?? session.agentAbove(span) ?? "assistant"
  const source = (span: Span, part?: string) => (part === undefined ? `observation:${span.spanId}` : `observation:${span.spanId}/${part}`)

  const messagesOf = (span: Span, value: unknown, part: "input" | "output", loose: boolean, session: TraceSession): Array<Message> => {
    const located = locate(parsed(value), part, loose)
    if (located === undefined) return []
    const parts: Array<MessageParts> = []
    const pointers: Array<string> = []
    if (located.instructions !== undefined) {
      parts.push({ role: "system", name: undefined, items: [{ type: "text", text: located.instructions }] })
      pointers.push(`${part}.instructions`)
    }
    located.list.forEach((raw, index) => {
      if (Predicate.isRecord(raw) && isToolDefinition(raw)) {
        // what the model was offered, not said: a declared tool
        const tool = declaredToolOf(raw["content"])
        if (tool !== undefined) session.builder.declareTools([tool])
        session.skip()
        return
      }
      const pointer = located.single === true ? located.prefix : located.pointers?.[index] ?? `${located.prefix}[${index}]`
      // A Responses `function_call` item's `name` is the tool's, not a speaker's.
      const call = Predicate.isRecord(raw) && raw["type"] === "function_call"
      for (const [piece, suffix] of piecesOf(normalizeMessage(raw))) {
        const message = parseMessage(piece, part === "input" ? "user" : "assistant", session.skip)
        if (message === undefined || message.items.length === 0) continue
        parts.push(call ? { ...message, name: undefined } : message)
        pointers.push(`${pointer}${suffix}`)
      }
    })
    const timestamp = isoOf(part === "input" ? span.startNanos : span.endNanos ?? span.startNanos)
    return stampMessages(parts, (i) => source(span, pointers[i] ?? part), timestamp)
  }

  const errorText = (observation: Observation): string | undefined =>
    observation.record["level"] === "ERROR" ? str(observation.record["statusMessage"]) ?? "ERROR" : undefined

  return {
    agentName: agentOf,
    enter: (span, session) => {
      const observation = observationOf(span)
      if (observation === undefined) return
      const kind = kindOfSpan(span)
      const start = isoOf(span.startNanos)
      session.builder.declareTools(spanTools(observation.attributes))
      if (session.tree.parentOf(span) === undefined) {
        const text = rootText(traceRecord?.["input"] ?? observation.input, session.skip) ?? rootText(observation.input, session.skip)
        if (text !== undefined && text.trim().length > 0) {
          state.rootInput = true
          session.rootInput(text)
        }
      }
      switch (kind) {
        case "evaluator":
          session.skip()
          return
        case "tool":
        case "retriever":
          session.toolStart({
            id: toolCallIdOf(observation),
            name: kind === "tool" ? toolNameOf(observation) : str(observation.record["name"]) ?? "retriever",
            args: valueText(observation.input),
            actor: actorOf(span, session),
            source: source(span),
            timestamp: start
          })
          return
        case "agent": {
          const name = agentOf(span)
          const above = session.agentAbove(span)
          if (name !== undefined && above !== undefined && above !== name) {
            session.handoff(above, name, str(observation.record["name"]) ?? name, source(span), start, false)
          }
          break
        }
        case "generation":
        case "event":
        case "span":
          break
      }
      const loose = kind === "generation"
      const call = { input: messagesOf(span, observation.input, "input", loose, session), output: messagesOf(span, observation.output, "output", loose, session) }
      if (kind === "event" && call.input.length === 0 && call.output.length === 0 && errorText(observation) === undefined) {
        session.skip()
        return
      }
      if (call.input.length === 0 && call.output.length === 0) return
      calls.set(span, call)
      if (call.input.length > 0) session.addCall(call.input, [], actorOf(span, session))
    },
    exit: (span, session) => {
      const observation = observationOf(span)
      if (observation === undefined) return
      const kind = kindOfSpan(span)
      kinds.delete(span)
      if (session.tree.parentOf(span) === undefined) {
        const text = rootText(traceRecord?.["output"] ?? observation.output, session.skip) ?? rootText(observation.output, session.skip)
        if (text !== undefined) session.rootOutput(text)
      }
      if (kind === "evaluator") return
      const end = isoOf(span.endNanos ?? span.startNanos)
      if (kind === "tool" || kind === "retriever") {
        const message = toolMessageOf(observation.output)
        session.toolEnd({
          name: kind === "tool" ? toolNameOf(observation) : str(observation.record["name"]) ?? "retriever",
          id: toolCallIdOf(observation),
          result: recordsNoResult(observation.output) ? undefined : valueText(message === undefined ? observation.output : message["content"]),
          error: errorText(observation),
          source: source(span),
          timestamp: end,
          facts: spanFacts(span)
        })
        session.noteStatus(span, false)
        return
      }
      const actor = actorOf(span, session)
      const call = calls.get(span)
      calls.delete(span)
      const error = errorText(observation)
      // A generation's facts ride on its output, on its error when it failed without one, or on an
      // empty message keeping it when it recorded neither (DECISIONS §23).
      const place = kind === "generation" ? { facts: generationFacts(observation, span), source: source(span), timestamp: end } : undefined
      const output = call === undefined ? [] : newMessages(call.input, call.output)
      if (call !== undefined && output.length > 0) session.addCall(call.input, output, actor, place)
      else if (place !== undefined && call === undefined && error === undefined) session.callWithoutContent(actor, place)
      if (error !== undefined) {
        const facts = place !== undefined && output.length === 0 ? place.facts : spanFacts(span)
        session.error(error, actor, source(span), end, { ...facts, status: "error", status_message: str(observation.record["statusMessage"]) })
      }
      session.noteStatus(span, kind === "agent")
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Reading

interface Group {
  readonly trace: Rec | undefined
  readonly observations: ReadonlyArray<unknown>
}

/** The exports in a body: one per trace. A bare observation list is grouped by trace id. */
const groupsOf = (body: unknown): ReadonlyArray<Group> => {
  if (isExport(body)) {
    const trace = body["trace"]
    const observations = body["observations"]
    return [{ trace: Predicate.isRecord(trace) ? trace : body, observations: Array.isArray(observations) ? observations : [] }]
  }
  const list = isObservationPage(body) ? body["data"] : body
  if (!Array.isArray(list)) return []
  if (list.length > 0 && list.every((item) => isExport(item))) return list.flatMap(groupsOf)
  const byTrace = new Map<string, Array<unknown>>()
  for (const item of list) {
    const key = Predicate.isRecord(item) ? str(item["traceId"]) ?? "" : ""
    const group = byTrace.get(key)
    if (group === undefined) byTrace.set(key, [item])
    else group.push(item)
  }
  return Array.from(byTrace, ([traceId, observations]) => ({ trace: traceId === "" ? undefined : { id: traceId }, observations }))
}

const readGroup = (group: Group): Either.Either<NormalizedTrace, string> => {
  const traceId = group.trace === undefined ? undefined : str(group.trace["id"])
  const observations: Array<Observation> = []
  const spans: Array<Rec> = []
  let skipped = 0
  for (const record of group.observations) {
    if (!isObservation(record)) {
      skipped++
      continue
    }
    const type = str(record["type"]) ?? "SPAN"
    observations.push({ record, type, attributes: attributesOf(record), input: record["input"], output: record["output"] })
    const level = record["level"]
    spans.push({
      traceId: traceId ?? str(record["traceId"]) ?? "",
      spanId: record["id"],
      parentSpanId: record["parentObservationId"],
      name: record["name"],
      startTime: record["startTime"],
      endTime: record["endTime"],
      status: level === "ERROR" ? { code: "ERROR", message: record["statusMessage"] } : undefined
    })
  }
  // Every observation belongs to the export's trace: one group, whatever the records say.
  const state: ReadState = { rootInput: false }
  const shared = traceId ?? spans[0]?.["traceId"] ?? ""
  const result = readSpanTraces({ spans: spans.map((span) => ({ ...span, traceId: shared })) }, makeInterpreter(observations, group.trace, state), "Langfuse")
  if (Either.isLeft(result)) return Either.left(result.left)
  const [trace] = result.right
  if (trace === undefined) return Either.left("no observations with content")
  const hasUser = trace.events.some((event) => event.role === "user" && event.kind === "message")
  return Either.right({
    ...trace,
    id: traceId ?? trace.id,
    // The task is the user's input: never an agent's answer.
    task: hasUser || state.rootInput ? trace.task : "",
    skipped: trace.skipped + skipped
  })
}

const fail = (message: string) => Either.left(`langfuse: ${message}`)

export const langfuseImporter: Importer = {
  format: "langfuse",
  detect: detectSafely(detect),
  read: (body) => {
    const groups = groupsOf(body)
    if (groups.length === 0) return fail("expected {trace, observations}, a trace with observations, or a list of observations")
    const traces: Array<NormalizedTrace> = []
    const problems: Array<string> = []
    let carried = 0
    for (const group of groups) {
      const read = readGroup(group)
      if (Either.isRight(read)) traces.push(read.right)
      else {
        problems.push(read.left)
        carried += group.observations.length
      }
    }
    if (traces.length === 0) return fail(problems[0] ?? "no observations")
    return Either.right(carrySkipped(traces, carried))
  }
}
