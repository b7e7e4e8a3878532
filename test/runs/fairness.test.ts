/**
 * The run workers fair to every scope (issue 47 item 3): two workers (src/Runs/Worker.ts, as
 * Workers.ts runs them) over the real SQLite store, on TestClock, with 1,000 runs of one scope
 * queued before one run of another: the lone scope's run is claimed in the first claim round (the
 * first two claims), not after the backlog; the store's claim on both dialects is
 * test/store/fairness.test.ts.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Option, Ref } from "effect"
import { type RunResult, type RunRunner, workerLoop, type WorkerOptions } from "../../src/Runs/Worker.js"
import type { RunStoreShape } from "../../src/Store/Runs.js"
import { newRun, openRunStore } from "../support/RunStore.js"
import { eventually } from "../support/TestTime.js"

const OPTIONS: Omit<WorkerOptions, "owner"> = { leaseMs: 60_000, idleMs: 1_000, maxAttempts: 3, backoffMs: 5_000 }
const done: RunResult = { _tag: "End", end: { status: "done", report: "{}", severity: "none", patterns: [], cacheKeys: [] } }

describe("the run workers, fair to every scope", () => {
  it.scoped("two workers, 1,000 queued runs of one scope and one of another: the lone scope's run is claimed in the first round", () =>
    Effect.gen(function*() {
      const store = yield* openRunStore()
      // the backlog is older than the lone run, and its scope's name sorts first
      for (let i = 0; i < 1_000; i++) yield* store.submit(newRun(`busy-${String(i).padStart(4, "0")}`, { scope: "key:busy", submittedAt: 1_000 + i }))
      yield* store.submit(newRun("lone", { scope: "key:lone", submittedAt: 5_000 }))
      // the claims in the order the store made them
      const claimed = yield* Ref.make<Array<string>>([])
      const recorded: RunStoreShape = {
        ...store,
        claim: (owner, now, leaseMs) =>
          Effect.tap(store.claim(owner, now, leaseMs), (taken) => Option.isSome(taken) ? Ref.update(claimed, (ids) => [...ids, taken.value.id]) : Effect.void)
      }
      const runner: RunRunner = () => Effect.succeed(done)
      const workers = yield* Effect.all(["w1", "w2"].map((owner) => Effect.fork(workerLoop(recorded, runner, { ...OPTIONS, owner }))))
      const order = yield* eventually(Effect.map(Ref.get(claimed), (ids) => (ids.includes("lone") && ids.length >= 4 ? Option.some(ids) : Option.none())), "the lone run claimed")
      yield* Effect.forEach(workers, Fiber.interrupt, { discard: true })
      expect(order.indexOf("lone")).toBeLessThan(2)
      // then the backlog, oldest first
      expect(order.filter((id) => id !== "lone").slice(0, 3)).toEqual(["busy-0000", "busy-0001", "busy-0002"])
      expect(Option.getOrThrow(yield* store.get("key:lone", "lone"))).toMatchObject({ status: "done", attempts: 1 })
    }))
})
