/** Small response helpers shared by the handlers. */
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"

export const jsonBytes = (bytes: Uint8Array, status = 200) =>
  HttpServerResponse.uint8Array(bytes, { status, contentType: "application/json" })

export const bytesAs = (bytes: Uint8Array, contentType: string) =>
  HttpServerResponse.uint8Array(bytes, { status: 200, contentType })
