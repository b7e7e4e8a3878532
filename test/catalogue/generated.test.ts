/** Generated files (registration code, docs/patterns.md) match what their generators write now. */
import { describe, expect, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import { join } from "node:path"

const repo = join(import.meta.dirname, "..", "..")
const tsx = join(repo, "node_modules", ".bin", "tsx")

describe("generated files", () => {
  it.each(["scripts/generate-catalogue-index.ts", "scripts/generate-patterns-doc.ts"])("%s --check passes", (script) => {
    const result = spawnSync(tsx, [script, "--check"], { cwd: repo, encoding: "utf8", timeout: 60_000 })
    expect(result.stderr).toBe("")
    expect(result.status).toBe(0)
  })
})
