/**
 * Which Node runs the built service and `svc` (issue 52). The tests start dist/server.mjs with
 * process.execPath and bin/svc through its `#!/usr/bin/env node` and the PATH they hand on, so
 * both run on the runner's own Node only while that Node is also the PATH's first `node`.
 * scripts/node24-pass.sh runs vitest on Node 24 with its bin/ first on the PATH and sets
 * SVC_TEST_NODE_MAJOR=24: these tests are what show that pass really ran the processes on 24.
 * Each child reports the version it runs on through a preloaded module (NODE_OPTIONS --import).
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { svc } from "../cli/support.js"
import { spawnService } from "../support/Spawned.js"

const expectedMajor = process.env["SVC_TEST_NODE_MAJOR"] ?? process.versions.node.split(".")[0]
const dir = mkdtempSync(join(tmpdir(), "svc-node-line-"))
const preload = join(dir, "report-version.mjs")
writeFileSync(preload, `import { appendFileSync } from "node:fs"\nappendFileSync(process.env.NODE_LINE_REPORT, process.version + "\\n")\n`)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** The runner itself is on the line the pass is for (a pass that fell back to the machine's Node fails here). */
const runnerOnTheLine = () => expect(process.version.startsWith(`v${expectedMajor}.`), `runner ${process.version}, expected v${expectedMajor}`).toBe(true)

/** The environment that makes a Node child append its version to a file of its own, and that file's lines. */
const reporting = (name: string) => {
  const report = join(dir, name)
  return {
    env: { NODE_OPTIONS: `--import=${pathToFileURL(preload).href}`, NODE_LINE_REPORT: report },
    versions: () => (existsSync(report) ? readFileSync(report, "utf8").trim().split("\n") : [])
  }
}

describe("the Node line the built service and svc run on", () => {
  it("dist/server.mjs runs on the runner's Node", async () => {
    const { env, versions } = reporting("server")
    // No analysis is made: the provider endpoint is never called.
    const service = await spawnService("http://127.0.0.1:9", env)
    service.child.kill("SIGTERM")
    await service.exited
    runnerOnTheLine()
    expect(versions()).toEqual([process.version])
  })

  it("bin/svc runs on the runner's Node (its shebang finds `node` on the PATH)", async () => {
    const { env, versions } = reporting("svc")
    runnerOnTheLine()
    const ran = await svc(["patterns", "--json"], { env })
    expect(ran.code, ran.stderr).toBe(0)
    expect(versions().length).toBeGreaterThan(0)
    // bin/svc may first rebuild dist/ with process.execPath: every process it starts counts.
    for (const version of versions()) expect(version).toBe(process.version)
  })
})
