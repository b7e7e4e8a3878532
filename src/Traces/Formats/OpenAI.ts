/**
 * The `openai` importer (DECISIONS §12). Three families of bodies:
 *
 * - Chat Completions: a list of messages, a request body `{model?, messages, tools?, response?}`,
 *   a pair `{request, response}`, a `chat.completion` response (`choices[].message`), or a list of
 *   such calls. Roles system/developer/user/assistant/tool (and the legacy `function`); content a
 *   string or parts (`text` read, images / audio / files skipped and counted); assistant
 *   `tool_calls` (tool call events, content the `arguments` string verbatim), `refusal`, `name`;
 *   `tool` messages resolved to the tool's name through `tool_call_id`; an error response
 *   (`{error: {message}}`) is an error event.
 * - Responses API: a `response` object (`output`, `status`, `error`, `instructions`), a request
 *   (`input` a string or items), `{input, output}`, or a plain item list: `message` items,
 *   `function_call` / `function_call_output`, `reasoning` (summary → thought), the hosted tools'
 *   `*_call` items (web / file search, computer, code interpreter, MCP, shell ...) → tool calls;
 *   `status: "failed" | "incomplete" | "cancelled"` or `error` → an error event and success=false.
 * - OpenAI Agents SDK trace exports: the objects its tracing exporter posts to the traces ingest
 *   endpoint (`{object: "trace" | "trace.span", id, trace_id, parent_id, started_at, ended_at,
 *   span_data, error}`), as a list or as the batch `{data: [...]}`; one trace per trace id. Agent
 *   spans name the actors, function spans are tool calls and results, handoff spans handoffs,
 *   generation spans (and response spans that carry their input / response) go through
 *   `addHistory`; span errors are error events.
 *
 * A body holding several model calls (each carrying the conversation so far) is read through
 * `addHistory`: N messages become about N events. Sources: `messages[3]`,
 * `messages[2].tool_calls[0]`, `choices[0].message`, `output[2]`, `input[0]`, `[1].request.input[3]`,
 * `span:<id>`, `span:<id>/input[2]`.
 */
import { Either, Predicate } from "effect"
import type { EventInput, TraceBuilder } from "../Builder.js"
import { makeTraceBuilder } from "../Builder.js"
import type { Importer } from "../Importer.js"
import { stringField } from "../Importer.js"
import type { NormalizedTrace } from "../Model.js"
import { hasAnthropicMarker } from "./Anthropic.js"
import { at, detectSafely, isoOfEpoch, jsonText, sample, type Rec, type Who } from "./Common.js"

const CHAT_ROLES: ReadonlySet<string> = new Set(["system", "developer", "user", "assistant", "tool", "function"])

/** Responses API item types (input and output items). */
const ITEM_TYPES: ReadonlySet<string> = new Set([
  "message",
  "function_call",
  "function_call_output",
  "reasoning",
  "custom_tool_call",
  "custom_tool_call_output",
  "web_search_call",
  "file_search_call",
  "computer_call",
  "computer_call_output",
  "code_interpreter_call",
  "image_generation_call",
  "local_shell_call",
  "local_shell_call_output",
  "shell_call",
  "shell_call_output",
  "apply_patch_call",
  "apply_patch_call_output",
  "mcp_call",
  "mcp_list_tools",
  "mcp_approval_request",
  "mcp_approval_response",
  "item_reference",
  "compaction"
])

// ---------------------------------------------------------------------------------------------
// Detection

const isSpanObject = (value: unknown): boolean =>
  Predicate.isRecord(value) &&
  (value["object"] === "trace.span" || (value["object"] === "trace" && "workflow_name" in value) || Predicate.isRecord(value["span_data"]))

const isChatMessage = (value: unknown): boolean => {
  if (!Predicate.isRecord(value) || "from" in value) return false
  const role = stringField(value, "role")
  if (role === undefined || !CHAT_ROLES.has(role)) return false
  const content = value["content"]
  return typeof content === "string" || content === null || Array.isArray(content) || Array.isArray(value["tool_calls"]) || typeof value["refusal"] === "string"
}

const isItem = (value: unknown): boolean => {
  if (!Predicate.isRecord(value)) return false
  const type = stringField(value, "type")
  return type !== undefined && ITEM_TYPES.has(type) && (type !== "message" || typeof value["role"] === "string")
}

const isCompletion = (value: Rec): boolean => {
  if (value["object"] === "chat.completion") return true
  const choices = value["choices"]
  if (!Array.isArray(choices)) return false
  const first: unknown = choices[0]
  return Predicate.isRecord(first) && Predicate.isRecord(first["message"]) && typeof first["message"]["role"] === "string"
}

const isResponsesBody = (value: Rec): boolean => {
  if (value["object"] === "response") return true
  // observations and runs of other tools (`type: "GENERATION"`, `run_type`) also have input / output
  if ("type" in value || "run_type" in value) return false
  const output = value["output"]
  if (Array.isArray(output) && sample(output).some(isItem)) return true
  const input = value["input"]
  const inputOk = typeof input === "string" || (Array.isArray(input) && input.length > 0 && sample(input).every((item) => isItem(item) || isChatMessage(item)))
  return inputOk && (typeof value["model"] === "string" || typeof value["instructions"] === "string" || Array.isArray(output))
}

const isChatRequest = (value: Rec): boolean => {
  const messages = value["messages"]
  if (!Array.isArray(messages) || messages.length === 0) return false
  if ("system" in value || "agents" in value || "trajectory_format" in value) return false
  const records = sample(messages)
  if (records.some((record) => Predicate.isRecord(record) && "from" in record)) return false
  const known = records.filter((record) => isChatMessage(record) || isItem(record)).length
  return known > 0 && known * 2 >= records.length
}

const detectRecord = (value: Rec, depth: number): boolean => {
  if (isSpanObject(value) || isCompletion(value) || isResponsesBody(value) || isChatRequest(value)) return true
  const data = value["data"]
  if (Array.isArray(data) && data.length > 0 && sample(data).some(isSpanObject)) return true
  if (depth > 1) return false
  const request = value["request"]
  const response = value["response"]
  return (Predicate.isRecord(request) && detectRecord(request, depth + 1)) || (Predicate.isRecord(response) && detectRecord(response, depth + 1))
}

/** True when the first records of a list are mostly OpenAI messages, items, spans or calls. */
const listLooksOpenAI = (list: ReadonlyArray<unknown>): boolean => {
  const records = sample(list)
  let known = 0
  for (const record of records) {
    if (Predicate.isRecord(record) && "from" in record) return false
    if (isChatMessage(record) || isItem(record) || isSpanObject(record) || (Predicate.isRecord(record) && detectRecord(record, 1))) known++
  }
  return known > 0 && known * 2 >= records.length
}

const detectBody = (body: unknown): boolean => {
  if (Array.isArray(body)) return body.length > 0 && !hasAnthropicMarker(body) && listLooksOpenAI(body)
  return Predicate.isRecord(body) && !hasAnthropicMarker(body) && detectRecord(body, 0)
}

// ---------------------------------------------------------------------------------------------
// Shared reading helpers

/** An ISO-8601 timestamp from unix seconds or a date string, or undefined. */
const isoTime = (value: unknown): string | undefined => {
  if (typeof value === "number") return isoOfEpoch(value, "unix")
  if (typeof value === "string" && value.length > 0 && !Number.isNaN(Date.parse(value))) return value
  return undefined
}

interface Reader {
  readonly builder: TraceBuilder
  /** Call id → tool name, across the whole trace. */
  readonly tools: Map<string, string>
  failed: boolean
  completed: boolean
  /** Ids of the responses read (a single one becomes the trace id). */
  readonly responses: Array<string>
}

const makeReader = (id: string | null): Reader => ({ builder: makeTraceBuilder(id), tools: new Map(), failed: false, completed: false, responses: [] })

interface Options {
  /** The assistant's name (an agent's name in Agents SDK traces), when no message `name` says. */
  readonly assistant?: string | undefined
  readonly timestamp?: string | undefined
  /** A response read with its request: its `instructions` echo the request's and are not read again. */
  readonly echo?: boolean | undefined
  /** How deep in `request` / `response` nesting the call is (a pair nests once; deeper is not read). */
  readonly depth?: number | undefined
}

const TEXT_PARTS: ReadonlySet<string> = new Set(["text", "input_text", "output_text", "summary_text", "reasoning_text"])

/**
 * The text of a content: a string, or its text parts joined by a newline (refusal parts read as
 * text; images, audio, files and unknown parts skipped and counted). Undefined when nothing is text.
 */
const contentOf = (reader: Reader, content: unknown): string | undefined => {
  if (typeof content === "string") return content
  if (typeof content === "number" || typeof content === "boolean") return String(content)
  if (content === null || content === undefined) return undefined
  if (!Array.isArray(content)) {
    if (Predicate.isRecord(content) && typeof content["text"] === "string") return content["text"]
    reader.builder.skip()
    return undefined
  }
  const texts: Array<string> = []
  for (const part of content) {
    if (typeof part === "string") {
      texts.push(part)
      continue
    }
    const type = Predicate.isRecord(part) ? stringField(part, "type") : undefined
    const text = Predicate.isRecord(part) ? (type === "refusal" ? stringField(part, "refusal") : stringField(part, "text")) : undefined
    if (text !== undefined && (type === undefined || type === "refusal" || TEXT_PARTS.has(type))) texts.push(text)
    else reader.builder.skip()
  }
  return texts.length > 0 ? texts.join("\n") : undefined
}

const speaker = (role: string | undefined, name: string | undefined, options: Options): Who | undefined => {
  switch (role) {
    case "system":
    case "developer":
      return { actor: "system", role: "system" }
    case "user":
      return { actor: name ?? "user", role: "user" }
    case "assistant":
      return { actor: name ?? options.assistant ?? "assistant", role: "agent" }
    default:
      return undefined
  }
}

const toolResult = (reader: Reader, callId: string | undefined, fallback: string | undefined, content: string, source: string, timestamp: string | undefined): EventInput => {
  const tool = (callId === undefined ? undefined : reader.tools.get(callId)) ?? fallback
  return { actor: tool ?? "tool", role: "tool", kind: "tool_result", content, tool, source, timestamp }
}

// ---------------------------------------------------------------------------------------------
// Chat Completions messages

const chatMessageEvents = (reader: Reader, message: Rec, source: string, options: Options): Array<EventInput> => {
  const role = stringField(message, "role")
  const name = stringField(message, "name")
  const timestamp = options.timestamp
  if (role === "tool" || role === "function") {
    const content = contentOf(reader, message["content"]) ?? ""
    return [toolResult(reader, stringField(message, "tool_call_id"), role === "function" ? name : undefined, content, source, timestamp)]
  }
  const who = speaker(role, name, options)
  if (who === undefined) {
    reader.builder.skip()
    return []
  }
  const events: Array<EventInput> = []
  const text = contentOf(reader, message["content"])
  if (text !== undefined && text.length > 0) events.push({ ...who, kind: "message", content: text, source, timestamp })
  const refusal = stringField(message, "refusal")
  if (refusal !== undefined && refusal.length > 0 && refusal !== text) events.push({ ...who, kind: "message", content: refusal, source, timestamp })
  const calls = message["tool_calls"]
  if (Array.isArray(calls)) {
    calls.forEach((call, index) => {
      const fn = Predicate.isRecord(call) ? call["function"] : undefined
      if (!Predicate.isRecord(call) || !Predicate.isRecord(fn)) {
        reader.builder.skip()
        return
      }
      const tool = stringField(fn, "name") ?? stringField(call, "type") ?? "tool"
      const id = stringField(call, "id")
      if (id !== undefined) reader.tools.set(id, tool)
      events.push({ ...who, kind: "tool_call", content: jsonText(fn["arguments"]), tool, source: `${source}.tool_calls[${index}]`, timestamp })
    })
  }
  const legacy = message["function_call"]
  if (Predicate.isRecord(legacy)) {
    const tool = stringField(legacy, "name") ?? "function"
    events.push({ ...who, kind: "tool_call", content: jsonText(legacy["arguments"]), tool, source: `${source}.function_call`, timestamp })
  }
  // a message with nothing at all (its content, if any, was counted by contentOf)
  if (events.length === 0 && (message["content"] === null || message["content"] === undefined)) reader.builder.skip()
  return events
}

// ---------------------------------------------------------------------------------------------
// Responses API items

/** The first readable description of a hosted tool call's input. */
const callInput = (item: Rec): string => {
  for (const field of ["arguments", "input", "code", "action", "queries", "operation", "query", "revised_prompt"]) {
    const value = item[field]
    if (value !== undefined && value !== null) return jsonText(value)
  }
  const rest: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(item)) {
    if (!["id", "type", "status", "result", "results", "outputs", "output", "call_id"].includes(key)) rest[key] = value
  }
  return jsonText(rest)
}

const itemEvents = (reader: Reader, item: unknown, source: string, options: Options): Array<EventInput> => {
  if (!Predicate.isRecord(item)) {
    if (typeof item === "string" && item.length > 0) return [{ actor: "user", role: "user", kind: "message", content: item, source, timestamp: options.timestamp }]
    reader.builder.skip()
    return []
  }
  const type = stringField(item, "type")
  const timestamp = options.timestamp
  // An input message without `type` (EasyInputMessage) or a Chat Completions message.
  if (type === undefined || type === "message") {
    if (typeof item["role"] === "string") return chatMessageEvents(reader, item, source, options)
    reader.builder.skip()
    return []
  }
  const agent: Who = { actor: options.assistant ?? "assistant", role: "agent" }
  switch (type) {
    case "function_call":
    case "custom_tool_call": {
      const tool = stringField(item, "name") ?? "function"
      const id = stringField(item, "call_id")
      if (id !== undefined) reader.tools.set(id, tool)
      return [{ ...agent, kind: "tool_call", content: jsonText(item[type === "function_call" ? "arguments" : "input"]), tool, source, timestamp }]
    }
    case "reasoning": {
      const parts: Array<string> = []
      for (const field of ["summary", "content"]) {
        const list = item[field]
        if (!Array.isArray(list)) continue
        for (const part of list) {
          if (Predicate.isRecord(part) && typeof part["text"] === "string" && part["text"].length > 0) parts.push(part["text"])
        }
      }
      if (parts.length === 0) {
        reader.builder.skip()
        return []
      }
      return [{ ...agent, kind: "thought", content: parts.join("\n\n"), source, timestamp }]
    }
    case "mcp_call": {
      const tool = stringField(item, "name") ?? "mcp"
      const events: Array<EventInput> = [{ ...agent, kind: "tool_call", content: jsonText(item["arguments"]), tool, source, timestamp }]
      const error = item["error"]
      if (error !== undefined && error !== null) events.push({ actor: tool, role: "tool", kind: "error", content: jsonText(error), tool, source, timestamp })
      else if (item["output"] !== undefined && item["output"] !== null) events.push({ actor: tool, role: "tool", kind: "tool_result", content: jsonText(item["output"]), tool, source, timestamp })
      return events
    }
    case "computer_call_output":
    case "mcp_list_tools":
    case "mcp_approval_request":
    case "mcp_approval_response":
    case "item_reference":
    case "compaction":
      // screenshots, tool listings, approvals and references: not trace content
      reader.builder.skip()
      return []
    default:
      break
  }
  if (type.endsWith("_call_output")) {
    const output = item["output"]
    const content = typeof output === "string" ? output : (contentOf(reader, output) ?? jsonText(output))
    return [toolResult(reader, stringField(item, "call_id"), type.slice(0, -"_call_output".length), content, source, timestamp)]
  }
  if (type.endsWith("_call")) {
    const tool = type.slice(0, -"_call".length)
    const id = stringField(item, "call_id")
    if (id !== undefined) reader.tools.set(id, tool)
    const events: Array<EventInput> = [{ ...agent, kind: "tool_call", content: callInput(item), tool, source, timestamp }]
    // code interpreter logs and file search results come back on the same item
    const results = item["results"] ?? item["outputs"]
    if (Array.isArray(results) && results.length > 0) events.push({ actor: tool, role: "tool", kind: "tool_result", content: jsonText(results), tool, source, timestamp })
    if (item["status"] === "failed") events.push({ actor: tool, role: "tool", kind: "error", content: `${type} failed`, tool, source, timestamp })
    return events
  }
  reader.builder.skip()
  return []
}

// ---------------------------------------------------------------------------------------------
// Calls: request bodies, responses, pairs

const errorText = (error: unknown): string => {
  if (typeof error === "string") return error
  if (Predicate.isRecord(error)) return stringField(error, "message") ?? stringField(error, "code") ?? jsonText(error)
  return jsonText(error)
}

/** True when a record is one model call (or its request, its response, or both). */
const isCall = (value: Rec): boolean =>
  Array.isArray(value["messages"]) ||
  isCompletion(value) ||
  isResponsesBody(value) ||
  "input" in value ||
  Predicate.isRecord(value["request"]) ||
  Predicate.isRecord(value["response"]) ||
  (Predicate.isRecord(value["error"]) && !("role" in value) && !("type" in value))

/** The events of one call in order: instructions, input / messages, output / choices, errors. */
const callEvents = (reader: Reader, call: Rec, prefix: string, options: Options): Array<EventInput> => {
  const events: Array<EventInput> = []
  const depth = options.depth ?? 0
  const request = call["request"]
  if (Predicate.isRecord(request)) {
    if (depth < 2) events.push(...callEvents(reader, request, at(prefix, "request"), { ...options, depth: depth + 1 }))
    else reader.builder.skip()
  }
  const withRequest = Predicate.isRecord(request) || Array.isArray(call["messages"]) || "input" in call

  const instructions = options.echo === true ? undefined : call["instructions"]
  if (typeof instructions === "string" && instructions.length > 0) {
    events.push({ actor: "system", role: "system", kind: "message", content: instructions, source: at(prefix, "instructions") })
  } else if (Array.isArray(instructions)) {
    instructions.forEach((item, index) => events.push(...itemEvents(reader, item, `${at(prefix, "instructions")}[${index}]`, options)))
  }
  const messages = call["messages"]
  if (Array.isArray(messages)) {
    messages.forEach((message, index) => {
      const source = `${at(prefix, "messages")}[${index}]`
      if (Predicate.isRecord(message)) events.push(...chatMessageEvents(reader, message, source, options))
      else reader.builder.skip()
    })
  }
  const input = call["input"]
  if (typeof input === "string") {
    if (input.length > 0) events.push({ actor: "user", role: "user", kind: "message", content: input, source: at(prefix, "input") })
  } else if (Array.isArray(input)) {
    input.forEach((item, index) => events.push(...itemEvents(reader, item, `${at(prefix, "input")}[${index}]`, options)))
  }

  const id = stringField(call, "id")
  const choices = call["choices"]
  if (Array.isArray(choices)) {
    if (id !== undefined) reader.responses.push(id)
    const timestamp = options.timestamp ?? isoTime(call["created"])
    choices.forEach((choice, index) => {
      const message = Predicate.isRecord(choice) ? choice["message"] : undefined
      if (Predicate.isRecord(message)) events.push(...chatMessageEvents(reader, message, `${at(prefix, "choices")}[${index}].message`, { ...options, timestamp }))
      else reader.builder.skip()
    })
  }
  const output = call["output"]
  if (Array.isArray(output)) {
    if (id !== undefined && call["object"] === "response") reader.responses.push(id)
    const timestamp = options.timestamp ?? isoTime(call["completed_at"]) ?? isoTime(call["created_at"])
    output.forEach((item, index) => events.push(...itemEvents(reader, item, `${at(prefix, "output")}[${index}]`, { ...options, timestamp })))
  }

  const agent: Who = { actor: options.assistant ?? "assistant", role: "agent" }
  const status = stringField(call, "status")
  const error = call["error"]
  if (error !== undefined && error !== null) {
    reader.failed = true
    events.push({ ...agent, kind: "error", content: errorText(error), source: at(prefix, "error") })
  } else if (status === "failed" || status === "cancelled") {
    reader.failed = true
    events.push({ ...agent, kind: "error", content: status, source: at(prefix, "status") })
  } else if (status === "incomplete") {
    reader.failed = true
    const details = call["incomplete_details"]
    const reason = Predicate.isRecord(details) ? stringField(details, "reason") : undefined
    events.push({ ...agent, kind: "error", content: reason ?? status, source: reason === undefined ? at(prefix, "status") : at(prefix, "incomplete_details.reason") })
  } else if (status === "completed" && call["object"] === "response") {
    reader.completed = true
  }

  const response = call["response"]
  if (Predicate.isRecord(response)) {
    if (depth < 2) events.push(...callEvents(reader, response, at(prefix, "response"), { ...options, echo: withRequest, depth: depth + 1 }))
    else reader.builder.skip()
  }
  return events
}

const finish = (reader: Reader): NormalizedTrace => {
  if (reader.failed) reader.builder.setSuccess(false)
  else if (reader.completed) reader.builder.setSuccess(true)
  const trace = reader.builder.build()
  return reader.responses.length === 1 ? { ...trace, id: reader.responses[0] ?? trace.id } : trace
}

const readConversation = (body: unknown): Either.Either<ReadonlyArray<NormalizedTrace>, string> => {
  const reader = makeReader(null)
  const { builder } = reader
  if (Array.isArray(body)) {
    body.forEach((element, index) => {
      if (Predicate.isRecord(element) && !isItem(element) && !("role" in element) && isCall(element)) {
        builder.addHistory(callEvents(reader, element, `[${index}]`, {}))
      } else {
        for (const event of itemEvents(reader, element, `[${index}]`, {})) builder.add(event)
      }
    })
  } else if (Predicate.isRecord(body) && (isItem(body) || "role" in body)) {
    for (const event of itemEvents(reader, body, "", {})) builder.add(event)
  } else if (Predicate.isRecord(body) && isCall(body)) {
    builder.addHistory(callEvents(reader, body, "", {}))
  } else {
    return fail("expected Chat Completions messages, a Responses API response or items, or an Agents SDK trace export")
  }
  if (builder.eventCount() === 0) return fail(`no readable messages, items or errors (${builder.build().skipped} records skipped)`)
  return Either.right([finish(reader)])
}

// ---------------------------------------------------------------------------------------------
// Agents SDK trace exports

const spanList = (body: unknown): ReadonlyArray<unknown> | undefined => {
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

  /** Input and output messages of a model call, as one history (so k-th copies count right). */
  const modelCall = (span: Span, source: string, agent: string | undefined, input: unknown, output: unknown) => {
    const events: Array<EventInput> = []
    const options: Options = { assistant: agent, timestamp: span.start }
    if (typeof input === "string" && input.length > 0) events.push({ actor: "user", role: "user", kind: "message", content: input, source: `${source}/input`, timestamp: span.start })
    else if (Array.isArray(input)) input.forEach((item, index) => events.push(...itemEvents(reader, item, `${source}/input[${index}]`, options)))
    const outputs = Array.isArray(output) ? output : Predicate.isRecord(output) ? [output] : []
    outputs.forEach((item, index) => {
      const itemSource = `${source}/output${Array.isArray(output) ? `[${index}]` : ""}`
      if (Predicate.isRecord(item) && (isCompletion(item) || item["object"] === "response" || Predicate.isRecord(item["error"]))) {
        events.push(...callEvents(reader, item, itemSource, { assistant: agent, timestamp: span.end }))
      } else {
        events.push(...itemEvents(reader, item, itemSource, { assistant: agent, timestamp: span.end }))
      }
    })
    userMessages += events.filter((event) => event.role === "user" && event.kind === "message").length
    builder.addHistory(events)
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
    const errorEvent = (who: Who, tool?: string): EventInput => ({ ...who, kind: "error", content: spanErrorText(span.error), tool, source, timestamp: span.end ?? span.start })
    switch (type) {
      case "agent": {
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
        if (input === undefined && output === undefined && !hasError) {
          builder.skip()
          break
        }
        push(span.start, span.order, () => modelCall(span, source, agent, input, output))
        if (hasError) {
          fatal = true
          push(span.end ?? span.start, span.order, () => builder.add(errorEvent({ actor, role: "agent" })))
        }
        break
      }
      case "function": {
        const tool = stringField(data, "name") ?? "function"
        const input = data["input"]
        const output = data["output"]
        push(span.start, span.order, () => addTool({ actor, role: "agent", kind: "tool_call", content: jsonText(input), tool, source, timestamp: span.start }))
        if (output !== undefined && output !== null) {
          push(span.end ?? span.start, span.order, () => addTool({ actor: tool, role: "tool", kind: "tool_result", content: jsonText(output), tool, source, timestamp: span.end ?? span.start }))
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

const readAgents = (list: ReadonlyArray<unknown>): Either.Either<ReadonlyArray<NormalizedTrace>, string> => {
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

const fail = (message: string) => Either.left(`openai: ${message}`)

export const openAiImporter: Importer = {
  format: "openai",
  detect: detectSafely(detectBody),
  read: (body) => {
    if (!Array.isArray(body) && !Predicate.isRecord(body)) return fail("expected Chat Completions messages, a Responses API response or items, or an Agents SDK trace export")
    if (Array.isArray(body) && body.length === 0) return fail("the body is an empty list: no messages, items or spans to read")
    const spans = spanList(body)
    if (spans !== undefined) return readAgents(spans)
    return readConversation(body)
  }
}
