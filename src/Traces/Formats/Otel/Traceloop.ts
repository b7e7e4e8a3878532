/**
 * OpenLLMetry's own span attributes (DECISIONS §12). Its `withTool` / `withAgent` wrappers
 * (@traceloop/node-server-sdk; the spans `Spans/Records.traceloopEntityOf` names) write, with
 * content on (TRACELOOP_TRACE_CONTENT, its default), the function's arguments as
 * `traceloop.entity.input` (`{"args": [...], "kwargs": {...}}`: a single object argument as
 * `kwargs`, anything else as `args`) and what it returned as `traceloop.entity.output` (JSON); with
 * content off neither. A tool's failure is its span's status and `exception` events, which the
 * wrapper leaves to the tool (0.27.0 never ends the span of a function that throws).
 */
import * as Predicate from "effect/Predicate"
import { parseJsonish, textOf, type Span } from "../Spans.js"

const TRACELOOP_INPUT = "traceloop.entity.input"
const TRACELOOP_OUTPUT = "traceloop.entity.output"

/** A tool span's arguments, unwrapped from OpenLLMetry's `{args, kwargs}`; undefined when it recorded none. */
export const traceloopToolArgs = (span: Span): string | undefined => {
  const value = span.attributes[TRACELOOP_INPUT]
  if (value === undefined || value === null) return undefined
  const parsed = parseJsonish(value)
  if (!Predicate.isRecord(parsed)) return textOf(value)
  const args = parsed["args"]
  const kwargs = parsed["kwargs"]
  const hasKwargs = Predicate.isRecord(kwargs) && Object.keys(kwargs).length > 0
  const hasArgs = Array.isArray(args) && args.length > 0
  if (hasKwargs && !hasArgs) return textOf(kwargs)
  if (hasArgs && !hasKwargs) return args.length === 1 ? textOf(args[0]) : textOf(args)
  // the call of a function without arguments (`{"args": [], "kwargs": {}}`) says nothing
  return hasArgs || hasKwargs ? textOf(value) : undefined
}

/** A tool span's result (what the tool returned), as JSON text; undefined when it recorded none. */
export const traceloopToolResult = (span: Span): string | undefined => {
  const value = span.attributes[TRACELOOP_OUTPUT]
  return value === undefined || value === null ? undefined : textOf(value)
}
