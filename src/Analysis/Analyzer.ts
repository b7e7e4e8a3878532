/**
 * The analysis engine's interface: one validated trace in, one checked detection out. The
 * implementation (AnalyzerLive) resolves the provider, runs the mode's passes through the model
 * and verifies the evidence; the HTTP handler only feeds it.
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { LoadedPattern } from "../Catalogue/CatalogueLoader.js"
import type { AnalysisResult } from "../Catalogue/Detection.js"
import type { ValidatedTrace } from "../Catalogue/Pattern.js"
import type { Mode } from "../Catalogue/Resources.js"
import type { AnalyzerError, LlmResolutionError, Timeout } from "../Errors.js"
import type { TraceOrigin } from "./RawTraces.js"

export interface AnalysisRequest {
  readonly pattern: LoadedPattern
  readonly mode: Mode
  /** The model the client asked for (with an optional provider prefix), or null. */
  readonly model: string | null
  readonly trace: ValidatedTrace
  /** How a raw trace in a supported format was read; undefined for the pattern's own shape. */
  readonly origin: TraceOrigin | undefined
  readonly baseline: string | null
  readonly requestId: string
  /**
   * The absolute time (ms, on `Clock`) by which the analysis must end (the request's deadline): the
   * model calls' retries stop short of it (src/Providers/Retry.ts).
   */
  readonly deadline: number
  /** Waited on after each model answer, before the work on it (Turns.ts `finish`). */
  readonly answered: Effect.Effect<void>
}

export interface AnalyzerShape {
  readonly analyze: (request: AnalysisRequest) => Effect.Effect<AnalysisResult, LlmResolutionError | AnalyzerError | Timeout>
}

export class Analyzer extends Context.Tag("Analyzer")<Analyzer, AnalyzerShape>() {}
