/**
 * Helpers for tests on `TestClock` (`it.effect`): `TestClock.adjust` only wakes sleeps already
 * registered, so a test first lets forked fibers and real I/O run until the sleeps it expects are.
 */
import { Chunk, Effect, Option, Order, TestClock } from "effect"

/** A pause in real time (not on the test's clock): forked fibers and sockets make progress meanwhile. */
const pause = Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, 5)))

/** Asks `probe` between short real-time pauses until it gives a value; dies after about 5 s. */
export const eventually = <A>(probe: Effect.Effect<Option.Option<A>>, what: string): Effect.Effect<A> => {
  const attempt = (left: number): Effect.Effect<A> =>
    Effect.flatMap(probe, (found) =>
      Option.isSome(found)
        ? Effect.succeed(found.value)
        : left === 0
        ? Effect.dieMessage(`still waiting for ${what}`)
        : Effect.zipRight(pause, attempt(left - 1)))
  return attempt(1000)
}

/** The instants (ms on the test clock) of the sleeps waiting on it. */
export const sleepInstants = Effect.map(TestClock.sleeps(), (sleeps) => Chunk.toArray(Chunk.sort(sleeps, Order.number)))

/** Waits until at least `count` sleeps wait on the test clock; gives their instants, earliest first. */
export const whenSleeping = (count: number) =>
  eventually(Effect.map(sleepInstants, (instants) => (instants.length >= count ? Option.some(instants) : Option.none())), `${count} sleeps`)
