/**
 * Per-request state shared between the outer middleware and the handlers, held in a FiberRef so
 * handlers can fill it without adding a service requirement: the request id (for logs and
 * telemetry) and, for analyze requests, the labels the middleware records in the metrics.
 */
import { Effect, FiberRef } from "effect"

export interface RequestState {
  readonly requestId: string
  readonly startedAt: number
  /** Set by the analyze handler as it learns them. */
  analyzeMode: string
  /** `ok`, `cache_hit` or an error kind; set where the outcome is decided. */
  analyzeStatus: string | null
  /** The message of the error the request failed with, for error reports. */
  errorMessage: string | null
}

export const CurrentRequest = FiberRef.unsafeMake<RequestState | null>(null)

export const currentRequest = FiberRef.get(CurrentRequest)

/** Updates the current request's state, when there is one. */
export const updateRequest = (f: (state: RequestState) => void) =>
  Effect.map(currentRequest, (state) => {
    if (state !== null) f(state)
  })

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

/** The client's X-Request-ID when it is 1-128 characters of [A-Za-z0-9._:-], else a fresh one. */
export const requestIdFrom = (header: string | undefined): string =>
  header !== undefined && REQUEST_ID.test(header) ? header : crypto.randomUUID()

/**
 * What the node:http fast path already did for a request it handed on to the Effect server: the
 * request id and start time, the guards it passed (with their rate-limit headers; they are not
 * run or counted twice), the tracker count it took, and the body when it read one.
 */
export interface Handoff {
  readonly requestId: string
  readonly startedAt: number
  readonly limitHeaders: Readonly<Record<string, string>>
  readonly body: Uint8Array | undefined
}

/** Keyed by node's request object, so an entry lives exactly as long as its request. */
export const handoffs = new WeakMap<object, Handoff>()
