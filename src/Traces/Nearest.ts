/**
 * For a body no reader takes (DECISIONS §12, `400 unsupported_trace_format`): the keys seen (the
 * top level's, and those of the first records of its lists) and the nearest formats, those whose
 * characteristic keys the body shares most. A hint for the caller, never a detection: the keys
 * are the fields each format's detector and reader look at. Pure; looks at a bounded sample.
 */
import * as Predicate from "effect/Predicate"
import type { TraceFormatName } from "../Registry/Formats.js"

/** The fields each format's detector and reader look at (top level and records); every format of the registry has its line. */
const FORMAT_KEYS: Readonly<Record<TraceFormatName, ReadonlyArray<string>>> = {
  otel: ["resourceSpans", "resourceLogs", "scopeSpans", "spans", "span_id", "spanId", "trace_id", "traceId", "parent_span_id", "parentSpanId", "attributes", "startTimeUnixNano", "status", "events", "context", "kind"],
  openinference: ["resourceSpans", "spans", "span_id", "spanId", "trace_id", "traceId", "attributes", "context", "span_kind", "openinference.span.kind", "input.value", "output.value"],
  langsmith: ["run_type", "child_runs", "parent_run_id", "dotted_order", "inputs", "outputs", "post", "patch", "session_name", "start_time", "end_time", "extra", "trace_id"],
  trajectory: ["trajectory", "history", "info", "exit_status", "submission", "action", "observation", "thought", "response", "instance_id", "instruction", "trajectory_format", "args", "extras", "cause", "message_type", "agent", "git_patch", "metadata"],
  autogen: ["history", "messages", "chat_history", "name", "role", "content", "source", "type", "models_usage", "summary", "cost", "chat_id", "question", "stop_reason", "tool_calls", "tool_responses"],
  anthropic: ["model", "system", "messages", "max_tokens", "role", "content", "type", "stop_reason", "request", "response", "usage", "tool_use_id", "tools"],
  openai: ["model", "messages", "tools", "choices", "role", "content", "tool_calls", "tool_call_id", "name", "input", "output", "object", "span_data", "created_at", "status", "request", "response", "data"],
  claude_code: ["type", "message", "sessionId", "uuid", "parentUuid", "isSidechain", "toolUseResult", "timestamp", "cwd", "userType", "version"],
  codex: ["type", "payload", "timestamp", "session_meta", "response_item", "event_msg", "turn_context", "thread_id", "item", "usage"],
  langfuse: ["trace", "observations", "traceId", "parentObservationId", "startTime", "endTime", "input", "output", "metadata", "level", "statusMessage", "type", "name"],
  smolagents: ["question", "intermediate_steps", "agent_action_type", "model_id", "answer", "start_time", "end_time", "token_counts", "step_number", "model_output", "observations", "tool_calls"],
  mast: ["mas_name", "trace", "trace_id", "benchmark_name", "mast_annotation", "annotations", "llm_name", "trajectory"],
  inspect: ["version", "status", "eval", "plan", "results", "stats", "samples", "epoch", "input", "target", "messages", "output", "scores", "events"],
  tau_bench: ["task_id", "reward", "info", "traj", "tasks", "simulations", "termination_reason", "reward_info", "turn_idx", "messages"],
  gemini_cli: ["sessionId", "projectHash", "startTime", "lastUpdated", "messages", "id", "timestamp", "type", "content", "thoughts", "toolCalls", "tokens", "model"],
  native: ["task", "goal", "steps", "messages", "turns", "observed_behaviors", "agents", "outcome", "success", "from", "to", "actor", "tool"]
}

const SAMPLE = 5

/** The body's keys: the top level's, then those of the first records of its lists (`messages[]`). */
const keysSeen = (body: unknown): { readonly top: ReadonlyArray<string>; readonly nested: ReadonlyArray<string>; readonly all: ReadonlySet<string> } => {
  const top: Array<string> = []
  const nested: Array<string> = []
  const all = new Set<string>()
  const fromRecords = (list: ReadonlyArray<unknown>, label: string) => {
    const keys = new Set<string>()
    for (const record of list.slice(0, SAMPLE)) if (Predicate.isRecord(record)) for (const key of Object.keys(record)) keys.add(key)
    if (keys.size === 0) return
    nested.push(`${label} with keys ${Array.from(keys).slice(0, 10).join(", ")}`)
    for (const key of keys) all.add(key)
  }
  if (Array.isArray(body)) fromRecords(body, "records")
  else if (Predicate.isRecord(body)) {
    for (const key of Object.keys(body)) {
      top.push(key)
      all.add(key)
    }
    for (const key of top.slice(0, 20)) {
      const value = body[key]
      if (Array.isArray(value)) fromRecords(value, `${key}[]`)
    }
  }
  return { top, nested, all }
}

/** The formats sharing the most keys with the body, best first (at most three). */
export const nearestFormats = (body: unknown): ReadonlyArray<string> => {
  const { all } = keysSeen(body)
  const scored: Array<readonly [string, number]> = []
  for (const [format, keys] of Object.entries(FORMAT_KEYS)) {
    const shared = keys.filter((key) => all.has(key)).length
    if (shared > 0) scored.push([format, shared / Math.sqrt(keys.length)])
  }
  return scored.sort((a, b) => b[1] - a[1]).slice(0, 3).map(([format]) => format)
}

/** `the records' keys …; nearest formats: …` for an unsupported_trace_format message ("" when nothing to say). */
export const nearestNote = (body: unknown): string => {
  const { nested } = keysSeen(body)
  const nearest = nearestFormats(body)
  const parts: Array<string> = []
  if (nested.length > 0) parts.push(nested.slice(0, 3).join("; "))
  if (nearest.length > 0) parts.push(`nearest formats: ${nearest.join(", ")}`)
  return parts.join("; ")
}
