/**
 * What the `openai` readers share (DECISIONS §12): the reader of one conversation (builder, tool
 * names by call id, status), reading options, content text, speakers and tool results.
 */
import * as Either from "effect/Either"
import * as Predicate from "effect/Predicate"
import type { EventInput, TraceBuilder } from "../../Builder.js"
import { makeTraceBuilder } from "../../Builder.js"
import { stringField } from "../../Importer.js"
import type { TokenUsage } from "../../Model.js"
import { countOf, isoOfEpoch, type Who } from "../Common.js"

/** An ISO-8601 timestamp from unix seconds or a date string, or undefined. */
export const isoTime = (value: unknown): string | undefined => {
  if (typeof value === "number") return isoOfEpoch(value, "unix")
  if (typeof value === "string" && value.length > 0 && !Number.isNaN(Date.parse(value))) return value
  return undefined
}

export interface Reader {
  readonly builder: TraceBuilder
  /** Call id → tool name, across the whole trace. */
  readonly tools: Map<string, string>
  failed: boolean
  completed: boolean
  /** Ids of the responses read (a single one becomes the trace id). */
  readonly responses: Array<string>
}

export const makeReader = (id: string | null): Reader => ({ builder: makeTraceBuilder(id), tools: new Map(), failed: false, completed: false, responses: [] })

export interface Options {
  /** The assistant's name (an agent's name in Agents SDK traces), when no message `name` says. */
  readonly assistant?: string | undefined
  readonly timestamp?: string | undefined
  /** A response read with its request: its `instructions` echo the request's and are not read again. */
  readonly echo?: boolean | undefined
  /** How deep in `request` / `response` nesting the call is (a pair nests once; deeper is not read). */
  readonly depth?: number | undefined
}

const TEXT_PARTS: ReadonlySet<string> = new Set(["text", "input_text", "output_text", "summary_text", "reasoning_text"])

/**
 * The text of a content: a string, or its text parts joined by a newline (refusal parts read as
 * text; images, audio, files and unknown parts skipped and counted). Undefined when nothing is text.
 */
export const contentOf = (reader: Reader, content: unknown): string | undefined => {
  if (typeof content === "string") return content
  if (typeof content === "number" || typeof content === "boolean") return String(content)
  if (content === null || content === undefined) return undefined
  if (!Array.isArray(content)) {
    if (Predicate.isRecord(content) && typeof content["text"] === "string") return content["text"]
    reader.builder.skip()
    return undefined
  }
  const texts: Array<string> = []
  for (const part of content) {
    if (typeof part === "string") {
      texts.push(part)
      continue
    }
    const type = Predicate.isRecord(part) ? stringField(part, "type") : undefined
    const text = Predicate.isRecord(part) ? (type === "refusal" ? stringField(part, "refusal") : stringField(part, "text")) : undefined
    if (text !== undefined && (type === undefined || type === "refusal" || TEXT_PARTS.has(type))) texts.push(text)
    else reader.builder.skip()
  }
  return texts.length > 0 ? texts.join("\n") : undefined
}

export const speaker = (role: string | undefined, name: string | undefined, options: Options): Who | undefined => {
  switch (role) {
    case "system":
    case "developer":
      return { actor: "system", role: "system" }
    case "user":
      return { actor: name ?? "user", role: "user" }
    case "assistant":
      return { actor: name ?? options.assistant ?? "assistant", role: "agent" }
    default:
      return undefined
  }
}

/** A tool's result, by the tool its call id names (`fallback` when unknown), belonging to that call. */
export const toolResult = (reader: Reader, callId: string | undefined, fallback: string | undefined, content: string, source: string, timestamp: string | undefined): EventInput => {
  const tool = (callId === undefined ? undefined : reader.tools.get(callId)) ?? fallback
  return { actor: tool ?? "tool", role: "tool", kind: "tool_result", content, tool, source, timestamp, call_id: callId }
}

/** Token usage in the Chat Completions (`prompt_tokens`, `completion_tokens`) or Responses (`input_tokens`, `output_tokens`) shape. */
export const usageOf = (usage: unknown): TokenUsage | undefined => {
  if (!Predicate.isRecord(usage)) return undefined
  const input = countOf(usage["input_tokens"]) ?? countOf(usage["prompt_tokens"])
  const output = countOf(usage["output_tokens"]) ?? countOf(usage["completion_tokens"])
  return input === undefined && output === undefined ? undefined : { input, output }
}

/** A Left naming the format. */
export const fail = (message: string) => Either.left(`openai: ${message}`)
