/**
 * The workers' rules of time (src/Runs/Workers.ts) on the real SQLite store and `TestClock`: the
 * daily token budget skips a run that would pass it and queues it again when the next UTC day
 * starts; retention removes finished runs after SVC_RETENTION_DAYS, with their cache entries;
 * a finished diagnose's report decides done, a transient failure or a final one.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Option, TestClock } from "effect"
import type { AnalysisCacheShape } from "../../src/Cache/AnalysisCache.js"
import type { DiagnoseReport } from "../../src/Contract/DiagnoseReport.js"
import type { DiagnoseServiceShape } from "../../src/Diagnose/DiagnoseService.js"
import type { StoredRequest } from "../../src/Runs/RunsService.js"
import { makeRunner, resultOfReport, upkeep } from "../../src/Runs/Workers.js"
import { makeScopes } from "../../src/Auth/Scopes.js"

/** A trace for resultOfReport where the findings do not matter. */
const NO_EVENTS = { agents: [], events: [] }
import { newRun, openRunStore } from "../support/RunStore.js"

const DAY = 86_400_000
/** 2026-11-24T23:00:00Z: an hour before a UTC day ends. */
const LATE = Date.UTC(2026, 10, 24, 23)

const request: StoredRequest = {
  key_name: null,
  format: "native",
  trace: {
    id: null,
    task: "summarise the churn",
    outcome: "posted a made-up figure",
    success: false,
    agents: ["agent"],
    events: [{ actor: "agent", role: "agent", kind: "message", content: "the API failed; I will assume 4%", source: "steps[0]" }],
    skipped: 0
  },
  options: { mode: "quick", model: null, hints: {}, patterns: ["lewin"], max_patterns: 1, budget_tokens: null },
  redactions: {}
}

/** Diagnose is never reached in these tests: a run over budget is skipped before it. */
const unreachable = Effect.die(new Error("diagnose was called"))
const noDiagnose: DiagnoseServiceShape = { diagnose: () => unreachable, admitEach: () => unreachable, admitOtlp: () => unreachable, check: () => unreachable, run: () => unreachable, checksOf: () => Effect.succeed([]) }

const recordingCache = (evicted: Array<string>): AnalysisCacheShape => ({
  enabled: true,
  run: () => unreachable,
  evict: (keys) => Effect.sync(() => evicted.push(...keys))
})

describe("the workers' budget, retention and outcomes", () => {
  it.scoped("skips a run over the scope's daily budget, and queues it again when the next UTC day starts", () =>
    Effect.gen(function*() {
      const store = yield* openRunStore()
      yield* TestClock.setTime(LATE)
      yield* store.submit(newRun("r1", { request: JSON.stringify(request), submittedAt: LATE }))
      const claimed = Option.getOrThrow(yield* store.claim("w", LATE, 60_000))
      // a budget smaller than one quick lens's estimate
      const result = yield* makeRunner(store, noDiagnose, makeScopes({ authRequired: false, cacheScope: "key" }), 100)(claimed)
      expect(result).toEqual({ _tag: "End", end: { status: "skipped", reason: "budget" } })
      expect(yield* store.finish("r1", "w", LATE, { status: "skipped", reason: "budget" })).toBe(true)
      expect(yield* store.budgetOf("shared", LATE)).toEqual({ reserved: 0, spent: 0 })
      // the same day: still skipped
      yield* TestClock.adjust("59 minutes")
      yield* upkeep(store, recordingCache([]), 30)
      expect(Option.getOrThrow(yield* store.get("shared", "r1")).status).toBe("skipped")
      // past midnight UTC: queued again, its reason cleared
      yield* TestClock.adjust("2 minutes")
      yield* upkeep(store, recordingCache([]), 30)
      expect(Option.getOrThrow(yield* store.get("shared", "r1"))).toMatchObject({ status: "queued", reason: null, finishedAt: null })
    }))

  it.scoped("removes finished runs SVC_RETENTION_DAYS after they finished, with their cache entries, and keeps the rest", () =>
    Effect.gen(function*() {
      const store = yield* openRunStore()
      yield* TestClock.setTime(LATE)
      // claimed oldest first: old, then young; waiting stays queued
      for (const [i, id] of ["old", "young", "waiting"].entries()) yield* store.submit(newRun(id, { submittedAt: LATE + i }))
      const end = { status: "done", report: "{}", severity: "low", patterns: ["lewin"] } as const
      yield* store.claim("w", LATE, 60_000)
      expect(yield* store.finish("old", "w", LATE, { ...end, cacheKeys: ["shared/abc"] })).toBe(true)
      yield* TestClock.adjust(DAY * 10)
      yield* store.claim("w", LATE + DAY * 10, 60_000)
      expect(yield* store.finish("young", "w", LATE + DAY * 10, { ...end, cacheKeys: ["shared/def"] })).toBe(true)
      const evicted: Array<string> = []
      // 29 days after the first finished: nothing is old enough
      yield* TestClock.setTime(LATE + DAY * 29)
      yield* upkeep(store, recordingCache(evicted), 30)
      expect((yield* store.list("shared", {}, 10, null)).runs.map((run) => run.id).sort()).toEqual(["old", "waiting", "young"])
      // 31 days: the first is gone, and so is its cache entry; the queued run stays whatever its age
      yield* TestClock.setTime(LATE + DAY * 31)
      yield* upkeep(store, recordingCache(evicted), 30)
      expect((yield* store.list("shared", {}, 10, null)).runs.map((run) => run.id).sort()).toEqual(["waiting", "young"])
      expect(evicted).toEqual(["shared/abc"])
    }))

  it("ends a run done when any lens ran, queues it again when every lens failed transiently, fails it otherwise", () => {
    const lens = (error: { readonly kind: string; readonly message: string; readonly retryable?: boolean } | null) => ({
      pattern: "lewin",
      friendly: "Lewin",
      status: error === null ? "ok" : error.kind,
      error,
      cached: false,
      signals: { values: {}, highlights: [] },
      playbooks: [],
      detection: null
    })
    const report = (patterns: ReadonlyArray<ReturnType<typeof lens>>): DiagnoseReport => ({
      trace: { format: "native", id: null, task: "", outcome: "", success: false, events: 1, agents: [], skipped: 0, redactions: {} },
      mode: "quick",
      model: null,
      severity: "none",
      confidence: 0,
      summary: "",
      decisive_step: null,
      checks: [],
      failures: [],
      findings: [],
      interventions: [],
      patterns,
      triage: [],
      coverage: { patterns_run: patterns.length, patterns_failed: 0, patterns_skipped: 0, events: 1, events_cited: 0 },
      usage: { llm_calls: 0, input_tokens: 0, cached_input_tokens: 0, output_tokens: 0, elapsed_ms: 0, estimated_tokens: 0, budget_tokens: null },
      cached: false,
      generated_at: "2026-11-24T00:00:00.000Z"
    })
    const timeout = { kind: "timeout", message: "the provider took too long" }
    const overloaded = { kind: "analyzer_error", message: "the provider answered 529 after retries", retryable: true }
    const refused = { kind: "analyzer_error", message: "the provider answered HTTP 401", retryable: false }
    const noProvider = { kind: "llm_resolution_error", message: "no model provider is configured" }
    expect(resultOfReport(report([lens(null), lens(timeout)]), ["k"], NO_EVENTS)).toMatchObject({ _tag: "End", end: { status: "done", cacheKeys: ["k"] } })
    expect(resultOfReport(report([lens(timeout), lens(overloaded)]), [], NO_EVENTS)).toEqual({ _tag: "Transient", error: { error: "timeout", message: timeout.message } })
    expect(resultOfReport(report([lens(overloaded), lens(refused)]), [], NO_EVENTS)).toMatchObject({ _tag: "End", end: { status: "failed" } })
    expect(resultOfReport(report([lens(noProvider)]), [], NO_EVENTS)).toEqual({ _tag: "End", end: { status: "failed", error: { error: "llm_resolution_error", message: noProvider.message } } })
  })
})
