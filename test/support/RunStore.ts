/**
 * The runs store as the store's and the workers' tests open it: the real SQLite store on a new
 * database in a temp SVC_HOME, open for the rest of the test's scope; and a run to submit.
 */
import { Context, Effect, Layer, Redacted } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type AlertPolicy, makeProblemStore, NO_ALERTS, ProblemStore } from "../../src/Store/Problems.js"
import { makeRunStore, type NewRun, RunStore } from "../../src/Store/Runs.js"
import { databaseFile } from "../../src/Store/RunStoreAccess.js"
import { postgresLayer, sqliteLayer } from "../../src/Store/Sql.js"

/** A database file in a new temp SVC_HOME. */
export const freshDatabase = (): string => databaseFile(mkdtempSync(join(tmpdir(), "svc-store-")))

/** The runs and problems stores over one SQL client, as RunStoreAccess makes them. */
export const storesLayer = (alerts: AlertPolicy = NO_ALERTS) => {
  const problems = Layer.effect(ProblemStore, makeProblemStore(alerts))
  return Layer.merge(Layer.effect(RunStore, Effect.flatMap(ProblemStore, makeRunStore)).pipe(Layer.provide(problems)), problems)
}

/** Both stores on `file` (a new database by default), open for the rest of the scope. */
export const openStores = (file?: string, alerts?: AlertPolicy) =>
  Effect.suspend(() =>
    Effect.map(Layer.build(storesLayer(alerts).pipe(Layer.provide(sqliteLayer(file ?? freshDatabase())))), (context) => ({
      runs: Context.get(context, RunStore),
      problems: Context.get(context, ProblemStore)
    }))
  )

/** Both stores on a PostgreSQL database (a test cluster's, test/support/Postgres.ts), open for the rest of the scope. */
export const openPostgresStores = (url: string, alerts?: AlertPolicy) =>
  Effect.suspend(() =>
    Effect.map(
      Layer.build(storesLayer(alerts).pipe(Layer.provide(postgresLayer(Redacted.make(url), { pool: 4, statementTimeoutMs: 10_000 })))),
      (context) => ({ runs: Context.get(context, RunStore), problems: Context.get(context, ProblemStore) })
    )
  )

/** The runs store on `file` (a new database by default), open for the rest of the scope. */
export const openRunStore = (file?: string) => Effect.map(openStores(file), (stores) => stores.runs)

/** The runs store on a PostgreSQL database, open for the rest of the scope. */
export const openPostgresStore = (url: string) => Effect.map(openPostgresStores(url), (stores) => stores.runs)

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
