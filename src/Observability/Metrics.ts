/**
 * Metrics. Effect metrics are the instruments; the OpenTelemetry Prometheus exporter is the
 * metric reader (DECISIONS §8), read from the /metrics handler so metrics live on the main port.
 * Counters are created `incremental` so they export as Prometheus counters, not gauges.
 */
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"
import * as MetricBoundaries from "effect/MetricBoundaries"
import * as MetricLabel from "effect/MetricLabel"
import type { Mode } from "../Catalogue/Resources.js"
import { type ApiError, type ErrorKind, errorKinds } from "../Errors.js"

export const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120]

export const requestsTotal = Metric.counter("svc_requests", {
  description: "Analyze requests by surface, pattern, mode and status (ok, cache_hit or the error kind).",
  incremental: true
})

export const analysesTotal = Metric.counter("svc_analyses", {
  description:
    "Pattern analyses by pattern, mode and outcome (ok, cache_hit or the error kind), whatever the surface: one per analyze request, one per pattern run inside a diagnose.",
  incremental: true
})

export const storeErrors = Metric.counter("svc_store_errors", {
  description: "Failed operations on a store by store and operation: redis (each fell back as documented) and sql (the runs store: 503 store_unavailable).",
  incremental: true
})

export const requestDuration = Metric.histogram(
  "svc_request_duration_seconds",
  MetricBoundaries.fromIterable(DURATION_BUCKETS),
  "Analyze request duration in seconds by surface, pattern and mode."
)

export const httpRequestsTotal = Metric.counter("svc_http_requests", {
  description: "HTTP responses by method, route template and status code.",
  incremental: true
})

export const cacheEvents = Metric.counter("svc_cache_events", {
  description: "Analysis cache events: hit, miss, coalesced (joined a concurrent identical run), eviction, expiry.",
  incremental: true
})

export const cacheEntries = Metric.gauge("svc_cache_entries", { description: "Detections held in the analysis cache." })

export const rateLimitRejections = Metric.counter("svc_rate_limited", {
  description: "Requests refused by the rate limiter (429).",
  incremental: true
})

export const rateLimitBuckets = Metric.gauge("svc_rate_limit_buckets", {
  description: "Rate-limit buckets currently held (bounded by SVC_API_RATE_LIMIT_MAX_BUCKETS)."
})

export const authFailures = Metric.counter("svc_auth_failures", {
  description: "Requests refused by authentication, by reason (missing, invalid, misconfigured).",
  incremental: true
})

export const modelCalls = Metric.counter("svc_model_calls", {
  description: "Model calls by provider, model and outcome (ok, error).",
  incremental: true
})

export const modelTokens = Metric.counter("svc_model_tokens", {
  description: "Model tokens by provider, model and direction: input (every input token), cached_input (the input tokens read from the provider's prompt cache), output.",
  incremental: true
})

export const modelCallDuration = Metric.histogram(
  "svc_model_call_duration_seconds",
  MetricBoundaries.fromIterable(DURATION_BUCKETS),
  "Duration of one model call in seconds, retries included, by provider."
)

export const analysesInFlight = Metric.gauge("svc_analyses_in_flight", {
  description: "Analyses currently running (shared single-flight runs count once)."
})

export const drainingGauge = Metric.gauge("svc_draining", {
  description: "1 from the moment a shutdown signal arrives, else 0."
})

export const runsTotal = Metric.counter("svc_runs", {
  description: "Runs that ended, by status (done, failed, skipped), whatever their source (DECISIONS §17).",
  incremental: true
})

export const runLeasesLost = Metric.counter("svc_run_leases_lost", {
  description:
    "Runs this process's workers let go because their lease had passed to another worker (this process stalled past it): nothing of that work was written.",
  incremental: true
})

export const runsQueued = Metric.gauge("svc_runs_queued", {
  description: "Runs waiting in the queue (all scopes), as last counted by this process's workers."
})

/** A run waits from seconds (an idle queue) to hours (a backlog, a budget): wider buckets than a request's. */
export const QUEUE_BUCKETS = [0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600, 14_400, 86_400]

export const runQueueSeconds = Metric.histogram(
  "svc_run_queue_seconds",
  MetricBoundaries.fromIterable(QUEUE_BUCKETS),
  "Time from a run's submission to a worker's first claim of it, in seconds."
)

export const otlpItemsTotal = Metric.counter("svc_otlp_items", {
  description:
    "OTLP items received, by signal (traces: spans, logs: log records, metrics: data points) and outcome: accepted (kept), rejected (refused in partialSuccess), late (after their trace completed), dropped (logs outside a GenAI trace, metrics), own (this service's own spans) (DECISIONS §18).",
  incremental: true
})

export const otlpTracesTotal = Metric.counter("svc_otlp_traces", {
  description: "OTLP traces completed, by outcome: queued, skipped (not_failed, sampled_out), no_agent (no GenAI, OpenInference or tool span), refused (the run could not be made), assembly_error (given up after repeated failed assemblies: a failed run).",
  incremental: true
})

export const alertDeliveriesTotal = Metric.counter("svc_alert_deliveries", {
  description: "Alert webhook calls (DECISIONS §19), by outcome: delivered (2xx), retry (failed, tried again later), failed (given up).",
  incremental: true
})

export const telemetrySpansTotal = Metric.counter("svc_telemetry_spans", {
  description: "The service's own spans sent to its OTLP traces endpoint (DECISIONS §21), by outcome: exported, failed (the export failed; the spans are lost).",
  incremental: true
})

export const evaluationDeliveriesTotal = Metric.counter("svc_evaluation_deliveries", {
  description: "Verdict exports to SVC_EVALUATION_ENDPOINT (DECISIONS §21), by outcome: delivered (2xx), retry (failed, tried again later), failed (given up).",
  incremental: true
})

export const backgroundErrorsTotal = Metric.counter("svc_background_errors", {
  description:
    "Defects and failures in a background loop, by loop (assembly, workers, outbox, retention): the item or round was logged with its cause and the loop went on with the next (DECISIONS §17, §18).",
  incremental: true
})

export const otlpPendingTraces = Metric.gauge("svc_otlp_pending_traces", {
  description: "OTLP traces waiting to complete (all scopes), as last counted by this process."
})

const MAX_MODEL_LABELS = 32
const modelLabels = new Set<string>()
/** Model names come from requests: the first 32 distinct ones are labels, the rest are `other`. */
export const modelLabel = (model: string): string => {
  if (modelLabels.has(model)) return model
  if (modelLabels.size >= MAX_MODEL_LABELS) return "other"
  modelLabels.add(model)
  return model
}

/**
 * An update of a metric under fixed labels, made once and applied in place: the one way this
 * service updates a metric. The label array is made once too: Effect resolves a metric's registry
 * entry per label-array identity, so a stable array is one WeakMap hit per update, where
 * `Metric.tagged` would hash the key on every update.
 */
export const labelled = <Type, In, Out>(metric: Metric.Metric<Type, In, Out>, labels: Readonly<Record<string, string>>) => {
  const tags = Object.entries(labels).map(([key, value]) => MetricLabel.make(key, value))
  return (input: In): void => metric.unsafeUpdate(input, tags)
}

/** `labelled` per label set, kept by a key that names the labels. */
const memo = <In>(make: (key: string) => (input: In) => void) => {
  const made = new Map<string, (input: In) => void>()
  return (key: string): ((input: In) => void) => {
    let update = made.get(key)
    if (update === undefined) {
      update = make(key)
      made.set(key, update)
    }
    return update
  }
}

/** A gauge that counts up and down (things in progress), updated in place. */
const upDown = (gauge: Metric.Metric.Gauge<number>) => {
  const set = labelled(gauge, {})
  let value = 0
  return {
    increment: () => set(++value),
    decrement: () => set(--value)
  }
}

const SEP = "\u0000"
const modelCallCounter = memo((key) => {
  const [provider = "", model = "", outcome = ""] = key.split(SEP)
  return labelled(modelCalls, { provider, model, outcome })
})
const modelTokenCounter = memo((key) => {
  const [provider = "", model = "", direction = ""] = key.split(SEP)
  return labelled(modelTokens, { provider, model, direction })
})
const modelCallHistogram = memo((provider) => labelled(modelCallDuration, { provider }))

export const recordModelCall = (labels: {
  readonly provider: string
  readonly model: string
  readonly outcome: "ok" | "error"
  readonly inputTokens: number
  /** Of inputTokens, those read from the provider's prompt cache. */
  readonly cachedInputTokens: number
  readonly outputTokens: number
  readonly seconds: number
}) =>
  Effect.sync(() => {
    const base = `${labels.provider}${SEP}${modelLabel(labels.model)}`
    modelCallCounter(`${base}${SEP}${labels.outcome}`)(1)
    modelTokenCounter(`${base}${SEP}input`)(labels.inputTokens)
    modelTokenCounter(`${base}${SEP}cached_input`)(labels.cachedInputTokens)
    modelTokenCounter(`${base}${SEP}output`)(labels.outputTokens)
    modelCallHistogram(labels.provider)(labels.seconds)
  })

/** Analyses running now (shared single-flight runs count once). */
export const analysesRunning = upDown(analysesInFlight)
/** 1 from the moment a shutdown signal arrives. */
export const markDraining = labelled(drainingGauge, {})

/** How one analysis ended: `ok`, `cache_hit`, the error kind, or `client_closed`. */
export type AnalysisStatus = "ok" | "cache_hit" | ErrorKind | "client_closed"

/**
 * The status label of a finished analysis or request: `cache_hit` or `ok` on success, the error
 * kind of a failure, `client_closed` when it was interrupted (the client went away).
 */
export const statusOfExit = <A, E extends ApiError>(exit: Exit.Exit<A, E>, cached: (value: A) => boolean): AnalysisStatus =>
  Exit.match(exit, {
    onSuccess: (value): AnalysisStatus => (cached(value) ? "cache_hit" : "ok"),
    onFailure: (cause): AnalysisStatus => {
      const failure = Cause.failureOption(cause)
      if (failure._tag === "Some") return errorKinds[failure.value._tag].kind
      return Cause.isInterruptedOnly(cause) ? "client_closed" : "internal_error"
    }
  })

/** Diagnose's `pattern` label in `svc_requests_total` (DECISIONS §13), whichever surface records it. */
export const DIAGNOSE_LABEL = "diagnose"

export interface AnalysisLabels {
  readonly surface: "rest" | "mcp" | "worker"
  /** A catalogue slug, or `unknown` (label values stay bounded). */
  readonly pattern: string
  /** The effective mode, or `unknown` when the request ended before its mode was known. */
  readonly mode: Mode | "unknown"
  readonly status: AnalysisStatus
}

const analysisCounter = memo((key) => {
  const [surface = "", pattern = "", mode = "", status = ""] = key.split(SEP)
  return labelled(requestsTotal, { surface, pattern, mode, status })
})
const analysisHistogram = memo((key) => {
  const [surface = "", pattern = "", mode = ""] = key.split(SEP)
  return labelled(requestDuration, { surface, pattern, mode })
})
const httpCounter = memo((key) => {
  const [method = "", route = "", code = ""] = key.split(SEP)
  return labelled(httpRequestsTotal, { method, route, code })
})

/**
 * The analysis recorder: `svc_requests_total` and `svc_request_duration_seconds` for one analysis
 * request, in place. Every surface calls it once per analysis request it answers, with typed
 * labels: the edge for the requests it answers itself (cache hits, refusals), the REST handler
 * for the rest, later the MCP adapter per tool call.
 */
export const recordAnalysis = (labels: AnalysisLabels, seconds: number): void => {
  const base = `${labels.surface}${SEP}${labels.pattern}${SEP}${labels.mode}`
  analysisCounter(`${base}${SEP}${labels.status}`)(1)
  analysisHistogram(base)(seconds)
}

const analysesCounter = memo((key) => {
  const [pattern = "", mode = "", outcome = ""] = key.split(SEP)
  return labelled(analysesTotal, { pattern, mode, outcome })
})

/** Counts one pattern analysis (`svc_analyses_total`): the engine's count, whatever the surface. */
export const countAnalysis = (pattern: string, mode: Mode, outcome: AnalysisStatus): void =>
  analysesCounter(`${pattern}${SEP}${mode}${SEP}${outcome}`)(1)

const storeErrorCounter = memo((key) => {
  const [store = "", op = ""] = key.split(SEP)
  return labelled(storeErrors, { store, op })
})

/** Counts one failed shared-store operation (`svc_store_errors_total`). */
export const countStoreError = (store: string, op: string): void => storeErrorCounter(`${store}${SEP}${op}`)(1)

const runCounter = memo((status) => labelled(runsTotal, { status }))
const setQueued = labelled(runsQueued, {})
const leaseLostCounter = labelled(runLeasesLost, {})
const queueHistogram = labelled(runQueueSeconds, {})

/** The run metrics (DECISIONS §17), updated in place by the workers. */
export const runMetrics = {
  ended: (status: "done" | "failed" | "skipped"): void => runCounter(status)(1),
  queued: (count: number): void => setQueued(count),
  /** A claimed run let go unwritten: its lease was another worker's by the time it renewed or ended. */
  leaseLost: (): void => leaseLostCounter(1),
  waited: (seconds: number): void => queueHistogram(seconds)
}

const otlpItemCounter = memo((key: string) => {
  const [signal = "", outcome = ""] = key.split(SEP)
  return labelled(otlpItemsTotal, { signal, outcome })
})
const otlpTraceCounter = memo((outcome: string) => labelled(otlpTracesTotal, { outcome }))
const setPendingTraces = labelled(otlpPendingTraces, {})

/** The OTLP receiver's metrics (DECISIONS §18), updated in place. */
export const otlpMetrics = {
  items: (signal: "traces" | "logs" | "metrics", outcome: "accepted" | "rejected" | "late" | "dropped" | "own", count: number): void => {
    if (count > 0) otlpItemCounter(`${signal}${SEP}${outcome}`)(count)
  },
  trace: (outcome: "queued" | "not_failed" | "sampled_out" | "no_agent" | "refused" | "assembly_error"): void => otlpTraceCounter(outcome)(1),
  pending: (count: number): void => setPendingTraces(count)
}

const backgroundErrorCounter = memo((loop: string) => labelled(backgroundErrorsTotal, { loop }))

/** The background loops whose failures are counted (`svc_background_errors_total{loop}`). */
export type BackgroundLoop = "assembly" | "workers" | "outbox" | "retention"

/** One failed item or round of a background loop, counted; the loop logs the cause and carries on. */
export const countBackgroundError = (loop: BackgroundLoop): void => backgroundErrorCounter(loop)(1)

const alertDeliveryCounter = memo((outcome: string) => labelled(alertDeliveriesTotal, { outcome }))

/** One alert webhook call's outcome (Alerts/Delivery.ts). */
export const countAlertDelivery = (outcome: "delivered" | "retry" | "failed"): void => alertDeliveryCounter(outcome)(1)

const telemetrySpansCounter = memo((outcome: string) => labelled(telemetrySpansTotal, { outcome }))

/** Spans of one export batch (Observability/OtelExport.ts). */
export const countTelemetrySpans = (outcome: "exported" | "failed", spans: number): void => telemetrySpansCounter(outcome)(spans)

const evaluationDeliveryCounter = memo((outcome: string) => labelled(evaluationDeliveriesTotal, { outcome }))

/** One verdict export's outcome (Alerts/Delivery.ts). */
export const countEvaluationDelivery = (outcome: "delivered" | "retry" | "failed"): void => evaluationDeliveryCounter(outcome)(1)

/** Counts one HTTP response by method, route template and status code, in place. */
export const countHttp = (method: string, route: string, code: number): void =>
  httpCounter(`${method}${SEP}${route}${SEP}${code}`)(1)

export interface MetricsExpositionShape {
  /** The Prometheus text exposition of every metric. */
  readonly render: Effect.Effect<string>
}

export class MetricsExposition extends Context.Tag("MetricsExposition")<MetricsExposition, MetricsExpositionShape>() {}

/**
 * /metrics through the OpenTelemetry Prometheus exporter, registered on the first scrape
 * (Prometheus.ts, loaded then) and kept until the application's scope closes.
 */
export const MetricsLive: Layer.Layer<MetricsExposition> = Layer.scoped(
  MetricsExposition,
  Effect.gen(function*() {
    const scope = yield* Effect.scope
    const renderer = yield* Effect.cached(
      Effect.promise(() => import("./Prometheus.js")).pipe(Effect.flatMap((prometheus) => prometheus.makePrometheus(scope)))
    )
    return { render: Effect.flatten(renderer) }
  })
)
