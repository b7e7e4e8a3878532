/**
 * Building normalized traces from spans (DECISIONS §12): one trace per trace id, the spans'
 * starts and ends in time order handed to the format's interpreter, with history de-duplication
 * through `TraceBuilder.addHistory`, tool executions matched with the tool calls the model asked
 * for, errors, handoffs, and task / outcome / success derived the same way for every span format.
 */
import * as Either from "effect/Either"
import { makeTraceBuilder, type EventInput } from "../../Builder.js"
import type { NormalizedTrace } from "../../Model.js"
import { str } from "../Common.js"
import { canonicalArgs, roleOf, ROLE_WORDS, type Message } from "./Messages.js"
import { operationOf, readSpanBody, traceloopEntityOf } from "./Records.js"
import { modelCallFacts, spanTools } from "./Facts.js"
import { instrumentationOf } from "./Instrumentation.js"
import { spanFacts, spanSource, type SpanInterpreter, type TraceSession } from "./Session.js"
import type { LogRecord, Span, StatusCode } from "./Shapes.js"
import { compareTimes, isoOf } from "./Times.js"
import { buildTree, groupByTrace, timeline, walkTree, type TraceGroup } from "./Tree.js"

const messageEvents = (
  messages: ReadonlyArray<Message>,
  actor: string,
  toolNames: Map<string, string>
): Array<EventInput> => {
  const events: Array<EventInput> = []
  for (const message of messages) {
    const role = roleOf(message.role)
    const speaker = role === "user" ? "user" : role === "system" ? "system" : role === "agent" ? agentName(message, actor) : undefined
    const { source, timestamp } = message
    for (const item of message.items) {
      switch (item.type) {
        case "text":
          if (role === "tool") {
            const tool = message.name
            events.push({ source, timestamp, actor: tool ?? "tool", role: "tool", kind: "tool_result", content: item.text, tool })
          } else {
            events.push({ source, timestamp, actor: speaker ?? actor, role, kind: "message", content: item.text, tool: undefined })
          }
          break
        case "thought":
          events.push({ source, timestamp, actor: speaker ?? actor, role: "agent", kind: "thought", content: item.text, tool: undefined })
          break
        case "tool_call":
          if (item.id !== undefined && item.name.length > 0) toolNames.set(item.id, item.name)
          events.push({
            source,
            timestamp,
            actor: role === "agent" ? speaker ?? actor : actor,
            role: "agent",
            kind: "tool_call",
            content: item.args,
            tool: item.name,
            call_id: item.id
          })
          break
        case "tool_result": {
          const tool = item.name ?? (item.id === undefined ? undefined : toolNames.get(item.id)) ?? message.name
          events.push({
            source,
            timestamp,
            actor: tool ?? "tool",
            role: "tool",
            kind: item.error ? "error" : "tool_result",
            content: item.text,
            tool,
            call_id: item.id,
            status: item.error ? "error" : undefined
          })
          break
        }
      }
    }
  }
  return events
}
const agentName = (message: Message, actor: string): string => {
  const role = message.role.toLowerCase()
  if (ROLE_WORDS[role] === undefined) return message.role
  return message.name ?? actor
}

/**
 * Reads a span body into normalized traces, one per trace id in first-seen order, with the
 * importer's interpretation of each span. Traces without an event are dropped; a body with none
 * at all is a Left.
 */
export const readSpanTraces = (
  body: unknown,
  interpreter: SpanInterpreter,
  what: string
): Either.Either<ReadonlyArray<NormalizedTrace>, string> => {
  const read = readSpanBody(body)
  if (read.spans.length === 0 && read.logs.length === 0) return Either.left(`no ${what} spans or log records found`)
  const traces: Array<NormalizedTrace> = []
  let carried = read.skipped
  for (const group of groupByTrace(read)) {
    const trace = readGroup(group, interpreter)
    if (trace.events.length === 0) {
      carried += group.spans.length + group.logs.length
      continue
    }
    traces.push(withInstrumentation(trace, group))
  }
  // No trace with content: what ran may still be read, marked content-free (DECISIONS §18).
  if (traces.length === 0) {
    carried = read.skipped
    for (const group of groupByTrace(read)) {
      const trace = contentFreeTrace(group)
      if (trace === undefined) carried += group.spans.length + group.logs.length
      else traces.push(withInstrumentation(trace, group))
    }
  }
  const head = traces[0]
  if (head === undefined) return Either.left(`no ${what} content (messages, tool calls, errors) in ${read.spans.length} spans and ${read.logs.length} log records`)
  traces[0] = { ...head, skipped: head.skipped + carried }
  return Either.right(traces)
}

/** A trace without content names its instrumentation (DECISIONS §23: the report names the setting that turns content on). */
const withInstrumentation = (trace: NormalizedTrace, group: TraceGroup): NormalizedTrace => {
  if (trace.content !== "absent") return trace
  const instrumentation = instrumentationOf(group.spans)
  return instrumentation === undefined ? trace : { ...trace, instrumentation }
}

/** The GenAI operations that are model calls. */
export const MODEL_OPERATIONS: ReadonlySet<string> = new Set(["chat", "text_completion", "generate_content"])

/** A span's model call or tool execution by the GenAI, OpenInference or OpenLLMetry attributes alone, content aside. */
const operationEvent = (span: Span): EventInput | undefined => {
  const attributes = span.attributes
  const operation = operationOf(span)
  const spanKind = (str(attributes["openinference.span.kind"]) ?? "").toUpperCase()
  const timestamp = isoOf(span.startNanos)
  const stamped = timestamp === undefined ? {} : { timestamp }
  const traceloopTool = traceloopEntityOf(span, "tool")
  if (operation === "execute_tool" || spanKind === "TOOL" || traceloopTool !== undefined) {
    const tool = str(attributes["gen_ai.tool.name"]) ?? str(attributes["tool.name"]) ?? traceloopTool ?? span.name
    const actor = str(attributes["gen_ai.agent.name"]) ?? "assistant"
    const call_id = str(attributes["gen_ai.tool.call.id"]) ?? str(attributes["tool_call.id"])
    return { actor, role: "agent", kind: "tool_call", content: "", tool, source: spanSource(span), ...stamped, call_id, ...spanFacts(span) }
  }
  if (MODEL_OPERATIONS.has(operation) || spanKind === "LLM") {
    const actor = str(attributes["gen_ai.agent.name"]) ?? str(attributes["gen_ai.request.model"]) ?? str(attributes["llm.model_name"]) ?? "assistant"
    return { actor, role: "agent", kind: "message", content: "", source: spanSource(span), ...stamped, ...modelCallFacts(span) }
  }
  return undefined
}

/**
 * A trace whose spans record model calls and tool executions without their content (the GenAI
 * instrumentations' default): one event per such span, in time order, each empty, so the trace
 * reads as `content: "absent"` (Builder.ts) and is shown but not analysed. Undefined when no span
 * records either.
 */
const contentFreeTrace = (group: TraceGroup): NormalizedTrace | undefined => {
  const builder = makeTraceBuilder(group.traceId)
  const spans = [...group.spans].sort((a, b) => compareTimes(a.startNanos, b.startNanos) || a.index - b.index)
  let read = 0
  for (const span of spans) {
    builder.declareTools(spanTools(span.attributes))
    const event = operationEvent(span)
    if (event === undefined) continue
    builder.add(event)
    read += 1
  }
  if (read === 0) return undefined
  builder.skip(group.spans.length - read + group.logs.length)
  return builder.build()
}

const readGroup = (group: TraceGroup, interpreter: SpanInterpreter): NormalizedTrace => {
  const builder = makeTraceBuilder(group.traceId)
  const tree = buildTree(group.spans)
  builder.skip(tree.cyclesBroken)
  const byId = new Set(group.logs.length === 0 ? [] : group.spans.map((span) => span.spanId))
  const spanLogs = new Map<string, Array<LogRecord>>()
  const orphans = new Map<string, Array<LogRecord>>()
  for (const log of group.logs) {
    const target = log.spanId !== undefined && byId.has(log.spanId) ? spanLogs : orphans
    const key = log.spanId ?? ""
    const list = target.get(key)
    if (list === undefined) target.set(key, [log])
    else list.push(log)
  }

  // The nearest agent at or above each span, filled top-down.
  const nearestAgent = new Map<Span, string | undefined>()
  walkTree(
    tree,
    (span) => {
      const parent = tree.parentOf(span)
      nearestAgent.set(span, interpreter.agentName(span) ?? (parent === undefined ? undefined : nearestAgent.get(parent)))
    },
    () => undefined
  )
  const toolNames = new Map<string, string>()
  const seenCallIds = new Set<string>()
  const pending = new Map<string, Array<{ readonly id: string | undefined; readonly args: string }>>()
  const seenResultIds = new Set<string>()
  const linkedIds = new Map<string, string>()
  // The index of the call event a tool span added, by the span's source: amended when it ends without a result.
  const callEvents = new Map<string, number>()
  // Tool calls and results that tool spans added: the same ids in a model's history are not repeated.
  const spanCallIds = new Set<string>()
  const spanResultIds = new Set<string>()
  const withoutSpanItems = (messages: ReadonlyArray<Message>): ReadonlyArray<Message> => {
    if (spanCallIds.size === 0 && spanResultIds.size === 0) return messages
    return messages.map((message) => ({
      role: message.role,
      name: message.name,
      source: message.source,
      timestamp: message.timestamp,
      items: message.items.filter(
        (item) =>
          !(item.type === "tool_call" && item.id !== undefined && spanCallIds.has(item.id)) &&
          !(item.type === "tool_result" && item.id !== undefined && spanResultIds.has(item.id))
      )
    }))
  }
  // A call's input is read on entering its span and again, with its output, on leaving it: the
  // events are made once while the span-linked tool ids are unchanged.
  const inputMemo = new WeakMap<ReadonlyArray<Message>, { readonly actor: string; readonly ids: number; readonly events: Array<EventInput> }>()
  const inputEventsOf = (input: ReadonlyArray<Message>, actor: string): Array<EventInput> => {
    const ids = spanCallIds.size * 65_536 + spanResultIds.size
    const memo = inputMemo.get(input)
    if (memo !== undefined && memo.actor === actor && memo.ids === ids) return memo.events
    const events = messageEvents(withoutSpanItems(input), actor, toolNames)
    inputMemo.set(input, { actor, ids, events })
    return events
  }
  let lastHandoff: string | undefined
  let sawUser = false
  let sawAgentMessage = false
  let rootInput: string | undefined
  let rootOutput: string | undefined
  let failed = false
  let errored = false
  const rootStatuses: Array<StatusCode> = []
  const roots = new Set(tree.roots)

  const track = (events: ReadonlyArray<EventInput>) => {
    for (const event of events) {
      if (event.kind === "message" && event.role === "user") sawUser = true
      if (event.kind === "message" && event.role === "agent") sawAgentMessage = true
      if (event.kind === "error") errored = true
    }
  }

  const session: TraceSession = {
    traceId: group.traceId,
    tree,
    builder,
    logsOf: (span) => spanLogs.get(span.spanId) ?? [],
    skip: () => builder.skip(),
    agentAbove: (span) => {
      const parent = tree.parentOf(span)
      return parent === undefined ? undefined : nearestAgent.get(parent)
    },
    addCall: (input, output, actor, call) => {
      const inputEvents = inputEventsOf(input, actor)
      const outputEvents = messageEvents(withoutSpanItems(output), actor, toolNames)
      const batch = outputEvents.length === 0 ? inputEvents : [...inputEvents, ...outputEvents]
      track(batch)
      // The facts ride on the output's first new event; an output whose items the tool spans hold adds none.
      builder.addHistory(batch, call === undefined || outputEvents.length === 0 ? undefined : { call: { outputAt: inputEvents.length, actor, ...call } })
      for (const message of input) {
        for (const item of message.items) {
          if (item.type === "tool_call" && item.id !== undefined) seenCallIds.add(item.id)
          if (item.type === "tool_result" && item.id !== undefined) seenResultIds.add(item.id)
        }
      }
      for (const message of output) {
        for (const item of message.items) {
          if (item.type === "tool_result" && item.id !== undefined) seenResultIds.add(item.id)
          if (item.type !== "tool_call") continue
          if (item.id !== undefined) {
            if (seenCallIds.has(item.id)) continue
            seenCallIds.add(item.id)
          }
          const queue = pending.get(item.name)
          const entry = { id: item.id, args: canonicalArgs(item.args) }
          if (queue === undefined) pending.set(item.name, [entry])
          else queue.push(entry)
        }
      }
    },
    callWithoutContent: (actor, call) => {
      builder.add({ actor, role: "agent", kind: "message", content: "", source: call.source, timestamp: call.timestamp, ...call.facts })
    },
    toolStart: (execution) => {
      const queue = pending.get(execution.name)
      const args = execution.args === undefined ? undefined : canonicalArgs(execution.args)
      let match = -1
      if (queue !== undefined && queue.length > 0) {
        match = execution.id === undefined ? -1 : queue.findIndex((entry) => entry.id === execution.id)
        if (match < 0 && args !== undefined) match = queue.findIndex((entry) => entry.args === args)
        if (match < 0 && execution.id === undefined) match = 0
      }
      if (match >= 0 && queue !== undefined) {
        const [entry] = queue.splice(match, 1)
        const id = execution.id ?? entry?.id
        if (id !== undefined) linkedIds.set(execution.source, id)
        return
      }
      if (execution.id !== undefined) linkedIds.set(execution.source, execution.id)
      if (execution.id !== undefined && seenCallIds.has(execution.id)) return
      if (execution.id !== undefined) {
        seenCallIds.add(execution.id)
        spanCallIds.add(execution.id)
        toolNames.set(execution.id, execution.name)
      }
      callEvents.set(execution.source, builder.eventCount())
      builder.add({
        actor: execution.actor,
        role: "agent",
        kind: "tool_call",
        content: execution.args ?? "",
        tool: execution.name,
        source: execution.source,
        timestamp: execution.timestamp,
        call_id: execution.id
      })
    },
    toolEnd: (outcome) => {
      if (outcome.error !== undefined) errored = true
      const content = outcome.error ?? outcome.result
      const id = outcome.id ?? linkedIds.get(outcome.source)
      linkedIds.delete(outcome.source)
      const callEvent = callEvents.get(outcome.source)
      callEvents.delete(outcome.source)
      if (content === undefined) {
        // An execution that recorded no result: its own call event says how it went.
        if (callEvent !== undefined) builder.amend(callEvent, outcome.facts)
        return
      }
      if (id !== undefined) {
        if (seenResultIds.has(id) && outcome.error === undefined) return
        seenResultIds.add(id)
        spanResultIds.add(id)
      }
      builder.add({
        actor: outcome.name,
        role: "tool",
        kind: outcome.error === undefined ? "tool_result" : "error",
        content,
        tool: outcome.name,
        source: outcome.source,
        timestamp: outcome.timestamp,
        call_id: id,
        ...outcome.facts
      })
    },
    error: (content, actor, source, timestamp, facts) => {
      errored = true
      builder.add({ actor, role: "agent", kind: "error", content, source, timestamp, ...facts })
    },
    handoff: (from, to, content, source, timestamp, explicit) => {
      const key = `${from}\u0000${to}`
      if (!explicit && lastHandoff === key) {
        lastHandoff = undefined
        return
      }
      lastHandoff = explicit ? key : undefined
      builder.add({ actor: from, role: "agent", kind: "handoff", content, to, source, timestamp })
    },
    noteStatus: (span, isAgent) => {
      const isRoot = roots.has(span)
      if (isRoot) rootStatuses.push(span.status.code)
      if (span.status.code === "error") {
        errored = true
        if (isRoot || isAgent) failed = true
      }
      if (span.events.some((event) => event.name === "exception")) errored = true
    },
    rootInput: (text) => {
      if (rootInput === undefined && text.trim().length > 0) rootInput = text
    },
    rootOutput: (text) => {
      if (text.trim().length > 0) rootOutput = text
    }
  }

  // Span starts and ends in time order, with the groups of orphan log records merged in by time.
  const orphanGroups = Array.from(orphans.values())
  orphanGroups.sort((a, b) => compareTimes(a[0]?.timeNanos, b[0]?.timeNanos))
  let nextOrphan = 0
  const orphanLogs = interpreter.orphanLogs
  const runOrphansBefore = (at: bigint | undefined) => {
    while (nextOrphan < orphanGroups.length) {
      const logs = orphanGroups[nextOrphan]
      if (logs === undefined || compareTimes(logs[0]?.timeNanos, at) > 0 || (at === undefined && logs[0]?.timeNanos === undefined)) return
      nextOrphan++
      if (orphanLogs === undefined) builder.skip(logs.length)
      else orphanLogs(logs, session)
    }
  }
  for (const step of timeline(tree)) {
    runOrphansBefore(step.at)
    if (step.enter) {
      builder.declareTools(spanTools(step.span.attributes))
      interpreter.enter(step.span, session)
    }
    else interpreter.exit(step.span, session)
  }
  while (nextOrphan < orphanGroups.length) {
    const logs = orphanGroups[nextOrphan++]
    if (logs === undefined) continue
    if (orphanLogs === undefined) builder.skip(logs.length)
    else orphanLogs(logs, session)
  }

  if (!sawUser && rootInput !== undefined) builder.setTask(rootInput)
  if (!sawAgentMessage && rootOutput !== undefined) builder.setOutcome(rootOutput)
  if (failed) builder.setSuccess(false)
  else if (!errored && rootStatuses.length > 0 && rootStatuses.every((code) => code === "ok")) builder.setSuccess(true)
  return builder.build()
}
