/**
 * The node:http server whose one request handler is the edge. Listening is a scoped resource:
 * it starts once the app is built, and its release is draining (Lifecycle/Drain.ts), so draining
 * runs before the resources that requests use are finalized.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Context, Effect, Layer } from "effect"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { drain } from "../Lifecycle/Drain.js"
import { Readiness } from "../Lifecycle/Readiness.js"
import { McpHttp } from "../Surfaces/Mcp/McpHttp.js"
import { AnalyzeAtEdge } from "../Surfaces/Rest/AnalyzeAtEdge.js"
import { makeEdge } from "./Edge.js"
import { behindEdge } from "./Forward.js"
import { EdgeIncomingMessage } from "./RequestContext.js"

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

export interface ServerHandleShape {
  readonly server: Server
  readonly address: AddressInfo
}

/** The listening server (its address: the port when SVC_PORT=0). */
export class ServerHandle extends Context.Tag("ServerHandle")<ServerHandle, ServerHandleShape>() {}

const listen = (server: Server, host: string, port: number) =>
  Effect.async<AddressInfo, Error>((resume) => {
    const onError = (error: Error) => resume(Effect.fail(error))
    server.once("error", onError)
    server.listen({ host, port, backlog: LISTEN_BACKLOG }, () => {
      server.off("error", onError)
      const address = server.address()
      if (address === null || typeof address === "string") resume(Effect.fail(new Error(`unexpected listening address ${String(address)}`)))
      else resume(Effect.succeed(address))
    })
  })

/** Serves the built HttpApi (HttpApiBuilder.api) and the MCP transport behind the edge on host:port. */
export const ServerLive = (host: string, port: number, slugs: ReadonlySet<string>) =>
  Layer.scoped(
    ServerHandle,
    Effect.gen(function*() {
      const app = yield* HttpApiBuilder.httpApp
      const handler = yield* NodeHttpServer.makeHandler(behindEdge(app))
      const mcp = yield* McpHttp
      const analyze = yield* AnalyzeAtEdge
      const edge = yield* makeEdge(handler, slugs, mcp.handle, analyze.serve)
      const server = createServer<typeof EdgeIncomingMessage>({ IncomingMessage: EdgeIncomingMessage, ...SERVER_TIMEOUTS }, edge)
      const address = yield* Effect.acquireRelease(
        listen(server, host, port).pipe(
          Effect.mapError((error) => new Error(`could not listen on ${host}:${port}: ${error.message}`))
        ),
        () => drain(server)
      )
      const readiness = yield* Readiness
      yield* readiness.set("ready")
      yield* Effect.logInfo("ready").pipe(
        Effect.annotateLogs({ address: `http://${address.address}:${address.port}`, startup_ms: Math.round(performance.now()) })
      )
      return { server, address }
    })
  ).pipe(Layer.provide(NodeHttpServer.layerContext))
