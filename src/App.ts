/**
 * The whole application as one Layer, given a validated configuration. Resources that requests
 * use are built before (outside) the HTTP server, so they are finalized after it.
 */
import { Effect, Layer, RuntimeFlags, RuntimeFlagsPatch } from "effect"
import { AnalyzeServiceLive } from "./Analysis/AnalyzeService.js"
import { AnalyzerLive } from "./Analysis/Engine.js"
import { ApiKeysLive } from "./Auth/ApiKeys.js"
import { ScopesLive } from "./Auth/Scopes.js"
import { DiagnoseServiceLive } from "./Diagnose/DiagnoseService.js"
import { TraceReaderLive } from "./Traces/TraceReader.js"
import { AnalysisCacheLive } from "./Cache/AnalysisCache.js"
import { CachedRepliesLive } from "./Cache/CachedReplies.js"
import { CatalogueLive } from "./Catalogue/Catalogue.js"
import { AppConfig, type AppConfigShape } from "./Config.js"
import { JsonBounds } from "./Edge/Body.js"
import { HomeLive } from "./Home/Home.js"
import { RedisStoreLive } from "./Store/Redis.js"
import { HttpLive } from "./Http.js"
import { RequestTrackerLive } from "./Lifecycle/Lifecycle.js"
import { ReadinessLive } from "./Lifecycle/Readiness.js"
import { loggingLayer } from "./Observability/Logging.js"
import { ErrorReportingLive } from "./Observability/ErrorReporting.js"
import { MetricsLive } from "./Observability/Metrics.js"
import { ModelClientsLive } from "./Providers/ModelClients.js"
import { RateLimiterLive } from "./RateLimit/RateLimiter.js"

export const ResourcesLive = (config: AppConfigShape) => {
  const ConfigLive = Layer.succeed(AppConfig, config)
  const Catalogue = CatalogueLive.pipe(Layer.provide(ConfigLive))
  const Clients = ModelClientsLive
  const Shared = RedisStoreLive.pipe(Layer.provide(ConfigLive))
  const HomeFiles = HomeLive.pipe(Layer.provide([ConfigLive, Shared]))
  const Analyzer = AnalyzerLive.pipe(Layer.provide([ConfigLive, Clients, Catalogue, HomeFiles]))
  const Cache = AnalysisCacheLive.pipe(Layer.provide([ConfigLive, Shared]))
  const Replies = CachedRepliesLive.pipe(Layer.provide([ConfigLive, Cache]))
  const Scopes = ScopesLive.pipe(Layer.provide(ConfigLive))
  const Traces = TraceReaderLive.pipe(Layer.provide(ConfigLive))
  const Analyses = AnalyzeServiceLive.pipe(Layer.provide([ConfigLive, Catalogue, Analyzer, Cache, HomeFiles, Scopes]))
  const Diagnoses = DiagnoseServiceLive.pipe(Layer.provide([ConfigLive, Catalogue, Analyses]))
  const Guards = Layer.mergeAll(ApiKeysLive, RateLimiterLive.pipe(Layer.provide(Shared)), ErrorReportingLive).pipe(Layer.provide(ConfigLive))
  // The JSON shape bounds every body parser reads (Edge/Body.ts), as configured.
  const Bounds = Layer.succeed(JsonBounds, { maxDepth: config.limits.maxDepth, maxKeys: config.limits.maxKeys })
  return Layer.mergeAll(
    ConfigLive,
    Bounds,
    Catalogue,
    Analyses,
    Cache,
    Replies,
    Scopes,
    Traces,
    Diagnoses,
    Guards,
    HomeFiles,
    ReadinessLive,
    RequestTrackerLive,
    MetricsLive
  )
}

export const AppLive = (config: AppConfigShape) =>
  HttpLive(config.host, config.port).pipe(
    Layer.provideMerge(ResourcesLive(config)),
    Layer.provide(loggingLayer(config.logLevel))
  )

/**
 * Effect 3 runs with per-fiber runtime metrics on by default (effect_fiber_*): a tagged metric
 * update on every fiber start and end. They are off here; the service's own metrics are explicit.
 */
export const withoutRuntimeMetrics = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.withRuntimeFlagsPatch(effect, RuntimeFlagsPatch.disable(RuntimeFlags.RuntimeMetrics))
