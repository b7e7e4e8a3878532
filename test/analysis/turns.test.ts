/**
 * Turns (src/Analysis/Turns.ts): CPU-heavy analysis work is admitted a few per event-loop turn,
 * so socket I/O gets polled between batches; leaving the queue frees the place.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { makeTurns } from "../../src/Analysis/Turns.js"

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

describe("Turns", () => {
  it("admits at most perTurn waiters per event-loop turn, in arrival order", async () => {
    const turns = makeTurns(2)
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
    const turns = makeTurns(1)
    const fiber = Effect.runFork(turns.turn)
    expect(turns.waiting()).toBe(1)
    await Effect.runPromise(Fiber.interrupt(fiber))
    expect(turns.waiting()).toBe(0)
  })

  it("admits a lone request on the next turn", async () => {
    const turns = makeTurns(8)
    await Effect.runPromise(turns.turn)
    expect(turns.waiting()).toBe(0)
  })
})
