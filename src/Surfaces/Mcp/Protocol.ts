/**
 * The MCP transport protocol under `@effect/ai`'s McpServer, for both transports: an
 * `RpcServer.Protocol` whose clients are connections, one per stdio session or per HTTP POST.
 * A transport opens a connection with the context of its caller, submits the JSON-RPC messages
 * it read (JsonRpc.ts) and is handed back each answer; closing a connection interrupts what it
 * still has running (which aborts the model calls of an analysis). Tool handlers find their
 * caller's context by the connection's id (`McpServerClient.clientId`).
 */
import { ClientRequestRpcs } from "@effect/ai/McpSchema"
import type * as RpcMessage from "@effect/rpc/RpcMessage"
import * as RpcServer from "@effect/rpc/RpcServer"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Mailbox from "effect/Mailbox"
import * as Option from "effect/Option"
import type { GuardFailure } from "../../Auth/Guards.js"
import type { Operation } from "../../Auth/Operations.js"
import type { RequestTooLarge } from "../../Errors.js"
import { errorMessage, type Incoming, type JsonRpcError, type JsonRpcId, makeIdMap, type Outgoing, outgoingOf } from "./JsonRpc.js"
import type { AnalysisCaller } from "../../Analysis/AnalyzeService.js"

export const METHOD_NOT_FOUND = -32601

/** Who makes a tool call: the verified key's name (null when none was presented or needed) and the request id. */
export type Caller = AnalysisCaller

/** What a transport knows of the client behind a connection. */
export interface CallContext {
  readonly transport: "http" | "stdio"
  /**
   * The caller of one tool call, allowed the tool's operation (each tool names its own, with the
   * role it needs: Tools.ts). Over HTTP the edge's guards ran for the request that carries it and
   * the key's role is checked here against the tool's; over stdio the same guards run here, once
   * per call (API key from SVC_API_KEY, role, rate limit).
   */
  readonly caller: (operation: Operation) => Effect.Effect<Caller, GuardFailure>
  /**
   * Over HTTP, a limit checked before the call (the trace limits) is answered at the HTTP level,
   * like on every route: the transport answers the request with this error. False over stdio.
   */
  readonly refuse: (error: RequestTooLarge) => boolean
}

/** How a connection hands answers back to its transport. */
export interface Delivery {
  /** One JSON-RPC message to write. */
  readonly deliver: (message: Outgoing) => void
  /**
   * A request (or an invalid message) of this connection ended, answered or not (a cancelled
   * request gets no answer): once for each.
   */
  readonly settled: () => void
}

export interface Connection {
  readonly clientId: number
  /** Requests go to the server; invalid messages and unknown methods are answered at once. */
  readonly submit: (messages: ReadonlyArray<Incoming>) => Effect.Effect<void>
  /** Interrupts a request of this connection by the client's id (`notifications/cancelled`). */
  readonly cancel: (id: JsonRpcId) => Effect.Effect<void>
  /** Ends the connection: what still runs is interrupted. */
  readonly close: Effect.Effect<void>
}

/** A check of a method's params before the server runs it: the error to answer, or undefined to run it. */
export type Precheck = (params: unknown) => JsonRpcError | undefined

export interface McpProtocolShape {
  readonly open: (context: CallContext, delivery: Delivery) => Effect.Effect<Connection>
  readonly contextOf: (clientId: number) => CallContext | undefined
  /**
   * Adds a check for a method, for what the McpServer itself does not refuse (it answers a
   * `resources/read` of an unknown URI with an empty result; Library.ts refuses it with -32602).
   */
  readonly precheck: (method: string, check: Precheck) => void
}

export class McpProtocol extends Context.Tag("McpProtocol")<McpProtocol, McpProtocolShape>() {}

const KNOWN_METHODS: ReadonlySet<string> = new Set(ClientRequestRpcs.requests.keys())

interface Client {
  readonly context: CallContext
  readonly delivery: Delivery
  readonly ids: ReturnType<typeof makeIdMap>
}


const make = Effect.gen(function*() {
  const clients = new Map<number, Client>()
  const prechecks = new Map<string, Precheck>()
  const disconnects = yield* Mailbox.make<number>()
  let nextClientId = 0
  let write: (clientId: number, message: RpcMessage.FromClientEncoded) => Effect.Effect<void> = () => Effect.void

  const protocol = yield* RpcServer.Protocol.make((writeRequest) => {
    write = writeRequest
    return Effect.succeed({
      disconnects,
      send: (clientId: number, response: RpcMessage.FromServerEncoded) =>
        Effect.sync(() => {
          const client = clients.get(clientId)
          if (client === undefined) return
          const outgoing = outgoingOf(response, client.ids.take)
          if (outgoing !== undefined) client.delivery.deliver(outgoing)
          if (response._tag === "Exit") client.delivery.settled()
        }),
      end: () => Effect.void,
      clientIds: Effect.sync((): ReadonlySet<number> => new Set(clients.keys())),
      initialMessage: Effect.succeed(Option.none()),
      supportsAck: false,
      supportsTransferables: false,
      supportsSpanPropagation: false
    })
  })

  const open = (context: CallContext, delivery: Delivery) =>
    Effect.sync((): Connection => {
      const clientId = nextClientId++
      const ids = makeIdMap()
      clients.set(clientId, { context, delivery, ids })
      const cancel = (id: JsonRpcId) =>
        Effect.suspend(() => {
          const internal = ids.internalOf(id)
          return internal === undefined ? Effect.void : write(clientId, { _tag: "Interrupt", requestId: internal })
        })
      const answerAtOnce = (id: JsonRpcId | null, error: JsonRpcError) => {
        delivery.deliver(errorMessage(id, error))
        delivery.settled()
        return Effect.void
      }
      const submitOne = (message: Incoming): Effect.Effect<void> => {
        switch (message._tag) {
          case "Request": {
            if (!KNOWN_METHODS.has(message.method)) {
              return answerAtOnce(message.id, { code: METHOD_NOT_FOUND, message: `Method not found: ${message.method.slice(0, 100)}` })
            }
            const refusal = prechecks.get(message.method)?.(message.params)
            if (refusal !== undefined) return answerAtOnce(message.id, refusal)
            return write(clientId, { _tag: "Request", id: ids.assign(message.id), tag: message.method, payload: message.params, headers: [] })
          }
          case "Notification":
            // Of the client's notifications only a cancellation changes anything here.
            return message.cancels === null ? Effect.void : cancel(message.cancels)
          case "Response":
            return Effect.void
          case "Invalid":
            return answerAtOnce(message.id, { code: message.code, message: message.message })
        }
      }
      return {
        clientId,
        submit: (messages) => Effect.forEach(messages, submitOne, { discard: true }),
        cancel,
        close: Effect.suspend(() => (clients.delete(clientId) ? disconnects.offer(clientId) : Effect.succeed(false)))
      }
    })

  const precheck = (method: string, check: Precheck) => {
    prechecks.set(method, check)
  }
  return { protocol, mcp: McpProtocol.of({ open, contextOf: (clientId) => clients.get(clientId)?.context, precheck }) }
})

/** The protocol the McpServer runs on, and the transports' view of it. */
export const McpProtocolLive: Layer.Layer<RpcServer.Protocol | McpProtocol> = Layer.effectContext(
  Effect.map(make, ({ mcp, protocol }) => Context.make(RpcServer.Protocol, protocol).pipe(Context.add(McpProtocol, mcp)))
)
