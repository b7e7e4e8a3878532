/**
 * Reading one LangSmith trace (DECISIONS §12): its run tree walked depth-first from the roots,
 * llm runs through `addHistory`, tool runs as tool calls and results, chain runs naming the actors
 * (the nearest non-generic chain, or the LangGraph node), errors and the root's input and output.
 */
import * as Predicate from "effect/Predicate"
import type { CallFacts, EventInput, TraceBuilder } from "../../Builder.js"
import { makeTraceBuilder } from "../../Builder.js"
import { stringField } from "../../Importer.js"
import type { ActorRole, NormalizedTrace, TokenUsage } from "../../Model.js"
import { compactJson, countOf, declaredToolsOf, idOf, nonEmpty, type Rec } from "../Common.js"
import { type Emitter, makeEmitter } from "./Emitter.js"
import { type MessageContext, messageEvents } from "./Messages.js"
import { parentOf, type Run } from "./Runs.js"
import { isGenericChainName, RUN_TYPES, singleText, textOf, timeMs, timestampOf } from "./Values.js"

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

/** A run's duration in milliseconds, from its start and end times. */
const durationOf = (run: Run): number | undefined => {
  const start = timeMs(run.fields["start_time"])
  const end = timeMs(run.fields["end_time"])
  return start === undefined || end === undefined || end < start ? undefined : end - start
}

/** The exception class an error text starts with (`RateLimitError: 429 ...`), as its code. */
const errorCodeOf = (error: string): string | undefined => /^([A-Za-z_][\w.]*(?:Error|Exception|Exceeded|Timeout))\b/.exec(error)?.[1]

/** How a run went (DECISIONS §23): `error` with its text, `ok` when its status says success; its duration. */
const runFacts = (run: Run): CallFacts => {
  const error = nonEmpty(stringField(run.fields, "error"))
  const status = stringField(run.fields, "status")
  return {
    status: error !== undefined || status === "error" ? "error" : status === "success" ? "ok" : undefined,
    status_code: error === undefined ? undefined : errorCodeOf(error),
    status_message: error,
    duration_ms: durationOf(run)
  }
}

/** The first of these records that is one. */
const firstRecord = (...values: ReadonlyArray<unknown>): Rec | undefined => values.find(Predicate.isRecord)

/** An llm run's token usage: its outputs' `llm_output.token_usage`, `usage_metadata` or `usage`, its message's `usage_metadata`, or the run's own counts. */
const tokensOf = (run: Run, outputs: Rec): TokenUsage | undefined => {
  const generations = outputs["generations"]
  const batch: unknown = Array.isArray(generations) ? generations[0] : undefined
  const generation = Array.isArray(batch) ? batch[0] : batch
  const message = Predicate.isRecord(generation) ? generation["message"] : undefined
  const fields = Predicate.isRecord(message) && Predicate.isRecord(message["kwargs"]) ? message["kwargs"] : message
  const usage = firstRecord(
    recordOf(outputs["llm_output"])["token_usage"],
    outputs["usage_metadata"],
    outputs["usage"],
    Predicate.isRecord(fields) ? fields["usage_metadata"] : undefined
  )
  const input = countOf(usage?.["input_tokens"]) ?? countOf(usage?.["prompt_tokens"]) ?? countOf(run.fields["prompt_tokens"])
  const output = countOf(usage?.["output_tokens"]) ?? countOf(usage?.["completion_tokens"]) ?? countOf(run.fields["completion_tokens"])
  return input === undefined && output === undefined ? undefined : { input, output }
}

/** An llm run's finish reason: its first choice's, its generation's `generation_info`, or its message's response metadata. */
const finishReasonOf = (outputs: Rec): string | undefined => {
  const choices = outputs["choices"]
  const choice: unknown = Array.isArray(choices) ? choices[0] : undefined
  if (Predicate.isRecord(choice)) return stringField(choice, "finish_reason")
  const generations = outputs["generations"]
  const batch: unknown = Array.isArray(generations) ? generations[0] : undefined
  const generation = Array.isArray(batch) ? batch[0] : batch
  if (!Predicate.isRecord(generation)) return undefined
  const info = recordOf(generation["generation_info"])
  const message = generation["message"]
  const fields = Predicate.isRecord(message) && Predicate.isRecord(message["kwargs"]) ? message["kwargs"] : recordOf(message)
  const metadata = recordOf(fields["response_metadata"])
  return stringField(info, "finish_reason") ?? stringField(metadata, "finish_reason") ?? stringField(metadata, "stop_reason")
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
  // the tools offered to the model, in the request or the invocation parameters
  const invocation = recordOf(recordOf(run.fields["extra"])["invocation_params"])
  trace.builder.declareTools(declaredToolsOf(inputs["tools"] ?? invocation["tools"]))
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

  const answer = events.length
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
  // The call's facts on its answer's first new event; a call whose answer was empty, or that
  // recorded nothing at all, is kept as an empty message (DECISIONS §23). Not one that failed (its
  // error event says so), nor one whose input was recorded and its output not (still running).
  const facts = { ...runFacts(run), tokens: tokensOf(run, recordOf(outputs)), finish_reason: finishReasonOf(recordOf(outputs)) }
  const recorded = Predicate.isRecord(outputs) && Object.keys(outputs).length > 0
  const unanswered = events.length === answer && (facts.status === "error" || (!recorded && events.some((event) => event.content.trim().length > 0)))
  trace.emit.history(events, unanswered ? undefined : { outputAt: answer, facts, actor, source, timestamp: end })
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
  const outputs = run.fields["outputs"]
  const call_id = toolCallIdOf(inputs, outputs)
  const facts = runFacts(run)
  const answered = Predicate.isRecord(outputs) && Object.keys(outputs).length > 0
  const error = nonEmpty(stringField(run.fields, "error"))
  // how the execution went: on its result or error, or on its call when it recorded neither
  trace.emit.toolRun({ actor, role: "agent", kind: "tool_call", content: args, tool, source, timestamp: start, call_id, ...(answered || error !== undefined ? {} : facts) })
  if (answered) {
    const content = runType(run) === "retriever" ? documentsText(outputs) : toolText(outputs)
    trace.emit.toolRun({ actor: tool, role: "tool", kind: "tool_result", content, tool, source, timestamp: end, call_id, ...facts })
  }
  if (error !== undefined) trace.emit.toolRun({ actor: tool, role: "tool", kind: "error", content: error, tool, source, timestamp: end, call_id, ...facts })
}

/** The tool call a tool run answers: the id its ToolMessage output names, or its input's `tool_call_id`. */
const toolCallIdOf = (inputs: unknown, outputs: unknown): string | undefined => {
  const output = recordOf(outputs)["output"]
  const message = Predicate.isRecord(output) && output["lc"] === 1 ? recordOf(output["kwargs"]) : recordOf(output)
  return idOf(message["tool_call_id"]) ?? idOf(recordOf(inputs)["tool_call_id"])
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
    timestamp: timestampOf(run.fields["end_time"]) ?? timestampOf(run.fields["start_time"]),
    ...runFacts(run)
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

export const readTrace = (traceId: string, roots: ReadonlyArray<Run>, children: ReadonlyMap<string, ReadonlyArray<Run>>, visited: Set<string>, skipped: number): NormalizedTrace => {
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
