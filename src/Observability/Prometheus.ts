/**
 * The OpenTelemetry side of /metrics (DECISIONS §8): the Prometheus exporter registered as the
 * metric reader of Effect's metric registry. Loaded on the first scrape (Metrics.ts): the OTel SDK
 * costs start-up time, and a registry read is cumulative, so nothing counted before is lost.
 */
import * as OtelMetrics from "@effect/opentelemetry/Metrics"
import * as OtelResource from "@effect/opentelemetry/Resource"
import { PrometheusExporter, PrometheusSerializer } from "@opentelemetry/exporter-prometheus"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import { SERVER_NAME, VERSION } from "../Api.js"

/** Registers the reader in the given scope and returns the renderer of the text exposition. */
export const makePrometheus = (scope: Scope.Scope): Effect.Effect<Effect.Effect<string>> =>
  Effect.gen(function*() {
    const exporter = new PrometheusExporter({ preventServerStart: true })
    const serializer = new PrometheusSerializer(undefined, false)
    yield* Layer.buildWithScope(
      OtelMetrics.layer(() => exporter).pipe(Layer.provide(OtelResource.layer({ serviceName: SERVER_NAME, serviceVersion: VERSION }))),
      scope
    )
    return Effect.promise(() => exporter.collect()).pipe(
      Effect.map(({ resourceMetrics }) => serializer.serialize(resourceMetrics))
    )
  })
