/**
 * Pacing for the CPU-heavy part of an analysis (parsing, validation, signals, prompt assembly):
 * each request waits for a turn, and each turn of the event loop admits a few. Under overload,
 * requests then queue here, inside their deadline, while every loop turn still polls sockets:
 * new connections are accepted and their headers read before the server's 10 s header clock
 * runs out (else 408s and resets), and probes keep answering. Without load a turn costs one
 * setImmediate.
 */
import { Effect } from "effect"

export interface Turns {
  /** Waits for this request's turn (interruptible: leaving the queue frees the place). */
  readonly turn: Effect.Effect<void>
  readonly waiting: () => number
}

export const makeTurns = (perTurn: number): Turns => {
  const waiting = new Set<() => void>()
  let scheduled = false
  const drain = () => {
    scheduled = false
    let admitted = 0
    for (const wake of waiting) {
      if (admitted === perTurn) break
      waiting.delete(wake)
      admitted += 1
      wake()
    }
    if (waiting.size > 0) schedule()
  }
  const schedule = () => {
    if (scheduled) return
    scheduled = true
    setImmediate(drain)
  }
  return {
    turn: Effect.async<void>((resume) => {
      const wake = () => resume(Effect.void)
      waiting.add(wake)
      schedule()
      return Effect.sync(() => waiting.delete(wake))
    }),
    waiting: () => waiting.size
  }
}
