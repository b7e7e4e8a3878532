/**
 * Transient provider failures (connection errors, 408, 409, 429, 5xx) are retried with
 * exponential backoff; a `Retry-After` header (seconds or HTTP date) sets the wait when present.
 * The caller's deadline bounds the whole loop: interruption cancels the wait and aborts the
 * request in flight.
 */
import { HttpClient, type HttpClientError, type HttpClientResponse } from "@effect/platform"
import { Duration, Effect } from "effect"

export const MAX_ATTEMPTS = 4
const BASE_DELAY_MS = 500
const MAX_DELAY_MS = 20_000

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

export const withTransientRetries = (client: HttpClient.HttpClient): HttpClient.HttpClient =>
  HttpClient.transform(client, (execute) => {
    // `execute` sends the request once; running it again re-sends it.
    const loop = (attempt: number): Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError> =>
      execute.pipe(
        Effect.matchEffect({
          onFailure: (error) =>
            error._tag === "RequestError" && error.reason === "Transport" && attempt + 1 < MAX_ATTEMPTS
              ? Effect.sleep(Duration.millis(backoffMillis(attempt))).pipe(Effect.zipRight(loop(attempt + 1)))
              : Effect.fail(error),
          onSuccess: (response) => {
            if (!isTransientStatus(response.status) || attempt + 1 >= MAX_ATTEMPTS) return Effect.succeed(response)
            const wait = retryAfterMillis(response.headers["retry-after"], Date.now()) ?? backoffMillis(attempt)
            // Read the failed response's body so its connection can be reused.
            return response.text.pipe(
              Effect.orElseSucceed(() => ""),
              Effect.zipRight(Effect.sleep(Duration.millis(wait))),
              Effect.zipRight(loop(attempt + 1))
            )
          }
        })
      )
    return loop(0)
  })
