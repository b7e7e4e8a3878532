/**
 * The source text of JSON-RPC ids, read from the message text itself. `JSON.parse` turns a number
 * id past 2^53 into the nearest double (12345678901234567890 comes back as 12345678901234567000),
 * and node 20 has neither the reviver's `context.source` nor `JSON.rawJSON`. So, after `JSON.parse`
 * accepted the text (it is valid JSON), one pass over it notes, for each message (the object, or
 * each element of a batch), the text of its `id` and of its `params.requestId` (what
 * `notifications/cancelled` names) when they are numbers. Linear in the text; nothing nested
 * deeper than a message's params is looked into, only skipped (a counter, no recursion).
 */

export interface RawIds {
  /** The number text of the message's `id`, else undefined (absent, or not a number). */
  readonly id: string | undefined
  /** The number text of `params.requestId`, else undefined. */
  readonly requestId: string | undefined
}

const QUOTE = 34
const BACKSLASH = 92
const COMMA = 44
const MINUS = 45
const OPEN_BRACKET = 91
const CLOSE_BRACKET = 93
const OPEN_BRACE = 123
const CLOSE_BRACE = 125

const isSpace = (c: number) => c === 32 || c === 9 || c === 10 || c === 13
const isNumberStart = (c: number) => c === MINUS || (c >= 48 && c <= 57)

const skipSpace = (text: string, from: number): number => {
  let i = from
  while (i < text.length && isSpace(text.charCodeAt(i))) i++
  return i
}

/** The index after the string whose opening quote is at `from`. */
const stringEnd = (text: string, from: number): number => {
  let i = from + 1
  while (i < text.length) {
    const c = text.charCodeAt(i)
    if (c === QUOTE) return i + 1
    i += c === BACKSLASH ? 2 : 1
  }
  return text.length
}

/** The index after the value starting at `from`; objects and arrays are skipped by counting brackets. */
const valueEnd = (text: string, from: number): number => {
  const first = text.charCodeAt(from)
  if (first === QUOTE) return stringEnd(text, from)
  if (first === OPEN_BRACE || first === OPEN_BRACKET) {
    let depth = 0
    let i = from
    while (i < text.length) {
      const c = text.charCodeAt(i)
      if (c === QUOTE) {
        i = stringEnd(text, i)
        continue
      }
      if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++
      else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        depth--
        if (depth === 0) return i + 1
      }
      i++
    }
    return text.length
  }
  // A number, true, false or null.
  let i = from
  while (i < text.length) {
    const c = text.charCodeAt(i)
    if (c === COMMA || c === CLOSE_BRACE || c === CLOSE_BRACKET || isSpace(c)) break
    i++
  }
  return i
}

/** A member name as JSON.parse reads it; null for long names (never one looked for). */
const nameOf = (text: string, from: number, to: number): string | null => {
  if (to - from > 64) return null
  const raw = text.slice(from, to)
  if (!raw.includes("\\")) return raw.slice(1, -1)
  try {
    const name: unknown = JSON.parse(raw)
    return typeof name === "string" ? name : null
  } catch {
    return null
  }
}

/**
 * Walks the members of the object whose `{` is at `from`; `member` gets each name and the index
 * of its value, and answers the index after the value. Answers the index after the object.
 */
const scanObject = (text: string, from: number, member: (name: string | null, at: number) => number): number => {
  let i = skipSpace(text, from + 1)
  if (text.charCodeAt(i) === CLOSE_BRACE) return i + 1
  while (i < text.length) {
    const nameEnd = stringEnd(text, i)
    const name = nameOf(text, i, nameEnd)
    const at = skipSpace(text, skipSpace(text, nameEnd) + 1)
    i = skipSpace(text, Math.max(member(name, at), at))
    if (text.charCodeAt(i) !== COMMA) return i + 1
    i = skipSpace(text, i + 1)
  }
  return text.length
}

const numberText = (text: string, at: number, end: number): string | undefined =>
  isNumberStart(text.charCodeAt(at)) ? text.slice(at, end) : undefined

/** One message object; a member named twice counts by its last occurrence, as in JSON.parse. */
const scanMessage = (text: string, from: number): { readonly ids: RawIds; readonly end: number } => {
  let id: string | undefined
  let requestId: string | undefined
  const end = scanObject(text, from, (name, at) => {
    if (name === "params") {
      requestId = undefined
      if (text.charCodeAt(at) !== OPEN_BRACE) return valueEnd(text, at)
      return scanObject(text, at, (inner, value) => {
        const valueTo = valueEnd(text, value)
        if (inner === "requestId") requestId = numberText(text, value, valueTo)
        return valueTo
      })
    }
    const to = valueEnd(text, at)
    if (name === "id") id = numberText(text, at, to)
    return to
  })
  return { ids: { id, requestId }, end }
}

/**
 * The raw ids of the messages of a JSON text already parsed: one entry for a single message, one
 * per element for a batch (undefined for an element that is not an object).
 */
export const scanIds = (text: string): ReadonlyArray<RawIds | undefined> => {
  const start = skipSpace(text, 0)
  const first = text.charCodeAt(start)
  if (first === OPEN_BRACE) return [scanMessage(text, start).ids]
  if (first !== OPEN_BRACKET) return []
  const found: Array<RawIds | undefined> = []
  let i = skipSpace(text, start + 1)
  if (text.charCodeAt(i) === CLOSE_BRACKET) return found
  while (i < text.length) {
    if (text.charCodeAt(i) === OPEN_BRACE) {
      const { end, ids } = scanMessage(text, i)
      found.push(ids)
      i = end
    } else {
      found.push(undefined)
      i = Math.max(valueEnd(text, i), i + 1)
    }
    i = skipSpace(text, i)
    if (text.charCodeAt(i) !== COMMA) break
    i = skipSpace(text, i + 1)
  }
  return found
}
