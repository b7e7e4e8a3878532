/**
 * Redaction applied to what a request brings (DECISIONS §20): a normalized trace's content strings
 * (task, outcome, every event's content, status code and status message (an exception's text can
 * hold a key), the declared tools' descriptions and argument schemas; never ids, timestamps,
 * sources, call ids or finish reasons), a
 * pattern's own input shape and hints (every string value; never keys). One pass per trace, so a
 * trace's placeholders never meet and its counts are its own.
 */
import * as Predicate from "effect/Predicate"
import type { RedactTrace } from "../Traces/Normalize.js"
import type { RedactionCounts, ScopedRedactor } from "./Redactor.js"

/**
 * The trace with its content redacted, and `redactions` counting what was replaced. Names are read
 * too (actors, tools, handoff targets, the agents list): a name is mostly structure, but a native
 * shape's `tool` or a chat's participant name is free text the sender wrote, and analyze's
 * native path reads every string of it (`redactRecord`); the same value gets the same placeholder
 * in all of them, so who did what still reads.
 */
export const redactTrace = (redactor: ScopedRedactor): RedactTrace => (trace) => {
  if (!redactor.enabled) return trace
  const pass = redactor.pass()
  const { events } = trace
  // every string of the trace in one batch: task, outcome, each event's content, actor, tool and
  // target (absent ones as ""), then the agents
  const strings: Array<string> = [trace.task, trace.outcome]
  for (const event of events) strings.push(event.content, event.actor, event.tool ?? "", event.to ?? "", event.status_code ?? "", event.status_message ?? "")
  for (const agent of trace.agents) strings.push(agent)
  const redacted = pass.texts(strings)
  // the declared tools: their descriptions and argument schemas are text the sender wrote
  const tools = trace.tools?.map((tool) => {
    const redactedTool = pass.json({ description: tool.description ?? "", parameters: tool.parameters ?? {} })
    const description = Predicate.isRecord(redactedTool) && typeof redactedTool["description"] === "string" ? redactedTool["description"] : tool.description
    const parameters = Predicate.isRecord(redactedTool) && Predicate.isRecord(redactedTool["parameters"]) ? redactedTool["parameters"] : tool.parameters
    return { ...tool, ...(tool.description === undefined ? {} : { description }), ...(tool.parameters === undefined ? {} : { parameters }) }
  })
  const counts = pass.counts()
  if (Object.keys(counts).length === 0) return trace
  const at = (index: number, original: string): string => redacted[index] ?? original
  const redactedEvents = events.map((event, i) => {
    const base = 2 + i * PER_EVENT
    const content = at(base, event.content)
    const actor = at(base + 1, event.actor)
    const tool = event.tool === undefined ? undefined : at(base + 2, event.tool)
    const to = event.to === undefined ? undefined : at(base + 3, event.to)
    const statusCode = event.status_code === undefined ? undefined : at(base + 4, event.status_code)
    const statusMessage = event.status_message === undefined ? undefined : at(base + 5, event.status_message)
    if (
      content === event.content && actor === event.actor && tool === event.tool && to === event.to && statusCode === event.status_code &&
      statusMessage === event.status_message
    ) return event
    return {
      ...event,
      content,
      actor,
      ...(tool === undefined ? {} : { tool }),
      ...(to === undefined ? {} : { to }),
      ...(statusCode === undefined ? {} : { status_code: statusCode }),
      ...(statusMessage === undefined ? {} : { status_message: statusMessage })
    }
  })
  const agentsAt = 2 + events.length * PER_EVENT
  return {
    ...trace,
    task: at(0, trace.task),
    outcome: at(1, trace.outcome),
    agents: trace.agents.map((agent, i) => at(agentsAt + i, agent)),
    events: redactedEvents,
    ...(tools === undefined ? {} : { tools }),
    redactions: counts
  }
}

/** The strings of one event in the batch: content, actor, tool, target, status code, status message. */
const PER_EVENT = 6

/** A JSON object (a native trace, hints) redacted, with its counts. */
export const redactRecord = (
  redactor: ScopedRedactor,
  value: Readonly<Record<string, unknown>>
): { readonly value: Readonly<Record<string, unknown>>; readonly counts: RedactionCounts } => {
  if (!redactor.enabled) return { value, counts: {} }
  const pass = redactor.pass()
  const redacted = pass.json(value)
  // strings are replaced by strings: an object stays an object
  return { value: Predicate.isRecord(redacted) ? redacted : value, counts: pass.counts() }
}
