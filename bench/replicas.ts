/**
 * Runs across replicas (DECISIONS §17, docs/operations.md "Several replicas"): one PostgreSQL
 * cluster (test/support/Postgres.ts, as the tests start it), the provider double answering each
 * model call after 200 ms, SVC_CACHE=off. Per scenario, on a fresh database:
 * 1. RUNS distinct small traces (bench/runs-scenarios.ts' smolagentsRecord), `mode=quick&patterns=lewin`
 *    (one model call each), queued through a replica with SVC_WORKERS=0, which is then stopped;
 * 2. the queue drained by (a) one replica, (b) REPLICAS replicas, each with SVC_WORKERS=WORKERS,
 *    started together once everything is queued; done when nothing is queued or running.
 * Measured: runs per second over the drain (the first run's `started_at` to the last one's
 * `finished_at`; also from the replicas' launch), the ratio (b) / (a) (goal >= 2x); queue latency
 * p50/p99 as `started_at - submitted_at` (the svc_run_queue_seconds definition: submission to
 * claim; every run was queued before the replicas started, so it includes that fixed offset, given
 * in the detail, and the drain's own wait); the cluster's CPU time (postmaster and backends, from
 * /proc, the exited backends' through the postmaster's cutime/cstime) over the drain, per run; the
 * replicas', the double's and the bench's CPU beside it; the store's bytes per run
 * (`pg_total_relation_size('runs')`) and `pg_database_size`.
 *
 * Writes bench/results/replicas-<time>.json and replicas-latest.json.
 *
 *   npx tsx bench/replicas.ts   (part of `npm run bench`, which builds first;
 *   BENCH_REPLICAS_SERVER=/path/to/server.mjs measures another build)
 */
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import { Agent } from "node:http"
import type { Run } from "../src/Contract/RunsContract.js"
import { type Cluster, startCluster } from "../test/support/Postgres.js"
import { decodeList, decodeSubmitted, expectStatus, inParallel, jsonLines, listAll, RUN_QUERY, send, smolagentsRecord, terminate } from "./runs-scenarios.js"
import { cpuMsOf, launchService, type LaunchedService, machineOf, round2, type Row, startDouble, writeResults, START_FLAGS } from "./support.js"

const repo = join(import.meta.dirname, "..")
const SERVER = process.env["BENCH_REPLICAS_SERVER"] ?? join(repo, "dist", "server.mjs")
/** The node flags `npm start` runs the service with, so the bench measures what users run. */
const RUNS = 240
const WORKERS = 4
const REPLICAS = 3
const LATENCY_MS = 200
const PER_BODY = 60

/** /proc/<pid>/stat's fields after the command: [state, ppid, …]; utime is index 11, cutime 13 (clock ticks of 10 ms). */
const statFields = (pid: string): ReadonlyArray<string> | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  } catch {
    return undefined // gone meanwhile
  }
}

const cmdline = (pid: string): string => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8")
  } catch {
    return ""
  }
}

/**
 * The cluster's CPU time so far, ms: the postmaster's own and its exited children's (cutime +
 * cstime: backends of closed connections), plus every live child's (backends, checkpointer,
 * walwriter, autovacuum...). The postmaster is the `postgres` process started with `-p <port>`.
 */
const clusterCpuMs = (port: number): { readonly ms: number; readonly processes: number } => {
  const pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name))
  const postmaster = pids.find((pid) => {
    const args = cmdline(pid).split("\0")
    return /\/postgres$/.test(args[0] ?? "") && args.some((arg, i) => arg === "-p" && args[i + 1] === String(port))
  })
  if (postmaster === undefined) throw new Error(`no postmaster on port ${port}`)
  const own = statFields(postmaster) ?? []
  let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14])
  let processes = 1
  for (const pid of pids) {
    const fields = statFields(pid)
    if (fields?.[1] !== postmaster) continue
    ticks += Number(fields[11]) + Number(fields[12])
    processes += 1
  }
  return { ms: ticks * 10, processes }
}

/** The machine's CPU time so far, ms over all cores: busy (everything but idle and iowait) and total, from /proc/stat (ticks of 10 ms). */
const machineCpuMs = (): { readonly busy: number; readonly total: number } => {
  const line = readFileSync("/proc/stat", "utf8").split("\n")[0] ?? ""
  const ticks = line.trim().split(/\s+/).slice(1, 9).map(Number)
  const total = ticks.reduce((sum, tick) => sum + tick, 0)
  return { busy: (total - (ticks[3] ?? 0) - (ticks[4] ?? 0)) * 10, total: total * 10 }
}

const quantile = (xs: ReadonlyArray<number>, q: number): number => {
  const sorted = xs.slice().sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN
}

const timeOf = (iso: string | null): number => (iso === null ? Number.NaN : Date.parse(iso))

/** The service's environment here: the shared database, no drain delay, no cache (every run makes its model call). */
const serviceEnv = (databaseUrl: string, workers: number, doubleUrl: string): Record<string, string> => ({
  SVC_DATABASE_URL: databaseUrl,
  SVC_WORKERS: String(workers),
  SVC_DRAIN_DELAY_SECONDS: "0",
  SVC_CACHE: "off",
  ANTHROPIC_API_KEY: "sk-bench-0123456789",
  ANTHROPIC_BASE_URL: doubleUrl
})

interface Drain {
  readonly replicas: number
  /** Runs accepted, ended done, and runs that needed more than one attempt. */
  readonly accepted: number
  readonly done: number
  readonly retried: number
  readonly modelCalls: number
  /** First started_at to last finished_at, ms; the replicas' launch to the last finished_at, ms. */
  readonly drainMs: number
  readonly fromLaunchMs: number
  /** The replicas' launch to the first started_at (their start-up), ms. */
  readonly firstClaimMs: number
  /** The last submitted_at to the replicas' launch (the queue's fixed wait before any worker existed), ms. */
  readonly offsetMs: number
  readonly submitMs: number
  readonly queueP50Ms: number
  readonly queueP99Ms: number
  readonly finishP50Ms: number
  readonly finishP99Ms: number
  /** One replica's CPU from spawn to ready (the submitter's, without workers), ms. */
  readonly startCpuMs: number
  /** The machine's busy CPU over the launch-to-done window (every process, the other users' too) and its capacity, ms. */
  readonly machineBusyMs: number
  readonly machineTotalMs: number
  /** CPU time over the launch-to-done window, ms. */
  readonly postgresCpuMs: number
  readonly postgresProcesses: number
  readonly replicasCpuMs: number
  readonly doubleCpuMs: number
  readonly benchCpuMs: number
  readonly runsBytes: number
  readonly databaseBytes: number
  readonly emptyDatabaseBytes: number
  readonly storedRuns: number
  readonly traceBytes: number
  readonly startMs: ReadonlyArray<number>
}

/** One scenario: RUNS queued on a fresh database, then drained by `replicas` replicas of WORKERS workers. */
const drain = async (cluster: Cluster, double: Awaited<ReturnType<typeof startDouble>>, replicas: number): Promise<Drain> => {
  const databaseUrl = cluster.freshDatabase()
  const database = new URL(databaseUrl).pathname.slice(1)
  // a new database is a copy of template1, not empty: its size before the service migrates it
  const emptyBytes = Number(cluster.psql(database, "SELECT pg_database_size(current_database())").trim())
  const records = Array.from({ length: RUNS }, (_, i) => smolagentsRecord(i, `replicas-${replicas}`))
  const bodies = Array.from({ length: Math.ceil(RUNS / PER_BODY) }, (_, b) => jsonLines(records.slice(b * PER_BODY, (b + 1) * PER_BODY)))

  // 1. queued through a replica without workers, then stopped
  const submitter = await launchService(SERVER, START_FLAGS, serviceEnv(databaseUrl, 0, double.url))
  const startCpuMs = cpuMsOf(submitter.child.pid)
  const submitAgent = new Agent({ keepAlive: true, maxSockets: 2 })
  const submitStarted = performance.now()
  const answers = await inParallel(bodies.length, 2, (b) =>
    send(submitAgent, "POST", `${submitter.url}/v1/runs?${RUN_QUERY}`, { text: bodies[b] ?? "", contentType: "application/x-ndjson" }))
  const submitMs = performance.now() - submitStarted
  submitAgent.destroy()
  expectStatus("POST /v1/runs", answers, 202)
  const ids = new Set(answers.flatMap((answer) => decodeSubmitted(answer.text).runs.map((run) => run.id)))
  await terminate(submitter.child)

  // 2. the replicas, started together on the queue
  const callsBefore = await double.calls()
  const doubleBefore = cpuMsOf(double.child.pid)
  const benchBefore = process.cpuUsage()
  const postgresBefore = clusterCpuMs(cluster.port)
  const machineBefore = machineCpuMs()
  const launchedAt = Date.now()
  const services: Array<LaunchedService> = await Promise.all(Array.from({ length: replicas }, () =>
    launchService(SERVER, START_FLAGS, serviceEnv(databaseUrl, WORKERS, double.url))))
  const agent = new Agent({ keepAlive: true, maxSockets: 2 })
  try {
    const first = services[0]
    if (first === undefined) throw new Error("no replica")
    const none = async (status: string) => {
      const page = await send(agent, "GET", `${first.url}/v1/runs?status=${status}&limit=1`)
      expectStatus("GET /v1/runs", [page], 200)
      return decodeList(page.text).runs.length === 0
    }
    const deadline = Date.now() + 300_000
    // light polls (one row each) of one replica: none queued, then none running
    while (!((await none("queued")) && (await none("running")))) {
      if (Date.now() > deadline) throw new Error("runs not done after 300 s")
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    const postgresAfter = clusterCpuMs(cluster.port)
    const machineAfter = machineCpuMs()
    const replicasCpuMs = services.reduce((sum, service) => sum + cpuMsOf(service.child.pid), 0)
    const doubleAfter = cpuMsOf(double.child.pid)
    const bench = process.cpuUsage(benchBefore)
    const callsAfter = await double.calls()
    const listed: ReadonlyArray<Run> = (await listAll(agent, first.url, "")).runs.filter((run) => ids.has(run.id))
    if (listed.length !== ids.size) throw new Error(`GET /v1/runs: ${listed.length} of the ${ids.size} runs listed`)
    const started = listed.map((run) => timeOf(run.started_at))
    const finished = listed.map((run) => timeOf(run.finished_at))
    const submitted = listed.map((run) => timeOf(run.submitted_at))
    const waited = listed.map((run) => timeOf(run.started_at) - timeOf(run.submitted_at))
    const ended = listed.map((run) => timeOf(run.finished_at) - timeOf(run.submitted_at))
    const firstStart = Math.min(...started)
    const lastFinish = Math.max(...finished)
    const sizes = cluster.psql(database, "SELECT pg_total_relation_size('runs') || ' ' || pg_database_size(current_database()) || ' ' || count(*) FROM runs")
      .trim().split(" ").map(Number)
    return {
      replicas,
      accepted: ids.size,
      done: listed.filter((run) => run.status === "done").length,
      retried: listed.filter((run) => run.attempts > 1).length,
      modelCalls: callsAfter - callsBefore,
      drainMs: lastFinish - firstStart,
      fromLaunchMs: lastFinish - launchedAt,
      firstClaimMs: firstStart - launchedAt,
      offsetMs: launchedAt - Math.max(...submitted),
      submitMs,
      queueP50Ms: quantile(waited, 0.5),
      queueP99Ms: quantile(waited, 0.99),
      finishP50Ms: quantile(ended, 0.5),
      finishP99Ms: quantile(ended, 0.99),
      startCpuMs,
      machineBusyMs: machineAfter.busy - machineBefore.busy,
      machineTotalMs: machineAfter.total - machineBefore.total,
      postgresCpuMs: postgresAfter.ms - postgresBefore.ms,
      postgresProcesses: postgresAfter.processes,
      replicasCpuMs,
      doubleCpuMs: doubleAfter - doubleBefore,
      benchCpuMs: (bench.user + bench.system) / 1000,
      runsBytes: sizes[0] ?? Number.NaN,
      databaseBytes: sizes[1] ?? Number.NaN,
      emptyDatabaseBytes: emptyBytes,
      storedRuns: sizes[2] ?? Number.NaN,
      traceBytes: records.reduce((sum, record) => sum + Buffer.byteLength(JSON.stringify(record)), 0) / records.length,
      startMs: services.map((service) => Math.round(service.startedMs))
    }
  } finally {
    agent.destroy()
    await Promise.all(services.map((service) => terminate(service.child)))
  }
}

const perSecond = (result: Drain) => result.accepted / (result.drainMs / 1000)

/** Where the drain's CPU went, for a row's detail. */
const cpuDetail = (result: Drain): Record<string, number | string> => ({
  replicas_cpu_ms_per_run: round2(result.replicasCpuMs / result.accepted),
  replicas_cpu_ms_per_run_without_start: round2((result.replicasCpuMs - result.replicas * result.startCpuMs) / result.accepted),
  replica_start_cpu_ms: result.startCpuMs,
  postgres_cpu_ms_per_run: round2(result.postgresCpuMs / result.accepted),
  double_cpu_ms_per_run: round2(result.doubleCpuMs / result.accepted),
  bench_cpu_ms_per_run: round2(result.benchCpuMs / result.accepted),
  ours_share_of_machine: round2((result.replicasCpuMs + result.postgresCpuMs + result.doubleCpuMs + result.benchCpuMs) / result.machineTotalMs),
  machine_busy_share: round2(result.machineBusyMs / result.machineTotalMs),
  others_share_of_machine: round2((result.machineBusyMs - result.replicasCpuMs - result.postgresCpuMs - result.doubleCpuMs - result.benchCpuMs) / result.machineTotalMs),
  replicas_cpu_ms_includes: "each replica's start-up (replica_start_cpu_ms each)",
  postgres_processes_at_end: result.postgresProcesses
})

const drainDetail = (result: Drain): Record<string, number | string> => ({
  accepted: result.accepted,
  done: result.done,
  more_than_one_attempt: result.retried,
  model_calls: result.modelCalls,
  drain_s: round2(result.drainMs / 1000),
  launch_to_done_s: round2(result.fromLaunchMs / 1000),
  runs_per_s_from_launch: round2(result.accepted / (result.fromLaunchMs / 1000)),
  launch_to_first_claim_ms: Math.round(result.firstClaimMs),
  replica_start_ms: result.startMs.join(" "),
  submit_ms: Math.round(result.submitMs),
  ideal_runs_per_s: round2(result.replicas * WORKERS / (LATENCY_MS / 1000)),
  ...cpuDetail(result)
})

const main = async () => {
  const started = new Date()
  const cluster = await startCluster()
  const version = cluster.psql("postgres", "SHOW server_version").trim().split(" ")[0] ?? "?"
  const double = await startDouble(LATENCY_MS)
  const results: Array<Drain> = []
  try {
    results.push(await drain(cluster, double, 1))
    results.push(await drain(cluster, double, REPLICAS))
  } finally {
    double.child.kill("SIGKILL")
    cluster.stop()
  }
  const [one, many] = results
  if (one === undefined || many === undefined) throw new Error("a scenario did not run")
  const allDone = results.every((result) => result.done === RUNS && result.accepted === RUNS && result.modelCalls === RUNS)
  const ratio = perSecond(many) / perSecond(one)
  const setup = `${RUNS} runs ${RUN_QUERY} (one model call each), double ${LATENCY_MS} ms per call, SVC_CACHE=off, one PostgreSQL ${version} cluster ` +
    `(fsync off), all queued first (a replica with SVC_WORKERS=0), then drained on a fresh database`
  const rows: Array<Row> = [
    {
      scenario: `${setup}: 1 replica with SVC_WORKERS=${WORKERS}; baseline: the double's bound (${WORKERS} workers / ${LATENCY_MS} ms)`,
      metric: "runs/s (first started_at to last finished_at)",
      service: round2(perSecond(one)),
      baseline: round2(WORKERS / (LATENCY_MS / 1000)),
      ratio: round2(perSecond(one) / (WORKERS / (LATENCY_MS / 1000))),
      goal: "all done, one model call each (measured)",
      met: one.done === RUNS && one.modelCalls === RUNS,
      detail: drainDetail(one)
    },
    {
      scenario: `${setup}: ${REPLICAS} replicas each with SVC_WORKERS=${WORKERS}; baseline: 1 replica (above)`,
      metric: "runs/s (first started_at to last finished_at)",
      service: round2(perSecond(many)),
      baseline: round2(perSecond(one)),
      ratio: round2(ratio),
      goal: ">= 2x, all done, one model call each",
      met: ratio >= 2 && allDone,
      detail: drainDetail(many)
    },
    {
      scenario: `queue latency p50, started_at - submitted_at (all queued before any worker; fixed offset last submit to launch: ` +
        `${round2(many.offsetMs / 1000)} s for ${REPLICAS}, ${round2(one.offsetMs / 1000)} s for 1): ${REPLICAS} replicas; baseline: 1 replica`,
      metric: "s",
      service: round2(many.queueP50Ms / 1000),
      baseline: round2(one.queueP50Ms / 1000),
      ratio: round2(many.queueP50Ms / one.queueP50Ms),
      goal: "measured",
      met: null,
      detail: { finished_minus_submitted_p50_s: `${round2(many.finishP50Ms / 1000)} (1 replica: ${round2(one.finishP50Ms / 1000)})` }
    },
    {
      scenario: `queue latency p99, started_at - submitted_at (as above): ${REPLICAS} replicas; baseline: 1 replica`,
      metric: "s",
      service: round2(many.queueP99Ms / 1000),
      baseline: round2(one.queueP99Ms / 1000),
      ratio: round2(many.queueP99Ms / one.queueP99Ms),
      goal: "measured",
      met: null,
      detail: { finished_minus_submitted_p99_s: `${round2(many.finishP99Ms / 1000)} (1 replica: ${round2(one.finishP99Ms / 1000)})` }
    },
    {
      scenario: `PostgreSQL's CPU (postmaster and backends, /proc) from the replicas' launch to the queue empty, per run: ${REPLICAS} replicas; baseline: 1 replica`,
      metric: "ms CPU per run",
      service: round2(many.postgresCpuMs / RUNS),
      baseline: round2(one.postgresCpuMs / RUNS),
      ratio: round2(many.postgresCpuMs / one.postgresCpuMs),
      goal: "measured",
      met: null
    },
    {
      scenario: `store per done run, its report in it: pg_total_relation_size('runs') / runs (${REPLICAS}-replica database); baseline: one trace's JSON`,
      metric: "bytes per run",
      service: Math.round(many.runsBytes / many.storedRuns),
      baseline: Math.round(many.traceBytes),
      ratio: round2(many.runsBytes / many.storedRuns / many.traceBytes),
      goal: "measured",
      met: null,
      detail: {
        runs_relation_bytes: many.runsBytes,
        database_bytes: many.databaseBytes,
        empty_database_bytes: many.emptyDatabaseBytes,
        database_growth_bytes_per_run: Math.round((many.databaseBytes - many.emptyDatabaseBytes) / many.storedRuns),
        database_bytes_1_replica: one.databaseBytes,
        runs_relation_bytes_1_replica: one.runsBytes,
        stored_runs: many.storedRuns
      }
    }
  ]
  writeResults({ started: started.toISOString(), scenario: "replicas", machine: machineOf(), rows }, "replicas-", "replicas-latest.json")
}

main().then(() => process.exit(0), (error: unknown) => {
  console.error(error)
  process.exit(1)
})
