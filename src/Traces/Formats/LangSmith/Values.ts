/**
 * Small readers of LangSmith runs (DECISIONS §12): run types, times, text of contents and of
 * single-field values, generic chain names.
 */
import { contentTextOf, epochMs, isoOfEpoch, nonEmpty, type Rec } from "../Common.js"

export const RUN_TYPES: ReadonlySet<string> = new Set(["chain", "llm", "tool", "retriever", "prompt", "parser", "embedding"])

// ---------------------------------------------------------------------------------------------
// Small readers

/** Milliseconds since the epoch for a number (s, ms, µs or ns) or a date string. */
export const timeMs = (value: unknown): number | undefined => {
  if (typeof value === "number") return epochMs(value, "magnitude")
  if (typeof value === "string" && value.length > 0) {
    const parsed = Date.parse(value)
    if (Number.isNaN(parsed)) return undefined
    // Microseconds (the SDKs write them) order runs started within the same millisecond.
    const fraction = /\.\d{3}(\d+)/.exec(value)?.[1]
    return fraction === undefined ? parsed : parsed + Number(`0.${fraction}`)
  }
  return undefined
}

/** ISO-8601 for the event: strings as the source wrote them, epoch numbers converted. */
export const timestampOf = (value: unknown): string | undefined => {
  if (typeof value === "string") return nonEmpty(value)
  return typeof value === "number" ? isoOfEpoch(value, "magnitude") : undefined
}

const TEXT_PARTS: ReadonlySet<string> = new Set(["text", "input_text", "output_text"])

/** The text of a message content: a string, or the text parts of a list of parts. */
export const textOf = (content: unknown): string | undefined => contentTextOf(content, { textParts: TEXT_PARTS, emptyList: "undefined" })

/** The one text of a run's inputs or outputs: a well-known string field, or the only field. */
const TEXT_FIELDS = ["input", "question", "query", "task", "prompt", "message", "text", "output", "outputs", "answer", "result", "response", "content"]
export const singleText = (values: Rec): string | undefined => {
  for (const field of TEXT_FIELDS) {
    const value = values[field]
    if (typeof value === "string" && value.trim().length > 0) return value
  }
  const keys = Object.keys(values)
  if (keys.length === 1) {
    const only = keys[0] === undefined ? undefined : values[keys[0]]
    if (typeof only === "string" && only.trim().length > 0) return only
  }
  return undefined
}

export const isGenericChainName = (name: string): boolean =>
  name.includes("<") ||
  /^(Runnable\w*|Channel\w*|Branch\w*|Pregel\w*|LangGraph|StateGraph|CompiledStateGraph|CompiledGraph|__start__|__end__|RouterRunnable|AgentExecutor)$/.test(name)
