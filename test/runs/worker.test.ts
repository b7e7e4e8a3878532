/**
 * The run queue's worker (src/Runs/Worker.ts) on the real SQLite store, its time on `TestClock`:
 * a run claimed, worked under a renewed lease and ended; transient failures back to the queue
 * after a doubling backoff, then failed after the last attempt; a lease lost to another worker
 * interrupts the work and writes nothing; an interrupted worker gives its run back at once.
 * The runner here is the test's own function: what a run does is the diagnose effect's, tested
 * end to end with the runs routes.
 */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Metric, Option, Ref, TestClock } from "effect"
import { runLeasesLost } from "../../src/Observability/Metrics.js"
import { backoffAfter, type RunResult, type RunRunner, workerLoop, type WorkerOptions } from "../../src/Runs/Worker.js"
import type { RunStoreShape } from "../../src/Store/Runs.js"
import { newRun, openRunStore } from "../support/RunStore.js"
import { eventually, sleepInstants } from "../support/TestTime.js"

const openStore = openRunStore()

const OPTIONS: WorkerOptions = { owner: "w1", leaseMs: 60_000, idleMs: 1_000, maxAttempts: 3, backoffMs: 5_000 }
const statusOf = (store: RunStoreShape, id: string) => Effect.map(store.get("shared", id), Option.map((run) => run.status))
const until = (store: RunStoreShape, id: string, status: string) =>
  eventually(Effect.map(Effect.orDie(store.get("shared", id)), Option.filter((run) => run.status === status)), `run ${id} ${status}`)

/** Waits until a fiber sleeps until a time after the test clock's now (a renewal re-armed). */
const nextSleepAfterNow = eventually(
  Effect.map(Effect.zip(TestClock.currentTimeMillis, sleepInstants), ([now, instants]) => (instants.some((instant) => instant > now) ? Option.some(true) : Option.none())),
  "the next renewal's sleep"
)

const done: RunResult = { _tag: "End", end: { status: "done", report: "{}", severity: "none", patterns: [], cacheKeys: [] } }
const transient: RunResult = { _tag: "Transient", error: { error: "provider_error", message: "the provider answered 503" } }

describe("the run queue's worker", () => {
  it.scoped("idle, claims a run queued in this process at once, before its next poll", () =>
    Effect.gen(function*() {
      const store = yield* openStore
      // as RunStoreAccess signals: each wait is on the signal to come, a new one once it fired
      let queued = yield* Deferred.make<void>()
      const wake = Effect.suspend(() => Deferred.await(queued))
      const worker = yield* Effect.fork(workerLoop(store, () => Effect.succeed(done), { ...OPTIONS, wake }))
      // idle: the empty queue looked at, the next poll a second away on the test clock
      yield* eventually(Effect.map(sleepInstants, (instants) => (instants.length > 0 ? Option.some(true) : Option.none())), "the idle wait")
      yield* store.submit(newRun("r1"))
      const fired = queued
      queued = yield* Deferred.make<void>()
      yield* Deferred.succeed(fired, undefined)
      // done with the clock where it was: no poll came due
      expect(yield* until(store, "r1", "done")).toMatchObject({ attempts: 1 })
      expect(yield* TestClock.currentTimeMillis).toBe(0)
      yield* Fiber.interrupt(worker)
    }))

  it.scoped("claims a queued run, works it and ends it done", () =>
    Effect.gen(function*() {
      const store = yield* openStore
      yield* store.submit(newRun("r1"))
      const worker = yield* Effect.fork(workerLoop(store, () => Effect.succeed(done), OPTIONS))
      const run = yield* until(store, "r1", "done")
      expect(run).toMatchObject({ attempts: 1, severity: "none" })
      yield* Fiber.interrupt(worker)
    }))

  it.scoped("re-queues a transient failure after a doubling backoff, and fails it with the kind after the last attempt", () =>
    Effect.gen(function*() {
      expect([1, 2, 3].map((attempts) => backoffAfter(attempts, 5_000))).toEqual([5_000, 10_000, 20_000])
      const store = yield* openStore
      yield* store.submit(newRun("r1"))
      const calls = yield* Ref.make<Array<number>>([])
      const runner: RunRunner = (run) => Effect.as(Ref.update(calls, (list) => [...list, run.attempts]), transient)
      const worker = yield* Effect.fork(workerLoop(store, runner, OPTIONS))
      yield* eventually(Effect.map(Ref.get(calls), (list) => (list.length === 1 ? Option.some(list) : Option.none())), "the first attempt")
      yield* until(store, "r1", "queued")
      // not before its backoff: the idle worker looks every second and finds nothing due
      yield* TestClock.adjust(4_000)
      expect(yield* Ref.get(calls)).toEqual([1])
      yield* TestClock.adjust(2_000)
      yield* eventually(Effect.map(Ref.get(calls), (list) => (list.length === 2 ? Option.some(list) : Option.none())), "the second attempt")
      yield* until(store, "r1", "queued")
      yield* TestClock.adjust(11_000)
      const failed = yield* until(store, "r1", "failed")
      expect(yield* Ref.get(calls)).toEqual([1, 2, 3])
      expect(failed).toMatchObject({ attempts: 3, error: { error: "provider_error", message: "the provider answered 503" } })
      yield* Fiber.interrupt(worker)
    }))

  it.scoped("renews its lease while a long run works, so the run is not given to another", () =>
    Effect.gen(function*() {
      const store = yield* openStore
      yield* store.submit(newRun("r1"))
      const finish = yield* Deferred.make<RunResult>()
      const worker = yield* Effect.fork(workerLoop(store, () => Deferred.await(finish), OPTIONS))
      yield* until(store, "r1", "running")
      // five leases long: renewed every 20 s, never lapsing
      for (let i = 0; i < 15; i++) {
        yield* TestClock.adjust(20_000)
        // the renewal done, its next sleep registered, before the clock moves again
        yield* nextSleepAfterNow
      }
      const now = yield* TestClock.currentTimeMillis
      expect(yield* store.releaseExpired(now)).toBe(0)
      expect(Option.isNone(yield* store.claim("w2", now, OPTIONS.leaseMs))).toBe(true)
      yield* Deferred.succeed(finish, done)
      yield* until(store, "r1", "done")
      yield* Fiber.interrupt(worker)
    }))

  it.scoped("a lease lost to another worker interrupts the work; its result is never written", () =>
    Effect.gen(function*() {
      const store = yield* openStore
      yield* store.submit(newRun("r1"))
      const interrupted = yield* Deferred.make<boolean>()
      const runner: RunRunner = () => Effect.onInterrupt(Effect.never, () => Deferred.succeed(interrupted, true))
      const lostBefore = (yield* Metric.value(runLeasesLost)).count
      const worker = yield* Effect.fork(workerLoop(store, runner, OPTIONS))
      yield* until(store, "r1", "running")
      // the store gives the run to w2 (as if w1 had stalled past its lease)
      yield* store.releaseExpired(OPTIONS.leaseMs + 1)
      const taken = yield* store.claim("w2", 0, 10 * OPTIONS.leaseMs)
      expect(Option.map(taken, (run) => run.id)).toEqual(Option.some("r1"))
      // w1's next renewal fails: its work is interrupted, and w2's run stays w2's
      yield* TestClock.adjust(20_000)
      expect(yield* Deferred.await(interrupted)).toBe(true)
      // counted once in svc_run_leases_lost_total, so an operator sees a stalled process's runs let go
      yield* eventually(Effect.map(Metric.value(runLeasesLost), (state) => Option.liftPredicate(state.count, (count) => count === lostBefore + 1)), "the lost lease counted")
      expect(yield* statusOf(store, "r1")).toEqual(Option.some("running"))
      expect(yield* store.finish("r1", "w2", 30_000, { status: "done", report: "{}", severity: "low", patterns: [], cacheKeys: [] })).toBe(true)
      yield* Fiber.interrupt(worker)
    }))

  it.scoped("interrupted while it works (SIGTERM's grace over), the worker gives its run back to the queue", () =>
    Effect.gen(function*() {
      const store = yield* openStore
      yield* store.submit(newRun("r1"))
      const worker = yield* Effect.fork(workerLoop(store, () => Effect.never, OPTIONS))
      yield* until(store, "r1", "running")
      yield* Fiber.interrupt(worker)
      expect(yield* statusOf(store, "r1")).toEqual(Option.some("queued"))
      const again = yield* store.claim("w2", yield* TestClock.currentTimeMillis, OPTIONS.leaseMs)
      expect(Option.map(again, (run) => [run.id, run.attempts])).toEqual(Option.some(["r1", 2]))
    }))
})
