/**
 * The OTLP store on both dialects, for the store tests (test/store/otlp*.test.ts): the store and its
 * SqlClient (to read the columns the shape does not return), open for the rest of the scope, on a
 * fresh SQLite file or a fresh database of the suite's PostgreSQL cluster.
 */
import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Redacted } from "effect"
import { makeOtlpStore, OtlpStore } from "../../src/Store/Otlp.js"
import { postgresLayer, sqliteLayer } from "../../src/Store/Sql.js"
import type { Cluster } from "./Postgres.js"
import { freshDatabase } from "./RunStore.js"

export const openOtlpStore = <E>(client: Layer.Layer<SqlClient.SqlClient, E>) =>
  Effect.map(Layer.build(Layer.effect(OtlpStore, makeOtlpStore).pipe(Layer.provideMerge(client))), (context) => ({
    store: Context.get(context, OtlpStore),
    sql: Context.get(context, SqlClient.SqlClient)
  }))

/** SQLite and PostgreSQL; `cluster` is read when a store is opened (the suite starts it in beforeAll). */
export const otlpStores = (cluster: () => Cluster | undefined) => [
  { name: "SQLite", open: () => Effect.suspend(() => openOtlpStore(sqliteLayer(freshDatabase()))) },
  {
    name: "PostgreSQL",
    open: () =>
      Effect.suspend(() => {
        const running = cluster()
        if (running === undefined) return Effect.dieMessage("the PostgreSQL cluster did not start")
        return openOtlpStore(postgresLayer(Redacted.make(running.freshDatabase()), { pool: 4, statementTimeoutMs: 10_000 }))
      })
  }
] as const
