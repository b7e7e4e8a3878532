/**
 * The analyze endpoints' one path (issue 51): the edge guards, reads the body, answers cache hits
 * and runs the REST adapter itself (AnalyzeAtEdge); the HttpApi app registers no analyze handler
 * (src/Http.ts ServedApi), so none is left unreachable. Every case (each pattern's example in
 * both body forms, options, JSON Lines, each error the intake answers, a name outside the
 * catalogue) gets its documented status and body, and the same answer when sent again (a cache
 * hit at the edge for a body alone, the adapter again for the rest) but for the volatile fields
 * listed below.
 */
import { describe, expect, it } from "@effect/vitest"
import { definitions } from "../../patterns/index.js"
import { useProviderDouble } from "../support/Harness.js"
import { exampleTrace } from "../support/ProviderDouble.js"
import type { RunningService } from "../support/Service.js"
import { fixtureText } from "../traces/support.js"

/** Fields that differ between any two runs of the same analysis. */
const VOLATILE = new Set(["generated_at", "elapsed_ms"])
/** An answer's body without `cached` (the second of two identical analyses is one). */
const withoutCacheFlag = (body: unknown): unknown =>
  typeof body === "object" && body !== null && !Array.isArray(body) ? Object.fromEntries(Object.entries(body).filter(([key]) => key !== "cached")) : body
const stable = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(stable)
    : typeof value === "object" && value !== null
    ? Object.fromEntries(Object.entries(value).filter(([key]) => !VOLATILE.has(key)).map(([key, entry]) => [key, stable(entry)]))
    : value

interface Case {
  readonly name: string
  /** The documented status of the answer. */
  readonly status: number
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
    out.push({ name: `${slug} flat`, status: 200, target, body: JSON.stringify(trace) })
    out.push({ name: `${slug} envelope quick`, status: 200, target, body: JSON.stringify({ trace, mode: "quick" }) })
    out.push({ name: `${slug} mode from the query`, status: 200, target: `${target}?mode=quick`, body: JSON.stringify(trace) })
    out.push({ name: `${slug} invalid mode`, status: 400, target, body: JSON.stringify({ trace, mode: "slow" }) })
    const [first] = Object.keys(trace)
    if (first !== undefined) {
      out.push({ name: `${slug} schema error`, status: 400, target, body: JSON.stringify({ ...trace, [first]: { wrong: true } }) })
    }
  }
  const lewin = exampleTrace("lewin")
  out.push(
    { name: "not JSON", status: 400, target: "/v1/analyze/lewin", body: "{not json" },
    { name: "a scalar", status: 400, target: "/v1/analyze/lewin", body: "42" },
    { name: "not UTF-8", status: 400, target: "/v1/analyze/lewin", body: "\u00ff" },
    { name: "text/plain", status: 415, target: "/v1/analyze/lewin", body: JSON.stringify(lewin), contentType: "text/plain" },
    { name: "trace limits", status: 413, target: "/v1/analyze/lewin", body: JSON.stringify({ ...lewin, steps: Array.from({ length: 41 }, () => ({ type: "action", content: "x" })) }) },
    { name: "unsupported format", status: 400, target: "/v1/analyze/lewin", body: JSON.stringify({ trace: { nothing: "here" }, format: "otel" }) },
    { name: "raw OTLP trace", status: 400, target: "/v1/analyze/lewin?mode=quick", body: fixtureText("otel/openai-chat-agent.otlp.json") },
    { name: "JSON Lines of several traces, none selected", status: 400, target: "/v1/analyze/lewin", body: fixtureText("trajectory/openhands-output.jsonl"), contentType: "application/x-ndjson" },
    { name: "JSON Lines, ?select=1", status: 200, target: "/v1/analyze/lewin?select=1&mode=quick", body: fixtureText("trajectory/openhands-output.jsonl"), contentType: "application/x-ndjson" },
    { name: "baseline id refused", status: 400, target: "/v1/analyze/lewin", body: JSON.stringify({ trace: lewin, baseline: "../x" }) },
    { name: "a name outside the catalogue", status: 404, target: "/v1/analyze/no_such_pattern", body: JSON.stringify(lewin) },
    { name: "hints not an object", status: 400, target: "/v1/analyze/lewin", body: JSON.stringify({ trace: lewin, hints: [1] }) }
  )
  return out
}

describe("the analyze endpoints' one path: the edge and the REST adapter it runs", () => {
  it("answer every case with its documented status, the same when it comes again: each pattern's examples, options, JSON Lines and every intake error", async () => {
    const service = await harness.start(env())
    const all = cases()
    const statuses = new Set<number>()
    for (const c of all) {
      const first = await answerOf(service, c)
      expect(first.status, `${c.name}: ${JSON.stringify(first.body).slice(0, 300)}`).toBe(c.status)
      expect(first.contentType, c.name).toBe("application/json")
      if (c.status !== 200) expect(first.body, c.name).toMatchObject({ detail: { error: expect.any(String), message: expect.any(String) } })
      // sent again: a body alone is a cache hit at the edge, the rest the handler again; the same answer
      const again = await answerOf(service, c)
      expect({ ...again, body: withoutCacheFlag(again.body) }, c.name).toEqual({ ...first, body: withoutCacheFlag(first.body) })
      statuses.add(first.status)
    }
    // The cases reach the answers they are for: successes and each kind of refusal.
    expect(Array.from(statuses).sort()).toEqual([200, 400, 404, 413, 415])
    expect(all.length).toBeGreaterThan(34 * 5)
  }, 180_000)
})
