/**
 * The module compile cache (issue 52, src/Lifecycle/CompileCache.ts) of the built service and svc,
 * each run with its own OS temporary directory (TMPDIR). On a Node that has the cache (≥ 22.1, so
 * in the Node 24 pass, scripts/node24-pass.sh): one directory of this user's, 0700, holding one
 * directory named by the build's id, which the service and svc share and fill. On Node 20, with
 * NODE_DISABLE_COMPILE_CACHE=1, or under a parent directory others may write to: nothing kept.
 * Other builds' directories unused for 7 days are removed by the service once ready.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs"
import * as NodeModule from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { svc } from "../cli/support.js"
import { spawnService } from "../support/Spawned.js"

const nodeHasCache = typeof Reflect.get(NodeModule, "enableCompileCache") === "function"
const dirs: Array<string> = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

/** A fresh temporary directory for one test's processes, and where their cache would be. */
const freshTmp = () => {
  const dir = mkdtempSync(join(tmpdir(), "svc-compile-cache-"))
  dirs.push(dir)
  return { env: { TMPDIR: dir }, parent: join(dir, `pattern-analysis-service-compile-cache-${process.getuid?.() ?? "user"}`) }
}

/** Files under a directory, at any depth. */
const filesUnder = (dir: string): number =>
  readdirSync(dir, { withFileTypes: true }).reduce((count, entry) => count + (entry.isDirectory() ? filesUnder(join(dir, entry.name)) : 1), 0)

const runService = async (env: Record<string, string>) => {
  // No analysis is made: the provider endpoint is never called.
  const service = await spawnService("http://127.0.0.1:9", env)
  service.child.kill("SIGTERM")
  await service.exited
}

describe("the module compile cache", () => {
  it("the service and svc keep one per build in the OS temporary directory, this user's alone (nothing on a Node without the cache)", async () => {
    const { env, parent } = freshTmp()
    await runService(env)
    const ran = await svc(["patterns", "--json"], { env })
    expect(ran.code, ran.stderr).toBe(0)
    if (!nodeHasCache) {
      expect(existsSync(parent)).toBe(false)
      return
    }
    expect(statSync(parent).mode & 0o777).toBe(0o700)
    const builds = readdirSync(parent)
    expect(builds).toHaveLength(1)
    expect(builds[0]).toMatch(/^[0-9a-f]{16}$/)
    expect(filesUnder(join(parent, builds[0] ?? ""))).toBeGreaterThan(10)
  })

  it("NODE_DISABLE_COMPILE_CACHE=1 keeps nothing", async () => {
    const { env, parent } = freshTmp()
    await runService({ ...env, NODE_DISABLE_COMPILE_CACHE: "1" })
    expect(existsSync(parent)).toBe(false)
  })

  it("a parent directory others may write to is not used", async () => {
    const { env, parent } = freshTmp()
    mkdirSync(parent)
    chmodSync(parent, 0o777)
    await runService(env)
    expect(readdirSync(parent)).toEqual([])
  })

  it("the service removes other builds' caches unused for 7 days, and nothing else (nothing at all on a Node without the cache)", async () => {
    const { env, parent } = freshTmp()
    mkdirSync(parent, { mode: 0o700 })
    chmodSync(parent, 0o700)
    const day = 24 * 60 * 60 * 1000
    /** A directory in the parent with a file, last used `daysAgo` days ago. */
    const made = (name: string, daysAgo: number) => {
      const dir = join(parent, name)
      mkdirSync(join(dir, "v0-x64"), { recursive: true })
      writeFileSync(join(dir, "v0-x64", "code"), "cached")
      const then = new Date(Date.now() - daysAgo * day)
      utimesSync(dir, then, then)
      return dir
    }
    const stale = made("0123456789abcdef", 8)
    const recent = made("fedcba9876543210", 6)
    const notABuild = made("notes", 30)
    await runService(env)
    expect(existsSync(recent)).toBe(true)
    expect(existsSync(notABuild)).toBe(true)
    expect(existsSync(stale)).toBe(!nodeHasCache)
    if (nodeHasCache) {
      // This build's own directory is there, marked as used now.
      const own = readdirSync(parent).filter((name) => /^[0-9a-f]{16}$/.test(name) && join(parent, name) !== recent)
      expect(own).toHaveLength(1)
      expect(Date.now() - statSync(join(parent, own[0] ?? "")).mtimeMs).toBeLessThan(day)
    }
  })
})
