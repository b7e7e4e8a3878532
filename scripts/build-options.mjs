// How the service's code is generated for node (scripts/build.mjs), in one place: the bench that
// measures the built code (bench/checks.ts) bundles with the same options.
import { join } from "node:path"

/** esbuild's code-generation options for the service's node bundles, paths under `repository`. */
export const nodeCodegen = (repository) => ({
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  legalComments: "none",
  logLevel: "warning",
  // Optional, loaded at run time only when ERROR_REPORTING_DSN is set; and the SQLite driver, whose
  // native binding installs prebuilt per platform (a runtime dependency, loaded when the store opens).
  external: ["@sentry/node", "@libsql/client/sqlite3"],
  // The store opens local files only (SVC_HOME/svc.db): the driver's SQLite entry alone, without its
  // HTTP and WebSocket clients for remote databases (which cost start-up memory, docs/performance.md).
  // And no WebSocket server (src/Edge/NoWebSockets.ts: no route upgrades a connection).
  alias: { "@libsql/client": "@libsql/client/sqlite3", ws: join(repository, "src", "Edge", "NoWebSockets.ts") },
  // CommonJS dependencies inside an ESM bundle need a require.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" }
})
