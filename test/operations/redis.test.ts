/**
 * Baselines shared through Redis (issue 15, DECISIONS §15), against a real redis-server (Debian's,
 * installed by the test setup) and two service replicas: a baseline recorded through one replica
 * drifts through the other, per key scope, keys under the prefix; the URL's password in no log
 * line; Redis unreachable at start, lost while serving and back again.
 */
import { afterAll, describe, expect, it, vi } from "@effect/vitest"
import { Clock, ConfigProvider, Deferred, Effect, Fiber, Layer, Schema } from "effect"
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { once } from "node:events"
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Redis } from "ioredis"
import { makeAnalysisCache } from "../../src/Cache/AnalysisCache.js"
import { AppConfig, appConfig } from "../../src/Config.js"
import { RedisStore, RedisStoreLive } from "../../src/Store/Redis.js"
import { useProviderDouble } from "../support/Harness.js"
import { exampleOutput, exampleTrace } from "../support/ProviderDouble.js"
import type { RunningService } from "../support/Service.js"
import { requireTool } from "../support/Tools.js"
import { freePort } from "../support/Net.js"
import { sampleDetection } from "../support/Detections.js"

const PASSWORD = "redis-secret-pass-7f3a9c"
const ALICE = "alice-key-0123456789abcdef"
const BOB = "bob-key-0123456789abcdef"


const servers: Array<ChildProcess> = []
afterAll(() => {
  for (const server of servers) server.kill("SIGKILL")
})

/** A real redis-server on a loopback port, with a password, no persistence. */
const startRedis = async (port: number) => {
  const server = spawn(requireTool("redis-server", "redis-server"), [
    "--port", String(port), "--bind", "127.0.0.1", "--requirepass", PASSWORD, "--save", "", "--appendonly", "no"
  ], { stdio: "ignore" })
  servers.push(server)
  const client = new Redis({ port, host: "127.0.0.1", password: PASSWORD, lazyConnect: true, maxRetriesPerRequest: 0 })
  // Refused connections while the server starts are expected; the wait below retries.
  client.on("error", () => undefined)
  await vi.waitFor(async () => {
    await client.connect().catch(() => undefined)
    expect(await client.ping()).toBe("PONG")
  }, { timeout: 5000, interval: 100 })
  return {
    client,
    process: server,
    stop: async () => {
      client.disconnect()
      server.kill("SIGKILL")
      await new Promise((resolve) => server.once("exit", resolve))
    }
  }
}

/** The service's Redis store Layer, on the test's redis-server, with keys under `prefix`. */
const redisStoreOn = (port: number, prefix: string) =>
  RedisStoreLive.pipe(
    Layer.provide(Layer.effect(AppConfig, appConfig)),
    Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map([
      ["SVC_REDIS_URL", `redis://:${PASSWORD}@127.0.0.1:${port}`],
      ["SVC_REDIS_PREFIX", prefix]
    ]))))
  )

/** The built service (dist/server.mjs) as its own process; resolves with its address once ready. */
const spawnReplica = async (env: Record<string, string>) => {
  const child = spawn(process.execPath, [join(import.meta.dirname, "..", "..", "dist", "server.mjs")], {
    env: { PATH: process.env["PATH"] ?? "", SVC_PORT: "0", SVC_LOG_LEVEL: "info", SVC_HOME: mkdtempSync(join(tmpdir(), "svc-proc-")), ...env },
    stdio: ["ignore", "pipe", "inherit"]
  })
  servers.push(child)
  let pending = ""
  const url = await new Promise<string>((resolve, reject) => {
    child.on("exit", (code) => reject(new Error(`the replica exited (${code})`)))
    child.stdout?.setEncoding("utf8")
    child.stdout?.on("data", (chunk: string) => {
      pending += chunk
      const match = /"message":"ready".*?"address":"([^"]+)"/.exec(pending)
      if (match?.[1] !== undefined) resolve(match[1])
    })
  })
  return { url, stop: async () => { child.kill("SIGINT"); await once(child, "exit") } }
}

const harness = useProviderDouble()
const replica = (redisPort: number, env: Record<string, string> = {}) =>
  harness.start({
    ANTHROPIC_API_KEY: "sk-ant-redis-0123456789",
    ANTHROPIC_BASE_URL: harness.double.url,
    SVC_HOME: mkdtempSync(join(tmpdir(), "svc-replica-")),
    SVC_REDIS_URL: `redis://:${PASSWORD}@127.0.0.1:${redisPort}`,
    SVC_REDIS_PREFIX: "test:svc:",
    ...env
  })

const Drift = Schema.Struct({ detection: Schema.Struct({ drift: Schema.Struct({ recorded: Schema.Boolean, findings_new: Schema.Array(Schema.String), findings_resolved: Schema.Array(Schema.String) }) }) })
const driftVia = async (service: RunningService, key: string | null = null) => {
  const response = await fetch(`${service.url}/v1/analyze/lewin`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(key === null ? {} : { authorization: `Bearer ${key}` }) },
    body: JSON.stringify({ trace: exampleTrace("lewin"), mode: "quick", baseline: "prod" })
  })
  expect(response.status).toBe(200)
  return Schema.decodeUnknownSync(Drift)(await response.json()).detection.drift
}
const answerWith = (titles: ReadonlyArray<string>) => {
  const output = exampleOutput("lewin")
  const findings = Array.isArray(output["findings"]) ? output["findings"] : []
  harness.double.script = () => ({
    kind: "object",
    value: { ...output, findings: findings.map((finding: unknown, i: number) => ({ ...(typeof finding === "object" && finding !== null ? finding : {}), title: titles[i] })) }
  })
}
/** The `svc_store_errors_total` count of `op` in a /metrics text (0 when absent). */
const storeErrors = (metrics: string, op: string): number =>
  metrics.split("\n").filter((line) => line.startsWith("svc_store_errors_total{") && line.includes(`op="${op}"`))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(" ") + 1)), 0)
const FIRST = ["Tool outage not surfaced as a failure", "Gap filled with an assumed value"]
const LATER = ["A later finding", "Another later finding"]

describe("baselines on Redis", () => {
  it("a baseline recorded through one replica drifts through the other; keys stay under the prefix", async () => {
    const port = await freePort()
    const redis = await startRedis(port)
    const [a, b] = [await replica(port), await replica(port)]
    answerWith(FIRST)
    expect(await driftVia(a)).toMatchObject({ recorded: true })
    answerWith(LATER)
    expect(await driftVia(b)).toMatchObject({ recorded: false, findings_new: LATER, findings_resolved: FIRST })
    const keys = await redis.client.keys("*")
    // and the root key of redaction's placeholders, written once by the first replica (DECISIONS §20)
    expect(keys.sort()).toEqual(["test:svc:baseline:shared:lewin:prod", "test:svc:redact-key"])
    // so both replicas write a secret as the same placeholder
    const placeholderVia = async (service: RunningService) => {
      const response = await fetch(`${service.url}/v1/traces/normalize`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ trace: [{ role: "user", content: "rotate AKIAZ7QH2LKD3MNXW4PB" }, { role: "assistant", content: "done" }] })
      })
      return /\[aws_key:[0-9a-f]{6}\]/.exec(await response.text())?.[0]
    }
    const placeholder = await placeholderVia(a)
    expect(placeholder).toBeDefined()
    expect(await placeholderVia(b)).toBe(placeholder)
    await redis.stop()
  })

  it("keeps keys' baselines apart in Redis when auth is required", async () => {
    const port = await freePort()
    const redis = await startRedis(port)
    const auth = { SVC_API_REQUIRE_AUTH: "true", SVC_API_KEYS: `alice=${ALICE},bob=${BOB}` }
    const [a, b] = [await replica(port, auth), await replica(port, auth)]
    answerWith(FIRST)
    expect(await driftVia(a, ALICE)).toMatchObject({ recorded: true })
    expect(await driftVia(b, BOB)).toMatchObject({ recorded: true })
    expect(await driftVia(b, ALICE)).toMatchObject({ recorded: false })
    expect((await redis.client.keys("*")).sort()).toEqual(["test:svc:baseline:key=alice:lewin:prod", "test:svc:baseline:key=bob:lewin:prod", "test:svc:redact-key"])
    await redis.stop()
  })

  it("starts degraded when Redis is unreachable, serves from SVC_HOME, recovers when it comes back, and never logs the password", async () => {
    const logged: Array<string> = []
    const spy = vi.spyOn(console, "log").mockImplementation((...args: Array<unknown>) => {
      logged.push(args.map(String).join(" "))
    })
    try {
      const port = await freePort()
      const service = await replica(port, { SVC_LOG_LEVEL: "info" })
      expect((await fetch(`${service.url}/readyz`)).status).toBe(200)
      answerWith(FIRST)
      // Redis is down: the replica's own SVC_HOME keeps the baseline, and the failures are counted.
      expect(await driftVia(service)).toMatchObject({ recorded: true })
      expect(await driftVia(service)).toMatchObject({ recorded: false })
      const metrics = await (await fetch(`${service.url}/metrics`)).text()
      expect(metrics).toMatch(/svc_store_errors_total\{[^}]*op="baseline_get"[^}]*\} [1-9]/)
      // Redis comes back: the client reconnects by itself and the shared store is used again.
      const redis = await startRedis(port)
      await vi.waitFor(async () => {
        await driftVia(service)
        expect(await redis.client.keys("*")).toEqual(["test:svc:baseline:shared:lewin:prod"])
      }, { timeout: 10_000, interval: 300 })
      // Lost while serving: requests still answer, from SVC_HOME (a request past its deadline
      // would answer an error, not 200), and the failures are counted.
      await redis.stop()
      const failedBefore = storeErrors(await (await fetch(`${service.url}/metrics`)).text(), "baseline_get")
      expect(await driftVia(service)).toMatchObject({ recorded: false })
      expect(storeErrors(await (await fetch(`${service.url}/metrics`)).text(), "baseline_get")).toBeGreaterThan(failedBefore)
      expect((await fetch(`${service.url}/readyz`)).status).toBe(200)
      const output = logged.join("\n")
      expect(output).toContain("shared state store unavailable")
      expect(output).toContain("shared state store connected")
      expect(output).not.toContain(PASSWORD)
    } finally {
      spy.mockRestore()
    }
  })

  it("two replica processes enforce one rate limit: a limit of 10 per window accepts exactly 10", async () => {
    const port = await freePort()
    const redis = await startRedis(port)
    const env = { SVC_REDIS_URL: `redis://:${PASSWORD}@127.0.0.1:${port}`, SVC_REDIS_PREFIX: "test:svc:", SVC_API_RATE_LIMIT: "10/60" }
    const [a, b] = [await spawnReplica(env), await spawnReplica(env)]
    const responses = await Promise.all(Array.from({ length: 30 }, (_, i) => fetch(`${(i % 2 === 0 ? a : b).url}/v1/patterns`)))
    const statuses = responses.map((response) => response.status)
    expect(statuses.filter((status) => status === 200)).toHaveLength(10)
    expect(statuses.filter((status) => status === 429)).toHaveLength(20)
    const refused = responses.find((response) => response.status === 429)
    expect(refused?.headers.get("x-ratelimit-limit")).toBe("10")
    expect(Number(refused?.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
    expect((await redis.client.keys("*")).sort()).toEqual(["test:svc:ratelimit:ip%3A127%2E0%2E0%2E1", "test:svc:redact-key"])
    await Promise.all([a.stop(), b.stop()])
    await redis.stop()
  })

  it.each([["local", 3], ["open", 8]] as const)("with Redis lost, the limiter follows SVC_REDIS_ON_ERROR=%s (%i of 8 accepted)", async (policy, accepted) => {
    const port = await freePort()
    const service = await replica(port, { SVC_API_RATE_LIMIT: "3/60", SVC_REDIS_ON_ERROR: policy })
    const statuses: Array<number> = []
    for (let i = 0; i < 8; i++) statuses.push((await fetch(`${service.url}/v1/patterns`)).status)
    expect(statuses.filter((status) => status === 200)).toHaveLength(accepted)
    const metrics = await (await fetch(`${service.url}/metrics`)).text()
    expect(metrics).toMatch(/svc_store_errors_total\{[^}]*op="rate_limit"[^}]*\} [1-9]/)
  })

  it("the cache and single flight span the replicas: 1,000 identical concurrent requests over two processes make one provider call", async () => {
    const port = await freePort()
    const redis = await startRedis(port)
    const env = {
      SVC_REDIS_URL: `redis://:${PASSWORD}@127.0.0.1:${port}`,
      SVC_REDIS_PREFIX: "test:svc:",
      SVC_CACHE: "redis",
      ANTHROPIC_API_KEY: "sk-ant-redis-0123456789",
      ANTHROPIC_BASE_URL: harness.double.url
    }
    const [a, b] = [await spawnReplica(env), await spawnReplica(env)]
    harness.double.script = () => ({ kind: "delay", ms: 500, then: { kind: "object", value: exampleOutput("lewin") } })
    const body = JSON.stringify({ trace: exampleTrace("lewin"), mode: "quick" })
    const responses = await Promise.all(Array.from({ length: 1000 }, (_, i) =>
      fetch(`${(i % 2 === 0 ? a : b).url}/v1/analyze/lewin`, { method: "POST", headers: { "content-type": "application/json" }, body })))
    expect(responses.every((response) => response.status === 200)).toBe(true)
    expect(harness.double.calls).toHaveLength(1)
    // The replica that did not run it answers from Redis as a hit; afterwards both answer from memory.
    const later = await fetch(`${b.url}/v1/analyze/lewin`, { method: "POST", headers: { "content-type": "application/json" }, body })
    expect(later.headers.get("x-cache")).toBe("hit")
    const keys = (await redis.client.keys("*")).filter((key) => key !== "test:svc:redact-key")
    expect(keys.length).toBeGreaterThan(0)
    expect(keys.every((key) => key.startsWith("test:svc:cache:"))).toBe(true)
    await Promise.all([a.stop(), b.stop()])
    await redis.stop()
  })

  it("a replica that died holding a run's lease blocks nobody: the lease lapses and another takes over", async () => {
    const port = await freePort()
    const redis = await startRedis(port)
    const service = await replica(port, { SVC_CACHE: "redis" })
    const body = JSON.stringify({ trace: exampleTrace("lewin"), mode: "quick" })
    const analyze = () => fetch(`${service.url}/v1/analyze/lewin`, { method: "POST", headers: { "content-type": "application/json" }, body })
    // Learn the run's keys from a first run, then play a replica that took the lease and died.
    expect((await analyze()).status).toBe(200)
    const [entry] = await redis.client.keys("test:svc:cache:*")
    expect(entry).toBeDefined()
    const lease = (entry ?? "").replace("test:svc:cache:", "test:svc:lease:")
    // The other replica is up before the dead one's lease is written: its start-up is not spent
    // from the lease (a slow start on a loaded machine once outlived it).
    const other = await replica(port, { SVC_CACHE: "redis" })
    await redis.client.del(entry ?? "")
    const leased = performance.now()
    await redis.client.set(lease, "a-replica-that-died", "PX", 1_500)
    const response = await fetch(`${other.url}/v1/analyze/lewin`, { method: "POST", headers: { "content-type": "application/json" }, body })
    expect(response.status).toBe(200)
    expect(response.headers.get("x-cache")).toBe("miss")
    // It waited for the lease to lapse (Redis expires it 1.5 s after the SET, which followed
    // `leased`): a lower bound, which a loaded machine only makes easier to meet.
    expect(performance.now() - leased).toBeGreaterThanOrEqual(1_400)
    expect(harness.double.calls).toHaveLength(2)
    expect(await redis.client.exists(lease)).toBe(0)
    await redis.stop()
  })

  it("a run longer than its lease keeps it: the holder renews it while it runs, and gives it back after", async () => {
    const port = await freePort()
    const redis = await startRedis(port)
    const LEASE_MS = 1_500
    const seen: Array<number> = []
    await Effect.runPromise(
      Effect.gen(function*() {
        const store = yield* RedisStore
        const cache = makeAnalysisCache({ capacity: 10, ttlMillis: undefined, scope: yield* Effect.scope, shared: { store, ttlMs: 60_000, leaseMs: LEASE_MS, owner: "me" } })
        const compute = Effect.gen(function*() {
          // Two lease lifetimes long, the lease read every 50 ms: without renewal it would lapse.
          // (The lease is Redis's, on the real clock: renewed every 500 ms, a stall under 1 s keeps
          // it; with 300 ms leases, a loaded machine's stall lost it.)
          const started = yield* Clock.currentTimeMillis
          while ((yield* Clock.currentTimeMillis) - started < 2 * LEASE_MS) {
            seen.push(yield* Effect.promise(() => redis.client.pttl("unit:lease:k")))
            yield* Effect.sleep("50 millis")
          }
          return { model: "m", detection: sampleDetection("leased") }
        })
        yield* cache.run("k", compute)
      }).pipe(
        Effect.provide(redisStoreOn(port, "unit:")),
        Effect.scoped
      )
    )
    expect(seen.every((ttl) => ttl > 0), seen.join(",")).toBe(true)
    // renewed while it ran: its time left went up, more than once
    expect(seen.filter((ttl, i) => i > 0 && ttl > (seen[i - 1] ?? 0)).length, seen.join(",")).toBeGreaterThanOrEqual(2)
    expect(await redis.client.exists("unit:lease:k")).toBe(0)
    expect(await redis.client.exists("unit:cache:k")).toBe(1)
    await redis.stop()
  })

  it("a replica that found no entry and then takes a lease the holder just gave back reads the holder's entry instead of running again", async () => {
    const port = await freePort()
    const redis = await startRedis(port)
    let runs = 0
    const outcomes = await Effect.runPromise(
      Effect.gen(function*() {
        const store = yield* RedisStore
        const scope = yield* Effect.scope
        const firstDone = yield* Deferred.make<void>()
        const compute = Effect.sync(() => {
          runs += 1
          return { model: "m", detection: sampleDetection("leased") }
        })
        // Replica B looks for the entry before A has stored it, and asks for the lease only after A
        // has stored its result and given the lease back: the order a busy replica's event loop can
        // put its two round trips in.
        let looked = false
        const storeB = {
          ...store,
          get: (key: string, op: string) =>
            Effect.tap(store.get(key, op), () => Effect.sync(() => { looked = true })),
          lease: (key: string, owner: string, ttlMs: number) => Effect.zipRight(Deferred.await(firstDone), store.lease(key, owner, ttlMs))
        }
        const shared = { ttlMs: 60_000, leaseMs: 10_000 }
        const a = makeAnalysisCache({ capacity: 10, ttlMillis: undefined, scope, shared: { ...shared, store, owner: "a" } })
        const b = makeAnalysisCache({ capacity: 10, ttlMillis: undefined, scope, shared: { ...shared, store: storeB, owner: "b" } })
        const first = yield* Effect.fork(a.run("k", Effect.zipRight(Effect.sleep("200 millis"), compute)))
        const second = yield* Effect.fork(b.run("k", compute))
        const ran = yield* Fiber.join(first)
        expect(looked).toBe(true)
        yield* Deferred.succeed(firstDone, undefined)
        return [ran, yield* Fiber.join(second)] as const
      }).pipe(
        Effect.provide(redisStoreOn(port, "race:")),
        Effect.scoped
      )
    )
    expect(runs).toBe(1)
    expect(outcomes.map((outcome) => outcome.cached)).toEqual([false, true])
    expect(await redis.client.exists("race:lease:k")).toBe(0)
    await redis.stop()
  })

  it("Redis killed and restarted mid-load: every request answers, the cache comes back by itself", async () => {
    const port = await freePort()
    let redis = await startRedis(port)
    const service = await replica(port, { SVC_CACHE: "redis" })
    const analyze = (i: number) =>
      fetch(`${service.url}/v1/analyze/lewin`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ trace: { ...exampleTrace("lewin"), task: `reconcile batch ${i}` }, mode: "quick" })
      })
    harness.double.script = () => ({ kind: "delay", ms: 50, then: { kind: "object", value: exampleOutput("lewin") } })
    const load = Array.from({ length: 40 }, (_, i) => new Promise<Response>((resolve, reject) => setTimeout(() => analyze(i).then(resolve, reject), i * 25)))
    // mid-load: some runs have reached the provider (and hold leases) when Redis dies
    await vi.waitFor(() => expect(harness.double.calls.length).toBeGreaterThanOrEqual(5), { timeout: 30_000, interval: 20 })
    await redis.stop()
    const statuses = (await Promise.all(load)).map((response) => response.status)
    expect(statuses.every((status) => status === 200)).toBe(true)
    redis = await startRedis(port)
    // A new trace each time: one already answered is a hit in this replica's memory.
    let next = 1000
    await vi.waitFor(async () => {
      expect((await analyze(next++)).status).toBe(200)
      expect((await redis.client.keys("test:svc:cache:*")).length).toBeGreaterThan(0)
    }, { timeout: 10_000, interval: 300 })
    await redis.stop()
  })

  it("Redis paused (SIGSTOP) mid-load: requests in flight answer within the operation timeouts, not after the pause", async () => {
    const port = await freePort()
    const redis = await startRedis(port)
    const service = await replica(port, { SVC_CACHE: "redis", SVC_API_RATE_LIMIT: "1000/60" })
    const analyze = (i: number) =>
      fetch(`${service.url}/v1/analyze/lewin`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ trace: { ...exampleTrace("lewin"), task: `stalled batch ${i}` }, mode: "quick" })
      })
    // Runs that hold their leases when Redis stops: each gives its lease back in a finalizer.
    harness.double.script = () => ({ kind: "delay", ms: 400, then: { kind: "object", value: exampleOutput("lewin") } })
    const inFlight = Array.from({ length: 6 }, (_, i) => analyze(i).then((response) => response.status))
    // in flight: all six runs hold their leases and wait on the provider when Redis stops
    await vi.waitFor(() => expect(harness.double.calls).toHaveLength(6), { timeout: 30_000, interval: 20 })
    redis.process.kill("SIGSTOP")
    try {
      // Redis stays stopped until every request has answered (SIGCONT comes after): an operation
      // that waited for Redis would never answer, so answering at all is answering without it
      // (each Redis operation gives up after 1 s).
      const later = Array.from({ length: 4 }, (_, i) => analyze(100 + i).then((response) => response.status))
      const statuses = await Promise.all([...inFlight, ...later])
      expect(statuses.every((status) => status === 200)).toBe(true)
    } finally {
      redis.process.kill("SIGCONT")
    }
    await redis.stop()
  })

  it("works over TLS (rediss://) with the operator's CA", async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-tls-"))
    const [cert, key] = [join(dir, "cert.pem"), join(dir, "key.pem")]
    execFileSync(requireTool("openssl", "openssl"), [
      "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "2",
      "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"
    ], { stdio: "ignore" })
    const port = await freePort()
    const server = spawn(requireTool("redis-server", "redis-server"), [
      "--port", "0", "--tls-port", String(port), "--bind", "127.0.0.1", "--tls-cert-file", cert, "--tls-key-file", key,
      "--tls-ca-cert-file", cert, "--tls-auth-clients", "no", "--requirepass", PASSWORD, "--save", "", "--appendonly", "no"
    ], { stdio: "ignore" })
    servers.push(server)
    const client = new Redis(`rediss://:${PASSWORD}@127.0.0.1:${port}`, { tls: { ca: readFileSync(cert) }, lazyConnect: true, maxRetriesPerRequest: 0 })
    client.on("error", () => undefined)
    await vi.waitFor(async () => {
      await client.connect().catch(() => undefined)
      expect(await client.ping()).toBe("PONG")
    }, { timeout: 5000, interval: 100 })
    const replicaProcess = await spawnReplica({
      SVC_REDIS_URL: `rediss://:${PASSWORD}@127.0.0.1:${port}`,
      SVC_REDIS_PREFIX: "tls:",
      NODE_EXTRA_CA_CERTS: cert,
      ANTHROPIC_API_KEY: "sk-ant-redis-0123456789",
      ANTHROPIC_BASE_URL: harness.double.url
    })
    answerWith(FIRST)
    const response = await fetch(`${replicaProcess.url}/v1/analyze/lewin`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ trace: exampleTrace("lewin"), mode: "quick", baseline: "prod" })
    })
    expect(response.status).toBe(200)
    expect((await client.keys("*")).sort()).toEqual(["tls:baseline:shared:lewin:prod", "tls:redact-key"])
    client.disconnect()
    await replicaProcess.stop()
  })

  it("refuses a malformed SVC_REDIS_URL at start-up without showing it", async () => {
    await expect(harness.start({ SVC_REDIS_URL: `http://:${PASSWORD}@host` })).rejects.toThrow(/SVC_REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL/)
    await expect(harness.start({ SVC_REDIS_URL: `http://:${PASSWORD}@host` })).rejects.not.toThrow(PASSWORD)
  })
})
