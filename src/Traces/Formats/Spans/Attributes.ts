/**
 * Attribute access for span records (DECISIONS §12): OTLP AnyValue / KeyValue lists as plain
 * values, JSON-encoded attribute values, and flattened attribute trees (`llm.input_messages.0.*`,
 * `gen_ai.prompt.1.*`) as nested values. Pure and total on every JSON value.
 */
import * as Predicate from "effect/Predicate"
import { ANY_VALUE_CASES } from "../../../Otlp/Wire/Model.js"
import { bytesAsText, setOwn } from "../../../Text.js"

export type Json = Readonly<Record<string, unknown>>
export type Attributes = Readonly<Record<string, unknown>>

export const EMPTY: Attributes = Object.freeze({})
const MAX_DEPTH = 64

export const recordAt = (record: Json, key: string): Json | undefined => {
  const value = record[key]
  return Predicate.isRecord(value) ? value : undefined
}
export const first = <A>(...values: ReadonlyArray<A | undefined>): A | undefined => values.find((value) => value !== undefined)

// ---------------------------------------------------------------------------------------------
// OTLP AnyValue / KeyValue

/** True for an OTLP AnyValue wrapper (`{stringValue}`, `{kvlistValue}`, ..., or the empty `{}`): one of the model's cases (Otlp/Wire/Model.ts), read off untyped JSON. */
const isAnyValue = (value: unknown): value is Json => {
  if (!Predicate.isRecord(value)) return false
  const keys = Object.keys(value)
  return keys.length === 0 || (keys.length === 1 && keys[0] !== undefined && ANY_VALUE_CASES.has(keys[0]))
}

/** An OTLP AnyValue as a plain value: arrays and kvlists become arrays and objects. */
export const fromAnyValue = (value: unknown, depth = 0): unknown => {
  if (!Predicate.isRecord(value)) return value
  if (depth > MAX_DEPTH) return undefined
  if ("stringValue" in value) return value["stringValue"]
  if ("boolValue" in value) return value["boolValue"]
  if ("intValue" in value) {
    const int = value["intValue"]
    if (typeof int === "string" && /^-?\d+$/.test(int)) {
      const number = Number(int)
      return Number.isSafeInteger(number) ? number : int
    }
    return int
  }
  if ("doubleValue" in value) {
    const double = value["doubleValue"]
    return typeof double === "string" ? Number(double) : double
  }
  // bytes as the text they hold (so redacted like any text), never as base64 that hides it; bytes that are no text are dropped
  if ("bytesValue" in value) {
    const bytes = value["bytesValue"]
    return typeof bytes === "string" ? bytesAsText(bytes) : undefined
  }
  if ("arrayValue" in value) {
    const array = value["arrayValue"]
    const values = Predicate.isRecord(array) ? array["values"] : undefined
    return Array.isArray(values) ? values.map((item) => fromAnyValue(item, depth + 1)) : []
  }
  if ("kvlistValue" in value) {
    const list = value["kvlistValue"]
    return keyValues(Predicate.isRecord(list) ? list["values"] : undefined, depth + 1)
  }
  return undefined
}

/** An OTLP KeyValue list as a plain object (entries without a string key are dropped). */
const keyValues = (list: unknown, depth: number): Attributes => {
  if (!Array.isArray(list) || list.length === 0) return EMPTY
  const attributes: Record<string, unknown> = {}
  let found = false
  for (const entry of list) {
    if (!Predicate.isRecord(entry)) continue
    const key = entry["key"]
    if (typeof key !== "string" || UNSAFE_KEYS.has(key)) continue
    attributes[key] = fromAnyValue(entry["value"], depth)
    found = true
  }
  return found ? attributes : EMPTY
}
/** A key that would set the prototype when assigned (Object.fromEntries never did). */
const UNSAFE_KEYS: ReadonlySet<string> = new Set(["__proto__"])

/** Attributes in either shape: a plain object (kept as it is) or an OTLP KeyValue list. */
export const attributesOf = (value: unknown): Attributes => {
  if (Array.isArray(value)) return keyValues(value, 0)
  return Predicate.isRecord(value) ? value : EMPTY
}

/** A body that may be an OTLP AnyValue (log records) or a plain value (span dicts). */
export const bodyOf = (value: unknown): unknown => (isAnyValue(value) ? fromAnyValue(value) : value)

// ---------------------------------------------------------------------------------------------
// Values inside attributes

/**
 * Parses a JSON-encoded attribute value (an object or array in a string); anything else is
 * returned as it is.
 */
export const parseJsonish = (value: unknown): unknown => {
  if (typeof value !== "string") return value
  const text = value.trim()
  if (!(text.startsWith("[") || text.startsWith("{"))) return value
  try {
    const parsed: unknown = JSON.parse(text)
    return parsed
  } catch {
    return value
  }
}

/** A value as text: strings verbatim, anything else as compact JSON (undefined and null as ""). */
export const textOf = (value: unknown): string => {
  if (typeof value === "string") return value
  if (value === undefined || value === null) return ""
  return JSON.stringify(value) ?? ""
}

type Tree = Map<string, Tree | unknown>

/**
 * Flattened attributes under a prefix (`llm.input_messages.0.message.role`,
 * `gen_ai.prompt.1.content`) as nested values: numeric segments make arrays (in index order),
 * others objects. A key both a value and a parent keeps the parent.
 */
/** Every key of the node is a list index (decimal digits). */
const allIndexes = (node: Map<string, unknown>): boolean => {
  for (const key of node.keys()) {
    if (key.length === 0) return false
    for (let i = 0; i < key.length; i++) {
      const code = key.charCodeAt(i)
      if (code < 48 || code > 57) return false
    }
  }
  return true
}

export const unflatten = (attributes: Attributes, prefix: string): ReadonlyArray<unknown> => {
  const root: Tree = new Map()
  let found = false
  for (const key in attributes) {
    if (!key.startsWith(prefix)) continue
    const segments = key.slice(prefix.length).split(".")
    if (segments.length === 0 || segments[0] === "") continue
    found = true
    let node: Tree = root
    for (let i = 0; i < segments.length - 1; i++) {
      const segment = segments[i] ?? ""
      const next = node.get(segment)
      if (next instanceof Map) node = next
      else {
        const created: Tree = new Map()
        node.set(segment, created)
        node = created
      }
    }
    const leaf = segments[segments.length - 1] ?? ""
    if (!(node.get(leaf) instanceof Map)) node.set(leaf, attributes[key])
  }
  if (!found) return []
  const toValue = (node: unknown): unknown => {
    if (!(node instanceof Map)) return node
    if (node.size > 0 && allIndexes(node)) {
      const indexes: Array<number> = []
      for (const key of node.keys()) indexes.push(Number(key))
      // Exporters write them in order; sorted only when they are not.
      if (!indexes.every((index, i) => i === 0 || (indexes[i - 1] ?? 0) < index)) indexes.sort((a, b) => a - b)
      return indexes.map((index) => toValue(node.get(String(index))))
    }
    const value: Record<string, unknown> = {}
    for (const [key, child] of node) setOwn(value, key, toValue(child))
    return value
  }
  const value = toValue(root)
  return Array.isArray(value) ? value : []
}

