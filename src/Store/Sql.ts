/**
 * The runs store (DECISIONS §17): SQLite in SVC_HOME/svc.db, the embedded default, through
 * `@effect/sql` and `@effect/sql-libsql`.
 *
 * Why libsql: it installs prebuilt binaries from the registry in seconds here (`npm ci` grew by
 * about 1 s), where better-sqlite3 (`@effect/sql-sqlite-node`) builds from source (~75 s). It is a
 * runtime dependency, external to the bundle (scripts/build.mjs), loaded only when the store opens.
 *
 * The database runs in WAL mode (readers never wait for the writer), with one connection (one
 * writer: SQLite serializes writes anyway, and one connection keeps transactions simple), a busy
 * timeout for another process holding the file (`svc runs import` while the service runs), and
 * `synchronous=NORMAL` (durable across a process crash; the last transactions may be lost only on
 * a power loss). Migrations (Store/Migrations.ts) run when the layer is built.
 */
import { Migrator, SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { mkdir } from "node:fs/promises"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { MIGRATIONS } from "./Migrations.js"


/** How long a statement waits for another process's lock before failing (ms). */
const BUSY_TIMEOUT_MS = 5_000

/** The migrations' own table. */
const MIGRATIONS_TABLE = "svc_migrations"

/** Applies every migration not yet applied; the applied ones, `[id, name]`, in order. */
export const migrate = (migrations: Record<string, Effect.Effect<void, unknown, SqlClient.SqlClient>> = MIGRATIONS) =>
  Migrator.make({})({ loader: Migrator.fromRecord(migrations), table: MIGRATIONS_TABLE })

/** A SQLite SqlClient on `file`, configured and migrated. */
export const sqliteLayer = (file: string, migrations: Record<string, Effect.Effect<void, unknown, SqlClient.SqlClient>> = MIGRATIONS) =>
  Layer.unwrapScoped(
    Effect.gen(function*() {
      yield* Effect.promise(() => mkdir(join(file, ".."), { recursive: true }))
      // loaded here, not at start-up: a service with the store unused never parses the driver
      const { LibsqlClient } = yield* Effect.promise(() => import("@effect/sql-libsql"))
      const client = LibsqlClient.layer({ url: pathToFileURL(file).href, concurrency: 1 })
      const setUp = Layer.scopedDiscard(
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          // The journal mode is the file's (it stays); the rest is the connection's. The driver hands
          // a transaction its connection and opens a new one after it, so the migrations (each in a
          // transaction) run first and the connection that stays is configured after them; the
          // store itself runs no transaction (Runs.ts).
          yield* sql.unsafe("PRAGMA journal_mode = WAL")
          yield* sql.unsafe(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`)
          yield* migrate(migrations)
          yield* sql.unsafe(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`)
          yield* sql.unsafe("PRAGMA synchronous = NORMAL")
          // On close, the WAL folded into the database, so the file alone holds everything.
          yield* Effect.addFinalizer(() => Effect.ignore(sql.unsafe("PRAGMA wal_checkpoint(TRUNCATE)")))
        })
      )
      return Layer.provideMerge(setUp, client)
    })
  )
