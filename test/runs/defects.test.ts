/**
 * A defect in a run's work (issue 47: a throw, a die; a bug, not the run's own failure) on the
 * real SQLite store with the test clock: the worker does not end (a defect in a forked loop once
 * ended it without a word), the defect is counted in `svc_background_errors_total{loop="workers"}`,
 * the next run is worked meanwhile, and the dying run is tried again after the backoff and failed
 * `internal_error` at its last attempt.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, MetricLabel, Option, Ref, TestClock } from "effect"
import { backgroundErrorsTotal } from "../../src/Observability/Metrics.js"
import { type RunResult, type RunRunner, workerLoop, type WorkerOptions } from "../../src/Runs/Worker.js"
import type { RunStoreShape } from "../../src/Store/Runs.js"
import { newRun, openRunStore } from "../support/RunStore.js"
import { eventually } from "../support/TestTime.js"

const OPTIONS: WorkerOptions = { owner: "w1", leaseMs: 60_000, idleMs: 1_000, maxAttempts: 3, backoffMs: 5_000 }
const done: RunResult = { _tag: "End", end: { status: "done", report: "{}", severity: "none", patterns: [], cacheKeys: [] } }

const workerErrors = () => backgroundErrorsTotal.unsafeValue([MetricLabel.make("loop", "workers")]).count

const until = (store: RunStoreShape, id: string, status: string) =>
  eventually(Effect.map(Effect.orDie(store.get("shared", id)), Option.filter((run) => run.status === status)), `run ${id} ${status}`)

describe("a defect in a run's work", () => {
  it.scoped("is counted, the worker goes on with the next run, and the run is tried again, then failed internal_error", () =>
    Effect.gen(function*() {
      const store = yield* openRunStore()
      yield* store.submit(newRun("r1", { submittedAt: 1_000 }))
      yield* store.submit(newRun("r2", { submittedAt: 2_000 }))
      const attempts = yield* Ref.make<Array<string>>([])
      const before = workerErrors()
      const runner: RunRunner = (run) =>
        Effect.flatMap(Ref.update(attempts, (list) => [...list, `${run.id}#${run.attempts}`]), () =>
          run.id === "r1"
            ? Effect.sync((): RunResult => {
              throw new TypeError("Cannot read properties of undefined (reading 'spans')")
            })
            : Effect.succeed(done))
      const worker = yield* Effect.fork(workerLoop(store, runner, OPTIONS))
      // r1 died: back in the queue for its backoff; the worker went on with r2
      yield* until(store, "r2", "done")
      expect(yield* until(store, "r1", "queued")).toMatchObject({ attempts: 1, error: null })
      expect(workerErrors() - before).toBe(1)
      // its second and third attempts, each after its backoff (5 s, 10 s), die too: failed at the last
      yield* TestClock.adjust(6_000)
      yield* eventually(Effect.map(Ref.get(attempts), (list) => (list.includes("r1#2") ? Option.some(list) : Option.none())), "the second attempt")
      yield* until(store, "r1", "queued")
      yield* TestClock.adjust(11_000)
      const failed = yield* until(store, "r1", "failed")
      expect(failed.attempts).toBe(3)
      expect(failed.error?.error).toBe("internal_error")
      expect(failed.error?.message).toContain("3 attempts")
      expect(yield* Ref.get(attempts)).toEqual(["r1#1", "r2#1", "r1#2", "r1#3"])
      expect(workerErrors() - before).toBe(3)
      // the worker is alive and works what comes next
      expect(Option.isNone(yield* Fiber.poll(worker))).toBe(true)
      yield* store.submit(newRun("r3", { submittedAt: 3_000 }))
      yield* TestClock.adjust(1_000)
      yield* until(store, "r3", "done")
      yield* Fiber.interrupt(worker)
    }))
})
