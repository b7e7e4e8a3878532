/**
 * The runs scenarios (DECISIONS §17), shared by bench/runs.ts (bench size, timed) and
 * test/runs/bench.test.ts (CI size, correctness only), against a built service (bench/replicas.ts
 * uses its traces and requests):
 * - `queueRuns`: distinct small traces submitted as JSON Lines bodies to a service without workers
 *   (SVC_WORKERS=0) on a fresh SVC_HOME, a few bodies at a time, between two passes of the same
 *   bodies through `POST /v1/traces/normalize` (the same edge, reading and limits, without
 *   redaction, dedupe or the store); every run listed back with `GET /v1/runs?status=queued`; the
 *   service stopped with SIGTERM and its store's files measured.
 * - `workerThroughput`: the same traces diagnosed by `POST /v1/diagnose`, `workers` at a time, and
 *   as runs by `workers` workers, in the same service, round after round, against the provider
 *   double answering after `latencyMs`; then the store's files with the reports in them.
 * The traces are smolagents benchmark records (one run per JSON Lines record, the task its
 * `question`): a task, three failing tool calls, a final answer.
 */
import { createClient } from "@libsql/client/sqlite3"
import { Schema } from "effect"
import { type ChildProcess } from "node:child_process"
import { existsSync, mkdtempSync, statSync } from "node:fs"
import { Agent, request as httpRequest } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import { pathToFileURL } from "node:url"
import { type Run, RunList, RunWithReport, SubmitRunsResponse } from "../src/Contract/RunsContract.js"
import { BENCH_KEY, cpuMsOf, launchService, startDouble } from "./support.js"

/** A smolagents benchmark record: its question (the trace's task) carries `salt` and `i`, so each is another trace. */
export const smolagentsRecord = (i: number, salt: string) => {
  const invoice = `INV-${salt}-${i}`
  const question = `Reconcile invoice ${invoice} against ledger row ${i * 3} and report the difference in euros.`
  return {
    task_id: `${salt}-${i}`,
    model_id: "gpt-4o",
    agent_action_type: "tool-calling",
    question,
    answer: `Stopped: the ledger API answered 503 three times for ${invoice}.`,
    true_answer: (i * 17.5).toFixed(2),
    source: "bench",
    intermediate_steps: [
      { role: "user", content: [{ type: "text", text: `New task:\n${question}` }] },
      ...[0, 1, 2].flatMap((k) => [
        {
          role: "tool-call",
          content: [{ type: "text", text: `Calling tools:\n[{'id': 'call_${i}_${k}', 'type': 'function', 'function': {'name': 'ledger_lookup', 'arguments': {'invoice': '${invoice}'}}}]` }]
        },
        {
          role: "tool-response",
          content: [{ type: "text", text: `Call id: call_${i}_${k}\nError:\nLedger API answered 503 Service Unavailable for ${invoice}.\nNow let's retry: take care not to repeat previous errors!` }]
        }
      ]),
      { role: "assistant", content: [{ type: "text", text: `Tool call call_${i}_3: calling 'final_answer' with arguments: {'answer': 'Stopped after repeated ledger errors'}` }] }
    ],
    start_time: 1_757_349_617 + i,
    end_time: "2025-09-08 18:40:18",
    token_counts: { input: 1200, output: 80 }
  }
}

/** Records as a JSON Lines body. */
export const jsonLines = (records: ReadonlyArray<unknown>): string => records.map((record) => JSON.stringify(record)).join("\n")

/** The options every run and diagnose of these scenarios is given: one lens, one model call each. */
export const RUN_QUERY = "mode=quick&patterns=lewin"

export interface Answer {
  readonly status: number
  readonly text: string
}

/** One request with the bench key; the answer's status and text (status 0: no HTTP answer, the text is the socket error). */
export const send = (agent: Agent, method: string, url: string, body?: { readonly text: string; readonly contentType: string }) =>
  new Promise<Answer>((resolve) => {
    const headers: Record<string, string | number> = { authorization: `Bearer ${BENCH_KEY}` }
    if (body !== undefined) {
      headers["content-type"] = body.contentType
      headers["content-length"] = Buffer.byteLength(body.text)
    }
    const req = httpRequest(url, { method, agent, headers }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (chunk: Buffer) => chunks.push(chunk))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }))
    })
    req.on("error", (error: NodeJS.ErrnoException) => resolve({ status: 0, text: error.code ?? error.message }))
    req.end(body?.text)
  })

/** Runs `send(i)` for i < count, `concurrency` at a time; the answers in order. */
export const inParallel = async (count: number, concurrency: number, run: (i: number) => Promise<Answer>): Promise<Array<Answer>> => {
  const answers: Array<Answer> = []
  let next = 0
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, async () => {
    while (next < count) {
      const i = next++
      answers[i] = await run(i)
    }
  }))
  return answers
}

export const expectStatus = (what: string, answers: ReadonlyArray<Answer>, status: number) => {
  const wrong = answers.find((answer) => answer.status !== status)
  if (wrong !== undefined) throw new Error(`${what}: answered ${wrong.status}, not ${status}: ${wrong.text.slice(0, 300)}`)
}

export const decodeSubmitted = Schema.decodeUnknownSync(Schema.parseJson(SubmitRunsResponse))
export const decodeList = Schema.decodeUnknownSync(Schema.parseJson(RunList))
const decodeRun = Schema.decodeUnknownSync(Schema.parseJson(RunWithReport))
const NormalizedCount = Schema.parseJson(Schema.Union(
  Schema.Struct({ traces: Schema.Array(Schema.Unknown) }),
  Schema.Struct({ events: Schema.Number })
))
const decodeNormalized = Schema.decodeUnknownSync(NormalizedCount)

/** Every run the list answers for `query`, page by page (200 a page): the runs, pages and ms. */
export const listAll = async (agent: Agent, url: string, query: string) => {
  const runs: Array<Run> = []
  let cursor: string | null = null
  let pages = 0
  const started = performance.now()
  do {
    const after: string = cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`
    const answer = await send(agent, "GET", `${url}/v1/runs?limit=200${query}${after}`)
    expectStatus("GET /v1/runs", [answer], 200)
    const page = decodeList(answer.text)
    runs.push(...page.runs)
    cursor = page.next_cursor
    pages += 1
  } while (cursor !== null)
  return { runs, pages, ms: performance.now() - started }
}

/** Stops the service with SIGTERM (its drain, the store closed, so the WAL is checkpointed); SIGKILL after 20 s. */
export const terminate = (child: ChildProcess) =>
  new Promise<{ readonly code: number | null; readonly signal: string | null }>((resolve) => {
    if (child.exitCode !== null) return resolve({ code: child.exitCode, signal: null })
    const kill = setTimeout(() => child.kill("SIGKILL"), 20_000)
    child.once("exit", (code, signal) => {
      clearTimeout(kill)
      resolve({ code, signal })
    })
    child.kill("SIGTERM")
  })

export interface StoreFiles {
  /** svc.db, svc.db-wal and svc.db-shm as the stopped service left them, in bytes (0 when absent). */
  readonly db: number
  readonly wal: number
  readonly shm: number
  /** svc.db + svc.db-wal as left. */
  readonly total: number
  /** How the service exited on SIGTERM. */
  readonly exit: string
  /** svc.db alone after the bench checkpointed the WAL into it (`PRAGMA wal_checkpoint(TRUNCATE)`): the data's own size. */
  readonly checkpointed: number
  /** Runs in the store, and the mean bytes per run of its stored request (redacted trace and options), report and line map. */
  readonly runs: number
  readonly requestBytes: number
  readonly reportBytes: number
  readonly linesBytes: number
}

const sizeOf = (path: string): number => (existsSync(path) ? statSync(path).size : 0)

const numberAt = (row: ReadonlyArray<unknown> | undefined, index: number): number => {
  const value = row?.[index]
  return typeof value === "number" || typeof value === "bigint" ? Number(value) : 0
}

/**
 * The store's files as the stopped service left them, then opened by the bench: the WAL
 * checkpointed into svc.db and truncated, svc.db measured again, and what the runs hold.
 */
const storeFiles = async (home: string, exit: { readonly code: number | null; readonly signal: string | null }): Promise<StoreFiles> => {
  const file = join(home, "svc.db")
  const db = sizeOf(file)
  const wal = sizeOf(`${file}-wal`)
  const shm = sizeOf(`${file}-shm`)
  const client = createClient({ url: pathToFileURL(file).href })
  try {
    await client.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    const bytes = (column: string) => `coalesce(avg(length(CAST(${column} AS BLOB))), 0)`
    const result = await client.execute(`SELECT count(*), ${bytes("request")}, ${bytes("report")}, ${bytes("lines")} FROM runs`)
    const row = result.rows[0]
    const values = row === undefined ? undefined : Array.from({ length: 4 }, (_, i) => row[i])
    return {
      db,
      wal,
      shm,
      total: db + wal,
      exit: exit.signal ?? String(exit.code),
      checkpointed: sizeOf(file) + sizeOf(`${file}-wal`),
      runs: numberAt(values, 0),
      requestBytes: numberAt(values, 1),
      reportBytes: numberAt(values, 2),
      linesBytes: numberAt(values, 3)
    }
  } finally {
    client.close()
  }
}

/** The service's environment for these scenarios: no drain delay (SIGTERM stops at once), no cache. */
// every run's lenses run (SVC_EXPLAIN_SAMPLE=1): these scenarios measure the workers' model calls, not the explanation per problem of DECISIONS §24 (bench/explain.ts)
const baseEnv = (home: string): Record<string, string> => ({
  SVC_HOME: home,
  SVC_DRAIN_DELAY_SECONDS: "0",
  SVC_CACHE: "off",
  SVC_EXPLAIN_SAMPLE: "1",
  SVC_EXPLAIN_MAX_PER_DAY: "100000"
})

export interface QueueOptions {
  /** A built dist/server.mjs, and the node flags to run it with. */
  readonly server: string
  readonly flags: ReadonlyArray<string>
  readonly runs: number
  readonly perBody: number
  /** Bodies in flight at once. */
  readonly parallel: number
}

export interface QueueResult {
  readonly bodies: number
  /** The largest body, bytes. */
  readonly bodyBytes: number
  /** One record's JSON, bytes (the mean). */
  readonly traceBytes: number
  /** POST /v1/runs of every body, ms. */
  readonly queueMs: number
  /** POST /v1/traces/normalize of every body, before and after the runs, ms. */
  readonly normalizeMs: readonly [number, number]
  /** Runs the 202 answers named (distinct ids), and traces they refused. */
  readonly accepted: number
  readonly rejected: number
  /** Traces the normalize answers held, per pass. */
  readonly normalized: number
  /** Runs `GET /v1/runs?status=queued` listed, all of them among the accepted. */
  readonly listedQueued: number
  readonly listPages: number
  readonly listMs: number
  readonly store: StoreFiles
  readonly home: string
}

/** Scenario 1 (and 2): `runs` traces queued by a service without workers, then the store's size. */
export const queueRuns = async (options: QueueOptions): Promise<QueueResult> => {
  const home = mkdtempSync(join(tmpdir(), "svc-bench-runs-queue-"))
  const service = await launchService(options.server, options.flags, { ...baseEnv(home), SVC_WORKERS: "0" })
  const agent = new Agent({ keepAlive: true, maxSockets: options.parallel })
  try {
    const records = Array.from({ length: options.runs }, (_, i) => smolagentsRecord(i, "queue"))
    const bodies = Array.from({ length: Math.ceil(options.runs / options.perBody) }, (_, b) => jsonLines(records.slice(b * options.perBody, (b + 1) * options.perBody)))
    const lines = (text: string) => ({ text, contentType: "application/x-ndjson" })
    const normalizeAll = async (which: ReadonlyArray<string>) => {
      const started = performance.now()
      const answers = await inParallel(which.length, options.parallel, (b) => send(agent, "POST", `${service.url}/v1/traces/normalize`, lines(which[b] ?? "")))
      const ms = performance.now() - started
      expectStatus("POST /v1/traces/normalize", answers, 200)
      const traces = answers.reduce((sum, answer) => {
        const normalized = decodeNormalized(answer.text)
        return sum + ("traces" in normalized ? normalized.traces.length : 1)
      }, 0)
      return { ms, traces }
    }
    // warm-up of the shared path (edge, JSON Lines, the importer) on other traces; the store opens at the first submit, timed.
    await normalizeAll(Array.from({ length: 8 }, (_, b) => jsonLines(Array.from({ length: options.perBody }, (_, i) => smolagentsRecord(b * options.perBody + i, "warm")))))
    const before = await normalizeAll(bodies)
    const started = performance.now()
    const answers = await inParallel(bodies.length, options.parallel, (b) => send(agent, "POST", `${service.url}/v1/runs?${RUN_QUERY}`, lines(bodies[b] ?? "")))
    const queueMs = performance.now() - started
    const after = await normalizeAll(bodies)
    expectStatus("POST /v1/runs", answers, 202)
    const submitted = answers.map((answer) => decodeSubmitted(answer.text))
    const ids = new Set(submitted.flatMap((answer) => answer.runs.map((run) => run.id)))
    const listed = await listAll(agent, service.url, "&status=queued")
    const listedQueued = listed.runs.filter((run) => ids.has(run.id) && run.status === "queued").length
    agent.destroy()
    const exit = await terminate(service.child)
    return {
      bodies: bodies.length,
      bodyBytes: Math.max(...bodies.map((body) => Buffer.byteLength(body))),
      traceBytes: records.reduce((sum, record) => sum + Buffer.byteLength(JSON.stringify(record)), 0) / records.length,
      queueMs,
      normalizeMs: [before.ms, after.ms],
      accepted: ids.size,
      rejected: submitted.reduce((sum, answer) => sum + answer.rejected.length, 0),
      normalized: Math.min(before.traces, after.traces),
      listedQueued,
      listPages: listed.pages,
      listMs: listed.ms,
      store: await storeFiles(home, exit),
      home
    }
  } finally {
    agent.destroy()
    service.child.kill("SIGKILL")
  }
}

export interface ThroughputOptions {
  readonly server: string
  readonly flags: ReadonlyArray<string>
  /** Traces per round, each diagnosed once by each path. */
  readonly traces: number
  /** SVC_WORKERS, and the diagnose requests in flight at once. */
  readonly workers: number
  /** The provider double's latency per model call. */
  readonly latencyMs: number
  readonly rounds: number
}

export interface ThroughputRound {
  /** First POST /v1/diagnose sent to the last answer, ms. */
  readonly diagnoseMs: number
  /** The 202 of the runs' submission (all queued) to the last run's `finished_at`, ms. */
  readonly runsMs: number
  /** The submission itself (one JSON Lines body), ms. */
  readonly submitMs: number
  /** The 202 to the first run's `started_at` (the workers' idle poll), ms. */
  readonly firstClaimMs: number
  /** The first run's `started_at` to the last one's `finished_at`, ms. */
  readonly claimedToDoneMs: number
  /** Model calls the double received for each path. */
  readonly diagnoseCalls: number
  readonly runsCalls: number
  /** Runs of this round that ended done. */
  readonly done: number
  /** The service's CPU time (user + system) over each path, ms: diagnose; submission, workers and the bench's polls. */
  readonly diagnoseCpuMs: number
  readonly runsCpuMs: number
}

export interface ThroughputResult {
  readonly rounds: ReadonlyArray<ThroughputRound>
  /** Runs in the store when it stopped (the warm-up's and every round's), all done. */
  readonly runs: number
  readonly store: StoreFiles
  /** One done run's report, as GET /v1/runs/{id} answers it, bytes of JSON. */
  readonly reportBytes: number
  /** One record's JSON, bytes (the mean). */
  readonly traceBytes: number
  readonly home: string
}

const parseTime = (iso: string | null): number => (iso === null ? Number.NaN : Date.parse(iso))

/** Scenario 3: diagnose against runs, `workers` at a time, in one service with `workers` workers. */
export const workerThroughput = async (options: ThroughputOptions): Promise<ThroughputResult> => {
  const home = mkdtempSync(join(tmpdir(), "svc-bench-runs-workers-"))
  const double = await startDouble(options.latencyMs)
  const service = await launchService(options.server, options.flags, {
    ...baseEnv(home),
    SVC_WORKERS: String(options.workers),
    ANTHROPIC_API_KEY: "sk-bench-0123456789",
    ANTHROPIC_BASE_URL: double.url
  })
  const agent = new Agent({ keepAlive: true, maxSockets: options.workers + 2 })
  const traceBytes: Array<number> = []
  try {
    const diagnoseAll = async (records: ReadonlyArray<unknown>) => {
      const started = performance.now()
      const answers = await inParallel(records.length, options.workers, (i) =>
        send(agent, "POST", `${service.url}/v1/diagnose?${RUN_QUERY}`, { text: JSON.stringify({ trace: records[i] }), contentType: "application/json" }))
      const ms = performance.now() - started
      expectStatus("POST /v1/diagnose", answers, 200)
      return ms
    }
    /** Submits the records as runs (one body) and waits for them to end: the 202's time, the submit's ms and the runs. */
    const runAll = async (records: ReadonlyArray<unknown>) => {
      const sent = performance.now()
      const answer = await send(agent, "POST", `${service.url}/v1/runs?${RUN_QUERY}`, { text: jsonLines(records), contentType: "application/x-ndjson" })
      const queuedAt = Date.now()
      const submitMs = performance.now() - sent
      expectStatus("POST /v1/runs", [answer], 202)
      const ids = new Set(decodeSubmitted(answer.text).runs.map((run) => run.id))
      if (ids.size !== records.length) throw new Error(`POST /v1/runs: ${ids.size} runs for ${records.length} traces`)
      const deadline = Date.now() + 120_000
      // light polls (one row each) while the workers work: none queued, then none running (a run
      // claimed between the two shows as running, a retried one as queued); then the list once
      const none = async (status: string) => {
        const page = await send(agent, "GET", `${service.url}/v1/runs?status=${status}&limit=1`)
        expectStatus("GET /v1/runs", [page], 200)
        return decodeList(page.text).runs.length === 0
      }
      while (!((await none("queued")) && (await none("running")))) {
        if (Date.now() > deadline) throw new Error("runs not done after 120 s")
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      // the newest page holds this round's runs (nothing else is submitted meanwhile)
      const page = await send(agent, "GET", `${service.url}/v1/runs?limit=200`)
      expectStatus("GET /v1/runs", [page], 200)
      const mine = decodeList(page.text).runs.filter((run) => ids.has(run.id))
      if (mine.length !== ids.size) throw new Error(`GET /v1/runs: ${mine.length} of the ${ids.size} runs listed`)
      return { queuedAt, submitMs, runs: mine }
    }
    const records = (salt: string) => {
      const made = Array.from({ length: options.traces }, (_, i) => smolagentsRecord(i, salt))
      traceBytes.push(...made.map((record) => Buffer.byteLength(JSON.stringify(record))))
      return made
    }
    // warm-up of both paths on other traces; afterwards the store exists and the workers poll it idle
    await diagnoseAll(Array.from({ length: options.workers }, (_, i) => smolagentsRecord(i, "warm-diagnose")))
    const warm = await runAll(Array.from({ length: options.workers }, (_, i) => smolagentsRecord(i, "warm-runs")))
    let runs = warm.runs.length
    const rounds: Array<ThroughputRound> = []
    for (let round = 0; round < options.rounds; round++) {
      const traces = records(`round-${round}`)
      const callsBefore = await double.calls()
      const cpuBefore = cpuMsOf(service.child.pid)
      const diagnoseMs = await diagnoseAll(traces)
      const cpuBetween = cpuMsOf(service.child.pid)
      const callsBetween = await double.calls()
      const ran = await runAll(traces)
      const cpuAfter = cpuMsOf(service.child.pid)
      const callsAfter = await double.calls()
      runs += ran.runs.length
      const started = Math.min(...ran.runs.map((run) => parseTime(run.started_at)))
      const finished = Math.max(...ran.runs.map((run) => parseTime(run.finished_at)))
      rounds.push({
        diagnoseMs,
        runsMs: finished - ran.queuedAt,
        submitMs: ran.submitMs,
        firstClaimMs: started - ran.queuedAt,
        claimedToDoneMs: finished - started,
        diagnoseCalls: callsBetween - callsBefore,
        runsCalls: callsAfter - callsBetween,
        done: ran.runs.filter((run) => run.status === "done").length,
        diagnoseCpuMs: cpuBetween - cpuBefore,
        runsCpuMs: cpuAfter - cpuBetween
      })
    }
    const sample = warm.runs[0]
    const one = sample === undefined ? undefined : await send(agent, "GET", `${service.url}/v1/runs/${sample.id}`)
    const report = one === undefined ? undefined : decodeRun(one.text).report
    agent.destroy()
    const exit = await terminate(service.child)
    return {
      rounds,
      runs,
      store: await storeFiles(home, exit),
      reportBytes: report === undefined ? 0 : Buffer.byteLength(JSON.stringify(report)),
      traceBytes: traceBytes.reduce((sum, bytes) => sum + bytes, 0) / Math.max(1, traceBytes.length),
      home
    }
  } finally {
    agent.destroy()
    service.child.kill("SIGKILL")
    double.child.kill("SIGKILL")
  }
}
