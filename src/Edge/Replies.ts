/**
 * What every response shares, whichever part of the pipeline answers it (the edge itself or the
 * HttpApi app behind it): security headers, the wire form of errors, the access-log line.
 */
import type { ServerResponse } from "node:http"
import * as Effect from "effect/Effect"
import { type ApiError, errorBody, errorKinds } from "../Errors.js"
import type { Encoding } from "../Otlp/Wire/Model.js"
import { statusBody } from "../Otlp/Wire/Status.js"
import { type HeaderBag, headerValue } from "./Headers.js"

/** Applied to every response (CSP allows the self-hosted docs pages and nothing else). */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "content-security-policy": [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "worker-src 'self' blob:",
    "object-src 'none'",
    "frame-ancestors 'none'",
    "base-uri 'self'",
    "form-action 'self'"
  ].join("; "),
  "cross-origin-opener-policy": "same-origin",
  "cache-control": "no-store"
}

/**
 * An error as it goes on the wire: status, the headers its kind requires, the body: the JSON
 * `{detail}`, or on the OTLP endpoints a `google.rpc.Status` in the request's encoding (§5).
 */
export interface ErrorReply {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly contentType: string
  readonly body: string | Uint8Array
}

const NO_HEADERS: Readonly<Record<string, string>> = {}

/** Writes an error reply as a whole response (headers already set on the response are kept). */
export const writeErrorReply = (response: ServerResponse, error: ApiError): void => {
  const { body, contentType, headers, status } = errorReply(error)
  response.writeHead(status, { ...headers, "content-type": contentType, "content-length": Buffer.byteLength(body) })
  response.end(body)
}

export const errorReply = (error: ApiError, otlp?: Encoding): ErrorReply => {
  const { kind, status } = errorKinds[error._tag]
  const { body, contentType } = otlp === undefined
    ? { body: JSON.stringify(errorBody(kind, error.message)), contentType: "application/json" }
    : statusBody(status, error.message, otlp)
  switch (error._tag) {
    case "Unauthorized":
      return { status, body, contentType, headers: { "www-authenticate": 'Bearer realm="svc"' } }
    case "RateLimited":
      return {
        status,
        body,
        contentType,
        headers: {
          "retry-after": String(error.retryAfterSeconds),
          "x-ratelimit-limit": String(error.limit),
          "x-ratelimit-remaining": "0"
        }
      }
    case "MethodNotAllowed":
      return { status, body, contentType, headers: { allow: error.allow } }
    case "Overloaded":
    case "StoreUnavailable":
      return { status, body, contentType, headers: { "retry-after": String(error.retryAfterSeconds) } }
    default:
      return { status, body, contentType, headers: NO_HEADERS }
  }
}

/** The path of a request target, without its query. */
export const pathOf = (url: string): string => {
  const q = url.indexOf("?")
  return q === -1 ? url : url.slice(0, q)
}

/** True when the request announced a body (that a refusal will not read). */
export const hasUnreadBody = (headers: HeaderBag) => {
  const length = headerValue(headers, "content-length")
  return (length !== undefined && length !== "0") || headers["transfer-encoding"] !== undefined
}

/** The one access-log line of a request. */
export const accessLog = (method: string, path: string, status: number, seconds: number, requestId: string) =>
  Effect.logInfo("request").pipe(
    Effect.annotateLogs({
      method,
      path: path.length > 200 ? `${path.slice(0, 200)}…` : path,
      status,
      duration_ms: Math.round(seconds * 100_000) / 100,
      request_id: requestId
    })
  )
