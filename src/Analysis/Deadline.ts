/**
 * An effect under a deadline, for the hot path of every analysis: `self` runs in a child fiber that
 * a timer on the `Clock` interrupts when the time is up, and the caller gets `onTimeout()` instead.
 * One fiber and one timer, where `Effect.timeoutFail` races two fibers (the effect and a sleep) and
 * holds a mask and the race's frames on the caller's stack for as long as the analysis waits on its
 * provider (docs/performance.md, issue 18). The caller's interruption interrupts the child: a
 * forked fiber is supervised by the fiber that forked it.
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as DefaultServices from "effect/DefaultServices"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberId from "effect/FiberId"

/** The clock of every fiber that is given no other (tests give `TestClock`). */
const liveClock = Context.get(DefaultServices.liveServices, Clock.Clock)

/**
 * Runs `task` after `millis` on the fiber's `Clock`; gives back what cancels it. On the live clock
 * that is one `setTimeout`, as the live clock's own `sleep` does, and no fiber; on another clock
 * (the `TestClock`) a fiber asleep on it, so `TestClock.adjust` fires it. A fiber asleep on the
 * live clock as well cost 4.5 KiB more heap per deadline in flight (11.7 KiB against 7.2, 10,000 at
 * once: as much as `Effect.timeoutFail`) and 35 µs more CPU per deadline.
 */
const timer = (millis: number, task: () => void): Effect.Effect<() => void> =>
  Effect.clockWith((clock) =>
    clock === liveClock
      ? Effect.sync(() => {
        const handle = setTimeout(task, millis)
        return () => clearTimeout(handle)
      })
      : Effect.map(
        Effect.forkDaemon(Effect.zipRight(clock.sleep(Duration.millis(millis)), Effect.sync(task))),
        (sleeper) => () => sleeper.unsafeInterruptAsFork(FiberId.none)
      )
  )

export const withDeadline = <A, E, R, T>(self: Effect.Effect<A, E, R>, millis: number, onTimeout: () => T): Effect.Effect<A, E | T, R> =>
  Effect.flatMap(Effect.fork(self), (fiber) => {
    let timedOut = false
    const expire = () => {
      timedOut = true
      fiber.unsafeInterruptAsFork(FiberId.none)
    }
    return Effect.flatMap(timer(millis, expire), (cancel) =>
      Effect.async<A, E | T>((resume) => {
        fiber.addObserver((exit) => {
          cancel()
          resume(timedOut && Exit.isInterrupted(exit) ? Effect.fail(onTimeout()) : exit)
        })
        return Effect.sync(cancel)
      }))
  })
