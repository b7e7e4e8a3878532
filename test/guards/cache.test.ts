/**
 * The analysis cache: key identity, hits and the X-Cache header, single flight under concurrency,
 * failures not cached, LRU and TTL on TestClock, interruption of shared runs, metrics.
 */
import { describe, expect, it, vi } from "@effect/vitest"
import { Deferred, Effect, Fiber, Schema, TestClock } from "effect"
import type { AnalysisResult } from "../../src/Catalogue/Detection.js"
import { makeAnalysisCache } from "../../src/Cache/AnalysisCache.js"
import { cacheKey, canonicalJson } from "../../src/Cache/CacheKey.js"
import { AnalyzerError } from "../../src/Errors.js"
import { useProviderDouble } from "../support/Harness.js"
import { exampleOutput, exampleTrace } from "../support/ProviderDouble.js"
import type { RunningService } from "../support/Service.js"
import { sampleDetection } from "../support/Detections.js"

const harness = useProviderDouble()
/** Requests that joined a concurrent identical run (`svc_cache_events_total{event="coalesced"}`; the metrics are the process's, so compare with a count read before). */
const coalesced = async (service: RunningService): Promise<number> =>
  Number(/^svc_cache_events_total\{[^}]*event="coalesced"[^}]*\} (\d+)/m.exec(await (await fetch(`${service.url}/metrics`)).text())?.[1] ?? "0")

const start = (env: Record<string, string> = {}) =>
  harness.start({ ANTHROPIC_API_KEY: "sk-ant-cache-0123456789", ANTHROPIC_BASE_URL: harness.double.url, SVC_CACHE: "memory", ...env })
const post = (service: RunningService, body: unknown, signal?: AbortSignal) =>
  fetch(`${service.url}/v1/analyze/lewin`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    ...(signal === undefined ? {} : { signal })
  })

const Reply = Schema.Struct({ cached: Schema.Boolean, detection: Schema.Unknown })

const result = (label: string): AnalysisResult => ({ model: "m", detection: sampleDetection(label) })

describe("cache key", () => {
  it("is canonical: key order does not matter, values do", () => {
    expect(canonicalJson({ b: 1, a: [{ d: true, c: null }], e: "x" })).toBe('{"a":[{"c":null,"d":true}],"b":1,"e":"x"}')
    const a = cacheKey({ pattern: "lewin", mode: "quick", model: null, trace: { task: "t", steps: [] } })
    const b = cacheKey({ model: null, trace: { steps: [], task: "t" }, mode: "quick", pattern: "lewin" })
    expect(a).toBe(b)
    expect(a).toMatch(/^[0-9a-f]{64}$/)
    expect(cacheKey({ pattern: "lewin", mode: "standard", model: null, trace: { task: "t", steps: [] } })).not.toBe(a)
    expect(cacheKey({ pattern: "lewin", mode: "quick", model: "gpt-4o", trace: { task: "t", steps: [] } })).not.toBe(a)
  })
})

describe("LRU and TTL (TestClock)", () => {
  it.scoped("evicts the least recently used entry at capacity", () =>
    Effect.gen(function*() {
      const cache = makeAnalysisCache({ capacity: 2, ttlMillis: undefined, scope: yield* Effect.scope })
      let runs = 0
      const compute = (label: string) => Effect.sync(() => {
        runs += 1
        return result(label)
      })
      yield* cache.run("a", compute("a"))
      yield* cache.run("b", compute("b"))
      expect((yield* cache.run("a", compute("a"))).cached).toBe(true)
      yield* cache.run("c", compute("c"))
      expect(cache.size()).toBe(2)
      expect((yield* cache.run("a", compute("a"))).cached).toBe(true)
      expect((yield* cache.run("b", compute("b"))).cached).toBe(false)
      expect(runs).toBe(4)
    }))

  it.scoped("expires entries after the TTL", () =>
    Effect.gen(function*() {
      const cache = makeAnalysisCache({ capacity: 10, ttlMillis: 60_000, scope: yield* Effect.scope })
      yield* cache.run("k", Effect.succeed(result("first")))
      yield* TestClock.adjust("59 seconds")
      expect((yield* cache.run("k", Effect.succeed(result("second")))).result.detection.summary).toBe("first")
      yield* TestClock.adjust("1 seconds")
      const after = yield* cache.run("k", Effect.succeed(result("third")))
      expect(after).toEqual({ result: result("third"), cached: false })
    }))

  it.scoped("does not cache failures, and a hit never runs the computation", () =>
    Effect.gen(function*() {
      const cache = makeAnalysisCache({ capacity: 10, ttlMillis: undefined, scope: yield* Effect.scope })
      const failed = yield* Effect.either(cache.run("k", Effect.fail(new AnalyzerError({ message: "boom" }))))
      expect(failed._tag).toBe("Left")
      yield* cache.run("k", Effect.succeed(result("ok")))
      const hit = yield* cache.run("k", Effect.dieMessage("a cache hit must not resolve a provider or run anything"))
      expect(hit.cached).toBe(true)
    }))

  it.scoped("single flight: concurrent callers share one run; the last to leave interrupts it", () =>
    Effect.gen(function*() {
      const scope = yield* Effect.scope
      const cache = makeAnalysisCache({ capacity: 10, ttlMillis: undefined, scope })
      let runs = 0
      const interrupted = yield* Deferred.make<void>()
      const slow = Effect.sync(() => {
        runs += 1
      }).pipe(Effect.zipRight(Effect.never), Effect.onInterrupt(() => Deferred.succeed(interrupted, undefined)), Effect.as(result("x")))
      const first = yield* Effect.fork(cache.run("k", slow))
      const second = yield* Effect.fork(cache.run("k", slow))
      yield* TestClock.adjust("1 seconds")
      expect(runs).toBe(1)
      yield* Fiber.interrupt(first)
      expect(yield* Deferred.isDone(interrupted)).toBe(false)
      yield* Fiber.interrupt(second)
      yield* Deferred.await(interrupted)
    }))
})

describe("over HTTP", () => {
  it("serves an identical request from the cache: cached flag, X-Cache, one provider call", async () => {
    const service = await start()
    const first = await post(service, { ...exampleTrace("lewin"), mode: "quick" })
    expect(first.headers.get("x-cache")).toBe("miss")
    const firstBody = Schema.decodeUnknownSync(Reply)(await first.json())
    expect(firstBody.cached).toBe(false)
    const second = await post(service, { trace: exampleTrace("lewin"), mode: "quick" })
    expect(second.headers.get("x-cache")).toBe("hit")
    const secondBody = Schema.decodeUnknownSync(Reply)(await second.json())
    expect(secondBody.cached).toBe(true)
    expect(secondBody.detection).toEqual(firstBody.detection)
    expect(harness.double.calls).toHaveLength(1)
  })

  it("ignores key order inside the trace and unknown extra fields", async () => {
    const service = await start()
    const trace = exampleTrace("lewin")
    const reversed = Object.fromEntries(Object.entries(trace).reverse())
    await post(service, { trace, mode: "quick" })
    const again = await post(service, { trace: { ...reversed, note: "not part of the schema" }, mode: "quick" })
    expect(again.headers.get("x-cache")).toBe("hit")
    expect(harness.double.calls).toHaveLength(1)
  })

  it("single flight: 25 identical concurrent requests, one provider call, 25 identical responses", async () => {
    const service = await start()
    // The provider answers once the other 24 have joined the run (counted as coalesced), not after
    // a time: with 300 ms, a loaded machine's later requests came after the run and were hits.
    const joinedBefore = await coalesced(service)
    const joined = vi.waitFor(async () => expect(await coalesced(service)).toBe(joinedBefore + 24), { timeout: 30_000, interval: 10 })
    harness.double.script = () => ({ kind: "after", until: joined, then: { kind: "object", value: exampleOutput("lewin") } })
    const responses = await Promise.all(Array.from({ length: 25 }, () => post(service, { ...exampleTrace("lewin"), mode: "quick" })))
    await joined
    const bodies = await Promise.all(responses.map((response) => response.text()))
    expect(responses.every((response) => response.status === 200)).toBe(true)
    expect(harness.double.calls).toHaveLength(1)
    expect(new Set(bodies).size).toBe(1)
  })

  it("does not cache failures", async () => {
    const service = await start()
    harness.double.script = (_call, index) => (index < 4 ? { kind: "status", status: 500 } : undefined)
    expect((await post(service, { ...exampleTrace("lewin"), mode: "quick" })).status).toBe(502)
    const retry = await post(service, { ...exampleTrace("lewin"), mode: "quick" })
    expect(retry.status).toBe(200)
    expect(retry.headers.get("x-cache")).toBe("miss")
    expect(harness.double.calls).toHaveLength(5)
  })

  it("a shared run survives one client leaving, and is cut when all have left", async () => {
    const service = await start()
    harness.double.script = () => ({ kind: "delay", ms: 600, then: { kind: "object", value: exampleOutput("lewin") } })
    // the first leaves once the second has joined its run (counted as coalesced), not after a time
    const joinedBefore = await coalesced(service)
    const leaving = new AbortController()
    const left = post(service, { ...exampleTrace("lewin"), mode: "quick" }, leaving.signal).catch((error: unknown) => error)
    const staying = post(service, { ...exampleTrace("lewin"), mode: "quick" })
    await vi.waitFor(async () => expect(await coalesced(service)).toBe(joinedBefore + 1), { timeout: 30_000, interval: 10 })
    leaving.abort()
    await left
    const response = await staying
    expect(response.status).toBe(200)
    expect(harness.double.calls).toHaveLength(1)
    expect(harness.double.calls[0]!.closedEarly).toBe(false)

    harness.double.reset()
    harness.double.script = () => ({ kind: "hang" })
    const a = new AbortController()
    const b = new AbortController()
    const body = { ...exampleTrace("lewin"), mode: "standard" }
    const pending = [post(service, body, a.signal).catch(() => undefined), post(service, body, b.signal).catch(() => undefined)]
    for (let i = 0; i < 50 && harness.double.calls.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20))
    a.abort()
    b.abort()
    await Promise.all(pending)
    for (let i = 0; i < 50 && !harness.double.calls[0]?.closedEarly; i++) await new Promise((resolve) => setTimeout(resolve, 20))
    expect(harness.double.calls[0]!.closedEarly).toBe(true)
  })

  it("counts hits, misses, coalesced runs and evictions in /metrics", async () => {
    const service = await start({ SVC_CACHE_CAPACITY: "1" })
    await post(service, { ...exampleTrace("lewin"), mode: "quick" })
    await post(service, { ...exampleTrace("lewin"), mode: "quick" })
    await post(service, { ...exampleTrace("lewin"), mode: "standard" })
    const metrics = await (await fetch(`${service.url}/metrics`)).text()
    for (const event of ["hit", "miss", "eviction"]) {
      expect(metrics).toMatch(new RegExp(`^svc_cache_events_total\\{[^}]*event="${event}"[^}]*\\} [1-9]`, "m"))
    }
    expect(metrics).toMatch(/^svc_requests_total\{[^}]*status="cache_hit"[^}]*\} [1-9]/m)
    expect(metrics).toContain("# TYPE svc_cache_entries gauge")
  })
})
