/**
 * "A 200 means committed" (DECISIONS §18), with the real process (dist/server.mjs) on its SQLite
 * store, killed with SIGKILL the moment a 200 arrives: nothing answered 200 is lost. The service
 * runs with a long quiet window (30 s) so no trace completes before the kill; restarted on the same
 * SVC_HOME with SVC_OTLP_QUIET_SECONDS=1 and SVC_OTLP_DIAGNOSE=all, every trace it had accepted
 * becomes one run whose trace has the events of every span sent. Three moments: the 200 of a
 * trace's last batch, the 200 of a trace's first batch (the rest sent to the restarted process,
 * as the exporter would), and the first 200 of a burst of concurrent exports (protobuf and JSON).
 * And a trace the killed process had claimed for completion (Assembly.ts's 60 s claim lease) is
 * completed after the restart at once, as a previous process's run leases are (DECISIONS §17):
 * SQLite is one process, so no other can hold the claim.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Span } from "../../src/Otlp/Wire/Model.js"
import { encodeTraces } from "../../src/Otlp/Wire/Proto.js"
import { databaseFile } from "../../src/Store/RunStoreAccess.js"
import { sqliteLayer } from "../../src/Store/Sql.js"
import { type ProviderDouble, startProviderDouble } from "../support/ProviderDouble.js"
import { type Spawned, spawnService } from "../support/Spawned.js"
import { type BuiltTrace, buildTrace, exportedRuns, spanIdsOf, tracesRequest, until } from "./support.js"

let double: ProviderDouble
const children: Array<Spawned> = []
beforeAll(async () => {
  double = await startProviderDouble()
})
afterAll(async () => {
  for (const child of children.splice(0)) {
    if (child.child.exitCode === null && child.child.signalCode === null) {
      child.child.kill("SIGKILL")
      await child.exited
    }
  }
  await double.close()
})

const start = async (home: string, env: Record<string, string>): Promise<Spawned> => {
  const spawned = await spawnService(double.url, { SVC_HOME: home, SVC_WORKERS: "0", ...env })
  children.push(spawned)
  return spawned
}
/** Nothing completes before the kill. */
const LONG_QUIET = { SVC_OTLP_QUIET_SECONDS: "30" }
/** After the restart: complete 1 s after the last span, every trace a run. */
const SHORT_QUIET = { SVC_OTLP_QUIET_SECONDS: "1", SVC_OTLP_DIAGNOSE: "all" }

/** One export request of `spans`, protobuf or OTLP/JSON. */
const exportSpans = (url: string, spans: ReadonlyArray<Span>, encoding: "protobuf" | "json"): Promise<Response> =>
  fetch(`${url}/v1/traces`, {
    method: "POST",
    headers: { "content-type": encoding === "protobuf" ? "application/x-protobuf" : "application/json" },
    body: encoding === "protobuf" ? encodeTraces(tracesRequest(spans)) : JSON.stringify(tracesRequest(spans))
  })

const killedBy = async (spawned: Spawned) => {
  const exited = await spawned.exited
  expect(exited.signal).toBe("SIGKILL")
}

const SALT = process.pid % 65_536

describe("OTLP in survives SIGKILL (the built service, SQLite)", () => {
  it("a 200 means committed: every batch answered 200 before the kill is in the run its trace became", async () => {
    const home = mkdtempSync(join(tmpdir(), "svc-otlp-kill-"))
    const accepted: Array<BuiltTrace> = []

    // 1. the 200 of a trace's last batch
    const first = await start(home, LONG_QUIET)
    const a = buildTrace(SALT, 1, 4)
    expect((await exportSpans(first.url, a.tools.slice(0, 2), "protobuf")).status).toBe(200)
    const last = await exportSpans(first.url, [a.root, ...a.tools.slice(2)], "json")
    first.child.kill("SIGKILL")
    expect(last.status).toBe(200)
    accepted.push(a)
    await killedBy(first)

    // 2. the 200 of a trace's first batch (no root yet), then 3. a burst killed at its first 200
    const second = await start(home, LONG_QUIET)
    const b = buildTrace(SALT, 2, 4)
    expect((await exportSpans(second.url, b.tools.slice(0, 2), "protobuf")).status).toBe(200)
    const burst = Array.from({ length: 10 }, (_, i) => buildTrace(SALT, 10 + i, 3))
    let killed = false
    const outcomes = await Promise.allSettled(
      burst.map(async (trace, i) => {
        const response = await exportSpans(second.url, trace.spans, i % 2 === 0 ? "protobuf" : "json")
        if (response.status === 200 && !killed) {
          killed = true
          second.child.kill("SIGKILL")
        }
        return response.status
      })
    )
    await killedBy(second)
    const answered = burst.filter((_, i) => {
      const outcome = outcomes[i]
      return outcome?.status === "fulfilled" && outcome.value === 200
    })
    expect(answered.length).toBeGreaterThanOrEqual(1)
    accepted.push(...answered)

    // restarted: the rest of trace b arrives (the exporter's next batch) while nothing completes (a
    // short quiet window here would race it: b's first batch has been quiet since before the kill),
    // then a restart with a short window completes everything
    const receiver = await start(home, LONG_QUIET)
    expect((await exportSpans(receiver.url, [b.root, ...b.tools.slice(2)], "protobuf")).status).toBe(200)
    accepted.push(b)
    receiver.child.kill("SIGTERM")
    await receiver.exited
    const third = await start(home, SHORT_QUIET)
    const wanted = new Set(accepted.map((trace) => trace.traceId))
    await until(
      `runs of the ${wanted.size} accepted traces`,
      async () => (await exportedRuns(third.url)).filter((run) => run.run.trace_id !== null && wanted.has(run.run.trace_id)).length >= wanted.size,
      15_000
    )
    const runs = await exportedRuns(third.url)
    for (const trace of accepted) {
      const mine = runs.filter((run) => run.run.trace_id === trace.traceId)
      expect(mine, trace.traceId).toHaveLength(1)
      const [run] = mine
      if (run === undefined) continue
      expect(run.run.source).toBe("otlp")
      // every span sent has its events in the run's trace
      expect([...spanIdsOf(run)].sort(), trace.traceId).toEqual(trace.spans.map((span) => span.spanId).sort())
    }
    // a batch of the burst that got no answer made a whole run or none: never a part of its trace
    const burstIds = new Map(burst.map((trace) => [trace.traceId, trace]))
    for (const run of runs) {
      const trace = run.run.trace_id === null ? undefined : burstIds.get(run.run.trace_id)
      if (trace !== undefined) expect(spanIdsOf(run).size).toBe(trace.spans.length)
    }
    // one run per trace
    const traceIds = runs.map((run) => run.run.trace_id)
    expect(new Set(traceIds).size).toBe(traceIds.length)
    third.child.kill("SIGTERM")
    expect((await third.exited).code).toBe(0)
  }, 30_000)

  // SQLite is one process's: the claims of a previous process are released at start (Assembly.ts,
  // as the runs' leases are by Workers.ts), so its trace does not wait out the claim's lease.
  it("a trace the killed process had claimed becomes a run after the restart without waiting out the claim's lease", async () => {
    const home = mkdtempSync(join(tmpdir(), "svc-otlp-kill-"))
    const first = await start(home, LONG_QUIET)
    const trace = buildTrace(SALT, 40, 2)
    expect((await exportSpans(first.url, trace.spans, "protobuf")).status).toBe(200)
    first.child.kill("SIGKILL")
    await killedBy(first)
    // the store as the process leaves it when killed while assembling the trace: claimed by it, for
    // Assembly.ts's lease (the moment cannot be hit from outside: assembling takes milliseconds)
    await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function*() {
          const sql = Context.get(yield* Layer.build(sqliteLayer(databaseFile(home))), SqlClient.SqlClient)
          const claimed = yield* sql`UPDATE otlp_traces SET state = 'claimed', lease_owner = 'the-killed-process', lease_until = ${Date.now() + 60_000}
            WHERE trace_id = ${trace.traceId} AND state = 'open' RETURNING trace_id`
          expect(claimed).toHaveLength(1)
        })
      )
    )
    const second = await start(home, SHORT_QUIET)
    await until("the claimed trace's run", async () => (await exportedRuns(second.url)).some((run) => run.run.trace_id === trace.traceId), 6_000)
    second.child.kill("SIGTERM")
    await second.exited
  }, 20_000)
})
