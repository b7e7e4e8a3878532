/**
 * What the receiver and the assembly both read off a span (DECISIONS §18): an attribute's text,
 * whether a span is its trace's root here, and whether it is an agent's (GenAI, OpenInference,
 * tool) or context (an HTTP handler, a database call: shown, not projected).
 */
import type { KeyValue, Span } from "./Wire/Model.js"

/** `flags` bits 8 and 9: the parent's remoteness is known, and it is remote (a local root). */
const PARENT_IS_REMOTE = 0x300

/** An attribute's string value, if it has one. */
export const stringAttribute = (attributes: ReadonlyArray<KeyValue> | undefined, key: string): string | undefined => {
  if (attributes === undefined) return undefined
  for (const attribute of attributes) {
    if (attribute.key === key && "stringValue" in attribute.value) return attribute.value.stringValue
  }
  return undefined
}

/** Whether a span is its trace's root here: no parent, or a parent in another service. */
export const isLocalRoot = (span: Span): boolean =>
  span.parentSpanId === undefined || span.parentSpanId === "" || ((span.flags ?? 0) & PARENT_IS_REMOTE) === PARENT_IS_REMOTE

/** Attribute keys that make a span an agent's: GenAI, OpenInference, tool, Vercel AI, ADK, OpenLLMetry. */
const AGENT_PREFIXES = ["gen_ai.", "llm.", "openinference.", "tool.", "ai.", "gcp.vertex.agent.", "traceloop."]
const isAgentKey = (key: string): boolean => key === "input.value" || key === "output.value" || AGENT_PREFIXES.some((prefix) => key.startsWith(prefix))

/** Whether a span carries an agent's attributes (else it is context). */
export const isAgentSpan = (span: Span): boolean => span.attributes.some((attribute) => isAgentKey(attribute.key))

/**
 * Whether a span ends its trace's root (§18: the span without a parent, else the top ancestor
 * present of the GenAI spans): a local root does; so does an agent span, since the top ancestor
 * present of the agent spans has been exported (spans are exported when they end). Completion then
 * waits for SVC_OTLP_QUIET_SECONDS without a span: longer than the longest pause of the agent.
 */
export const endsRoot = (span: Span): boolean => isLocalRoot(span) || isAgentSpan(span)
