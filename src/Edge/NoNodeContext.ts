/**
 * What the build gives `@effect/platform-node`'s HTTP server module for its import of NodeContext
 * (scripts/build-options.mjs). That module uses NodeContext only in `NodeHttpServer.layer` and
 * `layerContext`, which the service does not use: Edge/Server.ts provides the HTTP platform,
 * ETags, the file system and paths itself. Through that one import, every start of the service
 * loaded a terminal on standard input (node's readline), a command executor (child_process) and a
 * worker manager (worker_threads) that nothing runs. `svc` imports the real NodeContext. A program
 * that did build `NodeHttpServer.layer` from this bundle stops at once, saying so.
 */
import * as Layer from "effect/Layer"

export const layer: Layer.Layer<never> = Layer.die(
  new Error("NodeHttpServer.layer and layerContext are not in this build: provide the server's context as src/Edge/Server.ts does")
)
