/**
 * The patterns' own input shapes as trace shapes (DECISIONS §12): what makes a body "native".
 * Having a field named like a pattern's sequence (`messages`, `steps`, `turns`) is not enough: a
 * Gemini CLI session or a Claude Agent SDK dump has `messages` too. A native sequence holds the
 * items of the pattern's schema, so its records carry the item's own keys (a message_log
 * message: `from` and `content`; a step: `type` and `content`; a turn: `role` and `content`).
 *
 * A record fits an item when it has every required key of the item, when every key it has is
 * one of the item's, or when it has one of the item's distinctive keys (a native item with a
 * missing or wrong value, which the pattern's schema then names). A list fits when it is not a list of records (the schema names it), or when at least half of its
 * first records fit. Pure and total on every JSON value.
 */
import * as Predicate from "effect/Predicate"
import * as SchemaAST from "effect/SchemaAST"

export interface ItemKeys {
  /** Every key of the item (required and optional). */
  readonly declared: ReadonlySet<string>
  /** The keys the item must have. */
  readonly required: ReadonlyArray<string>
}

/** How many records of a list are looked at. */
const SAMPLE = 20

/** The node under refinements, suspensions, transformations (their encoded side) and optional unions. */
const unwrap = (ast: SchemaAST.AST): SchemaAST.AST => {
  let current = ast
  for (let depth = 0; depth < 16; depth++) {
    if (SchemaAST.isRefinement(current)) current = current.from
    else if (SchemaAST.isSuspend(current)) current = current.f()
    else if (SchemaAST.isTransformation(current)) current = current.from
    else if (SchemaAST.isUnion(current)) {
      const members = current.types.filter((member) => !SchemaAST.isUndefinedKeyword(member))
      const only = members[0]
      if (members.length !== 1 || only === undefined) return current
      current = only
    } else return current
  }
  return current
}

/** The keys of a struct schema, or undefined when the node is not a struct. */
export const itemKeysOf = (ast: SchemaAST.AST): ItemKeys | undefined => {
  const node = unwrap(ast)
  if (!SchemaAST.isTypeLiteral(node)) return undefined
  const declared: Array<string> = []
  const required: Array<string> = []
  for (const signature of node.propertySignatures) {
    if (typeof signature.name !== "string") continue
    declared.push(signature.name)
    if (!signature.isOptional) required.push(signature.name)
  }
  return { declared: new Set(declared), required }
}

/**
 * The item keys of each field of an input schema (its encoded side, as clients send it) that is
 * a list of structs: `messages` → Message's keys, `steps` → Step's, ...
 */
export const sequenceItemKeys = (encoded: SchemaAST.AST): ReadonlyMap<string, ItemKeys> => {
  const keys = new Map<string, ItemKeys>()
  for (const signature of SchemaAST.getPropertySignatures(encoded)) {
    if (typeof signature.name !== "string") continue
    const list = unwrap(signature.type)
    if (!SchemaAST.isTupleType(list) || list.rest.length !== 1) continue
    const item = list.rest[0]
    const found = item === undefined ? undefined : itemKeysOf(item.type)
    if (found !== undefined) keys.set(signature.name, found)
  }
  return keys
}

/** Keys every chat or event format has: sharing them says nothing about being the native shape. */
const GENERIC_KEYS: ReadonlySet<string> = new Set(["content", "type", "timestamp", "role", "id", "name", "text", "source", "metadata"])

/**
 * A record fits an item: it has every required key, or each of its keys is one of the item's, or
 * it has one of the item's own keys that foreign formats do not use (a step's `actor` or `tool`,
 * a message's `from`, `to` or `round`).
 */
export const fitsItem = (record: Readonly<Record<string, unknown>>, keys: ItemKeys): boolean => {
  if (keys.required.every((key) => Object.hasOwn(record, key))) return true
  const own = Object.keys(record)
  if (own.length > 0 && own.every((key) => keys.declared.has(key))) return true
  return own.some((key) => keys.declared.has(key) && !GENERIC_KEYS.has(key))
}

/**
 * A field's value fits a native sequence: not a list of records (left to the pattern's schema to
 * name), or a list at least half of whose first records fit the item.
 */
export const fitsSequence = (value: unknown, keys: ItemKeys): boolean => {
  if (!Array.isArray(value)) return true
  const head = value.slice(0, SAMPLE).filter(Predicate.isRecord)
  if (head.length === 0) return true
  return head.filter((record) => fitsItem(record, keys)).length * 2 >= head.length
}

type NativeField = "steps" | "messages" | "turns"
const keysOf = (required: ReadonlyArray<string>, optional: ReadonlyArray<string>): ItemKeys => ({ declared: new Set([...required, ...optional]), required })

/**
 * The service's own sequence shapes that normalize reads generically, with their items' keys: the
 * families' Step, Message and Turn (src/Catalogue/Families.ts, a layer above; test/traces/native.test.ts
 * checks that these keys are theirs).
 */
export const NATIVE_SEQUENCES: ReadonlyArray<readonly [NativeField, ItemKeys]> = [
  ["steps", keysOf(["type", "content"], ["timestamp", "actor", "tool", "confidence"])],
  ["messages", keysOf(["from", "content"], ["to", "type", "timestamp", "round"])],
  ["turns", keysOf(["role", "content"], [])]
]

/** What a native sequence's items need, for messages: `steps[i] with type and content, …`. */
export const NATIVE_NEEDS = NATIVE_SEQUENCES.map(([field, keys]) => `${field}[i] with ${keys.required.join(" and ")}`).join(", ")
