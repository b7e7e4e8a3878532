/**
 * Unset, no span objects on the hot path (DECISIONS §21, issue 37), shown three ways:
 * - in the source: only src/Observability/Tracing.ts uses Effect's span API;
 * - in Tracing's parts: off, `span` gives back the very effect it was given and `server` makes
 *   nothing; the guarded tracer answers SQL spans, and everything under them, with one shared
 *   inert span, and passes every other span to the tracer under it;
 * - at run time: the real service, without OTEL_*, built over a tracer that counts every span
 *   asked of it, serves analyze (miss and hit), diagnose, normalize, MCP tool calls and a run
 *   through its worker (the store's statements included), and not one span is asked for.
 */
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Exit, Layer, Option, Tracer } from "effect"
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join, relative, resolve } from "node:path"
import { AppLive } from "../../src/App.js"
import { guardedTracer, INERT_SPAN, TRACING_OFF } from "../../src/Observability/Tracing.js"
import { connectHttp } from "../mcp/support.js"
import { useProviderDouble } from "../support/Harness.js"
import { exampleTrace } from "../support/ProviderDouble.js"
import { startServiceWith } from "../support/Service.js"
import { chatTrace, freshHome, quotingEvents, submitOne, waitForRun } from "../runs/support.js"

const repo = resolve(import.meta.dirname, "../..")
const sourceFiles = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? sourceFiles(path) : /\.tsx?$/.test(path) ? [path] : []
  })

/** Effect's span API: whoever calls it makes spans. */
const SPAN_API = /\b(withSpan|useSpan|makeSpan|makeSpanScoped|withParentSpan|currentSpan|currentParentSpan|linkSpans|annotateCurrentSpan|withTracer|setTracer|withSpanScoped|functionWithSpan)\b|Effect\.tracer\b/
const OWNERS = new Set(["src/Observability/Tracing.ts"])

/** A tracer that records the name of every span asked of it. */
const countingTracer = () => {
  const asked: Array<string> = []
  const tracer = Tracer.make({
    span(name, parent, context, links, startTime, kind) {
      asked.push(name)
      let status: Tracer.SpanStatus = { _tag: "Started", startTime }
      return {
        _tag: "Span",
        name,
        spanId: "1111111111111111",
        traceId: "22222222222222222222222222222222",
        parent,
        context,
        get status() {
          return status
        },
        attributes: new Map(),
        links,
        sampled: true,
        kind,
        end: (endTime, exit) => {
          status = { _tag: "Ended", startTime, endTime, exit }
        },
        attribute: () => undefined,
        event: () => undefined,
        addLinks: () => undefined
      }
    },
    context: (execution) => execution()
  })
  return { asked, tracer }
}

describe("no spans when OTEL_* is unset", () => {
  it("only Observability/Tracing.ts uses Effect's span API", () => {
    const users = sourceFiles(join(repo, "src")).filter((file) => SPAN_API.test(readFileSync(file, "utf8"))).map((file) => relative(repo, file))
    expect(users.filter((file) => !OWNERS.has(file))).toEqual([])
    expect(users.sort()).toEqual(Array.from(OWNERS).sort())
  })

  it("off, span() is the identity and server() makes nothing; the guarded tracer answers SQL with the one inert span", () => {
    const effect = Effect.succeed(1)
    expect(TRACING_OFF.span(effect, "lens lewin", { attributes: { "svc.pattern": "lewin" } })).toBe(effect)
    expect(TRACING_OFF.server({ method: "GET", route: null, path: "/", host: undefined, userAgent: undefined, traceparent: undefined, tracestate: undefined, requestId: "r", startedAt: 0 })).toBeUndefined()

    const { asked, tracer } = countingTracer()
    const off = guardedTracer(tracer, false)
    const on = guardedTracer(tracer, true)
    const start = (guarded: Tracer.Tracer, name: string, parent: Option.Option<Tracer.AnySpan>, root?: boolean) =>
      guarded.span(name, parent, Context.empty(), [], 0n, "internal", root === undefined ? undefined : { root })
    // off: the libraries' own spans are the inert span; the rest reaches the tracer under it (and this test)
    for (const library of ["sql.execute", "sql.transaction", "McpServer.tools/call", "McpServer/Notifications.notifications/tools/list_changed"]) {
      expect(start(off, library, Option.none())).toBe(INERT_SPAN)
    }
    const lens = start(off, "lens lewin", Option.none())
    expect(lens).not.toBe(INERT_SPAN)
    expect(start(off, "sql.execute", Option.some(lens))).toBe(INERT_SPAN)
    // on: a trace starts only at one of the service's roots; statements inside a request or a run are traced
    expect(start(on, "sql.execute", Option.none())).toBe(INERT_SPAN)
    expect(start(on, "McpServer/Notifications.notifications/tools/list_changed", Option.none())).toBe(INERT_SPAN)
    const run = start(on, "run", Option.none(), true)
    expect(run).not.toBe(INERT_SPAN)
    expect(start(on, "sql.execute", Option.some(run))).not.toBe(INERT_SPAN)
    // whatever starts under the inert span is inert too
    for (const guarded of [off, on]) expect(start(guarded, "lens lewin", Option.some(INERT_SPAN), true)).toBe(INERT_SPAN)
    expect(asked).toEqual(["lens lewin", "run", "sql.execute"])
    // the inert span records nothing
    INERT_SPAN.attribute("x", 1)
    INERT_SPAN.end(1n, Exit.void)
    expect(INERT_SPAN.attributes.size).toBe(0)
    expect(INERT_SPAN.status._tag).toBe("Started")
  })

  const harness = useProviderDouble()

  it("the real service asks its tracer for no span: analyze, a cache hit, diagnose, normalize, MCP and a run through the worker", async () => {
    const { asked, tracer } = countingTracer()
    const service = await startServiceWith(
      {
        ANTHROPIC_API_KEY: "sk-ant-structure-0123456789",
        ANTHROPIC_BASE_URL: harness.double.url,
        SVC_CACHE: "memory",
        SVC_WORKERS: "1",
        SVC_HOME: freshHome("structure")
      },
      (config) => AppLive(config).pipe(Layer.provide(Layer.setTracer(tracer)))
    )
    try {
      const json = { "content-type": "application/json" }
      const analyze = () => fetch(`${service.url}/v1/analyze/lewin?mode=quick`, { method: "POST", headers: json, body: JSON.stringify(exampleTrace("lewin")) })
      expect((await analyze()).status).toBe(200)
      const hit = await analyze()
      expect(hit.headers.get("x-cache")).toBe("hit")
      const diagnose = await fetch(`${service.url}/v1/diagnose?mode=quick`, { method: "POST", headers: json, body: JSON.stringify({ trace: chatTrace("structure"), max_patterns: 2 }) })
      expect(diagnose.status).toBe(200)
      const normalize = await fetch(`${service.url}/v1/traces/normalize`, { method: "POST", headers: json, body: JSON.stringify({ trace: chatTrace("normalize") }) })
      expect(normalize.status).toBe(200)
      const { client } = await connectHttp(service.url)
      const result = await client.callTool({ name: "svc_lewin", arguments: { trace: exampleTrace("lewin"), mode: "quick" } })
      expect(result.isError ?? false).toBe(false)
      await client.close()
      harness.double.script = quotingEvents(chatTrace("run").messages.map((message) => message.content), [2, 4])
      const id = await submitOne(service, { trace: chatTrace("run"), patterns: ["lewin"], mode: "quick" })
      expect((await waitForRun(service, id)).status).toBe("done")
      expect((await fetch(`${service.url}/v1/runs/${id}/report?output=markdown`)).status).toBe(200)
    } finally {
      await service.close()
    }
    expect(asked).toEqual([])
  })
})
