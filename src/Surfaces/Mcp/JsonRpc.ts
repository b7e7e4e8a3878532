/**
 * JSON-RPC 2.0 for the MCP surface, both transports: the one place where MCP messages are read
 * from the wire and written back. `@effect/rpc`'s own `jsonRpc` serialization is not used: its
 * request ids must be integers (a string id, which JSON-RPC allows, stops the stdio stream), a
 * malformed line throws, an unknown method gets no answer, and its error objects carry Effect's
 * internal `Cause` encoding. Here:
 * - any JSON-RPC id (string or number) is mapped to an internal integer id and back, written back
 *   as the client wrote it (a number's digits as they came, past 2^53 too: RawIds.ts);
 * - `id: null` is a request, not a notification; MCP forbids null ids, so it is answered with
 *   -32600 (id null);
 * - a text that is not JSON, or a message that is not JSON-RPC, is answered with the JSON-RPC
 *   error (-32700 parse error, -32600 invalid request) and the stream goes on;
 * - batches are refused whole where the protocol version removed them (MCP 2025-06-18) or past
 *   SVC_MCP_MAX_BATCH;
 * - errors are `{code, message}`: the MCP error's own code and message, or -32603 with a generic
 *   message for an unexpected failure (never a stack or an internal cause);
 * - writing never throws: an answer that cannot be serialized, or that is over the reply limit,
 *   becomes a -32603 error for that request alone;
 * - a request the client cancelled gets no response (MCP: the receiver of a cancellation
 *   should not answer it).
 */

import * as Predicate from "effect/Predicate"
import { type RawIds, scanIds } from "./RawIds.js"

/**
 * A request id as the client wrote it: `key` tells ids apart (a string and a number never
 * collide), `json` is the id's JSON text, written back as it came.
 */
export interface JsonRpcId {
  readonly key: string
  readonly json: string
}

/** A message as this surface reads it. */
export type Incoming =
  | { readonly _tag: "Request"; readonly id: JsonRpcId; readonly method: string; readonly params: unknown }
  /** `cancels`: the request a `notifications/cancelled` names, else null. */
  | { readonly _tag: "Notification"; readonly method: string; readonly params: unknown; readonly cancels: JsonRpcId | null }
  /** A client's answer to a server request (this server sends none that need one: ignored). */
  | { readonly _tag: "Response" }
  | { readonly _tag: "Invalid"; readonly id: JsonRpcId | null; readonly code: number; readonly message: string }

export const PARSE_ERROR = -32700
export const INVALID_REQUEST = -32600
export const INVALID_PARAMS = -32602
export const INTERNAL_ERROR = -32603

/** Ids are echoed in every answer, errors included: a longer one is refused (-32600). */
export const MAX_ID_CHARS = 1024

const MiB = 1024 * 1024

/**
 * The bytes one HTTP answer (a batch's answers together) or one stdio line may take: twice the
 * body limit, at least 64 MiB, at most 256 MiB (V8's strings end near 512 M characters).
 */
export const replyLimit = (maxBodyBytes: number): number => Math.min(Math.max(64 * MiB, 2 * maxBodyBytes), 256 * MiB)

/** The longest stdio line read: the body limit, at most 256 MiB (it is decoded as one string). */
export const lineLimit = (maxBodyBytes: number): number => Math.min(maxBodyBytes, 256 * MiB)

/** MCP versions from this one on have no JSON-RPC batches (2025-06-18 removed them). */
export const FIRST_VERSION_WITHOUT_BATCHES = "2025-06-18"

/**
 * Why a batch of `size` messages is refused, or undefined: under a protocol version without
 * batches (versions are dates, so they compare as strings), or past the cap.
 */
export const batchRefusal = (size: number, maxBatch: number, version: string | undefined): string | undefined => {
  if (version !== undefined && version >= FIRST_VERSION_WITHOUT_BATCHES) {
    return `JSON-RPC batches are not part of MCP ${version.slice(0, 40)} (removed in ${FIRST_VERSION_WITHOUT_BATCHES}): send one message at a time`
  }
  if (size > maxBatch) return `a batch of ${size} messages is over the limit of ${maxBatch} (SVC_MCP_MAX_BATCH): send fewer at once`
  return undefined
}

/** An id from its parsed value and, for a number, its source text (undefined: not a valid id). */
const idOf = (value: unknown, raw: string | undefined): JsonRpcId | undefined => {
  if (typeof value === "string") return { key: `s${value}`, json: JSON.stringify(value) }
  if (typeof value !== "number") return undefined
  // The source text when it is the number JSON.parse read (it always is; a check costs nothing).
  const json = raw !== undefined && Number(raw) === value ? raw : Number.isFinite(value) ? String(value) : undefined
  if (json === undefined) return undefined
  return { key: Number.isSafeInteger(value) ? `n${value}` : `n${json}`, json }
}

const invalid = (id: JsonRpcId | null, message: string): Incoming => ({ _tag: "Invalid", id, code: INVALID_REQUEST, message: `Invalid Request: ${message}` })

/** One parsed JSON value as a JSON-RPC message; `raw`: the source text of its number ids. */
export const classify = (value: unknown, raw: RawIds | undefined = undefined): Incoming => {
  if (!Predicate.isRecord(value)) return invalid(null, "not a JSON-RPC 2.0 message")
  const hasId = Object.hasOwn(value, "id")
  const parsedId = hasId ? idOf(value["id"], raw?.id) : undefined
  const id = parsedId !== undefined && parsedId.json.length <= MAX_ID_CHARS ? parsedId : null
  if (value["jsonrpc"] !== "2.0") return invalid(id, "not a JSON-RPC 2.0 message")
  const method = value["method"]
  if (typeof method !== "string") {
    if (hasId && (Object.hasOwn(value, "result") || Object.hasOwn(value, "error"))) return { _tag: "Response" }
    return invalid(id, "method must be a string")
  }
  if (!hasId) {
    const params = value["params"]
    const cancels = method === "notifications/cancelled" && Predicate.isRecord(params) ? idOf(params["requestId"], raw?.requestId) ?? null : null
    return { _tag: "Notification", method, params, cancels }
  }
  if (value["id"] === null) return invalid(null, "MCP requires a string or number id; null is not one (leave id out for a notification)")
  if (parsedId === undefined) return invalid(null, "id must be a string or a number")
  if (id === null) return invalid(null, `id is longer than ${MAX_ID_CHARS} characters`)
  return { _tag: "Request", id, method, params: value["params"] }
}

export type Parsed =
  | { readonly _tag: "Messages"; readonly batch: boolean; readonly messages: ReadonlyArray<Incoming> }
  /** The whole text refused: -32700 (not JSON) or -32600 (an empty batch, a batch refused), and why. */
  | { readonly _tag: "Refused"; readonly code: number; readonly reason: string }

/** A refusal as the one JSON-RPC error that answers it (id null: no message was read). */
export const refusalMessage = (refused: { readonly code: number; readonly reason: string }): Outgoing =>
  errorMessage(null, { code: refused.code, message: `${refused.code === PARSE_ERROR ? "Parse error" : "Invalid Request"}: ${refused.reason}` })

/**
 * A JSON text as JSON-RPC messages (a batch is an array). `admitBatch` says why a batch of that
 * many messages is refused (undefined: admitted); it is asked before any message is looked at.
 */
export const parseMessages = (text: string, admitBatch: (size: number) => string | undefined): Parsed => {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return { _tag: "Refused", code: PARSE_ERROR, reason: "the message is not JSON" }
  }
  if (Array.isArray(parsed)) {
    if (parsed.length === 0) return { _tag: "Refused", code: INVALID_REQUEST, reason: "an empty batch" }
    const refusal = admitBatch(parsed.length)
    if (refusal !== undefined) return { _tag: "Refused", code: INVALID_REQUEST, reason: refusal }
  }
  const raw = rawIdsOf(text)
  return Array.isArray(parsed)
    ? { _tag: "Messages", batch: true, messages: parsed.map((value: unknown, index) => classify(value, raw[index])) }
    : { _tag: "Messages", batch: false, messages: [classify(parsed, raw[0])] }
}

/** The source text of the number ids; none (ids as JSON.parse read them) should the scan fail. */
const rawIdsOf = (text: string): ReadonlyArray<RawIds | undefined> => {
  try {
    return scanIds(text)
  } catch {
    return []
  }
}

export interface JsonRpcError {
  readonly code: number
  readonly message: string
}

export type Outgoing =
  | { readonly _tag: "Result"; readonly id: JsonRpcId; readonly result: unknown }
  | { readonly _tag: "Error"; readonly id: JsonRpcId | null; readonly error: JsonRpcError }
  | { readonly _tag: "Notification"; readonly method: string; readonly params: unknown }

export const errorMessage = (id: JsonRpcId | null, error: JsonRpcError): Outgoing => ({ _tag: "Error", id, error })

/** The first failure of an encoded cause: an MCP error's code and message, else undefined. */
const failureOf = (cause: unknown): JsonRpcError | "interrupted" | undefined => {
  if (!Predicate.isRecord(cause)) return undefined
  switch (cause["_tag"]) {
    case "Fail": {
      const error = cause["error"]
      if (Predicate.isRecord(error) && typeof error["code"] === "number" && typeof error["message"] === "string") {
        return { code: error["code"], message: error["message"] }
      }
      return undefined
    }
    case "Die":
      // The server refuses a request whose params do not decode with the reason as a string.
      return typeof cause["defect"] === "string"
        ? { code: INVALID_PARAMS, message: `Invalid params: ${cause["defect"].slice(0, 500)}` }
        : undefined
    case "Interrupt":
      return "interrupted"
    case "Sequential":
    case "Parallel":
      return failureOf(cause["left"]) ?? failureOf(cause["right"])
    default:
      return undefined
  }
}

const UNEXPECTED: JsonRpcError = { code: INTERNAL_ERROR, message: "Internal error: the request failed unexpectedly" }

/**
 * The JSON-RPC form of what the RPC server writes for a request (`Exit`), of a server
 * notification (`Request` with no id), or undefined when nothing goes on the wire.
 */
export const outgoingOf = (message: unknown, originalId: (internal: string) => JsonRpcId | undefined): Outgoing | undefined => {
  if (!Predicate.isRecord(message)) return undefined
  switch (message["_tag"]) {
    case "Exit": {
      const requestId = message["requestId"]
      const id = typeof requestId === "string" ? originalId(requestId) : undefined
      if (id === undefined) return undefined
      const exit = message["exit"]
      if (!Predicate.isRecord(exit)) return errorMessage(id, UNEXPECTED)
      if (exit["_tag"] === "Success") return { _tag: "Result", id, result: exit["value"] ?? {} }
      const failure = failureOf(exit["cause"])
      if (failure === "interrupted") return undefined
      return errorMessage(id, failure ?? UNEXPECTED)
    }
    case "Request": {
      // A notification from the server (list changes); requests to the client are not made.
      const method = message["tag"]
      return typeof method === "string" && message["id"] === "" ? { _tag: "Notification", method, params: message["payload"] } : undefined
    }
    case "Defect":
      return errorMessage(null, UNEXPECTED)
    default:
      return undefined
  }
}

/** JSON.stringify that answers undefined instead of throwing (a cycle, a BigInt, a string past V8's limit). */
const stringify = (value: unknown): string | undefined => {
  try {
    const text: unknown = JSON.stringify(value)
    return typeof text === "string" ? text : undefined
  } catch {
    return undefined
  }
}

const idJson = (id: JsonRpcId | null) => (id === null ? "null" : id.json)

const errorJson = (id: JsonRpcId | null, error: JsonRpcError): string =>
  `{"jsonrpc":"2.0","id":${idJson(id)},"error":${JSON.stringify({ code: error.code, message: error.message.slice(0, 2000) })}}`

const overLimit = (limit: number): JsonRpcError => ({
  code: INTERNAL_ERROR,
  message: `Internal error: the answer is over the reply limit of ${limit} bytes (a batch's answers count together); ask for less in one request`
})

const UNSERIALIZABLE: JsonRpcError = { code: INTERNAL_ERROR, message: "Internal error: the answer could not be serialized" }

/**
 * One message as JSON text, never throwing and at most `room` bytes (of a reply limited to
 * `limit`): an answer that cannot be serialized or is longer becomes a -32603 error for its
 * request (errors themselves are small: the id is at most MAX_ID_CHARS, the message 2,000
 * characters).
 */
export const encode = (message: Outgoing, limit: number, room: number = limit): string => {
  switch (message._tag) {
    case "Error":
      return errorJson(message.id, message.error)
    case "Result":
    case "Notification": {
      const id = message._tag === "Result" ? message.id : null
      const body = message._tag === "Result" ? stringify(message.result) : stringify(message.params ?? {})
      if (body === undefined) return errorJson(id, UNSERIALIZABLE)
      // Characters never outnumber UTF-8 bytes: a text longer than the room is over it, and is
      // not concatenated (which could pass V8's string limit).
      const text = body.length > room
        ? undefined
        : message._tag === "Result"
        ? `{"jsonrpc":"2.0","id":${message.id.json},"result":${body}}`
        : `{"jsonrpc":"2.0","method":${JSON.stringify(message.method)},"params":${body}}`
      if (text !== undefined && Buffer.byteLength(text, "utf8") <= room) return text
      return errorJson(id, overLimit(limit))
    }
  }
}

/** A batch's answers as one JSON array, together at most `limit` bytes but for the small errors that replace what did not fit. */
export const encodeBatch = (messages: ReadonlyArray<Outgoing>, limit: number): string => {
  let room = limit
  const parts: Array<string> = []
  for (const message of messages) {
    const text = encode(message, limit, Math.max(room, 0))
    room -= Buffer.byteLength(text, "utf8")
    parts.push(text)
  }
  return `[${parts.join(",")}]`
}

/**
 * Ids between the wire and the RPC server, for one stream of messages: each request gets the
 * next internal integer id; its answer goes out with the id the client chose.
 */
export const makeIdMap = () => {
  let next = 1
  const original = new Map<string, JsonRpcId>()
  const byOriginal = new Map<string, string>()
  return {
    /** A new internal id for a request. */
    assign: (id: JsonRpcId): string => {
      const internal = String(next++)
      original.set(internal, id)
      byOriginal.set(id.key, internal)
      return internal
    },
    /** The client's id of an internal one, forgetting it (undefined: unknown or already answered). */
    take: (internal: string): JsonRpcId | undefined => {
      const id = original.get(internal)
      if (id === undefined) return undefined
      original.delete(internal)
      if (byOriginal.get(id.key) === internal) byOriginal.delete(id.key)
      return id
    },
    /** The internal id of a request still in flight, by the client's id. */
    internalOf: (id: JsonRpcId): string | undefined => byOriginal.get(id.key)
  }
}
