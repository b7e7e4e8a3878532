/**
 * No registered handler untested (issue 28): the edge answers a known pattern's analyze request
 * itself (AnalyzeAtEdge, for speed), so the 34 HttpApi analyze handlers never run in the service.
 * Here a second service routes those requests to the HttpApi handlers instead, and every case
 * (each pattern's example in both body forms, options, JSON Lines, and each error the intake
 * answers) gets the same status, content type and body from both, but for the volatile fields
 * listed below (timings and timestamps).
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { definitions } from "../../patterns/index.js"
import { ResourcesLive } from "../../src/Resources.js"
import { patternCodes } from "../../src/Catalogue/Catalogue.js"
import type { AppConfigShape } from "../../src/Config.js"
import { behindEdge } from "../../src/Edge/Forward.js"
import { EdgeIncomingMessage } from "../../src/Edge/RequestContext.js"
import { ServerLive } from "../../src/Edge/Server.js"
import { ApiLive } from "../../src/Http.js"
import { loggingLayer } from "../../src/Observability/Logging.js"
import { McpHttpOnFirstUse } from "../../src/Surfaces/Mcp/Entry.js"
import { AnalyzeAtEdge } from "../../src/Edge/AnalyzeAtEdge.js"
import { useProviderDouble } from "../support/Harness.js"
import { exampleTrace } from "../support/ProviderDouble.js"
import { type RunningService, startServiceWith } from "../support/Service.js"
import { fixtureText } from "../traces/support.js"

/** Known analyze requests go to the HttpApi app (its generated per-pattern handlers), not the edge's own path. */
const ViaHttpApi = Layer.effect(
  AnalyzeAtEdge,
  Effect.gen(function*() {
    const handler = yield* NodeHttpServer.makeHandler(behindEdge(yield* HttpApiBuilder.httpApp))
    return {
      serve: (_slug, request, response, edge) => {
        if (request instanceof EdgeIncomingMessage) request.edge = edge
        handler(request, response)
      }
    }
  })
).pipe(Layer.provide([ApiLive, HttpApiBuilder.Router.Live, HttpApiBuilder.Middleware.layer, NodeHttpServer.layerContext]))

const slugs = new Set(patternCodes.map((code) => code.slug))

/** AppLive (src/App.ts, src/Http.ts) with the HttpApi handlers answering analyze. */
const AppViaHttpApi = (config: AppConfigShape) =>
  ServerLive(config.host, config.port, slugs).pipe(
    Layer.provide([HttpApiBuilder.Router.Live, HttpApiBuilder.Middleware.layer]),
    Layer.provide([ApiLive, ViaHttpApi]),
    Layer.provide(McpHttpOnFirstUse),
    HttpMiddleware.withTracerDisabledWhen(() => true),
    Layer.provideMerge(ResourcesLive(config, { serving: true })),
    Layer.provide(loggingLayer(config.logLevel))
  )

/** Fields that differ between any two runs of the same analysis. */
const VOLATILE = new Set(["generated_at", "elapsed_ms"])
const stable = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(stable)
    : typeof value === "object" && value !== null
    ? Object.fromEntries(Object.entries(value).filter(([key]) => !VOLATILE.has(key)).map(([key, entry]) => [key, stable(entry)]))
    : value

interface Case {
  readonly name: string
  readonly target: string
  readonly body: string
  readonly contentType?: string
  readonly headers?: Readonly<Record<string, string>>
}

const answerOf = async (service: RunningService, c: Case) => {
  const response = await fetch(`${service.url}${c.target}`, {
    method: "POST",
    headers: { "content-type": c.contentType ?? "application/json", ...c.headers },
    body: c.body
  })
  const text = await response.text()
  let body: unknown = text
  try {
    body = stable(JSON.parse(text))
  } catch {
    body = text
  }
  return { status: response.status, contentType: response.headers.get("content-type"), body }
}

const harness = useProviderDouble()
const env = () => ({ ANTHROPIC_API_KEY: "sk-ant-paths-0123456789", ANTHROPIC_BASE_URL: harness.double.url, SVC_API_MAX_TRACE_STEPS: "40" })

const cases = (): ReadonlyArray<Case> => {
  const out: Array<Case> = []
  for (const { spec } of definitions) {
    const slug = spec.slug
    const trace = exampleTrace(slug)
    const target = `/v1/analyze/${slug}`
    out.push({ name: `${slug} flat`, target, body: JSON.stringify(trace) })
    out.push({ name: `${slug} envelope quick`, target, body: JSON.stringify({ trace, mode: "quick" }) })
    out.push({ name: `${slug} mode from the query`, target: `${target}?mode=quick`, body: JSON.stringify(trace) })
    out.push({ name: `${slug} invalid mode`, target, body: JSON.stringify({ trace, mode: "slow" }) })
    const [first] = Object.keys(trace)
    if (first !== undefined) {
      out.push({ name: `${slug} schema error`, target, body: JSON.stringify({ ...trace, [first]: { wrong: true } }) })
    }
  }
  const lewin = exampleTrace("lewin")
  out.push(
    { name: "not JSON", target: "/v1/analyze/lewin", body: "{not json" },
    { name: "a scalar", target: "/v1/analyze/lewin", body: "42" },
    { name: "not UTF-8", target: "/v1/analyze/lewin", body: "\u00ff" },
    { name: "text/plain", target: "/v1/analyze/lewin", body: JSON.stringify(lewin), contentType: "text/plain" },
    { name: "trace limits", target: "/v1/analyze/lewin", body: JSON.stringify({ ...lewin, steps: Array.from({ length: 41 }, () => ({ type: "action", content: "x" })) }) },
    { name: "unsupported format", target: "/v1/analyze/lewin", body: JSON.stringify({ trace: { nothing: "here" }, format: "otel" }) },
    { name: "raw OTLP trace", target: "/v1/analyze/lewin?mode=quick", body: fixtureText("otel/openai-chat-agent.otlp.json") },
    { name: "JSON Lines of several traces, none selected", target: "/v1/analyze/lewin", body: fixtureText("trajectory/openhands-output.jsonl"), contentType: "application/x-ndjson" },
    { name: "JSON Lines, ?select=1", target: "/v1/analyze/lewin?select=1&mode=quick", body: fixtureText("trajectory/openhands-output.jsonl"), contentType: "application/x-ndjson" },
    { name: "baseline id refused", target: "/v1/analyze/lewin", body: JSON.stringify({ trace: lewin, baseline: "../x" }) },
    { name: "hints not an object", target: "/v1/analyze/lewin", body: JSON.stringify({ trace: lewin, hints: [1] }) }
  )
  return out
}

describe("the edge's analyze path and the HttpApi handlers", () => {
  it("give the same answer to every case: each pattern's examples, options, JSON Lines and every intake error", async () => {
    const atEdge = await harness.start(env())
    const viaApi = await startServiceWith({ ...env(), SVC_PORT: "0" }, AppViaHttpApi)
    try {
      const all = cases()
      const statuses = new Set<number>()
      for (const c of all) {
        const [edge, api] = [await answerOf(atEdge, c), await answerOf(viaApi, c)]
        expect(api, c.name).toEqual(edge)
        statuses.add(edge.status)
      }
      // The cases reach the answers they are for: successes and each kind of refusal.
      expect(Array.from(statuses).sort()).toEqual([200, 400, 413, 415])
      expect(all.length).toBeGreaterThan(34 * 5)
      // Both services really answered: half of the model calls came from each.
      expect(harness.double.calls.length % 2).toBe(0)
    } finally {
      await viaApi.close()
    }
  }, 180_000)
})
