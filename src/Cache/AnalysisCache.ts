/**
 * The in-memory analysis cache with single flight (SEED §8, DECISIONS §6).
 * - Entries are kept in least-recently-used order, at most SVC_CACHE_CAPACITY, optionally
 *   expiring after SVC_CACHE_TTL_SECONDS (time from Effect's Clock).
 * - Concurrent identical requests share one run: the run is forked into the cache's own scope, so
 *   it outlives the request that started it while anyone still waits for it; when every waiter
 *   has gone (disconnected or timed out), the run is interrupted and its upstream calls aborted.
 * - Failures are not cached.
 * Without SVC_CACHE=memory every request runs on its own.
 * One set of entries behind two interfaces: `AnalysisCache`, Effects only, and the edge's
 * `AnalysisCacheFastLane` (AnalysisCacheFastLane.ts), a stored hit's bytes at once.
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import { randomUUID } from "node:crypto"
import { type AnalysisResult, Detection } from "../Catalogue/Detection.js"
import { AppConfig } from "../Config.js"
import type { AnalyzerError, LlmResolutionError, Timeout } from "../Errors.js"
import { Lru } from "../Lru.js"
import { AnalysisCacheFastLane } from "./AnalysisCacheFastLane.js"
import { cacheEntries, cacheEvents, labelled } from "../Observability/Metrics.js"
import { RedisStore, type RedisStoreShape, type RedisUnavailable } from "../Store/Redis.js"

/** A run's lease on Redis, renewed while it runs: a dead replica's lapses within this time. */
export const LEASE_MS = 10_000

/** Entries in Redis live this long unless SVC_CACHE_TTL_SECONDS says otherwise. */
export const DEFAULT_SHARED_TTL_MS = 24 * 60 * 60 * 1000

export interface CacheOutcome {
  readonly result: AnalysisResult
  /** True when served from a stored entry (not when shared with a concurrent identical run). */
  readonly cached: boolean
}

/** What an analysis run can fail with. */
export type AnalysisFailure = AnalyzerError | LlmResolutionError | Timeout

export interface AnalysisCacheShape {
  readonly enabled: boolean
  readonly run: (key: string, compute: Effect.Effect<AnalysisResult, AnalysisFailure>) => Effect.Effect<CacheOutcome, AnalysisFailure>
  /** Drops the entries of these keys (a deleted or purged run's, DECISIONS §17), here and in the shared store. */
  readonly evict: (keys: ReadonlyArray<string>) => Effect.Effect<void>
}

export class AnalysisCache extends Context.Tag("AnalysisCache")<AnalysisCache, AnalysisCacheShape>() {}

interface Entry {
  readonly result: AnalysisResult
  readonly storedAt: number
  hitBytes?: Uint8Array
}

/** A flight's result: computed here, or found in the shared store (then a cache hit for everyone). */
interface Landed {
  readonly result: AnalysisResult
  readonly fromStore: boolean
}

interface Flight {
  readonly deferred: Deferred.Deferred<Landed, AnalysisFailure>
  fiber: Fiber.RuntimeFiber<void> | undefined
  waiters: number
}

/** The cache shared by the replicas on Redis (SVC_CACHE=redis, DECISIONS §15). */
export interface SharedCache {
  readonly store: RedisStoreShape
  /** How long an entry lives in Redis. */
  readonly ttlMs: number
  /**
   * How long a lease holds without renewal: the holder renews it every third of this while it runs,
   * so a replica that dies lets another take over within this time.
   */
  readonly leaseMs: number
  /** This process's lease owner id. */
  readonly owner: string
}

/** A result as another replica stored it: read by its schema (anything else is no result). */
const decodeResult = Schema.decodeUnknownOption(
  Schema.parseJson(Schema.Struct({ model: Schema.String, detection: Detection })),
  { onExcessProperty: "preserve" }
)

const parseResult = (text: string | null): AnalysisResult | undefined =>
  text === null ? undefined : Option.getOrUndefined(decodeResult(text))

/** How often a replica waiting on another's run looks for its result. */
const POLL = Duration.millis(100)

/**
 * One run across the replicas: the stored result if there is one; else the run under a lease
 * (SET NX PX), its result stored for everyone; else, while another replica holds the lease, wait
 * for its result (or for the lease to lapse, if that replica died, and take over). The store
 * failing at any point: this replica runs on its own (the caller's deadline bounds all of it).
 */
const sharedRun = (
  shared: SharedCache,
  key: string,
  compute: Effect.Effect<AnalysisResult, AnalysisFailure>
): Effect.Effect<Landed, AnalysisFailure> => {
  const { store } = shared
  const entryKey = store.key("cache", key)
  const leaseKey = store.key("lease", key)
  const stored = Effect.map(store.get(entryKey, "cache_get"), parseResult)
  // While this replica runs, its lease is renewed; the renewal stops with the run.
  const renewing = store.renew(leaseKey, shared.owner, shared.leaseMs).pipe(
    Effect.ignore,
    Effect.repeat(Schedule.spaced(Duration.millis(Math.max(100, Math.floor(shared.leaseMs / 3)))))
  )
  // Under the lease, look once more: the holder before this one stores its result and then gives
  // the lease back, so a look that missed the entry can be followed by a lease taken after that
  // holder finished (its result is stored by then). Without this look the run would go twice.
  const own = Effect.gen(function*() {
    const late = yield* stored
    if (late !== undefined) return { result: late, fromStore: true }
    const result = yield* Effect.raceFirst(compute, Effect.zipRight(renewing, Effect.never))
    yield* store.put(entryKey, JSON.stringify(result), shared.ttlMs, "cache_put").pipe(Effect.ignore)
    return { result, fromStore: false }
  }).pipe(Effect.ensuring(Effect.ignore(store.release(leaseKey, shared.owner))))
  const attempt: Effect.Effect<Landed, AnalysisFailure | RedisUnavailable> = Effect.gen(function*() {
    const found = yield* stored
    if (found !== undefined) return { result: found, fromStore: true }
    if (yield* store.lease(leaseKey, shared.owner, shared.leaseMs)) return yield* own
    yield* Effect.sleep(POLL)
    return yield* attempt
  })
  return attempt.pipe(
    Effect.catchTag("RedisUnavailable", () => Effect.map(compute, (result): Landed => ({ result, fromStore: false })))
  )
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
  readonly shared?: SharedCache | undefined
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
  const join = (key: string, flight: Flight): Effect.Effect<Landed, AnalysisFailure> =>
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
        const landed = yield* join(key, existing)
        return { result: landed.result, cached: landed.fromStore }
      }
      const flight: Flight = { deferred: yield* Deferred.make<Landed, AnalysisFailure>(), fiber: undefined, waiters: 0 }
      flights.set(key, flight)
      const shared = options.shared
      const landing = shared === undefined
        ? Effect.map(compute, (result): Landed => ({ result, fromStore: false }))
        : sharedRun(shared, key, compute)
      flight.fiber = yield* landing.pipe(
        Effect.tap((landed) => Effect.sync(() => eventNow(landed.fromStore ? "hit" : "miss"))),
        Effect.exit,
        Effect.flatMap((exit) =>
          Effect.gen(function*() {
            if (flights.get(key) === flight) flights.delete(key)
            if (Exit.isSuccess(exit)) yield* store(key, exit.value.result, yield* Clock.currentTimeMillis)
            yield* Deferred.done(flight.deferred, exit)
          })
        ),
        Effect.onInterrupt(() => Deferred.interrupt(flight.deferred)),
        Effect.forkIn(options.scope)
      )
      const landed = yield* join(key, flight)
      return { result: landed.result, cached: landed.fromStore }
    })

  const hitBytesAt = (key: string, render: (result: AnalysisResult) => Uint8Array, now: number): Uint8Array | undefined => {
    const entry = lookup(key, now)
    if (entry === undefined) return undefined
    entry.hitBytes ??= render(entry.result)
    eventNow("hit")
    return entry.hitBytes
  }
  const evict = (keys: ReadonlyArray<string>): Effect.Effect<void> =>
    Effect.suspend(() => {
      for (const key of keys) entries.delete(key)
      entriesHeld(entries.size)
      const shared = options.shared
      return shared === undefined ? Effect.void : Effect.ignore(shared.store.remove(keys.map((key) => shared.store.key("cache", key)), "cache_evict"))
    })
  return { run, hitBytesAt, evict, size: () => entries.size }
}

/** No cache (SVC_CACHE unset or off): every request runs. */
export const AnalysisCacheOffLive = Layer.succeedContext(
  Context.make(AnalysisCacheFastLane, { hitBytes: () => undefined }).pipe(Context.add(AnalysisCache, {
    enabled: false,
    run: (_key: string, compute: Effect.Effect<AnalysisResult, AnalysisFailure>) => Effect.map(compute, (result): CacheOutcome => ({ result, cached: false })),
    evict: () => Effect.void
  }))
)

const cacheWith = (store: RedisStoreShape | undefined) =>
  Effect.gen(function*() {
    const { cache } = yield* AppConfig
    const scope = yield* Effect.scope
    const clock = yield* Effect.clock
    const ttlMillis = Option.getOrUndefined(Option.map(cache.ttl, Duration.toMillis))
    const made = makeAnalysisCache({
      capacity: cache.capacity,
      ttlMillis,
      scope,
      shared: store === undefined ? undefined : { store, ttlMs: ttlMillis ?? DEFAULT_SHARED_TTL_MS, leaseMs: LEASE_MS, owner: randomUUID() }
    })
    // One set of entries behind both: the edge's lane reads a hit at once, the service runs and evicts.
    return Context.make(AnalysisCacheFastLane, { hitBytes: (key, render) => made.hitBytesAt(key, render, clock.unsafeCurrentTimeMillis()) }).pipe(
      Context.add(AnalysisCache, { enabled: true, run: made.run, evict: made.evict })
    )
  })

/** SVC_CACHE=memory: entries and single flight in this process. Chosen once, in Resources.ts. */
export const AnalysisCacheMemoryLive = Layer.scopedContext(cacheWith(undefined))

/** SVC_CACHE=redis: entries and single flight shared by the replicas, with an in-process front. */
export const AnalysisCacheRedisLive = Layer.scopedContext(Effect.flatMap(RedisStore, cacheWith))
