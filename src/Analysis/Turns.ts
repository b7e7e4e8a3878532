/**
 * Pacing for the CPU-heavy parts of an analysis, in two queues:
 * - `turn`, before the intake (parsing, validation, signals, prompt assembly): each event-loop
 *   turn admits a few. Under overload, requests queue here, inside their deadline, while every
 *   loop turn still polls sockets: new connections are accepted and their headers read before the
 *   server's 10 s header clock runs out (else 408s and resets), and probes keep answering.
 * - `finish`, after a model's answer arrives and before the work on it (reading and validating the
 *   answer, the evidence check, the response). While intakes wait, a turn admits only a few of
 *   these, plus those that have waited `patience` ms; otherwise many. A burst thus gets its
 *   provider calls out first, so the providers work on all of them at once, and answers are
 *   finished while the last calls are out (issue 18: answers finished as they came took the CPU
 *   from the last intakes, and the last calls went out later; docs/performance.md). Under a
 *   sustained overload an answer waits at most `patience` ms, then goes ahead of the intakes:
 *   analyses finish and intakes queue, rather than all being started and none ended.
 * Without load a turn costs one setImmediate.
 */
import * as Effect from "effect/Effect"

export interface Turns {
  /** Waits for this request's turn at its intake (interruptible: leaving the queue frees the place). */
  readonly turn: Effect.Effect<void>
  /** Waits for a turn at the work on a model's answer (behind the intakes; interruptible). */
  readonly finish: Effect.Effect<void>
  /** Intakes waiting. */
  readonly waiting: () => number
  /** Answers waiting. */
  readonly finishing: () => number
}

type Queue = Map<() => void, number>

/** Wakes up to `count` waiters of `queue`, in arrival order. */
const admit = (queue: Queue, count: number) => {
  let admitted = 0
  for (const wake of queue.keys()) {
    if (admitted === count) break
    queue.delete(wake)
    admitted += 1
    wake()
  }
}

/** How many of `queue`'s first waiters (the oldest) have waited `patience` ms or more, at most `max`. */
const overdue = (queue: Queue, now: number, patience: number, max: number) => {
  let count = 0
  for (const since of queue.values()) {
    if (count === max || now - since < patience) break
    count += 1
  }
  return count
}

/**
 * `perTurn` intakes per turn. Answers: `perTurn` × 4 per turn when no intake waits; while intakes
 * wait, `finishWhileBusy` plus the overdue ones (up to `perTurn` × 4).
 */
export const makeTurns = (perTurn: number, patience: number, finishWhileBusy = Math.max(1, Math.floor(perTurn / 4))): Turns => {
  const starting: Queue = new Map()
  const finishing: Queue = new Map()
  const finishPerTurn = perTurn * 4
  let scheduled = false
  const drain = () => {
    scheduled = false
    const busy = starting.size > 0
    admit(starting, perTurn)
    admit(finishing, busy ? Math.max(finishWhileBusy, overdue(finishing, performance.now(), patience, finishPerTurn)) : finishPerTurn)
    if (starting.size > 0 || finishing.size > 0) schedule()
  }
  const schedule = () => {
    if (scheduled) return
    scheduled = true
    setImmediate(drain)
  }
  const waitIn = (queue: Queue) =>
    Effect.async<void>((resume) => {
      const wake = () => resume(Effect.void)
      queue.set(wake, performance.now())
      schedule()
      return Effect.sync(() => {
        queue.delete(wake)
      })
    })
  return {
    turn: waitIn(starting),
    finish: waitIn(finishing),
    waiting: () => starting.size,
    finishing: () => finishing.size
  }
}
