/**
 * `svc problems regroup` (DECISIONS §24, issue 49) on a store written by the previous release, on
 * both stores. The runs are made by the real service (workers, the provider double); their problems
 * are then rewritten as the previous release wrote them: its finish joined each lens finding on its
 * own (`problemFindingsOf`, §19: the pattern in the fingerprint) and its reports had no `failures`.
 * An admin resolved one problem in a version and merged another into it. The regroup (the `svc`
 * binary, in-process on that store, webhooks configured) then:
 * - makes one problem of the check-named failure five lenses saw (before: one per lens);
 * - keeps the id of the lens-only problem whose anchor maps one to one, with its status and
 *   `resolved_in_version`, and the runs of the problem merged into it (the merge carries over);
 * - writes no alert, and rewrites the runs' reports with their failures, each naming its problem.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Context, Effect, Either, Layer, Redacted, Schema } from "effect"
import { anthropicKit } from "../../eval/inject/Kits/Anthropic.js"
import type { Kit } from "../../eval/inject/Kits/Kit.js"
import { langSmithKit } from "../../eval/inject/Kits/LangSmith.js"
import { openAiChatKit } from "../../eval/inject/Kits/OpenAiChat.js"
import { toolFailureRun } from "../../eval/inject/ToolFailureRun.js"
import { ProblemDetail, ProblemList } from "../../src/Contract/ProblemsContract.js"
import { problemFindingsOf } from "../../src/Problems/Fingerprint.js"
import { readStoredReport, readStoredRequest } from "../../src/Runs/RunsService.js"
import { databaseFile } from "../../src/Store/RunStoreAccess.js"
import { postgresLayer, sqliteLayer } from "../../src/Store/Sql.js"
import { svc } from "../cli/support.js"
import { useProviderDouble } from "../support/Harness.js"
import { type Cluster, startCluster } from "../support/Postgres.js"
import { storesLayer } from "../support/RunStore.js"
import { EXPLAIN_EVERY_RUN } from "../support/Spawned.js"
import type { RunningService } from "../support/Service.js"
import { call, chatTrace, decoded, freshHome, quotingEvents, submitOne, waitForRun } from "../runs/support.js"
import { ProblemStore } from "../../src/Store/Problems.js"
import { RunStore } from "../../src/Store/Runs.js"

const harness = useProviderDouble()
let cluster: Cluster | undefined
beforeAll(async () => {
  cluster = await startCluster()
}, 60_000)
afterAll(() => cluster?.close())

const LENSES = ["lewin", "mcgregor", "bias_stack", "devils_advocate", "aar"] as const
const KITS: ReadonlyArray<Kit> = [openAiChatKit, anthropicKit, langSmithKit]
const SECRET = "regroup-webhook-secret-0123456789abcdef"

/** A refund tool answering 503 and the agent saying it is done, in format `i % 3`. */
const refundFailure = (i: number) => {
  const kit = KITS[i % KITS.length]
  if (kit === undefined) throw new Error("no kit")
  const order = `R-${200 + i}`
  return toolFailureRun({ kit, key: `regroup-${i}`, tool: "issue_refund", order, message: `503 Service Unavailable (order ${order})`, claim: "Your refund has been issued." })
}

const run = async (service: RunningService, body: unknown, format: string | undefined, patterns: ReadonlyArray<string>, contents: ReadonlyArray<string>, picks: ReadonlyArray<number>) => {
  harness.double.script = quotingEvents(contents, picks)
  const id = await submitOne(service, { trace: body, ...(format === undefined ? {} : { format }), mode: "quick", patterns: [...patterns] })
  const done = await waitForRun(service, id, { deadlineMs: 30_000 })
  expect(done.status).toBe("done")
  return id
}

/** The stores over `database` (a file or a PostgreSQL url) for one effect. */
const withStores = <A, E>(database: { readonly sqlite: string } | { readonly postgres: string }, use: (stores: { readonly runs: typeof RunStore.Service; readonly problems: typeof ProblemStore.Service; readonly sql: SqlClient.SqlClient }) => Effect.Effect<A, E>) =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const sqlLayer = "sqlite" in database ? sqliteLayer(database.sqlite) : postgresLayer(Redacted.make(database.postgres), { pool: 2, statementTimeoutMs: 10_000 })
    const context = yield* Layer.build(storesLayer().pipe(Layer.provideMerge(sqlLayer)))
    return yield* use({ runs: Context.get(context, RunStore), problems: Context.get(context, ProblemStore), sql: Context.get(context, SqlClient.SqlClient) })
  })))

/** The store as the previous release left it: each lens finding its own problem (§19), reports without failures. */
const asPreviousRelease = (database: { readonly sqlite: string } | { readonly postgres: string }) =>
  withStores(database, ({ problems, runs, sql }) =>
    Effect.gen(function*() {
      for (const table of ["problem_runs", "problem_days", "problem_labels", "problem_patterns", "problem_fingerprints", "problems"]) yield* sql`DELETE FROM ${sql(table)}`
      const page = yield* runs.listStored("shared", { status: "done" }, 200, null)
      for (const stored of [...page.runs].reverse()) {
        const request = readStoredRequest(stored.request)
        const report = stored.report === null ? undefined : readStoredReport(stored.report)
        if (Either.isLeft(request) || report === undefined) return yield* Effect.dieMessage(`run ${stored.id} has no report`)
        const { failures: _failures, ...old } = report
        yield* runs.replaceReport("shared", stored.id, JSON.stringify(old), report.severity)
        yield* sql`UPDATE runs SET explained_by = NULL WHERE id = ${stored.id}`
        yield* problems.joinRun({
          scope: "shared",
          runId: stored.id,
          traceId: stored.traceId,
          labels: stored.labels,
          now: stored.finishedAt ?? stored.submittedAt,
          findings: problemFindingsOf(report.findings, request.right.trace),
          explained: true,
          tokens: 0
        })
      }
    }))

describe.each([{ name: "SQLite" }, { name: "PostgreSQL" }])("svc problems regroup on $name", ({ name }) => {
  it("rebuilds a previous release's problems: one per failure; a one-to-one anchor keeps its id, status and merge; no alert", async () => {
    const home = freshHome(`regroup-${name}`)
    const postgres = name === "PostgreSQL" ? cluster?.freshDatabase() : undefined
    if (name === "PostgreSQL" && postgres === undefined) throw new Error("the PostgreSQL cluster did not start")
    const storeEnv: Record<string, string> = { SVC_HOME: home, ...(postgres === undefined ? {} : { SVC_DATABASE_URL: postgres }) }
    const database = postgres === undefined ? { sqlite: databaseFile(home) } : { postgres }
    const service = await harness.start({ ...EXPLAIN_EVERY_RUN, ...storeEnv, ANTHROPIC_API_KEY: "sk-ant-regroup-0123456789", ANTHROPIC_BASE_URL: harness.double.url, SVC_WORKERS: "2", SVC_CACHE: "off" })
    // the check-named failure, five lenses each, in three formats
    const refunds: Array<string> = []
    for (let i = 0; i < 3; i++) {
      const { body, contents, format, picks } = refundFailure(i)
      refunds.push(await run(service, body, format, LENSES, contents, picks))
    }
    // two lens-only failures (no check fires on a wrong booking): lewin's, and mcgregor's on other runs
    const lensOnly = async (marker: string, pattern: string) => {
      const trace = chatTrace(marker)
      return run(service, trace, undefined, [pattern], trace.messages.map((message) => message.content), [2, 4])
    }
    const booked = [await lensOnly("b1", "lewin"), await lensOnly("b2", "lewin")]
    const other = [await lensOnly("c1", "mcgregor")]
    await service.close()

    await asPreviousRelease(database)
    const api = await harness.start({ ...storeEnv, SVC_WORKERS: "0" })
    const before = await decoded(await call(api, "GET", "/v1/problems"), 200, ProblemList)
    // the previous release: a problem per lens finding (at least one per lens for the refund, one per booking lens)
    expect(before.problems.length).toBeGreaterThanOrEqual(LENSES.length + 2)
    const problemOfRun = async (id: string) => {
      const body: unknown = await (await call(api, "GET", `/v1/runs/${id}`)).json()
      return Schema.decodeUnknownSync(Schema.Struct({ problems: Schema.Array(Schema.Struct({ id: Schema.String })) }))(body).problems.map((problem) => problem.id)
    }
    const [booking, ...moreBooking] = await problemOfRun(booked[0] ?? "")
    const [mcgregorBooking] = await problemOfRun(other[0] ?? "")
    expect(moreBooking).toEqual([])
    expect(await problemOfRun(booked[1] ?? "")).toEqual([booking])
    if (booking === undefined || mcgregorBooking === undefined) throw new Error("the booking problems are missing")
    // an admin resolved it in 1.4, and merged mcgregor's view of the booking into it
    expect((await call(api, "PATCH", `/v1/problems/${booking}`, { body: { status: "resolved", resolved_in_version: "1.4" } })).status).toBe(200)
    expect((await call(api, "POST", `/v1/problems/${mcgregorBooking}/merge`, { body: { into: booking } })).status).toBe(200)
    await api.close()
    const outbox = () => withStores(database, ({ sql }) => Effect.map(sql`SELECT COUNT(*) AS n FROM alert_outbox`, (rows) => Number(Schema.decodeUnknownSync(Schema.Struct({ n: Schema.Union(Schema.Number, Schema.NumberFromString) }))(rows[0]).n)))
    const alertsBefore = await outbox()

    // webhooks configured: a regroup that alerted would write to the outbox
    const regrouped = await svc(["problems", "regroup"], { env: { ...storeEnv, SVC_ALERT_WEBHOOKS: "http://127.0.0.1:9/hook", SVC_ALERT_SECRET: SECRET, SVC_ALERT_MIN_SEVERITY: "low" } })
    expect(regrouped.code, regrouped.stderr).toBe(0)
    expect(JSON.parse(regrouped.stdout)).toMatchObject({ runs: 6, problemsBefore: before.problems.length - 1, problemsAfter: 2, kept: 1 })
    expect(await outbox()).toBe(alertsBefore)

    const after = await harness.start({ ...storeEnv, SVC_WORKERS: "0" })
    const list = await decoded(await call(after, "GET", "/v1/problems"), 200, ProblemList)
    expect(list.problems).toHaveLength(2)
    const refund = list.problems.find((problem) => problem.check === "tool_error_unrecovered")
    expect(refund).toMatchObject({ run_count: 3, patterns: [...LENSES].sort() })
    // the lens-only failure keeps its id, its status and the runs merged into it
    const kept = await decoded(await call(after, "GET", `/v1/problems/${booking}`), 200, ProblemDetail)
    expect(kept).toMatchObject({ id: booking, status: "resolved", resolved_in_version: "1.4", run_count: 3, check: null, patterns: ["lewin", "mcgregor"] })
    // the runs' reports name their failures' problems
    for (const id of refunds) {
      const got = await call(after, "GET", `/v1/runs/${id}`)
      const body: unknown = await got.json()
      expect(body).toMatchObject({ problems: [{ id: refund?.id }], report: { failures: [{ anchor: { check: "tool_error_unrecovered" }, problem: refund?.id }] } })
    }
    for (const id of [...booked, ...other]) {
      const body: unknown = await (await call(after, "GET", `/v1/runs/${id}`)).json()
      expect(body).toMatchObject({ problems: [{ id: booking }] })
    }
    // an old id of the merged problem still leads to it
    expect((await decoded(await call(after, "GET", `/v1/problems/${mcgregorBooking}`), 200, ProblemDetail)).id).toBe(booking)
  }, 240_000)
})
