/**
 * The analysis deadline (src/Analysis/Deadline.ts) on TestClock: its timer is the fiber's `Clock`,
 * so `TestClock.adjust` brings the timeout, and nothing here waits for real time to pass.
 */
import { describe, expect, it } from "@effect/vitest"
import { Clock, Effect, Either, Exit, Fiber, Option, TestClock } from "effect"
import { withDeadline } from "../../src/Analysis/Deadline.js"
import { eventually, whenSleeping } from "../support/TestTime.js"

const TIMED_OUT = "timed out" as const
const timedOut = () => TIMED_OUT

/** Work that runs until interrupted, and tells when it was. */
const endless = () => {
  const state = { interrupted: false }
  const work = Effect.onInterrupt(Effect.never, () => Effect.sync(() => { state.interrupted = true }))
  return { state, work }
}

describe("withDeadline (TestClock)", () => {
  it.effect("times out when the clock reaches the deadline: the caller gets onTimeout(), the work is interrupted", () =>
    Effect.gen(function*() {
      const { state, work } = endless()
      const caller = yield* Effect.fork(Effect.either(withDeadline(work, 1000, timedOut)))
      expect(yield* whenSleeping(1)).toEqual([1000])
      yield* TestClock.adjust(999)
      expect(Option.isNone(yield* Fiber.poll(caller))).toBe(true)
      expect(state.interrupted).toBe(false)
      yield* TestClock.adjust(1)
      expect(yield* Fiber.join(caller)).toEqual(Either.left(TIMED_OUT))
      expect(state.interrupted).toBe(true)
    }))

  it.effect("does not time out when the work ends first, with its value or its failure", () =>
    Effect.gen(function*() {
      const caller = yield* Effect.fork(withDeadline(Effect.as(Effect.sleep(500), "done"), 1000, timedOut))
      // The work's sleep and the deadline's timer.
      expect(yield* whenSleeping(2)).toEqual([500, 1000])
      yield* TestClock.adjust(500)
      expect(yield* Fiber.join(caller)).toBe("done")
      expect(yield* Clock.currentTimeMillis).toBe(500)
      // Past the deadline, nothing is left to fire.
      yield* TestClock.adjust(1000)

      const failing = yield* Effect.fork(Effect.either(withDeadline(Effect.zipRight(Effect.sleep(200), Effect.fail("provider down")), 1000, timedOut)))
      yield* whenSleeping(2)
      yield* TestClock.adjust(200)
      expect(yield* Fiber.join(failing)).toEqual(Either.left("provider down"))
    }))

  it.effect("the caller's interruption interrupts the work", () =>
    Effect.gen(function*() {
      const { state, work } = endless()
      const caller = yield* Effect.fork(withDeadline(work, 1000, timedOut))
      yield* whenSleeping(1)
      yield* Fiber.interrupt(caller)
      yield* eventually(Effect.sync(() => (state.interrupted ? Option.some(true) : Option.none())), "the work's interruption")
      // The deadline's timer went with it: reaching the deadline changes nothing.
      yield* TestClock.adjust(1000)
      expect(Exit.isInterrupted(yield* Fiber.await(caller))).toBe(true)
    }))
})
