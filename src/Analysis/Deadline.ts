/**
 * An effect under a deadline, for the hot path of every analysis: `self` runs in a child fiber that
 * a timer interrupts when the time is up, and the caller gets `onTimeout()` instead. One fiber and
 * one timer, where `Effect.timeoutFail` races two fibers (the effect and a sleep) and holds a
 * mask and the race's frames on the caller's stack for as long as the analysis waits on its
 * provider (docs/performance.md, issue 18). The caller's interruption interrupts the child: a
 * forked fiber is supervised by the fiber that forked it.
 */
import { Effect, Exit, FiberId } from "effect"

export const withDeadline = <A, E, R, T>(self: Effect.Effect<A, E, R>, millis: number, onTimeout: () => T): Effect.Effect<A, E | T, R> =>
  Effect.flatMap(Effect.fork(self), (fiber) =>
    Effect.async<A, E | T>((resume) => {
      let timedOut = false
      const timer = setTimeout(() => {
        timedOut = true
        fiber.unsafeInterruptAsFork(FiberId.none)
      }, millis)
      fiber.addObserver((exit) => {
        clearTimeout(timer)
        resume(timedOut && Exit.isInterrupted(exit) ? Effect.fail(onTimeout()) : exit)
      })
      return Effect.sync(() => clearTimeout(timer))
    }))
