/**
 * What the build gives `@effect/platform-node` for the `ws` package (scripts/build.mjs aliases it
 * here). The platform's HTTP server builds a WebSocketServer only when a handler upgrades a
 * request to a WebSocket, and no route of this service does; `ws` itself (125 KB, and the TLS,
 * HTTPS and zlib modules it loads) would only cost start-up time and memory. An upgrade asked of it
 * fails, which the edge answers as any other failure.
 */
export class WebSocketServer {
  constructor() {
    throw new Error("pattern-analysis-service serves no WebSocket upgrades")
  }
}
