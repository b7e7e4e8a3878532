/**
 * Sliding-window rate limiting (DECISIONS §5), per bucket (API key name, else client IP).
 * The window is a sliding-window counter: the current fixed window's count plus the previous
 * window's count weighted by how much of it still overlaps the sliding window. O(1) memory per
 * bucket; exact while traffic stays within one window, and never lets a burst straddle a window
 * edge at double the rate as a fixed window would.
 * Memory is bounded: buckets are kept in least-recently-used order and the oldest is evicted
 * past the cap; idle buckets (no traffic for two windows) carry no state worth keeping and are
 * the first to go. Time comes from Effect's Clock, so tests drive it with TestClock.
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { AppConfig, type RateLimitSetting } from "../Config.js"
import { encodeScopeName } from "../Text.js"
import { Lru } from "../Lru.js"
import { type Decision, RateLimiterFastLane, type RateLimiterFastLaneShape } from "./RateLimiterFastLane.js"
import { RedisStore, type RedisStoreShape } from "../Store/Redis.js"

export type { Decision } from "./RateLimiterFastLane.js"

interface Bucket {
  windowStart: number
  current: number
  previous: number
}

export interface RateLimiterShape {
  /** False when SVC_API_RATE_LIMIT is unset or off: every request is allowed and nothing is held. */
  readonly enabled: boolean
  /** Counts one request against the bucket when allowed (in Redis's window with Redis, DECISIONS §15). */
  readonly check: (bucket: string) => Effect.Effect<Decision>
}

export class RateLimiter extends Context.Tag("RateLimiter")<RateLimiter, RateLimiterShape>() {}

/** The service over a lane: one decision, made by the lane's own code. */
export const rateLimiterOf = (lane: RateLimiterFastLaneShape): RateLimiterShape => {
  const shared = lane.shared
  return {
    enabled: lane.enabled,
    check: shared === undefined
      ? (bucket) => Effect.map(Clock.currentTimeMillis, (now) => lane.decide(bucket, now))
      : (bucket) => Effect.promise(() => shared(bucket))
  }
}

/** `RateLimiter` and the guards' `RateLimiterFastLane`, one limiter behind both. */
const both = (lane: RateLimiterFastLaneShape) => Context.make(RateLimiterFastLane, lane).pipe(Context.add(RateLimiter, rateLimiterOf(lane)))

export const makeRateLimiter = (setting: RateLimitSetting, maxBuckets: number): RateLimiterFastLaneShape => {
  const windowMs = setting.windowSeconds * 1000
  const limit = setting.requests
  const buckets = new Lru<string, Bucket>(maxBuckets)

  const decide = (key: string, now: number): Decision => {
    let bucket = buckets.get(key)
    if (bucket === undefined) {
      bucket = { windowStart: now - (now % windowMs), current: 0, previous: 0 }
      buckets.set(key, bucket)
    }
    const windowStart = now - (now % windowMs)
    if (windowStart !== bucket.windowStart) {
      bucket.previous = windowStart - bucket.windowStart === windowMs ? bucket.current : 0
      bucket.current = 0
      bucket.windowStart = windowStart
    }
    const overlap = 1 - (now - windowStart) / windowMs
    const estimate = bucket.previous * overlap + bucket.current
    if (estimate + 1 <= limit) {
      bucket.current += 1
      return { allowed: true, limit, remaining: Math.max(0, Math.floor(limit - estimate - 1)), retryAfterSeconds: 0 }
    }
    // When will previous*overlap + current + 1 <= limit? The previous window's weight falls linearly.
    let waitMs: number
    if (bucket.current + 1 > limit) {
      // Not before this window ends; then the current count becomes the previous one.
      const sinceNext = bucket.current === 0 ? 0 : windowMs * (1 - (limit - 1) / bucket.current)
      waitMs = windowStart + windowMs - now + Math.max(0, sinceNext)
    } else {
      const neededOverlap = (limit - 1 - bucket.current) / bucket.previous
      waitMs = windowStart + windowMs * (1 - neededOverlap) - now
    }
    return { allowed: false, limit, remaining: 0, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) }
  }

  return {
    enabled: true,
    decide,
    shared: undefined,
    size: () => buckets.size
  }
}

/** The fleet-wide limiter on Redis, this replica's `local` one behind it for SVC_REDIS_ON_ERROR. */
export const makeSharedRateLimiter = (
  setting: RateLimitSetting,
  local: RateLimiterFastLaneShape,
  store: RedisStoreShape,
  onError: "local" | "open",
  now: () => number
): RateLimiterFastLaneShape => {
  const limit = setting.requests
  const windowMs = setting.windowSeconds * 1000
  const shared = (bucket: string): Promise<Decision> =>
    store.slidingWindow(store.key("ratelimit", encodeScopeName(bucket)), limit, windowMs).then(
      ([allowed, remaining, retryMs]): Decision => ({
        allowed: allowed === 1,
        limit,
        remaining,
        retryAfterSeconds: allowed === 1 ? 0 : Math.max(1, Math.ceil(retryMs / 1000))
      }),
      (): Decision => (onError === "open" ? { allowed: true, limit, remaining: limit, retryAfterSeconds: 0 } : local.decide(bucket, now()))
    )
  return { ...local, shared }
}

const ALLOWED: Decision = { allowed: true, limit: 0, remaining: 0, retryAfterSeconds: 0 }

/** No limit configured. */
export const unlimited: RateLimiterFastLaneShape = {
  enabled: false,
  decide: () => ALLOWED,
  shared: undefined,
  size: () => 0
}

/**
 * The limiter of the configured setting in this process (`unlimited` when SVC_API_RATE_LIMIT is
 * unset or off). Which limiter a service gets is chosen once, in Resources.ts.
 */
export const RateLimiterMemoryLive = Layer.effectContext(
  Effect.map(AppConfig, (config) =>
    both(Option.match(config.rateLimit, {
      onNone: () => unlimited,
      onSome: (setting) => makeRateLimiter(setting, config.rateLimitMaxBuckets)
    })))
)

/** The same, one window for the fleet kept in Redis (DECISIONS §15), this process's as the fallback. */
export const RateLimiterRedisLive = Layer.effectContext(
  Effect.gen(function*() {
    const config = yield* AppConfig
    const store = yield* RedisStore
    const clock = yield* Effect.clock
    return both(Option.match(config.rateLimit, {
      onNone: () => unlimited,
      onSome: (setting) =>
        makeSharedRateLimiter(setting, makeRateLimiter(setting, config.rateLimitMaxBuckets), store, config.redis.onError, () =>
          clock.unsafeCurrentTimeMillis())
    }))
  })
)
