/**
 * The node:http server whose one request handler is the edge. Listening is a scoped resource:
 * it starts once the app is built, and its release is draining (Lifecycle/Drain.ts), so draining
 * runs before the resources that requests use are finalized.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Etag from "@effect/platform/Etag"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodeHttpPlatform from "@effect/platform-node/NodeHttpPlatform"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodePath from "@effect/platform-node/NodePath"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo, Socket } from "node:net"
import { AppConfig, type AppConfigShape } from "../Config.js"
import { drain } from "../Lifecycle/Drain.js"
import { Readiness } from "../Lifecycle/Readiness.js"
import { McpHttp } from "./McpHttp.js"
import { AnalyzeAtEdge } from "./AnalyzeAtEdge.js"
import { makeEdge } from "./Edge.js"
import { behindEdge } from "./Forward.js"
import { EdgeIncomingMessage } from "./RequestContext.js"

/**
 * How often node looks for connections past `headersTimeout` or `requestTimeout` (its default,
 * 30 s, let a slow client hold a socket three times longer than the timeout it was given).
 */
const CONNECTIONS_CHECKING_INTERVAL_MS = 1_000

/**
 * The node server with the connection bounds of SVC_HTTP_* (DECISIONS §16, issue 27): headers
 * within `headersTimeout`, a whole request within `requestTimeout`, at most `maxConnections`
 * sockets (node closes the ones past it), and a connection with no request in progress closed
 * after `idleTimeout`, whether it never sent a request or is a kept-alive one between requests.
 * A request in progress is never cut by the idle timer: its deadline is the analysis's
 * (SVC_API_REQUEST_TIMEOUT).
 */
export const makeNodeServer = (
  settings: AppConfigShape["server"],
  edge: (request: EdgeIncomingMessage, response: ServerResponse) => void
): Server => {
  const idleMs = Duration.toMillis(settings.idleTimeout)
  const server = createServer<typeof EdgeIncomingMessage>({
    IncomingMessage: EdgeIncomingMessage,
    headersTimeout: Duration.toMillis(settings.headersTimeout),
    requestTimeout: Duration.toMillis(settings.requestTimeout),
    keepAliveTimeout: idleMs,
    connectionsCheckingInterval: CONNECTIONS_CHECKING_INTERVAL_MS
  }, edge)
  server.maxConnections = settings.maxConnections
  // node destroys a socket whose timeout fires unless someone listens on the server: listening
  // hands the decision to the socket's own listener below, which spares busy connections.
  server.on("timeout", () => undefined)
  /** Requests in progress per connection (HTTP/1.1 pipelining can have several). */
  const busy = new WeakMap<Socket, number>()
  server.on("connection", (socket: Socket) => {
    socket.setTimeout(idleMs)
    socket.on("timeout", () => {
      if ((busy.get(socket) ?? 0) === 0) socket.destroy()
    })
  })
  server.on("request", (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket
    busy.set(socket, (busy.get(socket) ?? 0) + 1)
    response.once("close", () => {
      busy.set(socket, Math.max(0, (busy.get(socket) ?? 1) - 1))
      // The idle clock starts again from the end of the last request.
      if (!socket.destroyed) socket.setTimeout(idleMs)
    })
  })
  return server
}

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

/**
 * What the platform's HTTP handler and the REST handlers need: the HttpPlatform (file bodies),
 * ETags, the file system and paths. Not the platform's `NodeHttpServer.layerContext`, which also
 * builds a terminal on standard input, a command executor and a worker manager that the service
 * never uses (issue 52).
 */
const ServerContext = Layer.mergeAll(NodeHttpPlatform.layer, Etag.layerWeak, NodeFileSystem.layer, NodePath.layer)

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
      const server = makeNodeServer((yield* AppConfig).server, edge)
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
  ).pipe(Layer.provide(ServerContext))
