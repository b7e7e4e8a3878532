/**
 * The typed client is lean: a one-line consumer of `pattern-analysis-service/client`, bundled
 * with esbuild as an application would bundle it, contains the contract and its schemas and
 * nothing of the server: no signal functions, no SignalKit, no engine, edge or provider code.
 * The size is printed (docs/architecture.md states it) and bounded loosely, so a regression that
 * drags the server back in fails here.
 */
import { describe, expect, it } from "@effect/vitest"
import { build } from "esbuild"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"

const repo = resolve(import.meta.dirname, "../..")

describe("the typed client bundle", () => {
  it("holds the contract only, and is small", async () => {
    const dir = mkdtempSync(join(tmpdir(), "client-bundle-"))
    const entry = join(dir, "consumer.ts")
    writeFileSync(entry, `export { makeClient } from ${JSON.stringify(join(repo, "src/Client.ts"))}\n`)
    const result = await build({
      entryPoints: [entry],
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      minify: true,
      write: false,
      metafile: true,
      logLevel: "silent",
      outdir: dir
    })
    const [output] = Object.values(result.metafile.outputs)
    expect(output).toBeDefined()
    const included = Object.entries(output?.inputs ?? {})
      .filter(([, input]) => input.bytesInOutput > 0)
      .map(([path]) => path)
    const ours = included.filter((path) => !path.includes("node_modules"))
    const server = ours.filter((path) =>
      /\/signals\.ts$/.test(path) || /SignalKit|Catalogue\/Pattern\.ts|\/(Analysis|Edge|Surfaces|Providers|Cache|Lifecycle|Observability)\//.test(path)
    )
    expect(server).toEqual([])
    expect(ours.some((path) => path.endsWith("patterns/lewin/contract.ts"))).toBe(true)
    expect(ours.some((path) => path.endsWith("src/Api.ts"))).toBe(true)
    // Nothing of the AI SDKs, the OpenTelemetry exporter or node:http servers either.
    expect(included.filter((path) => /@effect\/ai|@opentelemetry|platform-node/.test(path))).toEqual([])
    const bytes = output?.bytes ?? 0
    process.stdout.write(`client bundle: ${bytes} bytes minified, ${ours.length} files of this repository\n`)
    expect(bytes).toBeLessThan(1_500_000)
  })
})
