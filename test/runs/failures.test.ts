/**
 * Runs that do not end done (DECISIONS §17), end to end against the real service and the provider
 * double: no provider configured ends the run `failed: llm_resolution_error`; a provider answering
 * 500 or 429 puts the run back in the queue after its first attempt (the doubling backoff to the
 * last attempt is Worker.ts's, on TestClock in worker.test.ts), and how a finished diagnose is
 * classified (transient or final) is checked on `resultOfReport` itself; retry re-queues a failed
 * run and refuses a done one (409). A store that cannot be opened answers 503 `store_unavailable`
 * on the runs routes only: diagnose, analyze and readiness are unaffected.
 */
import { beforeAll, describe, expect, it } from "@effect/vitest"
import { mkdirSync } from "node:fs"
import type { DiagnoseReport, PatternRun } from "../../src/Contract/DiagnoseReport.js"
import { Run } from "../../src/Contract/RunsContract.js"
import { resultOfReport } from "../../src/Runs/Workers.js"
import { databaseFile } from "../../src/Store/RunStoreAccess.js"
import { chatSample } from "../diagnose/sample-report.js"
import { useProviderDouble } from "../support/Harness.js"
import { defaultReply, exampleTrace } from "../support/ProviderDouble.js"
import type { RunningService } from "../support/Service.js"

/** A trace for resultOfReport where the findings do not matter. */
const NO_EVENTS = { agents: [], events: [] }
import { call, chatTrace, decoded, ErrorBody, freshHome, getRun, refusal, submitOne, waitForRun } from "./support.js"

const harness = useProviderDouble()
const providerEnv = () => ({ ANTHROPIC_API_KEY: "sk-ant-runs-failures-0123456789", ANTHROPIC_BASE_URL: harness.double.url })

describe("a run without a provider", () => {
  let service: RunningService
  beforeAll(async () => {
    service = await harness.start({ SVC_WORKERS: "2", SVC_HOME: freshHome("no-provider") })
  })

  it("ends failed with llm_resolution_error; retry queues it again with its attempts anew, and it fails again", async () => {
    const id = await submitOne(service, { trace: chatTrace("no-provider"), mode: "quick", max_patterns: 2 })
    const failed = await waitForRun(service, id)
    expect(failed).toMatchObject({ status: "failed", attempts: 1, reason: null, severity: null, error: { error: "llm_resolution_error" } })
    expect(failed.error?.message).toMatch(/ANTHROPIC_API_KEY|OPENAI_API_KEY|LOCAL_MODEL_HOST/)
    expect(failed.finished_at).not.toBeNull()
    expect(failed.report).toBeUndefined()
    expect(await refusal(await call(service, "GET", `/v1/runs/${id}/report`), 404)).toBe("not_found")

    const retried = await decoded(await call(service, "POST", `/v1/runs/${id}/retry`), 200, Run)
    expect(retried).toMatchObject({ id, status: "queued", attempts: 0, error: null, finished_at: null })
    const again = await waitForRun(service, id, { until: (run) => run.status === "failed" && run.attempts === 1 && run.finished_at !== null })
    expect(again.error?.error).toBe("llm_resolution_error")
    expect(harness.double.calls).toHaveLength(0)
  })
})

describe("a run with a failing provider", () => {
  let service: RunningService
  beforeAll(async () => {
    service = await harness.start({ ...providerEnv(), SVC_WORKERS: "2", SVC_HOME: freshHome("failing") })
  })

  // Retry-After: 0, so the client's own retries within the deadline do not wait.
  it.each([500, 429])("goes back to the queue after a first attempt the provider answered %i (not failed: the worker tries again after its backoff)", async (status) => {
    const marker = `transient-${status}`
    harness.double.script = (request) => request.text.includes(marker) ? { kind: "status", status, headers: { "retry-after": "0" } } : defaultReply(request)
    const callsOf = () => harness.double.calls.filter((request) => request.text.includes(marker)).length
    const id = await submitOne(service, { trace: chatTrace(marker), mode: "quick", max_patterns: 1 })
    const requeued = await waitForRun(service, id, { until: (run) => run.attempts === 1 && run.status === "queued" })
    expect(requeued).toMatchObject({ error: null, finished_at: null, severity: null })
    expect(requeued.started_at).not.toBeNull()
    const calls = callsOf()
    expect(calls).toBeGreaterThan(0)
    // The backoff (5 s before the second attempt) holds: not claimed again by an idle worker's next
    // look. Shown by a later run, not a pause: the queue is taken oldest first, so a run submitted
    // after it and claimed (here, done) was claimed while it was not due.
    const later = await submitOne(service, { trace: chatTrace(`submitted-after-${status}`), mode: "quick", max_patterns: 1 })
    expect(await waitForRun(service, later)).toMatchObject({ status: "done", attempts: 1 })
    expect(await getRun(service, id)).toMatchObject({ status: "queued", attempts: 1 })
    expect(callsOf()).toBe(calls)
    expect((await call(service, "DELETE", `/v1/runs/${id}`)).status).toBe(204)
  })

  it("ends failed at once when the provider refuses the request (401 is not transient)", async () => {
    harness.double.script = () => ({ kind: "status", status: 401, body: JSON.stringify({ type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } }) })
    const id = await submitOne(service, { trace: chatTrace("refused-401"), mode: "quick", max_patterns: 1 })
    const ended = await waitForRun(service, id, { deadlineMs: 4_000, until: (run) => run.status === "failed" || (run.status === "queued" && run.attempts > 0) })
    expect(ended).toMatchObject({ status: "failed", attempts: 1, error: { error: "analyzer_error" } })
    expect(ended.error?.message).toContain("401")
    expect((await call(service, "DELETE", `/v1/runs/${id}`)).status).toBe(204)
  })

  it("retry refuses a done run (409), and an unknown one (404)", async () => {
    const id = await submitOne(service, { trace: chatTrace("done-then-retry"), mode: "quick", max_patterns: 1 })
    expect(await waitForRun(service, id)).toMatchObject({ status: "done", attempts: 1 })
    const refused = await decoded(await call(service, "POST", `/v1/runs/${id}/retry`), 409, ErrorBody)
    expect(refused.detail).toEqual({ error: "conflict", message: expect.stringContaining("done") })
    expect(await getRun(service, id)).toMatchObject({ status: "done", attempts: 1 })
    expect(await refusal(await call(service, "POST", "/v1/runs/run_AAAAAAAAAAAAAAAAAAAAAA/retry"), 404)).toBe("not_found")
  })
})

describe("how a finished diagnose ends its run (resultOfReport)", () => {
  const base: DiagnoseReport = chatSample.report
  /** A lens that failed; `retryable` as the diagnose marks the provider's overload or outage (429, 5xx) and deadlines. */
  const failedLens = (pattern: string, kind: string, retryable = kind === "timeout"): PatternRun => ({
    pattern,
    friendly: pattern,
    status: kind,
    error: { kind, message: `${pattern} failed: ${kind}`, retryable },
    cached: false,
    signals: { values: {}, highlights: [] },
    playbooks: [],
    detection: null
  })
  const ranLens = base.patterns[0]
  if (ranLens === undefined) throw new Error("the chat sample has lenses")
  const withLenses = (patterns: ReadonlyArray<PatternRun>): DiagnoseReport => ({ ...base, patterns })

  it("is transient when no lens ran and every failure is retryable: the provider's overload or outage (analyzer_error, retryable) or a deadline (timeout)", () => {
    for (const kinds of [["analyzer_error"], ["timeout"], ["analyzer_error", "timeout"]]) {
      expect(resultOfReport(withLenses(kinds.map((kind, i) => failedLens(`p${i}`, kind, true))), [], NO_EVENTS), kinds.join()).toEqual({
        _tag: "Transient",
        error: { error: kinds[0], message: `p0 failed: ${kinds[0]}` }
      })
    }
  })

  it("is failed with the first kind when no lens ran and a failure is final", () => {
    expect(resultOfReport(withLenses([failedLens("a", "llm_resolution_error"), failedLens("b", "llm_resolution_error")]), [], NO_EVENTS)).toEqual({
      _tag: "End",
      end: { status: "failed", error: { error: "llm_resolution_error", message: "a failed: llm_resolution_error" } }
    })
    expect(resultOfReport(withLenses([failedLens("a", "analyzer_error"), failedLens("b", "internal_error")]), [], NO_EVENTS)).toEqual({
      _tag: "End",
      end: { status: "failed", error: { error: "analyzer_error", message: "a failed: analyzer_error" } }
    })
  })

  it("is done when any lens ran (the report says which failed), with its severity, finding patterns and cache keys", () => {
    const report: DiagnoseReport = {
      ...withLenses([ranLens, failedLens("b", "analyzer_error")]),
      severity: "medium",
      findings: [{
        pattern: ranLens.pattern,
        id: "f1",
        title: "A finding",
        severity: "medium",
        confidence: 0.6,
        explanation: "Why.",
        playbook: null,
        evidence: [],
        corroborated_by: []
      }]
    }
    expect(resultOfReport(report, ["k1", "k2"], NO_EVENTS)).toEqual({
      _tag: "End",
      end: {
        status: "done",
        report: JSON.stringify(report),
        severity: "medium",
        patterns: [ranLens.pattern],
        cacheKeys: ["k1", "k2"],
        // its one finding has no evidence: it joins no problem (DECISIONS §19)
        findings: [],
        tokens: report.usage.input_tokens + report.usage.output_tokens,
        // a lens ran: the run explains what it found itself (DECISIONS §24)
        explained: true,
        explainedBy: null
      }
    })
    // No lens chosen at all is a done run too (nothing failed).
    expect(resultOfReport(withLenses([]), [], NO_EVENTS)).toMatchObject({ _tag: "End", end: { status: "done", patterns: [] } })
  })
})

describe("a store that cannot be opened", () => {
  let service: RunningService
  beforeAll(async () => {
    const home = freshHome("unavailable")
    // the database's path is a directory: SQLite cannot open it
    mkdirSync(databaseFile(home))
    service = await harness.start({ ...providerEnv(), SVC_WORKERS: "2", SVC_HOME: home })
  })

  const expectUnavailable = async (response: Response, what: string) => {
    const body = await decoded(response, 503, ErrorBody)
    expect(body.detail.error, what).toBe("store_unavailable")
    expect(body.detail.message.length, what).toBeGreaterThan(0)
    expect(Number(response.headers.get("retry-after")), what).toBeGreaterThanOrEqual(1)
  }

  it("answers 503 store_unavailable with Retry-After on the runs routes", async () => {
    const id = "run_AAAAAAAAAAAAAAAAAAAAAA"
    await expectUnavailable(await call(service, "POST", "/v1/runs", { body: { trace: chatTrace("unavailable"), mode: "quick" } }), "submit")
    await expectUnavailable(await call(service, "GET", "/v1/runs"), "list")
    await expectUnavailable(await call(service, "GET", `/v1/runs/${id}`), "get")
    await expectUnavailable(await call(service, "GET", `/v1/runs/${id}/report`), "report")
    await expectUnavailable(await call(service, "POST", `/v1/runs/${id}/retry`), "retry")
    await expectUnavailable(await call(service, "DELETE", `/v1/runs/${id}`), "delete")
    await expectUnavailable(await call(service, "GET", "/v1/runs/export"), "export")
    // Still unavailable on the next try: not a one-off.
    await expectUnavailable(await call(service, "GET", "/v1/runs"), "list again")
  })

  it("refuses with the store before it reads the body (DECISIONS §16's order: store 503 before 415 and 400)", async () => {
    await expectUnavailable(await call(service, "POST", "/v1/runs", { body: "trace=1", contentType: "application/x-www-form-urlencoded" }), "a form post")
    await expectUnavailable(await call(service, "POST", "/v1/runs", { body: "{not json" }), "a body that is not JSON")
  })

  it("leaves diagnose, analyze and readiness alone", async () => {
    const diagnose = await call(service, "POST", "/v1/diagnose", { body: { trace: chatTrace("unavailable"), mode: "quick", max_patterns: 1 } })
    expect(diagnose.status).toBe(200)
    const analyze = await call(service, "POST", "/v1/analyze/lewin", { body: { trace: exampleTrace("lewin"), mode: "quick" } })
    expect(analyze.status).toBe(200)
    expect(harness.double.calls.length).toBeGreaterThanOrEqual(2)
    expect((await call(service, "GET", "/readyz")).status).toBe(200)
    expect((await call(service, "GET", "/healthz")).status).toBe(200)
  })
})
