/**
 * What the built service loads before it is ready (issue 52), read from the build itself: the
 * static import closure of its application chunk (dist/server.mjs imports dist/chunks/main-*.mjs),
 * each chunk naming the modules in it (esbuild's `// path` lines). What only some requests use
 * (https to a model host, gzip and zip bodies) or only `svc` uses (a terminal, subprocesses,
 * workers) is in chunks loaded on first use, outside that closure.
 */
import { describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { join } from "node:path"

const dist = join(import.meta.dirname, "..", "..", "dist")
const read = (file: string) => readFileSync(join(dist, file), "utf8")

/** The chunk a boot file imports dynamically (`import("./chunks/<prefix>-….mjs")`). */
const appChunk = (boot: string, prefix: string): string => {
  const found = new RegExp(`import\\("\\./chunks/(${prefix}-[A-Za-z0-9_-]+\\.mjs)"\\)`).exec(read(boot))
  if (found?.[1] === undefined) throw new Error(`${boot} imports no chunks/${prefix}-*.mjs`)
  return found[1]
}

/** The chunks a chunk imports statically, and theirs: what is evaluated before it runs. */
const staticClosure = (start: string): ReadonlyArray<string> => {
  const seen = new Set<string>()
  const pending = [start]
  for (let chunk = pending.pop(); chunk !== undefined; chunk = pending.pop()) {
    if (seen.has(chunk)) continue
    seen.add(chunk)
    for (const match of read(join("chunks", chunk)).matchAll(/^(?:import|export)\b[^;]*?\bfrom\s*"\.\/([A-Za-z0-9_-]+\.mjs)"|^import\s*"\.\/([A-Za-z0-9_-]+\.mjs)"/gm)) {
      const next = match[1] ?? match[2]
      if (next !== undefined) pending.push(next)
    }
  }
  return [...seen]
}

const textOf = (chunks: ReadonlyArray<string>) => chunks.map((chunk) => read(join("chunks", chunk))).join("\n")

/** esbuild's line naming the platform's NodeContext module (its path as esbuild reached it: node_modules may be a link). */
const platformNodeContextLine = /^\/\/ \S*node_modules\/@effect\/platform-node\/dist\/esm\/NodeContext\.js$/m

describe("what the built service evaluates before it is ready", () => {
  const server = staticClosure(appChunk("server.mjs", "main"))
  const text = textOf(server)

  it("follows the application chunk's static imports (a closure of several chunks, the store among them)", () => {
    expect(server.length).toBeGreaterThan(10)
    expect(text).toContain("// src/Edge/Server.ts")
    expect(text).toContain("// src/Catalogue/Catalogue.ts")
  })

  it("loads neither https, TLS nor zlib: they load with the first https model host, gzip body or zip body", () => {
    for (const builtin of ["https", "tls", "zlib"]) expect(text, builtin).not.toContain(`require("node:${builtin}")`)
    expect(text).not.toContain("// src/Intake/Zip.ts")
  })

  it("loads no terminal, subprocess or worker: the platform's NodeContext is not in it, only the build's stand-in", () => {
    for (const builtin of ["readline", "child_process", "worker_threads"]) expect(text, builtin).not.toContain(`require("node:${builtin}")`)
    expect(text).not.toMatch(platformNodeContextLine)
    expect(text).toContain("// src/Edge/NoNodeContext.ts")
  })

  it("while svc has the real NodeContext (its terminal and subprocesses)", () => {
    const cli = textOf(staticClosure(appChunk("cli.mjs", "cli")))
    expect(cli).toMatch(platformNodeContextLine)
    expect(cli).not.toContain("// src/Edge/NoNodeContext.ts")
  })
})
