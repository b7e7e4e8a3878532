/**
 * An ephemeral PostgreSQL cluster for a test file (Debian's `postgresql`, installed by the global
 * setup when missing): `initdb` into a temp directory, `pg_ctl` on a free loopback port, a
 * database per call of `freshDatabase`. CI runs as root and `initdb` refuses root, so as root the
 * cluster belongs to the `postgres` user (`runuser -u postgres`). Stopped with `stop()` (fast).
 * With `{ tls: true }` the server speaks TLS with a certificate for 127.0.0.1 and localhost signed
 * by a CA made for the cluster (`openssl`, Debian's), whose certificate is `caFile`. A file done with
 * its cluster calls `close()`: the server stops and its directory (a few hundred MB once a file has
 * made its databases) is removed.
 */
import { execFile, execFileSync } from "node:child_process"
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs"
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

/** A self-signed certificate authority made with `openssl` in `dir`: its certificate and key files. */
export interface CertificateAuthority {
  readonly certFile: string
  readonly keyFile: string
}

const openssl = (args: ReadonlyArray<string>) => execFileSync("openssl", [...args], { stdio: "pipe" })

/** A new self-signed CA (`name` is its common name and the files' prefix), valid for two days. */
export const makeCertificateAuthority = (dir: string, name: string): CertificateAuthority => {
  const certFile = join(dir, `${name}.pem`)
  const keyFile = join(dir, `${name}.key`)
  openssl([
    "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
    "-subj", `/CN=${name}`, "-keyout", keyFile, "-out", certFile,
    "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"
  ])
  return { certFile, keyFile }
}

/** A server certificate for 127.0.0.1 and localhost (CN and subjectAltName), signed by `ca`. */
const makeServerCertificate = (dir: string, ca: CertificateAuthority): { readonly certFile: string; readonly keyFile: string } => {
  const certFile = join(dir, "server.crt")
  const keyFile = join(dir, "server.key")
  const request = join(dir, "server.csr")
  const extensions = join(dir, "server.ext")
  writeFileSync(extensions, "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n")
  openssl(["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-subj", "/CN=127.0.0.1", "-keyout", keyFile, "-out", request])
  openssl(["x509", "-req", "-in", request, "-CA", ca.certFile, "-CAkey", ca.keyFile, "-CAcreateserial", "-days", "2", "-extfile", extensions, "-out", certFile])
  return { certFile, keyFile }
}

export interface ClusterOptions {
  /** TLS on (`ssl=on`), with a certificate for 127.0.0.1 and localhost signed by the cluster's own CA. */
  readonly tls?: boolean
}

export interface Cluster {
  readonly port: number
  /** With `tls`: the CA certificate (PEM) that signed the server's certificate; else undefined. */
  readonly caFile: string | undefined
  /** A new, empty database on the cluster; its URL. */
  readonly freshDatabase: () => string
  /** The URL of a database, as a given user. */
  readonly urlOf: (database: string) => string
  /** Stops the server (fast shutdown); `start` starts it again on the same data and port. */
  readonly stop: () => void
  readonly start: () => void
  /** Stops the server if it runs and removes the cluster's directory: the file is done with it. */
  readonly close: () => void
  /** Runs SQL as the superuser on a database. */
  readonly psql: (database: string, sql: string) => string
  /** The same without blocking this process's event loop (a service in this process keeps serving). */
  readonly psqlAsync: (database: string, sql: string) => Promise<string>
}

let databases = 0

/**
 * The cluster's CA and server certificate in its directory; the server's files belong to the
 * server's user and its key is 0600 (PostgreSQL refuses a key others may read).
 */
const makeTls = (dir: string, asRoot: boolean): { readonly caFile: string; readonly certFile: string; readonly keyFile: string } => {
  const ca = makeCertificateAuthority(dir, "cluster-ca")
  const server = makeServerCertificate(dir, ca)
  if (asRoot) {
    const postgres = Number(execFileSync("id", ["-u", "postgres"]).toString().trim())
    const group = Number(execFileSync("id", ["-g", "postgres"]).toString().trim())
    chownSync(server.certFile, postgres, group)
    chownSync(server.keyFile, postgres, group)
  }
  chmodSync(server.keyFile, 0o600)
  return { caFile: ca.certFile, ...server }
}

export const startCluster = async (clusterOptions: ClusterOptions = {}): Promise<Cluster> => {
  const bin = binDir()
  let port = await freePort()
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
  const tls = clusterOptions.tls === true ? makeTls(dir, asRoot) : undefined
  const tlsOptions = tls === undefined ? "" : ` -c ssl=on -c ssl_cert_file=${tls.certFile} -c ssl_key_file=${tls.keyFile}`
  const log = join(dir, "log")
  const start = () => {
    const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off${tlsOptions}`
    run("pg_ctl", ["-D", data, "-o", options, "-l", log, "-w", "start"])
  }
  const stop = () => {
    run("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"])
  }
  // The port was free when asked, but until the server binds it another process may take it (an
  // outgoing connection's local port comes from the same range): then a new port, three tries in
  // all. Any other failure, or the third, names what the server's log says.
  for (let attempt = 1; ; attempt++) {
    try {
      start()
      break
    } catch (error) {
      const said = existsSync(log) ? readFileSync(log, "utf8") : ""
      if (attempt < 3 && /could not bind|Address already in use/.test(said)) {
        port = await freePort()
        continue
      }
      throw new Error(`PostgreSQL did not start on port ${port}; its log ends:\n${said.slice(-2000)}`, { cause: error })
    }
  }
  const psqlArgs = (database: string, sql: string) => ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "-d", database, "-v", "ON_ERROR_STOP=1", "-Atc", sql]
  const psql = (database: string, sql: string) => execFileSync("psql", psqlArgs(database, sql), { stdio: "pipe" }).toString("utf8")
  const psqlAsync = (database: string, sql: string) =>
    new Promise<string>((resolve, reject) =>
      execFile("psql", psqlArgs(database, sql), { encoding: "utf8" }, (error, stdout, stderr) => (error === null ? resolve(stdout) : reject(new Error(`psql: ${stderr}`, { cause: error }))))
    )
  const urlOf = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`
  return {
    port,
    caFile: tls?.caFile,
    urlOf,
    psql,
    psqlAsync,
    start,
    stop,
    close: () => {
      try {
        if (existsSync(join(data, "postmaster.pid"))) stop()
      } finally {
        rmSync(dir, { recursive: true, force: true, maxRetries: 3 })
      }
    },
    freshDatabase: () => {
      databases += 1
      const name = `svc_test_${process.pid}_${databases}`
      psql("postgres", `CREATE DATABASE ${name}`)
      return urlOf(name)
    }
  }
}
