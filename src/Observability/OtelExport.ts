/**
 * The OpenTelemetry SDK behind the service's own spans (DECISIONS §21), loaded by Tracing.ts only
 * when an OTLP traces endpoint is configured: a tracer provider with the configured sampler and a
 * batch span processor over the official OTLP/HTTP exporter (`http/protobuf` or `http/json`),
 * Effect's tracer made from it by `@effect/opentelemetry`. Export failures are counted
 * (`svc_telemetry_spans{outcome}`) and logged at most once a minute; the exporter's headers are
 * revealed only to it. The provider is flushed and shut down when the scope closes.
 */
import * as OtelTracer from "@effect/opentelemetry/Tracer"
import { OTLPTraceExporter as JsonTraceExporter } from "@opentelemetry/exporter-trace-otlp-http"
import { OTLPTraceExporter as ProtobufTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto"
import { resourceFromAttributes } from "@opentelemetry/resources"
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BasicTracerProvider,
  BatchSpanProcessor,
  ParentBasedSampler,
  type ReadableSpan,
  type Sampler,
  type SpanExporter,
  TraceIdRatioBasedSampler
} from "@opentelemetry/sdk-trace-base"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Runtime from "effect/Runtime"
import type * as Scope from "effect/Scope"
import type * as Tracer from "effect/Tracer"
import { SERVER_NAME, VERSION } from "../Api.js"
import { shownUrl } from "../Config/Alerts.js"
import { type ExportTarget, revealHeaders, type TelemetrySettings } from "../Config/Telemetry.js"
import { countTelemetrySpans } from "./Metrics.js"

const samplerOf = ({ sampler }: TelemetrySettings): Sampler => {
  const root = sampler.kind === "always_on" ? new AlwaysOnSampler() : sampler.kind === "always_off" ? new AlwaysOffSampler() : new TraceIdRatioBasedSampler(sampler.ratio)
  return sampler.parentBased ? new ParentBasedSampler({ root }) : root
}

/** Where an export failure is logged from, at most once a minute. */
const WARN_EVERY_MS = 60_000

/** The exporter, its outcomes counted and its failures logged (without the URL's path, which may hold a token). */
const counted = (inner: SpanExporter, warn: (message: string) => void): SpanExporter => {
  let warnedAt = -Infinity
  return {
    export: (spans: Array<ReadableSpan>, done) =>
      inner.export(spans, (result) => {
        const ok = result.code === 0
        countTelemetrySpans(ok ? "exported" : "failed", spans.length)
        if (!ok && performance.now() - warnedAt > WARN_EVERY_MS) {
          warnedAt = performance.now()
          warn(result.error?.message ?? "export failed")
        }
        done(result)
      }),
    shutdown: () => inner.shutdown(),
    forceFlush: () => inner.forceFlush?.() ?? Promise.resolve()
  }
}

const exporterOf = (target: ExportTarget): SpanExporter => {
  const options = { url: target.url, headers: revealHeaders(target), timeoutMillis: target.timeoutMs }
  return target.protocol === "http/json" ? new JsonTraceExporter(options) : new ProtobufTraceExporter(options)
}

/** Effect's tracer over a new OpenTelemetry tracer provider, exporting to `target`; shut down with the scope. */
export const makeOtelTracer = (
  settings: TelemetrySettings,
  target: ExportTarget
): Effect.Effect<{ readonly tracer: Tracer.Tracer; readonly external: typeof OtelTracer.makeExternalSpan }, never, Scope.Scope> =>
  Effect.gen(function*() {
    const runtime = yield* Effect.runtime<never>()
    const warn = (message: string) =>
      Runtime.runFork(runtime, Effect.logWarning("the service's spans could not be exported").pipe(Effect.annotateLogs({ endpoint: shownUrl(target.url), error: message })))
    const provider = yield* Effect.acquireRelease(
      Effect.sync(() =>
        new BasicTracerProvider({
          resource: resourceFromAttributes({
            ...Object.fromEntries(settings.resourceAttributes),
            "service.name": settings.serviceName,
            "service.version": VERSION
          }),
          sampler: samplerOf(settings),
          spanProcessors: [
            new BatchSpanProcessor(counted(exporterOf(target), warn), {
              scheduledDelayMillis: settings.batch.scheduleDelayMs,
              exportTimeoutMillis: settings.batch.exportTimeoutMs,
              maxQueueSize: settings.batch.maxQueueSize,
              maxExportBatchSize: settings.batch.maxExportBatchSize
            })
          ]
        })
      ),
      // the last spans are sent within the export timeout; a collector that is gone loses them (counted as failed)
      (provider) =>
        Effect.tryPromise(() => provider.forceFlush().then(() => provider.shutdown())).pipe(
          Effect.timeoutOption(Duration.millis(target.timeoutMs)),
          Effect.ignore
        )
    )
    const tracer = yield* OtelTracer.make.pipe(Effect.provideService(OtelTracer.OtelTracer, provider.getTracer(SERVER_NAME, VERSION)))
    return { tracer, external: OtelTracer.makeExternalSpan }
  })
