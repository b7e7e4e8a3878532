/**
 * An analysis from a parsed body to a detection, for every surface, in the order of DECISIONS §3:
 * trace limits (413) → mode (400 invalid_mode) → model → baseline → schema (400) → cache →
 * provider (502) → engine under the deadline (504 / 502) → learnings, drift. Three steps, each with
 * a typed result: `admit` (the body to an `AnalyzeRequest`, src/Intake/Requests.ts), `prepare` (the
 * pattern's schema, the caller's scopes, the cache key: pure CPU work, no I/O) and `run`. A surface
 * labels what fails after the mode with the mode `admit` reports (`onMode`).
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import { Caller } from "../Auth/Caller.js"
import { type RequestScopes, unverifiedCaller } from "../Auth/Scopes.js"
import { cacheKey } from "../Cache/CacheKey.js"
import { AnalysisCache } from "../Cache/AnalysisCache.js"
import { Catalogue, type CatalogueEntry } from "../Catalogue/Catalogue.js"
import type { AnalysisResult, Detection } from "../Catalogue/Detection.js"
import type { ValidatedTrace } from "../Catalogue/Pattern.js"
import type { Mode } from "../Catalogue/Resources.js"
import { AppConfig } from "../Config.js"
import {
  type AnalyzerError,
  InternalError,
  type InvalidMode,
  type LlmResolutionError,
  type RequestTooLarge,
  Timeout,
  type UnsupportedTraceFormat,
  ValidationError
} from "../Errors.js"
import type { CheckFinding } from "../Contract/ChecksContract.js"
import { NO_CONTENT_MESSAGE } from "../Traces/ContentSettings.js"
import { Home, type LearningRecord, type StoredDetection } from "../Home/Home.js"
import { analysesRunning, countAnalysis, statusOfExit } from "../Observability/Metrics.js"
import { Tracing } from "../Observability/Tracing.js"
import { Analyzer } from "./Analyzer.js"
import { NO_QUERY, type QueryOptions } from "../Intake/Intake.js"
import { type AnalyzeRequest, readAnalyzeRequest } from "../Intake/Requests.js"
import { traceReaders } from "../Traces/Readers.js"
import { type TraceOrigin, validateAdmitted } from "./RawTraces.js"
import { AnalysisProgress, usageCounts } from "./Progress.js"
import { withDeadline } from "./Deadline.js"
import { makeTurns } from "./Turns.js"
import { Redaction } from "../Redaction/Redaction.js"
import type { RedactionCounts } from "../Redaction/Redactor.js"

export type IntakeFailure = RequestTooLarge | ValidationError | UnsupportedTraceFormat | InvalidMode | InternalError
export type RunFailure = LlmResolutionError | AnalyzerError | Timeout

/**
 * A request that passed intake: what to run, whose data it reads and writes, and its cache key
 * (the cache scope, `/`, the hash of DECISIONS §6; "" with the cache off).
 */
export interface PreparedAnalysis {
  readonly entry: CatalogueEntry
  readonly mode: Mode
  readonly model: string | null
  readonly baseline: string | null
  readonly trace: ValidatedTrace
  /** How a raw trace was read; undefined for the pattern's own shape. */
  readonly origin: TraceOrigin | undefined
  readonly scopes: RequestScopes
  readonly key: string
  /** What redaction replaced in the trace and hints, by kind (DECISIONS §20). */
  readonly redactions: RedactionCounts
}

export interface AnalysisOutcome {
  readonly result: AnalysisResult
  /** The detection to answer: the result's, with `drift` when a baseline was named. */
  readonly detection: Detection
  /** True when the result came from the cache. */
  readonly cached: boolean
}

/** Who asks for an analysis: the verified key's name (data scope) and the request id. */
export interface AnalysisCaller {
  readonly keyName: string | null
  readonly requestId: string
}

/** The response body of an analysis, as every surface returns it (`POST /v1/analyze/{name}`). */
export const analysisBody = (prepared: PreparedAnalysis, outcome: AnalysisOutcome) => ({
  pattern: prepared.entry.pattern.code.slug,
  mode: prepared.mode,
  model: outcome.result.model,
  detection: outcome.detection,
  cached: outcome.cached,
  ...(Object.keys(prepared.redactions).length > 0 ? { redactions: prepared.redactions } : {})
})

export interface AnalyzeServiceShape {
  /**
   * Waits for this request's turn at the CPU-heavy part (parsing, validation, signals, prompts):
   * under overload requests queue here, inside their deadline, not in unread sockets (Turns.ts).
   */
  readonly pace: Effect.Effect<void>
  /**
   * `body`: the parsed request body, an object or (a raw trace) an array; `query`: options given as
   * query parameters (REST), used where the body gives none (DECISIONS §16).
   */
  readonly admit: (
    slug: string,
    body: Record<string, unknown> | Array<unknown>,
    query?: QueryOptions,
    onMode?: (mode: Mode) => void
  ) => Effect.Effect<AnalyzeRequest, IntakeFailure, Caller>
  /**
   * In the `Caller`'s scopes; `candidates`: the checks' findings on the trace, which the prompt
   * lists as candidate events (a diagnose's lenses, DECISIONS §23).
   */
  readonly prepare: (request: AnalyzeRequest, candidates?: ReadonlyArray<CheckFinding>) => Effect.Effect<PreparedAnalysis, IntakeFailure, Caller>
  readonly run: (prepared: PreparedAnalysis, requestId: string) => Effect.Effect<AnalysisOutcome, RunFailure>
  /**
   * The three steps in order, after the CPU turn, for a surface with nothing to do between them
   * (MCP, the CLI); `onMode` learns the effective mode once intake has it.
   */
  readonly analyze: (
    slug: string,
    body: Record<string, unknown> | Array<unknown>,
    requestId: string,
    onMode?: (mode: Mode) => void
  ) => Effect.Effect<{ readonly prepared: PreparedAnalysis; readonly outcome: AnalysisOutcome }, IntakeFailure | RunFailure, Caller>
}

export class AnalyzeService extends Context.Tag("AnalyzeService")<AnalyzeService, AnalyzeServiceShape>() {}

/**
 * What a baseline keeps of a detection: enough to compare severity, profile and findings, and
 * nothing quoted from the trace (no evidence, no signals, no summary).
 */
export const storedOf = (detection: Detection): StoredDetection => ({
  severity: detection.severity,
  confidence: detection.confidence,
  profile: detection.profile,
  findings: detection.findings.map(({ title }) => ({ title })),
  generated_at: detection.generated_at
})

const learningOf = (now: number, pattern: string, mode: string, detection: Detection): LearningRecord => ({
  time: new Date(now).toISOString(),
  pattern,
  mode,
  severity: detection.severity,
  profile: detection.profile,
  findings: detection.findings.map(({ title }) => title),
  interventions: detection.interventions.map(({ type }) => type)
})

/**
 * Analyses admitted to their CPU-heavy part per event-loop turn (Turns.ts): about 8 ms of work
 * between polls of the sockets. 24 rather than 8 took the burst's p99 from 7.5–8.3 s to 6.9–7.3 s
 * (fewer turns, less of their own cost); 64 was no better (docs/performance.md).
 */
const ANALYSES_PER_TURN = 24
/**
 * How long a model's answer may wait behind new intakes under overload (Turns.ts): with 2 s the
 * burst's p99 fell by about a tenth; with 1 s the gain was gone (docs/performance.md).
 */
const ANSWER_PATIENCE_MS = 2000

export const AnalyzeServiceLive = Layer.effect(
  AnalyzeService,
  Effect.gen(function*() {
    const { limits } = yield* AppConfig
    const catalogue = yield* Catalogue
    const analyzer = yield* Analyzer
    const cache = yield* AnalysisCache
    const tracing = yield* Tracing
    const home = yield* Home
    const redaction = yield* Redaction
    const turns = makeTurns(ANALYSES_PER_TURN, ANSWER_PATIENCE_MS)
    const deadlineSeconds = Duration.toSeconds(limits.requestTimeout)
    const deadlineMillis = Duration.toMillis(limits.requestTimeout)
    const deadline = <A, E, R>(self: Effect.Effect<A, E, R>) =>
      withDeadline(self, deadlineMillis, () =>
        new Timeout({
          message: `the analysis exceeded the server-side deadline of ${deadlineSeconds} s; use quick mode or raise SVC_API_REQUEST_TIMEOUT`
        }))

    const admit: AnalyzeServiceShape["admit"] = (slug, body, query = NO_QUERY, onMode) => {
      const entry = catalogue.get(slug)
      if (entry === undefined) return Effect.fail(new InternalError({ message: `pattern ${slug} is registered but not loaded` }))
      return Effect.flatMap(traceReaders, (readers) =>
        Effect.flatMap(redaction.forCaller, (redactor) => readAnalyzeRequest(readers, entry, body, limits, redactor, query, onMode)))
    }

    const prepare: AnalyzeServiceShape["prepare"] = (request, candidates = []) =>
      Effect.gen(function*() {
        const { scopes } = yield* Caller
        // The guards refuse such a request (401) before it gets here: fail closed if one does.
        if (scopes === undefined) return yield* unverifiedCaller()
        const { entry, options, trace: admitted } = request
        // Nothing of a trace without message content reaches a provider (DECISIONS §23), whichever
        // surface let it come this far: intake refuses it, and so does this last step before a model.
        if (admitted._tag === "Raw" && admitted.trace.content === "absent") return yield* new ValidationError({ message: NO_CONTENT_MESSAGE })
        const { baseline, mode, model } = options
        const { trace, origin } = yield* validateAdmitted(entry.pattern.code, admitted, options.hints, candidates)
        const pattern = entry.pattern.code.slug
        const key = !cache.enabled
          ? ""
          : `${scopes.cache}/${
            cacheKey(
              origin === undefined
                ? { pattern, mode, model, trace: trace.canonical }
                : { pattern, mode, model, trace: trace.canonical, intake: origin.keyParts }
            )
          }`
        return { entry, mode, model, baseline, trace, origin, scopes, key, redactions: request.redactions }
      })

    /** The analysis's span (DECISIONS §21): a lens, whether a request or a diagnose runs it. */
    const lensSpan = <E, R>(prepared: PreparedAnalysis, effect: Effect.Effect<AnalysisOutcome, E, R>) =>
      !tracing.enabled ? effect : tracing.span(effect, `lens ${prepared.entry.pattern.code.slug}`, {
        attributes: { "svc.pattern": prepared.entry.pattern.code.slug, "svc.mode": prepared.mode },
        onEnd: (exit, set) => {
          if (!Exit.isSuccess(exit)) return
          const { detection, cached } = exit.value
          set("svc.cache", cached ? "hit" : "miss")
          set("svc.severity", detection.severity)
          set("svc.findings", detection.findings.length)
          set("svc.usage.llm_calls", detection.usage.llm_calls)
          set("svc.usage.input_tokens", detection.usage.input_tokens)
          set("svc.usage.output_tokens", detection.usage.output_tokens)
        }
      })

    const run = (prepared: PreparedAnalysis, requestId: string) =>
      lensSpan(prepared, Effect.gen(function*() {
        const { entry, mode, model, baseline, trace, origin, scopes } = prepared
        const slug = entry.pattern.code.slug
        // When the deadline below ends, for the analysis: its model calls' retries stop short of it.
        // A run that identical requests share (the cache) has the deadline of the one that started it.
        const endsAt = (yield* Clock.currentTimeMillis) + deadlineMillis
        const compute = analyzer.analyze(
          { pattern: entry.pattern, mode, model, trace, origin, baseline, requestId, deadline: endsAt, answered: turns.finish }
        ).pipe(
          // One learnings line per computed detection (a shared run writes it once).
          Effect.tap((computed) => Effect.flatMap(Clock.currentTimeMillis, (now) => home.learning(learningOf(now, slug, mode, computed.detection)))),
          deadline,
          Effect.ensuring(Effect.sync(analysesRunning.decrement)),
          (effect) => Effect.zipRight(Effect.sync(analysesRunning.increment), effect)
        )
        // With the cache on, a request may wait on another's run (single flight): its own deadline
        // bounds the wait. With it off, the run is this request's and already under the deadline.
        const { result, cached } = yield* (cache.enabled ? cache.run(prepared.key, compute).pipe(deadline) : cache.run(prepared.key, compute))
        // Drift depends on the baseline store, not on the cache key: computed per request.
        const detection = baseline === null
          ? result.detection
          : { ...result.detection, drift: yield* home.baseline(scopes.data, slug, baseline, storedOf(result.detection)) }
        return { result, detection, cached }
      })).pipe(
        // Every analysis, whatever the surface (REST, a diagnose's inner runs, MCP), counts once.
        Effect.onExit((exit) =>
          Effect.flatMap(AnalysisProgress, (progress) =>
            Effect.sync(() => {
              const slug = prepared.entry.pattern.code.slug
              const status = statusOfExit(exit, (outcome) => outcome.cached)
              countAnalysis(slug, prepared.mode, status)
              progress.report(
                slug,
                exit._tag === "Success"
                  ? { state: "done", ...usageCounts(exit.value.detection), ...(exit.value.cached ? { note: "cached" } : {}) }
                  : { state: "failed", calls: 0, inputTokens: 0, outputTokens: 0, note: status }
              )
            }))
        )
      )

    const analyze: AnalyzeServiceShape["analyze"] = (slug, body, requestId, onMode) =>
      Effect.gen(function*() {
        yield* turns.turn
        const request = yield* admit(slug, body, NO_QUERY, onMode)
        const prepared = yield* prepare(request)
        const outcome = yield* run(prepared, requestId)
        return { prepared, outcome }
      })

    return { pace: turns.turn, admit, prepare, run, analyze }
  })
)

