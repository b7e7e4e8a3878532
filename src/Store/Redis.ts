/**
 * The Redis connection for shared state (DECISIONS §15), when `SVC_REDIS_URL` is set: one ioredis
 * client for the process, keys under `SVC_REDIS_PREFIX`. Losing Redis never fails start-up or
 * readiness (a fleet must not drop out together): the service starts and serves degraded, logs the
 * change of state once (never the URL's password), counts every failed operation in
 * `svc_store_errors_total{store="redis",op}`, and reconnects on its own. Callers get a typed
 * failure (`StoreUnavailable`) and fall back as each documents.
 */
import { Context, Data, Duration, Effect, Layer, Option, Redacted, Runtime } from "effect"
import { AppConfig } from "../Config.js"
import { countStoreError } from "../Observability/Metrics.js"

export class StoreUnavailable extends Data.TaggedError("StoreUnavailable")<{ readonly op: string }> {}

export interface RedisStoreShape {
  /** Whether Redis is configured at all. */
  readonly configured: boolean
  /** A key under the prefix: parts joined by `:` (callers encode what may contain `:`). */
  readonly key: (...parts: ReadonlyArray<string>) => string
  /** GET, bounded by the operation timeout. */
  readonly get: (key: string, op: string) => Effect.Effect<string | null, StoreUnavailable>
  /** SET NX: true when this call wrote the value. */
  readonly setIfAbsent: (key: string, value: string, op: string) => Effect.Effect<boolean, StoreUnavailable>
}

export class RedisStore extends Context.Tag("RedisStore")<RedisStore, RedisStoreShape>() {}

/** An operation that takes longer than this is a failure (the caller falls back). */
const OPERATION_TIMEOUT = Duration.millis(1_000)

/** No shared store configured: every operation is unavailable, so callers keep to the process. */
export const NO_SHARED_STORE: RedisStoreShape = {
  configured: false,
  key: (...parts) => parts.join(":"),
  get: (_key, op) => Effect.fail(new StoreUnavailable({ op })),
  setIfAbsent: (_key, _value, op) => Effect.fail(new StoreUnavailable({ op }))
}

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
    const { Redis } = yield* Effect.promise(() => import("ioredis"))
    const client = new Redis(url, {
      lazyConnect: true,
      // Fail fast while disconnected instead of queueing: callers fall back at once.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: 2_000,
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

    const attempt = <A>(op: string, run: () => Promise<A>): Effect.Effect<A, StoreUnavailable> =>
      Effect.tryPromise({ try: run, catch: () => new StoreUnavailable({ op }) }).pipe(
        Effect.timeoutFail({ duration: OPERATION_TIMEOUT, onTimeout: () => new StoreUnavailable({ op }) }),
        Effect.tapError(() => Effect.sync(() => countStoreError("redis", op)))
      )
    return {
      configured: true,
      key: (...parts) => `${redis.prefix}${parts.join(":")}`,
      get: (key, op) => attempt(op, () => client.get(key)),
      setIfAbsent: (key, value, op) => attempt(op, () => client.set(key, value, "NX")).pipe(Effect.map((reply) => reply === "OK"))
    } satisfies RedisStoreShape
  })
)
