/**
 * The OTLP endpoints' errors (DECISIONS §5's one exception, §18): exactly `POST /v1/traces`,
 * `/v1/logs` and `/v1/metrics` answer an error as OTLP/HTTP requires, a `google.rpc.Status`
 * (`{code, message, details}`) in the request's encoding, with the HTTP status and headers every
 * other route gives the same error (Retry-After on 429 and 503, WWW-Authenticate on 401), guard
 * refusals included. The status's `code` is the gRPC code of the HTTP status.
 *
 * The protobuf Status is written here directly (two fields: `code` int32 = 1, `message` string = 2;
 * no details), so a refusal never loads the OTLP codec; the tests read it with the codec.
 */
import type { Encoding } from "./Model.js"

/** The OTLP/HTTP paths, exactly (not `/v1/traces/normalize`). */
export const OTLP_PATHS: ReadonlyMap<string, "traces" | "logs" | "metrics"> = new Map([
  ["/v1/traces", "traces"],
  ["/v1/logs", "logs"],
  ["/v1/metrics", "metrics"]
])

export const PROTOBUF_TYPE = "application/x-protobuf"
export const JSON_TYPE = "application/json"

/** The encoding of a body OTLP/HTTP sends, by its Content-Type (protobuf also as `application/protobuf`); undefined: not OTLP's. */
export const bodyEncodingOf = (contentType: string | undefined): Encoding | undefined => {
  const type = contentType?.split(";")[0]?.trim().toLowerCase()
  return type === PROTOBUF_TYPE || type === "application/protobuf" ? "protobuf" : type === JSON_TYPE ? "json" : undefined
}

/** The encoding a request is answered in: protobuf when its body is protobuf, else JSON. */
export const encodingOf = (contentType: string | undefined): Encoding => bodyEncodingOf(contentType) ?? "json"

/** gRPC's code for an HTTP status (google.rpc.Code), as OTLP/HTTP's Status carries it. */
export const grpcCodeOf = (status: number): number => {
  switch (status) {
    case 400:
    case 413:
    case 415:
      return 3 // INVALID_ARGUMENT
    case 401:
      return 16 // UNAUTHENTICATED
    case 403:
      return 7 // PERMISSION_DENIED
    case 404:
      return 5 // NOT_FOUND
    case 405:
      return 12 // UNIMPLEMENTED
    case 429:
      return 8 // RESOURCE_EXHAUSTED
    case 503:
      return 14 // UNAVAILABLE
    case 504:
      return 4 // DEADLINE_EXCEEDED
    default:
      return 13 // INTERNAL
  }
}

const utf8 = new TextEncoder()

/** A protobuf varint. */
const varint = (value: number, out: Array<number>): void => {
  let rest = value >>> 0
  while (rest >= 0x80) {
    out.push((rest & 0x7f) | 0x80)
    rest >>>= 7
  }
  out.push(rest)
}

/** `google.rpc.Status{code, message}` as protobuf bytes. */
export const statusProtobuf = (code: number, message: string): Uint8Array => {
  const text = utf8.encode(message)
  const head: Array<number> = []
  if (code !== 0) {
    head.push(0x08)
    varint(code, head)
  }
  if (text.byteLength > 0) {
    head.push(0x12)
    varint(text.byteLength, head)
  }
  const out = new Uint8Array(head.length + text.byteLength)
  out.set(head, 0)
  out.set(text, head.length)
  return out
}

/** An error's body and content type as an OTLP endpoint answers it. */
export const statusBody = (status: number, message: string, encoding: Encoding): { readonly contentType: string; readonly body: Uint8Array | string } =>
  encoding === "protobuf"
    ? { contentType: PROTOBUF_TYPE, body: statusProtobuf(grpcCodeOf(status), message) }
    : { contentType: JSON_TYPE, body: JSON.stringify({ code: grpcCodeOf(status), message, details: [] }) }
