/**
 * One scratch directory for a whole run (the test run's global setup, a bench's process): made in
 * the OS's temporary directory and set as TMPDIR, so what the run and the processes it starts write
 * there (homes, stores, PostgreSQL clusters, packed tarballs, compile caches) lands in it and goes
 * with it. Others may pass through it, not list it: as root, a PostgreSQL cluster's server runs as
 * `postgres` in a directory of its own inside (Postgres.ts). The caller removes it with `remove`.
 */
import { chmodSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

export interface Scratch {
  readonly path: string
  readonly remove: () => void
}

export const scratchAsTmpdir = (prefix: string): Scratch => {
  const path = mkdtempSync(join(tmpdir(), prefix))
  chmodSync(path, 0o711)
  process.env["TMPDIR"] = path
  return { path, remove: () => rmSync(path, { recursive: true, force: true, maxRetries: 3 }) }
}
