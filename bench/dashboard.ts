/**
 * The dashboard's lists stay fast (issue 36, DECISIONS §22): the first page of `GET /v1/runs` (what
 * the Runs page polls) at 100,000 runs in the scope against the first page at 1,000, on two built
 * services (SQLite, each its own SVC_HOME filled before it starts), asked alternately. Also the
 * page of each of the Runs page's filters and its search by external id and by trace id.
 * Goal: ≤ 1.5x for the first page. Median of the per-round ratios.
 *
 * BENCH_DASHBOARD_AGAINST=/path/to/server.mjs compares builds instead: the same store of
 * BENCH_DASHBOARD_RUNS served by that build (the baseline) and by this one, asked alternately
 * (reported, no goal; bench/results/dashboard-latest.json is left as it is).
 *
 *   npx tsx bench/dashboard.ts   (part of `npm run bench`, which builds first; BENCH_ONLY=dashboard)
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { join } from "node:path"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { sqliteLayer } from "../src/Store/Sql.js"
import { BENCH_KEY, launchService, machineOf, median, round2, type Row, stopChild, writeResults, START_FLAGS } from "./support.js"

const repo = join(import.meta.dirname, "..")
const ONLY = new Set((process.env["BENCH_ONLY"] ?? "").split(",").map((name) => name.trim()).filter((name) => name.length > 0))
const SERVER = join(repo, "dist", "server.mjs")
const AGAINST = process.env["BENCH_DASHBOARD_AGAINST"]
const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 200)
const SMALL = 1_000
const LARGE = Number(process.env["BENCH_DASHBOARD_RUNS"] ?? 100_000)
/** The bench key's scope (src/Auth/Scopes.ts): its runs are the ones listed. */
const SCOPE = "key:bench"
const REPORT = JSON.stringify({ summary: "x".repeat(64), findings: Array.from({ length: 4 }, (_, index) => ({ title: `finding ${index}`, quote: "q".repeat(160) })) })

/** A store of `count` runs of the bench's scope, as a service would have kept them (a mix of statuses, labels, ids). */
const fill = (home: string, count: number) =>
  Effect.scoped(Effect.provide(
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql.withTransaction(sql`
        WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ${count})
        INSERT INTO runs (id, scope, status, reason, trace_id, external_id, labels, source, attempts, submitted_at, started_at, finished_at,
                          severity, dedupe_key, request, report, patterns, tokens)
        SELECT printf('run_%08d', i), ${SCOPE},
          CASE i % 10 WHEN 0 THEN 'failed' WHEN 1 THEN 'skipped' WHEN 2 THEN 'queued' ELSE 'done' END,
          CASE i % 10 WHEN 1 THEN 'not_failed' ELSE NULL END,
          printf('%032x', i), CASE WHEN i % 7 = 0 THEN printf('ticket-%d', i) ELSE NULL END,
          printf('{"service":"checkout","version":"1.%d.0","environment":"production"}', i % 5), 'otlp', 1,
          1767225600000 + i * 1000, 1767225600000 + i * 1000 + 10, CASE i % 10 WHEN 2 THEN NULL ELSE 1767225600000 + i * 1000 + 500 END,
          CASE WHEN i % 10 >= 3 THEN (CASE i % 3 WHEN 0 THEN 'high' WHEN 1 THEN 'medium' ELSE 'low' END) ELSE NULL END,
          printf('dedupe-%d', i), '{}', CASE WHEN i % 10 >= 3 THEN ${REPORT} ELSE NULL END, ',lewin,', 1000
        FROM n`)
    }),
    sqliteLayer(join(home, "svc.db"))
  ))

/** One GET's time in ms, its body read. */
const timed = async (url: string): Promise<number> => {
  const started = performance.now()
  const response = await fetch(url, { headers: { authorization: `Bearer ${BENCH_KEY}` } })
  await response.arrayBuffer()
  if (response.status !== 200) throw new Error(`${url}: HTTP ${response.status}`)
  return performance.now() - started
}

const QUERIES: ReadonlyArray<{ readonly name: string; readonly query: string; readonly goal: boolean }> = [
  { name: "first page", query: "", goal: true },
  { name: "status=done", query: "?status=done", goal: false },
  { name: "severity=high", query: "?severity=high", goal: false },
  { name: "label version:1.3.0", query: "?label=version:1.3.0", goal: false },
  { name: "pattern=lewin", query: "?pattern=lewin", goal: false },
  { name: "search by external id", query: "?external_id=ticket-700", goal: false },
  { name: "search by trace id", query: `?trace_id=${(700).toString(16).padStart(32, "0")}`, goal: false }
]

const main = async () => {
  if (ONLY.size > 0 && !ONLY.has("dashboard")) return
  const started = new Date()
  // the baseline's store and server, then the measured one's
  const sizes = AGAINST === undefined ? [SMALL, LARGE] : [LARGE, LARGE]
  const servers = [AGAINST ?? SERVER, SERVER]
  const homes = sizes.map(() => mkdtempSync(join(tmpdir(), "svc-bench-dashboard-")))
  const fillStarted = performance.now()
  for (const [index, home] of homes.entries()) await Effect.runPromise(fill(home, sizes[index] ?? SMALL))
  const fillSeconds = (performance.now() - fillStarted) / 1000
  const [small, large] = await Promise.all(homes.map((home, index) => launchService(servers[index] ?? SERVER, START_FLAGS, { SVC_HOME: home, SVC_WORKERS: "0" })))
  if (small === undefined || large === undefined) throw new Error("the services did not start")
  const rows: Array<Row> = []
  try {
    for (const { name, query, goal } of QUERIES) {
      const path = `/v1/runs${query}`
      for (let warm = 0; warm < 20; warm++) await Promise.all([timed(`${small.url}${path}`), timed(`${large.url}${path}`)])
      const smallTimes: Array<number> = []
      const largeTimes: Array<number> = []
      const ratios: Array<number> = []
      for (let round = 0; round < ROUNDS; round++) {
        // alternated, so drift on a noisy machine falls on both
        const first = round % 2 === 0
        const a = await timed(`${(first ? small : large).url}${path}`)
        const b = await timed(`${(first ? large : small).url}${path}`)
        const [s, l] = first ? [a, b] : [b, a]
        smallTimes.push(s)
        largeTimes.push(l)
        ratios.push(l / s)
      }
      const ratio = round2(median(ratios))
      const judged = goal && AGAINST === undefined
      rows.push({
        scenario: AGAINST === undefined
          ? `GET ${path} (limit 50): ${LARGE} runs in the scope; baseline: ${SMALL}`
          : `GET ${path} (limit 50): ${LARGE} runs in the scope, this build; baseline: the same store served by ${AGAINST}`,
        metric: "ms per request (median)",
        service: round2(median(largeTimes)),
        baseline: round2(median(smallTimes)),
        ratio,
        goal: judged ? "<= 1.5x" : "reported",
        met: judged ? ratio <= 1.5 : null,
        detail: { name, rounds: ROUNDS, fill_seconds: round2(fillSeconds) }
      })
    }
  } finally {
    await Promise.all([stopChild(small.child), stopChild(large.child)])
  }
  writeResults({ started: started.toISOString(), scenario: "dashboard", machine: machineOf(), rows }, "dashboard-", AGAINST === undefined ? "dashboard-latest.json" : undefined)
  process.exit(0)
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
