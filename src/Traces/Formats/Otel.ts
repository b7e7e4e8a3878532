/**
 * The `otel` importer (DECISIONS §12): OpenTelemetry GenAI semantic conventions in every span shape
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
 * events are errors. OpenLLMetry's `withAgent` / `withTool` spans (`traceloop.span.kind` `agent` /
 * `tool`) are agent and tool spans too, content on or off. Structure (DECISIONS §23, `Spans/Facts`): a model call's finish reason,
 * tokens, status and duration go on its answer; a chat span (or a Vercel AI SDK `do*` call) that
 * recorded no messages is kept as an empty message carrying them, unless it runs under a span
 * holding the same call's messages (ADK's `generate_content` under `call_llm`).
 *
 * Modules: `Otel/Messages` (the GenAI message conventions: attributes, events, log records),
 * `Otel/Adk` (Google ADK's `gcp.vertex.agent.*` attributes), `Otel/Traceloop` (OpenLLMetry's
 * `traceloop.entity.*` attributes).
 */
import type { Importer } from "../Importer.js"
import { firstPresent, str } from "./Common.js"
import { type CallFacts, mergeFacts } from "../Builder.js"
import { addSpanErrors, firstText, hasContent, isOpenInferenceSample, isoOf, readSpanTraces, sampleSpans, spanErrorText, spanFacts, spanSource, textOf, traceloopEntityOf, type LogRecord, type ModelCall, operationOf, type Span, type SpanInterpreter, type TraceSession } from "./Spans.js"
import { modelCallFacts } from "./Spans/Facts.js"
import { MODEL_OPERATIONS } from "./Spans/Read.js"
import { ADK_REQUEST, adkToolArgs, adkToolResponse } from "./Otel/Adk.js"
import { callOf, callOfLogs } from "./Otel/Messages.js"
import { traceloopToolArgs, traceloopToolResult } from "./Otel/Traceloop.js"

const AGENT_OPERATIONS = new Set(["invoke_agent", "create_agent"])
const isAgentSpan = (span: Span): boolean =>
  AGENT_OPERATIONS.has(operationOf(span)) || /^(invoke_agent|create_agent)\s/.test(span.name) || traceloopEntityOf(span, "agent") !== undefined
const isToolSpan = (span: Span): boolean =>
  operationOf(span) === "execute_tool" ||
  /^execute_tool\s/.test(span.name) ||
  (span.name === "ai.toolCall" && "ai.toolCall.name" in span.attributes) ||
  traceloopEntityOf(span, "tool") !== undefined
const isHandoffSpan = (span: Span): boolean => operationOf(span).includes("handoff")
/** The Vercel AI SDK's provider calls (`ai.generateText.doGenerate`, `ai.streamText.doStream`, ...), inside its function spans. */
const VERCEL_CALL = /^ai\.\w+\.do(Generate|Stream)$/
/** A span that is one model call: a GenAI chat / completion operation, or a Vercel AI SDK provider call. */
const isModelCallSpan = (span: Span): boolean => {
  if (MODEL_OPERATIONS.has(operationOf(span))) return true
  const operation = span.attributes["ai.operationId"]
  return VERCEL_CALL.test(typeof operation === "string" ? operation : span.name)
}

/** An agent span's agent: `gen_ai.agent.name`, else the name after `invoke_agent` (or OpenLLMetry's entity); undefined when none. */
const agentNameOf = (span: Span): string | undefined =>
  str(span.attributes["gen_ai.agent.name"]) ?? /^(?:invoke_agent|create_agent)\s+(.+)$/.exec(span.name)?.[1]?.trim() ?? traceloopEntityOf(span, "agent")

const toolNameOf = (span: Span): string =>
  str(span.attributes["gen_ai.tool.name"]) ??
  str(span.attributes["ai.toolCall.name"]) ??
  /^execute_tool\s+(.+)$/.exec(span.name)?.[1]?.trim() ??
  traceloopEntityOf(span, "tool") ??
  (span.name.length > 0 ? span.name : "tool")

// ---------------------------------------------------------------------------------------------
// The interpreter

const makeInterpreter = (): SpanInterpreter => {
  const calls = new Map<Span, ModelCall>()
  const actorOf = (span: Span, session: TraceSession): string =>
    session.agentAbove(span) ?? str(span.attributes["gen_ai.agent.name"]) ?? "assistant"

  /** Whether a span can hold messages at all (most spans of a large trace cannot). */
  const mayHoldMessages = (span: Span, session: TraceSession): boolean => {
    if (span.events.length > 0 || session.logsOf(span).length > 0) return true
    for (const key in span.attributes) if (key.startsWith("gen_ai.") || key.startsWith("ai.prompt") || key === ADK_REQUEST) return true
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
  // Facts of content-free model-call spans under a call span that holds the call's messages (ADK's
  // `generate_content` under `call_llm`): one call recorded twice, its facts given to the holder.
  const inherited = new Map<Span, CallFacts>()
  /** The open call span above this span holding the same call's messages (not an agent's), if any. */
  const holderAbove = (span: Span, session: TraceSession): Span | undefined => {
    for (let above = session.tree.parentOf(span); above !== undefined; above = session.tree.parentOf(above)) {
      if (isAgentSpan(above)) return undefined
      if (calls.has(above)) return above
    }
    return undefined
  }
  /** A span's model-call facts, those of a content-free call under it filling what it lacks; none for agent spans. */
  const factsOf = (span: Span): CallFacts | undefined => {
    const below = inherited.get(span)
    inherited.delete(span)
    if (isAgentSpan(span)) return undefined
    const own = modelCallFacts(span)
    return below === undefined ? own : mergeFacts(below, own)
  }
  /**
   * Ends a call: its output with its facts (on the first new output event), or, for a model call
   * that recorded no messages at all, an empty message keeping it (DECISIONS §23), or its facts
   * given to the call span above that holds its messages. A failed call without output is its
   * error events. True when the span's facts were placed.
   */
  const exitCall = (span: Span, session: TraceSession, actor: string) => {
    const call = calls.get(span)
    calls.delete(span)
    const facts = factsOf(span)
    // output messages without a part (the event-based convention's bodies with content off) are no output
    if (call !== undefined && call.output.some((message) => message.items.length > 0)) {
      session.addCall(call.input, call.output, actor, facts === undefined ? undefined : { facts, source: spanSource(span), timestamp: isoOf(span.endNanos ?? span.startNanos) })
      if (session.tree.parentOf(span) === undefined) {
        const text = firstText(call.output)
        if (text !== undefined) session.rootOutput(text)
      }
      return true
    }
    // a call whose input was recorded and its answer not: no answer is made up
    if (call !== undefined && hasContent(call.input)) return false
    if (facts === undefined || !isModelCallSpan(span) || spanErrorText(span) !== undefined) return false
    const holder = holderAbove(span, session)
    if (holder !== undefined) {
      if (!inherited.has(holder)) inherited.set(holder, facts)
      return true
    }
    // named as a trace without any content names it (Spans/Read.ts): the agent above, else the model
    const speaker = session.agentAbove(span) ?? str(span.attributes["gen_ai.agent.name"]) ?? str(span.attributes["gen_ai.request.model"]) ?? str(span.attributes["ai.model.id"]) ?? actor
    session.callWithoutContent(speaker, { facts, source: spanSource(span), timestamp: isoOf(span.startNanos) })
    return true
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
        const args = firstPresent(span.attributes["gen_ai.tool.call.arguments"], span.attributes["ai.toolCall.args"], adkToolArgs(span), traceloopToolArgs(span))
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
        addSpanErrors(span, name, session, { duration_ms: spanFacts(span).duration_ms })
        session.noteStatus(span, true)
        return
      }
      if (isToolSpan(span)) {
        const result = firstPresent(span.attributes["gen_ai.tool.call.result"], span.attributes["ai.toolCall.result"], adkToolResponse(span), traceloopToolResult(span))
        const error = spanErrorText(span)
        session.toolEnd({
          name: toolNameOf(span),
          id: str(span.attributes["gen_ai.tool.call.id"]) ?? str(span.attributes["ai.toolCall.id"]),
          result: result === undefined ? undefined : textOf(result),
          error: error === undefined ? undefined : error,
          source: spanSource(span),
          timestamp: isoOf(span.endNanos),
          facts: spanFacts(span)
        })
        session.noteStatus(span, false)
        return
      }
      if (calls.has(span) || span.events.length > 0 || span.status.code === "error" || isModelCallSpan(span)) {
        const actor = actorOf(span, session)
        const ended = exitCall(span, session, actor)
        // a failed model call without output is its error events, the first carrying the call's facts
        addSpanErrors(span, actor, session, ended ? undefined : isModelCallSpan(span) ? modelCallFacts(span) : spanFacts(span))
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
