/**
 * `POST /v1/analyze/{name}` over REST: a thin adapter over AnalyzeService, run by the edge for a
 * known pattern (the HttpApi app serves no analyze route; the edge answers any other name 404
 * `unknown_pattern`). The body was read by the edge (under the byte limit); here: 415 not JSON → 400 not a JSON object → intake and run
 * (AnalyzeService) → the response. Each request it answers is recorded once, with typed labels,
 * through the analysis recorder; a failure is also noted to the edge for its error report.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberId from "effect/FiberId"
import * as FiberRef from "effect/FiberRef"
import * as FiberRefs from "effect/FiberRefs"
import * as HashMap from "effect/HashMap"
import * as Layer from "effect/Layer"
import * as Runtime from "effect/Runtime"
import { Caller } from "../../Auth/Caller.js"
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
  type UnsupportedMediaType,
  type UnsupportedTraceFormat,
  type ValidationError
} from "../../Errors.js"
import { parseTraceUpload, requireJson } from "../../Intake/Json.js"
import { answerToFailure } from "../../Edge/Forward.js"
import { writeErrorReply } from "../../Edge/Replies.js"
import { CurrentRequest, type EdgeRequest, underRequest } from "../../Edge/RequestContext.js"
import { AnalyzeAtEdge, type AnalyzeAtEdgeShape } from "../../Edge/AnalyzeAtEdge.js"
import { settleRest } from "./Settle.js"

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

const encoder = new TextEncoder()
const EMPTY = new Uint8Array(0)

/**
 * The edge's answer to a known pattern's analyze request it could not answer from the cache
 * (src/Edge/AnalyzeAtEdge.ts), the one path of analyze over REST: the adapter's steps in one fiber
 * the edge starts on node's request event, without the platform's request and response objects,
 * router and HttpApi layers (issue 18: those layers were half of what an analysis in flight holds;
 * measured again in issue 51, 45.1 against 74.4 KiB). The edge read the body and set its headers.
 */
export const AnalyzeAtEdgeLive = Layer.effect(
  AnalyzeAtEdge,
  Effect.gen(function*() {
    const service = yield* AnalyzeService
    const replies = yield* CachedReplies

    /** Records the request once it has an outcome, and notes a failure to the edge. */
    const settle = (edge: EdgeRequest, slug: string, mode: Mode | "unknown", exit: Exit.Exit<{ readonly cached: boolean }, AnalyzeFailure>) =>
      settleRest(edge, slug, mode, exit, (outcome) => outcome.cached)

    /** 415, 400, the CPU turn, then the body to its typed request; `onMode` learns the mode. */
    const admit = (slug: string, contentType: string | undefined, bytes: Uint8Array, target: string, onMode: (mode: Mode) => void) =>
      Effect.gen(function*() {
        yield* requireJson(contentType, { jsonLines: true })
        yield* service.pace
        return yield* service.admit(slug, yield* parseTraceUpload(bytes, contentType), queryOptions(target), onMode)
      })

    const prepare = (slug: string, request: AnalyzeRequest, bytes: Uint8Array, target: string) =>
      Effect.gen(function*() {
        const prepared = yield* service.prepare(request)
        // An identical body later is a cache hit the edge answers from the stored detection (the
        // edge looks up bodies only, so a request with a query, whose options change the answer, is not kept).
        if (replies.enabled && prepared.baseline === null && !target.includes("?")) {
          const mode = prepared.mode
          yield* replies.remember(prepared.scopes.cache, slug, bytes, {
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

    /** An analyze request from its body to its outcome, recorded once (labelled with the mode once known). */
    const answer = (slug: string, contentType: string | undefined, target: string, edge: EdgeRequest) => {
      const bytes = edge.body ?? EMPTY
      let mode: Mode | "unknown" = "unknown"
      return admit(slug, contentType, bytes, target, (known) => {
        mode = known
      }).pipe(
        Effect.flatMap((request) => prepare(slug, request, bytes, target)),
        Effect.flatMap((prepared) => Effect.map(service.run(prepared, edge.requestId), (outcome) => ({ prepared, outcome, cached: outcome.cached }))),
        Effect.onExit((exit) => settle(edge, slug, mode, exit))
      )
    }

    const runtime = yield* Effect.runtime<never>()

    const serve: AnalyzeAtEdgeShape["serve"] = (slug, request, response, edge) => {
      const path = request.url ?? "/"
      // The request's context (itself and its caller, in one copy of the runtime's) and log
      // annotation, set as the fiber starts: no frames held for them, no effect run to provide them.
      const context = Context.merge(runtime.context, Context.make(CurrentRequest, edge).pipe(Context.add(Caller, edge.caller)))
      const fiber = Runtime.runFork(
        Runtime.make({ context, fiberRefs: runtime.fiberRefs, runtimeFlags: runtime.runtimeFlags }),
        underRequest(edge, answer(slug, request.headers["content-type"], path, edge)),
        {
          updateRefs: (refs, fiberId) =>
            FiberRefs.updateManyAs(refs, {
              forkAs: fiberId,
              entries: [[FiberRef.currentLogAnnotations, [[
                fiberId,
                HashMap.set(FiberRefs.getOrDefault(refs, FiberRef.currentLogAnnotations), "request_id", edge.requestId)
              ]]]]
            })
        }
      )
      // The client went away: the analysis, and its provider call, end with it.
      response.once("close", () => {
        if (!response.writableEnded) fiber.unsafeInterruptAsFork(FiberId.none)
      })
      fiber.addObserver((exit) => {
        if (response.writableEnded || response.destroyed) return
        if (exit._tag === "Success") {
          const { prepared, outcome } = exit.value
          const body = JSON.stringify(analysisBody(prepared, outcome))
          response.statusCode = 200
          response.setHeader("content-type", "application/json")
          response.setHeader("content-length", Buffer.byteLength(body))
          const cache = cacheHeader(prepared, outcome)
          if (cache !== undefined) response.setHeader("x-cache", cache)
          return response.end(body)
        }
        const failed = answerToFailure(exit.cause, "POST", path, edge)
        if (failed === undefined) return
        if (failed.log !== null) Runtime.runFork(runtime, Effect.annotateLogs(failed.log, "request_id", edge.requestId))
        writeErrorReply(response, failed.error)
      })
    }

    return {
      serve,
    }
  })
)
