/**
 * Tool-call arguments as checks read them: parsed as JSON, written in one canonical form (keys sorted,
 * no whitespace) so `{"a":1, "b":2}` and `{"b":2,"a":1}` are the same call, and checked against the
 * subset of JSON Schema that function-calling APIs declare (type, required, properties, enum,
 * additionalProperties, items). No dependency: the checker visits each value of the arguments once.
 */
import * as Predicate from "effect/Predicate"
import { textKey } from "./Errors.js"

/**
 * Arguments longer than this are compared as written, not parsed: a loop of long arguments (a file's
 * text) is still the same text, and parsing them again and again cost more than normalize (bench/checks.ts).
 */
const PARSED = 2_000
/** Deeper than this the checker stops descending (and accepts): arguments nest a few levels, not hundreds. */
const DEPTH = 32

type Parsed = { readonly ok: true; readonly value: unknown } | { readonly ok: false }

/** The arguments parsed as JSON, or not JSON. */
export const parseArguments = (text: string): Parsed => {
  try {
    const value: unknown = JSON.parse(text)
    return { ok: true, value }
  } catch {
    return { ok: false }
  }
}

const canonicalValue = (value: unknown, depth: number): string => {
  if (Array.isArray(value)) return depth > DEPTH ? JSON.stringify(value) : `[${value.map((each) => canonicalValue(each, depth + 1)).join(",")}]`
  if (Predicate.isRecord(value)) {
    if (depth > DEPTH) return JSON.stringify(value)
    return `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonicalValue(value[key], depth + 1)}`).join(",")}}`
  }
  return JSON.stringify(value) ?? "null"
}

/** One form per call's arguments: short JSON with sorted keys and no whitespace; anything else by its text but for white space (Errors.ts textKey). */
export const canonicalArguments = (text: string): string => {
  const trimmed = text.trim()
  if (trimmed.length <= PARSED && (trimmed.startsWith("{") || trimmed.startsWith("["))) {
    const parsed = parseArguments(trimmed)
    if (parsed.ok) return canonicalValue(parsed.value, 0)
  }
  return textKey(trimmed)
}

/** How arguments break their declared schema; the kinds are the finding's error class. */
export type ViolationKind = "not_json" | "not_object" | "missing_required" | "wrong_type" | "additional_property" | "not_in_enum"

export interface Violation {
  readonly kind: ViolationKind
  /** Where, as a JSON path: `$.units`, `$.items[2].id`. */
  readonly path: string
  /** What is wrong, for the explanation. */
  readonly detail: string
}

const TYPE_OF: Readonly<Record<string, (value: unknown) => boolean>> = {
  string: (value) => typeof value === "string",
  number: (value) => typeof value === "number" && Number.isFinite(value),
  integer: (value) => typeof value === "number" && Number.isInteger(value),
  boolean: (value) => typeof value === "boolean",
  null: (value) => value === null,
  object: (value) => Predicate.isRecord(value),
  array: (value) => Array.isArray(value)
}

const kindOf = (value: unknown): string =>
  value === null ? "null" : Array.isArray(value) ? "array" : typeof value === "number" && Number.isInteger(value) ? "integer" : typeof value

const shown = (value: unknown): string => {
  const text = JSON.stringify(value) ?? String(value)
  return text.length > 40 ? `${text.slice(0, 40)}…` : text
}

/** The schema's types, lower case (Gemini writes `STRING`), `nullable: true` (OpenAPI 3.0, Gemini) adding null; empty when it names none we know. */
const typesOf = (schema: Readonly<Record<string, unknown>>): ReadonlyArray<string> => {
  const raw = schema["type"]
  const names = (typeof raw === "string" ? [raw] : Array.isArray(raw) ? raw.filter(Predicate.isString) : []).map((name) => name.toLowerCase())
  if (names.length === 0 || names.some((name) => TYPE_OF[name] === undefined)) return []
  return schema["nullable"] === true ? [...names, "null"] : names
}

const isPrimitive = (value: unknown): value is string | number | boolean | null =>
  value === null || typeof value === "string" || typeof value === "number" || typeof value === "boolean"

/** One node of the schema against one value, the violations added to `found` (a function of the module's: one made per call was a measurable cost). */
const visit = (found: Array<Violation>, limit: number, node: unknown, at: unknown, path: string, depth: number): void => {
  if (found.length >= limit || depth > DEPTH || !Predicate.isRecord(node)) return
  const types = typesOf(node)
  if (types.length > 0 && !types.some((type) => TYPE_OF[type]?.(at) === true)) {
    found.push({ kind: "wrong_type", path, detail: `${path} must be ${types.join(" or ")}, not ${kindOf(at)} ${shown(at)}` })
    return
  }
  const allowed = node["enum"]
  if (Array.isArray(allowed) && allowed.length > 0 && allowed.every(isPrimitive) && isPrimitive(at) && !allowed.includes(at)) {
    found.push({ kind: "not_in_enum", path, detail: `${path} must be one of ${allowed.map(shown).join(", ")}, not ${shown(at)}` })
  }
  if (Predicate.isRecord(at)) {
    const required = node["required"]
    if (Array.isArray(required)) {
      for (const name of required) {
        if (typeof name === "string" && !Object.hasOwn(at, name)) found.push({ kind: "missing_required", path: `${path}.${name}`, detail: `${path}.${name} is required but missing` })
      }
    }
    const properties = Predicate.isRecord(node["properties"]) ? node["properties"] : {}
    const additional = node["additionalProperties"]
    for (const key of Object.keys(at)) {
      if (found.length >= limit) return
      if (Object.hasOwn(properties, key)) visit(found, limit, properties[key], at[key], `${path}.${key}`, depth + 1)
      else if (additional === false) found.push({ kind: "additional_property", path: `${path}.${key}`, detail: `${path}.${key} is not a declared property` })
      else if (Predicate.isRecord(additional)) visit(found, limit, additional, at[key], `${path}.${key}`, depth + 1)
    }
  }
  const items = node["items"]
  if (Array.isArray(at) && Predicate.isRecord(items)) {
    for (let index = 0; index < at.length && found.length < limit; index++) visit(found, limit, items, at[index], `${path}[${index}]`, depth + 1)
  }
}

/**
 * How a value breaks a schema (at most `limit` violations). Keywords outside the subset (`anyOf`,
 * `$ref`, `pattern`, `minimum`, ...) are not judged: an unknown keyword never fires a check.
 */
export const violationsOf = (schema: unknown, value: unknown, limit = 5): ReadonlyArray<Violation> => {
  const found: Array<Violation> = []
  visit(found, limit, schema, value, "$", 0)
  return found
}

/**
 * How a call's arguments (its text) break the tool's declared parameters: not JSON, not an object
 * when the schema describes one, or the schema's violations. Empty when they fit.
 */
export const argumentViolations = (text: string, parameters: Readonly<Record<string, unknown>>): ReadonlyArray<Violation> => {
  const parsed = parseArguments(text.trim())
  if (!parsed.ok) return [{ kind: "not_json", path: "$", detail: "the arguments are not JSON" }]
  const describesObject = typesOf(parameters).includes("object") || Predicate.isRecord(parameters["properties"]) || Array.isArray(parameters["required"])
  if (describesObject && !Predicate.isRecord(parsed.value)) {
    return [{ kind: "not_object", path: "$", detail: `the arguments are ${kindOf(parsed.value)} ${shown(parsed.value)}, not the object the schema describes` }]
  }
  return violationsOf(parameters, parsed.value)
}
