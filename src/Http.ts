/**
 * Composition: the HttpApi groups, the outer middleware, and the Node server. Shared resources
 * (config, catalogue, readiness, metrics, the analyzer and its provider clients) are provided
 * outside the server layer so they outlive the requests that use them while the server drains.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpServer from "@effect/platform/HttpServer"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Effect, Layer } from "effect"
import { AnalyzeHandlersLive } from "./Analysis/AnalyzeHandlers.js"
import { AnalyzeHttpLive } from "./Analysis/AnalyzeHttp.generated.js"
import { Api } from "./Api.js"
import { AuthenticationLive } from "./Auth/Authentication.js"
import { patternCodes } from "./Catalogue/Catalogue.js"
import { CatalogueHttpLive } from "./Catalogue/CatalogueHttp.js"
import { DocsHttpLive } from "./Docs/DocsHttp.js"
import { FastServer, makeFastPath } from "./Http/FastPath.js"
import { makeOuterMiddleware } from "./Http/Middleware.js"
import { ServerHandle } from "./Lifecycle/Lifecycle.js"
import { ProbesHttpLive } from "./Lifecycle/ProbesHttp.js"

/** Node server timeouts: slow or idle clients cannot hold sockets forever. */
export const SERVER_TIMEOUTS = {
  headersTimeout: 10_000,
  requestTimeout: 60_000,
  keepAliveTimeout: 5_000
} as const

/**
 * Connections the kernel queues before the server accepts them (capped by net.core.somaxconn).
 * Node's default of 511 overflows under a burst of thousands of new connections, and an overflowing
 * queue drops handshakes that clients then see as resets.
 */
export const LISTEN_BACKLOG = 4096

export const ApiLive = HttpApiBuilder.api(Api).pipe(
  Layer.provide([ProbesHttpLive, CatalogueHttpLive, AnalyzeHttpLive, DocsHttpLive]),
  Layer.provide(AuthenticationLive)
)

const slugs = new Set(patternCodes.map((code) => code.slug))

/**
 * The HTTP app served by the Node server. The outer middleware wraps the HttpApi app itself (not
 * HttpServer.serve's middleware, which in v3 runs after the response is written), so it can
 * normalise errors and set headers on every response. In front of it, on the server's request
 * event, the fast path answers prepared responses (Http/FastPath.ts).
 */
export const HttpAppLive = Effect.gen(function*() {
  const app = yield* HttpApiBuilder.httpApp
  const middleware = yield* makeOuterMiddleware({ slugs })
  const fast = yield* makeFastPath(slugs)
  const { server } = yield* ServerHandle
  server.fast = fast(server)
  return HttpServer.serve(middleware(app))
}).pipe(
  Layer.unwrapEffect,
  Layer.provide([HttpApiBuilder.Router.Live, HttpApiBuilder.Middleware.layer]),
  Layer.provide(ApiLive),
  // One instance for the HttpApi handlers and the fast path (its cache-hit lookups).
  Layer.provide(AnalyzeHandlersLive),
  // No trace exporter is configured: a span per request would be pure overhead.
  HttpMiddleware.withTracerDisabledWhen(() => true)
)

/** The Node server, also exposed as ServerHandle so draining can stop it listening and cut it. */
export const nodeServerLayer = (host: string, port: number) =>
  Layer.unwrapEffect(
    Effect.sync(() => {
      const server = new FastServer({ ...SERVER_TIMEOUTS })
      return Layer.merge(NodeHttpServer.layer(() => server, { host, port, backlog: LISTEN_BACKLOG }), Layer.succeed(ServerHandle, { server }))
    })
  )

export const ServerLive = (host: string, port: number) =>
  HttpAppLive.pipe(HttpServer.withLogAddress, Layer.provideMerge(nodeServerLayer(host, port)))
