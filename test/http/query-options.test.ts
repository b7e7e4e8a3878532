/**
 * Options as query parameters (DECISIONS §16, issue 28): a body sent as it is (JSON Lines, a raw
 * trace) cannot carry `select`, `format`, `mode` and the rest, so they may come in the query, on
 * analyze, diagnose and normalize; the envelope wins when both give one. Against the real server.
 */
import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { useProviderDouble } from "../support/Harness.js"
import { exampleOutput, exampleTrace } from "../support/ProviderDouble.js"
import type { RunningService } from "../support/Service.js"
import { fixtureText, jsonLines } from "../traces/support.js"

const harness = useProviderDouble()
const start = (env: Record<string, string> = {}) => harness.start(env)
const withProvider = () => harness.start({ ANTHROPIC_API_KEY: "sk-ant-query-0123456789", ANTHROPIC_BASE_URL: harness.double.url, SVC_CACHE: "memory" })

const post = (service: RunningService, target: string, body: string | unknown, contentType = "application/json") =>
  fetch(`${service.url}${target}`, { method: "POST", headers: { "content-type": contentType }, body: typeof body === "string" ? body : JSON.stringify(body) })

const One = Schema.Struct({ format: Schema.String, trace: Schema.Struct({ id: Schema.NullOr(Schema.String) }) })
const ErrorBody = Schema.Struct({ detail: Schema.Struct({ error: Schema.String, message: Schema.String }) })
const Report = Schema.Struct({
  report: Schema.Struct({ mode: Schema.String, trace: Schema.Struct({ id: Schema.NullOr(Schema.String) }), triage: Schema.Array(Schema.Struct({ pattern: Schema.String, chosen: Schema.Boolean })) })
})
const Analysis = Schema.Struct({ mode: Schema.String, model: Schema.String })

const JSONL = fixtureText("trajectory/openhands-output.jsonl")
const NDJSON = "application/x-ndjson"

describe("query-parameter options", () => {
  it("normalize: a multi-record JSON Lines body, one trace chosen by ?select= (index or id); the envelope wins", async () => {
    const service = await start()
    const byIndex = Schema.decodeUnknownSync(One)(await (await post(service, "/v1/traces/normalize?select=1", JSONL, NDJSON)).json())
    expect(byIndex.trace.id).toBe("acme__reports-219")
    const byId = Schema.decodeUnknownSync(One)(await (await post(service, "/v1/traces/normalize?select=acme__reports-212&format=trajectory", JSONL, NDJSON)).json())
    expect(byId.trace.id).toBe("acme__reports-212")
    expect(byId.format).toBe("trajectory")
    const envelope = Schema.decodeUnknownSync(One)(await (await post(service, "/v1/traces/normalize?select=1", { trace: jsonLines(JSONL), select: 0 })).json())
    expect(envelope.trace.id).toBe("acme__reports-212")
    const wrongFormat = await post(service, "/v1/traces/normalize?format=yaml", JSONL, NDJSON)
    expect(wrongFormat.status).toBe(400)
    expect(Schema.decodeUnknownSync(ErrorBody)(await wrongFormat.json()).detail.message).toContain("format must be one of")
  })

  it("diagnose: a multi-record OpenHands output.jsonl is diagnosed with ?select=1, with mode and patterns from the query", async () => {
    const service = await start()
    const without = await post(service, "/v1/diagnose", JSONL, NDJSON)
    expect(without.status).toBe(400)
    expect(Schema.decodeUnknownSync(ErrorBody)(await without.json()).detail.message).toContain("acme__reports-212")
    const chosen = await post(service, "/v1/diagnose?select=1&mode=quick&patterns=lewin,span_of_control", JSONL, NDJSON)
    expect(chosen.status).toBe(200)
    const { report } = Schema.decodeUnknownSync(Report)(await chosen.json())
    expect(report.trace.id).toBe("acme__reports-219")
    expect(report.mode).toBe("quick")
    expect(report.triage.filter((entry) => entry.chosen).map((entry) => entry.pattern).sort()).toEqual(["lewin", "span_of_control"])
    for (const bad of ["max_patterns=many", "budget_tokens=12", "patterns=nope", "mode=slow"]) {
      const refused = await post(service, `/v1/diagnose?select=1&${bad}`, JSONL, NDJSON)
      expect(refused.status, bad).toBe(400)
    }
  })

  it("analyze: ?mode= and ?model= for a raw trace, the body's own options win, and query answers are never edge cache hits of the bare body", async () => {
    harness.double.script = () => ({ kind: "object", value: exampleOutput("lewin") })
    const service = await withProvider()
    const flat = exampleTrace("lewin")
    const quick = Schema.decodeUnknownSync(Analysis)(await (await post(service, "/v1/analyze/lewin?mode=quick&model=anthropic:claude-haiku-4-5", flat)).json())
    expect(quick).toEqual({ mode: "quick", model: "claude-haiku-4-5" })
    // The same bytes without the query: standard, the default, twice (the second an edge hit of the
    // body); then with the query again: quick, not the body's stored standard answer.
    for (let i = 0; i < 2; i++) {
      const bare = await post(service, "/v1/analyze/lewin", flat)
      expect(Schema.decodeUnknownSync(Analysis)(await bare.json()).mode).toBe("standard")
      expect(bare.headers.get("x-cache")).toBe(i === 0 ? "miss" : "hit")
    }
    const again = await post(service, "/v1/analyze/lewin?mode=quick", flat)
    expect(Schema.decodeUnknownSync(Analysis)(await again.json()).mode).toBe("quick")
    // The body's mode wins over the query's.
    const own = Schema.decodeUnknownSync(Analysis)(await (await post(service, "/v1/analyze/lewin?mode=standard", { trace: flat, mode: "quick" })).json())
    expect(own.mode).toBe("quick")
    const invalid = await post(service, "/v1/analyze/lewin?mode=slow", flat)
    expect(invalid.status).toBe(400)
    expect(Schema.decodeUnknownSync(ErrorBody)(await invalid.json()).detail.error).toBe("invalid_mode")
  })

  it("OpenAPI declares the query options of analyze, normalize and diagnose", async () => {
    const service = await start()
    const document: unknown = await (await fetch(`${service.url}/openapi.json`)).json()
    const Parameters = Schema.Struct({ parameters: Schema.Array(Schema.Struct({ name: Schema.String, in: Schema.String })) })
    const Paths = Schema.Struct({ paths: Schema.Record({ key: Schema.String, value: Schema.Struct({ post: Schema.optional(Parameters) }) }) })
    const { paths } = Schema.decodeUnknownSync(Paths)(document)
    const names = (path: string) => (paths[path]?.post?.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name).sort()
    expect(names("/v1/analyze/lewin")).toEqual(["format", "mode", "model", "select"])
    expect(names("/v1/traces/normalize")).toEqual(["format", "select"])
    expect(names("/v1/diagnose")).toEqual(["artifact", "budget_tokens", "format", "max_patterns", "mode", "model", "output", "patterns", "select"])
  })
})
