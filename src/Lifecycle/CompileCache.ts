/**
 * The module compile cache (issue 52): on Node ≥ 22.1, `module.enableCompileCache` keeps V8's code
 * for the built modules on disk, so a later start of the same build reads compiled code instead of
 * parsing and compiling 3 to 4 MB of JavaScript again (measured on Node 24: start-up CPU −25%, RSS
 * −14 MiB, docs/performance.md). Node 20 has no such cache; there this does nothing.
 *
 * Where: `<OS temporary directory>/pattern-analysis-service-compile-cache-<uid>/<build id>/`. The
 * build id is a hash of the build's output (scripts/build.mjs writes it into BUILD_ID), so two
 * builds never share a directory, and a fresh SVC_HOME still finds it. Deleting it is always safe
 * (the next start writes it again). The parent directory must be this user's own and writable by
 * no one else, or the cache is not used (V8 trusts what it reads from there). Node's own
 * `NODE_COMPILE_CACHE=<dir>` puts it elsewhere and `NODE_DISABLE_COMPILE_CACHE=1` turns it off.
 * Running from the sources (tsx, the tests) there is no build id and no cache.
 *
 * Old builds' caches do not pile up: every start marks its build's directory as used (its
 * modification time), and the service, once ready, removes the other builds' directories in that
 * parent unused for 7 days (2 to 5 MB each). Only directories named like a build id are touched,
 * and only in the parent made here, never under `NODE_COMPILE_CACHE`.
 */
import { lstatSync, mkdirSync, readdirSync, rmSync, utimesSync } from "node:fs"
import * as NodeModule from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"

/** The build's id: 16 hex digits written here by scripts/build.mjs; this placeholder in the sources. */
const BUILD_ID: string = "svc-build-id-xxx"

/** A function of node:module that this Node may not have (the types are Node 20's). */
const moduleFunction = (name: string): ((...args: ReadonlyArray<unknown>) => unknown) | undefined => {
  const value: unknown = Reflect.get(NodeModule, name)
  return typeof value === "function" ? (...args) => Reflect.apply(value, NodeModule, args) : undefined
}

/** This user's own directory, writable by no one else (mode 0700 when made here). */
const privateDirectory = (path: string): boolean => {
  try {
    mkdirSync(path, { recursive: true, mode: 0o700 })
    const stat = lstatSync(path)
    return stat.isDirectory() && stat.uid === process.getuid?.() && (stat.mode & 0o022) === 0
  } catch {
    return false
  }
}

const BUILD_DIRECTORY = /^[0-9a-f]{16}$/

/** How long a build's cache may go unused before the service of another build removes it. */
const UNUSED_CACHE_MS = 7 * 24 * 60 * 60 * 1000

/** The parent directory made here, when the cache is on in it (not under Node's own setting). */
let managedParent: string | undefined

/** Turns the cache on for the modules loaded after this call (the entries call it first). */
export const enableCompileCache = (): void => {
  const enable = moduleFunction("enableCompileCache")
  if (enable === undefined || !BUILD_DIRECTORY.test(BUILD_ID) || (process.env["NODE_DISABLE_COMPILE_CACHE"] ?? "") !== "") return
  const parent = join(tmpdir(), `pattern-analysis-service-compile-cache-${process.getuid?.() ?? "user"}`)
  // Node's own setting, when given, is used as it is (Node has then turned the cache on itself).
  if (process.env["NODE_COMPILE_CACHE"] !== undefined) {
    enable(join(parent, BUILD_ID))
    return
  }
  if (!privateDirectory(parent)) return
  const own = join(parent, BUILD_ID)
  enable(own)
  managedParent = parent
  // Node's enableCompileCache has made the directory (or failed to, and this mark fails with it).
  try {
    const now = new Date()
    utimesSync(own, now, now)
  } catch {
    // Only the mark of use is lost: another build's service may remove this cache while it is still
    // in use, and the next start writes it again.
  }
}

/** Removes the other builds' caches in the managed parent that no start has used for UNUSED_CACHE_MS. */
const removeUnusedCaches = (parent: string): void => {
  const before = Date.now() - UNUSED_CACHE_MS
  try {
    for (const entry of readdirSync(parent, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name === BUILD_ID || !BUILD_DIRECTORY.test(entry.name)) continue
      const path = join(parent, entry.name)
      if (lstatSync(path).mtimeMs < before) rmSync(path, { recursive: true, force: true })
    }
  } catch {
    // A cache left in place costs only disk; the next start tries again.
  }
}

/**
 * Writes what has been compiled so far (Node ≥ 22.10): the service calls it once ready, so the
 * code of start-up is cached whatever way the process later ends (Node otherwise writes at a normal
 * exit only, and a killed service would never leave a cache). Then removes old builds' caches.
 */
export const flushCompileCache = (): void => {
  moduleFunction("flushCompileCache")?.()
  if (managedParent !== undefined) removeUnusedCaches(managedParent)
}
