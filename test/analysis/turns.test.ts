/**
 * Turns (src/Analysis/Turns.ts): CPU-heavy analysis work is admitted a few per event-loop turn,
 * so socket I/O gets polled between batches; leaving the queue frees the place. Work on a model's
 * answer (`finish`) goes behind waiting intakes, a few per turn, unless it has waited its patience.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { makeTurns } from "../../src/Analysis/Turns.js"

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))
const HOUR = 3_600_000

describe("Turns", () => {
  it("admits at most perTurn waiters per event-loop turn, in arrival order", async () => {
    const turns = makeTurns(2, HOUR)
    const admitted: Array<number> = []
    const fibers = Array.from({ length: 5 }, (_, i) => Effect.runFork(Effect.tap(turns.turn, () => Effect.sync(() => admitted.push(i)))))
    expect(turns.waiting()).toBe(5)
    await nextTurn()
    expect(turns.waiting()).toBe(3)
    await nextTurn()
    expect(turns.waiting()).toBe(1)
    await nextTurn()
    expect(turns.waiting()).toBe(0)
    await Promise.all(fibers.map((fiber) => Effect.runPromise(Fiber.join(fiber))))
    expect(admitted).toEqual([0, 1, 2, 3, 4])
  })

  it("frees the place of a waiter that is interrupted", async () => {
    const turns = makeTurns(1, HOUR)
    const fiber = Effect.runFork(turns.turn)
    expect(turns.waiting()).toBe(1)
    await Effect.runPromise(Fiber.interrupt(fiber))
    expect(turns.waiting()).toBe(0)
    const finishing = Effect.runFork(turns.finish)
    expect(turns.finishing()).toBe(1)
    await Effect.runPromise(Fiber.interrupt(finishing))
    expect(turns.finishing()).toBe(0)
  })

  it("admits a lone request, and a lone answer, on the next turn", async () => {
    const turns = makeTurns(8, HOUR)
    await Effect.runPromise(turns.turn)
    await Effect.runPromise(turns.finish)
    expect(turns.waiting()).toBe(0)
    expect(turns.finishing()).toBe(0)
  })

  it("while intakes wait, answers go a few per turn; then many per turn", async () => {
    const turns = makeTurns(4, HOUR, 1)
    const order: Array<string> = []
    const run = (effect: Effect.Effect<void>, label: string) => Effect.runFork(Effect.tap(effect, () => Effect.sync(() => order.push(label))))
    const answers = Array.from({ length: 20 }, (_, i) => run(turns.finish, `a${i}`))
    const intakes = Array.from({ length: 8 }, (_, i) => run(turns.turn, `i${i}`))
    await nextTurn()
    // Intakes were waiting: 4 of them and 1 answer.
    expect(turns.waiting()).toBe(4)
    expect(turns.finishing()).toBe(19)
    await nextTurn()
    expect(turns.waiting()).toBe(0)
    expect(turns.finishing()).toBe(18)
    await nextTurn()
    // No intake waits: up to 4 × 4 answers a turn.
    expect(turns.finishing()).toBe(2)
    await nextTurn()
    expect(turns.finishing()).toBe(0)
    await Promise.all([...answers, ...intakes].map((fiber) => Effect.runPromise(Fiber.join(fiber))))
    expect(order.slice(0, 5)).toEqual(["i0", "i1", "i2", "i3", "a0"])
  })

  it("an answer that has waited its patience goes ahead of waiting intakes", async () => {
    const turns = makeTurns(2, 0, 1)
    const answers = Array.from({ length: 6 }, () => Effect.runFork(turns.finish))
    const intakes = Array.from({ length: 10 }, () => Effect.runFork(turns.turn))
    await nextTurn()
    // Every answer is overdue (patience 0): all 6 (at most 2 × 4) go, beside 2 intakes.
    expect(turns.finishing()).toBe(0)
    expect(turns.waiting()).toBe(8)
    await Promise.all(answers.map((fiber) => Effect.runPromise(Fiber.join(fiber))))
    await Promise.all(intakes.map((fiber) => Effect.runPromise(Fiber.interrupt(fiber))))
  })
})
