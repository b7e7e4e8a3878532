/**
 * Request bodies (DECISIONS §3, STYLE "known traps"), read once, by the edge:
 * - Content-Length over the limit: 413 before reading a byte (the edge checks it);
 * - chunked or lying bodies: bytes are counted as they arrive; past the limit they are discarded
 *   (never buffered) until the body ends, so the client still reads a JSON 413 instead of a reset;
 * - a body that keeps coming past a hard cap is cut and the connection closed.
 * Then, for the handlers: the JSON media type (415) and strict UTF-8 JSON objects (400), JSON
 * Lines, and Inspect AI's zipped `.eval` logs (Zip.ts, inflated under the same byte limit).
 */
import { Context, Effect, Predicate } from "effect"
import { isUtf8 } from "node:buffer"
import type { IncomingMessage } from "node:http"
import { gunzip } from "node:zlib"
import { Overloaded, RequestTooLarge, UnsupportedMediaType, ValidationError } from "../Errors.js"
import { DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_DEPTH, DEFAULT_MAX_KEYS } from "../Config.js"
import { readZip, type ZipEntry } from "./Zip.js"

/** Past this many bytes beyond the limit, stop draining and close the connection. */
const DRAIN_CAP_BYTES = 256 * 1024 * 1024
/**
 * A body that declared its length is read into a buffer of that length, allocated up front, up to
 * this size; larger ones are collected in chunks, so a declared length alone never reserves more.
 */
const PREALLOCATE_MAX_BYTES = 8 * 1024 * 1024

/** True for application/json and any +json media type (parameters such as charset allowed). */
export const isJsonContentType = (header: string | undefined): boolean => {
  if (header === undefined) return false
  const media = header.split(";")[0]?.trim().toLowerCase() ?? ""
  return media === "application/json" || /^application\/[a-z0-9.+-]+\+json$/.test(media)
}

interface BodyListeners {
  readonly data: (chunk: Buffer) => void
  readonly end: () => void
  readonly error: () => void
  /** The client went away before the body ended. */
  readonly aborted: () => void
}

/** Listens to a request body's events; returns the function that stops listening. */
const subscribeBody = (incoming: IncomingMessage, listeners: BodyListeners): (() => void) => {
  incoming.on("data", listeners.data)
  incoming.on("end", listeners.end)
  incoming.on("error", listeners.error)
  incoming.on("aborted", listeners.aborted)
  return () => {
    incoming.off("data", listeners.data)
    incoming.off("end", listeners.end)
    incoming.off("error", listeners.error)
    incoming.off("aborted", listeners.aborted)
  }
}

export type BodyOutcome =
  | { readonly _tag: "Read"; readonly bytes: Uint8Array }
  | { readonly _tag: "TooLarge" }
  /** The body could not be read: the client went away or the stream failed. */
  | { readonly _tag: "Gone" }
  /** Holding more of it would pass the bytes all requests may hold at once (SVC_API_MAX_INFLIGHT_BYTES). */
  | { readonly _tag: "Overloaded" }

/**
 * Reads a request body under the byte limit and calls `done` once. A body that declared its length
 * (up to 8 MiB) is read into one buffer of that length; chunked bodies are collected. Past the limit
 * bytes are discarded (never buffered) until the body ends, so the client still reads a JSON 413;
 * past a hard cap the stream is paused and the caller closes the connection.
 */
export const readBody = (
  incoming: IncomingMessage,
  limit: number,
  budget: { readonly reserve: (bytes: number) => boolean },
  done: (outcome: BodyOutcome) => void
): void => {
  const declaredHeader = incoming.headers["content-length"]
  const declared = declaredHeader === undefined ? Number.NaN : Number(declaredHeader)
  const preallocate = declared > 0 && declared <= Math.min(limit, PREALLOCATE_MAX_BYTES)
  if (preallocate && !budget.reserve(declared)) return done({ _tag: "Overloaded" })
  const preallocated = preallocate ? Buffer.allocUnsafe(declared) : undefined
  const chunks: Array<Buffer> = []
  let received = 0
  let over = false
  let finished = false
  const finish = (outcome: BodyOutcome) => {
    if (finished) return
    finished = true
    cleanup()
    done(outcome)
  }
  const onData = (chunk: Buffer) => {
    if (preallocated !== undefined) {
      received += chunk.copy(preallocated, received)
      return
    }
    received += chunk.length
    if (!over && received <= limit && !budget.reserve(chunk.length)) {
      chunks.length = 0
      incoming.pause()
      return finish({ _tag: "Overloaded" })
    }
    if (received > limit) {
      over = true
      chunks.length = 0
      if (received > limit + DRAIN_CAP_BYTES) {
        incoming.pause()
        finish({ _tag: "TooLarge" })
      }
      return
    }
    chunks.push(chunk)
  }
  const onEnd = () => {
    if (over) return finish({ _tag: "TooLarge" })
    const bytes = preallocated === undefined
      ? Buffer.concat(chunks, received)
      : new Uint8Array(preallocated.buffer, preallocated.byteOffset, received)
    finish({ _tag: "Read", bytes })
  }
  const onGone = () => finish({ _tag: "Gone" })
  const cleanup = subscribeBody(incoming, { data: onData, end: onEnd, error: onGone, aborted: onGone })
}

/** The 413 of a body over SVC_API_MAX_BODY_BYTES. */
export const bodyTooLarge = (limit: number) =>
  new RequestTooLarge({
    message: `request body exceeds ${limit} bytes; raise SVC_API_MAX_BODY_BYTES to accept larger traces`
  })

/**
 * The bytes of request bodies held in memory at once, all requests together
 * (SVC_API_MAX_INFLIGHT_BYTES, DECISIONS §16). Each request holds what it reserved until its
 * response closes; past the total, requests are refused with 503 `overloaded` instead of read.
 */
export class InflightBudget {
  private held = 0
  constructor(readonly max: number) {}
  /** Takes `bytes` from the budget: false (nothing taken) when that would pass the total. */
  reserve(bytes: number): boolean {
    if (this.held + bytes > this.max) return false
    this.held += bytes
    return true
  }
  release(bytes: number): void {
    this.held = Math.max(0, this.held - bytes)
  }
  /** Whether `bytes` more would still fit (nothing taken). */
  fits(bytes: number): boolean {
    return this.held + bytes <= this.max
  }
  /** One request's share: what it reserves is kept in count, and given back at once by `release`. */
  hold(): { readonly reserve: (bytes: number) => boolean; readonly release: () => void } {
    let mine = 0
    return {
      reserve: (bytes) => {
        if (!this.reserve(bytes)) return false
        mine += bytes
        return true
      },
      release: () => {
        this.release(mine)
        mine = 0
      }
    }
  }
}

/** The 503 of a request whose body would pass the bytes held at once. */
export const overloaded = () =>
  new Overloaded({
    message: "the service holds as many request bodies as it may at once (SVC_API_MAX_INFLIGHT_BYTES); retry in a moment",
    retryAfterSeconds: 1
  })

/** Whether a Content-Encoding is gzip (the one compression read, on the OTLP endpoints). */
export const isGzip = (encoding: string | undefined): boolean => encoding?.trim().toLowerCase() === "gzip"

/**
 * The 415 of a body in an encoding this service does not read: bodies are read as sent, but for
 * gzip on the OTLP endpoints (`gzip`: OTLP/HTTP's exporters compress with it).
 */
export const encodingRefusal = (encoding: string | undefined, gzip = false): UnsupportedMediaType | null => {
  if (encoding === undefined) return null
  const value = encoding.trim().toLowerCase()
  if (value === "" || value === "identity" || (gzip && value === "gzip")) return null
  return new UnsupportedMediaType({
    message: gzip
      ? `Content-Encoding ${JSON.stringify(encoding.slice(0, 40))} is not supported; send gzip or the body uncompressed`
      : `Content-Encoding ${JSON.stringify(encoding.slice(0, 40))} is not supported; send the body uncompressed`
  })
}

/**
 * Inflates a gzip body under the body limit, which counts inflated bytes too (DECISIONS §18): zlib
 * stops as soon as the output passes `limit`, so a small body that would inflate to gigabytes is
 * refused after `limit` bytes, never held whole. The inflated bytes are reserved in the budget of
 * bodies held at once. Off the event loop (zlib's thread pool).
 */
export const inflateBody = (
  compressed: Uint8Array,
  limit: number,
  budget: { readonly reserve: (bytes: number) => boolean },
  done: (outcome: BodyOutcome | { readonly _tag: "Undecodable" }) => void
): void => {
  gunzip(compressed, { maxOutputLength: limit }, (error, inflated) => {
    if (error !== null) {
      // ERR_BUFFER_TOO_LARGE: past maxOutputLength
      return done(error instanceof RangeError || ("code" in error && error.code === "ERR_BUFFER_TOO_LARGE") ? { _tag: "TooLarge" } : { _tag: "Undecodable" })
    }
    if (!budget.reserve(inflated.byteLength)) return done({ _tag: "Overloaded" })
    done({ _tag: "Read", bytes: new Uint8Array(inflated.buffer, inflated.byteOffset, inflated.byteLength) })
  })
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

/** The 415 of a body that is not sent as JSON. */
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

/**
 * 415 unless the body is JSON, or, where a trace may be sent as its tool wrote it (`jsonLines`),
 * JSON Lines (a stream of records) or a zip archive (Inspect AI's `.eval`).
 */
export const requireJson = (
  contentType: string | undefined,
  options: { readonly jsonLines: boolean; readonly what?: string } = { jsonLines: false }
): Effect.Effect<void, UnsupportedMediaType> =>
  isJsonContentType(contentType) || (options.jsonLines && (isJsonLinesContentType(contentType) || isZipContentType(contentType)))
    ? Effect.void
    : Effect.fail(
      new UnsupportedMediaType({
        message: `send ${options.what ?? "the trace"} as JSON with Content-Type: application/json${
          options.jsonLines ? " (or JSON Lines with application/x-ndjson, or an Inspect AI .eval log with application/zip)" : ""
        } (got ${contentType === undefined ? "no Content-Type" : JSON.stringify(contentType.slice(0, 80))})`
      })
    )

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

/**
 * An Inspect AI `.eval` log (a zip of JSON files) as the JSON log it stands for: `header.json` (or,
 * for a log still being written, `_journal/start.json`) with its `samples/*.json` as `samples`, in
 * the archive's order. The archive's entries and inflated bytes are capped (413, counted against
 * SVC_API_MAX_BODY_BYTES as a body's bytes are); each JSON entry is bounded and parsed as a body is.
 */
export const parseZipTrace = (bytes: Uint8Array): Effect.Effect<Record<string, unknown>, ValidationError | RequestTooLarge> =>
  Effect.flatMap(JsonBounds, (bounds): Effect.Effect<Record<string, unknown>, ValidationError | RequestTooLarge> => {
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
