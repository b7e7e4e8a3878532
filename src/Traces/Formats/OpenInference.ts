/**
 * The `openinference` importer (DECISIONS §12): Arize Phoenix / OpenInference span attributes in
 * any span shape that `Spans.ts` reads (OTLP/JSON, span lists, ADOT exports).
 *
 * `openinference.span.kind` says what a span is (inferred from its attributes when missing, as in
 * ADOT exports): LLM spans are model calls, their messages from the flattened
 * `llm.input_messages.N.message.*` / `llm.output_messages.N.message.*` attributes (role, content,
 * `contents.M.message_content.*`, `tool_calls.M.tool_call.*`, `tool_call_id`), else from
 * `input.value` / `output.value` (a request or response body, or text); TOOL spans are tool calls
 * and results (`tool.name`, `input.value` or `tool_call.function.arguments`, `output.value`);
 * AGENT spans (`agent.name`, `graph.node.id`) name the actor of the spans under them, and an agent
 * under a different agent is a handoff; RETRIEVER spans are retrieval tool calls; CHAIN spans only
 * give the task and outcome when they are the root. ADOT exports whose spans carry their
 * input/output messages in span-event bodies are read as calls too. ERROR statuses and
 * `exception` events are errors.
 */
import { Predicate } from "effect"
import type { Importer } from "../Importer.js"
import { firstPresent, str, type Rec } from "./Common.js"
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
  type Message,
  type MessageParts,
  type ModelCall,
  type Span,
  type SpanInterpreter,
  type TraceSession
} from "./Spans.js"

type Kind = "LLM" | "TOOL" | "AGENT" | "CHAIN" | "RETRIEVER" | "ADOT" | "OTHER"

/** Whether the span has an attribute under any of these prefixes. */
const hasPrefix = (span: Span, prefixes: ReadonlyArray<string>): boolean => {
  for (const key in span.attributes) if (prefixes.some((prefix) => key.startsWith(prefix))) return true
  return false
}

const adotBody = (span: Span): Rec | undefined => {
  for (const event of span.events) {
    if (Predicate.isRecord(event.body) && (Predicate.isRecord(event.body["input"]) || Predicate.isRecord(event.body["output"]))) return event.body
  }
  return undefined
}

const kindOf = (span: Span): Kind => {
  const declared = str(span.attributes["openinference.span.kind"])?.toUpperCase()
  if (declared === "LLM" || declared === "TOOL" || declared === "AGENT" || declared === "CHAIN" || declared === "RETRIEVER") return declared
  if (declared !== undefined) return "OTHER"
  if (hasPrefix(span, ["llm.input_messages", "llm.output_messages", "llm.model_name", "llm.prompts"])) return "LLM"
  if ("tool.name" in span.attributes || "tool_call.function.name" in span.attributes) return "TOOL"
  if ("agent.name" in span.attributes) return "AGENT"
  if (hasPrefix(span, ["retrieval.documents"])) return "RETRIEVER"
  if (adotBody(span) !== undefined) return "ADOT"
  return "OTHER"
}

// ---------------------------------------------------------------------------------------------
// Messages

/** An OpenInference message (`{message: {role, content, contents, tool_calls, ...}}`) in the common shape. */
const oiMessage = (raw: unknown): unknown => {
  const message = Predicate.isRecord(raw) && Predicate.isRecord(raw["message"]) ? raw["message"] : raw
  if (!Predicate.isRecord(message)) return message
  const contents = Array.isArray(message["contents"])
    ? message["contents"].map((entry) => {
        const content = Predicate.isRecord(entry) && Predicate.isRecord(entry["message_content"]) ? entry["message_content"] : entry
        if (!Predicate.isRecord(content)) return content
        const type = str(content["type"]) ?? "text"
        return type === "text" ? { type, text: content["text"] } : { type }
      })
    : undefined
  const calls = Array.isArray(message["tool_calls"])
    ? message["tool_calls"].map((entry) => (Predicate.isRecord(entry) && Predicate.isRecord(entry["tool_call"]) ? entry["tool_call"] : entry))
    : undefined
  const content = message["content"]
  return {
    role: message["role"],
    name: message["name"],
    content: content === undefined || content === null || content === "" ? contents : content,
    tool_calls: calls,
    tool_call_id: message["tool_call_id"]
  }
}

const oiMessages = (span: Span, key: "llm.input_messages" | "llm.output_messages", defaultRole: string, skip: () => void): Array<MessageParts> => {
  const nested = span.attributes[key]
  if (nested !== undefined && !Array.isArray(nested)) skip()
  const list = Array.isArray(nested) ? nested : unflatten(span.attributes, `${key}.`)
  const messages: Array<MessageParts> = []
  for (const raw of list) {
    const message = parseMessage(oiMessage(raw), defaultRole, skip)
    if (message !== undefined) messages.push(message)
  }
  return messages
}

const isJsonMime = (span: Span, key: "input.mime_type" | "output.mime_type"): boolean => str(span.attributes[key])?.includes("json") ?? false

const isTextMime = (span: Span, key: "input.mime_type" | "output.mime_type"): boolean => str(span.attributes[key])?.startsWith("text/") ?? false

/**
 * `input.value` as messages: a request body's `messages` or `input`, a list of messages, or text
 * (an agent's input only when it says it is text: agents' inputs are often their arguments).
 */
const inputValueMessages = (span: Span, skip: () => void, agent = false): Array<MessageParts> => {
  const value = span.attributes["input.value"]
  if (value === undefined || value === null || value === "") return []
  const parsed = parseJsonish(value)
  if (typeof parsed === "string") {
    return agent && !isTextMime(span, "input.mime_type") ? [] : [{ role: "user", name: undefined, items: [{ type: "text", text: parsed }] }]
  }
  if (Array.isArray(parsed)) return [...parseMessages(parsed, "user", skip)]
  if (Predicate.isRecord(parsed)) {
    const messages = firstPresent(parsed["messages"], parsed["input"])
    if (messages !== undefined) return [...parseMessages(messages, "user", skip)]
    const instruction = taskField(parsed)
    if (instruction !== undefined) return [{ role: "user", name: undefined, items: [{ type: "text", text: instruction }] }]
  }
  return isJsonMime(span, "input.mime_type") ? [] : [{ role: "user", name: undefined, items: [{ type: "text", text: textOf(value) }] }]
}

/** `output.value` as messages: a Chat Completion's choice, a Responses `output`, a message, or text. */
const outputValueMessages = (span: Span, skip: () => void, agent = false): Array<MessageParts> => {
  const value = span.attributes["output.value"]
  if (value === undefined || value === null || value === "") return []
  const parsed = parseJsonish(value)
  if (typeof parsed === "string") {
    return agent && !isTextMime(span, "output.mime_type") ? [] : [{ role: "assistant", name: undefined, items: [{ type: "text", text: parsed }] }]
  }
  if (Predicate.isRecord(parsed)) {
    const choices = parsed["choices"]
    if (Array.isArray(choices)) return [...parseMessages(choices.slice(0, 1), "assistant", skip)]
    if (Array.isArray(parsed["output"])) return [...parseMessages(parsed["output"], "assistant", skip)]
    if ("role" in parsed || "content" in parsed) return [...parseMessages(parsed, "assistant", skip)]
  }
  return []
}

/** A task-like field of a JSON input (`task`, `input`, `query`, `question`, `prompt`). */
const taskField = (record: Rec): string | undefined =>
  str(record["task"]) ?? str(record["input"]) ?? str(record["query"]) ?? str(record["question"]) ?? str(record["prompt"])

const rootText = (value: unknown): string | undefined => {
  const parsed = parseJsonish(value)
  if (typeof parsed === "string") return parsed
  return Predicate.isRecord(parsed) ? taskField(parsed) ?? textOf(value) : value === undefined ? undefined : textOf(value)
}

const stamp = (parts: ReadonlyArray<MessageParts>, span: Span, direction: "input" | "output", nanos: bigint | undefined): Array<Message> =>
  stampMessages(parts, (i) => spanSource(span, `${direction}[${i}]`), isoOf(nanos))

// ADOT (LangChain through CloudWatch): messages in span-event bodies, contents often JSON-wrapped.

const LANGCHAIN_ROLES: Readonly<Record<string, string>> = { human: "user", ai: "assistant", tool: "tool", system: "system" }

/** A LangChain-serialized content (`{generations}`, `{messages}`, a tool message) as messages. */
const unwrapLangChain = (role: string, content: string, skip: () => void): ReadonlyArray<MessageParts> | undefined => {
  const parsed = parseJsonish(content)
  if (!Predicate.isRecord(parsed)) return undefined
  const generations = parsed["generations"]
  if (Array.isArray(generations)) {
    const batch: unknown = generations[0]
    const generation: unknown = Array.isArray(batch) ? batch[0] : undefined
    if (!Predicate.isRecord(generation)) return []
    const message = Predicate.isRecord(generation["message"]) ? generation["message"] : undefined
    const kwargs = message !== undefined && Predicate.isRecord(message["kwargs"]) ? message["kwargs"] : message
    const calls = kwargs?.["tool_calls"]
    const parsedMessage = parseMessage(
      {
        role: "assistant",
        content: generation["text"],
        tool_calls: Array.isArray(calls)
          ? calls.map((call) => (Predicate.isRecord(call) ? { id: call["id"], name: call["name"], arguments: firstPresent(call["args"], call["arguments"]) } : call))
          : undefined
      },
      "assistant",
      skip
    )
    return parsedMessage === undefined ? [] : [parsedMessage]
  }
  if (Array.isArray(parsed["messages"])) {
    return parsed["messages"].flatMap((raw) => {
      const entry = Predicate.isRecord(raw) && Predicate.isRecord(raw["kwargs"]) ? raw["kwargs"] : raw
      if (!Predicate.isRecord(entry)) return []
      const type = str(entry["type"])
      const message = parseMessage({ ...entry, role: entry["role"] ?? (type === undefined ? role : LANGCHAIN_ROLES[type] ?? type) }, role, skip)
      return message === undefined ? [] : [message]
    })
  }
  if (parsed["type"] === "tool" && "content" in parsed) {
    const message = parseMessage({ role: "tool", content: parsed["content"], tool_call_id: parsed["tool_call_id"], name: parsed["name"] }, "tool", skip)
    return message === undefined ? [] : [message]
  }
  return undefined
}

/** LangGraph's graph sentinels, which ADOT exports carry as message contents. */
const SENTINELS = new Set(["__start__", "__end__"])

const adotMessages = (side: unknown, defaultRole: string, skip: () => void): Array<MessageParts> => {
  const list = Predicate.isRecord(side) ? side["messages"] : undefined
  if (!Array.isArray(list)) return []
  const messages: Array<MessageParts> = []
  for (const raw of list) {
    if (Predicate.isRecord(raw) && typeof raw["content"] === "string" && SENTINELS.has(raw["content"])) continue
    if (Predicate.isRecord(raw) && typeof raw["content"] === "string") {
      const unwrapped = unwrapLangChain(str(raw["role"]) ?? defaultRole, raw["content"], skip)
      if (unwrapped !== undefined) {
        messages.push(...unwrapped)
        continue
      }
    }
    const message = parseMessage(raw, defaultRole, skip)
    if (message !== undefined) messages.push(message)
  }
  return messages
}

// ---------------------------------------------------------------------------------------------
// The interpreter

const agentNameOf = (span: Span): string | undefined => str(span.attributes["agent.name"]) ?? str(span.attributes["graph.node.id"])

const toolNameOf = (span: Span): string =>
  str(span.attributes["tool.name"]) ?? str(span.attributes["tool_call.function.name"]) ?? (span.name.length > 0 ? span.name : "tool")

const documentsText = (span: Span): string | undefined => {
  const documents = unflatten(span.attributes, "retrieval.documents.")
  const texts = documents.flatMap((entry) => {
    const document = Predicate.isRecord(entry) && Predicate.isRecord(entry["document"]) ? entry["document"] : entry
    const content = Predicate.isRecord(document) ? document["content"] : undefined
    return typeof content === "string" ? [content] : []
  })
  return texts.length > 0 ? texts.join("\n\n") : undefined
}

const makeInterpreter = (): SpanInterpreter => {
  const calls = new Map<Span, ModelCall>()
  const kinds = new Map<Span, Kind>()
  const adotTools = new Set<Span>()
  const actorOf = (span: Span, session: TraceSession): string => session.agentAbove(span) ?? agentNameOf(span) ?? "assistant"

  const callOf = (span: Span, kind: Kind, session: TraceSession): ModelCall => {
    const skip = session.skip
    if (kind === "ADOT") {
      const body = adotBody(span)
      return {
        input: stamp(adotMessages(body?.["input"], "user", skip), span, "input", span.startNanos),
        output: stamp(adotMessages(body?.["output"], "assistant", skip), span, "output", span.endNanos)
      }
    }
    let input = oiMessages(span, "llm.input_messages", "user", skip)
    let output = oiMessages(span, "llm.output_messages", "assistant", skip)
    if (input.length === 0) input = inputValueMessages(span, skip, kind === "AGENT")
    if (output.length === 0) output = outputValueMessages(span, skip, kind === "AGENT")
    return { input: stamp(input, span, "input", span.startNanos), output: stamp(output, span, "output", span.endNanos) }
  }

  const enterCall = (span: Span, kind: Kind, session: TraceSession, actor: string) => {
    const call = callOf(span, kind, session)
    if (call.input.length === 0 && call.output.length === 0) return
    calls.set(span, call)
    if (call.input.length > 0) session.addCall(call.input, [], actor)
  }
  const exitCall = (span: Span, session: TraceSession, actor: string) => {
    const call = calls.get(span)
    calls.delete(span)
    if (call !== undefined && call.output.length > 0) session.addCall(call.input, call.output, actor)
  }

  /** An ADOT span whose output is a tool message: the tool's call and result. */
  const adotTool = (span: Span, session: TraceSession): boolean => {
    const call = callOf(span, "ADOT", session)
    const results = call.output.flatMap((message) => message.items.filter((item) => item.type === "tool_result"))
    const result = results[0]
    if (result === undefined || result.type !== "tool_result") return false
    const name = result.name ?? "tool"
    const source = spanSource(span)
    session.toolStart({ id: result.id, name, args: firstText(call.input), actor: actorOf(span, session), source, timestamp: isoOf(span.startNanos) })
    session.toolEnd({ name, id: result.id, result: result.text, error: spanErrorText(span), source, timestamp: isoOf(span.endNanos) })
    return true
  }

  return {
    agentName: (span) => (kindOf(span) === "AGENT" ? agentNameOf(span) : undefined),
    enter: (span, session) => {
      const kind = kindOf(span)
      kinds.set(span, kind)
      const start = isoOf(span.startNanos)
      if (session.tree.parentOf(span) === undefined) {
        const text = rootText(span.attributes["input.value"])
        if (text !== undefined) session.rootInput(text)
      }
      switch (kind) {
        case "AGENT": {
          const name = agentNameOf(span)
          const above = session.agentAbove(span)
          if (name !== undefined && above !== undefined && above !== name) session.handoff(above, name, span.name, spanSource(span), start, false)
          enterCall(span, kind, session, name ?? actorOf(span, session))
          return
        }
        case "TOOL": {
          const args = firstPresent(span.attributes["input.value"], span.attributes["tool_call.function.arguments"], span.attributes["tool.parameters"])
          session.toolStart({
            id: str(span.attributes["tool_call.id"]) ?? str(span.attributes["tool.id"]),
            name: toolNameOf(span),
            args: args === undefined ? undefined : textOf(args),
            actor: actorOf(span, session),
            source: spanSource(span),
            timestamp: start
          })
          return
        }
        case "RETRIEVER": {
          const query = span.attributes["input.value"]
          session.toolStart({
            id: undefined,
            name: span.name.length > 0 ? span.name : "retriever",
            args: query === undefined ? undefined : textOf(query),
            actor: actorOf(span, session),
            source: spanSource(span),
            timestamp: start
          })
          return
        }
        case "ADOT":
          if (adotTool(span, session)) {
            adotTools.add(span)
            return
          }
          enterCall(span, kind, session, actorOf(span, session))
          return
        case "LLM":
          enterCall(span, kind, session, actorOf(span, session))
          return
        case "CHAIN":
        case "OTHER":
          return
      }
    },
    exit: (span, session) => {
      const kind = kinds.get(span) ?? kindOf(span)
      kinds.delete(span)
      if (adotTools.delete(span)) {
        session.noteStatus(span, false)
        return
      }
      if (session.tree.parentOf(span) === undefined) {
        const text = rootText(span.attributes["output.value"])
        if (text !== undefined) session.rootOutput(text)
      }
      if (kind === "TOOL" || kind === "RETRIEVER") {
        const result = kind === "TOOL" ? span.attributes["output.value"] : documentsText(span) ?? span.attributes["output.value"]
        session.toolEnd({
          name: kind === "TOOL" ? toolNameOf(span) : span.name.length > 0 ? span.name : "retriever",
          id: str(span.attributes["tool_call.id"]) ?? str(span.attributes["tool.id"]),
          result: result === undefined ? undefined : textOf(result),
          error: spanErrorText(span),
          source: spanSource(span),
          timestamp: isoOf(span.endNanos)
        })
        session.noteStatus(span, false)
        return
      }
      const actor = kind === "AGENT" ? agentNameOf(span) ?? actorOf(span, session) : actorOf(span, session)
      exitCall(span, session, actor)
      addSpanErrors(span, actor, session)
      session.noteStatus(span, kind === "AGENT")
    }
  }
}

export const openInferenceImporter: Importer = {
  format: "openinference",
  detect: (body) => sampleSpans(body).records.some(isOpenInferenceSample),
  read: (body) => readSpanTraces(body, makeInterpreter(), "OpenInference")
}
