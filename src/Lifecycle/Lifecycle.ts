/**
 * The count of requests in flight (the edge counts each from its first byte to its last, the
 * workers each run until its finish committed), so draining knows when the last one has finished
 * (DECISIONS §7). One count behind two interfaces: `RequestTracker`, Effects only, and the edge's
 * `RequestTrackerFastLane` (RequestTrackerFastLane.ts).
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { RequestTrackerFastLane } from "./RequestTrackerFastLane.js"

export interface RequestTrackerShape {
  readonly started: Effect.Effect<void>
  readonly finished: Effect.Effect<void>
  readonly inFlight: Effect.Effect<number>
  /** Completes as soon as no request is in flight. */
  readonly idle: Effect.Effect<void>
}

export class RequestTracker extends Context.Tag("RequestTracker")<RequestTracker, RequestTrackerShape>() {}

/** The count, and both interfaces over it. */
const makeRequestTracker = () => {
  let count = 0
  let waiters: Array<() => void> = []
  const started = () => {
    count += 1
  }
  const finished = () => {
    count = Math.max(0, count - 1)
    if (count === 0 && waiters.length > 0) {
      const wake = waiters
      waiters = []
      for (const resume of wake) resume()
    }
  }
  return Context.make(RequestTrackerFastLane, { started, finished }).pipe(Context.add(RequestTracker, {
    started: Effect.sync(started),
    finished: Effect.sync(finished),
    inFlight: Effect.sync(() => count),
    idle: Effect.async<void>((resume) => {
      if (count === 0) return resume(Effect.void)
      const waiter = () => resume(Effect.void)
      waiters.push(waiter)
      return Effect.sync(() => {
        waiters = waiters.filter((w) => w !== waiter)
      })
    })
  }))
}

export const RequestTrackerLive = Layer.syncContext(makeRequestTracker)
