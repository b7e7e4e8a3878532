/**
 * Transient provider failures (connection errors, 408, 409, 429, 5xx) are retried with
 * exponential backoff; a `Retry-After` header (seconds or HTTP date) sets the wait when present.
 * The caller's deadline bounds the whole loop: interruption cancels the wait and aborts the
 * request in flight.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { Clock, Duration, Effect, FiberRef } from "effect"

/**
 * The absolute time (ms) by which the current analysis must end. A retry whose wait would end
 * past it is not attempted: the caller gets the provider's own failure instead of a timeout.
 */
export const RetryDeadline = FiberRef.unsafeMake<number>(Number.POSITIVE_INFINITY)

/** Waits `wait` ms and runs `next`, unless that would end past the deadline; then `otherwise`. */
const retryWithin = <A, E>(wait: number, next: Effect.Effect<A, E>, otherwise: Effect.Effect<A, E>) =>
  Effect.flatMap(Effect.all([Clock.currentTimeMillis, FiberRef.get(RetryDeadline)]), ([now, deadline]) =>
    now + wait >= deadline ? otherwise : Effect.zipRight(Effect.sleep(Duration.millis(wait)), next))

export const MAX_ATTEMPTS = 4
const BASE_DELAY_MS = 500
const MAX_DELAY_MS = 20_000

/** Provider answers larger than this are refused from their Content-Length, unread. */
export const MAX_RESPONSE_BYTES = 16 * 1024 * 1024

export const isTransientStatus = (status: number) => status === 408 || status === 409 || status === 429 || status >= 500

/** Parses Retry-After: delta seconds or an HTTP date; undefined when absent or malformed. */
export const retryAfterMillis = (header: string | undefined, now: number): number | undefined => {
  if (header === undefined) return undefined
  const trimmed = header.trim()
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.min(Number(trimmed) * 1000, MAX_DELAY_MS * 3)
  const date = Date.parse(trimmed)
  return Number.isNaN(date) ? undefined : Math.max(0, Math.min(date - now, MAX_DELAY_MS * 3))
}

export const backoffMillis = (attempt: number) => Math.min(BASE_DELAY_MS * 2 ** attempt, MAX_DELAY_MS) * (0.75 + Math.random() * 0.5)

/**
 * Aborts the request behind a client response, closing its connection. The platform's client
 * wraps each response with the AbortController of its request (`controller`).
 */
const abortResponse = (response: HttpClientResponse.HttpClientResponse) => {
  const controller: unknown = Reflect.get(response, "controller")
  if (controller instanceof AbortController) controller.abort()
}

export const withTransientRetries = (client: HttpClient.HttpClient): HttpClient.HttpClient =>
  HttpClient.transform(client, (execute) => {
    // `execute` sends the request once; running it again re-sends it.
    const loop = (attempt: number): Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError> =>
      execute.pipe(
        Effect.matchEffect({
          onFailure: (error) =>
            error._tag === "RequestError" && error.reason === "Transport" && attempt + 1 < MAX_ATTEMPTS
              ? retryWithin(backoffMillis(attempt), loop(attempt + 1), Effect.fail(error))
              : Effect.fail(error),
          onSuccess: (response) => {
            if (Number(response.headers["content-length"] ?? "0") > MAX_RESPONSE_BYTES) {
              // Refused unread: the connection is cut now (not left paused until garbage
              // collection), and the error carries an empty stand-in, so nothing downstream
              // tries to read the refused body.
              abortResponse(response)
              return Effect.fail(
                new HttpClientError.ResponseError({
                  request: response.request,
                  response: HttpClientResponse.fromWeb(response.request, new Response(null, { status: response.status })),
                  reason: "Decode",
                  description: `response of ${response.headers["content-length"]} bytes exceeds ${MAX_RESPONSE_BYTES}`
                })
              )
            }
            if (!isTransientStatus(response.status) || attempt + 1 >= MAX_ATTEMPTS) return Effect.succeed(response)
            const wait = retryAfterMillis(response.headers["retry-after"], Date.now()) ?? backoffMillis(attempt)
            // Read the failed response's body so its connection can be reused.
            return response.text.pipe(
              Effect.orElseSucceed(() => ""),
              Effect.zipRight(retryWithin(wait, loop(attempt + 1), Effect.succeed(response)))
            )
          }
        })
      )
    return loop(0)
  })
