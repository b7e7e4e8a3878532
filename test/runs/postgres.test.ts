/**
 * The runs store on PostgreSQL as an operator sets it up (DECISIONS §17): over TLS with
 * `sslmode=verify-full` and the operator's CA (`sslrootcert`), which pg reads from the URL's query;
 * SVC_DATABASE_URL kept secret (no log line, answer or metric shows its password, a malformed one
 * stops start-up without showing it); SVC_DATABASE_POOL bounding the connections under load; and a
 * SQLite history moved into PostgreSQL with `svc runs export` and `svc runs import`.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Either } from "effect"
import { spawn, spawnSync } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { DiagnoseResponse } from "../../src/Contract/DiagnoseReport.js"
import { appConfig, describeConfigError } from "../../src/Config.js"
import { svc } from "../cli/support.js"
import { type Cluster, makeCertificateAuthority, startCluster } from "../support/Postgres.js"
import { exampleTrace, type ProviderDouble, startProviderDouble } from "../support/ProviderDouble.js"
import { type RunningService, startService } from "../support/Service.js"
import { call, chatTrace, decoded, ErrorBody, freshHome, listRuns, sleep, submitOne, waitForRun } from "./support.js"

const APPLICATION = "pattern-analysis-service"

let cluster: Cluster
let double: ProviderDouble
let providerEnv: Record<string, string>
beforeAll(async () => {
  cluster = await startCluster({ tls: true })
  double = await startProviderDouble()
  providerEnv = { OPENAI_API_KEY: "sk-test-runs-postgres-0123456789", OPENAI_BASE_URL: `${double.url}/v1` }
}, 60_000)
afterAll(async () => {
  cluster.close()
  await double.close()
})

/** The database name of a cluster URL. */
const databaseOf = (url: string): string => new URL(url).pathname.slice(1)

/** The service's connections to a database (pg_stat_activity), counted on the server. */
const connectionsTo = async (database: string, where = "true"): Promise<number> =>
  Number(
    (await cluster.psqlAsync(
      "postgres",
      `SELECT count(*) FROM pg_stat_activity WHERE application_name = '${APPLICATION}' AND datname = '${database}' AND ${where}`
    )).trim()
  )

/** Runs `body` with a service, closed after. */
const withService = async <A>(env: Record<string, string>, body: (service: RunningService) => Promise<A>): Promise<A> => {
  const service = await startService(env)
  try {
    return await body(service)
  } finally {
    await service.close()
  }
}

const expectUnavailable = async (response: Response, what: string) => {
  const body = await decoded(response, 503, ErrorBody)
  expect(body.detail.error, what).toBe("store_unavailable")
  expect(Number(response.headers.get("retry-after")), what).toBeGreaterThanOrEqual(1)
}

describe("TLS with sslmode=verify-full", () => {
  const tlsUrl = (database: string, caFile: string) => {
    const url = new URL(cluster.urlOf(database))
    url.searchParams.set("sslmode", "verify-full")
    url.searchParams.set("sslrootcert", caFile)
    return url.href
  }

  it("submits and lists runs over TLS, verified against the cluster's CA", async () => {
    const caFile = cluster.caFile
    if (caFile === undefined) return expect.fail("the cluster was started without TLS")
    const database = databaseOf(cluster.freshDatabase())
    await withService({ ...providerEnv, SVC_HOME: freshHome("pg-tls"), SVC_DATABASE_URL: tlsUrl(database, caFile) }, async (service) => {
      const id = await submitOne(service, { trace: chatTrace("tls"), mode: "quick" })
      const listed = await listRuns(service)
      expect(listed.runs.map((run) => run.id)).toEqual([id])
      // Every connection of the service's pool is a TLS one (the server says so).
      const ssl = await cluster.psqlAsync(
        "postgres",
        `SELECT ssl FROM pg_stat_ssl JOIN pg_stat_activity USING (pid) WHERE application_name = '${APPLICATION}' AND datname = '${database}'`
      )
      const rows = ssl.split("\n").filter((line) => line.length > 0)
      expect(rows.length).toBeGreaterThanOrEqual(1)
      expect(rows.every((row) => row === "t"), ssl).toBe(true)
    })
  })

  it("with another CA: the runs routes answer 503 store_unavailable; analyze, diagnose and /readyz serve on", async () => {
    const other = makeCertificateAuthority(mkdtempSync(join(tmpdir(), "svc-other-ca-")), "other-ca")
    const database = databaseOf(cluster.freshDatabase())
    await withService({ ...providerEnv, SVC_HOME: freshHome("pg-tls-other"), SVC_DATABASE_URL: tlsUrl(database, other.certFile) }, async (service) => {
      await expectUnavailable(await call(service, "GET", "/v1/runs"), "list")
      await expectUnavailable(await call(service, "POST", "/v1/runs", { body: { trace: chatTrace("other-ca"), mode: "quick" } }), "submit")
      await expectUnavailable(await call(service, "GET", "/v1/runs/export"), "export")
      const diagnose = await call(service, "POST", "/v1/diagnose", { body: { trace: chatTrace("other-ca"), mode: "quick", max_patterns: 1 } })
      expect((await decoded(diagnose, 200, DiagnoseResponse)).report.usage.llm_calls).toBeGreaterThanOrEqual(1)
      const analyze = await call(service, "POST", "/v1/analyze/lewin", { body: { trace: exampleTrace("lewin"), mode: "quick" } })
      expect(analyze.status).toBe(200)
      expect((await call(service, "GET", "/readyz")).status).toBe(200)
    })
    // The refused handshake left no session on the server: nothing of the service got in.
    expect(await connectionsTo(database)).toBe(0)
  })

  it("with a CA file that does not exist (pg reads it at each connection): 503 store_unavailable, the service serves on", async () => {
    const database = databaseOf(cluster.freshDatabase())
    const missing = join(mkdtempSync(join(tmpdir(), "svc-no-ca-")), "missing-ca.pem")
    await withService({ ...providerEnv, SVC_HOME: freshHome("pg-tls-missing"), SVC_DATABASE_URL: tlsUrl(database, missing) }, async (service) => {
      await expectUnavailable(await call(service, "GET", "/v1/runs"), "list")
      await expectUnavailable(await call(service, "GET", "/v1/runs"), "list again")
      expect((await call(service, "GET", "/readyz")).status).toBe(200)
    })
  })
})

/** The built service (dist/server.mjs) as a process, all of its stdout and stderr kept as text. */
const server = join(import.meta.dirname, "..", "..", "dist", "server.mjs")

interface RawService {
  readonly url: string
  readonly output: () => string
  readonly stop: () => Promise<void>
}

const spawnRaw = async (env: Record<string, string>): Promise<RawService> => {
  const child = spawn(process.execPath, [server], {
    env: { PATH: process.env["PATH"] ?? "", SVC_PORT: "0", SVC_HOME: freshHome("pg-secret"), ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let stdout = ""
  let stderr = ""
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()))
  const url = new Promise<string>((resolve, reject) => {
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk
      const match = /"message":"ready".*?"address":"(http:\/\/[^"]+)"/.exec(stdout)
      if (match?.[1] !== undefined) resolve(match[1])
    })
    void exited.then(() => reject(new Error(`the service exited before it was ready: ${stdout}${stderr}`)))
  })
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
  return {
    url: await url,
    output: () => `${stdout}\n${stderr}`,
    stop: async () => {
      child.kill("SIGTERM")
      await exited
    }
  }
}

describe("SVC_DATABASE_URL is a secret", () => {
  const PASSWORD = "S3cretPassw0rd-xyz"

  it("its password is in no log line, answer or metric of the built service whose database is down", async () => {
    // Port 1: nothing listens; the workers (2 by default) and each runs request try to open the store.
    const service = await spawnRaw({ ...providerEnv, SVC_LOG_LEVEL: "debug", SVC_DRAIN_DELAY_SECONDS: "0", SVC_DATABASE_URL: `postgres://svc:${PASSWORD}@127.0.0.1:1/db` })
    const answers: Array<string> = []
    try {
      const requests: ReadonlyArray<readonly [string, string]> = [
        ["GET", "/v1/runs"],
        ["POST", "/v1/runs"],
        ["GET", "/v1/runs/export"],
        ["GET", "/v1/runs/run_AAAAAAAAAAAAAAAAAAAAAA"]
      ]
      for (const [method, path] of requests) {
        const response = await fetch(`${service.url}${path}`, {
          method,
          headers: { "content-type": "application/json" },
          ...(method === "POST" ? { body: JSON.stringify({ trace: chatTrace("secret"), mode: "quick" }) } : {})
        })
        const text = await response.text()
        expect(response.status, `${method} ${path}: ${text}`).toBe(503)
        expect(text).toContain("store_unavailable")
        answers.push(`${method} ${path} ${JSON.stringify([...response.headers])} ${text}`)
      }
      const metrics = await (await fetch(`${service.url}/metrics`)).text()
      expect(metrics).toContain("svc_store_errors_total")
      answers.push(metrics)
    } finally {
      await service.stop()
    }
    const output = service.output()
    // The failures were logged (with their cause), so the logs had their chance to show it.
    expect(output).toContain("runs store unavailable")
    expect(output).toContain("ECONNREFUSED")
    for (const text of [...answers, output]) {
      expect(text).not.toContain(PASSWORD)
      expect(text).not.toContain(encodeURIComponent(PASSWORD))
    }
  })

  const load = (env: Record<string, string>) =>
    Effect.runSync(Effect.either(appConfig).pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))))

  it.each([
    ["another scheme", `mysql://svc:${PASSWORD}@db.internal/runs`],
    ["no host", `postgres://svc:${PASSWORD}@/runs`],
    ["a port that is not a number", `postgres://svc:${PASSWORD}@db.internal:five/runs`],
    ["junk", `postgres://svc:${PASSWORD}@[db.internal/runs`],
    ["no scheme", `svc:${PASSWORD}@db.internal:5432/runs`]
  ])("a malformed URL (%s) is refused naming SVC_DATABASE_URL, without its value", (_, value) => {
    const result = load({ SVC_DATABASE_URL: value })
    if (Either.isRight(result)) return expect.fail(`accepted ${value}`)
    const message = describeConfigError(result.left)
    expect(message).toContain("SVC_DATABASE_URL must be a postgres:// or postgresql:// URL")
    expect(message).not.toContain(PASSWORD)
    expect(message).not.toContain("db.internal")
  })

  it("a malformed URL stops the built service (exit 1) with the variable's name and not its value", () => {
    const result = spawnSync(process.execPath, [server], {
      env: { PATH: process.env["PATH"] ?? "", SVC_PORT: "0", SVC_HOME: freshHome("pg-malformed"), SVC_DATABASE_URL: `mysql://svc:${PASSWORD}@db.internal/runs` },
      encoding: "utf8",
      timeout: 20_000
    })
    expect(result.status).toBe(1)
    expect(result.stderr).toContain("SVC_DATABASE_URL must be a postgres:// or postgresql:// URL")
    expect(`${result.stdout}${result.stderr}`).not.toContain(PASSWORD)
  })
})

describe("SVC_DATABASE_POOL", () => {
  /**
   * 20 list requests at once while a session holds the runs table locked: each request's query
   * waits on the lock holding its connection, so the service holds as many connections as its pool
   * allows; the most seen by sampling pg_stat_activity, and those waiting on the lock.
   */
  const underLoad = async (pool: string) => {
    const url = cluster.freshDatabase()
    const database = databaseOf(url)
    return withService({ SVC_HOME: freshHome("pg-pool"), SVC_DATABASE_URL: url, SVC_DATABASE_POOL: pool }, async (service) => {
      await listRuns(service) // opens the store (migrated) before the table is locked
      const locker = cluster.psqlAsync(database, "BEGIN; LOCK TABLE runs IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(2); COMMIT")
      const lockHeld = async (): Promise<boolean> =>
        Number((await cluster.psqlAsync(database, "SELECT count(*) FROM pg_locks WHERE relation = 'runs'::regclass AND mode = 'AccessExclusiveLock' AND granted")).trim()) === 1
      const deadline = Date.now() + 10_000
      while (!(await lockHeld())) {
        if (Date.now() > deadline) throw new Error("the lock was not taken")
        await sleep(20)
      }
      let sampling = true
      let most = 0
      let mostWaiting = 0
      const sampler = (async () => {
        while (sampling) {
          most = Math.max(most, await connectionsTo(database))
          mostWaiting = Math.max(mostWaiting, await connectionsTo(database, "wait_event_type = 'Lock'"))
          await sleep(50)
        }
      })()
      const statuses = await Promise.all(Array.from({ length: 20 }, async () => (await call(service, "GET", "/v1/runs")).status))
      sampling = false
      await sampler
      await locker
      most = Math.max(most, await connectionsTo(database))
      return { statuses, most, mostWaiting }
    })
  }

  it("SVC_DATABASE_POOL=2: at most 2 connections while 20 requests run at once, and all succeed", async () => {
    const { statuses, most, mostWaiting } = await underLoad("2")
    expect(statuses).toEqual(Array.from({ length: 20 }, () => 200))
    expect(most).toBeLessThanOrEqual(2)
    // The load did fill the pool: both connections waited on the lock at once.
    expect(mostWaiting).toBe(2)
  })

  it("SVC_DATABASE_POOL=10: the same load takes more than 2 connections (the bound above is the setting's)", async () => {
    const { statuses, most } = await underLoad("10")
    expect(statuses).toEqual(Array.from({ length: 20 }, () => 200))
    expect(most).toBeGreaterThan(2)
    expect(most).toBeLessThanOrEqual(10)
  })
})

describe("a SQLite history moved into PostgreSQL", () => {
  const linesOf = (text: string) => text.split("\n").filter((line) => line.length > 0)
  const parse = (text: string): unknown => JSON.parse(text)
  const field = (value: unknown, ...path: ReadonlyArray<string>): unknown =>
    path.reduce<unknown>((at, key) => (typeof at === "object" && at !== null ? Reflect.get(at, key) : undefined), value)
  const runsOf = (listed: unknown): Array<unknown> => {
    const runs = field(listed, "runs")
    return Array.isArray(runs) ? runs : []
  }

  it("svc runs export (SQLite) | svc runs import - (SVC_DATABASE_URL): the same runs with their reports, once", async () => {
    const home = freshHome("pg-history")
    const ids = await withService({ ...providerEnv, SVC_WORKERS: "2", SVC_HOME: home }, async (service) => {
      const made = [
        await submitOne(service, { trace: chatTrace("history-1"), mode: "quick", max_patterns: 1, labels: { team: "billing" } }),
        await submitOne(service, { trace: chatTrace("history-2"), mode: "quick", max_patterns: 1, labels: { team: "billing" } })
      ]
      for (const id of made) expect((await waitForRun(service, id, { deadlineMs: 60_000 })).status).toBe("done")
      return made
    })
    const sqlite = { SVC_HOME: home }
    const exported = await svc(["runs", "export"], { env: sqlite })
    expect(exported.code, exported.stderr).toBe(0)
    expect(linesOf(exported.stdout)).toHaveLength(2)

    const url = cluster.freshDatabase()
    const postgres = { SVC_DATABASE_URL: url }
    const imported = await svc(["runs", "import", "-"], { env: postgres, input: exported.stdout })
    expect(imported.code, imported.stderr).toBe(0)
    expect(parse(imported.stdout)).toEqual({ imported: 2, existing: 0, refused: [] })
    expect(cluster.psql(databaseOf(url), "SELECT count(*) FROM runs WHERE status = 'done'").trim()).toBe("2")

    const before = await svc(["runs", "list", "--json"], { env: sqlite })
    const after = await svc(["runs", "list", "--json"], { env: postgres })
    expect(after.code, after.stderr).toBe(0)
    expect(runsOf(parse(after.stdout)).map((run) => field(run, "id")).sort()).toEqual([...ids].sort())
    expect(runsOf(parse(after.stdout))).toEqual(runsOf(parse(before.stdout)))
    for (const id of ids) {
      const fromSqlite = await svc(["runs", "show", id], { env: sqlite })
      const fromPostgres = await svc(["runs", "show", id], { env: postgres })
      expect(fromPostgres.code, fromPostgres.stderr).toBe(0)
      expect(field(parse(fromPostgres.stdout), "report", "mode")).toBe("quick")
      expect(parse(fromPostgres.stdout)).toEqual(parse(fromSqlite.stdout))
    }

    const again = await svc(["runs", "import", "-"], { env: postgres, input: exported.stdout })
    expect(again.code, again.stderr).toBe(0)
    expect(parse(again.stdout)).toEqual({ imported: 0, existing: 2, refused: [] })
    expect(cluster.psql(databaseOf(url), "SELECT count(*) FROM runs").trim()).toBe("2")
  })
})
