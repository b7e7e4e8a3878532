/**
 * Transient provider failures are retried through the platform's `HttpClient.retryTransient`:
 * connection errors, timeouts and the transient statuses (408, 409, 429, 5xx). Waits grow
 * exponentially with jitter; a `Retry-After` header (seconds or HTTP date) sets the wait when
 * present. The schedule is bounded by the caller's deadline: a retry whose wait would not leave
 * its attempt 250 ms before it is not attempted, and the caller gets the provider's own answer
 * instead of a timeout.
 * Interruption (the deadline, a client that left) cancels the wait and aborts the request.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { Clock, Duration, Effect, Fiber, FiberRef, Schedule } from "effect"

/** The absolute time (ms) by which the current analysis must end. */
export const RetryDeadline = FiberRef.unsafeMake<number>(Number.POSITIVE_INFINITY)

export const MAX_ATTEMPTS = 4
const BASE_DELAY_MS = 500
const MAX_DELAY_MS = 20_000
/**
 * A retry must leave its attempt this much time before the deadline: one whose wait ends just
 * before it would only turn the provider's answer into a timeout.
 */
const ATTEMPT_ALLOWANCE_MS = 250

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

/** A response with a transient status, turned into an error so the retry sees it. */
const isTransientStatusError = (error: HttpClientError.HttpClientError): error is HttpClientError.ResponseError =>
  error._tag === "ResponseError" && error.reason === "StatusCode" && isTransientStatus(error.response.status)

/** Reads what a failed response sent, so its connection can be reused for the retry. */
const drain = (error: HttpClientError.HttpClientError) =>
  error._tag === "ResponseError" ? Effect.ignore(error.response.text) : Effect.void

/** Up to MAX_ATTEMPTS - 1 retries, each waiting Retry-After or the backoff, all inside the deadline. */
const withinDeadline = Schedule.identity<HttpClientError.HttpClientError>().pipe(
  Schedule.intersect(Schedule.recurs(MAX_ATTEMPTS - 1)),
  Schedule.mapEffect(([error, attempt]) =>
    Effect.map(Clock.currentTimeMillis, (now) => ({
      error,
      wait: (error._tag === "ResponseError" ? retryAfterMillis(error.response.headers["retry-after"], now) : undefined) ??
        backoffMillis(attempt)
    }))
  ),
  Schedule.checkEffect((_, { wait }) =>
    Effect.map(Effect.all([Clock.currentTimeMillis, FiberRef.get(RetryDeadline)]), ([now, deadline]) => now + wait + ATTEMPT_ALLOWANCE_MS < deadline)
  ),
  Schedule.modifyDelayEffect(({ error, wait }) => Effect.as(drain(error), Duration.millis(wait)))
)

/**
 * Refuses an answer too large to hold, from its Content-Length, unread. Its body read is started
 * and interrupted: the platform aborts a request whose body read is interrupted, which closes the
 * connection. The error names the size and carries an empty stand-in response, so nothing
 * downstream tries to read the refused body.
 */
const refuseOversized = (response: HttpClientResponse.HttpClientResponse) => {
  const declared = Number(response.headers["content-length"] ?? "0")
  if (declared <= MAX_RESPONSE_BYTES) return Effect.succeed(response)
  return Effect.fork(response.arrayBuffer).pipe(
    Effect.tap(() => Effect.yieldNow()),
    Effect.flatMap(Fiber.interrupt),
    Effect.zipRight(
      Effect.fail(
        new HttpClientError.ResponseError({
          request: response.request,
          response: HttpClientResponse.fromWeb(response.request, new Response(null, { status: response.status })),
          reason: "Decode",
          description: `response of ${declared} bytes exceeds ${MAX_RESPONSE_BYTES}`
        })
      )
    )
  )
}

const failTransientStatus = (response: HttpClientResponse.HttpClientResponse) =>
  isTransientStatus(response.status)
    ? Effect.fail(new HttpClientError.ResponseError({ request: response.request, response, reason: "StatusCode" }))
    : Effect.succeed(response)

export const withTransientRetries = (client: HttpClient.HttpClient): HttpClient.HttpClient =>
  client.pipe(
    HttpClient.transformResponse(Effect.flatMap(refuseOversized)),
    HttpClient.transformResponse(Effect.flatMap(failTransientStatus)),
    HttpClient.retryTransient({ mode: "errors-only", while: isTransientStatusError, schedule: withinDeadline }),
    // Out of retries: the provider's own answer goes to its client, which reads the error body.
    HttpClient.transformResponse(Effect.catchIf(isTransientStatusError, (error) => Effect.succeed(error.response)))
  )
