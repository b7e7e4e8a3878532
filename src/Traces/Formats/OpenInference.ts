/**
 * The `openinference` importer (DECISIONS §12): Arize Phoenix / OpenInference span attributes in
 * every span shape that `Spans.ts` reads (OTLP/JSON, span lists, ADOT exports).
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
 * `exception` events are errors. An LLM span's `llm.finish_reason`, `llm.token_count.*`, status and
 * duration go on its answer (an LLM span without messages is kept as an empty message carrying
 * them); `llm.tools` are the trace's declared tools (DECISIONS §23).
 *
 * Modules: `OpenInference/Messages` (the `llm.*` message attributes, `input.value` /
 * `output.value`, ADOT event bodies).
 */
import * as Predicate from "effect/Predicate"
import type { Importer } from "../Importer.js"
import { firstPresent, str } from "./Common.js"
import { addSpanErrors, firstText, hasContent, isOpenInferenceSample, isoOf, readSpanTraces, sampleSpans, spanErrorText, spanFacts, spanSource, stampMessage, textOf, unflatten, type ModelCall, type Span, type SpanInterpreter, type TraceSession } from "./Spans.js"
import { modelCallFacts } from "./Spans/Facts.js"
import { makeMemoryCopies } from "./OpenInference/MemoryCopies.js"
import { adotBody, adotMessages, inputValueMessages, oiMessages, outputValueMessages, rootText, stamp } from "./OpenInference/Messages.js"

type Kind = "LLM" | "TOOL" | "AGENT" | "CHAIN" | "RETRIEVER" | "ADOT" | "OTHER"

/** Whether the span has an attribute under one of these prefixes. */
const hasPrefix = (span: Span, prefixes: ReadonlyArray<string>): boolean => {
  for (const key in span.attributes) if (prefixes.some((prefix) => key.startsWith(prefix))) return true
  return false
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
  const memory = makeMemoryCopies()
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
    return { input: memory.inputWithoutCopies(stamp(input, span, "input", span.startNanos)), output: stamp(output, span, "output", span.endNanos) }
  }

  // Tool calls of open calls' outputs, by id. A tool span with such an id runs inside the call (an
  // agent's own tool calls, as the Claude Agent SDK's AGENT span writes its whole output): the
  // output up to that call is added when the tool span starts, so it lands in time order.
  const openToolCalls = new Map<string, { readonly span: Span; readonly index: number; readonly actor: string }>()
  const outputToolIds = (call: ModelCall): ReadonlyArray<readonly [string, number]> =>
    call.output.flatMap((message, index) => message.items.flatMap((item) => (item.type === "tool_call" && item.id !== undefined ? [[item.id, index] as const] : [])))
  const beforeTool = (id: string | undefined, tool: Span, session: TraceSession) => {
    const open = id === undefined ? undefined : openToolCalls.get(id)
    const call = open === undefined ? undefined : calls.get(open.span)
    if (open === undefined || call === undefined) return
    const timestamp = isoOf(tool.startNanos)
    session.addCall(call.input, call.output.slice(0, open.index + 1).map((message) => stampMessage(message, message.source, timestamp)), open.actor)
  }

  const enterCall = (span: Span, kind: Kind, session: TraceSession, actor: string) => {
    const call = callOf(span, kind, session)
    if (call.input.length === 0 && call.output.length === 0) return
    calls.set(span, call)
    for (const [id, index] of outputToolIds(call)) openToolCalls.set(id, { span, index, actor })
    if (call.input.length > 0) session.addCall(call.input, [], actor)
  }
  /**
   * Ends a call: its output, an LLM span's facts on its first new output event; an LLM span that
   * recorded no messages at all kept as an empty message with them (DECISIONS §23), unless it
   * failed (its error events carry them). True when the span's facts were placed.
   */
  const exitCall = (span: Span, kind: Kind, session: TraceSession, actor: string): boolean => {
    const call = calls.get(span)
    calls.delete(span)
    const facts = kind === "LLM" ? modelCallFacts(span) : undefined
    if (call !== undefined) {
      for (const [id] of outputToolIds(call)) if (openToolCalls.get(id)?.span === span) openToolCalls.delete(id)
      memory.noteOutput(call.output)
      if (call.output.length === 0 && hasContent(call.input)) return false
    }
    if (call !== undefined && call.output.length > 0) {
      session.addCall(call.input, call.output, actor, facts === undefined ? undefined : { facts, source: spanSource(span), timestamp: isoOf(span.endNanos ?? span.startNanos) })
      return true
    }
    if (facts === undefined || spanErrorText(span) !== undefined) return false
    // named as a trace without any content names it (Spans/Read.ts): the agent above, else the model
    const speaker = session.agentAbove(span) ?? str(span.attributes["llm.model_name"]) ?? actor
    session.callWithoutContent(speaker, { facts, source: spanSource(span), timestamp: isoOf(span.startNanos) })
    return true
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
    session.toolEnd({ name, id: result.id, result: result.text, error: spanErrorText(span), source, timestamp: isoOf(span.endNanos), facts: spanFacts(span) })
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
          const id = str(span.attributes["tool_call.id"]) ?? str(span.attributes["tool.id"])
          beforeTool(id, span, session)
          session.toolStart({
            id,
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
        if (result !== undefined) memory.noteToolResult(textOf(result))
        session.toolEnd({
          name: kind === "TOOL" ? toolNameOf(span) : span.name.length > 0 ? span.name : "retriever",
          id: str(span.attributes["tool_call.id"]) ?? str(span.attributes["tool.id"]),
          result: result === undefined ? undefined : textOf(result),
          error: spanErrorText(span),
          source: spanSource(span),
          timestamp: isoOf(span.endNanos),
          facts: spanFacts(span)
        })
        session.noteStatus(span, false)
        return
      }
      const actor = kind === "AGENT" ? agentNameOf(span) ?? actorOf(span, session) : actorOf(span, session)
      const placed = exitCall(span, kind, session, actor)
      // a failed LLM call without output is its error events, the first carrying the call's facts
      addSpanErrors(span, actor, session, placed ? undefined : kind === "LLM" ? modelCallFacts(span) : spanFacts(span))
      session.noteStatus(span, kind === "AGENT")
    }
  }
}

export const openInferenceImporter: Importer = {
  format: "openinference",
  detect: (body) => sampleSpans(body).records.some(isOpenInferenceSample),
  read: (body) => readSpanTraces(body, makeInterpreter(), "OpenInference")
}
