/**
 * The count of requests in flight (the edge counts each from its first byte to its last), so
 * draining knows when the last one has finished (DECISIONS §7).
 */
import { Context, Effect, Layer } from "effect"

export interface RequestTrackerShape {
  readonly started: () => void
  readonly finished: () => void
  readonly inFlight: () => number
  /** Completes as soon as no request is in flight. */
  readonly idle: Effect.Effect<void>
}

export class RequestTracker extends Context.Tag("RequestTracker")<RequestTracker, RequestTrackerShape>() {}

export const makeRequestTracker = (): RequestTrackerShape => {
  let count = 0
  let waiters: Array<() => void> = []
  return {
    started: () => {
      count += 1
    },
    finished: () => {
      count = Math.max(0, count - 1)
      if (count === 0 && waiters.length > 0) {
        const wake = waiters
        waiters = []
        for (const resume of wake) resume()
      }
    },
    inFlight: () => count,
    idle: Effect.async<void>((resume) => {
      if (count === 0) return resume(Effect.void)
      const waiter = () => resume(Effect.void)
      waiters.push(waiter)
      return Effect.sync(() => {
        waiters = waiters.filter((w) => w !== waiter)
      })
    })
  }
}

export const RequestTrackerLive = Layer.sync(RequestTracker, makeRequestTracker)
