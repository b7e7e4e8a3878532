/**
 * When a provider call is tried again: after a connection error, or an answer with a transient
 * status (408, 409, 429, 5xx). Waits grow exponentially with jitter; a `Retry-After` header
 * (seconds or HTTP date) sets the wait when present. Retries are bounded by the caller's deadline:
 * a retry whose wait would not leave its attempt 250 ms before it is not attempted, and the caller
 * gets the provider's own answer instead of a timeout. Exchange.ts runs the attempts, with the
 * time from `Clock` and the jitter from `Random`, so tests drive both.
 */

export const MAX_ATTEMPTS = 4
const BASE_DELAY_MS = 500
const MAX_DELAY_MS = 20_000
/**
 * A retry must leave its attempt this much time before the deadline: one whose wait ends just
 * before it would only turn the provider's answer into a timeout.
 */
const ATTEMPT_ALLOWANCE_MS = 250

/** Provider answers larger than this are refused (from their Content-Length, or as they arrive). */
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

/** The exponential wait after 0-based `attempt`, within ±25% by `jitter`, a number in [0, 1). */
export const backoffMillis = (attempt: number, jitter: number) => Math.min(BASE_DELAY_MS * 2 ** attempt, MAX_DELAY_MS) * (0.75 + jitter * 0.5)

/**
 * How long to wait before attempt `attempt + 1` (0-based `attempt` just failed), or undefined when
 * there is none: out of attempts, or the wait would not leave the attempt its time before `deadline`
 * (absolute ms, on the same clock as `now`).
 */
export const retryWait = (attempt: number, retryAfter: string | undefined, now: number, deadline: number, jitter: number): number | undefined => {
  if (attempt + 1 >= MAX_ATTEMPTS) return undefined
  const wait = retryAfterMillis(retryAfter, now) ?? backoffMillis(attempt, jitter)
  return now + wait + ATTEMPT_ALLOWANCE_MS < deadline ? wait : undefined
}
