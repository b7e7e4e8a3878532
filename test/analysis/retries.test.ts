/**
 * A model call's retries on TestClock: through the real ModelClients and Exchange to the provider
 * double on loopback, with only time (`TestClock`) and the jitter (`Random`) in the test's hands.
 * The waits between attempts are sleeps on the clock, their jitter comes from `Random`, and the
 * call's own deadline (`ModelCall.deadline`) bounds them.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Cause, Clock, Effect, Exit, Fiber, Option, Random, TestClock } from "effect"
import type { ModelCall } from "../../src/Providers/ModelCall.js"
import { ModelClients, ModelClientsLive } from "../../src/Providers/ModelClients.js"
import type { ResolvedProvider } from "../../src/Providers/Resolution.js"
import { type ProviderDouble, type Reply, startProviderDouble } from "../support/ProviderDouble.js"
import { eventually, sleepInstants } from "../support/TestTime.js"

let double: ProviderDouble
beforeAll(async () => {
  double = await startProviderDouble()
})
afterAll(() => double.close())

const callBy = (deadline: number): ModelCall => ({
  system: ["Judge the trace."],
  messages: [{ role: "user", content: "The trace." }],
  objectName: "Verdict",
  jsonSchema: { type: "object", properties: { verdict: { type: "string" } }, required: ["verdict"], additionalProperties: false },
  maxOutputTokens: 64,
  cacheKey: "retries-test",
  deadline
})

const unavailable: Reply = { kind: "status", status: 503 }
const answer: Reply = { kind: "object", value: { verdict: "ok" } }

/**
 * Runs one call with `random` as its `Random`, the deadline `deadlineIn` ms from now, the double
 * answering `replies` in turn. Each time the call sleeps, notes the wait and moves the clock to its
 * end; gives the waits, the call's exit and the number of attempts.
 */
const observe = (random: Random.Random, deadlineIn: number, replies: ReadonlyArray<Reply>) =>
  Effect.gen(function*() {
    double.reset()
    double.script = (_call, index) => replies[index]
    const clients = yield* ModelClients
    const local: ResolvedProvider = { provider: "local", model: "test-model", baseUrl: double.url }
    const start = yield* Clock.currentTimeMillis
    const call = yield* Effect.fork(Effect.withRandom(clients.generate(local, callBy(start + deadlineIn)), random))
    const waits: Array<number> = []
    for (;;) {
      // The next wait on the clock, or none when the call has ended.
      const next = yield* eventually(
        Effect.gen(function*() {
          const [instant] = yield* sleepInstants
          if (instant !== undefined) return Option.some(Option.some(instant))
          return Option.map(yield* Fiber.poll(call), () => Option.none<number>())
        }),
        "a retry's wait or the call's end"
      )
      if (Option.isNone(next)) break
      const wait = next.value - (yield* Clock.currentTimeMillis)
      waits.push(wait)
      yield* TestClock.adjust(wait)
    }
    return { waits, exit: yield* Fiber.await(call), attempts: double.calls.length }
  }).pipe(Effect.provide(ModelClientsLive))

describe("retries of a model call (TestClock)", () => {
  it.effect("waits on the clock between attempts, the jitter drawn from Random", () =>
    Effect.gen(function*() {
      const { waits, exit, attempts } = yield* observe(Random.fixed([0.25, 0.75]), 60_000, [unavailable, unavailable, answer])
      // 500 ms × (0.75 + 0.25 / 2), then 1000 ms × (0.75 + 0.75 / 2).
      expect(waits).toEqual([437.5, 1125])
      expect(attempts).toBe(3)
      expect(Exit.isSuccess(exit) ? exit.value.value : exit).toEqual({ verdict: "ok" })
    }))

  it.effect("the same seed gives the same waits, each within 25% of the exponential step", () =>
    Effect.gen(function*() {
      const replies = [unavailable, unavailable, unavailable, unavailable]
      const first = yield* observe(Random.make("retries"), 60_000, replies)
      const again = yield* observe(Random.make("retries"), 60_000, replies)
      // To the microsecond: the clock's instants differ between the runs, and so their float sums.
      const microseconds = (waits: ReadonlyArray<number>) => waits.map((wait) => Math.round(wait * 1000))
      expect(first.waits).toHaveLength(3)
      expect(microseconds(again.waits)).toEqual(microseconds(first.waits))
      first.waits.forEach((wait, attempt) => {
        expect(wait).toBeGreaterThanOrEqual(500 * 2 ** attempt * 0.75)
        expect(wait).toBeLessThan(500 * 2 ** attempt * 1.25)
      })
      // Out of attempts: the provider's last answer.
      expect(first.attempts).toBe(4)
      expect(Exit.isFailure(first.exit) ? Cause.pretty(first.exit.cause) : "").toContain("local model host answered HTTP 503 after retrying within the deadline")
    }))

  it.effect("Retry-After sets the wait; no retry starts that the call's deadline would cut short", () =>
    Effect.gen(function*() {
      const limited: Reply = { kind: "status", status: 429, headers: { "retry-after": "2" } }
      const honoured = yield* observe(Random.fixed([0.5]), 60_000, [limited, answer])
      expect(honoured.waits).toEqual([2000])
      expect(honoured.attempts).toBe(2)
      // With 3 s left, a wait of 2 s leaves the attempt its 250 ms; the next, 1000 ms at 2 s, would not.
      const bounded = yield* observe(Random.fixed([0.5]), 3000, [limited, unavailable, answer])
      expect(bounded.waits).toEqual([2000])
      expect(bounded.attempts).toBe(2)
      expect(Exit.isFailure(bounded.exit) ? Cause.pretty(bounded.exit.cause) : "").toContain("answered HTTP 503 after retrying within the deadline")
    }))
})
