/** Small response helpers shared by the handlers. */
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import { createHash } from "node:crypto"

export const jsonBytes = (bytes: Uint8Array, status = 200) =>
  HttpServerResponse.uint8Array(bytes, { status, contentType: "application/json" })

export const bytesAs = (bytes: Uint8Array, contentType: string) =>
  HttpServerResponse.uint8Array(bytes, { status: 200, contentType })

/** The ETag of a body: a hash of its bytes (strong: the same bytes, the same tag). */
const etagOf = (bytes: Uint8Array): string => `"${createHash("sha256").update(bytes).digest("base64url").slice(0, 27)}"`

/** Whether an If-None-Match names the tag (a list, weak tags matching by value, or `*`). */
const matches = (ifNoneMatch: string | undefined, tag: string): boolean =>
  ifNoneMatch !== undefined && ifNoneMatch.split(",").some((each) => {
    const value = each.trim()
    return value === "*" || value === tag || value === `W/${tag}`
  })

/**
 * A conditional GET (DECISIONS §22: the dashboard polls a run and the list): the answer carries
 * the ETag of its bytes, and a request whose If-None-Match names it gets 304 with no body.
 */
export const withETag = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.tap(effect, () =>
    HttpApp.appendPreResponseHandler((request, response) =>
      Effect.sync(() => {
        if (response.status !== 200 || response.body._tag !== "Uint8Array") return response
        const tag = etagOf(response.body.body)
        return matches(request.headers["if-none-match"], tag)
          ? HttpServerResponse.empty({ status: 304, headers: { etag: tag } })
          : HttpServerResponse.setHeader(response, "etag", tag)
      })
    ))
