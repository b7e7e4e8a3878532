/**
 * The service's resources as one Layer, given a validated configuration: everything requests use,
 * with no HTTP server, so the `svc` commands and `svc mcp` build the same resources as `svc serve`
 * without importing the server (App.ts adds it). Resources are built before the server and
 * finalized after it, so they outlive draining requests. In two parts: the analysis resources
 * (what reading, checking and diagnosing one trace uses) and the runs over them, whose code loads
 * when they are built (the `svc` commands on a file build the first part only).
 *
 * Where state lives is chosen here, once, from the configuration (DECISIONS §15, §16): in this
 * process, or shared through Redis when SVC_REDIS_URL is set (the rate limiter and baselines), and
 * the cache off, in memory or in Redis by SVC_CACHE. Redis is connected only when something uses it.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { AnalyzeServiceLive } from "./Analysis/AnalyzeService.js"
import { AnalyzerLive } from "./Analysis/Engine.js"
import { ApiKeysLive, ApiKeysOnceLive } from "./Auth/ApiKeys.js"
import { GuardsLive } from "./Auth/Guards.js"
import { ScopesLive } from "./Auth/Scopes.js"
import { AnalysisCacheMemoryLive, AnalysisCacheOffLive, AnalysisCacheRedisLive } from "./Cache/AnalysisCache.js"
import { CachedRepliesLive } from "./Cache/CachedReplies.js"
import { CatalogueLive } from "./Catalogue/Catalogue.js"
import { AppConfig, type AppConfigShape } from "./Config.js"
import { DiagnoseServiceLive } from "./Diagnose/DiagnoseService.js"
import { JsonBounds } from "./Intake/Json.js"
import { HomeFilesLive, HomeRedisLive } from "./Home/Home.js"
import { RequestTrackerLive } from "./Lifecycle/Lifecycle.js"
import { ReadinessLive } from "./Lifecycle/Readiness.js"
import { ErrorReportingLive } from "./Observability/ErrorReporting.js"
import { MetricsLive } from "./Observability/Metrics.js"
import { TracingLive } from "./Observability/Tracing.js"
import { ModelClientsLive } from "./Providers/ModelClients.js"
import { RateLimiterMemoryLive, RateLimiterRedisLive } from "./RateLimit/RateLimiter.js"
import { RedisStoreLive } from "./Store/Redis.js"
import { RedactionLive } from "./Redaction/Redaction.js"
import { ChecksLive } from "./Checks/Checks.js"
import { TraceReaderLive } from "./Intake/TraceReader.js"

/** Where each kind of state lives, as the configuration says. */
export const stateChoice = (config: AppConfigShape) => {
  const redis = Option.isSome(config.redis.url)
  return {
    limiter: redis ? "redis" : "memory",
    baselines: redis ? "redis" : "files",
    cache: !config.cache.enabled ? "off" : config.cache.shared ? "redis" : "memory"
  } as const
}

/**
 * What analyze, diagnose, check and normalize use (the surfaces' guards included). `serving`: the
 * resources of `svc serve` (npm start), which alone starts background work (the key file watched);
 * the `svc` commands and `svc mcp` read the keys once.
 */
export const AnalysisResourcesLive = (config: AppConfigShape, options: { readonly serving: boolean } = { serving: false }) => {
  const ConfigLive = Layer.succeed(AppConfig, config)
  const state = stateChoice(config)
  const Shared = RedisStoreLive.pipe(Layer.provide(ConfigLive))
  const Catalogue = CatalogueLive.pipe(Layer.provide(ConfigLive))
  const Clients = ModelClientsLive
  const HomeFiles = (state.baselines === "redis" ? HomeRedisLive.pipe(Layer.provide(Shared)) : HomeFilesLive).pipe(Layer.provide(ConfigLive))
  const Analyzer = AnalyzerLive.pipe(Layer.provide([ConfigLive, Clients, Catalogue, HomeFiles]))
  const Cache = (state.cache === "off"
    ? AnalysisCacheOffLive
    : state.cache === "redis"
    ? AnalysisCacheRedisLive.pipe(Layer.provide(Shared))
    : AnalysisCacheMemoryLive).pipe(Layer.provide(ConfigLive))
  const Limiter = (state.limiter === "redis" ? RateLimiterRedisLive.pipe(Layer.provide(Shared)) : RateLimiterMemoryLive).pipe(Layer.provide(ConfigLive))
  const Replies = CachedRepliesLive.pipe(Layer.provide([ConfigLive, Cache]))
  const Scopes = ScopesLive.pipe(Layer.provide(ConfigLive))
  // The one redaction of every surface's intake (DECISIONS §20), keyed per scope.
  const Redact = RedactionLive.pipe(Layer.provide([ConfigLive, Scopes, Shared]))
  const Traces = TraceReaderLive.pipe(Layer.provide([ConfigLive, Redact]))
  const Analyses = AnalyzeServiceLive.pipe(Layer.provide([ConfigLive, Catalogue, Analyzer, Cache, HomeFiles, Scopes, Redact]))
  // The checks of every surface that diagnoses (DECISIONS §23), with SVC_CHECKS_FILE's settings per scope.
  const CheckRules = ChecksLive.pipe(Layer.provide([ConfigLive, Scopes]))
  const Diagnoses = DiagnoseServiceLive.pipe(Layer.provide([ConfigLive, Catalogue, Analyses, Redact, CheckRules]))
  const Readiness = ReadinessLive
  const Tracker = RequestTrackerLive
  const Keys = (options.serving ? ApiKeysLive : ApiKeysOnceLive).pipe(Layer.provide(ConfigLive))
  // The one guard of every surface (auth, roles, rate limit), with the keys and limiter it reads.
  const Guards = GuardsLive.pipe(Layer.provideMerge(Layer.mergeAll(Keys, Limiter, ErrorReportingLive.pipe(Layer.provide(ConfigLive)))), Layer.provide(ConfigLive))
  // The JSON shape bounds every body parser reads (Intake/Json.ts), as configured.
  const Bounds = Layer.succeed(JsonBounds, { maxDepth: config.limits.maxDepth, maxKeys: config.limits.maxKeys, maxInflatedBytes: config.limits.maxBodyBytes })
  return Layer.mergeAll(
    ConfigLive,
    Bounds,
    Catalogue,
    Analyses,
    Cache,
    Replies,
    Scopes,
    Redact,
    Traces,
    CheckRules,
    Diagnoses,
    Guards,
    HomeFiles,
    Readiness,
    Tracker,
    MetricsLive
  ).pipe(
    // the service's own spans (DECISIONS §21), built first: every service reads whether they are on as it is built
    Layer.provideMerge(TracingLive.pipe(Layer.provide(ConfigLive)))
  )
}

/**
 * The runs (DECISIONS §17), the OTLP receiver (§18) and the problems (§19), over the analysis
 * resources: their code (the store, SQL, the OTLP codecs, the alerts: RunsResources.ts) is
 * loaded when this Layer is built, so a command that reads one trace file never loads it (issue 52).
 */
export const RunsLayerLive = (options: { readonly serving: boolean } = { serving: false }) =>
  Layer.unwrapEffect(Effect.map(Effect.promise(() => import("./RunsResources.js")), ({ RunsResourcesLive }) => RunsResourcesLive(options)))

/**
 * Everything requests use: the analysis resources, and the runs built over them (so the runs'
 * workers and store are finalized before the services they use).
 */
export const ResourcesLive = (config: AppConfigShape, options: { readonly serving: boolean } = { serving: false }) =>
  RunsLayerLive(options).pipe(Layer.provideMerge(AnalysisResourcesLive(config, options)))
