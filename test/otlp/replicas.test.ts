/**
 * OTLP in across replicas (DECISIONS §18), with the built service (dist/server.mjs) as two real
 * processes on one ephemeral PostgreSQL cluster (a fresh database per test), fed by the REAL
 * OpenTelemetry exporters (test/support/OtlpAgent.ts) whose batches of two alternate between the
 * replicas, so every trace's spans and log records arrive through both:
 * - each trace becomes exactly one run, whose trace is the one a single replica makes of the same
 *   agent run sent whole (the spans from both replicas), and completion is claimed once although
 *   two replicas' assembly loops race every 333 ms (their trace counters sum to the traces); the
 *   replicas that take the spans complete nothing (an hour's quiet window), two others started
 *   after them find every trace due at once, so no trace is completed between its batches;
 * - a replica SIGKILLed while spans it took are pending: another completes them, and the traces
 *   the killed one had claimed (its claim put in the store as it would have) once that lease lapses
 *   (the test lapses it, as it lapses time: Assembly.ts's CLAIM_LEASE is a fixed 60 s).
 * Same SVC_REDACT_KEY on both, so their redaction placeholders agree.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "@effect/vitest"
import type { RunExport } from "../../src/Contract/RunsContract.js"
import { runAgent } from "../support/OtlpAgent.js"
import { type Cluster, startCluster } from "../support/Postgres.js"
import { type ProviderDouble, startProviderDouble } from "../support/ProviderDouble.js"
import { type Spawned, spawnService } from "../support/Spawned.js"
import { buildTrace, exportedRuns, metricTotal, tracesRequest, until } from "./support.js"

let cluster: Cluster
let double: ProviderDouble
const replicas: Array<Spawned> = []

beforeAll(async () => {
  const [started, providers] = await Promise.all([startCluster(), startProviderDouble()])
  cluster = started
  double = providers
}, 60_000)
afterEach(async () => {
  for (const replica of replicas.splice(0)) {
    if (replica.child.exitCode === null && replica.child.signalCode === null) {
      replica.child.kill("SIGKILL")
      await replica.exited
    }
  }
})
afterAll(async () => {
  await double.close()
  cluster.close()
})

const REDACT_KEY = "otlp-replicas-test-redaction-key-0123456789"

/** A replica on `database`: no workers (the runs stay queued), every complete trace a run, short assembly. */
const replica = async (database: string, env: Record<string, string> = {}): Promise<Spawned> => {
  const spawned = await spawnService(double.url, {
    SVC_DATABASE_URL: database,
    SVC_WORKERS: "0",
    SVC_OTLP_QUIET_SECONDS: "1",
    SVC_OTLP_DIAGNOSE: "all",
    SVC_REDACT_KEY: REDACT_KEY,
    ...env
  })
  replicas.push(spawned)
  return spawned
}

/** A replica that takes spans and completes nothing within a test (an hour's quiet window), and stops at once. */
const RECEIVING = { SVC_OTLP_QUIET_SECONDS: "3600", SVC_DRAIN_DELAY_SECONDS: "0" }

/** The database's name in a cluster URL. */
const nameOf = (url: string): string => new URL(url).pathname.slice(1)

const metricsOf = async (spawned: Spawned): Promise<string> => (await fetch(`${spawned.url}/metrics`)).text()

/** What a run's trace says, without the times and ids that differ between two runs of the agent. */
const shapeOf = (run: RunExport) => run.trace.events.map((event) => [event.kind, event.role, event.actor, event.tool ?? "", event.content])

const runsOf = async (url: string, traceIds: ReadonlyArray<string>): Promise<Map<string, Array<RunExport>>> => {
  const byTrace = new Map<string, Array<RunExport>>(traceIds.map((id) => [id, []]))
  for (const run of await exportedRuns(url)) {
    const list = run.run.trace_id === null ? undefined : byTrace.get(run.run.trace_id)
    list?.push(run)
  }
  return byTrace
}

describe("OTLP in, two replicas on one PostgreSQL (the built service, the real exporters)", () => {
  it("one run per trace whose batches went to both replicas, holding the spans of both; completion claimed once", async () => {
    const database = cluster.freshDatabase()
    // Receiving: two replicas that complete nothing while the spans arrive (quiet windows of an
    // hour; with 1 s, a loaded machine's agent paused longer between a trace's batches, and the
    // trace completed without its last spans)
    const [one, two] = await Promise.all([replica(database, RECEIVING), replica(database, RECEIVING)])
    // the same agent run sent whole to one replica: what a trace's run holds
    const whole = await runAgent({ endpoint: one.url })
    // six traces, batches of two spans (and of two log records) alternating between the replicas
    const split = await runAgent({ endpoint: one.url, secondEndpoint: two.url, batchSize: 2, traces: 6 })
    for (const outcome of [whole, split]) expect(outcome.exports.filter((call) => !call.ok)).toEqual([])
    expect(split.exports.filter((call) => call.signal === "traces").length).toBeGreaterThanOrEqual(split.spans / 2)
    const traceIds = [...whole.traceIds, ...split.traceIds]
    expect(new Set(traceIds).size).toBe(7)
    // both replicas took spans and log records; together, every one of them, none late
    const [metricsOne, metricsTwo] = await Promise.all([metricsOf(one), metricsOf(two)])
    const accepted = (text: string, signal: string) => metricTotal(text, "svc_otlp_items_total", { signal, outcome: "accepted" })
    const late = (text: string) => metricTotal(text, "svc_otlp_items_total", { outcome: "late" })
    expect(accepted(metricsTwo, "traces")).toBeGreaterThan(0)
    expect(accepted(metricsOne, "traces") + accepted(metricsTwo, "traces")).toBe(whole.spans + split.spans)
    expect(accepted(metricsOne, "logs") + accepted(metricsTwo, "logs")).toBe(whole.logs + split.logs)
    expect(late(metricsOne) + late(metricsTwo)).toBe(0)
    for (const receiver of [one, two]) receiver.child.kill("SIGTERM")
    for (const receiver of [one, two]) expect((await receiver.exited).code).toBe(0)

    // Completing: two replicas whose 1 s quiet windows find all seven traces due at once, both
    // assembly loops racing (every 333 ms) to complete them
    const [three, four] = await Promise.all([replica(database), replica(database)])
    await until("a run for each of the 7 traces", async () => [...(await runsOf(four.url, traceIds)).values()].every((runs) => runs.length > 0), 60_000)
    // Later rounds of both loops, shown by a later trace's run (sent whole, in one request, and
    // completed a quiet window after it): a second run of any of the 7 would have been made by then.
    const later = buildTrace(process.pid % 65_536, 1, 2)
    expect((await fetch(`${three.url}/v1/traces`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(tracesRequest(later.spans)) })).status).toBe(200)
    await until("a run of the later trace", async () => [...(await runsOf(four.url, [later.traceId])).values()].every((runs) => runs.length > 0), 60_000)
    const byTrace = await runsOf(three.url, traceIds)
    const [reference] = byTrace.get(whole.traceIds[0] ?? "") ?? []
    if (reference === undefined) throw new Error("no run of the whole trace")
    expect(reference.run.source).toBe("otlp")
    expect(reference.trace.events.length).toBeGreaterThan(5)
    for (const id of split.traceIds) {
      const runs = byTrace.get(id) ?? []
      expect(runs, id).toHaveLength(1)
      const [run] = runs
      if (run === undefined) continue
      expect(run.run.source).toBe("otlp")
      expect(run.run.labels).toMatchObject({ service: "weather-agent", agent: "weather_agent" })
      expect(shapeOf(run), id).toEqual(shapeOf(reference))
    }

    // each trace completed by one replica, once: the completing replicas' completions sum to the
    // traces (the 7 and the later one)
    const [metricsThree, metricsFour] = await Promise.all([metricsOf(three), metricsOf(four)])
    expect(accepted(metricsThree, "traces") + accepted(metricsFour, "traces")).toBe(later.spans.length)
    expect(late(metricsThree) + late(metricsFour)).toBe(0)
    expect(metricTotal(metricsThree, "svc_otlp_traces_total") + metricTotal(metricsFour, "svc_otlp_traces_total")).toBe(8)
    // and the store agrees: eight traces done, each with its run, none late, no span left
    const rows = cluster.psql(nameOf(database), "SELECT state, COUNT(*), SUM(late), COUNT(run_id) FROM otlp_traces GROUP BY state")
    expect(rows.trim()).toBe("done|8|0|8")
    expect(cluster.psql(nameOf(database), "SELECT COUNT(*) FROM otlp_items").trim()).toBe("0")
  }, 120_000)

  it("a replica SIGKILLed with pending spans: the other completes them, and what it had claimed once the claim lapses", async () => {
    const database = cluster.freshDatabase()
    // While the spans arrive and the replica is killed, no trace completes: both replicas' quiet
    // windows are an hour (with a short one, a loaded machine's slow agent let the survivor complete
    // traces before the check after the kill).
    const [doomed, receiver] = await Promise.all([replica(database, RECEIVING), replica(database, RECEIVING)])
    const sent = await runAgent({ endpoint: doomed.url, secondEndpoint: receiver.url, batchSize: 2, traces: 4 })
    expect(sent.exports.filter((call) => !call.ok)).toEqual([])
    doomed.child.kill("SIGKILL")
    expect((await doomed.exited).signal).toBe("SIGKILL")
    const database_ = nameOf(database)
    const open = cluster.psql(database_, "SELECT COUNT(*) FROM otlp_traces WHERE state = 'open'").trim()
    expect(open, "every trace still pending when the replica died").toBe("4")
    // the dead replica had claimed two of them just before it died, as its assembly does; the
    // lease holds until the test lapses it below
    const [claimedA, claimedB, ...unclaimed] = sent.traceIds
    const claimed = `trace_id IN ('${claimedA}', '${claimedB}')`
    cluster.psql(database_, `UPDATE otlp_traces SET state = 'claimed', lease_owner = 'killed-replica', lease_until = ${Date.now() + 3_600_000} WHERE ${claimed}`)
    // a third replica, completing a trace 1 s after its last span, takes over the dead one's pending
    // spans (the receiver, alive, would complete them only after its hour)
    const survivor = await replica(database)
    // meanwhile, the same agent run sent whole to the survivor: what a trace's run holds
    const whole = await runAgent({ endpoint: survivor.url })
    const traceIds = [...sent.traceIds, ...whole.traceIds]
    const free = [...unclaimed, ...whole.traceIds]
    await until("a run for each of the 3 unclaimed traces", async () => [...(await runsOf(survivor.url, free)).values()].every((runs) => runs.length > 0), 40_000)
    // the claimed ones wait for their lease: still claimed, no run, when the others have theirs
    expect(cluster.psql(database_, `SELECT state, COUNT(*), COUNT(run_id) FROM otlp_traces WHERE ${claimed} GROUP BY state`).trim()).toBe("claimed|2|0")
    const leaseUntil = Date.now()
    cluster.psql(database_, `UPDATE otlp_traces SET lease_until = ${leaseUntil} WHERE ${claimed}`)
    await until("a run for each of the 5 traces", async () => [...(await runsOf(survivor.url, traceIds)).values()].every((runs) => runs.length > 0), 40_000)
    const byTrace = await runsOf(survivor.url, traceIds)
    const [reference] = byTrace.get(whole.traceIds[0] ?? "") ?? []
    if (reference === undefined) throw new Error("no run of the whole trace")
    for (const id of sent.traceIds) {
      const runs = byTrace.get(id) ?? []
      expect(runs, id).toHaveLength(1)
      const [run] = runs
      if (run !== undefined) expect(shapeOf(run), id).toEqual(shapeOf(reference))
    }
    const submittedAt = (id: string | undefined) => Date.parse(byTrace.get(id ?? "")?.[0]?.run.submitted_at ?? "")
    // the claimed ones waited for the lease; the others did not
    expect(submittedAt(claimedA)).toBeGreaterThanOrEqual(leaseUntil)
    expect(submittedAt(claimedB)).toBeGreaterThanOrEqual(leaseUntil)
    for (const id of unclaimed) expect(submittedAt(id)).toBeLessThan(leaseUntil)
    expect(cluster.psql(database_, "SELECT state, COUNT(*), COUNT(run_id) FROM otlp_traces GROUP BY state").trim()).toBe("done|5|5")
  }, 120_000)
})
