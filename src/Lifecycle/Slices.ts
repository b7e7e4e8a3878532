/**
 * Work done item after item (traces completed, runs finished, an export's lines, a body's traces)
 * in bounded slices, with a turn of the event loop between them (issue 47).
 *
 * Why a turn has to be asked for: the SQLite driver's statements are synchronous and their promises
 * resolve at once, a fiber resumes from a promise in a microtask, and Effect's scheduler runs
 * `Effect.yieldNow` in microtasks too (it takes a timer only after 2,048 drains in a row, and a fiber
 * resumed from a promise starts that count again). So a loop over the store never left the
 * microtask queue: nothing of the event loop's I/O phase ran until it ended (measured: 10,000
 * one-span traces completing held `/livez` for 3.6-7.5 s on the 2-core machine, docs/performance.md).
 * `setImmediate` resumes after the poll phase, which runs the I/O that waited.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"

/** How long work runs before the event loop gets a turn: well under a probe's timeout, and each turn costs microseconds. */
export const SLICE_MS = 10

/** Items at most between turns: a bound that holds where the Clock stands still (tests on TestClock). */
export const SLICE_ITEMS = 256

/** One turn of Node's event loop: resumes from `setImmediate`, once the I/O that was waiting ran. */
export const eventLoopTurn: Effect.Effect<void> = Effect.async<void>((resume) => {
  const immediate = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(immediate))
})

/** A loop's slices: `next` after each item gives the event loop a turn once the slice is spent. */
export interface Slices {
  readonly next: Effect.Effect<void>
}

/** Slices of `ms` (by `Clock`) or `items`, whichever ends first, counted from now. */
export const makeSlices = (ms: number = SLICE_MS, items: number = SLICE_ITEMS): Effect.Effect<Slices> =>
  Effect.map(Clock.currentTimeMillis, (start) => {
    let since = start
    let done = 0
    const next = Effect.flatMap(Clock.currentTimeMillis, (now) => {
      done += 1
      if (now - since < ms && done < items) return Effect.void
      return Effect.zipRight(
        eventLoopTurn,
        Effect.map(Clock.currentTimeMillis, (after) => {
          since = after
          done = 0
        })
      )
    })
    return { next }
  })
