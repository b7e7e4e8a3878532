/**
 * Request bodies (DECISIONS §3, STYLE "known traps"), read once, by the edge:
 * - Content-Length over the limit: 413 before reading a byte (the edge checks it);
 * - chunked or lying bodies: bytes are counted as they arrive; past the limit they are discarded
 *   (never buffered) until the body ends, so the client still reads a JSON 413 instead of a reset;
 * - a body that keeps coming past a hard cap is cut and the connection closed;
 * - the bytes all requests hold at once (503), the Content-Encoding (415), gzip on OTLP's routes.
 * What the bytes mean (JSON, JSON Lines, a zip) is the intake's, for every surface: Intake/Json.ts.
 */
import type { IncomingMessage } from "node:http"
import { Overloaded, RequestTooLarge, UnsupportedMediaType } from "../Errors.js"

/** Past this many bytes beyond the limit, stop draining and close the connection. */
const DRAIN_CAP_BYTES = 256 * 1024 * 1024
/**
 * A body that declared its length is read into a buffer of that length, allocated up front, up to
 * this size; larger ones are collected in chunks, so a declared length alone never reserves more.
 */
const PREALLOCATE_MAX_BYTES = 8 * 1024 * 1024

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

let zlib: typeof import("node:zlib") | undefined
let zlibLoading: Promise<typeof import("node:zlib")> | undefined

/**
 * Inflates a gzip body under the body limit, which counts inflated bytes too (DECISIONS §18): zlib
 * stops as soon as the output passes `limit`, so a small body that would inflate to gigabytes is
 * refused after `limit` bytes, never held whole. The inflated bytes are reserved in the budget of
 * bodies held at once. Off the event loop (zlib's thread pool). node:zlib is loaded by the first
 * gzip body, not at start-up (issue 52).
 */
export const inflateBody = (
  compressed: Uint8Array,
  limit: number,
  budget: { readonly reserve: (bytes: number) => boolean },
  done: (outcome: BodyOutcome | { readonly _tag: "Undecodable" }) => void
): void => {
  if (zlib === undefined) {
    void (zlibLoading ??= import("node:zlib")).then(
      (loaded) => {
        zlib = loaded
        inflateBody(compressed, limit, budget, done)
      },
      () => done({ _tag: "Undecodable" })
    )
    return
  }
  zlib.gunzip(compressed, { maxOutputLength: limit }, (error, inflated) => {
    if (error !== null) {
      // ERR_BUFFER_TOO_LARGE: past maxOutputLength
      return done(error instanceof RangeError || ("code" in error && error.code === "ERR_BUFFER_TOO_LARGE") ? { _tag: "TooLarge" } : { _tag: "Undecodable" })
    }
    if (!budget.reserve(inflated.byteLength)) return done({ _tag: "Overloaded" })
    done({ _tag: "Read", bytes: new Uint8Array(inflated.buffer, inflated.byteOffset, inflated.byteLength) })
  })
}
