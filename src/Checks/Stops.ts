/**
 * How runs and model calls stop, as the checks read it: finish reasons as providers write them
 * (`length`, `max_tokens`, `MAX_TOKENS`, `FINISH_REASON_MAX_TOKENS`, `end_turn`, ...) in one
 * vocabulary, the texts of the run's own failures, and the two stops several checks must tell
 * apart from other errors: a framework's turn limit and a context overflow.
 */
import type { TraceEvent } from "../Traces/Model.js"
import { isError } from "./View.js"

/** A finish reason in one spelling: lower case, words joined by `_`, the enum's `finish_reason_` prefix dropped. */
export const finishOf = (event: TraceEvent): string | undefined => {
  const raw = event.finish_reason?.trim()
  if (raw === undefined || raw.length === 0) return undefined
  return raw.toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^finish_reason_/, "")
}

/**
 * The output hit its token limit: OpenAI `length`, Anthropic and Bedrock `max_tokens`, Gemini
 * `MAX_TOKENS`, Responses `max_output_tokens`, vLLM and TGI `length`/`max_new_tokens`.
 */
export const TRUNCATED: ReadonlySet<string> = new Set(["length", "max_tokens", "max_output_tokens", "max_completion_tokens", "max_new_tokens", "model_length", "token_limit"])

/** The model stopped of its own accord: OpenAI `stop`, Anthropic `end_turn` / `stop_sequence`, Gemini `STOP`. */
export const STOPPED: ReadonlySet<string> = new Set(["stop", "end_turn", "stop_sequence", "eos", "eos_token", "complete", "completed"])

/** Anthropic's stop reason for an input that filled the context window. */
export const CONTEXT_FULL = "model_context_window_exceeded"

/**
 * Of an event, the texts that say why something failed: the status code, the status message and its
 * content (each bounded, so reading them is linear), each once (a span's message is often its
 * content too, and every wording is searched in each text).
 */
export const failureTextsOf = (event: TraceEvent): ReadonlyArray<string> => {
  const texts: Array<string> = []
  for (const text of [event.status_code, event.status_message, event.content]) {
    if (text === undefined || text.trim().length === 0) continue
    const bounded = text.slice(0, 2_000)
    if (!texts.includes(bounded)) texts.push(bounded)
  }
  return texts
}

/**
 * A failure of the run's own machinery rather than of a tool: an error (an error event, or an event
 * whose status is error) of the agent or of the system, not attached to a tool call.
 */
export const isRunFailure = (event: TraceEvent): boolean =>
  (event.role === "agent" || event.role === "system") && event.tool === undefined && event.call_id === undefined && isError(event)

/**
 * A search for any of the patterns, one pass over the text per set of flags (a union of them)
 * instead of one per pattern.
 */
export const anyOf = (patterns: ReadonlyArray<RegExp>): ((text: string) => boolean) => {
  const byFlags = new Map<string, Array<string>>()
  for (const pattern of patterns) byFlags.set(pattern.flags, [...(byFlags.get(pattern.flags) ?? []), `(?:${pattern.source})`])
  const unions = [...byFlags].map(([flags, sources]) => new RegExp(sources.join("|"), flags))
  return (text) => unions.some((union) => union.test(text))
}

const TURN_LIMIT: ReadonlyArray<RegExp> = [
  /\bmax(?:imum)?[ _]?(?:turns?|rounds?)\b[^.\n]{0,40}\b(?:exceeded|reached)\b/i,
  /\bMaxTurnsExceeded\b|\berror_max_turns\b/,
  /\breached (?:the )?max(?:imum)? (?:number of )?(?:iterations?|steps|turns|rounds)\b/i,
  /\bmax(?:imum)? (?:number of )?(?:iterations?|steps|turns|messages) (?:of )?\(?\d*\)? ?reached\b/i,
  /\bAgent stopped due to (?:iteration limit|max iterations)/i,
  /\bGraphRecursionError\b|\bRecursion limit of \d+ reached\b/i,
  /\bAgentMaxStepsError\b|\bLimitsExceeded\b/,
  /\b(?:step|turn|iteration)[ _]limit\b[^.\n]{0,30}\b(?:reached|exceeded|hit)\b/i
]
const anyTurnLimit = anyOf(TURN_LIMIT)
/** A word every wording of a turn limit holds: most failures hold none, and are not searched for the wordings. */
const TURN_LIMIT_WORD = /max|limit|recursion/i

/**
 * The framework's step or turn limit, as the frameworks raise or report it: OpenAI Agents SDK
 * `MaxTurnsExceeded` ("Max turns (10) exceeded"), Claude Agent SDK `error_max_turns`, LangGraph
 * `GraphRecursionError` ("Recursion limit of 25 reached"), LangChain and CrewAI "Agent stopped due
 * to iteration limit or time limit", LlamaIndex "Max iterations of 10 reached", smolagents
 * `AgentMaxStepsError` ("Reached max steps"), AutoGen "Maximum number of messages 10 reached", AG2
 * "Maximum turns (3) reached", OpenHands "reached maximum iteration", mini-swe-agent `LimitsExceeded`.
 */
export const reportsTurnLimit = (text: string): boolean => TURN_LIMIT_WORD.test(text) && anyTurnLimit(text)

const turnLimits = new WeakMap<TraceEvent, string | null>()

/** The first of the event's failure texts that reports the framework's turn limit, read once per event however many checks ask. */
export const turnLimitTextOf = (event: TraceEvent): string | undefined => {
  let known = turnLimits.get(event)
  if (known === undefined) {
    known = failureTextsOf(event).find(reportsTurnLimit) ?? null
    turnLimits.set(event, known)
  }
  return known ?? undefined
}

/** The sentences frameworks put in place of the agent's answer (or a step's error) when they stop it: the whole text starts with one. */
export const STOPPED_ANSWER =
  /^(?:Agent stopped due to (?:iteration limit|max iterations)|Reached max (?:steps|iterations)|Max(?:imum)? turns? \(\d+\) (?:exceeded|reached)|Maximum number of (?:turns|messages) \d+ reached)/i

const OVERFLOW: ReadonlyArray<RegExp> = [
  /\bcontext_length_exceeded\b|\bContextWindowExceededError\b|\bmodel_context_window_exceeded\b|\bstring_above_max_length\b/i,
  /\bmaximum context (?:length|window)\b/i,
  /\bcontext (?:window|length|limit)\b[^.\n]{0,40}\bexceed/i,
  /\bexceed\w* (?:the )?(?:model'?s? )?(?:maximum )?context (?:window|length|size|limit)\b/i,
  /\b(?:prompt|input) is too long\b/i,
  /\btoo many (?:input |prompt )?tokens\b/i,
  /\binput token count\b[^.\n]{0,60}\bexceeds\b/i,
  /\breduce the length of the messages\b/i
]
const anyOverflow = anyOf(OVERFLOW)
/** A word every wording of an overflow holds, read first (as for turn limits). */
const OVERFLOW_WORD = /context|too long|token|string_above|reduce the length/i
/** A token rate limit says "tokens" too; it is not the context. */
const RATE = /\brate[ _-]?limit|\bper[ _-]?min|\bTPM\b|\bquota\b/i

/**
 * The model's context exceeded: OpenAI `context_length_exceeded` ("This model's maximum context
 * length is …"), Anthropic "prompt is too long" and "input length and `max_tokens` exceed context
 * limit", Bedrock "Input is too long for requested model",
 * Gemini "The input token count (…) exceeds the maximum number of tokens allowed", LiteLLM
 * `ContextWindowExceededError`, vLLM and Mistral "maximum context length"; a per-minute token rate
 * limit is not one.
 */
export const reportsOverflow = (text: string): boolean => OVERFLOW_WORD.test(text) && anyOverflow(text) && !RATE.test(text)

const overflows = new WeakMap<TraceEvent, boolean>()

/** One of the event's failure texts reports a context overflow (`reportsOverflow`), read once per event however many checks ask. */
export const failureReportsOverflow = (event: TraceEvent): boolean => {
  let known = overflows.get(event)
  if (known === undefined) {
    known = failureTextsOf(event).some(reportsOverflow)
    overflows.set(event, known)
  }
  return known
}
