// Production build: src/main.ts and everything it imports (patterns included) bundled into one
// ESM file, dist/server.mjs. Swagger UI and Redoc assets stay in node_modules and are read at run time.
import { build } from "esbuild"

const started = Date.now()
await build({
  entryPoints: ["src/main.ts"],
  outfile: "dist/server.mjs",
  bundle: true,
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
console.log(`dist/server.mjs built in ${Date.now() - started} ms`)
