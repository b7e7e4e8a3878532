/**
 * The runs store as the store's and the workers' tests open it: the real SQLite store on a new
 * database in a temp SVC_HOME, open for the rest of the test's scope; and a run to submit.
 */
import { Context, Effect, Layer, Redacted } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { makeRunStore, type NewRun, RunStore } from "../../src/Store/Runs.js"
import { databaseFile } from "../../src/Store/RunStoreAccess.js"
import { postgresLayer, sqliteLayer } from "../../src/Store/Sql.js"

/** A database file in a new temp SVC_HOME. */
export const freshDatabase = (): string => databaseFile(mkdtempSync(join(tmpdir(), "svc-store-")))

/** The store on `file` (a new database by default), open for the rest of the scope. */
export const openRunStore = (file?: string) =>
  Effect.suspend(() =>
    Effect.map(Layer.build(Layer.effect(RunStore, makeRunStore).pipe(Layer.provideMerge(sqliteLayer(file ?? freshDatabase())))), (context) =>
      Context.get(context, RunStore))
  )

/** The store on a PostgreSQL database (a test cluster's, test/support/Postgres.ts), open for the rest of the scope. */
export const openPostgresStore = (url: string) =>
  Effect.suspend(() =>
    Effect.map(
      Layer.build(Layer.effect(RunStore, makeRunStore).pipe(Layer.provideMerge(postgresLayer(Redacted.make(url), { pool: 4, statementTimeoutMs: 10_000 })))),
      (context) => Context.get(context, RunStore)
    )
  )

/** A run of the shared scope submitted at 1 s, its own trace (`dedupeKey`) unless told otherwise. */
export const newRun = (id: string, over: Partial<NewRun> = {}): NewRun => ({
  id,
  scope: "shared",
  traceId: null,
  externalId: null,
  labels: {},
  source: "api",
  dedupeKey: `trace-of-${id}`,
  request: JSON.stringify({ trace: id }),
  lines: null,
  submittedAt: 1_000,
  ...over
})
