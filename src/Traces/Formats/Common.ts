/**
 * Small readers shared by the importers (DECISIONS §12): how much of a body detection looks at and
 * a `detect` that never throws; non-blank strings and ids; compact JSON that never throws; the text
 * of a message content; tool calls in the OpenAI and flat shapes; epoch times as ISO-8601; source
 * pointers; lists of records read one trace each. Pure and total on every JSON value. Span-specific
 * helpers live in `Spans.ts`.
 */
import * as Predicate from "effect/Predicate"
import type { EventInput } from "../Builder.js"
import { stringField } from "../Importer.js"
import type { DeclaredTool, NormalizedTrace } from "../Model.js"

export type Rec = Readonly<Record<string, unknown>>

// ---------------------------------------------------------------------------------------------
// Detection

/** How many records detection looks at. */
export const DETECT_LIMIT = 20

/** The first records of a list, the ones detection looks at. */
export const sample = (list: ReadonlyArray<unknown>): ReadonlyArray<unknown> => list.slice(0, DETECT_LIMIT)

/** An importer's `detect` that answers false where the check throws (it must never throw). */
export const detectSafely =
  (detect: (body: unknown) => boolean) =>
  (body: unknown): boolean => {
    try {
      return detect(body)
    } catch {
      return false
    }
  }

// ---------------------------------------------------------------------------------------------
// Strings, ids, JSON

/** A string that is not blank, else undefined. */
export const nonEmpty = (s: string | undefined): string | undefined => (s !== undefined && s.trim().length > 0 ? s : undefined)

/** A value when it is a non-empty string, else undefined. */
export const str = (value: unknown): string | undefined => (typeof value === "string" && value.length > 0 ? value : undefined)

/** The first value that is neither undefined nor null. */
export const firstPresent = (...values: ReadonlyArray<unknown>): unknown => values.find((value) => value !== undefined && value !== null)

/** An id: a non-empty string, or a finite number as text. */
export const idOf = (value: unknown): string | undefined => {
  if (typeof value === "string" && value.length > 0) return value
  if (typeof value === "number" && Number.isFinite(value)) return String(value)
  return undefined
}

/** Compact JSON of a value, never throwing ("" for undefined and what JSON cannot write). */
export const compactJson = (value: unknown): string => {
  try {
    return JSON.stringify(value) ?? ""
  } catch {
    return ""
  }
}

/** JSON of a value, never throwing (a string stays as it is). */
export const jsonText = (value: unknown): string => (typeof value === "string" ? value : compactJson(value))

/** A value parsed from JSON when it is an object or a list written as text; anything else as it is. */
export const jsonValue = (value: unknown): unknown => {
  if (typeof value !== "string") return value
  const text = value.trim()
  if (!(text.startsWith("{") || text.startsWith("["))) return value
  try {
    const parsed: unknown = JSON.parse(text)
    return parsed
  } catch {
    return value
  }
}

/** A count: a non-negative integer, or one written as text (OTLP intValues, plain span dicts). */
export const countOf = (value: unknown): number | undefined => {
  const number = typeof value === "number" ? value : typeof value === "string" && /^\d+$/.test(value.trim()) ? Number(value) : undefined
  return number !== undefined && Number.isSafeInteger(number) && number >= 0 ? number : undefined
}

// ---------------------------------------------------------------------------------------------
// Declared tools (DECISIONS §23)

/**
 * A tool definition in one of the common shapes: `{type: "function", function: {name,
 * description, parameters}}` (Chat Completions), `{type: "function", name, description,
 * parameters}` (Responses, GenAI `gen_ai.tool.definitions`), `{name, description, input_schema}`
 * (Anthropic), `{name, inputSchema}` (Vercel AI SDK), `{name, parameters_json_schema}` (Pydantic AI),
 * `{name, args_schema}`; a JSON string of one. Hosted tools without a name are named by their
 * type (`web_search`). Undefined for anything else.
 */
export const declaredToolOf = (raw: unknown): DeclaredTool | undefined => {
  const value = jsonValue(raw)
  if (!Predicate.isRecord(value)) return undefined
  const fn = Predicate.isRecord(value["function"]) ? value["function"] : value
  const name = str(fn["name"]) ?? str(value["name"]) ?? str(value["type"])
  if (name === undefined) return undefined
  const description = str(fn["description"])
  const schema = jsonValue(fn["parameters"] ?? fn["input_schema"] ?? fn["inputSchema"] ?? fn["parameters_json_schema"] ?? fn["args_schema"] ?? fn["json_schema"])
  return {
    name,
    ...(description === undefined ? {} : { description }),
    ...(Predicate.isRecord(schema) ? { parameters: schema } : {})
  }
}

/** The tools of a list of definitions (a list, or a JSON list in text); a list of names declares names alone. */
export const declaredToolsOf = (value: unknown): ReadonlyArray<DeclaredTool> => {
  const parsed = jsonValue(value)
  if (!Array.isArray(parsed)) return []
  return parsed.flatMap((entry) => {
    if (typeof entry === "string" && !entry.trim().startsWith("{")) return entry.length > 0 ? [{ name: entry }] : []
    const tool = declaredToolOf(entry)
    return tool === undefined ? [] : [tool]
  })
}

// ---------------------------------------------------------------------------------------------
// Message contents and tool calls

export interface ContentTextOptions {
  /** The part types read as text (a part without `type` always is); `"any"`: every part with a string `text`. */
  readonly textParts: ReadonlySet<string> | "any"
  /** What a list without text gives: undefined, or (`"json"`) the list as compact JSON. */
  readonly emptyList: "undefined" | "json"
}

/**
 * The text of a message content: a string as it is; a number or boolean as text; the strings and
 * text parts of a list joined by newlines (images and other parts left out); any other value as
 * compact JSON. Undefined for null and undefined.
 */
export const contentTextOf = (content: unknown, options: ContentTextOptions): string | undefined => {
  if (typeof content === "string") return content
  if (content === null || content === undefined) return undefined
  if (typeof content === "number" || typeof content === "boolean") return String(content)
  if (Array.isArray(content)) {
    const texts: Array<string> = []
    for (const part of content) {
      if (typeof part === "string") texts.push(part)
      else if (Predicate.isRecord(part)) {
        const text = stringField(part, "text")
        const type = stringField(part, "type")
        if (text !== undefined && (options.textParts === "any" || type === undefined || options.textParts.has(type))) texts.push(text)
      }
    }
    if (texts.length > 0) return texts.join("\n")
    if (options.emptyList === "undefined") return undefined
  }
  return compactJson(content)
}

export interface ToolCallRead {
  readonly id: string | undefined
  readonly name: string
  readonly args: string
}

/** `record[a] ?? record[b] ?? ...`: the first field neither undefined nor null, else the last one's value. */
const coalesce = (record: Rec, fields: ReadonlyArray<string>): unknown => {
  let value: unknown
  for (const field of fields) {
    value = record[field]
    if (value !== undefined && value !== null) return value
  }
  return value
}

/**
 * A tool call `{id, function: {name, ...}}` (OpenAI) or `{id, name, ...}` (flat): the arguments
 * are the first of `argFields.nested` (in `function`) or of `argFields.flat` (in the call) that is
 * set, as `jsonText` writes them ("" when none is). Undefined when the call has no name.
 */
export const toolCallOf = (
  call: unknown,
  argFields: { readonly nested: ReadonlyArray<string>; readonly flat: ReadonlyArray<string> }
): ToolCallRead | undefined => {
  if (!Predicate.isRecord(call)) return undefined
  const fn = call["function"]
  const holder = Predicate.isRecord(fn) ? fn : call
  const name = stringField(holder, "name")
  if (name === undefined) return undefined
  return { id: idOf(call["id"]), name, args: jsonText(coalesce(holder, Predicate.isRecord(fn) ? argFields.nested : argFields.flat)) }
}

/** Who an event is from. */
export interface Who {
  readonly actor: string
  readonly role: EventInput["role"]
}

// ---------------------------------------------------------------------------------------------
// Times and sources

/**
 * How an epoch number is read: `"unix"`, unix seconds (milliseconds above 1e11), as the OpenAI
 * APIs write `created`; `"magnitude"`, positive seconds, milliseconds, microseconds or
 * nanoseconds told apart by magnitude.
 */
export type EpochScale = "unix" | "magnitude"

/** Milliseconds since the epoch for an epoch number, or undefined when it is not one. */
export const epochMs = (value: number, scale: EpochScale): number | undefined => {
  if (!Number.isFinite(value)) return undefined
  if (scale === "unix") return value > 1e11 ? value : value * 1000
  if (value <= 0) return undefined
  if (value < 1e11) return value * 1000
  if (value < 1e14) return value
  if (value < 1e17) return value / 1000
  return value / 1e6
}

/** An epoch number as ISO-8601, or undefined when it is not one or is out of range. */
export const isoOfEpoch = (value: number, scale: EpochScale): string | undefined => {
  const ms = epochMs(value, scale)
  if (ms === undefined) return undefined
  const date = new Date(ms)
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString()
}

/** A source pointer: `field` under `prefix` (`prefix.field`, or `field` at the top). */
export const at = (prefix: string, field: string): string => (prefix.length > 0 ? `${prefix}.${field}` : field)

// ---------------------------------------------------------------------------------------------
// Traces

/** The traces with `count` more skipped on the first: what was read as no trace is counted there. */
export const carrySkipped = (traces: ReadonlyArray<NormalizedTrace>, count: number): Array<NormalizedTrace> =>
  traces.map((trace, index) => (index === 0 ? { ...trace, skipped: trace.skipped + count } : trace))

/** A list's records read one trace each: the traces (the unread counted as skipped on the first) and how many gave none. */
export interface EachRead {
  readonly traces: ReadonlyArray<NormalizedTrace>
  readonly unread: number
}

/** Each record of a list read as one trace, or as none (`read` answers undefined). */
export const readEach = (records: ReadonlyArray<unknown>, read: (record: unknown, index: number) => NormalizedTrace | undefined): EachRead => {
  const traces: Array<NormalizedTrace> = []
  let unread = 0
  records.forEach((record, index) => {
    const trace = read(record, index)
    if (trace === undefined) unread++
    else traces.push(trace)
  })
  return { traces: carrySkipped(traces, unread), unread }
}
