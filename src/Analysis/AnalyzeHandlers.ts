/**
 * `POST /v1/analyze/{name}` from request to response, in the order of DECISIONS §3:
 * 404 unknown pattern (routing) → 413 body bytes → 415/400 not JSON or not an object →
 * 413 trace limits → 400 invalid_mode → 400 schema → cache → provider (502) → engine under the
 * deadline (504 / 502). The handler records the mode and outcome for the metrics middleware.
 */
import type { HttpServerRequest } from "@effect/platform"
import { HttpServerResponse } from "@effect/platform"
import { Context, Duration, Effect, Layer } from "effect"
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
import { readJsonObject } from "../Http/Body.js"
import { currentRequest, updateRequest } from "../Http/RequestContext.js"
import { AnalysisCache } from "../Cache/AnalysisCache.js"
import { cacheKey } from "../Cache/CacheKey.js"
import { Analyzer } from "./Analyzer.js"
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

export interface AnalyzeHandlersShape {
  readonly handler: (code: PatternCode) => (request: RawRequest) => Effect.Effect<HttpServerResponse.HttpServerResponse, AnalyzeFailure>
  readonly unknownPattern: (request: { readonly path: { readonly name: string } }) => Effect.Effect<never, UnknownPattern>
}

export class AnalyzeHandlers extends Context.Tag("AnalyzeHandlers")<AnalyzeHandlers, AnalyzeHandlersShape>() {}

export const AnalyzeHandlersLive = Layer.effect(
  AnalyzeHandlers,
  Effect.gen(function*() {
    const config = yield* AppConfig
    const catalogue = yield* Catalogue
    const analyzer = yield* Analyzer
    const cache = yield* AnalysisCache
    const { limits } = config
    const deadlineSeconds = Duration.toSeconds(limits.requestTimeout)

    const handler = (code: PatternCode) => {
      const entry = catalogue.get(code.slug)
      return ({ request }: RawRequest): Effect.Effect<HttpServerResponse.HttpServerResponse, AnalyzeFailure> =>
        Effect.gen(function*() {
          if (entry === undefined) {
            return yield* new InternalError({ message: `pattern ${code.slug} is registered but not loaded` })
          }
          const body = yield* readJsonObject(request, limits.maxBodyBytes)
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
          const run = analyzer.analyze({
            pattern: entry.pattern,
            mode,
            model,
            trace,
            baseline,
            requestId: state?.requestId ?? "none"
          }).pipe(deadline)
          // Checked before provider resolution: a cached detection needs no provider.
          const key = cacheKey({ pattern: code.slug, mode, model, trace: trace.canonical })
          const { result, cached } = yield* cache.run(key, run).pipe(deadline)
          yield* updateRequest((s) => {
            s.analyzeStatus = cached ? "cache_hit" : "ok"
          })
          const response = HttpServerResponse.unsafeJson({
            pattern: code.slug,
            mode,
            model: result.model,
            detection: result.detection,
            cached
          })
          return cache.enabled ? HttpServerResponse.setHeader(response, "x-cache", cached ? "hit" : "miss") : response
        }).pipe(
          Effect.tapError((error) =>
            updateRequest((state) => {
              state.analyzeStatus = errorKinds[error._tag].kind
            })
          ),
          Effect.withSpan("AnalyzeHandlers.handle", { attributes: { pattern: code.slug } })
        )
    }

    return {
      handler,
      unknownPattern: ({ path }) =>
        updateRequest((state) => {
          state.analyzeStatus = "unknown_pattern"
        }).pipe(Effect.zipRight(Effect.fail(unknownPattern(path.name))))
    }
  })
)

