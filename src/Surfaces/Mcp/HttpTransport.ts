/**
 * MCP's Streamable HTTP transport at `/mcp`, behind the edge: by the time a request gets here the
 * edge has given it a request id, run the guards (auth, rate limit) and read its body under the
 * byte limit, and it counts, logs and drains it like any other request. Here:
 * - POST: JSON-RPC messages in, the answers out as one JSON body (`application/json`; a batch
 *   gets an array); notifications and responses alone get 202. Each POST is one connection of
 *   the MCP protocol (Protocol.ts); when the client closes the request first, what it started is
 *   interrupted and the model calls it made are aborted.
 * - Sessions: `initialize` answers with an `Mcp-Session-Id`; within a session a
 *   `notifications/cancelled` (sent on its own POST) cancels a call still running. A session id
 *   this replica does not know is served without session (several replicas share no sessions);
 *   one ended with DELETE gets 404, as MCP asks.
 * - GET: 405 (no server-initiated stream: the server sends nothing unasked).
 * - The trace limits of a tool call are answered at the HTTP level (413), like on every route.
 * - A browser `Origin` that is not this machine is refused (DNS rebinding).
 * Errors at the HTTP level are the documented `{detail:{error,message}}`.
 */
import { Deferred, Effect, Fiber, Layer, Runtime } from "effect"
import type { IncomingMessage, ServerResponse } from "node:http"
import { isJsonContentType } from "../../Edge/Body.js"
import { headerValue } from "../../Edge/Guards.js"
import { writeErrorReply } from "../../Edge/Replies.js"
import type { EdgeRequest } from "../../Edge/RequestContext.js"
import { type ApiError, InternalError, MethodNotAllowed, NotFound, type RequestTooLarge, Unauthorized, UnsupportedMediaType, ValidationError } from "../../Errors.js"
import { Lru } from "../../Lru.js"
import { McpHttp } from "./McpHttp.js"
import { classify, type Incoming, type JsonRpcId, type Outgoing } from "./JsonRpc.js"
import { type CallContext, type Connection, McpProtocol } from "./Protocol.js"

/** The protocol versions the McpServer negotiates (its own list). */
export const PROTOCOL_VERSIONS: ReadonlySet<string> = new Set(["2025-06-18", "2025-03-26", "2024-11-05", "2024-10-07"])
export const SESSION_HEADER = "mcp-session-id"
const MAX_SESSIONS = 10_000

interface Session {
  readonly keyName: string | null
  terminated: boolean
  /** The calls running, by the client's request id, for `notifications/cancelled`. */
  readonly running: Map<JsonRpcId, Connection>
}

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"])

/** True for a request with no Origin (not a browser) or from a page on this machine. */
export const isAllowedOrigin = (origin: string | undefined): boolean => {
  if (origin === undefined) return true
  try {
    const { hostname } = new URL(origin)
    return LOOPBACK.has(hostname) || hostname.startsWith("127.")
  } catch {
    return false
  }
}

const decoder = new TextDecoder("utf-8", { fatal: true })

export const McpHttpLive = Layer.effect(
  McpHttp,
  Effect.gen(function*() {
    const protocol = yield* McpProtocol
    const runtime = yield* Effect.runtime<never>()
    const sessions = new Lru<string, Session>(MAX_SESSIONS)

    const reply = (response: ServerResponse, edge: EdgeRequest, error: ApiError) => {
      if (error._tag === "InternalError") edge.noteFailure({ kind: "internal_error", message: error.message, pattern: null, mode: null })
      writeErrorReply(response, error)
    }

    const json = (response: ServerResponse, status: number, value: unknown, headers: Readonly<Record<string, string>>) => {
      const body = JSON.stringify(value)
      response.writeHead(status, { ...headers, "content-type": "application/json", "content-length": Buffer.byteLength(body) })
      response.end(body)
    }

    /** The messages of a POST body; a body that is no JSON-RPC at all is refused at the HTTP level. */
    const messagesOf = (bytes: Uint8Array): { readonly messages: ReadonlyArray<Incoming>; readonly batch: boolean } | ValidationError => {
      let parsed: unknown
      try {
        parsed = JSON.parse(decoder.decode(bytes))
      } catch {
        return new ValidationError({ message: "the body must be a JSON-RPC message (or a batch of them) as UTF-8 JSON" })
      }
      if (Array.isArray(parsed)) {
        if (parsed.length === 0) return new ValidationError({ message: "an empty JSON-RPC batch" })
        return { messages: parsed.map(classify), batch: true }
      }
      return { messages: [classify(parsed)], batch: false }
    }

    /** Runs the requests of one POST on a connection of their own; settles when each is answered. */
    const exchange = (messages: ReadonlyArray<Incoming>, context: CallContext, session: Session | undefined) =>
      Effect.gen(function*() {
        const expected = messages.filter((message) => message._tag === "Request" || message._tag === "Invalid").length
        const answers: Array<Outgoing> = []
        const done = yield* Deferred.make<void>()
        let settled = 0
        const connection = yield* protocol.open(context, {
          deliver: (message) => answers.push(message),
          settled: () => {
            settled += 1
            if (settled >= expected) Deferred.unsafeDone(done, Effect.void)
          }
        })
        const ids = messages.flatMap((message) => (message._tag === "Request" ? [message.id] : []))
        if (session !== undefined) for (const id of ids) session.running.set(id, connection)
        return yield* Effect.gen(function*() {
          yield* connection.submit(messages)
          yield* Deferred.await(done)
          return answers
        }).pipe(
          Effect.ensuring(
            Effect.suspend(() => {
              if (session !== undefined) for (const id of ids) if (session.running.get(id) === connection) session.running.delete(id)
              return connection.close
            })
          )
        )
      })

    const post = (request: IncomingMessage, response: ServerResponse, edge: EdgeRequest) => {
      const contentType = headerValue(request.headers, "content-type")
      if (!isJsonContentType(contentType)) {
        return reply(
          response,
          edge,
          new UnsupportedMediaType({ message: `send JSON-RPC as Content-Type: application/json (got ${contentType === undefined ? "no Content-Type" : JSON.stringify(contentType.slice(0, 80))})` })
        )
      }
      const parsed = messagesOf(edge.body ?? new Uint8Array(0))
      if (parsed instanceof ValidationError) return reply(response, edge, parsed)
      const { batch, messages } = parsed

      // The session: a new one on initialize; a known one when the same key presents its id.
      const presented = headerValue(request.headers, SESSION_HEADER)
      const known = presented === undefined ? undefined : sessions.get(presented)
      if (known?.terminated === true && known.keyName === edge.keyName) {
        return reply(response, edge, new NotFound({ message: "this MCP session was ended; initialize a new one" }))
      }
      const headers: Record<string, string> = {}
      let session = known !== undefined && known.keyName === edge.keyName ? known : undefined
      if (messages.some((message) => message._tag === "Request" && message.method === "initialize")) {
        const id = crypto.randomUUID()
        session = { keyName: edge.keyName, terminated: false, running: new Map() }
        sessions.set(id, session)
        headers[SESSION_HEADER] = id
      }

      if (!messages.some((message) => message._tag === "Request" || message._tag === "Invalid")) {
        // Notifications and responses only: the one that changes anything is a cancellation.
        for (const message of messages) {
          if (message._tag !== "Notification" || message.method !== "notifications/cancelled") continue
          const params = message.params
          const id: unknown = typeof params === "object" && params !== null ? Reflect.get(params, "requestId") : undefined
          const connection = session !== undefined && (typeof id === "string" || typeof id === "number") ? session.running.get(id) : undefined
          if (connection !== undefined) Runtime.runFork(runtime, connection.cancel(id))
        }
        response.writeHead(202, headers)
        response.end()
        return
      }

      let refusal: RequestTooLarge | undefined
      const context: CallContext = {
        transport: "http",
        caller: Effect.succeed({ keyName: edge.keyName, requestId: edge.requestId }),
        refuse: (error) => {
          refusal ??= error
          return true
        }
      }
      const fiber = Runtime.runFork(runtime, exchange(messages, context, session))
      // The client went away first: interrupt the calls (their model requests are aborted).
      const onClose = () => {
        if (!response.writableEnded) Runtime.runFork(runtime, Fiber.interrupt(fiber))
      }
      response.once("close", onClose)
      fiber.addObserver((exit) => {
        response.off("close", onClose)
        if (response.writableEnded || response.destroyed || exit._tag === "Failure") {
          if (exit._tag === "Failure" && !response.writableEnded && !response.destroyed) {
            reply(response, edge, new InternalError({ message: "the MCP request failed unexpectedly; the request id identifies it in the logs" }))
          }
          return
        }
        if (refusal !== undefined) return reply(response, edge, refusal)
        const answers = exit.value
        if (answers.length === 0) {
          // Every request was cancelled: nothing to answer.
          response.writeHead(202, headers)
          response.end()
          return
        }
        json(response, 200, batch ? answers : answers[0], headers)
      })
    }

    const handle = (request: IncomingMessage, response: ServerResponse, edge: EdgeRequest): void => {
      if (!isAllowedOrigin(headerValue(request.headers, "origin"))) {
        return reply(response, edge, new Unauthorized({ message: "requests from a browser page on another origin are not accepted at /mcp" }))
      }
      const version = headerValue(request.headers, "mcp-protocol-version")
      if (version !== undefined && !PROTOCOL_VERSIONS.has(version)) {
        return reply(
          response,
          edge,
          new ValidationError({ message: `unsupported MCP-Protocol-Version ${JSON.stringify(version.slice(0, 40))}; supported: ${Array.from(PROTOCOL_VERSIONS).join(", ")}` })
        )
      }
      switch (request.method) {
        case "POST":
          return post(request, response, edge)
        case "DELETE": {
          const presented = headerValue(request.headers, SESSION_HEADER)
          const session = presented === undefined ? undefined : sessions.get(presented)
          if (session === undefined || session.keyName !== edge.keyName || session.terminated) {
            return reply(response, edge, new NotFound({ message: "no such MCP session; send its Mcp-Session-Id header" }))
          }
          session.terminated = true
          for (const [id, connection] of session.running) Runtime.runFork(runtime, connection.cancel(id))
          response.writeHead(204)
          response.end()
          return
        }
        default:
          return reply(
            response,
            edge,
            new MethodNotAllowed({ message: `${request.method ?? "?"} is not allowed on /mcp; use POST (and DELETE to end a session)`, allow: "POST, DELETE" })
          )
      }
    }

    return { handle }
  })
)
