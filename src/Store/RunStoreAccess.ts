/**
 * The runs store, opened when it is first needed (DECISIONS §16: only `svc serve` starts workers;
 * other commands open stores lazily): the service starts without loading the SQLite driver, and a
 * store that cannot be opened (a full disk, a path that is not writable) fails the runs routes with
 * 503 `store_unavailable` while everything else serves on. Opening is tried again on the next use,
 * one opener at a time; once open, the store stays open until the service stops.
 */
import type * as SqlError from "@effect/sql/SqlError"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberId from "effect/FiberId"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import type * as Redacted from "effect/Redacted"
import * as Scope from "effect/Scope"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { AppConfig, type AppConfigShape } from "../Config.js"
import { StoreUnavailable } from "../Errors.js"
import { countStoreError } from "../Observability/Metrics.js"
import type { OtlpStoreShape } from "./Otlp.js"
import { type AlertPolicy, AlertRoutes, type ProblemStoreShape } from "./Problems.js"
import type { RunStoreShape } from "./Runs.js"

/** Seconds a client is told to wait before it tries the store again. */
const RETRY_AFTER_SECONDS = 5

export interface RunStoreAccessShape {
  /** The store, opened on first use; fails while it cannot be opened. */
  readonly store: Effect.Effect<RunStoreShape, StoreUnavailable>
  /** OTLP's pending traces, in the same database (opened with it). */
  readonly otlp: Effect.Effect<OtlpStoreShape, StoreUnavailable>
  /** Problems and the alert outbox (DECISIONS §19), in the same database (opened with it). */
  readonly problems: Effect.Effect<ProblemStoreShape, StoreUnavailable>
  /** Whether the database exists already (runs may wait in it): the workers open it at start then. */
  readonly exists: Effect.Effect<boolean>
  /** The store once something opened it (the workers of a new database wait for the first run). */
  readonly whenOpen: Effect.Effect<RunStoreShape>
  /** Runs were queued in this process: idle workers here look at the queue at once. */
  readonly queued: Effect.Effect<void>
  /** Completes at the next `queued` (what an idle worker waits for, besides its poll). */
  readonly nextQueued: Effect.Effect<void>
}

/** The database file of an SVC_HOME (Sql.ts's, without loading the driver's module). */
export const databaseFile = (home: string): string => join(home, "svc.db")

export class RunStoreAccess extends Context.Tag("RunStoreAccess")<RunStoreAccess, RunStoreAccessShape>() {}

/** The one failure of a store that cannot be reached: the cause is logged, never sent. */
export const storeUnavailable = (op: string, cause: unknown): Effect.Effect<never, StoreUnavailable> =>
  Effect.zipRight(
    Effect.sync(() => countStoreError("sql", op)).pipe(
      Effect.zipRight(Effect.logWarning("runs store unavailable").pipe(Effect.annotateLogs({ op, cause: describe(cause) })))
    ),
    Effect.fail(new StoreUnavailable({ message: "the runs store is unavailable; retry later (analyze and diagnose are not affected)", retryAfterSeconds: RETRY_AFTER_SECONDS }))
  )

/**
 * The failure and what caused it: a SqlError says only "Failed to execute statement"; the driver's
 * error under it says why (a statement timeout, a refused connection, a lost one).
 */
const describe = (cause: unknown, depth = 0): string => {
  const own = cause instanceof Error ? `${cause.name}: ${cause.message}` : typeof cause === "object" && cause !== null && "message" in cause ? String(cause.message) : String(cause)
  const inner = cause instanceof Error ? cause.cause : undefined
  return inner === undefined || inner === null || depth >= 3 ? own : `${own} (caused by ${describe(inner, depth + 1)})`
}

/** A store operation with its SQL failure as the one `store_unavailable`. */
export const inStore = <A, E>(
  op: string,
  effect: Effect.Effect<A, E>
): Effect.Effect<A, Exclude<E, Extract<E, SqlError.SqlError>> | StoreUnavailable> =>
  Effect.catchIf(effect, (error): error is Extract<E, SqlError.SqlError> => Predicate.isTagged(error, "SqlError"), (error) => storeUnavailable(op, error))

/** Where the runs live (DECISIONS §17): SVC_HOME/svc.db, or the PostgreSQL of SVC_DATABASE_URL. */
export type StoreTarget =
  | { readonly _tag: "SQLite"; readonly file: string }
  | { readonly _tag: "Postgres"; readonly url: Redacted.Redacted<string>; readonly pool: number; readonly statementTimeoutMs: number }

/** The store the configuration names. */
export const storeTarget = (config: AppConfigShape): StoreTarget =>
  Option.match(config.runs.databaseUrl, {
    onNone: (): StoreTarget => ({ _tag: "SQLite", file: databaseFile(config.home) }),
    onSome: (url): StoreTarget => ({ _tag: "Postgres", url, pool: config.runs.pool, statementTimeoutMs: Duration.toMillis(config.runs.statementTimeout) })
  })

/** The store of a target, opened in `scope` (tests give their own). */
export const makeRunStoreAccess = (target: StoreTarget, scope: Scope.Scope, alerts: AlertPolicy): Effect.Effect<RunStoreAccessShape> =>
  Effect.gen(function*() {
    const lock = yield* Effect.makeSemaphore(1)
    const ready = yield* Deferred.make<RunStoreShape>()
    let wake = yield* Deferred.make<void>()
    let opened: { readonly runs: RunStoreShape; readonly otlp: OtlpStoreShape; readonly problems: ProblemStoreShape } | undefined
    const open = Effect.gen(function*() {
      if (opened !== undefined) return opened
      const child = yield* Scope.fork(scope, { _tag: "Sequential" })
      // loaded here: a service that never opens the store never parses @effect/sql or the driver
      const [{ makeRunStore, RunStore }, { makeOtlpStore, OtlpStore }, { makeProblemStore, ProblemStore }, { postgresLayer, sqliteLayer }] = yield* Effect
        .promise(() => Promise.all([import("./Runs.js"), import("./Otlp.js"), import("./Problems.js"), import("./Sql.js")]))
      const client = target._tag === "SQLite" ? sqliteLayer(target.file) : postgresLayer(target.url, target)
      const problemStore = Layer.effect(ProblemStore, makeProblemStore(alerts))
      const runStore = Layer.effect(RunStore, Effect.flatMap(ProblemStore, makeRunStore)).pipe(Layer.provide(problemStore))
      const layer = Layer.mergeAll(runStore, problemStore, Layer.effect(OtlpStore, makeOtlpStore)).pipe(Layer.provide(client))
      const built = yield* Effect.exit(Layer.buildWithScope(layer, child))
      if (Exit.isFailure(built)) {
        yield* Scope.close(child, built)
        // the failure itself (an Error with its driver cause), not the Cause around it: the log says why
        return yield* storeUnavailable("open", Cause.squash(built.cause))
      }
      const stores = { runs: Context.get(built.value, RunStore), otlp: Context.get(built.value, OtlpStore), problems: Context.get(built.value, ProblemStore) }
      opened = stores
      yield* Deferred.succeed(ready, stores.runs)
      return stores
    })
    const stores = Effect.suspend(() => (opened !== undefined ? Effect.succeed(opened) : lock.withPermits(1)(open)))
    return {
      store: Effect.map(stores, (both) => both.runs),
      otlp: Effect.map(stores, (both) => both.otlp),
      problems: Effect.map(stores, (both) => both.problems),
      // PostgreSQL always holds runs the workers may take; a SQLite file only once made
      exists: Effect.sync(() => target._tag === "Postgres" || existsSync(target.file)),
      whenOpen: Deferred.await(ready),
      queued: Effect.sync(() => {
        const woken = wake
        wake = Deferred.unsafeMake(FiberId.none)
        Deferred.unsafeDone(woken, Effect.void)
      }),
      nextQueued: Effect.suspend(() => Deferred.await(wake))
    }
  })

/** The store the configuration names, open until the service stops. */
export const RunStoreAccessLive = Layer.scoped(
  RunStoreAccess,
  Effect.gen(function*() {
    const config = yield* AppConfig
    return yield* makeRunStoreAccess(storeTarget(config), yield* Effect.scope, yield* AlertRoutes)
  })
)
