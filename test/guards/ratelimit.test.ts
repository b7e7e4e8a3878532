/**
 * Rate limiting: the sliding window on TestClock, exactness under concurrency, bounded memory,
 * the trusted-proxy rule for X-Forwarded-For, and the HTTP behaviour (headers, 429, exemptions).
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { isIP } from "node:net"
import { DEFAULT_TRUSTED_PROXY_ADDRESSES } from "../../src/Config.js"
import { ipFamily, isAddressRange } from "../../src/Config/Entries.js"
import { addressSet } from "../../src/RateLimit/AddressRanges.js"
import { clientAddress } from "../../src/RateLimit/ClientAddress.js"
import { makeRateLimiter, rateLimiterOf } from "../../src/RateLimit/RateLimiter.js"
import { pipelinedGets } from "../support/Pipelined.js"
import { type RunningService, startService } from "../support/Service.js"

const services: Array<RunningService> = []
afterAll(async () => {
  await Promise.all(services.map((service) => service.close()))
})
const start = async (env: Record<string, string>) => {
  const service = await startService(env)
  services.push(service)
  return service
}

describe("sliding window (TestClock)", () => {
  it.effect("allows exactly K of N concurrent requests", () =>
    Effect.gen(function*() {
      const limiter = rateLimiterOf(makeRateLimiter({ requests: 7, windowSeconds: 60 }, 1000))
      const decisions = yield* Effect.all(Array.from({ length: 50 }, () => limiter.check("ip:a")), { concurrency: "unbounded" })
      expect(decisions.filter((d) => d.allowed)).toHaveLength(7)
      expect(decisions.filter((d) => d.allowed).map((d) => d.remaining)).toEqual([6, 5, 4, 3, 2, 1, 0])
    }))

  it.effect("slides: the previous window's weight falls as time passes", () =>
    Effect.gen(function*() {
      const limiter = rateLimiterOf(makeRateLimiter({ requests: 10, windowSeconds: 60 }, 1000))
      for (let i = 0; i < 10; i++) expect((yield* limiter.check("k")).allowed).toBe(true)
      const refused = yield* limiter.check("k")
      expect(refused.allowed).toBe(false)
      expect(refused.retryAfterSeconds).toBe(66)
      // Just into the next window, the previous 10 still weigh ~10: refused.
      yield* TestClock.adjust("61 seconds")
      expect((yield* limiter.check("k")).allowed).toBe(false)
      // Halfway through the next window they weigh 5: five more fit.
      yield* TestClock.adjust("29 seconds")
      const half = yield* Effect.all(Array.from({ length: 8 }, () => limiter.check("k")))
      expect(half.filter((d) => d.allowed)).toHaveLength(5)
      // Two windows of silence: a fresh start.
      yield* TestClock.adjust("150 seconds")
      const fresh = yield* Effect.all(Array.from({ length: 12 }, () => limiter.check("k")))
      expect(fresh.filter((d) => d.allowed)).toHaveLength(10)
    }))

  it.effect("Retry-After is honest: retrying at that moment succeeds", () =>
    Effect.gen(function*() {
      const limiter = rateLimiterOf(makeRateLimiter({ requests: 3, windowSeconds: 10 }, 1000))
      yield* TestClock.adjust("4 seconds")
      for (let i = 0; i < 3; i++) yield* limiter.check("k")
      const refused = yield* limiter.check("k")
      expect(refused.allowed).toBe(false)
      yield* TestClock.adjust(`${refused.retryAfterSeconds - 1} seconds`)
      expect((yield* limiter.check("k")).allowed).toBe(false)
      yield* TestClock.adjust("1 seconds")
      expect((yield* limiter.check("k")).allowed).toBe(true)
    }))

  it.effect("keeps buckets separate and memory bounded", () =>
    Effect.gen(function*() {
      const lane = makeRateLimiter({ requests: 1, windowSeconds: 60 }, 500)
      const limiter = rateLimiterOf(lane)
      for (let i = 0; i < 5000; i++) yield* limiter.check(`ip:${i}`)
      expect(lane.size()).toBe(500)
      expect((yield* limiter.check("ip:4999")).allowed).toBe(false)
      expect((yield* limiter.check("ip:new")).allowed).toBe(true)
    }))
})

describe("client address", () => {
  const proxies = addressSet(DEFAULT_TRUSTED_PROXY_ADDRESSES)

  it("ignores X-Forwarded-For with 0 trusted hops", () => {
    expect(clientAddress("203.0.113.9", "10.0.0.1", 0, proxies)).toBe("10.0.0.1")
  })

  it("takes the entry the trusted proxy added, whatever the client prepended", () => {
    expect(clientAddress("1.1.1.1, 203.0.113.9", "10.0.0.1", 1, proxies)).toBe("203.0.113.9")
    expect(clientAddress("9.9.9.9, 8.8.8.8, 203.0.113.9", "10.0.0.1", 1, proxies)).toBe("203.0.113.9")
    expect(clientAddress("1.1.1.1, 203.0.113.9, 10.0.0.2", "10.0.0.1", 2, proxies)).toBe("203.0.113.9")
    expect(clientAddress("not-an-ip", "::ffff:127.0.0.1", 1, proxies)).toBe("127.0.0.1")
    expect(clientAddress("203.0.113.9", "::ffff:192.168.4.2", 1, proxies)).toBe("203.0.113.9")
    expect(clientAddress("203.0.113.9", "fd12:3456::1", 1, proxies)).toBe("203.0.113.9")
    expect(clientAddress(undefined, undefined, 1, proxies)).toBe("unknown")
  })

  it("honours X-Forwarded-For only from a socket peer that is a trusted proxy", () => {
    // A client on the internet talking to the service directly chooses nothing.
    expect(clientAddress("1.2.3.4", "198.51.100.7", 1, proxies)).toBe("198.51.100.7")
    expect(clientAddress("[2001:db8::1]:443", "2001:db8::99", 1, proxies)).toBe("2001:db8::99")
    // 172.32.0.1 is just outside 172.16.0.0/12.
    expect(clientAddress("1.2.3.4", "172.32.0.1", 1, proxies)).toBe("172.32.0.1")
    expect(clientAddress("1.2.3.4", "172.31.255.254", 1, proxies)).toBe("1.2.3.4")
    // An operator's own list, and none at all.
    expect(clientAddress("1.2.3.4", "203.0.113.5", 1, addressSet(["203.0.113.0/24"]))).toBe("1.2.3.4")
    expect(clientAddress("1.2.3.4", "10.0.0.1", 1, addressSet([]))).toBe("10.0.0.1")
  })

  it("validates address ranges as SVC_TRUSTED_PROXY_ADDRESSES takes them", () => {
    for (const good of ["10.0.0.0/8", "::1", "fc00::/7", "192.168.1.1", "0.0.0.0/0", "::/0"]) expect(isAddressRange(good)).toBe(true)
    for (const bad of ["10.0.0.0/33", "::1/129", "10.0.0", "example.com", "10.0.0.0/", "10.0.0.0/x"]) expect(isAddressRange(bad)).toBe(false)
  })

  it("reads an address's family as node's isIP does, without its regular expression (issue 52)", () => {
    const samples = [
      "127.0.0.1", "0.0.0.0", "255.255.255.255", "256.1.1.1", "1.2.3", "1.2.3.4.5", "01.2.3.4", " 1.2.3.4", "1.2.3.4 ", "",
      "::", "::1", "fe80::1", "fe80::1%eth0", "2001:db8::ff00:42:8329", "2001:0db8:0000:0000:0000:ff00:0042:8329",
      "::ffff:192.168.1.1", "::ffff:7f00:1", "1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8:9", ":::1", "fe80::g", "[::1]", "example.com", "1.2.3.4/8"
    ]
    for (const sample of samples) expect(ipFamily(sample), sample).toBe(isIP(sample))
  })

  it("finds addresses in a set and refuses what is not an address", () => {
    const set = addressSet(["10.0.0.0/8", "::1", "fc00::/7"])
    for (const inside of ["10.1.2.3", "::ffff:10.1.2.3", "::FFFF:10.0.0.1", "::1", "fd00::5", "FD00::5"]) expect(set.has(inside), inside).toBe(true)
    for (const outside of ["11.0.0.1", "::ffff:11.0.0.1", "::2", "fe80::1", "not-an-ip", "::ffff:10.0.0", "10.0.0", "", undefined]) {
      expect(set.has(outside), String(outside)).toBe(false)
    }
  })
})

describe("over HTTP", () => {
  it("N parallel requests against a limit of K: exactly K succeed; headers on all; 429 with Retry-After", async () => {
    const service = await start({ SVC_API_RATE_LIMIT: "5/60" })
    const responses = await Promise.all(Array.from({ length: 20 }, () => fetch(`${service.url}/v1/patterns/lewin`)))
    expect(responses.filter((r) => r.status === 200)).toHaveLength(5)
    const refused = responses.filter((r) => r.status === 429)
    expect(refused).toHaveLength(15)
    for (const response of responses) {
      expect(response.headers.get("x-ratelimit-limit")).toBe("5")
      expect(response.headers.get("x-ratelimit-remaining")).toMatch(/^\d+$/)
    }
    expect(Number(refused[0]!.headers.get("retry-after"))).toBeGreaterThan(0)
    expect(await refused[0]!.json()).toEqual({ detail: { error: "rate_limited", message: expect.stringContaining("rate limit") } })
  })

  it("does not limit the probes, metrics or the OpenAPI document", async () => {
    const service = await start({ SVC_API_RATE_LIMIT: "1/60" })
    for (let i = 0; i < 5; i++) {
      for (const path of ["/healthz", "/livez", "/readyz", "/metrics", "/openapi.json"]) {
        const response = await fetch(`${service.url}${path}`)
        expect(response.status, path).toBe(200)
        expect(response.headers.get("x-ratelimit-limit")).toBeNull()
      }
    }
  })

  it("buckets by API key name before IP", async () => {
    const service = await start({ SVC_API_RATE_LIMIT: "2/60", SVC_API_KEYS: "a=aaaaaaaaaaaaaaaaaaaa,b=bbbbbbbbbbbbbbbbbbbb" })
    const as = (key: string) => fetch(`${service.url}/v1/patterns`, { headers: { authorization: `Bearer ${key}` } })
    expect((await Promise.all([as("a".repeat(20)), as("a".repeat(20)), as("a".repeat(20))])).map((r) => r.status)).toEqual([200, 200, 429])
    expect((await as("b".repeat(20))).status).toBe(200)
    expect((await fetch(`${service.url}/v1/patterns`)).status).toBe(200)
  })

  it("with SVC_TRUSTED_PROXIES=0 a client cannot pick its bucket by sending X-Forwarded-For", async () => {
    const service = await start({ SVC_API_RATE_LIMIT: "3/60", SVC_TRUSTED_PROXIES: "0" })
    const statuses = await Promise.all(
      Array.from({ length: 6 }, (_, i) => fetch(`${service.url}/v1/patterns`, { headers: { "x-forwarded-for": `198.51.100.${i}` } }))
    )
    expect(statuses.filter((r) => r.status === 200)).toHaveLength(3)
  })

  it("with 1 trusted hop only the proxy-added entry counts", async () => {
    const service = await start({ SVC_API_RATE_LIMIT: "2/60", SVC_TRUSTED_PROXIES: "1" })
    const spoofed = await Promise.all(
      Array.from({ length: 4 }, (_, i) => fetch(`${service.url}/v1/patterns`, { headers: { "x-forwarded-for": `10.9.9.${i}, 203.0.113.50` } }))
    )
    expect(spoofed.filter((r) => r.status === 200)).toHaveLength(2)
    expect((await fetch(`${service.url}/v1/patterns`, { headers: { "x-forwarded-for": "203.0.113.51" } })).status).toBe(200)
  })

  it("100,000 distinct forwarded addresses leave the limiter bounded", async () => {
    const service = await start({ SVC_API_RATE_LIMIT: "100/60", SVC_API_RATE_LIMIT_MAX_BUCKETS: "10000" })
    const total = 100_000
    const requests = Array.from({ length: total }, (_, i) => ({
      path: "/v1/patterns/lewin/composition",
      headers: { "x-forwarded-for": `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}` }
    }))
    const statuses = await pipelinedGets(service.port, requests)
    expect(statuses.get(200)).toBe(total)
    const metrics = await (await fetch(`${service.url}/metrics`)).text()
    const size = Number(/^svc_rate_limit_buckets(?:\{[^}]*\})? (\d+)/m.exec(metrics)?.[1])
    expect(size).toBe(10_000)
  }, 180_000)

  it("a limiter holding 10,000 buckets costs little memory", () => {
    const gc = globalThis.gc
    if (gc === undefined) throw new Error("run the tests with --expose-gc (vitest.config.ts sets it)")
    gc()
    const before = process.memoryUsage().heapUsed
    const lane = makeRateLimiter({ requests: 100, windowSeconds: 60 }, 10_000)
    const limiter = rateLimiterOf(lane)
    for (let i = 0; i < 100_000; i++) Effect.runSync(limiter.check(`ip:10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`))
    gc()
    const bytes = process.memoryUsage().heapUsed - before
    expect(lane.size()).toBe(10_000)
    console.info(`rate limiter after 100000 addresses: ${lane.size()} buckets, ${(bytes / 1024).toFixed(0)} KiB of heap`)
    expect(bytes).toBeLessThan(8 * 1024 * 1024)
  })
})
