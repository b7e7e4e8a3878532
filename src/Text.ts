/**
 * Whitespace collapsing, the one definition for every module that shows or compares text (the
 * prompt's rendering, the evidence check, signals, the diagnose report, baselines); and the one
 * encoding of a scope's name into a path segment or store key (Auth/Scopes.ts, Home, the limiter);
 * and the one safe way to set a key read from input on an object (`setOwn`); and OTLP's bytes read
 * as the text they hold (`bytesAsText`).
 */

/**
 * Runs of whitespace (newlines included) that are not already one plain space. Text whose words
 * are separated by single spaces does not match, so `replace` gives the same string back without
 * building a new one (the common case; the `\s+` form rebuilt every string, 5x slower).
 */
const NOT_ONE_SPACE = /\s{2,}|[^\S ]/g

/** Whitespace runs (newlines included) as one space, trimmed. */
export const oneLine = (text: string): string => text.replace(NOT_ONE_SPACE, " ").trim()

/** Lower-cased, whitespace runs as one space, trimmed: the form used to compare contents. */
export const normalise = (text: string): string => oneLine(text.toLowerCase())

const literal = (byte: number) =>
  (byte >= 0x61 && byte <= 0x7a) || (byte >= 0x30 && byte <= 0x39) || byte === 0x5f || byte === 0x2d

const utf8 = new TextEncoder()

/**
 * A scope's name as one path segment / store-key component (Auth/Scopes.ts). Lower-case
 * letters, digits, `_` and `-` stay; every other UTF-8 byte becomes `%XX` (upper-case hex). Injective; the result never contains `/`, `\`, `:` or `.`, and never differs from another
 * result by letter case only. The empty name (refused by the key parsers) encodes as `%`, which no
 * other name encodes to.
 */
export const encodeScopeName = (name: string): string => {
  if (name.length === 0) return "%"
  let out = ""
  for (const byte of utf8.encode(name)) {
    out += literal(byte) ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`
  }
  return out
}

/**
 * Sets an own, enumerable data property, `__proto__` included (as `JSON.parse` and
 * `Object.fromEntries` make it), never the prototype: for objects built from untrusted keys.
 */
export const setOwn = (target: Record<string, unknown>, key: string, value: unknown): void => {
  if (key === "__proto__") Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
  else target[key] = value
}

/**
 * OTLP bytes (base64, as OTLP/JSON writes them) as the text they hold, when they are UTF-8; undefined
 * for bytes that are no text. Bytes are read as text, never kept raw: what they hold (a prompt sent
 * as bytes) is content, redacted like a string (DECISIONS §20).
 */
export const bytesAsText = (base64: string): string | undefined => {
  try {
    return STRICT_UTF8.decode(Buffer.from(base64, "base64"))
  } catch {
    return undefined
  }
}
const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true })
