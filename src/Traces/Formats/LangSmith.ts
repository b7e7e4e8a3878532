/**
 * LangSmith runs (DECISIONS §12, format `langsmith`): a run tree (`child_runs`, as
 * `RunTree.toJSON()` writes it), a flat list of runs linked by `parent_run_id`, or the SDK's batch
 * payload `{post, patch}` (a patch updates the posted run with the same id).
 *
 * Runs are ordered by `dotted_order` (else `start_time`) and walked depth-first from each root;
 * roots with distinct trace ids are distinct traces. llm runs carry the whole conversation so far
 * in `inputs.messages` (OpenAI-style dicts, LangChain serialized messages, `[[...]]` batches), so
 * their inputs and outputs go through `addHistory`; tool runs add a tool call and its result (or
 * error) unless the model's messages already hold them. Chain runs name the actors (the nearest
 * non-generic chain, or the LangGraph node). Cycles in parent ids, runs without ids and non-object
 * records are skipped and counted.
 */
import { Either, Predicate } from "effect"
import type { EventInput, TraceBuilder } from "../Builder.js"
import { makeTraceBuilder } from "../Builder.js"
import type { Importer } from "../Importer.js"
import { stringField } from "../Importer.js"
import type { ActorRole, EventKind, NormalizedTrace } from "../Model.js"
import { compactJson, contentTextOf, detectSafely, epochMs, idOf, isoOfEpoch, nonEmpty, sample, toolCallOf, type Rec, type ToolCallRead } from "./Common.js"

const RUN_TYPES: ReadonlySet<string> = new Set(["chain", "llm", "tool", "retriever", "prompt", "parser", "embedding"])

// ---------------------------------------------------------------------------------------------
// Small readers

/** Milliseconds since the epoch for a number (s, ms, µs or ns) or a date string. */
const timeMs = (value: unknown): number | undefined => {
  if (typeof value === "number") return epochMs(value, "magnitude")
  if (typeof value === "string" && value.length > 0) {
    const parsed = Date.parse(value)
    if (Number.isNaN(parsed)) return undefined
    // Microseconds (the SDKs write them) order runs started within the same millisecond.
    const fraction = /\.\d{3}(\d+)/.exec(value)?.[1]
    return fraction === undefined ? parsed : parsed + Number(`0.${fraction}`)
  }
  return undefined
}

/** ISO-8601 for the event: strings as the source wrote them, epoch numbers converted. */
const timestampOf = (value: unknown): string | undefined => {
  if (typeof value === "string") return nonEmpty(value)
  return typeof value === "number" ? isoOfEpoch(value, "magnitude") : undefined
}

const TEXT_PARTS: ReadonlySet<string> = new Set(["text", "input_text", "output_text"])

/** The text of a message content: a string, or the text parts of a list of parts. */
const textOf = (content: unknown): string | undefined => contentTextOf(content, { textParts: TEXT_PARTS, emptyList: "undefined" })

/** The one text of a run's inputs or outputs: a well-known string field, or the only field. */
const TEXT_FIELDS = ["input", "question", "query", "task", "prompt", "message", "text", "output", "outputs", "answer", "result", "response", "content"]
const singleText = (values: Rec): string | undefined => {
  for (const field of TEXT_FIELDS) {
    const value = values[field]
    if (typeof value === "string" && value.trim().length > 0) return value
  }
  const keys = Object.keys(values)
  if (keys.length === 1) {
    const only = keys[0] === undefined ? undefined : values[keys[0]]
    if (typeof only === "string" && only.trim().length > 0) return only
  }
  return undefined
}

const isGenericChainName = (name: string): boolean =>
  name.includes("<") ||
  /^(Runnable\w*|Channel\w*|Branch\w*|Pregel\w*|LangGraph|StateGraph|CompiledStateGraph|CompiledGraph|__start__|__end__|RouterRunnable|AgentExecutor)$/.test(name)

// ---------------------------------------------------------------------------------------------
// Emitting: history de-duplication shared by llm messages and tool runs

/** The builder's history signature (role, kind, tool, content). */
const signature = (event: EventInput) => `${event.role}\u0000${event.kind}\u0000${event.tool ?? ""}\u0000${event.content}`

/** Sorts object keys, so `{"a": 1}` and `{"a":1}` compare equal. */
const stableJson = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`
  if (Predicate.isRecord(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${stableJson(value[key])}`)
      .join(",")}}`
  }
  return JSON.stringify(value) ?? "null"
}

const canonical = (content: string): string => {
  const trimmed = content.trim()
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
    try {
      return stableJson(JSON.parse(trimmed))
    } catch {
      return trimmed
    }
  }
  return trimmed
}

interface Emitter {
  /** Adds an event that happens once (an error, a chain's own output). */
  readonly add: (event: EventInput) => void
  /** One model call's conversation (inputs then outputs): only messages not seen before. */
  readonly history: (events: ReadonlyArray<EventInput>) => void
  /** Tool-run events: the k-th identical one is added only when fewer than k are in the trace. */
  readonly toolRun: (event: EventInput) => void
  readonly errorSeen: (content: string) => boolean
}

/**
 * The same call or result is often written twice: as the model's message (`tool_calls`, a tool
 * message in the next call's input) and as the tool run. Events equal up to JSON formatting (and
 * a tool message equal to a tool run's error) take the wording of the first one, so the builder's
 * history signature sees them as one.
 */
const makeEmitter = (builder: TraceBuilder): Emitter => {
  const seen = new Map<string, number>()
  const toolRunCounts = new Map<string, number>()
  const aliases = new Map<string, { readonly kind: EventKind; readonly content: string }>()
  const errors = new Set<string>()

  const normalize = (event: EventInput): EventInput => {
    const outcome = event.role === "tool" && (event.kind === "tool_result" || event.kind === "error")
    const key = `${event.role}\u0000${outcome ? "outcome" : event.kind}\u0000${event.tool ?? ""}\u0000${canonical(event.content)}`
    const known = aliases.get(key)
    if (known === undefined) {
      aliases.set(key, { kind: event.kind, content: event.content })
      return event
    }
    return known.kind === event.kind && known.content === event.content ? event : { ...event, kind: known.kind, content: known.content }
  }
  const count = (event: EventInput) => {
    const sig = signature(event)
    seen.set(sig, (seen.get(sig) ?? 0) + 1)
    if (event.kind === "error") errors.add(event.content.trim())
  }
  return {
    add: (raw) => {
      const event = normalize(raw)
      builder.add(event)
      count(event)
    },
    history: (raw) => {
      const events = raw.map(normalize)
      const occurrences = new Map<string, number>()
      const added: Array<EventInput> = []
      for (const event of events) {
        const sig = signature(event)
        const occurrence = (occurrences.get(sig) ?? 0) + 1
        occurrences.set(sig, occurrence)
        if (occurrence > (seen.get(sig) ?? 0)) added.push(event)
      }
      builder.addHistory(events)
      for (const event of added) count(event)
    },
    toolRun: (raw) => {
      const event = normalize(raw)
      const sig = signature(event)
      const occurrence = (toolRunCounts.get(sig) ?? 0) + 1
      toolRunCounts.set(sig, occurrence)
      if (occurrence > (seen.get(sig) ?? 0)) {
        builder.add(event)
        count(event)
      }
    },
    errorSeen: (content) => errors.has(content.trim())
  }
}

// ---------------------------------------------------------------------------------------------
// Messages (OpenAI-style dicts, LangChain serialized / dict messages, content blocks)

interface MessageContext {
  /** The agent speaking for assistant messages. */
  readonly actor: string
  /** Tool names by tool call id, filled as calls are read. */
  readonly toolNames: Map<string, string>
}

type Side = "user" | "agent" | "system" | "tool"

const sideOf = (type: string): Side | undefined => {
  const t = type.replace(/Chunk$/, "")
  switch (t) {
    case "user":
    case "human":
    case "HumanMessage":
      return "user"
    case "assistant":
    case "ai":
    case "AIMessage":
    case "model":
      return "agent"
    case "system":
    case "developer":
    case "SystemMessage":
      return "system"
    case "tool":
    case "function":
    case "ToolMessage":
    case "FunctionMessage":
      return "tool"
    default:
      return undefined
  }
}

/** The side and fields of a message in any of the shapes above, or undefined. */
const messageParts = (message: Rec): { readonly side: Side; readonly fields: Rec } | undefined => {
  const id = message["id"]
  if (message["lc"] === 1 && Array.isArray(id) && Predicate.isRecord(message["kwargs"])) {
    const fields = message["kwargs"]
    const cls = id.at(-1)
    if (typeof cls !== "string") return undefined
    const side = cls.replace(/Chunk$/, "") === "ChatMessage" ? sideOf(stringField(fields, "role") ?? "") : sideOf(cls)
    return side === undefined ? undefined : { side, fields }
  }
  const type = stringField(message, "type")
  const data = message["data"]
  if (type !== undefined && Predicate.isRecord(data) && ("content" in data || "tool_calls" in data)) {
    const side = type === "chat" ? sideOf(stringField(data, "role") ?? "") : sideOf(type)
    return side === undefined ? undefined : { side, fields: data }
  }
  const role = stringField(message, "role") ?? type
  if (role === undefined) return undefined
  const side = sideOf(role)
  return side === undefined ? undefined : { side, fields: message }
}

/** `{id, function: {name, arguments}}` (OpenAI) or `{id, name, args}` (LangChain). */
const callOf = (call: unknown): ToolCallRead | undefined => toolCallOf(call, { nested: ["arguments"], flat: ["args", "arguments", "input"] })

/**
 * The events of one message, or undefined when it is not a message this importer knows (counted
 * as skipped by the caller).
 */
const messageEvents = (
  message: unknown,
  source: string,
  timestamp: string | undefined,
  context: MessageContext
): ReadonlyArray<EventInput> | undefined => {
  if (typeof message === "string") return [{ actor: "user", role: "user", kind: "message", content: message, source, timestamp }]
  if (Array.isArray(message) && message.length === 2 && typeof message[0] === "string" && typeof message[1] === "string") {
    const side = sideOf(message[0])
    if (side === undefined || side === "tool") return undefined
    return [eventFor(side, context, message[1], source, timestamp)]
  }
  if (!Predicate.isRecord(message)) return undefined
  const parts = messageParts(message)
  if (parts === undefined) return undefined
  const { side, fields } = parts
  const events: Array<EventInput> = []
  const content = fields["content"]
  const additional = Predicate.isRecord(fields["additional_kwargs"]) ? fields["additional_kwargs"] : {}

  if (side === "tool") {
    const callId = idOf(fields["tool_call_id"])
    const tool = stringField(fields, "name") ?? (callId === undefined ? undefined : context.toolNames.get(callId))
    const kind: EventKind = stringField(fields, "status") === "error" ? "error" : "tool_result"
    events.push({ actor: tool ?? "tool", role: "tool", kind, content: textOf(content) ?? "", tool, source, timestamp })
    return events
  }

  const reasoning = stringField(fields, "reasoning_content") ?? stringField(additional, "reasoning_content")
  if (side === "agent" && nonEmpty(reasoning) !== undefined && reasoning !== undefined) {
    events.push({ actor: context.actor, role: "agent", kind: "thought", content: reasoning, source, timestamp })
  }

  // Content blocks: text, thinking, tool_use (assistant) and tool_result (user) blocks.
  const calls: Array<ToolCallRead> = []
  if (Array.isArray(content)) {
    for (const block of content) {
      if (!Predicate.isRecord(block)) continue
      const type = stringField(block, "type")
      if (side === "agent" && (type === "thinking" || type === "reasoning")) {
        const thought = stringField(block, "thinking") ?? stringField(block, "text")
        if (nonEmpty(thought) !== undefined && thought !== undefined) events.push({ actor: context.actor, role: "agent", kind: "thought", content: thought, source, timestamp })
      } else if (type === "tool_use" || type === "tool_call" || type === "function_call") {
        const call = callOf(block)
        if (call !== undefined) calls.push(call)
      } else if (type === "tool_result") {
        const callId = idOf(block["tool_use_id"])
        const tool = callId === undefined ? undefined : context.toolNames.get(callId)
        events.push({
          actor: tool ?? "tool",
          role: "tool",
          kind: block["is_error"] === true ? "error" : "tool_result",
          content: textOf(block["content"]) ?? "",
          tool,
          source,
          timestamp
        })
      }
    }
  }
  const text = textOf(content)
  if (text !== undefined && text.trim().length > 0) events.push(eventFor(side, context, text, source, timestamp))

  if (side === "agent") {
    const toolCalls = Array.isArray(fields["tool_calls"]) && fields["tool_calls"].length > 0 ? fields["tool_calls"] : additional["tool_calls"]
    if (Array.isArray(toolCalls)) {
      for (const raw of toolCalls) {
        const call = callOf(raw)
        if (call !== undefined) calls.push(call)
      }
    }
    const functionCall = fields["function_call"] ?? additional["function_call"]
    const fnCall = callOf(Predicate.isRecord(functionCall) ? { function: functionCall } : undefined)
    if (fnCall !== undefined && calls.length === 0) calls.push(fnCall)
    for (const call of calls) {
      if (call.id !== undefined) context.toolNames.set(call.id, call.name)
      events.push({ actor: context.actor, role: "agent", kind: "tool_call", content: call.args, tool: call.name, source, timestamp })
    }
  }
  return events
}

const eventFor = (side: Exclude<Side, "tool">, context: MessageContext, content: string, source: string, timestamp: string | undefined): EventInput => {
  switch (side) {
    case "user":
      return { actor: "user", role: "user", kind: "message", content, source, timestamp }
    case "system":
      return { actor: "system", role: "system", kind: "message", content, source, timestamp }
    case "agent":
      return { actor: context.actor, role: "agent", kind: "message", content, source, timestamp }
  }
}

// ---------------------------------------------------------------------------------------------
// Collecting runs

interface Run {
  readonly id: string
  readonly index: number
  readonly fields: Record<string, unknown>
  /** The parent given by nesting in a run tree, which wins over `parent_run_id`. */
  structuralParent: string | undefined
}

const parentOf = (run: Run): string | undefined => run.structuralParent ?? idOf(run.fields["parent_run_id"])
const traceOf = (run: Run): string => idOf(run.fields["trace_id"]) ?? run.id

interface Collected {
  readonly runs: Map<string, Run>
  /** Records skipped, by trace id when known (`""` when not). */
  readonly skipped: Map<string, number>
}

const collect = (body: unknown): Collected => {
  const runs = new Map<string, Run>()
  const byDottedOrder = new Map<string, Run>()
  const skipped = new Map<string, number>()
  const skip = (record: unknown) => {
    const trace = Predicate.isRecord(record) ? (idOf(record["trace_id"]) ?? "") : ""
    skipped.set(trace, (skipped.get(trace) ?? 0) + 1)
  }
  let index = 0

  const merge = (run: Run, record: Rec) => {
    for (const [key, value] of Object.entries(record)) {
      if (key === "child_runs" || key === "id" || key === "__proto__" || value === undefined || value === null) continue
      run.fields[key] = value
    }
  }

  interface Pending {
    readonly value: unknown
    readonly parent: string | undefined
    readonly patch: boolean
  }
  const stack: Array<Pending> = []
  const pushAll = (values: ReadonlyArray<unknown>, parent: string | undefined, patch: boolean) => {
    for (let i = values.length - 1; i >= 0; i--) stack.push({ value: values[i], parent, patch })
  }

  if (Predicate.isRecord(body) && (Array.isArray(body["post"]) || Array.isArray(body["patch"]))) {
    // Patches after posts: pushed first, so popped last.
    if (Array.isArray(body["patch"])) pushAll(body["patch"], undefined, true)
    if (Array.isArray(body["post"])) pushAll(body["post"], undefined, false)
  } else if (Predicate.isRecord(body) && Array.isArray(body["runs"])) pushAll(body["runs"], undefined, false)
  else if (Array.isArray(body)) pushAll(body, undefined, false)
  else stack.push({ value: body, parent: undefined, patch: false })

  for (let pending = stack.pop(); pending !== undefined; pending = stack.pop()) {
    const { value, parent, patch } = pending
    if (!Predicate.isRecord(value)) {
      skip(value)
      continue
    }
    const id = idOf(value["id"])
    const dotted = stringField(value, "dotted_order")
    const existing = id !== undefined ? runs.get(id) : patch && dotted !== undefined ? byDottedOrder.get(dotted) : undefined
    let self: string | undefined
    if (existing !== undefined) {
      merge(existing, value)
      if (parent !== undefined) existing.structuralParent = parent
      self = existing.id
    } else if (id !== undefined) {
      const fields: Record<string, unknown> = {}
      const run: Run = { id, index: index++, fields, structuralParent: parent }
      merge(run, value)
      runs.set(id, run)
      if (dotted !== undefined) byDottedOrder.set(dotted, run)
      self = id
    } else {
      skip(value)
      self = parent
    }
    const children = value["child_runs"]
    if (Array.isArray(children)) pushAll(children, self, false)
  }
  return { runs, skipped }
}

const compareRuns = (a: Run, b: Run): number => {
  const da = stringField(a.fields, "dotted_order")
  const db = stringField(b.fields, "dotted_order")
  if (da !== undefined && db !== undefined && da !== db) return da < db ? -1 : 1
  const ta = timeMs(a.fields["start_time"])
  const tb = timeMs(b.fields["start_time"])
  if (ta !== undefined && tb !== undefined && ta !== tb) return ta - tb
  return a.index - b.index
}

// ---------------------------------------------------------------------------------------------
// Reading one trace

const runType = (run: Run): string => {
  const type = stringField(run.fields, "run_type")
  return type !== undefined && RUN_TYPES.has(type) ? type : "chain"
}
const runName = (run: Run): string => nonEmpty(stringField(run.fields, "name")) ?? runType(run)
const recordOf = (value: unknown): Rec => (Predicate.isRecord(value) ? value : {})
const langGraphNode = (run: Run): string | undefined => {
  const node = stringField(recordOf(recordOf(run.fields["extra"])["metadata"]), "langgraph_node")
  return node !== undefined && nonEmpty(node) !== undefined && !isGenericChainName(node) ? node : undefined
}

interface TraceContext {
  readonly emit: Emitter
  readonly builder: TraceBuilder
  readonly toolNames: Map<string, string>
  /** Messages that are not read (unknown roles, malformed). */
  skipped: number
}

const llmEvents = (run: Run, actor: string, trace: TraceContext) => {
  const source = `run:${run.id}`
  const start = timestampOf(run.fields["start_time"])
  const end = timestampOf(run.fields["end_time"]) ?? start
  const context: MessageContext = { actor, toolNames: trace.toolNames }
  const events: Array<EventInput> = []
  const read = (message: unknown, at: string, timestamp: string | undefined) => {
    const converted = messageEvents(message, at, timestamp, context)
    if (converted === undefined) trace.skipped++
    else events.push(...converted)
  }

  const inputs = recordOf(run.fields["inputs"])
  const system = stringField(inputs, "system")
  if (system !== undefined && system.trim().length > 0) events.push({ actor: "system", role: "system", kind: "message", content: system, source: `${source}/inputs.system`, timestamp: start })
  const messages = inputs["messages"] ?? (Array.isArray(inputs["input"]) ? inputs["input"] : undefined)
  const field = inputs["messages"] !== undefined ? "messages" : "input"
  if (Array.isArray(messages)) {
    messages.forEach((message, i) => {
      if (Array.isArray(message) && !(message.length === 2 && typeof message[0] === "string")) {
        message.forEach((inner, j) => read(inner, `${source}/inputs.${field}[${i}][${j}]`, start))
      } else read(message, `${source}/inputs.${field}[${i}]`, start)
    })
  } else if (Array.isArray(inputs["prompts"])) {
    inputs["prompts"].forEach((prompt, i) => read(typeof prompt === "string" ? prompt : undefined, `${source}/inputs.prompts[${i}]`, start))
  } else {
    const prompt = stringField(inputs, "prompt") ?? stringField(inputs, "input")
    if (prompt !== undefined) read(prompt, `${source}/inputs`, start)
  }

  const outputs = run.fields["outputs"]
  if (Predicate.isRecord(outputs)) {
    const generations = outputs["generations"]
    const choices = outputs["choices"]
    if (Array.isArray(generations)) {
      generations.forEach((generation, i) => {
        const first: unknown = Array.isArray(generation) ? generation[0] : generation
        const at = Array.isArray(generation) ? `${source}/outputs.generations[${i}][0]` : `${source}/outputs.generations[${i}]`
        if (!Predicate.isRecord(first)) return
        const message = first["message"]
        if (message !== undefined) read(Predicate.isRecord(message) && !("role" in message) && !("lc" in message) && !("type" in message) ? { ...message, role: "assistant" } : message, at, end)
        else {
          const text = stringField(first, "text")
          if (text !== undefined && text.trim().length > 0) events.push({ actor, role: "agent", kind: "message", content: text, source: at, timestamp: end })
        }
      })
    } else if (Array.isArray(choices)) {
      const first: unknown = choices[0]
      if (Predicate.isRecord(first)) {
        const message = first["message"] ?? first["delta"]
        const text = stringField(first, "text")
        if (Predicate.isRecord(message)) read("role" in message ? message : { ...message, role: "assistant" }, `${source}/outputs.choices[0]`, end)
        else if (text !== undefined && text.trim().length > 0) events.push({ actor, role: "agent", kind: "message", content: text, source: `${source}/outputs.choices[0]`, timestamp: end })
      }
    } else if (Predicate.isRecord(outputs["message"]) || Predicate.isRecord(outputs["output"])) {
      const message = Predicate.isRecord(outputs["message"]) ? outputs["message"] : outputs["output"]
      read(Predicate.isRecord(message) && !("role" in message) && !("lc" in message) && !("type" in message) ? { ...message, role: "assistant" } : message, `${source}/outputs`, end)
    } else if ("role" in outputs || outputs["lc"] === 1 || (Array.isArray(outputs["content"]) && "type" in outputs)) {
      read(outputs, `${source}/outputs`, end)
    } else {
      const text = singleText(outputs)
      if (text !== undefined) events.push({ actor, role: "agent", kind: "message", content: text, source: `${source}/outputs`, timestamp: end })
    }
  }
  trace.emit.history(events)
}

const toolText = (values: unknown): string => {
  if (typeof values === "string") return values
  if (!Predicate.isRecord(values)) return values === undefined || values === null ? "" : compactJson(values)
  const keys = Object.keys(values)
  for (const key of ["input", "output", "outputs", "result", "content"]) {
    const value = values[key]
    if (keys.length === 1 || key === "input" || key === "output") {
      if (typeof value === "string") return value
      if (Predicate.isRecord(value) && value["lc"] === 1 && Predicate.isRecord(value["kwargs"])) return textOf(value["kwargs"]["content"]) ?? ""
      if (Predicate.isRecord(value) && ("tool_call_id" in value || value["type"] === "tool")) return textOf(value["content"]) ?? ""
    }
  }
  return compactJson(values)
}

const documentsText = (outputs: unknown): string => {
  const documents = Predicate.isRecord(outputs) ? outputs["documents"] : undefined
  if (!Array.isArray(documents)) return toolText(outputs)
  return documents
    .map((doc) => (Predicate.isRecord(doc) ? (stringField(doc, "page_content") ?? stringField(doc, "pageContent") ?? compactJson(doc)) : String(doc)))
    .join("\n\n")
}

const toolEvents = (run: Run, actor: string, trace: TraceContext) => {
  const source = `run:${run.id}`
  const tool = runName(run)
  const start = timestampOf(run.fields["start_time"])
  const end = timestampOf(run.fields["end_time"]) ?? start
  const inputs = run.fields["inputs"]
  const args = runType(run) === "retriever" && Predicate.isRecord(inputs) && typeof inputs["query"] === "string" ? inputs["query"] : toolText(inputs)
  trace.emit.toolRun({ actor, role: "agent", kind: "tool_call", content: args, tool, source, timestamp: start })
  const outputs = run.fields["outputs"]
  if (Predicate.isRecord(outputs) && Object.keys(outputs).length > 0) {
    const content = runType(run) === "retriever" ? documentsText(outputs) : toolText(outputs)
    trace.emit.toolRun({ actor: tool, role: "tool", kind: "tool_result", content, tool, source, timestamp: end })
  }
  const error = nonEmpty(stringField(run.fields, "error"))
  if (error !== undefined) trace.emit.toolRun({ actor: tool, role: "tool", kind: "error", content: error, tool, source, timestamp: end })
}

const errorEvent = (run: Run, actor: string, role: ActorRole, trace: TraceContext, always: boolean) => {
  const error = nonEmpty(stringField(run.fields, "error"))
  if (error === undefined) return
  // A chain's error is usually its failing child's, propagated: said once.
  if (!always && trace.emit.errorSeen(error)) return
  trace.emit.add({
    actor,
    role,
    kind: "error",
    content: error,
    source: `run:${run.id}`,
    timestamp: timestampOf(run.fields["end_time"]) ?? timestampOf(run.fields["start_time"])
  })
}

/** A root run's `messages` (inputs or outputs) as one history; unreadable messages are counted. */
const rootMessages = (messages: ReadonlyArray<unknown>, at: string, timestamp: string | undefined, actor: string, trace: TraceContext) => {
  const events: Array<EventInput> = []
  const context: MessageContext = { actor, toolNames: trace.toolNames }
  messages.forEach((message, i) => {
    const converted = messageEvents(message, `${at}[${i}]`, timestamp, context)
    if (converted === undefined) trace.skipped++
    else events.push(...converted)
  })
  trace.emit.history(events)
}

const rootEnter = (run: Run, actor: string, trace: TraceContext) => {
  const inputs = recordOf(run.fields["inputs"])
  const source = `run:${run.id}`
  const timestamp = timestampOf(run.fields["start_time"])
  const messages = inputs["messages"]
  if (Array.isArray(messages)) {
    rootMessages(messages, `${source}/inputs.messages`, timestamp, actor, trace)
    return
  }
  const text = singleText(inputs)
  if (text !== undefined) {
    trace.builder.setTask(text)
    trace.emit.history([{ actor: "user", role: "user", kind: "message", content: text, source, timestamp }])
  } else if (Object.keys(inputs).length > 0) trace.builder.setTask(compactJson(inputs))
}

const rootExit = (run: Run, actor: string, trace: TraceContext, chainLike: boolean) => {
  const outputs = run.fields["outputs"]
  const source = `run:${run.id}`
  const timestamp = timestampOf(run.fields["end_time"])
  if (chainLike && Predicate.isRecord(outputs)) {
    const messages = outputs["messages"]
    if (Array.isArray(messages)) rootMessages(messages, `${source}/outputs.messages`, timestamp, actor, trace)
    else {
      const text = singleText(outputs)
      if (text !== undefined) {
        trace.builder.setOutcome(text)
        trace.emit.history([{ actor, role: "agent", kind: "message", content: text, source, timestamp }])
      } else if (Object.keys(outputs).length > 0) trace.builder.setOutcome(compactJson(outputs))
    }
  }
  errorEvent(run, actor, "agent", trace, false)
  const error = nonEmpty(stringField(run.fields, "error"))
  if (error !== undefined) {
    trace.builder.setOutcome(error)
    trace.builder.setSuccess(false)
  } else if (run.fields["end_time"] !== undefined || (Predicate.isRecord(outputs) && Object.keys(outputs).length > 0)) trace.builder.setSuccess(true)
}

interface Frame {
  readonly run: Run
  readonly exit: boolean
  /** The agent acting for this run's descendants. */
  readonly agent: string | undefined
}

const readTrace = (traceId: string, roots: ReadonlyArray<Run>, children: ReadonlyMap<string, ReadonlyArray<Run>>, visited: Set<string>, skipped: number): NormalizedTrace => {
  const builder = makeTraceBuilder(traceId)
  const trace: TraceContext = { emit: makeEmitter(builder), builder, toolNames: new Map(), skipped: 0 }
  const primary = roots.find((root) => parentOf(root) === undefined) ?? roots[0]

  const stack: Array<Frame> = []
  for (let i = roots.length - 1; i >= 0; i--) {
    const root = roots[i]
    if (root !== undefined) stack.push({ run: root, exit: false, agent: undefined })
  }
  for (let frame = stack.pop(); frame !== undefined; frame = stack.pop()) {
    const { run, exit, agent } = frame
    const type = runType(run)
    const chainLike = type === "chain"
    const own = chainLike && !isGenericChainName(runName(run)) ? runName(run) : undefined
    const actor = langGraphNode(run) ?? own ?? agent ?? "assistant"
    if (exit) {
      if (run === primary) rootExit(run, actor, trace, chainLike)
      else if (chainLike) errorEvent(run, actor, "agent", trace, false)
      continue
    }
    if (visited.has(run.id)) continue
    visited.add(run.id)
    if (run === primary && chainLike) rootEnter(run, actor, trace)
    if (type === "llm") {
      llmEvents(run, langGraphNode(run) ?? agent ?? own ?? "assistant", trace)
      errorEvent(run, langGraphNode(run) ?? agent ?? "assistant", "agent", trace, true)
    } else if (type === "tool" || type === "retriever") {
      toolEvents(run, langGraphNode(run) ?? agent ?? "assistant", trace)
    } else if (!chainLike) errorEvent(run, agent ?? "assistant", "agent", trace, true)
    stack.push({ run, exit: true, agent })
    const kids = children.get(run.id) ?? []
    const childAgent = chainLike ? (langGraphNode(run) ?? own ?? agent) : agent
    for (let i = kids.length - 1; i >= 0; i--) {
      const kid = kids[i]
      if (kid !== undefined && !visited.has(kid.id)) stack.push({ run: kid, exit: false, agent: childAgent })
    }
  }
  builder.skip(skipped + trace.skipped)
  return builder.build()
}

const read = (body: unknown): Either.Either<ReadonlyArray<NormalizedTrace>, string> => {
  const { runs, skipped } = collect(body)
  if (runs.size === 0) {
    return Either.left("langsmith: no runs found (expected a run tree with `child_runs`, a list of runs with ids, or the batch payload {post, patch})")
  }
  const ordered = [...runs.values()].sort(compareRuns)
  const children = new Map<string, Array<Run>>()
  const roots: Array<Run> = []
  for (const run of ordered) {
    const parent = parentOf(run)
    if (parent === undefined || (parent !== run.id && !runs.has(parent))) roots.push(run)
    else if (parent !== run.id) {
      const list = children.get(parent)
      if (list === undefined) children.set(parent, [run])
      else list.push(run)
    }
  }
  if (roots.length === 0) return Either.left("langsmith: no root run (every run's `parent_run_id` leads into a cycle)")

  const groups = new Map<string, Array<Run>>()
  for (const root of roots) {
    const key = traceOf(root)
    const group = groups.get(key)
    if (group === undefined) groups.set(key, [root])
    else group.push(root)
  }
  // Runs reached from no root sit on a parent-id cycle.
  const reachable = new Set<string>()
  const pending = [...roots]
  for (let run = pending.pop(); run !== undefined; run = pending.pop()) {
    if (reachable.has(run.id)) continue
    reachable.add(run.id)
    for (const child of children.get(run.id) ?? []) pending.push(child)
  }
  for (const run of ordered) {
    if (!reachable.has(run.id)) {
      const key = idOf(run.fields["trace_id"]) ?? ""
      skipped.set(key, (skipped.get(key) ?? 0) + 1)
    }
  }

  const keys = [...groups.keys()]
  const unattributed = [...skipped.entries()].filter(([key]) => !groups.has(key)).reduce((sum, [, n]) => sum + n, 0)
  const visited = new Set<string>()
  const traces: Array<NormalizedTrace> = []
  keys.forEach((key, i) => {
    const group = groups.get(key) ?? []
    const trace = readTrace(key, group, children, visited, (skipped.get(key) ?? 0) + (i === 0 ? unattributed : 0))
    if (trace.events.length > 0) traces.push(trace)
  })
  if (traces.length === 0) return Either.left("langsmith: the runs hold no messages, tool calls, outputs or errors to read")
  return Either.right(traces)
}

// ---------------------------------------------------------------------------------------------
// Detection

const looksLikeRun = (value: unknown): boolean => {
  if (!Predicate.isRecord(value)) return false
  const type = value["run_type"]
  return (
    typeof type === "string" &&
    RUN_TYPES.has(type) &&
    ("id" in value || "inputs" in value || "child_runs" in value || "trace_id" in value || "dotted_order" in value)
  )
}

const detect = (body: unknown): boolean => {
  if (Array.isArray(body)) return sample(body).some(looksLikeRun)
  if (!Predicate.isRecord(body)) return false
  if (looksLikeRun(body)) return true
  const post = body["post"]
  const patch = body["patch"]
  if (Array.isArray(post) || Array.isArray(patch)) {
    const records = [...(Array.isArray(post) ? sample(post) : []), ...(Array.isArray(patch) ? sample(patch) : [])]
    if (records.length === 0) return Array.isArray(post) && Array.isArray(patch)
    return records.some(
      (record) => looksLikeRun(record) || (Predicate.isRecord(record) && (typeof record["dotted_order"] === "string" || (typeof record["trace_id"] === "string" && ("inputs" in record || "outputs" in record))))
    )
  }
  const runs = body["runs"]
  return Array.isArray(runs) && sample(runs).some(looksLikeRun)
}

export const langSmithImporter: Importer = {
  format: "langsmith",
  detect: detectSafely(detect),
  read
}
