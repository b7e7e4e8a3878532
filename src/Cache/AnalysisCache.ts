/**
 * The in-memory analysis cache with single flight (SEED §8, DECISIONS §6).
 * - Entries are kept in least-recently-used order, at most SVC_CACHE_CAPACITY, optionally
 *   expiring after SVC_CACHE_TTL_SECONDS (time from Effect's Clock).
 * - Concurrent identical requests share one run: the run is forked into the cache's own scope, so
 *   it outlives the request that started it while anyone still waits for it; when every waiter
 *   has gone (disconnected or timed out), the run is interrupted and its upstream calls aborted.
 * - Failures are not cached.
 * Without SVC_CACHE=memory every request runs on its own.
 */
import { Clock, Context, Deferred, Duration, Effect, Exit, Fiber, Layer, Option, type Scope } from "effect"
import type { AnalysisResult } from "../Analysis/Analyzer.js"
import { AppConfig } from "../Config.js"
import type { AnalyzerError, LlmResolutionError, Timeout } from "../Errors.js"
import { Lru } from "../Lru.js"
import { cacheEntries, cacheEvents, labelled } from "../Observability/Metrics.js"

export interface CacheOutcome {
  readonly result: AnalysisResult
  /** True when served from a stored entry (not when shared with a concurrent identical run). */
  readonly cached: boolean
}

/** What an analysis run can fail with. */
export type AnalysisFailure = AnalyzerError | LlmResolutionError | Timeout

export interface AnalysisCacheShape {
  readonly enabled: boolean
  /**
   * The prepared response bytes of a stored entry at a time in epoch milliseconds (rendered once
   * per entry), counting a hit, or undefined when the key is not stored (nothing is computed).
   * Synchronous, for the edge (Cache/CachedReplies.ts).
   */
  readonly hitBytesAt: (key: string, render: (result: AnalysisResult) => Uint8Array, now: number) => Uint8Array | undefined
  /** The Clock the cache keeps time by. */
  readonly now: () => number
  readonly run: (key: string, compute: Effect.Effect<AnalysisResult, AnalysisFailure>) => Effect.Effect<CacheOutcome, AnalysisFailure>
  readonly size: () => number
}

export class AnalysisCache extends Context.Tag("AnalysisCache")<AnalysisCache, AnalysisCacheShape>() {}

interface Entry {
  readonly result: AnalysisResult
  readonly storedAt: number
  hitBytes?: Uint8Array
}

interface Flight {
  readonly deferred: Deferred.Deferred<AnalysisResult, AnalysisFailure>
  fiber: Fiber.RuntimeFiber<void> | undefined
  waiters: number
}

type CacheEvent = "hit" | "miss" | "coalesced" | "eviction" | "expiry"
const eventCounters = new Map<CacheEvent, (input: number) => void>(
  (["hit", "miss", "coalesced", "eviction", "expiry"] as const).map((name) => [name, labelled(cacheEvents, { event: name })])
)
const eventNow = (name: CacheEvent) => eventCounters.get(name)?.(1)
const entriesHeld = labelled(cacheEntries, {})

export const makeAnalysisCache = (options: {
  readonly capacity: number
  readonly ttlMillis: number | undefined
  readonly scope: Scope.Scope
}) => {
  const entries = new Lru<string, Entry>(options.capacity, () => eventNow("eviction"))
  const flights = new Map<string, Flight>()

  const store = (key: string, result: AnalysisResult, now: number) =>
    Effect.sync(() => {
      entries.set(key, { result, storedAt: now })
      entriesHeld(entries.size)
    })

  /** The live entry of a key (made the newest), dropping it once expired. */
  const lookup = (key: string, now: number): Entry | undefined => {
    const entry = entries.get(key)
    if (entry === undefined) return undefined
    if (options.ttlMillis !== undefined && now - entry.storedAt >= options.ttlMillis) {
      entries.delete(key)
      eventNow("expiry")
      entriesHeld(entries.size)
      return undefined
    }
    return entry
  }

  /** Waits for a flight; the last waiter to leave interrupts the run. */
  const join = (key: string, flight: Flight): Effect.Effect<AnalysisResult, AnalysisFailure> =>
    Effect.suspend(() => {
      flight.waiters += 1
      return Deferred.await(flight.deferred)
    }).pipe(
      Effect.ensuring(
        Effect.suspend(() => {
          flight.waiters -= 1
          if (flight.waiters > 0 || flight.fiber === undefined || flights.get(key) !== flight) return Effect.void
          flights.delete(key)
          return Fiber.interruptFork(flight.fiber)
        })
      )
    )

  const run = (key: string, compute: Effect.Effect<AnalysisResult, AnalysisFailure>): Effect.Effect<CacheOutcome, AnalysisFailure> =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const hit = lookup(key, now)
      if (hit !== undefined) {
        eventNow("hit")
        return { result: hit.result, cached: true }
      }
      const existing = flights.get(key)
      if (existing !== undefined) {
        eventNow("coalesced")
        return { result: yield* join(key, existing), cached: false }
      }
      eventNow("miss")
      const flight: Flight = { deferred: yield* Deferred.make<AnalysisResult, AnalysisFailure>(), fiber: undefined, waiters: 0 }
      flights.set(key, flight)
      flight.fiber = yield* compute.pipe(
        Effect.exit,
        Effect.flatMap((exit) =>
          Effect.gen(function*() {
            if (flights.get(key) === flight) flights.delete(key)
            if (Exit.isSuccess(exit)) yield* store(key, exit.value, yield* Clock.currentTimeMillis)
            yield* Deferred.done(flight.deferred, exit)
          })
        ),
        Effect.onInterrupt(() => Deferred.interrupt(flight.deferred)),
        Effect.forkIn(options.scope)
      )
      return { result: yield* join(key, flight), cached: false }
    })

  const hitBytesAt = (key: string, render: (result: AnalysisResult) => Uint8Array, now: number): Uint8Array | undefined => {
    const entry = lookup(key, now)
    if (entry === undefined) return undefined
    entry.hitBytes ??= render(entry.result)
    eventNow("hit")
    return entry.hitBytes
  }
  return { run, hitBytesAt, size: () => entries.size }
}

export const AnalysisCacheLive = Layer.scoped(
  AnalysisCache,
  Effect.gen(function*() {
    const { cache } = yield* AppConfig
    if (!cache.enabled) {
      return {
        enabled: false,
        run: (_key: string, compute: Effect.Effect<AnalysisResult, AnalysisFailure>) =>
          Effect.map(compute, (result): CacheOutcome => ({ result, cached: false })),
        hitBytesAt: () => undefined,
        now: () => Date.now(),
        size: () => 0
      }
    }
    const scope = yield* Effect.scope
    const clock = yield* Effect.clock
    const made = makeAnalysisCache({
      capacity: cache.capacity,
      ttlMillis: Option.getOrUndefined(Option.map(cache.ttl, Duration.toMillis)),
      scope
    })
    return { enabled: true, now: () => clock.unsafeCurrentTimeMillis(), ...made }
  })
)
