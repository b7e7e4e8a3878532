/**
 * The `anthropic` importer (DECISIONS §12): Anthropic Messages API bodies. Reads a request
 * (`{model?, system?, messages, response?}`, `system` a string or text blocks), a pair
 * `{request, response}`, a single response message (`{type: "message", role: "assistant",
 * content: [blocks], stop_reason}`), an error response (`{type: "error", error}`), a list of
 * messages, or a list of such calls. Content is a string or blocks: `text` (message), `thinking`
 * (thought), `tool_use` / `server_tool_use` / `mcp_tool_use` (tool call, content the input as
 * JSON), `tool_result` / `mcp_tool_result` (tool result, `is_error: true` an error) and the server
 * tools' `*_tool_result` blocks. `redacted_thinking`, `image`, `document` and unknown blocks are
 * skipped and counted.
 *
 * A body holding several calls (each request carries the whole conversation so far) is read
 * through `addHistory`, so N messages become about N events. Sources point into the original:
 * `messages[3]`, `messages[3].content[1]`, `system[0]`, `[2].messages[4].content[0]`,
 * `response.content[1]`.
 *
 * It also reads Anthropic Managed Agents session recordings (JSON Lines of `[method, payload]`, as
 * the LangSmith JS SDK records them): `Anthropic/ManagedAgents`.
 */
import * as Either from "effect/Either"
import * as Predicate from "effect/Predicate"
import type { CallFacts, EventInput, TraceBuilder } from "../Builder.js"
import { makeTraceBuilder } from "../Builder.js"
import type { Importer } from "../Importer.js"
import { stringField } from "../Importer.js"
import { isManagedAgentsRecording, readManagedAgents } from "./Anthropic/ManagedAgents.js"
import { toolResultOf, toolUseOf } from "./AnthropicBlocks.js"
import { at, countOf, declaredToolsOf, detectSafely, jsonText, sample, type Rec, type Who } from "./Common.js"

/** Block types only the Anthropic Messages API uses (OpenAI parts never carry these). */
const ANTHROPIC_BLOCKS: ReadonlySet<string> = new Set([
  "tool_use",
  "tool_result",
  "thinking",
  "redacted_thinking",
  "server_tool_use",
  "mcp_tool_use",
  "mcp_tool_result",
  "web_search_tool_result",
  "web_fetch_tool_result",
  "code_execution_tool_result",
  "bash_code_execution_tool_result",
  "text_editor_code_execution_tool_result",
  "tool_search_tool_result",
  "document",
  "search_result",
  "container_upload"
])

/** Part types of OpenAI messages and Responses items: their presence rules Anthropic out. */
const OPENAI_PARTS: ReadonlySet<string> = new Set([
  "input_text",
  "output_text",
  "refusal",
  "image_url",
  "input_image",
  "input_file",
  "input_audio",
  "summary_text"
])

const blockType = (block: unknown): string | undefined => (Predicate.isRecord(block) ? stringField(block, "type") : undefined)

/** An Anthropic-only block: one of the types above, or an `image` with a `source`. */
const isAnthropicBlock = (block: unknown): boolean => {
  const type = blockType(block)
  if (type === undefined || !Predicate.isRecord(block)) return false
  return ANTHROPIC_BLOCKS.has(type) || (type === "image" && Predicate.isRecord(block["source"]))
}

/** True when some message of the list (its first records) has content blocks only Anthropic uses. */
const messagesHaveMarker = (messages: ReadonlyArray<unknown>): boolean =>
  sample(messages).some((message) => {
    if (!Predicate.isRecord(message) || "from" in message) return false
    const content = message["content"]
    return Array.isArray(content) && sample(content).some(isAnthropicBlock)
  })

const isTextBlocks = (value: unknown): boolean =>
  Array.isArray(value) && value.length > 0 && sample(value).every((block) => blockType(block) === "text")

/** A response message: `type: "message"`, assistant, content blocks and no OpenAI part types. */
const isResponseMessage = (body: Rec): boolean => {
  if (body["type"] !== "message" || body["role"] !== "assistant") return false
  const content = body["content"]
  if (!Array.isArray(content)) return false
  const types = sample(content).map(blockType)
  if (types.some((type) => type !== undefined && OPENAI_PARTS.has(type))) return false
  return "stop_reason" in body || sample(content).some((block) => isAnthropicBlock(block) || blockType(block) === "text")
}

const isRequest = (body: Rec): boolean => {
  const messages = body["messages"]
  if (!Array.isArray(messages) || "agents" in body) return false
  if (messagesHaveMarker(messages)) return true
  const system = body["system"]
  const withRoles = sample(messages).some((message) => Predicate.isRecord(message) && typeof message["role"] === "string" && !("from" in message))
  return withRoles && (typeof system === "string" || isTextBlocks(system))
}

const detectValue = (body: unknown, depth: number): boolean => {
  if (Array.isArray(body)) {
    if (depth > 0) return false
    if (messagesHaveMarker(body)) return true
    return sample(body).some((item) => Predicate.isRecord(item) && detectRecord(item, depth + 1))
  }
  return Predicate.isRecord(body) && detectRecord(body, depth)
}

const detectRecord = (body: Rec, depth: number): boolean => {
  if (isResponseMessage(body) || isRequest(body)) return true
  if (depth > 1) return false
  const request = body["request"]
  const response = body["response"]
  return (Predicate.isRecord(request) && detectRecord(request, depth + 1)) || (Predicate.isRecord(response) && isResponseMessage(response))
}

/**
 * True when the body has an Anthropic-only marker: a message or response with Anthropic content
 * blocks, or a request with a top-level `system`. The `openai` importer uses it to leave these
 * bodies alone. Never throws.
 */
export const hasAnthropicMarker = (body: unknown): boolean => detectValue(body, 0)

// ---------------------------------------------------------------------------------------------
// Reading

/** Drops the opaque `encrypted_*` fields of server tool results (they are not readable text). */
const readable = (value: unknown, depth = 0): unknown => {
  if (depth > 8) return value
  if (Array.isArray(value)) return value.map((item) => readable(item, depth + 1))
  if (!Predicate.isRecord(value)) return value
  const out: Record<string, unknown> = {}
  for (const [key, field] of Object.entries(value)) {
    if (!key.startsWith("encrypted_")) out[key] = readable(field, depth + 1)
  }
  return out
}

interface Reader {
  readonly builder: TraceBuilder
  /** tool_use id → tool name, across the whole body. */
  readonly tools: Map<string, string>
  failed: boolean
  responses: Array<string>
}

const speaker = (role: string | undefined): Who | undefined => {
  if (role === "user") return { actor: "user", role: "user" }
  if (role === "assistant") return { actor: "assistant", role: "agent" }
  if (role === "system") return { actor: "system", role: "system" }
  return undefined
}

/** One content block's events (none when skipped). */
const blockEvents = (reader: Reader, block: unknown, who: Who, source: string): Array<EventInput> => {
  if (typeof block === "string") return block.length > 0 ? [{ actor: who.actor, role: who.role, kind: "message", content: block, source }] : []
  if (!Predicate.isRecord(block)) {
    reader.builder.skip()
    return []
  }
  const type = stringField(block, "type")
  switch (type) {
    case "text": {
      const text = stringField(block, "text")
      if (text === undefined) break
      return text.length > 0 ? [{ actor: who.actor, role: who.role, kind: "message", content: text, source }] : []
    }
    case "thinking": {
      const thinking = stringField(block, "thinking")
      if (thinking === undefined) break
      return thinking.length > 0 ? [{ actor: who.actor, role: who.role, kind: "thought", content: thinking, source }] : []
    }
    case "tool_use":
    case "server_tool_use":
    case "mcp_tool_use":
      return [{ actor: who.actor, role: who.role, ...toolUseOf(reader.tools, block).call, source }]
    case "tool_result":
    case "mcp_tool_result":
      return [{ ...toolResultOf(reader.builder, reader.tools, block), source }]
    default: {
      if (type !== undefined && type.endsWith("_tool_result")) {
        const id = stringField(block, "tool_use_id")
        const tool = (id === undefined ? undefined : reader.tools.get(id)) ?? type.slice(0, -"_tool_result".length)
        const content = block["content"]
        if (Predicate.isRecord(content) && (stringField(content, "type") ?? "").endsWith("_error")) {
          const code = stringField(content, "error_code")
          return [{ actor: tool, role: "tool", kind: "error", content: code ?? jsonText(content), tool, source, call_id: id, status: "error", status_code: code }]
        }
        return [{ actor: tool, role: "tool", kind: "tool_result", content: jsonText(readable(content)), tool, source, call_id: id }]
      }
    }
  }
  // redacted_thinking, image, document, search_result, container_upload, unknown or malformed
  reader.builder.skip()
  return []
}

/** The events of one message `{role, content}` (content a string or blocks). */
const messageEvents = (reader: Reader, message: unknown, source: string): Array<EventInput> => {
  if (!Predicate.isRecord(message)) {
    reader.builder.skip()
    return []
  }
  const who = speaker(stringField(message, "role"))
  const content = message["content"]
  if (who === undefined) {
    reader.builder.skip()
    return []
  }
  if (typeof content === "string") return content.length > 0 ? [{ actor: who.actor, role: who.role, kind: "message", content, source }] : []
  if (Array.isArray(content)) return content.flatMap((block, index) => blockEvents(reader, block, who, `${source}.content[${index}]`))
  reader.builder.skip()
  return []
}

/** The events of a response: a message, or an error (`{type: "error", error: {type, message}}`). */
const responseEvents = (reader: Reader, response: Rec, prefix: string): Array<EventInput> => {
  if (response["type"] === "error" || (Predicate.isRecord(response["error"]) && !("content" in response))) {
    const error = response["error"]
    const message = Predicate.isRecord(error) ? (stringField(error, "message") ?? stringField(error, "type")) : typeof error === "string" ? error : undefined
    reader.failed = true
    return [{
      actor: "assistant",
      role: "agent",
      kind: "error",
      content: message ?? jsonText(error),
      source: at(prefix, "error"),
      status: "error",
      status_code: Predicate.isRecord(error) ? stringField(error, "type") : undefined,
      status_message: Predicate.isRecord(error) ? stringField(error, "message") : undefined
    }]
  }
  const id = stringField(response, "id")
  if (id !== undefined) reader.responses.push(id)
  const content = response["content"]
  const who: Who = { actor: "assistant", role: "agent" }
  if (typeof content === "string") return content.length > 0 ? [{ actor: who.actor, role: who.role, kind: "message", content, source: at(prefix, "content") }] : []
  if (!Array.isArray(content)) {
    reader.builder.skip()
    return []
  }
  return content.flatMap((block, index) => blockEvents(reader, block, who, `${at(prefix, "content")}[${index}]`))
}

/** True when a record is a call: a request, a response, an error response or a pair. */
const isCall = (value: Rec): boolean =>
  Array.isArray(value["messages"]) ||
  value["type"] === "message" ||
  value["type"] === "error" ||
  Predicate.isRecord(value["request"]) ||
  Predicate.isRecord(value["response"])

/** One call's events in order (system, messages, response), where its output (the response) starts, and the response's facts. */
interface CallEvents {
  readonly events: Array<EventInput>
  readonly outputFrom: number
  /** The response's stop reason and usage (DECISIONS §23), when the call holds a response. */
  readonly response: { readonly facts: CallFacts; readonly source: string } | undefined
}

/** What a response message says of its call: its stop reason and token usage. */
const responseFacts = (response: Rec): CallFacts => {
  const usage = response["usage"]
  const input = Predicate.isRecord(usage) ? countOf(usage["input_tokens"]) : undefined
  const output = Predicate.isRecord(usage) ? countOf(usage["output_tokens"]) : undefined
  const failed = response["type"] === "error" || (Predicate.isRecord(response["error"]) && !("content" in response))
  return {
    status: failed ? "error" : undefined,
    finish_reason: stringField(response, "stop_reason"),
    tokens: input === undefined && output === undefined ? undefined : { input, output }
  }
}

/** The events of one call, in order: system, messages, response. */
const callEvents = (reader: Reader, call: Rec, prefix: string, depth = 0): CallEvents => {
  const events: Array<EventInput> = []
  const request = call["request"]
  // a pair nests once; deeper nesting is not read (a nested request's own response is input here)
  if (Predicate.isRecord(request)) {
    if (depth < 2) events.push(...callEvents(reader, request, at(prefix, "request"), depth + 1).events)
    else reader.builder.skip()
  }
  const system = call["system"]
  if (typeof system === "string") {
    if (system.length > 0) events.push({ actor: "system", role: "system", kind: "message", content: system, source: at(prefix, "system") })
  } else if (Array.isArray(system)) {
    system.forEach((block, index) => {
      events.push(...blockEvents(reader, block, { actor: "system", role: "system" }, `${at(prefix, "system")}[${index}]`))
    })
  }
  const messages = call["messages"]
  if (Array.isArray(messages)) {
    messages.forEach((message, index) => {
      events.push(...messageEvents(reader, message, `${at(prefix, "messages")}[${index}]`))
    })
  }
  const outputFrom = events.length
  let answered: CallEvents["response"]
  if (call["type"] === "message" || call["type"] === "error") {
    events.push(...responseEvents(reader, call, prefix))
    answered = { facts: responseFacts(call), source: prefix.length > 0 ? prefix : "content" }
  }
  const response = call["response"]
  if (Predicate.isRecord(response)) {
    events.push(...responseEvents(reader, response, at(prefix, "response")))
    answered ??= { facts: responseFacts(response), source: at(prefix, "response") }
  }
  // The tools the request offered the model.
  if (Array.isArray(call["tools"])) reader.builder.declareTools(declaredToolsOf(call["tools"]))
  return { events, outputFrom, response: answered }
}

/**
 * A call's events through the history de-duplication: its response is its own output, never
 * history; the response's facts on its first event, or on an empty message when it said nothing.
 */
const addCall = (reader: Reader, call: Rec, prefix: string) => {
  const { events, outputFrom, response } = callEvents(reader, call, prefix)
  reader.builder.addHistory(events, {
    outputFrom,
    call: response === undefined ? undefined : { outputAt: outputFrom, facts: response.facts, actor: "assistant", source: response.source }
  })
}

const fail = (message: string) => Either.left(`anthropic: ${message}`)

export const anthropicImporter: Importer = {
  format: "anthropic",
  detect: detectSafely((body) => hasAnthropicMarker(body) || isManagedAgentsRecording(body)),
  read: (body) => {
    if (isManagedAgentsRecording(body) && Array.isArray(body)) return readManagedAgents(body)
    if (!Array.isArray(body) && !Predicate.isRecord(body)) return fail("expected a Messages API request, response, message list or list of calls")
    if (Array.isArray(body) && body.length === 0) return fail("the body is an empty list: no messages to read")
    // The task is the user's input only: a single response message holds none (DECISIONS §12).
    const reader: Reader = { builder: makeTraceBuilder(null), tools: new Map(), failed: false, responses: [] }
    const { builder } = reader
    if (Array.isArray(body)) {
      body.forEach((item, index) => {
        if (Predicate.isRecord(item) && isCall(item)) {
          addCall(reader, item, `[${index}]`)
        } else {
          for (const event of messageEvents(reader, item, `[${index}]`)) builder.add(event)
        }
      })
    } else if (isCall(body)) {
      addCall(reader, body, "")
    } else {
      return fail("expected `messages`, a response message (`type: \"message\"`) or a `{request, response}` pair")
    }
    if (reader.failed) builder.setSuccess(false)
    if (builder.eventCount() === 0) {
      const trace = builder.build()
      return fail(`no readable messages, content blocks or errors (${trace.skipped} records skipped)`)
    }
    const trace = builder.build()
    const id = reader.responses.length === 1 ? (reader.responses[0] ?? null) : null
    return Either.right([{ ...trace, id }])
  }
}
