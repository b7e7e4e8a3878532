/**
 * `POST /v1/analyze/{name}` from request to response, in the order of DECISIONS §3:
 * 404 unknown pattern (routing) → 413 body bytes → 415/400 not JSON or not an object →
 * 413 trace limits → 400 invalid_mode → 400 schema → cache → provider (502) → engine under the
 * deadline (504 / 502). The handler records the mode and outcome for the metrics middleware.
 */
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Clock, Context, Duration, Effect, Layer, Metric } from "effect"
import { createHash } from "node:crypto"
import { Catalogue } from "../Catalogue/Catalogue.js"
import { unknownPattern } from "../Catalogue/CatalogueHttp.js"
import type { PatternCode } from "../Catalogue/Pattern.js"
import { AppConfig } from "../Config.js"
import {
  type AnalyzerError,
  type AuthMisconfigured,
  errorKinds,
  InternalError,
  type InvalidMode,
  type LlmResolutionError,
  type RateLimited,
  type RequestTooLarge,
  Timeout,
  type Unauthorized,
  type UnknownPattern,
  type UnsupportedMediaType,
  type ValidationError
} from "../Errors.js"
import { parseJsonObject, readJsonBody } from "../Http/Body.js"
import { currentRequest, updateRequest } from "../Http/RequestContext.js"
import { AnalysisCache } from "../Cache/AnalysisCache.js"
import { Home, type LearningRecord, type StoredDetection } from "../Home/Home.js"
import { analysesInFlight } from "../Observability/Metrics.js"
import { RetryDeadline } from "../Providers/Retry.js"
import { cacheKey } from "../Cache/CacheKey.js"
import type { Mode } from "../Catalogue/Resources.js"
import { type AnalysisResult, Analyzer } from "./Analyzer.js"
import { makeTurns } from "./Turns.js"
import { checkTraceLimits, resolveBaseline, resolveMode, resolveModel, splitBody, validateTrace } from "./Intake.js"

type RawRequest = { readonly request: HttpServerRequest.HttpServerRequest }

/** The errors an analyze endpoint declares (AnalyzeContract) plus the API-wide internal error. */
export type AnalyzeFailure =
  | ValidationError
  | InvalidMode
  | Unauthorized
  | RequestTooLarge
  | UnsupportedMediaType
  | RateLimited
  | AuthMisconfigured
  | LlmResolutionError
  | AnalyzerError
  | Timeout
  | InternalError

/** A stored detection answered from its prepared bytes. */
export interface CachedResponse {
  readonly bytes: Uint8Array
  readonly mode: Mode
}

export interface AnalyzeHandlersShape {
  readonly cacheEnabled: boolean
  /**
   * The stored detection for a body identical to one already validated for this pattern (counted
   * as a cache hit), else undefined. Synchronous: the node:http fast path answers hits with it.
   */
  readonly cachedResponse: (slug: string, bytes: Uint8Array) => CachedResponse | undefined
  readonly handler: (code: PatternCode) => (request: RawRequest) => Effect.Effect<HttpServerResponse.HttpServerResponse, AnalyzeFailure>
  readonly unknownPattern: (request: { readonly path: { readonly name: string } }) => Effect.Effect<never, UnknownPattern>
}

const strings = (list: unknown, field: string): Array<string> =>
  Array.isArray(list)
    ? list.flatMap((item) => {
      const value: unknown = typeof item === "object" && item !== null ? Reflect.get(item, field) : undefined
      return typeof value === "string" ? [value] : []
    })
    : []

const SEVERITIES: ReadonlyArray<StoredDetection["severity"]> = ["none", "low", "medium", "high", "critical"]
const severityOf = (u: unknown): StoredDetection["severity"] => SEVERITIES.find((s) => s === u) ?? "none"

/**
 * What a baseline keeps of a detection: enough to compare severity, profile and findings, and
 * nothing quoted from the trace (no evidence, no signals, no summary).
 */
export const storedOf = (detection: Readonly<Record<string, unknown>>): StoredDetection & Readonly<Record<string, unknown>> => ({
  severity: severityOf(detection["severity"]),
  confidence: typeof detection["confidence"] === "number" ? detection["confidence"] : null,
  profile: typeof detection["profile"] === "string" ? detection["profile"] : "indeterminate",
  findings: strings(detection["findings"], "title").map((title) => ({ title })),
  generated_at: typeof detection["generated_at"] === "string" ? detection["generated_at"] : null
})

const bodyFingerprint = (slug: string, bytes: Uint8Array) =>
  createHash("sha256").update(slug).update("\u0000").update(bytes).digest("hex")

/** Analyses admitted to their CPU-heavy part per event-loop turn (Turns.ts). */
const ANALYSES_PER_TURN = 8

const encoder = new TextEncoder()
/** The response of a cache hit, rendered once per stored detection. */
const hitResponseBytes = (slug: string, mode: Mode, result: AnalysisResult) =>
  encoder.encode(JSON.stringify({ pattern: slug, mode, model: result.model, detection: result.detection, cached: true }))

const learningOf = (pattern: string, mode: string, detection: Readonly<Record<string, unknown>>): LearningRecord => ({
  time: new Date().toISOString(),
  pattern,
  mode,
  severity: severityOf(detection["severity"]),
  profile: typeof detection["profile"] === "string" ? detection["profile"] : "indeterminate",
  findings: strings(detection["findings"], "title"),
  interventions: strings(detection["interventions"], "type")
})

export class AnalyzeHandlers extends Context.Tag("AnalyzeHandlers")<AnalyzeHandlers, AnalyzeHandlersShape>() {}

export const AnalyzeHandlersLive = Layer.effect(
  AnalyzeHandlers,
  Effect.gen(function*() {
    const config = yield* AppConfig
    const catalogue = yield* Catalogue
    const analyzer = yield* Analyzer
    const cache = yield* AnalysisCache
    const home = yield* Home
    const { limits } = config
    const turns = makeTurns(ANALYSES_PER_TURN)
    const deadlineSeconds = Duration.toSeconds(limits.requestTimeout)
    // Body fingerprint → validated cache key, for bodies that passed every check (bounded, LRU).
    const fingerprints = new Map<string, { readonly key: string; readonly mode: Mode }>()
    const maxFingerprints = config.cache.capacity * 2
    const remember = (fingerprint: string, known: { readonly key: string; readonly mode: Mode }) => {
      fingerprints.delete(fingerprint)
      fingerprints.set(fingerprint, known)
      if (fingerprints.size > maxFingerprints) {
        const oldest = fingerprints.keys().next()
        if (!oldest.done) fingerprints.delete(oldest.value)
      }
    }

    // The fingerprint of a body, computed once per body (the fast path and the handler share it).
    const fingerprintOf = new WeakMap<Uint8Array, string>()
    const fingerprint = (slug: string, bytes: Uint8Array) => {
      let known = fingerprintOf.get(bytes)
      if (known === undefined) {
        known = bodyFingerprint(slug, bytes)
        fingerprintOf.set(bytes, known)
      }
      return known
    }
    const cachedResponse = (slug: string, bytes: Uint8Array): CachedResponse | undefined => {
      if (!cache.enabled) return undefined
      const known = fingerprints.get(fingerprint(slug, bytes))
      if (known === undefined) return undefined
      const hit = cache.hitBytesAt(known.key, (result) => hitResponseBytes(slug, known.mode, result), cache.now())
      return hit === undefined ? undefined : { bytes: hit, mode: known.mode }
    }

    const handler = (code: PatternCode) => {
      const entry = catalogue.get(code.slug)
      return ({ request }: RawRequest): Effect.Effect<HttpServerResponse.HttpServerResponse, AnalyzeFailure> =>
        Effect.gen(function*() {
          if (entry === undefined) {
            return yield* new InternalError({ message: `pattern ${code.slug} is registered but not loaded` })
          }
          const bytes = yield* readJsonBody(request, limits.maxBodyBytes)
          // Repeated identical bodies: their validated cache key is known, so a stored detection
          // is answered from its prepared bytes without parsing or validating again.
          const hit = cachedResponse(code.slug, bytes)
          if (hit !== undefined) {
            yield* updateRequest((state) => {
              state.analyzeMode = hit.mode
              state.analyzeStatus = "cache_hit"
            })
            return HttpServerResponse.uint8Array(hit.bytes, { contentType: "application/json", headers: { "x-cache": "hit" } })
          }
          // Parsing, validation, signals and prompt assembly are CPU work: paced per loop turn, so
          // under overload requests queue here, inside their deadline, not in unread sockets.
          yield* turns.turn
          const body = yield* parseJsonObject(bytes)
          const parts = splitBody(body)
          yield* checkTraceLimits(parts.trace, code, limits)
          const mode = yield* resolveMode(parts.mode)
          yield* updateRequest((state) => {
            state.analyzeMode = mode
          })
          const model = yield* resolveModel(parts.model)
          const baseline = yield* resolveBaseline(parts.baseline)
          const trace = yield* validateTrace(code, parts.trace)
          const state = yield* currentRequest
          const deadline = Effect.timeoutFail({
            duration: limits.requestTimeout,
            onTimeout: () =>
              new Timeout({
                message: `the analysis exceeded the server-side deadline of ${deadlineSeconds} s; use quick mode or raise SVC_API_REQUEST_TIMEOUT`
              })
          })
          const deadlineAt = (yield* Clock.currentTimeMillis) + Duration.toMillis(limits.requestTimeout)
          const run = analyzer.analyze({
            pattern: entry.pattern,
            mode,
            model,
            trace,
            baseline,
            requestId: state?.requestId ?? "none"
          }).pipe(
            // One learnings line per computed detection (a shared run writes it once).
            Effect.tap((computed) => home.learning(learningOf(code.slug, mode, computed.detection))),
            deadline,
            Effect.locally(RetryDeadline, deadlineAt),
            Effect.ensuring(Metric.incrementBy(analysesInFlight, -1)),
            (effect) => Effect.zipRight(Metric.increment(analysesInFlight), effect)
          )
          // Checked before provider resolution: a cached detection needs no provider.
          const key = cache.enabled ? cacheKey({ pattern: code.slug, mode, model, trace: trace.canonical }) : ""
          if (cache.enabled && baseline === null) remember(fingerprint(code.slug, bytes), { key, mode })
          const { result, cached } = yield* cache.run(key, run).pipe(deadline)
          // Drift depends on the baseline store, not on the cache key: computed per request.
          const detection = baseline === null
            ? result.detection
            : { ...result.detection, drift: yield* home.baseline(code.slug, baseline, storedOf(result.detection)) }
          yield* updateRequest((s) => {
            s.analyzeStatus = cached ? "cache_hit" : "ok"
          })
          const response = HttpServerResponse.unsafeJson({
            pattern: code.slug,
            mode,
            model: result.model,
            detection,
            cached
          })
          return cache.enabled ? HttpServerResponse.setHeader(response, "x-cache", cached ? "hit" : "miss") : response
        }).pipe(
          Effect.tapError((error) =>
            updateRequest((state) => {
              state.analyzeStatus = errorKinds[error._tag].kind
              state.errorMessage = error.message
            })
          ),
          Effect.withSpan("AnalyzeHandlers.handle", { attributes: { pattern: code.slug } })
        )
    }

    return {
      cacheEnabled: cache.enabled,
      cachedResponse,
      handler,
      unknownPattern: ({ path }) =>
        updateRequest((state) => {
          state.analyzeStatus = "unknown_pattern"
        }).pipe(Effect.zipRight(Effect.fail(unknownPattern(path.name))))
    }
  })
)

