// Production build: src/boot.ts → dist/server.mjs, which loads the application (src/main.ts and
// everything it imports, patterns included) from dist/chunks/, and src/cli.ts → dist/cli.mjs (the
// `svc` command line, bin/svc; sharing those chunks). Code only some configurations use
// (the OpenTelemetry exporter behind /metrics, the MCP surface, the renderers) is in chunks loaded on
// first use, so start-up does not parse or run it. Swagger UI and Redoc assets stay in
// node_modules and are read at run time.
import { build } from "esbuild"
import { rmSync } from "node:fs"

const started = Date.now()
// No stale chunks from an earlier build.
rmSync("dist", { recursive: true, force: true })
await build({
  entryPoints: { server: "src/boot.ts", cli: "src/cli.ts" },
  outdir: "dist",
  chunkNames: "chunks/[name]-[hash]",
  outExtension: { ".js": ".mjs" },
  bundle: true,
  splitting: true,
  platform: "node",
  format: "esm",
  target: "node20",
  sourcemap: "linked",
  legalComments: "none",
  logLevel: "warning",
  // Optional, loaded at run time only when ERROR_REPORTING_DSN is set.
  external: ["@sentry/node"],
  // CommonJS dependencies inside an ESM bundle need a require.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" }
})
// On stderr: bin/svc may build first, and its stdout is the command's result (or the MCP protocol stream).
console.error(`dist/server.mjs and dist/cli.mjs built in ${Date.now() - started} ms`)
