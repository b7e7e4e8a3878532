/**
 * Diagnose (DECISIONS §13), for every surface: one trace in (any format the intake reads), the
 * lenses that fit it chosen by triage (or the ones named), run concurrently through the same
 * AnalyzeService as `POST /v1/analyze/{name}` (the cache, single flight, scopes, limits and
 * metrics included), and merged into one report. One lens failing leaves its entry with the error
 * kind; the whole is bounded by the request deadline (504, upstream calls aborted).
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import { Caller } from "../Auth/Caller.js"
import { AnalyzeService } from "../Analysis/AnalyzeService.js"
import { MODE_PLANS } from "../Analysis/Engine.js"
import { AnalysisProgress } from "../Analysis/Progress.js"
import { NO_QUERY, type QueryOptions } from "../Intake/Intake.js"
import { decodeDiagnoseOptions, type DiagnoseOptions, readTraceIntake, redactionsOf, type TraceIntake } from "../Intake/Requests.js"
import type { RedactionCounts, ScopedRedactor } from "../Redaction/Redactor.js"
import { Redaction } from "../Redaction/Redaction.js"
import { Tracing } from "../Observability/Tracing.js"
import { redactRecord, redactTrace } from "../Redaction/Trace.js"
import { Catalogue, type CatalogueEntry } from "../Catalogue/Catalogue.js"
import type { Mode } from "../Catalogue/Resources.js"
import { AppConfig } from "../Config.js"
import {
  errorKinds,
  type InternalError,
  type InvalidMode,
  type RequestTooLarge,
  Timeout,
  type UnsupportedTraceFormat,
  ValidationError
} from "../Errors.js"
import type { OtlpDocument } from "../Otlp/Wire/Model.js"
import type { NormalizedTrace, TraceFormat } from "../Traces/Model.js"
import type { CheckFinding } from "../Contract/ChecksContract.js"
import { traceReaders } from "../Traces/Readers.js"
import { checksReportOf, type MergeInput, mergeReport, type RunOutcome } from "./Merge.js"
import type { DiagnoseReport, ReportContext, TriageEntry } from "../Contract/DiagnoseReport.js"
import { type Candidate, rankCandidates, shapeOf, triageOne } from "./Triage.js"
import { contentOf, noContentReason } from "./Content.js"
import { Checks } from "../Checks/Checks.js"
import type { ChecksResponse } from "../Contract/DiagnoseContract.js"

/** Lenses run at once inside one diagnose. */
const CONCURRENCY = 4

export type DiagnoseFailure = ValidationError | UnsupportedTraceFormat | RequestTooLarge | InvalidMode | Timeout | InternalError

export interface DiagnoseOutcome {
  readonly report: DiagnoseReport
  /** The normalized events, for renderers that show the run. */
  readonly events: ReportContext["events"]
  /** The cache keys of the lenses that ran (a stored run's delete evicts them, DECISIONS §17). */
  readonly cacheKeys: ReadonlyArray<string>
}

/**
 * A diagnose's typed request once admitted (DECISIONS §16): one trace, normalized and redacted
 * under the limits, and its options decoded, the hints redacted. What a stored run keeps.
 */
export interface AdmittedDiagnose {
  readonly format: TraceFormat
  readonly trace: NormalizedTrace
  readonly options: DiagnoseOptions
  /** What redaction replaced in the trace and the hints, by kind. */
  readonly redactions: RedactionCounts
}

/** Every trace of a body admitted on its own (the runs API: one run per trace, DECISIONS §17). */
export interface AdmittedEach {
  readonly format: TraceFormat
  readonly traces: ReadonlyArray<Either.Either<AdmittedDiagnose, RequestTooLarge>>
}

export type AdmitFailure = ValidationError | UnsupportedTraceFormat | RequestTooLarge | InvalidMode | InternalError

export type CheckFailure = ValidationError | UnsupportedTraceFormat | RequestTooLarge | InternalError

export interface DiagnoseServiceShape {
  /** `body`: the parsed request body; the `Caller` names the data scope. */
  readonly diagnose: (
    body: Record<string, unknown> | Array<unknown>,
    requestId: string,
    /** Options given as query parameters (REST), used where the body gives none (DECISIONS §16). */
    query?: QueryOptions
  ) => Effect.Effect<DiagnoseOutcome, DiagnoseFailure, Caller>
  /**
   * Every trace of a body as its own admitted request (`select` narrows it to one): the body's
   * shape, format and options fail the whole; a trace over the limits fails alone.
   */
  readonly admitEach: (
    body: Record<string, unknown> | Array<unknown>,
    query?: QueryOptions
  ) => Effect.Effect<AdmittedEach, AdmitFailure, Caller>
  /**
   * A trace the OTLP assembly completed, admitted as `admitEach` admits a body's traces (each
   * normalized, redacted and judged by the limits on its own, the hints redacted), with no body to
   * read: its spans as the OTLP/JSON document the span readers take (no format detected among the
   * others), its options decoded already.
   */
  readonly admitOtlp: (
    document: OtlpDocument,
    options: DiagnoseOptions
  ) => Effect.Effect<AdmittedEach, ValidationError | InternalError, Caller>
  /**
   * The checks alone (`POST /v1/checks`, DECISIONS §23): diagnose's intake of the trace (format,
   * select, limits, redaction), then the checks; no triage, lens or model, so the lenses' options
   * are not read.
   */
  readonly check: (
    body: Record<string, unknown> | Array<unknown>,
    query?: QueryOptions
  ) => Effect.Effect<ChecksResponse, CheckFailure, Caller>
  /**
   * Runs an admitted request: triage, the lenses, the merge (the worker's way in, and diagnose's).
   * `withoutLenses`: why no lens runs (a run of a known failure, DECISIONS §24): every lens is
   * skipped with that reason, and no model is called. `checks`: the trace's checks when the caller
   * ran them already (`checksOf`, the worker's explain decision), not run twice.
   */
  readonly run: (
    request: AdmittedDiagnose,
    requestId: string,
    withoutLenses?: string,
    checks?: ReadonlyArray<CheckFinding>
  ) => Effect.Effect<DiagnoseOutcome, Timeout | InternalError, Caller>
  /** The checks' findings on a trace in the caller's scope (SVC_CHECKS_FILE), as a diagnose's report holds them. */
  readonly checksOf: (trace: NormalizedTrace) => Effect.Effect<ReadonlyArray<CheckFinding>, never, Caller>
}

export class DiagnoseService extends Context.Tag("DiagnoseService")<DiagnoseService, DiagnoseServiceShape>() {}


/**
 * The planned spend of one lens in a mode (tokens in and out), before it runs: the trace as the
 * mode's budget takes it, the system prompt and schema, and the mode's further passes.
 */
/** The characters of a trace's text (task, outcome, events): what the estimate reads. */
export const traceCharsOf = (trace: NormalizedTrace): number =>
  trace.events.reduce((sum, event) => sum + event.content.length, trace.task.length + trace.outcome.length)

export const estimateTokens = (mode: Mode, traceChars: number): number => {
  const plan = MODE_PLANS[mode]
  const trace = Math.ceil(Math.min(traceChars, plan.traceChars * plan.maxChunks) / 4)
  const fixed = 4_000
  switch (mode) {
    case "quick":
      return trace + fixed + 1_500
    case "standard":
      return trace + 2 * fixed + 6_000 + 3_000
    case "forensic":
      return trace + 6 * fixed + 12_000 + Math.ceil(Math.min(traceChars, plan.traceChars) / 4) + 6_000
  }
}

export const DiagnoseServiceLive = Layer.effect(
  DiagnoseService,
  Effect.gen(function*() {
    const { limits } = yield* AppConfig
    const catalogue = yield* Catalogue
    const redaction = yield* Redaction
    const tracing = yield* Tracing
    const analyses = yield* AnalyzeService
    const checkRules = yield* Checks
    const entries = catalogue.entries
    const catalogueOrder = entries.map((entry) => entry.pattern.code.slug)
    const deadlineSeconds = Duration.toSeconds(limits.requestTimeout)

    const known = (slug: string) => catalogue.get(slug) !== undefined

    /** The body's options, the hints redacted; decoded once per body whatever its traces. */
    const optionsOf = (body: Record<string, unknown> | Array<unknown>, intake: TraceIntake, redactor: ScopedRedactor, query: QueryOptions) =>
      Effect.map(decodeDiagnoseOptions(body, intake, known, query), (decoded) => {
        const hints = redactRecord(redactor, decoded.hints)
        return { options: { ...decoded, hints: hints.value }, hintRedactions: hints.counts }
      })

    /** Each trace read, with the options decoded (the hints redacted): the admitted requests. */
    const admittedEach = (
      format: TraceFormat,
      traces: ReadonlyArray<Either.Either<NormalizedTrace, RequestTooLarge>>,
      options: DiagnoseOptions,
      hintRedactions: RedactionCounts
    ): AdmittedEach => ({
      format,
      traces: traces.map((trace) =>
        Either.map(trace, (admitted): AdmittedDiagnose => ({ format, trace: admitted, options, redactions: redactionsOf(admitted.redactions, hintRedactions) }))
      )
    })

    const admitEach: DiagnoseServiceShape["admitEach"] = (body, query = NO_QUERY) =>
      Effect.gen(function*() {
        // The typed request in its two phases (src/Intake/Requests.ts): the trace's shape, then,
        // after it is normalized under the limits, the options by the contract's schemas.
        const readers = yield* traceReaders
        const intake = yield* readTraceIntake(readers, body, query)
        const redactor = yield* redaction.forCaller
        const each = yield* readers.normalizeTraces(intake.parts.trace, intake.format, limits, redactTrace(redactor))
        const chosen = intake.select === undefined
          ? each.traces
          : [yield* Either.map(readers.selectTrace({ format: each.format, traces: each.traces.flatMap((trace) => Either.isRight(trace) ? [trace.right] : []) }, intake.select), Either.right)]
        const { hintRedactions, options } = yield* optionsOf(body, intake, redactor, query)
        return admittedEach(each.format, chosen, options, hintRedactions)
      })

    const admitOtlp: DiagnoseServiceShape["admitOtlp"] = (document, options) =>
      Effect.gen(function*() {
        const readers = yield* traceReaders
        const redactor = yield* redaction.forCaller
        const each = yield* readers.normalizeOtlp(document, limits, redactTrace(redactor))
        const hints = redactRecord(redactor, options.hints)
        return admittedEach(each.format, each.traces, { ...options, hints: hints.value }, hints.counts)
      })

    /** One trace of a body: its intake read, normalized and redacted under the limits, `select` applied (diagnose and check alike). */
    const admitOne = (body: Record<string, unknown> | Array<unknown>, query: QueryOptions) =>
      Effect.gen(function*() {
        // the CPU turn normalize takes: a large trace is parsed here
        yield* analyses.pace
        const readers = yield* traceReaders
        const intake = yield* readTraceIntake(readers, body, query)
        const redactor = yield* redaction.forCaller
        const normalized = yield* readers.normalizeTrace(intake.parts.trace, intake.format, limits, redactTrace(redactor))
        const trace = yield* readers.selectTrace(normalized, intake.select)
        return { intake, redactor, format: normalized.format, trace }
      })

    const diagnose: DiagnoseServiceShape["diagnose"] = (body, requestId, query = NO_QUERY) =>
      Effect.gen(function*() {
        const { format, intake, redactor, trace } = yield* admitOne(body, query)
        const { hintRedactions, options } = yield* optionsOf(body, intake, redactor, query)
        return yield* run({ format, trace, options, redactions: redactionsOf(trace.redactions, hintRedactions) }, requestId)
      })

    const check: DiagnoseServiceShape["check"] = (body, query = NO_QUERY) =>
      tracing.span(
        Effect.flatMap(admitOne(body, query), ({ format, trace }) =>
          Effect.map(checkRules.run(trace), (checks) => checksReportOf(format, trace, redactionsOf(trace.redactions), checks))),
        "check",
        {
          onEnd: (exit, set) => {
            if (!Exit.isSuccess(exit)) return
            set("svc.format", exit.value.trace.format)
            set("svc.severity", exit.value.severity)
            set("svc.checks", exit.value.checks.length)
          }
        }
      )

    /** The diagnose's span (DECISIONS §21), when spans are made. */
    const diagnoseSpan = <E, R>(request: AdmittedDiagnose, effect: Effect.Effect<DiagnoseOutcome, E, R>) =>
      !tracing.enabled ? effect : tracing.span(effect, "diagnose", {
        attributes: { "svc.format": request.format, "svc.mode": request.options.mode },
        onEnd: (exit, set) => {
          if (!Exit.isSuccess(exit)) return
          const { report } = exit.value
          set("svc.severity", report.severity)
          set("svc.findings", report.findings.length)
          set("svc.lenses", report.patterns.length)
          set("svc.usage.input_tokens", report.usage.input_tokens)
          set("svc.usage.output_tokens", report.usage.output_tokens)
        }
      })

    const run: DiagnoseServiceShape["run"] = (request, requestId, withoutLenses, ran) =>
      diagnoseSpan(request, Effect.gen(function*() {
        const startedAt = yield* Clock.currentTimeMillis
        yield* analyses.pace
        const { format, redactions, trace } = request
        const { budgetTokens: budget, hints, maxPatterns, mode, model, patterns: named } = request.options
        // The checks first, on every trace, with or without a model (DECISIONS §23).
        const checks = ran ?? (yield* checkRules.run(trace))

        // Triage: every pattern against the trace, by code; the event loop gets a turn between
        // patterns (a long trace takes milliseconds per pattern), so other requests go on.
        const shape = shapeOf(trace, checks)
        const candidates = rankCandidates(
          yield* Effect.forEach(entries, (entry) =>
            Effect.zipRight(analyses.pace, Effect.sync(() => triageOne(entry, format, trace, hints, shape))))
        )
        const perRun = estimateTokens(mode, traceCharsOf(trace))
        const chosen: Array<Candidate> = []
        const skipped = new Map<string, string>()
        const wanted = named === undefined
          ? candidates.filter((candidate) => candidate.cannot === undefined && candidate.score > 0)
          : named.flatMap((slug) => candidates.filter((candidate) => candidate.entry.pattern.code.slug === slug))
        // A trace without message content is triaged, but no lens runs on it (DECISIONS §18): every
        // lens that could read it is skipped as no_content, and no model is called.
        const contentFree = trace.content === "absent"
        if (contentFree || withoutLenses !== undefined) {
          const reason = contentFree ? noContentReason(contentOf(trace)) : withoutLenses ?? ""
          for (const candidate of candidates) if (candidate.cannot === undefined) skipped.set(candidate.entry.pattern.code.slug, reason)
        }
        for (const candidate of contentFree || withoutLenses !== undefined ? [] : wanted) {
          const slug = candidate.entry.pattern.code.slug
          if (candidate.cannot !== undefined) {
            skipped.set(slug, candidate.cannot)
          } else if (named === undefined && chosen.length >= maxPatterns) {
            skipped.set(slug, `beyond max_patterns (${maxPatterns})`)
          } else if (budget !== null && (chosen.length + 1) * perRun > budget) {
            skipped.set(slug, `over budget_tokens (${budget}; about ${perRun} tokens per lens in ${mode} mode)`)
          } else {
            chosen.push(candidate)
          }
        }
        for (const candidate of candidates) {
          const slug = candidate.entry.pattern.code.slug
          if (candidate.cannot !== undefined && !skipped.has(slug)) skipped.set(slug, candidate.cannot)
        }
        const chosenSlugs = new Set(chosen.map((candidate) => candidate.entry.pattern.code.slug))
        const triageEntries: Array<TriageEntry> = candidates.map((candidate) => ({
          pattern: candidate.entry.pattern.code.slug,
          friendly: candidate.entry.pattern.code.friendly,
          score: candidate.score,
          chosen: chosenSlugs.has(candidate.entry.pattern.code.slug),
          reasons: candidate.reasons,
          skipped: skipped.get(candidate.entry.pattern.code.slug) ?? null
        }))

        // The chosen lenses, concurrently, each through the same intake and engine as analyze.
        const progress = yield* AnalysisProgress
        for (const candidate of chosen) {
          progress.report(candidate.entry.pattern.code.slug, { state: "queued", calls: 0, inputTokens: 0, outputTokens: 0 })
        }
        const cacheKeys: Array<string> = []
        const runOne = (candidate: Candidate): Effect.Effect<RunOutcome, never, Caller> => {
          const entry: CatalogueEntry = candidate.entry
          const base = {
            pattern: entry.pattern.code.slug,
            friendly: entry.pattern.code.friendly,
            signals: candidate.signals ?? { values: {}, highlights: [] },
            playbookKeys: entry.pattern.playbooks.map((playbook) => playbook.key)
          }
          // the checks' findings go to each lens as candidate events (DECISIONS §23)
          return analyses.prepare(
            { entry, options: { mode, model, baseline: null, hints }, trace: { _tag: "Raw", format: format, trace }, redactions },
            checks
          ).pipe(
            Effect.tap((prepared) => Effect.sync(() => cacheKeys.push(prepared.key))),
            Effect.flatMap((prepared) =>
              Effect.map(analyses.run(prepared, requestId), (outcome): RunOutcome => ({
                ...base,
                result: {
                  _tag: "Done",
                  detection: outcome.detection,
                  cached: outcome.cached,
                  eventOf: prepared.origin?.eventOf ?? (() => undefined)
                }
              }))
            ),
            Effect.catchAll((error) => {
              const kind = errorKinds[error._tag].kind
              progress.report(base.pattern, { state: "failed", calls: 0, inputTokens: 0, outputTokens: 0, note: kind })
              const retryable = error._tag === "Timeout" || (error._tag === "AnalyzerError" && error.retryable === true)
              return Effect.succeed<RunOutcome>({ ...base, result: { _tag: "Failed", kind, message: error.message, retryable } })
            })
          )
        }
        const runs = yield* Effect.forEach(chosen, runOne, { concurrency: CONCURRENCY }).pipe(
          Effect.timeoutFail({
            duration: limits.requestTimeout,
            onTimeout: () =>
              new Timeout({
                message: `the diagnose exceeded the server-side deadline of ${deadlineSeconds} s; name fewer patterns, use quick mode or raise SVC_API_REQUEST_TIMEOUT`
              })
          })
        )
        const finishedAt = yield* Clock.currentTimeMillis
        const input: MergeInput = {
          catalogueOrder,
          format: format,
          trace,
          mode,
          model,
          runs,
          checks,
          triage: triageEntries,
          estimatedTokens: perRun * chosen.length,
          budgetTokens: budget,
          elapsedMs: finishedAt - startedAt,
          now: new Date(finishedAt),
          redactions
        }
        return { report: mergeReport(input), events: trace.events, cacheKeys }
      }))

    const checksOf: DiagnoseServiceShape["checksOf"] = (trace) => checkRules.run(trace)

    return { diagnose, admitEach, admitOtlp, check, run, checksOf }
  })
)
