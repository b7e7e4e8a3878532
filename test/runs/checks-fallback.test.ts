/**
 * How a run ends when its checks fired and its lenses did not run (DECISIONS §23): `resultOfReport`
 * on reports whose every lens failed, and the worker on the real SQLite store (time on `TestClock`)
 * ending such a run done at its last attempt after transient failures, instead of failed.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Option, Ref, Schema, TestClock } from "effect"
import { DiagnoseReport, type PatternRun } from "../../src/Contract/DiagnoseReport.js"
import { type RunResult, type RunRunner, workerLoop, type WorkerOptions } from "../../src/Runs/Worker.js"
import { resultOfContentFree, resultOfReport } from "../../src/Runs/Workers.js"
import type { RunStoreShape } from "../../src/Store/Runs.js"
import { otelSample } from "../diagnose/sample-report.js"
import { newRun, openRunStore } from "../support/RunStore.js"
import { eventually } from "../support/TestTime.js"

const openStore = openRunStore()
const OPTIONS: WorkerOptions = { owner: "w1", leaseMs: 60_000, idleMs: 1_000, maxAttempts: 3, backoffMs: 5_000 }
const until = (store: RunStoreShape, id: string, status: string) =>
  eventually(Effect.map(Effect.orDie(store.get("shared", id)), Option.filter((run) => run.status === status)), `run ${id} ${status}`)

const base = otelSample.report
const TRACE = { agents: [], events: [] }
/** The sample report with every lens failed with this error, and these checks. */
const failedLenses = (kind: string, retryable: boolean, checks: DiagnoseReport["checks"]): DiagnoseReport => ({
  ...base,
  checks,
  findings: [],
  severity: checks.length === 0 ? "none" : base.severity,
  patterns: base.patterns.map((lens): PatternRun => ({ ...lens, status: kind, error: { kind, message: `${kind} for ${lens.pattern}`, retryable }, detection: null, cached: false }))
})

describe("a run whose checks fired and whose lenses did not run", () => {
  it("resultOfReport: a final error ends it done with the checks, a transient one retries with done as its fallback; without checks, failed or retried", () => {
    expect(base.checks.length).toBeGreaterThan(0)
    const unresolved = resultOfReport(failedLenses("llm_resolution_error", false, base.checks), [], TRACE)
    expect(unresolved).toMatchObject({ _tag: "End", end: { status: "done", severity: base.severity } })
    const overloaded = resultOfReport(failedLenses("analyzer_error", true, base.checks), [], TRACE)
    expect(overloaded).toMatchObject({ _tag: "Transient", error: { error: "analyzer_error" }, fallback: { status: "done", severity: base.severity } })

    expect(resultOfReport(failedLenses("llm_resolution_error", false, []), [], TRACE)).toMatchObject({ _tag: "End", end: { status: "failed", error: { error: "llm_resolution_error" } } })
    const retried = resultOfReport(failedLenses("analyzer_error", true, []), [], TRACE)
    expect(retried._tag === "Transient" && retried.fallback).toBeUndefined()

    // a content-free trace's report (no lens ran): done with its checks, or skipped no_content
    const contentFree = { ...base, patterns: [], findings: [] }
    expect(resultOfContentFree(contentFree, [], TRACE)).toMatchObject({ _tag: "End", end: { status: "done", severity: base.severity } })
    expect(resultOfContentFree({ ...contentFree, checks: [], severity: "none" }, [], TRACE)).toMatchObject({ _tag: "End", end: { status: "skipped", reason: "no_content" } })
    const kept = resultOfContentFree(contentFree, [], TRACE)
    if (kept._tag !== "End" || kept.end.status !== "done") throw new Error("the content-free run with checks did not end done")
    expect(Schema.decodeUnknownSync(Schema.parseJson(DiagnoseReport))(kept.end.report).checks).toEqual(base.checks)
  })

  it.scoped("the worker: transient failures, then done with the fallback at the last attempt, not failed", () =>
    Effect.gen(function*() {
      const store = yield* openStore
      yield* store.submit(newRun("r1"))
      const calls = yield* Ref.make(0)
      const result: RunResult = resultOfReport(failedLenses("analyzer_error", true, base.checks), [], TRACE)
      expect(result._tag).toBe("Transient")
      const runner: RunRunner = () => Effect.as(Ref.update(calls, (n) => n + 1), result)
      const worker = yield* Effect.fork(workerLoop(store, runner, OPTIONS))
      const attempt = (n: number) => eventually(Effect.map(Ref.get(calls), (count) => (count === n ? Option.some(count) : Option.none())), `attempt ${n}`)
      yield* attempt(1)
      yield* until(store, "r1", "queued")
      // the backoffs (5 s, then 10 s) pass on the test clock
      yield* TestClock.adjust(6_000)
      yield* attempt(2)
      yield* until(store, "r1", "queued")
      yield* TestClock.adjust(11_000)
      const run = yield* until(store, "r1", "done")
      expect(yield* Ref.get(calls)).toBe(3)
      expect(run).toMatchObject({ attempts: 3, severity: base.severity, error: null })
      yield* Fiber.interrupt(worker)
    }))
})
