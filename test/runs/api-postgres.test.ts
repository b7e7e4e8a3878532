/**
 * The runs API end to end on PostgreSQL (DECISIONS §17): the same suite as on SQLite
 * (api-suite.ts), the service's store a fresh database of an ephemeral cluster.
 */
import { afterAll, beforeAll, expect, it } from "@effect/vitest"
import { type Cluster, startCluster } from "../support/Postgres.js"
import { runsApiSuite } from "./api-suite.js"

let cluster: Cluster | undefined
let url = ""
beforeAll(async () => {
  cluster = await startCluster()
  url = cluster.freshDatabase()
}, 60_000)
afterAll(() => cluster?.close())

runsApiSuite({ name: "PostgreSQL", env: () => ({ SVC_DATABASE_URL: url }) })

it("kept the suite's runs in PostgreSQL", () => {
  const database = new URL(url).pathname.slice(1)
  expect(Number(cluster?.psql(database, "SELECT count(*) FROM runs WHERE status = 'done'"))).toBeGreaterThan(5)
})
