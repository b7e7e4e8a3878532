// How the service's code is generated for node (scripts/build.mjs), in one place: the bench that
// measures the built code (bench/checks.ts) bundles with the same options.
import { builtinModules } from "node:module"
import { join } from "node:path"

const BUILTINS = new Set(builtinModules)

/**
 * Node's built-in modules, imported by the bundle through `require` instead of `import`. An ESM
 * import of a built-in makes Node build the module's ESM facade, which reads every export, getters
 * included: on Node 24 `node:http`'s `WebSocket` getter loads undici (about 40 ms of a start-up,
 * before anything asks for it), `node:crypto`'s `webcrypto` the Web Crypto API, `node:tls`'s
 * `rootCertificates` the root certificates. A `require` returns the same object without reading
 * them; esbuild's interop reads an export when the code uses it. Dynamic `import()`s stay as they
 * are (their facade is built when they run).
 */
const builtinsByRequire = {
  name: "builtins-by-require",
  setup(build) {
    build.onResolve({ filter: /^(node:)?[a-z][a-z0-9_/]*$/ }, (args) => {
      const name = args.path.startsWith("node:") ? args.path.slice("node:".length) : args.path
      if (!BUILTINS.has(name)) return undefined
      if (args.kind !== "import-statement") return { path: `node:${name}`, external: true }
      return { path: name, namespace: "node-builtin" }
    })
    build.onLoad({ filter: /.*/, namespace: "node-builtin" }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(`node:${args.path}`)})`,
      loader: "js"
    }))
  }
}

/**
 * `@effect/platform-node`'s HTTP server module imports NodeContext for `NodeHttpServer.layer` and
 * `layerContext`, which the service does not use; that one import is given src/Edge/NoNodeContext.ts
 * (why there), so the server's start-up no longer loads readline, child_process and worker_threads.
 */
const serverWithoutNodeContext = (repository) => ({
  name: "server-without-node-context",
  setup(build) {
    build.onResolve({ filter: /^\.\.\/NodeContext\.js$/ }, (args) =>
      /[\\/]@effect[\\/]platform-node[\\/]dist[\\/]esm[\\/]internal[\\/]httpServer\.js$/.test(args.importer)
        ? { path: join(repository, "src", "Edge", "NoNodeContext.ts") }
        : undefined)
  }
})

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
  external: ["@sentry/node", "@libsql/client/sqlite3", "libsql"],
  // The store opens local files only (SVC_HOME/svc.db): the driver's SQLite entry alone, without its
  // HTTP and WebSocket clients for remote databases (which cost start-up memory, docs/performance.md).
  // And no WebSocket server (src/Edge/NoWebSockets.ts: no route upgrades a connection).
  alias: { "@libsql/client": "@libsql/client/sqlite3", ws: join(repository, "src", "Edge", "NoWebSockets.ts") },
  // CommonJS dependencies inside an ESM bundle need a require.
  plugins: [builtinsByRequire, serverWithoutNodeContext(repository)],
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" }
})
