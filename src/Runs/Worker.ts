/**
 * One worker of the run queue (DECISIONS §17), on any RunStore: it claims the oldest due run with
 * a lease, renews the lease while the run works, and ends the run in one statement under the
 * lease. What a run does is the `runner`'s (the diagnose effect, for `svc serve`); the loop owns
 * the queue's rules:
 * - a transient failure (provider 429/5xx, timeout) goes back to the queue after a backoff that
 *   doubles per attempt, up to `maxAttempts` attempts, then the run fails with that kind (or ends
 *   with its fallback: done with the checks that fired);
 * - a lease that could not be renewed (the store gave the run to another worker after this one
 *   stalled) interrupts the work: its result is never written;
 * - interrupted (SIGTERM's grace), the worker gives its run back to the queue at once;
 * - a defect in a run's work (a throw, a die: a bug, not the run's own failure) is logged with its
 *   cause and counted (`svc_background_errors_total{loop="workers"}`), and handled as a transient
 *   failure: the worker goes on, the run is tried again and at its last attempt fails
 *   `internal_error` (issue 47: a defect once ended the worker without a word).
 * Times come from `Clock`, so tests drive the loop with `TestClock`.
 */
import type * as SqlError from "@effect/sql/SqlError"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import { errorKinds } from "../Errors.js"
import { eventLoopTurn } from "../Lifecycle/Slices.js"
import { reportBackgroundError } from "../Observability/Background.js"
import { runMetrics } from "../Observability/Metrics.js"
import type { ClaimedRun, RunEnd, RunStoreShape } from "../Store/Runs.js"

/** What running a claimed run came to. */
export type RunResult =
  | { readonly _tag: "End"; readonly end: RunEnd }
  | {
    readonly _tag: "Transient"
    readonly error: { readonly error: string; readonly message: string }
    /** How the run ends at its last attempt instead of `failed` with the error: done with what it has (its checks, DECISIONS §23). */
    readonly fallback?: RunEnd | undefined
  }

export type RunRunner = (run: ClaimedRun) => Effect.Effect<RunResult>

export interface WorkerOptions {
  /** This worker's name in leases: unique per process and worker. */
  readonly owner: string
  readonly leaseMs: number
  /** How long an idle worker waits before it looks at the queue again. */
  readonly idleMs: number
  readonly maxAttempts: number
  /** The first backoff; each later attempt waits twice the one before. */
  readonly backoffMs: number
  /** Whether to claim now (false from the moment the service drains: SIGTERM); always, unless told. */
  readonly accepting?: Effect.Effect<boolean>
  /** What ends an idle wait early: runs queued in this process (a submit wakes the workers). */
  readonly wake?: Effect.Effect<void>
  /** Wraps a claimed run's whole work, its finish included (the drain counts it as work in flight; its span). */
  readonly around?: <A, E>(work: Effect.Effect<A, E>, run: ClaimedRun) => Effect.Effect<A, E>
}

export const DEFAULT_WORKER: Omit<WorkerOptions, "owner"> = { leaseMs: 60_000, idleMs: 1_000, maxAttempts: 3, backoffMs: 5_000 }

/** The backoff before attempt `attempts + 1`: `backoffMs`, doubled per attempt made. */
export const backoffAfter = (attempts: number, backoffMs: number): number => backoffMs * 2 ** Math.max(0, attempts - 1)

/** A run let go because its lease was lost: counted (`svc_run_leases_lost_total`), and false. */
const leaseLost: Effect.Effect<boolean> = Effect.sync(() => {
  runMetrics.leaseLost()
  return false
})

/** True when the store still held the lease, else the lost lease counted. */
const heldOrLost = (held: boolean): Effect.Effect<boolean> => (held ? Effect.succeed(true) : leaseLost)

/** Ends a run under its lease, counted in `svc_runs_total` when it did (and as a lost lease when it could not). */
const finish = (store: RunStoreShape, claimed: ClaimedRun, owner: string, now: number, end: RunEnd) =>
  Effect.flatMap(store.finish(claimed.id, owner, now, end), (ended) => (ended ? Effect.as(Effect.sync(() => runMetrics.ended(end.status)), true) : leaseLost))

/** Runs one claimed run to its end under its lease; false when the lease was lost (nothing written). */
const work = (store: RunStoreShape, runner: RunRunner, options: WorkerOptions, claimed: ClaimedRun): Effect.Effect<boolean, SqlError.SqlError> =>
  Effect.gen(function*() {
    const lost = yield* Deferred.make<void>()
    const renewOnce = Effect.zipRight(
      // renewed at a third of the lease, so one late renewal still lands in time
      Effect.sleep(Duration.millis(Math.max(1, Math.floor(options.leaseMs / 3)))),
      Effect.flatMap(Clock.currentTimeMillis, (now) => store.renew(claimed.id, options.owner, now, options.leaseMs))
    )
    const renewing = yield* Effect.forkScoped(
      renewOnce.pipe(
        Effect.repeat({ while: (held) => held }),
        Effect.catchAll(() => Effect.succeed(false)),
        Effect.zipRight(Deferred.succeed(lost, undefined))
      )
    )
    const outcome = yield* Effect.raceFirst(Effect.map(runner(claimed), Option.some), Effect.as(Deferred.await(lost), Option.none<RunResult>()))
    yield* Fiber.interrupt(renewing)
    if (Option.isNone(outcome)) return yield* leaseLost
    const now = yield* Clock.currentTimeMillis
    const result = outcome.value
    if (result._tag === "End") return yield* finish(store, claimed, options.owner, now, result.end)
    if (claimed.attempts >= options.maxAttempts) return yield* finish(store, claimed, options.owner, now, result.fallback ?? { status: "failed", error: result.error })
    return yield* Effect.flatMap(store.release(claimed.id, options.owner, now + backoffAfter(claimed.attempts, options.backoffMs)), heldOrLost)
  }).pipe(Effect.scoped)

/** After a defect in a run's work: reported, and the run tried again after the backoff, or failed at its last attempt. */
const afterDefect = (store: RunStoreShape, options: WorkerOptions, claimed: ClaimedRun, cause: Cause.Cause<unknown>) =>
  Effect.gen(function*() {
    yield* reportBackgroundError("workers", "a run's work died; the worker goes on", cause, { run_id: claimed.id, attempt: claimed.attempts })
    const now = yield* Clock.currentTimeMillis
    if (claimed.attempts < options.maxAttempts) return yield* store.release(claimed.id, options.owner, now + backoffAfter(claimed.attempts, options.backoffMs))
    const error = { error: errorKinds.InternalError.kind, message: `the run's work failed unexpectedly in each of ${claimed.attempts} attempts (logged with its cause)` }
    return yield* finish(store, claimed, options.owner, now, { status: "failed", error })
  })

/**
 * The worker's loop: claim, work, repeat; idle when the queue is empty. Interrupted while it holds
 * a run, it gives the run back to the queue before it ends.
 */
export const workerLoop = (store: RunStoreShape, runner: RunRunner, options: WorkerOptions): Effect.Effect<never, SqlError.SqlError> => {
  const poll = Effect.sleep(Duration.millis(options.idleMs))
  const idle = options.wake === undefined ? poll : Effect.raceFirst(poll, options.wake)
  return Effect.forever(
    Effect.gen(function*() {
      if (options.accepting !== undefined && !(yield* options.accepting)) return yield* poll
      const claimed = yield* store.claim(options.owner, yield* Clock.currentTimeMillis, options.leaseMs)
      if (Option.isNone(claimed)) return yield* idle
      const run = claimed.value
      const working = work(store, runner, options, run)
      yield* Effect.onExit(options.around === undefined ? working : options.around(working, run), (exit) =>
        Exit.isInterrupted(exit)
          ? Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.ignore(store.release(run.id, options.owner, now)))
          : Effect.void).pipe(
          // a store failure ends the loop (its supervisor starts it again); a defect is the run's alone
          Effect.catchAllCause((cause) => (Cause.isDie(cause) ? afterDefect(store, options, run, cause) : Effect.failCause(cause)))
        )
      // runs that end without a model call (no provider, no content) would follow each other in
      // microtasks only: a turn of the event loop after each finish (Lifecycle/Slices.ts)
      yield* eventLoopTurn
    })
  )
}
