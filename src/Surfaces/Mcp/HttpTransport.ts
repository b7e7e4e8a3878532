/**
 * MCP's Streamable HTTP transport at `/mcp`, behind the edge: by the time a request gets here the
 * edge has given it a request id, checked its Host and Origin, run the guards (auth, rate limit)
 * and read its body under the byte limit, and it counts, logs and drains it like any other
 * request. Here:
 * - POST: JSON-RPC messages in, the answers out as one JSON body (`application/json`; a batch
 *   gets an array); notifications and responses alone get 202. Each POST is one connection of
 *   the MCP protocol (Protocol.ts); when the client closes the request first, what it started is
 *   interrupted and the model calls it made are aborted.
 * - Batches: refused (400) under MCP 2025-06-18, which removed them, and past SVC_MCP_MAX_BATCH.
 *   The edge counted the POST once against the rate limit; each further tool call of it counts
 *   once more (DECISIONS §5), and one over the limit is a `rate_limited` tool error that does
 *   not run.
 * - The answer is at most `replyLimit` bytes; what would not fit, or cannot be serialized,
 *   becomes a -32603 error for that request alone (JsonRpc.ts `encode`, which never throws).
 * - Sessions: `initialize` answers with an `Mcp-Session-Id`; within a session a
 *   `notifications/cancelled` (sent on its own POST) cancels a call still running. A session id
 *   this replica does not know is served without session (several replicas share no sessions);
 *   one ended with DELETE gets 404, as MCP asks. Sessions are counted per key (Sessions.ts).
 * - GET: 405 (no server-initiated stream: the server sends nothing unasked).
 * - The trace limits of a tool call are answered at the HTTP level (413), like on every route.
 * Errors at the HTTP level are the documented `{detail:{error,message}}`.
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Predicate from "effect/Predicate"
import * as Runtime from "effect/Runtime"
import type { IncomingMessage, ServerResponse } from "node:http"
import { Guards } from "../../Auth/Guards.js"
import { AppConfig } from "../../Config.js"
import { isJsonContentType, jsonShapeRefusal } from "../../Intake/Json.js"
import { headerValue } from "../../Edge/Headers.js"
import { writeErrorReply } from "../../Edge/Replies.js"
import { type EdgeRequest, underRequest } from "../../Edge/RequestContext.js"
import { type ApiError, InternalError, MethodNotAllowed, NotFound, type RequestTooLarge, UnsupportedMediaType, ValidationError } from "../../Errors.js"
import { McpHttp } from "../../Edge/McpHttp.js"
import { batchRefusal, encode, encodeBatch, type Incoming, type JsonRpcId, type Outgoing, PARSE_ERROR, parseMessages, replyLimit } from "./JsonRpc.js"
import { type CallContext, type Caller, type Connection, McpProtocol } from "./Protocol.js"
import { SessionStore } from "./Sessions.js"

/** The protocol versions the McpServer negotiates (its own list). */
export const PROTOCOL_VERSIONS: ReadonlySet<string> = new Set(["2025-06-18", "2025-03-26", "2024-11-05", "2024-10-07"])
export const SESSION_HEADER = "mcp-session-id"
const VERSION_HEADER = "mcp-protocol-version"

interface Session {
  readonly keyName: string | null
  terminated: boolean
  /** The version `initialize` negotiated: batches follow it when a POST names none. */
  protocolVersion: string | undefined
  /** The calls running, by the key of the client's request id, for `notifications/cancelled`. */
  readonly running: Map<string, { readonly id: JsonRpcId; readonly connection: Connection }>
}

const decoder = new TextDecoder("utf-8", { fatal: true })

/** The version `initialize` answered with, from the answers of a POST that held one. */
const negotiatedVersion = (messages: ReadonlyArray<Incoming>, answers: ReadonlyArray<Outgoing>): string | undefined => {
  const initialize = new Set(messages.flatMap((message) => (message._tag === "Request" && message.method === "initialize" ? [message.id.key] : [])))
  for (const answer of answers) {
    if (answer._tag !== "Result" || !initialize.has(answer.id.key)) continue
    const version = Predicate.isRecord(answer.result) ? answer.result["protocolVersion"] : undefined
    if (typeof version === "string") return version
  }
  return undefined
}

export const McpHttpLive = Layer.effect(
  McpHttp,
  Effect.gen(function*() {
    const protocol = yield* McpProtocol
    const config = yield* AppConfig
    const guards = yield* Guards
    const runtime = yield* Effect.runtime<never>()
    const sessions = new SessionStore<Session>()
    const maxReplyBytes = replyLimit(config.limits.maxBodyBytes)

    const reply = (response: ServerResponse, edge: EdgeRequest, error: ApiError) => {
      if (error._tag === "InternalError") edge.noteFailure({ kind: "internal_error", message: error.message, pattern: null, mode: null })
      writeErrorReply(response, error)
    }

    const json = (response: ServerResponse, body: string, headers: Readonly<Record<string, string>>) => {
      response.writeHead(200, { ...headers, "content-type": "application/json", "content-length": Buffer.byteLength(body) })
      response.end(body)
    }

    /** The messages of a POST body; a body that is no JSON-RPC at all, or a batch refused whole, is refused at the HTTP level. */
    const messagesOf = (bytes: Uint8Array, version: string | undefined): { readonly messages: ReadonlyArray<Incoming>; readonly batch: boolean } | ValidationError => {
      // Depth and key count first, on the bytes: no parser or walk sees a body past them.
      const shape = jsonShapeRefusal(bytes, config.limits)
      if (shape !== null) return shape
      let text: string
      try {
        text = decoder.decode(bytes)
      } catch {
        return new ValidationError({ message: "the body must be a JSON-RPC message (or a batch of them) as UTF-8 JSON" })
      }
      const parsed = parseMessages(text, (size) => batchRefusal(size, config.mcp.maxBatch, version))
      if (parsed._tag === "Messages") return parsed
      return new ValidationError({
        message: parsed.code === PARSE_ERROR ? "the body must be a JSON-RPC message (or a batch of them) as UTF-8 JSON" : parsed.reason
      })
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
        if (session !== undefined) for (const id of ids) session.running.set(id.key, { id, connection })
        return yield* Effect.gen(function*() {
          yield* connection.submit(messages)
          yield* Deferred.await(done)
          return answers
        }).pipe(
          Effect.ensuring(
            Effect.suspend(() => {
              if (session !== undefined) for (const id of ids) if (session.running.get(id.key)?.connection === connection) session.running.delete(id.key)
              return connection.close
            })
          )
        )
      })

    /**
     * The caller of each tool call of one POST. The edge passed the POST (auth, the role of
     * POST /mcp); the key's role is checked against each tool's operation here, by the guards'
     * own rule. The edge counted the POST against the rate limit: that covers its first tool call;
     * each further one is counted here (DECISIONS §5). A refused role is not counted.
     */
    const callerOf = (edge: EdgeRequest): CallContext["caller"] => {
      const caller: Caller = { keyName: edge.keyName, requestId: edge.requestId }
      let covered = true
      return (operation) =>
        Effect.flatMap(guards.permit(edge.keyName, operation), (): ReturnType<CallContext["caller"]> => {
          if (covered) {
            covered = false
            return Effect.succeed(caller)
          }
          return Effect.as(edge.charge, caller)
        })
    }

    const post = (request: IncomingMessage, response: ServerResponse, edge: EdgeRequest) => {
      const contentType = headerValue(request.headers, "content-type")
      if (!isJsonContentType(contentType)) {
        return reply(
          response,
          edge,
          new UnsupportedMediaType({ message: `send JSON-RPC as Content-Type: application/json (got ${contentType === undefined ? "no Content-Type" : JSON.stringify(contentType.slice(0, 80))})` })
        )
      }

      // The session: a known one when the same key presents its id.
      const presented = headerValue(request.headers, SESSION_HEADER)
      const known = presented === undefined ? undefined : sessions.get(presented)
      if (known?.terminated === true && known.keyName === edge.keyName) {
        return reply(response, edge, new NotFound({ message: "this MCP session was ended; initialize a new one" }))
      }
      let session = known !== undefined && known.keyName === edge.keyName ? known : undefined

      const version = headerValue(request.headers, VERSION_HEADER) ?? session?.protocolVersion
      const parsed = messagesOf(edge.body ?? new Uint8Array(0), version)
      if (parsed instanceof ValidationError) return reply(response, edge, parsed)
      const { batch, messages } = parsed

      // A new session on initialize.
      const headers: Record<string, string> = {}
      const opening = messages.some((message) => message._tag === "Request" && message.method === "initialize")
      if (opening) {
        const id = crypto.randomUUID()
        session = { keyName: edge.keyName, terminated: false, protocolVersion: undefined, running: new Map() }
        sessions.add(id, session)
        headers[SESSION_HEADER] = id
      }

      if (!messages.some((message) => message._tag === "Request" || message._tag === "Invalid")) {
        // Notifications and responses only: the one that changes anything is a cancellation.
        for (const message of messages) {
          if (message._tag !== "Notification" || message.cancels === null || session === undefined) continue
          const running = session.running.get(message.cancels.key)
          if (running !== undefined) Runtime.runFork(runtime, running.connection.cancel(running.id))
        }
        response.writeHead(202, headers)
        response.end()
        return
      }

      let refusal: RequestTooLarge | undefined
      const context: CallContext = {
        transport: "http",
        caller: callerOf(edge),
        refuse: (error) => {
          refusal ??= error
          return true
        }
      }
      const opened = opening ? session : undefined
      const fiber = Runtime.runFork(runtime, underRequest(edge, exchange(messages, context, session)))
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
        if (opened !== undefined) opened.protocolVersion = negotiatedVersion(messages, answers)
        const first = answers[0]
        if (first === undefined) {
          // Every request was cancelled: nothing to answer.
          response.writeHead(202, headers)
          response.end()
          return
        }
        json(response, batch ? encodeBatch(answers, maxReplyBytes) : encode(first, maxReplyBytes), headers)
      })
    }

    const handle = (request: IncomingMessage, response: ServerResponse, edge: EdgeRequest): void => {
      const version = headerValue(request.headers, VERSION_HEADER)
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
          for (const { connection, id } of session.running.values()) Runtime.runFork(runtime, connection.cancel(id))
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
