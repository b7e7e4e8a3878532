/**
 * Bytes to JSON, for every surface (the REST handlers, MCP, the CLI): the JSON media type (415),
 * bounds on a JSON text's shape checked on its bytes before any parser runs (depth and keys, 400),
 * strict UTF-8 JSON objects (400), JSON Lines, and Inspect AI's zipped `.eval` logs (Zip.ts,
 * inflated under the body limit). Over HTTP the bytes are the ones the edge read (Edge/Body.ts).
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Predicate from "effect/Predicate"
import { isUtf8 } from "node:buffer"
import { RequestTooLarge, UnsupportedMediaType, ValidationError } from "../Errors.js"
import { DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_DEPTH, DEFAULT_MAX_KEYS } from "../Config.js"
import type { ZipEntry } from "./Zip.js"

/** True for application/json and any +json media type (parameters such as charset allowed). */
export const isJsonContentType = (header: string | undefined): boolean => {
  if (header === undefined) return false
  const media = header.split(";")[0]?.trim().toLowerCase() ?? ""
  return media === "application/json" || /^application\/[a-z0-9.+-]+\+json$/.test(media)
}

/**
 * Bounds on the shape of a JSON body (DECISIONS §16), checked on its bytes before it is parsed,
 * so no parser or recursive walk ever sees a body past them: nesting depth of objects and arrays
 * (SVC_API_MAX_DEPTH) and object keys in the body (SVC_API_MAX_KEYS). A reference with the
 * defaults; the application provides the configured values.
 */
export class JsonBounds extends Context.Reference<JsonBounds>()("JsonBounds", {
  defaultValue: (): { readonly maxDepth: number; readonly maxKeys: number; readonly maxInflatedBytes: number } => ({
    maxDepth: DEFAULT_MAX_DEPTH,
    maxKeys: DEFAULT_MAX_KEYS,
    maxInflatedBytes: DEFAULT_MAX_BODY_BYTES
  })
}) {}

const QUOTE = 0x22
const BACKSLASH = 0x5c

/**
 * 400 when a JSON text nests deeper than `maxDepth` or holds more than `maxKeys` object keys.
 * One pass over the bytes: strings are skipped with a native search for their closing quote, and a
 * key is a colon outside strings. Malformed JSON is left to the parser.
 */
export const jsonShapeRefusal = (
  bytes: Uint8Array,
  bounds: { readonly maxDepth: number; readonly maxKeys: number }
): ValidationError | null => {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const length = buffer.length
  let depth = 0
  let keys = 0
  let i = 0
  while (i < length) {
    const byte = buffer[i]
    if (byte === QUOTE) {
      let end = i
      for (;;) {
        end = buffer.indexOf(QUOTE, end + 1)
        if (end < 0) return null
        let backslashes = 0
        while (buffer[end - 1 - backslashes] === BACKSLASH) backslashes++
        if (backslashes % 2 === 0) break
      }
      i = end + 1
      continue
    }
    if (byte === 0x7b || byte === 0x5b) {
      depth++
      if (depth > bounds.maxDepth) {
        return new ValidationError({
          message: `the request body is nested more than ${bounds.maxDepth} levels deep in objects and arrays (SVC_API_MAX_DEPTH)`
        })
      }
    } else if (byte === 0x7d || byte === 0x5d) {
      depth--
    } else if (byte === 0x3a) {
      keys++
      if (keys > bounds.maxKeys) {
        return new ValidationError({
          message: `the request body holds more than ${bounds.maxKeys} object keys (SVC_API_MAX_KEYS)`
        })
      }
    }
    i++
  }
  return null
}

/** True for the JSON Lines media types (application/x-ndjson, application/jsonl, application/x-jsonlines). */
export const isJsonLinesContentType = (header: string | undefined): boolean => {
  const media = header?.split(";")[0]?.trim().toLowerCase() ?? ""
  return media === "application/x-ndjson" || media === "application/jsonl" || media === "application/x-jsonlines" ||
    media === "application/json-lines"
}

/** True for a zip archive's media type (application/zip, as Inspect AI's `.eval` logs are sent). */
export const isZipContentType = (header: string | undefined): boolean => {
  const media = header?.split(";")[0]?.trim().toLowerCase() ?? ""
  return media === "application/zip" || media === "application/x-zip-compressed"
}

/** What a body is by its Content-Type: JSON, JSON Lines, a zip archive, or something else. */
export type BodyMedia = "json" | "jsonLines" | "zip" | "other"

export const bodyMediaOf = (contentType: string | undefined): BodyMedia =>
  isJsonContentType(contentType) ? "json" : isJsonLinesContentType(contentType) ? "jsonLines" : isZipContentType(contentType) ? "zip" : "other"

/**
 * The 415 of a body in a media type its route does not take: JSON, or, where a trace may be sent
 * as its tool wrote it (`jsonLines`), JSON Lines (a stream of records) or a zip archive (Inspect
 * AI's `.eval`).
 */
export const unsupportedMedia = (
  contentType: string | undefined,
  options: { readonly jsonLines: boolean; readonly what?: string | undefined }
): UnsupportedMediaType =>
  new UnsupportedMediaType({
    message: `send ${options.what ?? "the trace"} as JSON with Content-Type: application/json${
      options.jsonLines ? " (or JSON Lines with application/x-ndjson, or an Inspect AI .eval log with application/zip)" : ""
    } (got ${contentType === undefined ? "no Content-Type" : JSON.stringify(contentType.slice(0, 80))})`
  })

/** 415 unless the body is JSON, or, where a trace may be sent as its tool wrote it (`jsonLines`), JSON Lines or a zip. */
export const requireJson = (
  contentType: string | undefined,
  options: { readonly jsonLines: boolean; readonly what?: string } = { jsonLines: false }
): Effect.Effect<void, UnsupportedMediaType> => {
  const media = bodyMediaOf(contentType)
  return media === "json" || (options.jsonLines && media !== "other") ? Effect.void : Effect.fail(unsupportedMedia(contentType, options))
}

/**
 * Strict UTF-8 decoding: invalid sequences are refused, not replaced; a leading byte-order mark is
 * dropped. (`isUtf8` + `toString` is several times faster than a fatal TextDecoder on large bodies.)
 */
const decodeUtf8 = (bytes: Uint8Array): string | undefined => {
  if (!isUtf8(bytes)) return undefined
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8")
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
}

const parseFailure = (error: unknown, where: string) => {
  const detail = error instanceof SyntaxError ? error.message : "nesting too deep"
  return new ValidationError({ message: `${where} is not valid JSON: ${detail.slice(0, 200)}` })
}

const textOf = (bytes: Uint8Array): Effect.Effect<string, ValidationError> => {
  const text = decodeUtf8(bytes)
  if (text === undefined) return Effect.fail(new ValidationError({ message: "the request body is not valid UTF-8" }))
  if (text.trim().length === 0) return Effect.fail(new ValidationError({ message: "the request body is empty; send a JSON object" }))
  return Effect.succeed(text)
}

/** Parses a JSON object body: 400 for bad UTF-8, bad JSON, or anything but an object. */
export const parseJsonObject = (bytes: Uint8Array): Effect.Effect<Record<string, unknown>, ValidationError> =>
  Effect.flatMap(parseTraceBody(bytes, false), (parsed) =>
    Array.isArray(parsed)
      ? Effect.fail(new ValidationError({ message: "the request body must be a JSON object (got an array)" }))
      : Effect.succeed(parsed))

/**
 * Parses a trace body: a JSON object, a JSON array (a raw trace such as a span or message list),
 * or JSON Lines (one record per line; blank lines skipped), which becomes the list of its records.
 * 400 for bad UTF-8, bad JSON (naming the line for JSON Lines) and scalars.
 */
export const parseTraceBody = (
  bytes: Uint8Array,
  jsonLines: boolean
): Effect.Effect<Record<string, unknown> | Array<unknown>, ValidationError> =>
  Effect.flatMap(JsonBounds, (bounds) => {
    const refused = jsonShapeRefusal(bytes, bounds)
    return refused === null ? textOf(bytes) : Effect.fail(refused)
  }).pipe(Effect.flatMap((text): Effect.Effect<Record<string, unknown> | Array<unknown>, ValidationError> => {
    if (jsonLines) {
      const records: Array<unknown> = []
      const lines = text.split("\n")
      for (let i = 0; i < lines.length; i++) {
        const line = lines[i]?.trim() ?? ""
        if (line.length === 0) continue
        try {
          records.push(JSON.parse(line))
        } catch (error) {
          return Effect.fail(parseFailure(error, `line ${i + 1} of the JSON Lines body`))
        }
      }
      if (records.length === 0) return Effect.fail(new ValidationError({ message: "the JSON Lines body holds no records" }))
      return Effect.succeed(records)
    }
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch (error) {
      return Effect.fail(parseFailure(error, "the request body"))
    }
    if (Array.isArray(parsed)) {
      const list: Array<unknown> = parsed
      return Effect.succeed(list)
    }
    if (typeof parsed !== "object" || parsed === null) {
      return Effect.fail(
        new ValidationError({
          message: `the request body must be a JSON object or, for a raw trace, an array (got ${parsed === null ? "null" : typeof parsed})`
        })
      )
    }
    // JSON.parse makes plain objects whose `__proto__` key, if any, is an own data property: no
    // copy is needed (copying 400,000 keys cost about 0.4 s).
    return Predicate.isRecord(parsed) ? Effect.succeed(parsed) : Effect.fail(new ValidationError({ message: "the request body must be a JSON object" }))
  }))

/** The most entries a zip body may hold (an Inspect log holds a few per sample). */
export const MAX_ZIP_ENTRIES = 10_000

/** True when the bytes start as a zip archive does (a local file header, or an empty archive). */
export const looksLikeZip = (bytes: Uint8Array): boolean =>
  bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && (bytes[2] === 0x03 || bytes[2] === 0x05) && (bytes[3] === 0x04 || bytes[3] === 0x06)

/**
 * The zip reader (Zip.ts) and node's zlib, loaded by the first zip body: start-up loads neither
 * (issue 52). Later bodies get the loaded module from node's module map.
 */
const zipReader = Effect.promise(() => import("./Zip.js"))

/**
 * An Inspect AI `.eval` log (a zip of JSON files) as the JSON log it stands for: `header.json` (or,
 * for a log still being written, `_journal/start.json`) with its `samples/*.json` as `samples`, in
 * the archive's order. The archive's entries and inflated bytes are capped (413, counted against
 * SVC_API_MAX_BODY_BYTES as a body's bytes are); each JSON entry is bounded and parsed as a body is.
 */
export const parseZipTrace = (bytes: Uint8Array): Effect.Effect<Record<string, unknown>, ValidationError | RequestTooLarge> =>
  Effect.flatMap(Effect.zip(JsonBounds, zipReader), ([bounds, { readZip }]): Effect.Effect<Record<string, unknown>, ValidationError | RequestTooLarge> => {
    const read = readZip(bytes, { maxEntries: MAX_ZIP_ENTRIES, maxInflatedBytes: bounds.maxInflatedBytes })
    if (read._tag === "TooLarge") {
      return Effect.fail(new RequestTooLarge({ message: `${read.message}; raise SVC_API_MAX_BODY_BYTES to accept more` }))
    }
    if (read._tag === "Invalid") return Effect.fail(new ValidationError({ message: read.message }))
    const json = (entry: ZipEntry) =>
      Effect.flatMap(parseTraceBody(entry.bytes, false), (parsed) =>
        Predicate.isRecord(parsed)
          ? Effect.succeed(parsed)
          : Effect.fail(new ValidationError({ message: `the zip entry ${JSON.stringify(entry.name.slice(0, 80))} is not a JSON object` })))
    const header = read.entries.find((entry) => entry.name === "header.json") ??
      read.entries.find((entry) => entry.name === "_journal/start.json")
    if (header === undefined) {
      const names = read.entries.slice(0, 8).map((entry) => entry.name).join(", ")
      return Effect.fail(
        new ValidationError({
          message: `the zip archive is not an Inspect AI log (.eval: header.json and samples/*.json); it holds ${names.length > 0 ? names : "no files"}`
        })
      )
    }
    const samples = read.entries.filter((entry) => /^samples\/[^/]+\.json$/.test(entry.name))
    return Effect.map(
      Effect.all({ header: json(header), samples: Effect.forEach(samples, json) }),
      ({ header: fields, samples: parsed }): Record<string, unknown> => ({ ...fields, samples: parsed })
    )
  })

/** A trace body by its Content-Type: a zip archive (`parseZipTrace`), JSON Lines or JSON. */
export const parseTraceUpload = (
  bytes: Uint8Array,
  contentType: string | undefined
): Effect.Effect<Record<string, unknown> | Array<unknown>, ValidationError | RequestTooLarge> =>
  isZipContentType(contentType) ? parseZipTrace(bytes) : parseTraceBody(bytes, isJsonLinesContentType(contentType))

/**
 * A trace payload as the contract decoded it (Contract/TraceBodies.ts): a JSON body as the intake
 * parsed it, or the bytes of JSON Lines or a zip, parsed here by their Content-Type.
 */
export const traceOfUpload = (
  payload: Record<string, unknown> | Array<unknown> | Uint8Array,
  contentType: string | undefined
): Effect.Effect<Record<string, unknown> | Array<unknown>, ValidationError | RequestTooLarge> =>
  payload instanceof Uint8Array ? parseTraceUpload(payload, contentType) : Effect.succeed(payload)
