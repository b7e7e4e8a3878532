/**
 * The runs store (DECISIONS §17): SQLite in SVC_HOME/svc.db, the embedded default, through
 * `@effect/sql` and `@effect/sql-libsql`.
 *
 * Why libsql: it installs prebuilt binaries from the registry in seconds here (`npm ci` grew by
 * about 1 s), where better-sqlite3 (`@effect/sql-sqlite-node`) builds from source (~75 s). It is a
 * runtime dependency, external to the bundle (scripts/build.mjs), loaded only when the store opens.
 *
 * The database runs in WAL mode (readers never wait for the writer), with one connection (one
 * writer: SQLite serializes writes anyway; transactions run on it too, SqliteConnection.ts), a busy
 * timeout for another process holding the file (`svc runs import` while the service runs), and
 * `synchronous=NORMAL` (durable across a process crash; the last transactions may be lost only on
 * a power loss). Migrations (Store/Migrations.ts) run when the layer is built.
 */
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { join } from "node:path"
import { makePrivateDir } from "../Config/Paths.js"
import { MIGRATIONS } from "./Migrations.js"


/** How long a statement waits for another process's lock before failing (ms). */
const BUSY_TIMEOUT_MS = 5_000

/** The migrations' own table. */
const MIGRATIONS_TABLE = "svc_migrations"

/** Applies every migration not yet applied; the applied ones, `[id, name]`, in order. */
export const migrate = (migrations: Record<string, Effect.Effect<void, unknown, SqlClient.SqlClient>> = MIGRATIONS) =>
  Migrator.make({})({ loader: Migrator.fromRecord(migrations), table: MIGRATIONS_TABLE })

export interface PostgresOptions {
  /** Connections per process (SVC_DATABASE_POOL). */
  readonly pool: number
  /** PostgreSQL cancels a statement running longer (SVC_DATABASE_STATEMENT_TIMEOUT). */
  readonly statementTimeoutMs: number
}

/** The URL with the statement timeout as a connection parameter, unless the URL sets one. */
const withStatementTimeout = (url: string, ms: number): string => {
  const parsed = new URL(url)
  if (!parsed.searchParams.has("statement_timeout") && !parsed.searchParams.has("options")) parsed.searchParams.set("statement_timeout", String(ms))
  return parsed.href
}

/**
 * A PostgreSQL SqlClient on `url` (SVC_DATABASE_URL, a secret: never logged, the driver's errors
 * are not shown to clients), pooled and migrated. Replicas starting together race to migrate: the
 * Migrator's lock fails all but one, whose open is tried again (RunStoreAccess).
 */
export const postgresLayer = (
  url: Redacted.Redacted<string>,
  options: PostgresOptions,
  migrations: Record<string, Effect.Effect<void, unknown, SqlClient.SqlClient>> = MIGRATIONS
) =>
  Layer.unwrapScoped(
    Effect.gen(function*() {
      const { PgClient } = yield* Effect.promise(() => import("@effect/sql-pg"))
      const client = PgClient.layer({
        url: Redacted.make(withStatementTimeout(Redacted.value(url), options.statementTimeoutMs)),
        maxConnections: options.pool,
        connectTimeout: Duration.seconds(5),
        applicationName: "pattern-analysis-service"
      })
      return Layer.provideMerge(Layer.effectDiscard(migrate(migrations)), client)
    })
  )

/** A SQLite SqlClient on `file`, configured and migrated. */
export const sqliteLayer = (file: string, migrations: Record<string, Effect.Effect<void, unknown, SqlClient.SqlClient>> = MIGRATIONS) =>
  Layer.unwrapScoped(
    Effect.gen(function*() {
      yield* Effect.promise(() => makePrivateDir(join(file, "..")))
      // loaded here, not at start-up: a service with the store unused never parses the driver
      const [{ LibsqlClient }, { createPrivately, OneConnectionClient }] = yield* Effect.promise(() =>
        Promise.all([import("@effect/sql-libsql"), import("./SqliteConnection.js")])
      )
      createPrivately(file)
      // one connection, transactions included, statements kept prepared (SqliteConnection.ts): its
      // settings hold for every statement
      const live = yield* Effect.acquireRelease(
        Effect.sync(() => new OneConnectionClient(file)),
        (opened) => Effect.sync(() => opened.close())
      )
      const client = LibsqlClient.layer({ liveClient: live })
      const setUp = Layer.scopedDiscard(
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          // The journal mode is the file's (it stays); the rest is the connection's, which stays.
          yield* sql.unsafe("PRAGMA journal_mode = WAL")
          yield* sql.unsafe(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`)
          yield* sql.unsafe("PRAGMA synchronous = NORMAL")
          yield* migrate(migrations)
          // On close, the WAL folded into the database, so the file alone holds everything.
          yield* Effect.addFinalizer(() => Effect.ignore(sql.unsafe("PRAGMA wal_checkpoint(TRUNCATE)")))
        })
      )
      return Layer.provideMerge(setUp, client)
    })
  )
