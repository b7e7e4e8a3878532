/**
 * bench/runs.ts's scenarios at CI size, against the built service (dist/server.mjs), for
 * correctness only (house rule: no timing thresholds; bench/runs.ts times them at bench size):
 * 200 distinct traces queued by a service without workers, in JSON Lines bodies, all answered 202,
 * all listed back queued, the store holding them after SIGTERM; 16 traces diagnosed by
 * `POST /v1/diagnose` and as runs by 4 workers, the same model calls for both, every run done
 * with its report stored.
 */
import { describe, expect, it } from "@effect/vitest"
import { join } from "node:path"
import { queueRuns, workerThroughput } from "../../bench/runs-scenarios.js"

const server = join(import.meta.dirname, "..", "..", "dist", "server.mjs")

describe("bench/runs.ts's scenarios at CI size (the built service)", () => {
  it("queues 200 runs in JSON Lines bodies: every trace a run, listed queued, kept in svc.db", async () => {
    const result = await queueRuns({ server, flags: [], runs: 200, perBody: 50, parallel: 2 })
    expect(result.bodies).toBe(4)
    expect(result.rejected).toBe(0)
    expect(result.accepted).toBe(200)
    expect(result.normalized).toBe(200)
    expect(result.listedQueued).toBe(200)
    expect(result.store.exit).toBe("0")
    expect(result.store.runs).toBe(200)
    expect(result.store.total / 200).toBeGreaterThan(0)
    expect(result.store.checkpointed / 200).toBeGreaterThan(0)
    expect(result.store.requestBytes).toBeGreaterThan(0)
  })

  it("diagnoses 16 traces by diagnose and as runs with 4 workers: the same model calls, every run done with its report", async () => {
    const result = await workerThroughput({ server, flags: [], traces: 16, workers: 4, latencyMs: 50, rounds: 1 })
    expect(result.rounds).toHaveLength(1)
    for (const round of result.rounds) {
      expect(round.diagnoseCalls).toBe(16)
      expect(round.runsCalls).toBe(16)
      expect(round.done).toBe(16)
    }
    // the warm-up's 4 runs and the round's 16
    expect(result.runs).toBe(20)
    expect(result.store.runs).toBe(20)
    expect(result.store.exit).toBe("0")
    expect(result.store.total / result.runs).toBeGreaterThan(0)
    expect(result.store.reportBytes).toBeGreaterThan(0)
    expect(result.reportBytes).toBeGreaterThan(0)
  })
})
