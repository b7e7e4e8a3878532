/**
 * JSON-RPC 2.0 for the MCP surface, both transports: the one place where MCP messages are read
 * from the wire and written back. `@effect/rpc`'s own `jsonRpc` serialization is not used: its
 * request ids must be integers (a string id, which JSON-RPC allows, stops the stdio stream), a
 * malformed line throws, an unknown method gets no answer, and its error objects carry Effect's
 * internal `Cause` encoding. Here:
 * - any JSON-RPC id (string or number) is mapped to an internal integer id and back;
 * - a text that is not JSON, or a message that is not JSON-RPC, is answered with the JSON-RPC
 *   error (-32700 parse error, -32600 invalid request) and the stream goes on;
 * - errors are `{code, message}`: the MCP error's own code and message, or -32603 with a generic
 *   message for an unexpected failure (never a stack or an internal cause);
 * - a request the client cancelled gets no response (MCP: the receiver of a cancellation
 *   should not answer it).
 */

import { isRecord } from "../../Traces/Importer.js"

export type JsonRpcId = string | number

/** A JSON-RPC message as this surface reads it. */
export type Incoming =
  | { readonly _tag: "Request"; readonly id: JsonRpcId; readonly method: string; readonly params: unknown }
  | { readonly _tag: "Notification"; readonly method: string; readonly params: unknown }
  /** A client's answer to a server request (this server sends none that need one: ignored). */
  | { readonly _tag: "Response" }
  | { readonly _tag: "Invalid"; readonly id: JsonRpcId | null; readonly code: number; readonly message: string }

export const PARSE_ERROR = -32700
export const INVALID_REQUEST = -32600
export const INVALID_PARAMS = -32602
export const INTERNAL_ERROR = -32603

const isId = (u: unknown): u is JsonRpcId => typeof u === "string" || (typeof u === "number" && Number.isFinite(u))

/** One parsed JSON value as a JSON-RPC message. */
export const classify = (value: unknown): Incoming => {
  if (!isRecord(value) || value["jsonrpc"] !== "2.0") {
    const id = isRecord(value) && isId(value["id"]) ? value["id"] : null
    return { _tag: "Invalid", id, code: INVALID_REQUEST, message: "Invalid Request: not a JSON-RPC 2.0 message" }
  }
  const method = value["method"]
  const hasId = Object.hasOwn(value, "id") && value["id"] !== null
  if (typeof method !== "string") {
    if (hasId && (Object.hasOwn(value, "result") || Object.hasOwn(value, "error"))) return { _tag: "Response" }
    return { _tag: "Invalid", id: isId(value["id"]) ? value["id"] : null, code: INVALID_REQUEST, message: "Invalid Request: method must be a string" }
  }
  if (!hasId) return { _tag: "Notification", method, params: value["params"] }
  const id = value["id"]
  if (!isId(id)) return { _tag: "Invalid", id: null, code: INVALID_REQUEST, message: "Invalid Request: id must be a string or a number" }
  return { _tag: "Request", id, method, params: value["params"] }
}

/** A JSON text as JSON-RPC messages (a batch is an array). */
export const parseMessages = (text: string): ReadonlyArray<Incoming> => {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return [{ _tag: "Invalid", id: null, code: PARSE_ERROR, message: "Parse error: the message is not JSON" }]
  }
  if (Array.isArray(parsed)) {
    return parsed.length === 0
      ? [{ _tag: "Invalid", id: null, code: INVALID_REQUEST, message: "Invalid Request: an empty batch" }]
      : parsed.map(classify)
  }
  return [classify(parsed)]
}

export interface JsonRpcError {
  readonly code: number
  readonly message: string
}

export type Outgoing =
  | { readonly jsonrpc: "2.0"; readonly id: JsonRpcId | null; readonly result: unknown }
  | { readonly jsonrpc: "2.0"; readonly id: JsonRpcId | null; readonly error: JsonRpcError }
  | { readonly jsonrpc: "2.0"; readonly method: string; readonly params?: unknown }

export const errorMessage = (id: JsonRpcId | null, error: JsonRpcError): Outgoing => ({ jsonrpc: "2.0", id, error })

/** The first failure of an encoded cause: an MCP error's code and message, else undefined. */
const failureOf = (cause: unknown): JsonRpcError | "interrupted" | undefined => {
  if (!isRecord(cause)) return undefined
  switch (cause["_tag"]) {
    case "Fail": {
      const error = cause["error"]
      if (isRecord(error) && typeof error["code"] === "number" && typeof error["message"] === "string") {
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
export const outgoingOf = (message: unknown, originalId: (internal: string) => JsonRpcId | null | undefined): Outgoing | undefined => {
  if (!isRecord(message)) return undefined
  switch (message["_tag"]) {
    case "Exit": {
      const requestId = message["requestId"]
      const id = typeof requestId === "string" ? originalId(requestId) : undefined
      if (id === undefined) return undefined
      const exit = message["exit"]
      if (!isRecord(exit)) return errorMessage(id, UNEXPECTED)
      if (exit["_tag"] === "Success") return { jsonrpc: "2.0", id, result: exit["value"] ?? {} }
      const failure = failureOf(exit["cause"])
      if (failure === "interrupted") return undefined
      return errorMessage(id, failure ?? UNEXPECTED)
    }
    case "Request": {
      // A notification from the server (list changes); requests to the client are not made.
      const method = message["tag"]
      return typeof method === "string" && message["id"] === "" ? { jsonrpc: "2.0", method, params: message["payload"] } : undefined
    }
    case "Defect":
      return errorMessage(null, UNEXPECTED)
    default:
      return undefined
  }
}

/**
 * Ids between the wire and the RPC server, for one stream of messages: each request gets the
 * next internal integer id; its answer goes out with the id the client chose.
 */
export const makeIdMap = () => {
  let next = 1
  const original = new Map<string, JsonRpcId | null>()
  const byOriginal = new Map<JsonRpcId, string>()
  return {
    /** A new internal id for a request (`id` null: an invalid message to be answered with an error). */
    assign: (id: JsonRpcId | null): string => {
      const internal = String(next++)
      original.set(internal, id)
      if (id !== null) byOriginal.set(id, internal)
      return internal
    },
    /** The client's id of an internal one, forgetting it (undefined: unknown or already answered). */
    take: (internal: string): JsonRpcId | null | undefined => {
      const id = original.get(internal)
      if (id === undefined) return undefined
      original.delete(internal)
      if (id !== null) byOriginal.delete(id)
      return id
    },
    /** The internal id of a request still in flight, by the client's id. */
    internalOf: (id: unknown): string | undefined => (isId(id) ? byOriginal.get(id) : undefined)
  }
}
