/**
 * Runs (DECISIONS §17, docs/runs.md) against the built service, with the scenarios of
 * bench/runs-scenarios.ts (test/runs/bench.test.ts runs the same at CI size, for correctness):
 * 1. 10,000 distinct small traces queued (SVC_WORKERS=0, a fresh SVC_HOME) in JSON Lines bodies of
 *    100, 4 bodies at a time, until every 202 came back; every run then listed back queued. The
 *    baseline, in the same service and run: `POST /v1/traces/normalize` of the same bodies (the
 *    same edge, JSON Lines reading, importer and limits; what submitting adds is redaction, the
 *    dedupe key and the store), the mean of a pass before and a pass after the runs.
 * 2. The store's bytes per queued run: svc.db and svc.db-wal as SIGTERM left them, over 10,000,
 *    against one trace's JSON; also after the bench checkpointed the WAL into svc.db.
 * 3. Workers against diagnose: 64 traces, quick, `patterns=lewin` (one model call each), the
 *    provider double answering after 200 ms, SVC_CACHE=off, in one service with SVC_WORKERS=8:
 *    `POST /v1/diagnose` 8 at a time (first sent to last answer) against the same traces submitted
 *    as runs (the 202 of the one submission, when all are queued, to the last run's `finished_at`;
 *    the workers already running and polling the empty queue every second, so the first poll's
 *    wait is counted). Ratio diagnose / runs, median of BENCH_ROUNDS (default 3) rounds; then the
 *    store's bytes per done run, its report in it.
 *
 * BENCH_ONLY=runs-queue or runs-workers runs one part (1 and 2, or 3).
 * Writes bench/results/runs-<time>.json, and bench/results/runs-latest.json when both parts ran
 * (bench/results/latest.json is bench/run.ts's full run; no other bench file writes into it).
 *
 *   npx tsx bench/runs.ts   (part of `npm run bench`, which builds first; BENCH_ONLY=runs runs it alone;
 *   BENCH_RUNS_SERVER=/path/to/server.mjs measures another build)
 */
import { join } from "node:path"
import { queueRuns, RUN_QUERY, type StoreFiles, workerThroughput } from "./runs-scenarios.js"
import { machineOf, median, round2, type Row, writeResults, START_FLAGS } from "./support.js"

const repo = join(import.meta.dirname, "..")
const ONLY = new Set((process.env["BENCH_ONLY"] ?? "").split(",").map((name) => name.trim()).filter((name) => name.length > 0))
const SERVER = process.env["BENCH_RUNS_SERVER"] ?? join(repo, "dist", "server.mjs")
/** The node flags `npm start` runs the service with, so the bench measures what users run. */
const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 3)
const RUNS = 10_000
const PER_BODY = 100
const PARALLEL = 4
const TRACES = 64
const WORKERS = 8
const LATENCY_MS = 200

const KiB = 1024

/** The store's own numbers, for a row's detail. */
const storeDetail = (store: StoreFiles, runs: number): Record<string, number | string> => ({
  db_bytes: store.db,
  wal_bytes: store.wal,
  shm_bytes: store.shm,
  exit_on_sigterm: store.exit,
  checkpointed_bytes_per_run: Math.round(store.checkpointed / runs),
  stored_request_bytes_per_run: Math.round(store.requestBytes),
  stored_report_bytes_per_run: Math.round(store.reportBytes),
  stored_lines_bytes_per_run: Math.round(store.linesBytes)
})

/** BENCH_ONLY=runs (or empty) runs both parts; runs-queue or runs-workers one of them. */
const wants = (part: string) => ONLY.size === 0 || ONLY.has("runs") || ONLY.has(part)

/** 1 and 2: 10,000 runs queued, then the store's size. */
const queueRows = async (): Promise<Array<Row>> => {
  const rows: Array<Row> = []
  const queued = await queueRuns({ server: SERVER, flags: START_FLAGS, runs: RUNS, perBody: PER_BODY, parallel: PARALLEL })
  const normalizeMs = (queued.normalizeMs[0] + queued.normalizeMs[1]) / 2
  const allQueued = queued.accepted === RUNS && queued.rejected === 0 && queued.listedQueued === RUNS && queued.normalized === RUNS
  const queueScenario = `queue ${RUNS.toLocaleString("en")} runs: POST /v1/runs?${RUN_QUERY}, JSON Lines bodies of ${PER_BODY} traces ` +
    `(${Math.round(queued.bodyBytes / KiB)} KiB each, under SVC_API_MAX_BODY_BYTES 5 MiB), ${PARALLEL} bodies at a time, SVC_WORKERS=0, fresh SVC_HOME; ` +
    `baseline: POST /v1/traces/normalize of the same bodies, same service`
  const queueDetail = {
    bodies: queued.bodies,
    normalize_passes_s: queued.normalizeMs.map((ms) => round2(ms / 1000)).join(" "),
    accepted: queued.accepted,
    rejected: queued.rejected,
    listed_queued: queued.listedQueued,
    list_pages: queued.listPages,
    list_ms_per_page: round2(queued.listMs / queued.listPages)
  }
  rows.push({
    scenario: queueScenario,
    metric: `s to queue ${RUNS.toLocaleString("en")}`,
    service: round2(queued.queueMs / 1000),
    baseline: round2(normalizeMs / 1000),
    ratio: round2(queued.queueMs / normalizeMs),
    goal: "all queued and listed (measured)",
    met: allQueued,
    detail: queueDetail
  })
  rows.push({
    scenario: `queue ${RUNS.toLocaleString("en")} runs (as above); baseline: traces normalized per second`,
    metric: "runs/s",
    service: Math.round(RUNS / (queued.queueMs / 1000)),
    baseline: Math.round(RUNS / (normalizeMs / 1000)),
    ratio: round2(normalizeMs / queued.queueMs),
    goal: "all queued and listed (measured)",
    met: allQueued
  })
  rows.push({
    scenario: `store per queued run: (svc.db + svc.db-wal after SIGTERM) / ${RUNS.toLocaleString("en")}; baseline: one trace's JSON`,
    metric: "bytes per run",
    service: Math.round(queued.store.total / RUNS),
    baseline: Math.round(queued.traceBytes),
    ratio: round2(queued.store.total / RUNS / queued.traceBytes),
    goal: "measured",
    met: null,
    detail: storeDetail(queued.store, RUNS)
  })

  return rows
}

/** 3: workers against diagnose, then the store with reports. */
const workerRows = async (): Promise<Array<Row>> => {
  const rows: Array<Row> = []
  const throughput = await workerThroughput({ server: SERVER, flags: START_FLAGS, traces: TRACES, workers: WORKERS, latencyMs: LATENCY_MS, rounds: ROUNDS })
  const ratios = throughput.rounds.map((round) => round.diagnoseMs / round.runsMs)
  const ratio = median(ratios)
  const sameCalls = throughput.rounds.every((round) => round.diagnoseCalls === TRACES && round.runsCalls === TRACES)
  const allDone = throughput.rounds.every((round) => round.done === TRACES)
  rows.push({
    scenario: `${TRACES} traces, ${RUN_QUERY} (one model call each), double ${LATENCY_MS} ms per call, SVC_CACHE=off, one service: ` +
      `runs with SVC_WORKERS=${WORKERS} (from the 202, all queued, workers already polling the empty queue every 1 s, to the last finished_at) ` +
      `vs POST /v1/diagnose ${WORKERS} at a time (first sent to last answer); ratio = diagnose / runs, median of ${ROUNDS} rounds`,
    metric: `s for ${TRACES} traces`,
    service: round2(median(throughput.rounds.map((round) => round.runsMs)) / 1000),
    baseline: round2(median(throughput.rounds.map((round) => round.diagnoseMs)) / 1000),
    ratio: round2(ratio),
    goal: ">= 0.9x, same model calls, all done",
    met: ratio >= 0.9 && sameCalls && allDone,
    detail: {
      ratios: ratios.map(round2).join(" "),
      runs_s: throughput.rounds.map((round) => round2(round.runsMs / 1000)).join(" "),
      diagnose_s: throughput.rounds.map((round) => round2(round.diagnoseMs / 1000)).join(" "),
      first_claim_ms: throughput.rounds.map((round) => Math.round(round.firstClaimMs)).join(" "),
      first_claim_to_done_s: throughput.rounds.map((round) => round2(round.claimedToDoneMs / 1000)).join(" "),
      submit_ms: throughput.rounds.map((round) => Math.round(round.submitMs)).join(" "),
      model_calls_diagnose: throughput.rounds.map((round) => round.diagnoseCalls).join(" "),
      model_calls_runs: throughput.rounds.map((round) => round.runsCalls).join(" "),
      service_cpu_ms_per_diagnose: throughput.rounds.map((round) => round2(round.diagnoseCpuMs / TRACES)).join(" "),
      service_cpu_ms_per_run: throughput.rounds.map((round) => round2(round.runsCpuMs / TRACES)).join(" "),
      ideal_s: round2(Math.ceil(TRACES / WORKERS) * LATENCY_MS / 1000)
    }
  })
  rows.push({
    scenario: `store per done run, its report in it: (svc.db + svc.db-wal after SIGTERM) / ${throughput.runs} runs of (3); baseline: one trace's JSON`,
    metric: "bytes per run",
    service: Math.round(throughput.store.total / throughput.runs),
    baseline: Math.round(throughput.traceBytes),
    ratio: round2(throughput.store.total / throughput.runs / throughput.traceBytes),
    goal: "measured",
    met: null,
    detail: { ...storeDetail(throughput.store, throughput.runs), report_json_bytes: throughput.reportBytes }
  })
  return rows
}

const main = async () => {
  if (!wants("runs-queue") && !wants("runs-workers")) return
  const started = new Date()
  const rows: Array<Row> = [
    ...(wants("runs-queue") ? await queueRows() : []),
    ...(wants("runs-workers") ? await workerRows() : [])
  ]
  const report = { started: started.toISOString(), scenario: "runs", rounds: ROUNDS, machine: machineOf(), rows }
  // runs-latest.json is the whole file's run (docs/performance.md records it); a part alone does not replace it.
  writeResults(report, "runs-", wants("runs-queue") && wants("runs-workers") ? "runs-latest.json" : undefined)
}

main().then(() => process.exit(0), (error: unknown) => {
  console.error(error)
  process.exit(1)
})
