/**
 * The run workers of `svc serve` (DECISIONS §17), and only of it: SVC_WORKERS loops (Worker.ts)
 * over the store, each run through the same diagnose effect as `POST /v1/diagnose`
 * (DiagnoseService.run: the typed request, the cache, single flight and metrics, with
 * `surface="worker"`), and the store's upkeep: leases of stalled workers released, retention's
 * purge (with the purged runs' cache entries), runs skipped for the budget re-queued when a new UTC
 * day starts, and the `svc_runs_queued` gauge.
 *
 * On SQLite every lease is released at start (one process: any lease is a dead one's, its run is
 * run again, at most one extra attempt); on PostgreSQL the other replicas' leases are alive, and a
 * dead replica's lapse and are released by the upkeep, which runs at least once per lease. On SIGTERM the workers stop claiming at once (readiness
 * turns `draining`); runs in progress count as work in flight, so the drain gives them the grace;
 * what is still running after it is interrupted and given back to the queue.
 *
 * A defect in a run (Worker.ts) or a failed upkeep is logged with its cause and counted
 * (`svc_background_errors_total{loop="workers" | "retention"}`); the loops go on. A run of an OTLP
 * trace that could not be assembled (`failed: assembly_error`, Otlp/Assembly.ts) keeps no trace:
 * retried, its worker assembles the trace's kept spans again (Reassembly.ts) before diagnosing it.
 */
import type * as SqlError from "@effect/sql/SqlError"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import { randomBytes } from "node:crypto"
import { hostname } from "node:os"
import { Caller, callerFrom } from "../Auth/Caller.js"
import { Scopes, type ScopesShape } from "../Auth/Scopes.js"
import { AnalysisCache } from "../Cache/AnalysisCache.js"
import { AppConfig } from "../Config.js"
import { ASSEMBLY_ERROR } from "../Contract/RunsContract.js"
import { type AdmittedDiagnose, DiagnoseService, estimateTokens, traceCharsOf } from "../Diagnose/DiagnoseService.js"
import { errorKinds, type InternalError, type RequestTooLarge, type ValidationError } from "../Errors.js"
import { RequestTracker } from "../Lifecycle/Lifecycle.js"
import { Readiness } from "../Lifecycle/Readiness.js"
import { containRound, defectSummary, reportBackgroundError } from "../Observability/Background.js"
import { recordAnalysis, runMetrics, statusOfExit } from "../Observability/Metrics.js"
import { RunStoreAccess } from "../Store/RunStoreAccess.js"
import { Tracing, TRACING_OFF, type TracingShape } from "../Observability/Tracing.js"
import type { OtlpStoreShape } from "../Store/Otlp.js"
import type { ClaimedRun, RunEnd, RunStoreShape } from "../Store/Runs.js"
import { TraceReassembly, type TraceReassemblyShape } from "./Reassembly.js"
import { admittedOf, readStoredRequest, type StoredRequest, wireOptions } from "./RunsService.js"
import { DEFAULT_WORKER, type RunResult, type RunRunner, workerLoop } from "./Worker.js"
import type { DiagnoseReport } from "../Contract/DiagnoseReport.js"
import { evaluationLogs } from "../Diagnose/Render/Otlp.js"
import { spanIdOfSource } from "../Traces/Formats/Spans/Session.js"
import type { FingerprintTrace } from "../Problems/Fingerprint.js"
import { failuresOf, problemFailuresOf } from "../Problems/Failures.js"
import type { ExplainSettings } from "../Config.js"
import { decideExplain, type ExplainDecision, type FailureState } from "../Problems/Policy.js"
import { VERSION_LABEL } from "../Problems/Model.js"
import type { NormalizedTrace } from "../Traces/Model.js"
import type { CheckFinding } from "../Contract/ChecksContract.js"

/** Failures another attempt may not meet: the provider's 429/5xx or outage (after its retries), deadlines. */
const TRANSIENT: ReadonlySet<string> = new Set([errorKinds.Timeout.kind])

/**
 * How often the upkeep runs, at most: it also runs once per lease, so a dead replica's runs (whose
 * leases only the upkeep releases) wait about one lease after theirs lapsed, not up to 30 s more.
 */
const UPKEEP = Duration.seconds(30)

const DAY_MS = 86_400_000

/**
 * How a finished diagnose ends its run: done when any lens ran (its report says which failed), with
 * its findings fingerprinted against the run's trace; when none ran, the lenses' error: transient
 * (the run goes back to the queue) or final. A report whose checks fired is a result without its
 * lenses (DECISIONS §23): a final error (no provider: `llm_resolution_error`) ends the run done
 * with its checks, and a transient one ends it so at its last attempt.
 */
export const resultOfReport = (
  report: DiagnoseReport,
  cacheKeys: ReadonlyArray<string>,
  trace: FingerprintTrace,
  explained: { readonly explained: boolean; readonly explainedBy: string | null } = { explained: true, explainedBy: null }
): RunResult => {
  const ran = report.patterns.filter((run) => run.error === null)
  const failed = report.patterns.flatMap((run) => (run.error === null ? [] : [run.error]))
  const first = failed[0]
  const done = (): RunEnd => ({
    status: "done",
    report: JSON.stringify(report),
    severity: report.severity,
    patterns: Array.from(new Set(report.findings.map((finding) => finding.pattern))),
    cacheKeys,
    // the failures that join problems (DECISIONS §24), in the finish's transaction
    findings: problemFailuresOf(report, trace),
    tokens: report.usage.input_tokens + report.usage.output_tokens,
    // a run whose lenses all failed explained nothing
    explained: explained.explained && ran.length > 0,
    explainedBy: explained.explainedBy
  })
  if (ran.length === 0 && first !== undefined) {
    const error = { error: first.kind, message: first.message }
    const checked = report.checks.length > 0
    if (failed.every((each) => each.retryable === true || TRANSIENT.has(each.kind))) return checked ? { _tag: "Transient", error, fallback: done() } : { _tag: "Transient", error }
    return { _tag: "End", end: checked ? done() : { status: "failed", error } }
  }
  return { _tag: "End", end: done() }
}

/** How the run of a trace without message content ends (DECISIONS §18, §23): done with its checks' findings, or `skipped: no_content` when none fired. */
export const resultOfContentFree = (report: DiagnoseReport, cacheKeys: ReadonlyArray<string>, trace: FingerprintTrace): RunResult =>
  report.checks.length > 0
    ? resultOfReport(report, cacheKeys, trace, { explained: false, explainedBy: null })
    : { _tag: "End", end: { status: "skipped", reason: "no_content", report: { text: JSON.stringify(report), severity: report.severity } } }

/** The span id of the first event read from a span (`span:<id>`), which a run's span links to. */
const firstSpanOf = (events: ReadonlyArray<{ readonly source: string }>): string | undefined => {
  for (const event of events) {
    const id = spanIdOfSource(event.source)
    if (id !== undefined && /^[0-9a-f]{16}$/.test(id)) return id
  }
  return undefined
}

/**
 * A run's span (DECISIONS §21) around its whole work, finish included: a trace of its own (the
 * worker is in no request), linked to the user's trace when the run came over OTLP (the runner).
 */
const runSpan = <A, E>(tracing: TracingShape, claimed: ClaimedRun, work: Effect.Effect<A, E>) =>
  tracing.span(work, "run", {
    root: true,
    kind: "consumer",
    attributes: { "svc.run.id": claimed.id, "svc.run.attempt": claimed.attempts, "svc.run.source": claimed.source }
  })

/** Where a run's verdicts go (SVC_EVALUATION_ENDPOINT) and the `service.name` they are sent under. */
export interface EvaluationTarget {
  readonly url: string
  readonly serviceName: string
}

/**
 * A done run that came over OTLP, with findings or check findings, carries its verdicts for the evaluation endpoint:
 * the report's `?output=otlp` log records, linked to the user's trace and the spans they cite,
 * written to the outbox with its finish (delivered by Alerts.ts; the worker never waits on them).
 */
export const withEvaluation = (result: RunResult, report: DiagnoseReport, claimed: ClaimedRun, target: EvaluationTarget | undefined): RunResult => {
  if (target === undefined || claimed.source !== "otlp" || result._tag !== "End" || result.end.status !== "done" || (report.findings.length === 0 && report.checks.length === 0)) return result
  return { _tag: "End", end: { ...result.end, evaluation: { url: target.url, body: JSON.stringify(evaluationLogs(report, target.serviceName)) } } }
}

/** A run's trace assembled again (its request replaced), or why it cannot be. */
export type Reassembled =
  | { readonly _tag: "Rebuilt"; readonly request: StoredRequest }
  | { readonly _tag: "Failed"; readonly error: { readonly error: string; readonly message: string } }

/**
 * Whether a claimed run is one of an OTLP trace that could not be assembled: it keeps the trace's
 * id and no event (a trace that was assembled has events: one without is refused at submission).
 */
export const isUnassembled = (claimed: ClaimedRun, stored: StoredRequest): boolean =>
  claimed.source === "otlp" && stored.trace.events.length === 0 && stored.trace.id !== null

/**
 * Assembles an unassembled run's trace again from the spans kept beside it (DECISIONS §18), admits
 * it as the assembly's submit does (normalized, redacted, under the limits) and keeps it as the
 * run's request; `assembly_error` again when the spans are gone or still cannot be assembled.
 */
export const reassembleWith = (
  runs: RunStoreShape,
  otlp: OtlpStoreShape,
  diagnoses: typeof DiagnoseService.Service,
  reassembly: TraceReassemblyShape
) =>
(claimed: ClaimedRun, stored: StoredRequest) =>
  Effect.gen(function*() {
    const failed = (message: string): Reassembled => ({ _tag: "Failed", error: { error: ASSEMBLY_ERROR, message } })
    const traceId = stored.trace.id ?? ""
    const kept = (yield* otlp.known(claimed.scope, [traceId])).get(traceId)
    if (kept === undefined || kept.state !== "failed" || kept.runId !== claimed.id) {
      return failed("the trace's spans are not kept here (gone with SVC_RETENTION_DAYS, or the run was imported), so it cannot be assembled again")
    }
    const groups = yield* otlp.groups(claimed.scope, traceId)
    const built = yield* Effect.exit(reassembly.document(groups))
    if (Exit.isFailure(built)) {
      yield* Effect.logWarning("an OTLP trace still cannot be assembled on its run's retry", built.cause).pipe(Effect.annotateLogs({ run_id: claimed.id, trace_id: traceId }))
      return failed(`its spans still cannot be assembled: ${defectSummary(built.cause)}`)
    }
    // admitted as the assembly's submission admits it, with the options the run keeps
    const admitted = yield* Effect.either(diagnoses.admitOtlp(built.value.document, admittedOf(stored).options))
    const first: Either.Either<AdmittedDiagnose, ValidationError | InternalError | RequestTooLarge | undefined> = Either.isLeft(admitted)
      ? Either.left(admitted.left)
      : admitted.right.traces[0] ?? Either.left(undefined)
    if (Either.isLeft(first)) {
      const refusal = first.left
      return refusal === undefined
        ? failed("its spans hold no trace")
        : { _tag: "Failed", error: { error: errorKinds[refusal._tag].kind, message: refusal.message } } satisfies Reassembled
    }
    const request: StoredRequest = {
      key_name: stored.key_name,
      format: first.right.format,
      trace: first.right.trace,
      options: wireOptions(first.right.options),
      redactions: first.right.redactions
    }
    yield* runs.replaceRequest(claimed.id, JSON.stringify(request), built.value.labels)
    return { _tag: "Rebuilt", request } satisfies Reassembled
  })

/** What decides whether a run's lenses explain its failure (DECISIONS §24). */
export interface ExplainPolicy {
  readonly settings: ExplainSettings
  readonly states: (scope: string, fingerprints: ReadonlyArray<string>, version: string | undefined, dayStart: number) => Effect.Effect<ReadonlyMap<string, FailureState>, SqlError.SqlError>
}

/** The fingerprints of a trace's check-anchored failures, the decisive one first (a check finding alone decides them). */
const checkFingerprints = (trace: NormalizedTrace, checks: ReadonlyArray<CheckFinding>): ReadonlyArray<string> =>
  failuresOf(trace, checks, []).map((failure) => failure.fingerprint)

export interface RunnerOptions {
  readonly tracing: TracingShape
  readonly evaluation: EvaluationTarget | undefined
  /** Known failures end on their checks (DECISIONS §24); without it every run's lenses run. */
  readonly explain?: ExplainPolicy | undefined
  /** Assembles an unassembled run's trace again (`reassembleWith`); without it such a run fails `assembly_error` again. */
  readonly reassemble?: ((claimed: ClaimedRun, stored: StoredRequest) => Effect.Effect<Reassembled, SqlError.SqlError, Caller>) | undefined
}

const NO_RUNNER_OPTIONS: RunnerOptions = { tracing: TRACING_OFF, evaluation: undefined }

/** The diagnose of one claimed run, its budget reserved before and settled after. */
export const makeRunner = (
  store: RunStoreShape,
  diagnoses: typeof DiagnoseService.Service,
  scopes: ScopesShape,
  dailyBudget: number | undefined,
  { evaluation, explain, reassemble, tracing }: RunnerOptions = NO_RUNNER_OPTIONS
): RunRunner =>
(claimed: ClaimedRun) =>
  Effect.gen(function*() {
    const startedAt = yield* Clock.currentTimeMillis
    if (claimed.attempts === 1) runMetrics.waited(Math.max(0, startedAt - claimed.submittedAt) / 1000)
    const read = readStoredRequest(claimed.request)
    if (Either.isLeft(read)) return { _tag: "End", end: { status: "failed", error: { error: errorKinds.InternalError.kind, message: read.left } } } satisfies RunResult
    let stored = read.right
    // the run's caller, once: the key it was submitted with (its scope, redaction and checks)
    const caller = yield* callerFrom(scopes, stored.key_name)
    const forRun = <A, E>(effect: Effect.Effect<A, E, Caller>) => Effect.provideService(effect, Caller, caller)
    if (isUnassembled(claimed, stored)) {
      const rebuilt: Reassembled = reassemble === undefined
        ? { _tag: "Failed", error: { error: ASSEMBLY_ERROR, message: "this process cannot assemble OTLP traces" } }
        : yield* forRun(reassemble(claimed, stored))
      if (rebuilt._tag === "Failed") return { _tag: "End", end: { status: "failed", error: rebuilt.error } } satisfies RunResult
      stored = rebuilt.request
    }
    const request = admittedOf(stored)
    const linked = tracing.enabled && claimed.source === "otlp" && request.trace.id !== null ? firstSpanOf(request.trace.events) : undefined
    if (linked !== undefined && request.trace.id !== null) yield* tracing.link(request.trace.id, linked, { "svc.link": "diagnosed_trace" })
    if (request.trace.content === "absent") {
      // no model call: the diagnose answers with the checks, the triage and every lens skipped (DECISIONS §18, §23)
      const { cacheKeys, report } = yield* forRun(diagnoses.run(request, `run:${claimed.id}`))
      return withEvaluation(resultOfContentFree(report, cacheKeys, request.trace), report, claimed, evaluation)
    }
    // a known failure past its exemplars ends on its checks, its problem's explanation standing for its lenses' (DECISIONS §24)
    const version = claimed.labels[VERSION_LABEL]
    // the checks once: they decide the explanation, and the diagnose reports them
    const checks = explain === undefined || stored.explain === true ? undefined : yield* forRun(diagnoses.checksOf(request.trace))
    const fingerprints = checks === undefined ? [] : checkFingerprints(request.trace, checks)
    const decision: ExplainDecision = explain === undefined
      ? { _tag: "Explain", why: "every run" }
      : decideExplain(
        fingerprints,
        fingerprints.length === 0 ? new Map() : yield* explain.states(claimed.scope, fingerprints, version, startedAt - (startedAt % DAY_MS)),
        explain.settings,
        { id: claimed.id, asked: stored.explain === true, version }
      )
    if (decision._tag === "Known") {
      const { cacheKeys, report } = yield* forRun(diagnoses.run(request, `run:${claimed.id}`, decision.why, checks))
      return withEvaluation(resultOfReport(report, cacheKeys, request.trace, { explained: false, explainedBy: decision.problemId }), report, claimed, evaluation)
    }
    const estimate = estimateTokens(request.options.mode, traceCharsOf(request.trace)) * (request.options.patterns?.length ?? request.options.maxPatterns)
    if (dailyBudget !== undefined && !(yield* store.reserve(claimed.scope, startedAt, estimate, dailyBudget))) {
      return { _tag: "End", end: { status: "skipped", reason: "budget" } } satisfies RunResult
    }
    const exit = yield* Effect.exit(forRun(diagnoses.run(request, `run:${claimed.id}`, undefined, checks)))
    const seconds = ((yield* Clock.currentTimeMillis) - startedAt) / 1000
    recordAnalysis({ surface: "worker", pattern: "diagnose", mode: request.options.mode, status: statusOfExit(exit, () => false) }, seconds)
    if (dailyBudget !== undefined) {
      const spent = Exit.isSuccess(exit) ? exit.value.report.usage.input_tokens + exit.value.report.usage.output_tokens : 0
      yield* store.settle(claimed.scope, startedAt, estimate, spent)
    }
    if (Exit.isSuccess(exit)) return withEvaluation(resultOfReport(exit.value.report, exit.value.cacheKeys, request.trace), exit.value.report, claimed, evaluation)
    return yield* Effect.failCause(exit.cause)
  }).pipe(
    Effect.catchAll((error): Effect.Effect<RunResult> => {
      const kind = error._tag === "SqlError" ? "store_unavailable" : errorKinds[error._tag].kind
      const result: RunResult = { _tag: "Transient", error: { error: kind, message: error.message } }
      return error._tag === "SqlError" || TRANSIENT.has(kind) ? Effect.succeed(result) : Effect.succeed({ _tag: "End", end: { status: "failed", error: result.error } })
    }),
    Effect.tap((result) => tracing.annotate({ "svc.run.status": result._tag === "Transient" ? "retry" : result.end.status }))
  )

/** The store's upkeep, once. */
export const upkeep = (store: RunStoreShape, cache: typeof AnalysisCache.Service, retentionDays: number) =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    yield* store.releaseExpired(now)
    const purged = yield* store.purge(now - retentionDays * DAY_MS)
    if (purged.length > 0) {
      yield* cache.evict(purged.flatMap((run) => run.cacheKeys))
      yield* Effect.logInfo("runs purged").pipe(Effect.annotateLogs({ runs: purged.length, retention_days: retentionDays }))
    }
    yield* store.requeueBudget(now - (now % DAY_MS))
    runMetrics.queued(yield* store.queued)
  })

export const RunWorkersLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const { redis, runs, telemetry } = yield* AppConfig
    // Replicas share Redis, and so each other's cache and limits, but not runs: each keeps its own svc.db.
    if (redis.url._tag === "Some" && runs.databaseUrl._tag === "None") {
      yield* Effect.logWarning(
        "SVC_REDIS_URL is set but runs are kept in this replica's SQLite file (SVC_HOME/svc.db): replicas do not share runs; set SVC_DATABASE_URL to a PostgreSQL they share, or run one replica (docs/runs.md)"
      )
    }
    if (runs.workers === 0) return
    const access = yield* RunStoreAccess
    const diagnoses = yield* DiagnoseService
    const cache = yield* AnalysisCache
    const tracing = yield* Tracing
    const scopes = yield* Scopes
    const readiness = yield* Readiness
    const tracker = yield* RequestTracker
    const reassembly = yield* Effect.serviceOption(TraceReassembly)
    const process = `${hostname()}-${globalThis.process.pid}-${randomBytes(4).toString("hex")}`
    const leaseMs = runs.leaseSeconds * 1000
    const budget = runs.dailyTokenBudget._tag === "Some" ? runs.dailyTokenBudget.value : undefined

    const start = Effect.gen(function*() {
      // The store: at once when the database exists (runs may wait in it), tried again while it
      // cannot be opened; a new database is opened by the first submit (idle memory stays low).
      const store = (yield* access.exists)
        ? yield* access.store.pipe(Effect.retry(Schedule.spaced(Duration.seconds(5))))
        : yield* access.whenOpen
      // SQLite is one process's: a lease in it is a dead process's. PostgreSQL's leases may be other
      // replicas', alive: a dead one's lapse and the upkeep gives its runs back.
      const released = store.shared ? 0 : yield* store.releaseAll
      if (released > 0) yield* Effect.logWarning("runs a previous process held were queued again").pipe(Effect.annotateLogs({ runs: released }))
      const evaluation = Option.match(telemetry.evaluation, { onNone: () => undefined, onSome: ({ url }) => ({ url, serviceName: telemetry.serviceName }) })
      const reassemble = Option.isNone(reassembly) ? undefined : reassembleWith(store, yield* access.otlp, diagnoses, reassembly.value)
      const problemStore = yield* access.problems
      const explain: ExplainPolicy = { settings: runs.explain, states: problemStore.failureStates }
      const runner = makeRunner(store, diagnoses, scopes, budget, { tracing, evaluation, reassemble, explain })
      // a run in progress is work in flight until its finish committed (with its problems): the
      // drain waits for it (within the grace)
      const around = <A, E>(working: Effect.Effect<A, E>, run: ClaimedRun) =>
        Effect.acquireUseRelease(tracker.started, () => runSpan(tracing, run, working), () => tracker.finished)
      for (let index = 0; index < runs.workers; index++) {
        const options = {
          ...DEFAULT_WORKER,
          owner: `${process}-${index}`,
          leaseMs,
          accepting: Effect.map(readiness.current, (state) => state === "ready"),
          wake: access.nextQueued,
          around
        }
        // a store failure (or a defect outside a run) stops the loop: reported, it starts again in 5 s
        yield* workerLoop(store, runner, options).pipe(
          Effect.catchAllCause((cause) =>
            Cause.isInterruptedOnly(cause)
              ? Effect.interrupt
              : Effect.zipRight(reportBackgroundError("workers", "run worker stopped; starting again", cause), Effect.sleep(Duration.seconds(5)))
          ),
          Effect.forever,
          Effect.forkScoped
        )
      }
      yield* upkeep(store, cache, runs.retentionDays).pipe(
        containRound("retention", "runs upkeep failed"),
        Effect.repeat(Schedule.spaced(Duration.min(UPKEEP, Duration.millis(leaseMs)))),
        Effect.forkScoped
      )
    })
    yield* start.pipe(
      Effect.tapErrorCause((cause) => Effect.logWarning("run workers could not start; trying again", cause)),
      Effect.retry(Schedule.spaced(Duration.seconds(5))),
      Effect.forkScoped
    )
  })
)
