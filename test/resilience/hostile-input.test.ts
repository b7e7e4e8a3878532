/**
 * Hostile input, generated (fast-check, fixed seed): at least 20,000 bodies across all 34 patterns.
 * Every response must be a documented status with the documented body, the process must not
 * crash, nothing may be polluted, and memory must stay bounded.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import { definitions } from "../../patterns/index.js"
import { pipelined, type PipelinedRequest, statusCounts } from "../support/Pipelined.js"
import { exampleTrace } from "../support/ProviderDouble.js"
import { type RunningService, startService } from "../support/Service.js"

let service: RunningService
beforeAll(async () => {
  // No provider: bodies that pass every check end at 502 llm_resolution_error, without a model.
  service = await startService({ SVC_API_MAX_BODY_BYTES: "1048576" })
})
afterAll(async () => {
  await service.close()
})

const slugs = definitions.map((d) => d.spec.slug)
const examples = new Map(slugs.map((slug) => [slug, exampleTrace(slug)]))

/** Kind and status of every documented outcome of POST /v1/analyze/{name}. */
const DOCUMENTED: ReadonlyMap<number, ReadonlySet<string>> = new Map([
  [400, new Set(["validation_error", "unsupported_trace_format", "invalid_mode"])],
  [404, new Set(["unknown_pattern"])],
  [413, new Set(["request_too_large"])],
  [415, new Set(["unsupported_media_type"])],
  [502, new Set(["llm_resolution_error"])]
])

const json = (value: unknown) => Buffer.from(JSON.stringify(value), "utf8")

const anyJson: fc.Arbitrary<unknown> = fc.jsonValue({ maxDepth: 4 })
const hostileScalar: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(1e308, -1e308, Number.MAX_SAFE_INTEGER * 1024, -0, 5e-324),
  fc.string(),
  fc.constantFrom("\u0000", "a\u0000b", "\ud800", "\udfff lone", "\u202e\u2066", "💥".repeat(50)),
  fc.array(fc.integer(), { maxLength: 5 }),
  fc.dictionary(fc.string(), fc.integer(), { maxKeys: 3 })
)
const pollution: fc.Arbitrary<Record<string, unknown>> = fc.constantFrom(
  JSON.parse('{"__proto__":{"polluted":true}}'),
  JSON.parse('{"constructor":{"prototype":{"polluted":true}}}'),
  JSON.parse('{"prototype":{"polluted":true},"__proto__":[1]}')
)

/** A body built from a pattern's example trace, then damaged. */
const mutated = fc.record({
  slug: fc.constantFrom(...slugs),
  envelope: fc.boolean(),
  mutation: fc.oneof(
    fc.record({ kind: fc.constant("drop" as const), index: fc.nat() }),
    fc.record({ kind: fc.constant("retype" as const), index: fc.nat(), value: hostileScalar }),
    fc.record({ kind: fc.constant("deep-retype" as const), index: fc.nat(), value: hostileScalar }),
    fc.record({ kind: fc.constant("pollute" as const), value: pollution }),
    fc.record({ kind: fc.constant("mode" as const), value: fc.oneof(hostileScalar, fc.constantFrom("quick", "deep", "", "QUICK")) }),
    fc.record({ kind: fc.constant("extra" as const), key: fc.string(), value: anyJson })
  )
}).map(({ slug, envelope, mutation }): PipelinedRequest => {
  const trace: Record<string, unknown> = structuredClone(examples.get(slug) ?? {})
  const keys = Object.keys(trace)
  const key = keys.length > 0 ? keys[("index" in mutation ? mutation.index : 0) % keys.length] ?? "task" : "task"
  let extra: Record<string, unknown> = {}
  switch (mutation.kind) {
    case "drop":
      delete trace[key]
      break
    case "retype":
      trace[key] = mutation.value
      break
    case "deep-retype": {
      const list = Object.values(trace).find(Array.isArray)
      if (Array.isArray(list) && list.length > 0) {
        const element: unknown = list[mutation.index % list.length]
        if (typeof element === "object" && element !== null) {
          const inner = Object.keys(element)
          const field = inner[mutation.index % Math.max(1, inner.length)]
          if (field !== undefined) Reflect.set(element, field, mutation.value)
        } else {
          list[mutation.index % list.length] = mutation.value
        }
      } else {
        trace[key] = mutation.value
      }
      break
    }
    case "pollute":
      extra = mutation.value
      break
    case "mode":
      extra = { mode: mutation.value }
      break
    case "extra":
      extra = { [mutation.key]: mutation.value }
      break
  }
  const body = envelope ? { trace, ...extra } : { ...trace, ...extra }
  const text = mutation.kind === "pollute"
    ? JSON.stringify(body).replace(/^\{/, `{${JSON.stringify(mutation.value).slice(1, -1)},`)
    : JSON.stringify(body)
  return { method: "POST", path: `/v1/analyze/${slug}`, headers: { "content-type": "application/json" }, body: Buffer.from(text, "utf8") }
})

/** Bodies that are wrong at the byte or JSON level. */
const malformed = fc.oneof(
  fc.string().map((text) => Buffer.from(text, "utf8")),
  fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)),
  anyJson.filter((v) => typeof v !== "object" || v === null || Array.isArray(v)).map(json),
  fc.constantFrom(
    Buffer.from([0x7b, 0x22, 0x74, 0x61, 0x73, 0x6b, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]),
    Buffer.from('{"task":"a","task":5,"steps":[],"outcome":"o"}'),
    Buffer.from('{"task":"x"'),
    Buffer.from('{"task": 1e999}'),
    Buffer.from('\ufeff{"task":"bom"}'),
    Buffer.from(`${'{"a":'.repeat(10_000)}1${"}".repeat(10_000)}`),
    Buffer.from(`${"[".repeat(10_000)}${"]".repeat(10_000)}`),
    Buffer.from(`{"task":"t","steps":[{"type":"a","content":"b"}],"outcome":"o","metadata":${'{"d":'.repeat(5000)}0${"}".repeat(5000)}}`)
  )
).chain((body) =>
  fc.record({
    slug: fc.constantFrom(...slugs, "not_a_pattern", "LEWIN", "lewin%2F..", "..%2Fetc"),
    contentType: fc.constantFrom("application/json", "application/json; charset=utf-8", "text/plain", "application/x-www-form-urlencoded", "")
  }).map(({ slug, contentType }): PipelinedRequest => ({
    method: "POST",
    path: `/v1/analyze/${slug}`,
    headers: contentType === "" ? {} : { "content-type": contentType },
    body
  }))
)

describe("hostile input", () => {
  it("20,000+ generated bodies: documented statuses and bodies only; no crash, no pollution, bounded memory", async () => {
    const gc = globalThis.gc
    gc?.()
    const heapBefore = process.memoryUsage().heapUsed
    const requests = [
      ...fc.sample(mutated, { numRuns: 14_000, seed: 20261121 }),
      ...fc.sample(malformed, { numRuns: 6_500, seed: 20261122 })
    ]
    expect(requests.length).toBeGreaterThanOrEqual(20_000)
    const responses = await pipelined(service.port, requests, { sockets: 8, batch: 32 })
    expect(responses).toHaveLength(requests.length)
    const problems: Array<string> = []
    for (const response of responses) {
      const kinds = DOCUMENTED.get(response.status)
      let body: unknown
      try {
        body = JSON.parse(response.body)
      } catch {
        body = undefined
      }
      const detail: unknown = typeof body === "object" && body !== null ? Reflect.get(body, "detail") : undefined
      const error: unknown = typeof detail === "object" && detail !== null ? Reflect.get(detail, "error") : undefined
      const message: unknown = typeof detail === "object" && detail !== null ? Reflect.get(detail, "message") : undefined
      const exact = typeof body === "object" && body !== null && Object.keys(body).length === 1 &&
        typeof detail === "object" && detail !== null && Object.keys(detail).sort().join(",") === "error,message"
      if (kinds === undefined || typeof error !== "string" || !kinds.has(error) || typeof message !== "string" || !exact) {
        problems.push(`#${response.index} ${response.status} ${response.body.slice(0, 120)}`)
      }
    }
    expect(problems.slice(0, 10)).toEqual([])
    const counts = statusCounts(responses)
    console.info(`hostile input: ${requests.length} cases, statuses ${JSON.stringify(Object.fromEntries(counts))}`)
    expect(counts.get(400)).toBeGreaterThan(1000)
    expect(counts.get(502)).toBeGreaterThan(100)

    expect(Reflect.get({}, "polluted")).toBeUndefined()
    expect(Reflect.get(Object.prototype, "polluted")).toBeUndefined()
    expect((await fetch(`${service.url}/healthz`)).status).toBe(200)
    gc?.()
    const growth = (process.memoryUsage().heapUsed - heapBefore) / 1048576
    expect(growth).toBeLessThan(64)
  }, 240_000)
})
