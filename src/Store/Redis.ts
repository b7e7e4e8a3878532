/**
 * The Redis connection for shared state (DECISIONS §15), when `SVC_REDIS_URL` is set: one ioredis
 * client for the process, keys under `SVC_REDIS_PREFIX`. Losing Redis never fails start-up or
 * readiness (a fleet must not drop out together): the service starts and serves degraded, logs the
 * change of state once (never the URL's password), counts every failed operation in
 * `svc_store_errors_total{store="redis",op}`, and reconnects on its own. Callers get a typed
 * failure (`RedisUnavailable`) and fall back as each documents.
 */
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Runtime from "effect/Runtime"
import { AppConfig } from "../Config.js"
import { countStoreError } from "../Observability/Metrics.js"

export class RedisUnavailable extends Data.TaggedError("RedisUnavailable")<{ readonly op: string }> {}

export interface RedisStoreShape {
  /** Whether Redis is configured at all. */
  readonly configured: boolean
  /** A key under the prefix: parts joined by `:` (callers encode what may contain `:`). */
  readonly key: (...parts: ReadonlyArray<string>) => string
  /** GET, bounded by the operation timeout. */
  readonly get: (key: string, op: string) => Effect.Effect<string | null, RedisUnavailable>
  /** SET NX: true when this call wrote the value. */
  readonly setIfAbsent: (key: string, value: string, op: string) => Effect.Effect<boolean, RedisUnavailable>
  /** SET with an expiry (milliseconds). */
  readonly put: (key: string, value: string, ttlMs: number, op: string) => Effect.Effect<void, RedisUnavailable>
  /** DEL of keys. */
  readonly remove: (keys: ReadonlyArray<string>, op: string) => Effect.Effect<void, RedisUnavailable>
  /** SET NX with an expiry: true when this call took the lease. */
  readonly lease: (key: string, owner: string, ttlMs: number) => Effect.Effect<boolean, RedisUnavailable>
  /** Gives a lease back, if this owner still holds it. */
  readonly release: (key: string, owner: string) => Effect.Effect<void, RedisUnavailable>
  /** Extends a lease this owner still holds: true when it did. */
  readonly renew: (key: string, owner: string, ttlMs: number) => Effect.Effect<boolean, RedisUnavailable>
  /**
   * One sliding-window rate-limit decision, atomically in Redis (a script, on Redis's clock so
   * replicas agree): `[allowed 0|1, remaining, retryAfterMs]`. A Promise, for the edge.
   */
  readonly slidingWindow: (key: string, limit: number, windowMs: number) => Promise<readonly [number, number, number]>
}

export class RedisStore extends Context.Tag("RedisStore")<RedisStore, RedisStoreShape>() {}

/** An operation that takes longer than this is a failure (the caller falls back). */
const OPERATION_TIMEOUT = Duration.millis(1_000)

/** No shared store configured: every operation is unavailable, so callers keep to the process. */
export const NO_SHARED_STORE: RedisStoreShape = {
  configured: false,
  key: (...parts) => parts.join(":"),
  get: (_key, op) => Effect.fail(new RedisUnavailable({ op })),
  setIfAbsent: (_key, _value, op) => Effect.fail(new RedisUnavailable({ op })),
  put: (_key, _value, _ttl, op) => Effect.fail(new RedisUnavailable({ op })),
  remove: (_keys, op) => Effect.fail(new RedisUnavailable({ op })),
  lease: () => Effect.fail(new RedisUnavailable({ op: "lease" })),
  release: () => Effect.fail(new RedisUnavailable({ op: "release" })),
  renew: () => Effect.fail(new RedisUnavailable({ op: "renew" })),
  slidingWindow: () => Promise.reject(new RedisUnavailable({ op: "rate_limit" }))
}

/** Extends KEYS[1] by ARGV[2] ms only while it still holds ARGV[1] (a lease kept by its owner only). */
const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`

/** Deletes KEYS[1] only while it still holds ARGV[1] (a lease given back by its owner only). */
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`

/**
 * The sliding-window counter of RateLimit/RateLimiter.ts, in Redis: a hash per bucket
 * {start, current, previous}, the current fixed window's count plus the previous one's weighted by
 * its overlap with the sliding window. Time is Redis's (TIME), so every replica decides on one clock.
 * KEYS[1] the bucket; ARGV limit, window ms. Returns {allowed, remaining, retry after ms}.
 */
const SLIDING_WINDOW = `
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local start = now - (now % window)
local state = redis.call('HMGET', KEYS[1], 'start', 'current', 'previous')
local bucketStart = tonumber(state[1]) or start
local current = tonumber(state[2]) or 0
local previous = tonumber(state[3]) or 0
if bucketStart ~= start then
  if start - bucketStart == window then previous = current else previous = 0 end
  current = 0
end
local overlap = 1 - (now - start) / window
local estimate = previous * overlap + current
if estimate + 1 <= limit then
  current = current + 1
  redis.call('HSET', KEYS[1], 'start', start, 'current', current, 'previous', previous)
  redis.call('PEXPIRE', KEYS[1], window * 2)
  return {1, math.max(0, math.floor(limit - estimate - 1)), 0}
end
redis.call('HSET', KEYS[1], 'start', start, 'current', current, 'previous', previous)
redis.call('PEXPIRE', KEYS[1], window * 2)
local wait
if current + 1 > limit then
  local sinceNext = 0
  if current > 0 then sinceNext = window * (1 - (limit - 1) / current) end
  wait = start + window - now + math.max(0, sinceNext)
else
  wait = start + window * (1 - (limit - 1 - current) / previous) - now
end
return {0, 0, math.ceil(wait)}
`

/** Where the URL points, for logs: host and port only (never user or password). */
export const redisTarget = (url: string): string => {
  try {
    const parsed = new URL(url)
    return `${parsed.protocol}//${parsed.hostname}:${parsed.port.length > 0 ? parsed.port : "6379"}`
  } catch {
    return "redis"
  }
}

export const RedisStoreLive = Layer.scoped(
  RedisStore,
  Effect.gen(function*() {
    const { redis } = yield* AppConfig
    if (Option.isNone(redis.url)) return NO_SHARED_STORE
    const url = Redacted.value(redis.url.value)
    const target = redisTarget(url)
    // ioredis is loaded only when Redis is configured.
    // ioredis is CommonJS: its exports object is the default export, and carries the class as `Redis`
    // (bundled, the named export itself is not kept).
    const { default: exported } = yield* Effect.promise(() => import("ioredis"))
    const Redis = exported.Redis
    const client = new Redis(url, {
      lazyConnect: true,
      // Fail fast while disconnected instead of queueing: callers fall back at once.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: 2_000,
      commandTimeout: Duration.toMillis(OPERATION_TIMEOUT),
      retryStrategy: (attempt) => Math.min(attempt * 200, 2_000)
    })
    const runtime = yield* Effect.runtime<never>()
    let up: boolean | undefined
    const state = (next: boolean, reason?: string) => {
      if (up === next) return
      up = next
      const log = next
        ? Effect.logInfo("shared state store connected").pipe(Effect.annotateLogs({ store: target }))
        : Effect.logWarning("shared state store unavailable: serving with in-process fallbacks until it returns").pipe(
          Effect.annotateLogs({ store: target, reason: reason ?? "disconnected" })
        )
      Runtime.runFork(runtime)(log)
    }
    client.on("ready", () => state(true))
    // ioredis's errors name the host and port, not the password; only their code is logged.
    client.on("error", (error: Error & { code?: string }) => state(false, error.code ?? "error"))
    client.on("end", () => state(false, "connection closed"))
    yield* Effect.tryPromise(() => client.connect()).pipe(Effect.timeout(Duration.seconds(3)), Effect.ignore)
    if (up !== true) state(false, "not reachable at start")
    yield* Effect.addFinalizer(() => Effect.promise(() => client.quit().catch(() => "closed")))


    const numbers = (reply: unknown): readonly [number, number, number] => {
      if (!Array.isArray(reply)) throw new RedisUnavailable({ op: "rate_limit" })
      const [allowed, remaining, retry] = reply.map((x: unknown) => (typeof x === "number" ? x : Number(x)))
      return [allowed ?? 0, remaining ?? 0, retry ?? 0]
    }
    /** A promise that fails after the operation timeout (nobody waits longer on Redis). */
    const bounded = <A>(promise: Promise<A>, op: string): Promise<A> =>
      new Promise<A>((resolve, reject) => {
        const timer = setTimeout(() => reject(new RedisUnavailable({ op })), Duration.toMillis(OPERATION_TIMEOUT))
        promise.then(
          (value) => {
            clearTimeout(timer)
            resolve(value)
          },
          (error: unknown) => {
            clearTimeout(timer)
            reject(error)
          }
        )
      })
    /**
     * One operation, failed after the operation timeout by the promise itself: an effect timeout
     * interrupts, and interruption waits in an uninterruptible region (a lease given back in a
     * finalizer), so a Redis that stalls (SIGSTOP, a full network buffer) held requests for the
     * whole stall. ioredis's own commandTimeout rejects the command as well.
     */
    const attempt = <A>(op: string, run: () => Promise<A>): Effect.Effect<A, RedisUnavailable> =>
      Effect.tryPromise({ try: () => bounded(run(), op), catch: () => new RedisUnavailable({ op }) }).pipe(
        Effect.tapError(() => Effect.sync(() => countStoreError("redis", op)))
      )
    return {
      configured: true,
      key: (...parts) => `${redis.prefix}${parts.join(":")}`,
      get: (key, op) => attempt(op, () => client.get(key)),
      setIfAbsent: (key, value, op) => attempt(op, () => client.set(key, value, "NX")).pipe(Effect.map((reply) => reply === "OK")),
      put: (key, value, ttlMs, op) => attempt(op, () => client.set(key, value, "PX", ttlMs)).pipe(Effect.asVoid),
      remove: (keys, op) => keys.length === 0 ? Effect.void : attempt(op, () => client.del(...keys)).pipe(Effect.asVoid),
      lease: (key, owner, ttlMs) => attempt("lease", () => client.set(key, owner, "PX", ttlMs, "NX")).pipe(Effect.map((reply) => reply === "OK")),
      release: (key, owner) => attempt("release", () => client.eval(RELEASE, 1, key, owner)).pipe(Effect.asVoid),
      renew: (key, owner, ttlMs) => attempt("renew", () => client.eval(RENEW, 1, key, owner, ttlMs)).pipe(Effect.map((reply) => reply === 1)),
      slidingWindow: (key, limit, windowMs) =>
        bounded(client.eval(SLIDING_WINDOW, 1, key, limit, windowMs), "rate_limit").then(numbers).catch((error: unknown) => {
          countStoreError("redis", "rate_limit")
          throw error
        })
    } satisfies RedisStoreShape
  })
)
