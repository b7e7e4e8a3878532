/**
 * /healthz, /livez, /readyz and /metrics (DECISIONS §2). Health and liveness bodies are fixed
 * at start-up; readiness reads the Readiness cell; metrics renders the Prometheus exporter.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import { Api } from "../../Api.js"
import { jsonBytes } from "./Responses.js"
import { makeStaticResponses } from "../../Edge/StaticResponses.js"
import { MetricsExposition } from "../../Observability/Metrics.js"
import { Readiness } from "../../Lifecycle/Readiness.js"

const encoder = new TextEncoder()

export const ProbesHttpLive = HttpApiBuilder.group(Api, "probes", (handlers) =>
  Effect.gen(function*() {
    const statics = yield* makeStaticResponses
    const readiness = yield* Readiness
    const metrics = yield* MetricsExposition
    const prepared = (path: string) => {
      const found = statics.get(path)
      if (found === undefined) throw new Error(`no prepared response for ${path}`)
      return found.body
    }
    const health = prepared("/healthz")
    const live = prepared("/livez")
    const readyBodies = {
      ready: encoder.encode(JSON.stringify({ status: "ready" })),
      starting: encoder.encode(JSON.stringify({ status: "starting" })),
      draining: encoder.encode(JSON.stringify({ status: "draining" }))
    }
    return handlers
      .handle("healthz", () => Effect.succeed(jsonBytes(health)))
      .handle("livez", () => Effect.succeed(jsonBytes(live)))
      .handle("readyz", () => Effect.map(readiness.current, (state) => jsonBytes(readyBodies[state], state === "ready" ? 200 : 503)))
      .handle("metrics", () =>
        Effect.map(metrics.render, (text) =>
          HttpServerResponse.text(text, { contentType: "text/plain; version=0.0.4; charset=utf-8" })))
  }))
