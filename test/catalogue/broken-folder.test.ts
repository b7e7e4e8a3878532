/**
 * The catalogue is validated at start-up: the real process, pointed at a copy of patterns/ with
 * one folder broken, stops with exit code 1 and a message naming the folder and the problem.
 */
import { describe, expect, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const repo = join(import.meta.dirname, "..", "..")

const startWith = (breakIt: (dir: string) => void) => {
  const dir = join(mkdtempSync(join(tmpdir(), "svc-patterns-")), "patterns")
  cpSync(join(repo, "patterns"), dir, { recursive: true })
  breakIt(dir)
  return spawnSync(process.execPath, [join(repo, "dist", "server.mjs")], {
    env: { PATH: process.env["PATH"] ?? "", SVC_PORT: "0", SVC_PATTERNS_DIR: dir, SVC_HOME: mkdtempSync(join(tmpdir(), "svc-home-")) },
    encoding: "utf8",
    timeout: 20_000
  })
}

describe("a broken pattern folder stops the service", () => {
  it.each([
    ["a missing playbooks.json", (dir: string) => rmSync(join(dir, "lencioni", "playbooks.json")), "patterns/lencioni", "missing playbooks.json"],
    ["a composition naming an unknown slug", (dir: string) =>
      writeFileSync(join(dir, "aar", "composition.json"), JSON.stringify({ upstream: [{ pattern: "no_such_pattern", reason: "a reason long enough" }], downstream: {} })),
      "patterns/aar", "unknown pattern no_such_pattern"],
    ["playbooks that are not JSON", (dir: string) => writeFileSync(join(dir, "johari", "playbooks.json"), "{ nope"), "patterns/johari", "not valid JSON"],
    ["a prompt without evidence references", (dir: string) =>
      writeFileSync(join(dir, "hexaco", "prompts", "quick.md"), `Lee and Ashton's HEXACO model. ${"Read the trace carefully. ".repeat(20)}`),
      "patterns/hexaco", "does not ask for evidence"]
  ])("%s", (_label, breakIt, folder, problem) => {
    const result = startWith(breakIt)
    expect(result.status).toBe(1)
    expect(result.stderr).toContain(folder)
    expect(result.stderr).toContain(problem)
  })
})
