/**
 * Self-contained JSON Schema for structured output: an object at the root with every `$ref`
 * inlined (OpenAI strict mode and Anthropic tool schemas want an object root; several local
 * model servers do not resolve `$ref`), in its most compact form: no `title` keywords (Effect
 * writes a filter's name there), no whitespace once serialized. Sent once per call, in the
 * provider's schema slot (tool input schema, json_schema format), never repeated in the prompt.
 */
import * as JSONSchema from "effect/JSONSchema"
import type * as Schema from "effect/Schema"

export type JsonValue = null | boolean | number | string | Array<JsonValue> | { [key: string]: JsonValue }

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** A JSON copy of an unknown value; functions and undefined are dropped. */
const toJson = (u: unknown): JsonValue => {
  if (u === null || typeof u === "boolean" || typeof u === "number" || typeof u === "string") return u
  if (Array.isArray(u)) return u.map(toJson)
  if (isObject(u)) {
    const out: { [key: string]: JsonValue } = {}
    for (const [key, value] of Object.entries(u)) if (value !== undefined && typeof value !== "function") out[key] = toJson(value)
    return out
  }
  return null
}

export const inlineRefs = (node: JsonValue, defs: Readonly<Record<string, JsonValue>>, depth = 0): JsonValue => {
  if (depth > 64) throw new Error("JSON Schema nesting too deep to inline (recursive schema?)")
  if (Array.isArray(node)) return node.map((item) => inlineRefs(item, defs, depth + 1))
  if (node === null || typeof node !== "object") return node
  const ref = node["$ref"]
  if (typeof ref === "string" && ref.startsWith("#/$defs/")) {
    const target = defs[ref.slice("#/$defs/".length)]
    if (target === undefined) throw new Error(`JSON Schema reference ${ref} has no definition`)
    const { $ref: _ref, ...rest } = node
    const resolved = inlineRefs(target, defs, depth + 1)
    return isObject(resolved) ? { ...resolved, ...rest } : resolved
  }
  const out: { [key: string]: JsonValue } = {}
  for (const [key, value] of Object.entries(node)) {
    if (key === "$defs" || key === "$schema") continue
    // A `title` keyword holds the name of an Effect filter ("between(0, 1)"): noise to a model,
    // tokens on every call. (A property named title has a schema, not a string, as its value.)
    if (key === "title" && typeof value === "string") continue
    out[key] = inlineRefs(value, defs, depth + 1)
  }
  return out
}

export const structuredOutputSchema = (schema: Schema.Schema.Any): { [key: string]: JsonValue } => {
  const definitions: Record<string, JSONSchema.JsonSchema7> = {}
  const root = toJson(JSONSchema.fromAST(schema.ast, { definitions, topLevelReferenceStrategy: "skip" }))
  const defs: Record<string, JsonValue> = {}
  for (const [key, value] of Object.entries(definitions)) defs[key] = toJson(value)
  const inlined = inlineRefs(root, defs)
  if (!isObject(inlined) || inlined["type"] !== "object") throw new Error("structured output schemas must be objects")
  return inlined
}
