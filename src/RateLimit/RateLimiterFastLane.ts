/**
 * The rate limiter's synchronous lane (docs/architecture.md, "Services are Effects; fast lanes are
 * the edge's"): the decision at a given time, at once, or as a promise when the window is Redis's,
 * for the guards' core (Auth/Guards.ts), which the edge runs on node's request event. Built by
 * RateLimiter.ts, the one owner, with the `RateLimiter` service over it; only RateLimiter.ts, the
 * guards and the edge import this module (test/architecture/fast-lanes.test.ts).
 */
import * as Context from "effect/Context"

export interface Decision {
  readonly allowed: boolean
  readonly limit: number
  readonly remaining: number
  /** Seconds until a request would be allowed (0 when allowed). */
  readonly retryAfterSeconds: number
}

export interface RateLimiterFastLaneShape {
  /** False when SVC_API_RATE_LIMIT is unset or off: every request is allowed and nothing is held. */
  readonly enabled: boolean
  /** Counts one request against the bucket when allowed, at a given time in epoch milliseconds. */
  readonly decide: (bucket: string, now: number) => Decision
  /**
   * With Redis (DECISIONS §15): the decision for the whole fleet, kept atomically in Redis; while
   * Redis is unavailable, SVC_REDIS_ON_ERROR decides (this replica's own window, or allow).
   * Undefined without Redis: `decide` is the limiter.
   */
  readonly shared: ((bucket: string) => Promise<Decision>) | undefined
  /** Buckets currently held. */
  readonly size: () => number
}

export class RateLimiterFastLane extends Context.Tag("RateLimiterFastLane")<RateLimiterFastLane, RateLimiterFastLaneShape>() {}
