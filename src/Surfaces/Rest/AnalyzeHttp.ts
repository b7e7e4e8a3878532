/**
 * `POST /v1/analyze/{name}` over REST: a thin adapter over AnalyzeService. The body was read by
 * the edge (under the byte limit); here: 415 not JSON → 400 not a JSON object → intake and run
 * (AnalyzeService) → the response. Each request it answers is recorded once, with typed labels,
 * through the analysis recorder; a failure is also noted to the edge for its error report.
 */
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Context, Effect, type Exit, Layer } from "effect"
import { analysisBody, type AnalysisOutcome, AnalyzeService, type PreparedAnalysis } from "../../Analysis/AnalyzeService.js"
import { queryOptions } from "../../Intake/Intake.js"
import type { AnalyzeRequest } from "../../Intake/Requests.js"
import type { AnalysisResult } from "../../Catalogue/Detection.js"
import { CachedReplies } from "../../Cache/CachedReplies.js"
import type { Mode } from "../../Catalogue/Resources.js"
import {
  type AnalyzerError,
  type AuthMisconfigured,
  type InternalError,
  type InvalidMode,
  type LlmResolutionError,
  type RateLimited,
  type RequestTooLarge,
  type Timeout,
  type Unauthorized,
  type UnknownPattern,
  type UnsupportedMediaType,
  type UnsupportedTraceFormat,
  type ValidationError
} from "../../Errors.js"
import { parseTraceUpload, requireJson } from "../../Intake/Json.js"
import { CurrentRequest, type EdgeRequest } from "../../Edge/RequestContext.js"
import { recordAnalysis } from "../../Observability/Metrics.js"
import { settleRest } from "./Settle.js"
import { unknownPattern } from "./CatalogueHttp.js"

type RawRequest = { readonly request: HttpServerRequest.HttpServerRequest }

/** The errors an analyze endpoint declares (AnalyzeContract) plus the API-wide internal error. */
export type AnalyzeFailure =
  | ValidationError
  | UnsupportedTraceFormat
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

export interface AnalyzeRestShape {
  readonly handler: (slug: string) => (request: RawRequest) => Effect.Effect<HttpServerResponse.HttpServerResponse, AnalyzeFailure>
  readonly unknownPattern: (request: { readonly path: { readonly name: string } }) => Effect.Effect<never, UnknownPattern>
}

export class AnalyzeRest extends Context.Tag("AnalyzeRest")<AnalyzeRest, AnalyzeRestShape>() {}

const encoder = new TextEncoder()
const EMPTY = new Uint8Array(0)

export const AnalyzeRestLive = Layer.effect(
  AnalyzeRest,
  Effect.gen(function*() {
    const service = yield* AnalyzeService
    const replies = yield* CachedReplies

    /** Records the request once it has an outcome, and notes a failure to the edge. */
    const settle = (edge: EdgeRequest, slug: string, mode: Mode | "unknown", exit: Exit.Exit<{ readonly cached: boolean }, AnalyzeFailure>) =>
      settleRest(edge, slug, mode, exit, (outcome) => outcome.cached)

    /** 415, 400, the CPU turn, then the body to its typed request; `onMode` learns the mode. */
    const admit = (slug: string, contentType: string | undefined, bytes: Uint8Array, target: string, keyName: string | null, onMode: (mode: Mode) => void) =>
      Effect.gen(function*() {
        yield* requireJson(contentType, { jsonLines: true })
        yield* service.pace
        return yield* service.admit(slug, yield* parseTraceUpload(bytes, contentType), keyName, queryOptions(target), onMode)
      })

    const prepare = (slug: string, request: AnalyzeRequest, edge: EdgeRequest, bytes: Uint8Array, target: string) =>
      Effect.gen(function*() {
        const prepared = yield* service.prepare(request, edge.keyName)
        // An identical body later is a cache hit the edge answers from the stored detection (the
        // edge looks up bodies only, so a request with a query, whose options change the answer, is not kept).
        if (replies.enabled && prepared.baseline === null && !target.includes("?")) {
          const mode = prepared.mode
          replies.remember(prepared.scopes.cache, slug, bytes, {
            key: prepared.key,
            mode,
            render: (result: AnalysisResult) =>
              encoder.encode(JSON.stringify(analysisBody(prepared, { result, detection: result.detection, cached: true })))
          })
        }
        return prepared
      })

    /** X-Cache for an answer, when the cache is on. */
    const cacheHeader = (prepared: PreparedAnalysis, outcome: AnalysisOutcome) =>
      prepared.key === "" ? undefined : outcome.cached ? "hit" : "miss"

    const respond = (prepared: PreparedAnalysis, outcome: AnalysisOutcome) => {
      const response = HttpServerResponse.unsafeJson(analysisBody(prepared, outcome))
      const cache = cacheHeader(prepared, outcome)
      return cache === undefined ? response : HttpServerResponse.setHeader(response, "x-cache", cache)
    }

    /** An analyze request from its body to its outcome, recorded once (labelled with the mode once known). */
    const answer = (slug: string, contentType: string | undefined, target: string, edge: EdgeRequest) => {
      const bytes = edge.body ?? EMPTY
      let mode: Mode | "unknown" = "unknown"
      return admit(slug, contentType, bytes, target, edge.keyName, (known) => {
        mode = known
      }).pipe(
        Effect.flatMap((request) => prepare(slug, request, edge, bytes, target)),
        Effect.flatMap((prepared) => Effect.map(service.run(prepared, edge.requestId), (outcome) => ({ prepared, outcome, cached: outcome.cached }))),
        Effect.onExit((exit) => settle(edge, slug, mode, exit))
      )
    }

    const handler = (slug: string) => ({ request }: RawRequest) =>
      Effect.flatMap(CurrentRequest, (edge) =>
        Effect.map(answer(slug, request.headers["content-type"], request.url, edge), ({ prepared, outcome }) => respond(prepared, outcome)))

    return {
      handler,
      unknownPattern: ({ path }) =>
        Effect.flatMap(CurrentRequest, (edge) => {
          recordAnalysis({ surface: "rest", pattern: "unknown", mode: "unknown", status: "unknown_pattern" }, (performance.now() - edge.startedAt) / 1000)
          return Effect.fail(unknownPattern(path.name))
        })
    }
  })
)
