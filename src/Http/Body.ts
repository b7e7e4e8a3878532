/**
 * Reading a JSON request body under the byte limit (DECISIONS §3, STYLE "known traps"):
 * - Content-Length over the limit: 413 before reading a byte;
 * - chunked or lying bodies: bytes are counted as they arrive; past the limit they are discarded
 *   (never buffered) until the body ends, so the client still reads a JSON 413 instead of a reset;
 * - a body that keeps coming past a hard cap is cut and the connection closed.
 */
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Effect } from "effect"
import { isUtf8 } from "node:buffer"
import type { IncomingMessage } from "node:http"
import { handoffs } from "./RequestContext.js"
import { RequestTooLarge, UnsupportedMediaType, ValidationError } from "../Errors.js"

/** Past this many bytes beyond the limit, stop draining and close the connection. */
const DRAIN_CAP_BYTES = 256 * 1024 * 1024

const tooLarge = (limit: number) =>
  new RequestTooLarge({
    message: `request body exceeds ${limit} bytes; raise SVC_API_MAX_BODY_BYTES to accept larger traces`
  })

/** True for application/json and any +json media type (parameters such as charset allowed). */
export const isJsonContentType = (header: string | undefined): boolean => {
  if (header === undefined) return false
  const media = header.split(";")[0]?.trim().toLowerCase() ?? ""
  return media === "application/json" || /^application\/[a-z0-9.+-]+\+json$/.test(media)
}

export interface BodyListeners {
  readonly data: (chunk: Buffer) => void
  readonly end: () => void
  readonly error: () => void
  /** The client went away before the body ended. */
  readonly aborted: () => void
}

/** Listens to a request body's events; returns the function that stops listening. */
export const subscribeBody = (incoming: IncomingMessage, listeners: BodyListeners): (() => void) => {
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

export const readBodyBytes = (
  request: HttpServerRequest.HttpServerRequest,
  limit: number
): Effect.Effect<Uint8Array, RequestTooLarge | ValidationError> =>
  Effect.async<Uint8Array, RequestTooLarge | ValidationError>((resume) => {
    const incoming = NodeHttpServerRequest.toIncomingMessage(request)
    const handed = handoffs.get(incoming)?.body
    if (handed !== undefined) {
      // The fast path read it already (under the same limit).
      resume(Effect.succeed(handed))
      return
    }
    const declared = incoming.headers["content-length"]
    if (declared !== undefined && Number(declared) > limit) {
      // Do not read it: answer now (the middleware closes the connection on 413).
      resume(Effect.fail(tooLarge(limit)))
      return
    }
    const chunks: Array<Buffer> = []
    let received = 0
    let over = false
    let done = false
    const finish = (effect: Effect.Effect<Uint8Array, RequestTooLarge | ValidationError>) => {
      if (done) return
      done = true
      cleanup()
      resume(effect)
    }
    const onData = (chunk: Buffer) => {
      received += chunk.length
      if (received > limit) {
        over = true
        chunks.length = 0
        if (received > limit + DRAIN_CAP_BYTES) {
          incoming.pause()
          finish(Effect.fail(tooLarge(limit)))
        }
        return
      }
      chunks.push(chunk)
    }
    const onEnd = () =>
      finish(over ? Effect.fail(tooLarge(limit)) : Effect.succeed(Buffer.concat(chunks, received)))
    const onError = () => finish(Effect.fail(new ValidationError({ message: "the request body could not be read" })))
    const onAborted = () => finish(Effect.fail(new ValidationError({ message: "the client aborted the request body" })))
    const cleanup = subscribeBody(incoming, { data: onData, end: onEnd, error: onError, aborted: onAborted })
    return Effect.sync(cleanup)
  })

/**
 * Strict UTF-8 decoding: invalid sequences are refused, not replaced; a leading byte-order mark is
 * dropped. (`isUtf8` + `toString` is several times faster than a fatal TextDecoder on large bodies.)
 */
const decodeUtf8 = (bytes: Uint8Array): string | undefined => {
  if (!isUtf8(bytes)) return undefined
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8")
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
}

/** Reads a body sent as JSON: 413 over the limit, 415 for a non-JSON media type. */
export const readJsonBody = (
  request: HttpServerRequest.HttpServerRequest,
  limit: number
): Effect.Effect<Uint8Array, RequestTooLarge | UnsupportedMediaType | ValidationError> =>
  Effect.gen(function*() {
    const bytes = yield* readBodyBytes(request, limit)
    if (!isJsonContentType(request.headers["content-type"])) {
      return yield* new UnsupportedMediaType({
        message: `send the trace as JSON with Content-Type: application/json (got ${
          request.headers["content-type"] === undefined ? "no Content-Type" : JSON.stringify(request.headers["content-type"].slice(0, 80))
        })`
      })
    }
    return bytes
  })

/** Parses a JSON object body: 400 for bad UTF-8, bad JSON, or anything but an object. */
export const parseJsonObject = (bytes: Uint8Array): Effect.Effect<Record<string, unknown>, ValidationError> =>
  Effect.gen(function*() {
    const text = decodeUtf8(bytes)
    if (text === undefined) return yield* new ValidationError({ message: "the request body is not valid UTF-8" })
    if (text.trim().length === 0) return yield* new ValidationError({ message: "the request body is empty; send a JSON object" })
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch (error) {
      const detail = error instanceof SyntaxError ? error.message : "nesting too deep"
      return yield* new ValidationError({ message: `the request body is not valid JSON: ${detail.slice(0, 200)}` })
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      return yield* new ValidationError({
        message: `the request body must be a JSON object (got ${Array.isArray(parsed) ? "an array" : parsed === null ? "null" : typeof parsed})`
      })
    }
    return yield* Effect.succeed(objectEntries(parsed))
  })

/** Copies a parsed object's own entries into a fresh record (no prototype surprises). */
const objectEntries = (value: object): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const [key, entry] of Object.entries(value)) {
    Object.defineProperty(out, key, { value: entry, enumerable: true, writable: true, configurable: true })
  }
  return out
}
