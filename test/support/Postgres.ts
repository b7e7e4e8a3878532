/**
 * An ephemeral PostgreSQL cluster for a test file (Debian's `postgresql`, installed by the global
 * setup when missing): `initdb` into a temp directory, `pg_ctl` on a free loopback port, a
 * database per call of `freshDatabase`. CI runs as root and `initdb` refuses root, so as root the
 * cluster belongs to the `postgres` user (`runuser -u postgres`). Stopped with `stop()` (fast).
 */
import { execFileSync } from "node:child_process"
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, realpathSync } from "node:fs"
import { tmpdir, userInfo } from "node:os"
import { dirname, join } from "node:path"
import { freePort } from "./Net.js"
import { which } from "./Tools.js"

/**
 * The directory of the server's programs: Debian keeps them per major version, off the PATH (the
 * newest's); elsewhere (the Nix shell) `initdb` is on the PATH.
 */
export const postgresBin = (): string | undefined => {
  const root = "/usr/lib/postgresql"
  const versions = existsSync(root) ? readdirSync(root).filter((name) => /^\d+$/.test(name)).sort((a, b) => Number(b) - Number(a)) : []
  const debian = versions.map((version) => join(root, version, "bin")).find((dir) => existsSync(join(dir, "initdb")))
  const onPath = which("initdb")
  return debian ?? (onPath === undefined ? undefined : dirname(realpathSync(onPath)))
}

const binDir = (): string => {
  const found = postgresBin()
  if (found === undefined) throw new Error("PostgreSQL's server is not installed (Debian package postgresql): the test setup installs it")
  return found
}

export interface Cluster {
  readonly port: number
  /** A new, empty database on the cluster; its URL. */
  readonly freshDatabase: () => string
  /** The URL of a database, as a given user. */
  readonly urlOf: (database: string) => string
  readonly stop: () => void
  readonly start: () => void
  /** Runs SQL as the superuser on a database. */
  readonly psql: (database: string, sql: string) => string
}

let databases = 0

export const startCluster = async (): Promise<Cluster> => {
  const bin = binDir()
  const port = await freePort()
  const dir = mkdtempSync(join(tmpdir(), "svc-pg-"))
  const asRoot = userInfo().uid === 0
  const run = (program: string, args: ReadonlyArray<string>) =>
    execFileSync(asRoot ? "runuser" : join(bin, program), asRoot ? ["-u", "postgres", "--", join(bin, program), ...args] : args, { stdio: "pipe" }).toString("utf8")
  if (asRoot) {
    const postgres = Number(execFileSync("id", ["-u", "postgres"]).toString().trim())
    const group = Number(execFileSync("id", ["-g", "postgres"]).toString().trim())
    chownSync(dir, postgres, group)
    chmodSync(dir, 0o700)
  }
  const data = join(dir, "data")
  run("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8"])
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`
  const start = () => {
    run("pg_ctl", ["-D", data, "-o", options, "-l", join(dir, "log"), "-w", "start"])
  }
  const stop = () => {
    run("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"])
  }
  start()
  const psql = (database: string, sql: string) =>
    execFileSync("psql", ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "-d", database, "-v", "ON_ERROR_STOP=1", "-Atc", sql], { stdio: "pipe" }).toString("utf8")
  const urlOf = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`
  return {
    port,
    urlOf,
    psql,
    start,
    stop,
    freshDatabase: () => {
      databases += 1
      const name = `svc_test_${process.pid}_${databases}`
      psql("postgres", `CREATE DATABASE ${name}`)
      return urlOf(name)
    }
  }
}
