/**
 * Where a trace element is in the trace file's text: the line of an element's source
 * (`span:<id>`, `run:<id>`, `event:<id>`, or a JSON path like `messages[3]`, `steps[4]`,
 * `history[2].error`, `trajectory[5]`), for SARIF regions. One pass of a small JSON tokenizer over
 * the text maps the wanted paths and ids to the line where their value starts; nothing is parsed
 * into values. Malformed or too deeply nested text ends the pass with what was found so far.
 */

type Segment = string | number

/** A source read as what to look for. */
export type SourceTarget =
  | { readonly _tag: "id"; readonly scheme: string; readonly id: string }
  | { readonly _tag: "path"; readonly segments: ReadonlyArray<Segment> }

const MAX_DEPTH = 256

const PATH = /^(?:[A-Za-z_$][\w$-]*|\[\d+\])(?:\.[A-Za-z_$][\w$-]*|\[\d+\])*$/

/** Reads a source: `scheme:id[/part]` or a JSON path; undefined for what has no place in the file (`derived:…`, `log:…`). */
export const parseSource = (source: string): SourceTarget | undefined => {
  const scheme = /^(span|run|event):([^/]+)/.exec(source)
  if (scheme !== null) {
    const [, name, id] = scheme
    if (name === undefined || id === undefined || id.startsWith("#")) return undefined
    return { _tag: "id", scheme: name, id }
  }
  if (!PATH.test(source)) return undefined
  const segments: Array<Segment> = []
  for (const match of source.matchAll(/([A-Za-z_$][\w$-]*)|\[(\d+)\]/g)) {
    if (match[1] !== undefined) segments.push(match[1])
    else if (match[2] !== undefined) segments.push(Number(match[2]))
  }
  return segments.length === 0 ? undefined : { _tag: "path", segments }
}

/** Keys an id is looked for under, best first, per scheme. */
const ID_KEYS: Readonly<Record<string, ReadonlyArray<string>>> = {
  span: ["spanId", "span_id", "id"],
  run: ["id", "run_id", "runId"],
  event: ["id", "event_id", "eventId"]
}

const segmentKey = (segment: Segment): string => (typeof segment === "number" ? `[${segment}]` : `.${segment}`)
const pathKey = (segments: ReadonlyArray<Segment>): string => segments.map(segmentKey).join("")

interface PathWant {
  readonly segments: ReadonlyArray<Segment>
  line: number | undefined
}
interface IdWant {
  readonly keys: ReadonlyArray<string>
  /** Best rank so far: the index in `keys`; keys.length for another `…id` key (not a parent's); one more for any key. */
  rank: number
  line: number | undefined
}

type Visit = (path: ReadonlyArray<Segment>, line: number, scalar: string | undefined, key: string | undefined) => void

const LITERAL = /-?(?:\d[\d.eE+-]*)|true|false|null/y

/** Calls `visit` at the start of every value, in text order, with its path and line (scalars with their text). */
const walk = (text: string, visit: Visit): void => {
  let i = 0
  let line = 1
  const path: Array<Segment> = []
  const skipSpace = () => {
    while (i < text.length) {
      const c = text.charCodeAt(i)
      if (c === 10) line += 1
      else if (c !== 32 && c !== 9 && c !== 13) return
      i += 1
    }
  }
  const readString = (): string | undefined => {
    let j = i + 1
    let escaped = false
    while (j < text.length) {
      const c = text.charCodeAt(j)
      if (c === 92) {
        escaped = true
        j += 2
        continue
      }
      if (c === 34) break
      if (c === 10) line += 1
      j += 1
    }
    if (j >= text.length) return undefined
    const raw = text.slice(i + 1, j)
    i = j + 1
    if (!escaped) return raw
    try {
      const decoded: unknown = JSON.parse(`"${raw}"`)
      return typeof decoded === "string" ? decoded : undefined
    } catch {
      return undefined
    }
  }
  const value = (depth: number, key: string | undefined): boolean => {
    skipSpace()
    if (depth > MAX_DEPTH || i >= text.length) return false
    const at = line
    const c = text[i]
    if (c === "{") {
      visit(path, at, undefined, key)
      i += 1
      skipSpace()
      if (text[i] === "}") {
        i += 1
        return true
      }
      for (;;) {
        skipSpace()
        if (text[i] !== "\"") return false
        const name = readString()
        if (name === undefined) return false
        skipSpace()
        if (text[i] !== ":") return false
        i += 1
        path.push(name)
        const ok = value(depth + 1, name)
        path.pop()
        if (!ok) return false
        skipSpace()
        if (text[i] === ",") {
          i += 1
          continue
        }
        if (text[i] !== "}") return false
        i += 1
        return true
      }
    }
    if (c === "[") {
      visit(path, at, undefined, key)
      i += 1
      skipSpace()
      if (text[i] === "]") {
        i += 1
        return true
      }
      for (let index = 0; ; index++) {
        path.push(index)
        const ok = value(depth + 1, key)
        path.pop()
        if (!ok) return false
        skipSpace()
        if (text[i] === ",") {
          i += 1
          continue
        }
        if (text[i] !== "]") return false
        i += 1
        return true
      }
    }
    if (c === "\"") {
      const scalar = readString()
      if (scalar === undefined) return false
      visit(path, at, scalar, key)
      return true
    }
    LITERAL.lastIndex = i
    const literal = LITERAL.exec(text)
    if (literal === null) return false
    i += literal[0].length
    visit(path, at, literal[0], key)
    return true
  }
  value(0, undefined)
}

const endsWith = (path: ReadonlyArray<Segment>, suffix: ReadonlyArray<Segment>): boolean => {
  if (suffix.length > path.length) return false
  const offset = path.length - suffix.length
  return suffix.every((segment, k) => path[offset + k] === segment)
}

/**
 * The 1-based line where each source's element starts in `text`, for the sources found. A path
 * matches any value whose path ends with it (so an envelope around the trace does not matter),
 * the first in the text; when the whole path is not there, its longest present prefix answers
 * (the message for `messages[3].tool_calls[0]`). An id matches a string or number equal to it
 * (`0x` prefix or not) under the scheme's id keys first (`spanId`, `span_id`, `id` for spans),
 * then any other `…id` key but a parent's, then any key.
 */
export const locateLines = (text: string, sources: ReadonlyArray<string>): ReadonlyMap<string, number> => {
  const records = jsonLinesRecords(text)
  return records === undefined ? locateInJson(text, sources) : locateInJsonLines(records, sources)
}

/** A JSON Lines text's records with their line numbers; undefined for a JSON text (one value, pretty-printed or not). */
const jsonLinesRecords = (text: string): ReadonlyArray<{ readonly line: number; readonly text: string }> | undefined => {
  const records: Array<{ readonly line: number; readonly text: string }> = []
  text.split("\n").forEach((raw, index) => {
    const record = raw.trim()
    if (record.length > 0) records.push({ line: index + 1, text: record })
  })
  const whole = (record: string) => (record.startsWith("{") && record.endsWith("}")) || (record.startsWith("[") && record.endsWith("]"))
  return records.length >= 2 && records.every((record) => whole(record.text)) ? records : undefined
}

/**
 * Sources in a JSON Lines body: `lines[i]…` and `[i]…` name the i-th record (the body parser's
 * numbering: blank lines are not records), its line; an id is looked for record by record.
 */
const locateInJsonLines = (
  records: ReadonlyArray<{ readonly line: number; readonly text: string }>,
  sources: ReadonlyArray<string>
): ReadonlyMap<string, number> => {
  const lines = new Map<string, number>()
  const rest: Array<string> = []
  for (const source of sources) {
    const indexed = /^(?:lines)?\[(\d+)\]/.exec(source)
    const line = indexed === null ? undefined : records[Number(indexed[1])]?.line
    if (line !== undefined) lines.set(source, line)
    else if (indexed === null) rest.push(source)
  }
  if (rest.length > 0) {
    for (const record of records) {
      for (const [source, line] of locateInJson(record.text, rest.filter((source) => !lines.has(source)))) lines.set(source, record.line + line - 1)
    }
  }
  return lines
}

const locateInJson = (text: string, sources: ReadonlyArray<string>): ReadonlyMap<string, number> => {
  const targets = new Map<string, SourceTarget>()
  const pathWants = new Map<string, PathWant>()
  const byLast = new Map<string, Array<PathWant>>()
  const idWants = new Map<string, IdWant>()
  const idValues = new Map<string, Array<IdWant>>()
  for (const source of sources) {
    const target = parseSource(source)
    if (target === undefined) continue
    targets.set(source, target)
    if (target._tag === "id") {
      const wantKey = `${target.scheme}:${target.id}`
      if (idWants.has(wantKey)) continue
      const want: IdWant = { keys: ID_KEYS[target.scheme] ?? ["id"], rank: Number.POSITIVE_INFINITY, line: undefined }
      idWants.set(wantKey, want)
      const bare = target.id.replace(/^0x/i, "")
      for (const written of new Set([target.id, bare, `0x${bare}`])) idValues.set(written, [...(idValues.get(written) ?? []), want])
      continue
    }
    for (let length = target.segments.length; length > 0; length--) {
      const segments = target.segments.slice(0, length)
      const key = pathKey(segments)
      const last = segments[length - 1]
      if (pathWants.has(key) || last === undefined) continue
      const want: PathWant = { segments, line: undefined }
      pathWants.set(key, want)
      byLast.set(segmentKey(last), [...(byLast.get(segmentKey(last)) ?? []), want])
    }
  }
  if (targets.size === 0) return new Map()
  walk(text, (path, line, scalar, key) => {
    const last = path[path.length - 1]
    if (last !== undefined) {
      for (const want of byLast.get(segmentKey(last)) ?? []) {
        if (want.line === undefined && endsWith(path, want.segments)) want.line = line
      }
    }
    if (scalar === undefined) return
    for (const want of idValues.get(scalar) ?? []) {
      const named = key === undefined ? -1 : want.keys.indexOf(key)
      const rank = named >= 0
        ? named
        : key !== undefined && /id$/i.test(key) && !/parent/i.test(key)
        ? want.keys.length
        : want.keys.length + 1
      if (rank < want.rank) {
        want.rank = rank
        want.line = line
      }
    }
  })
  const lines = new Map<string, number>()
  for (const [source, target] of targets) {
    if (target._tag === "id") {
      const line = idWants.get(`${target.scheme}:${target.id}`)?.line
      if (line !== undefined) lines.set(source, line)
      continue
    }
    for (let length = target.segments.length; length > 0; length--) {
      const line = pathWants.get(pathKey(target.segments.slice(0, length)))?.line
      if (line !== undefined) {
        lines.set(source, line)
        break
      }
    }
  }
  return lines
}
