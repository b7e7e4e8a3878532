/**
 * MCP over stdio (`svc mcp`, StdioMain.ts): newline-delimited JSON-RPC on
 * stdin and stdout, one connection of the MCP protocol for the life of the process. Only
 * protocol messages go to stdout; logs go to stderr (the entry point sets that up).
 *
 * The guards run here for each tool call, as the edge runs them for each HTTP request: the API
 * key comes from SVC_API_KEY (required when SVC_API_REQUIRE_AUTH=true; its name picks the data
 * scope), and the rate limit counts each call. Limits, deadlines and cancellation
 * (`notifications/cancelled`, which aborts the call's model requests) are the services' own.
 * When stdin ends, the calls still running finish and their answers are written before the
 * process exits.
 */
import { Deferred, Effect, type Option, type Redacted, Runtime } from "effect"
import { createInterface } from "node:readline"
import type { Readable, Writable } from "node:stream"
import { MCP_PATH } from "../../Edge/Routes.js"
import { makeLocalCaller } from "../LocalCaller.js"
import { type Incoming, parseMessages } from "./JsonRpc.js"
import { type CallContext, McpProtocol } from "./Protocol.js"

export interface StdioOptions {
  readonly input: Readable
  readonly output: Writable
  readonly apiKey: Option.Option<Redacted.Redacted>
}

const pending = (messages: ReadonlyArray<Incoming>) => messages.filter((message) => message._tag === "Request" || message._tag === "Invalid").length

/** Serves MCP on the streams until the input ends and every call has been answered. */
export const serveStdio = (options: StdioOptions) =>
  Effect.gen(function*() {
    const protocol = yield* McpProtocol
    const caller = yield* makeLocalCaller(options.apiKey, "svc mcp", MCP_PATH)
    const runtime = yield* Effect.runtime<never>()
    const context: CallContext = { transport: "stdio", caller, refuse: () => false }

    const ended = yield* Deferred.make<void>()
    let open = 0
    let inputEnded = false
    const finishIfIdle = () => {
      if (inputEnded && open === 0) Deferred.unsafeDone(ended, Effect.void)
    }
    const connection = yield* protocol.open(context, {
      deliver: (message) => {
        options.output.write(`${JSON.stringify(message)}\n`)
      },
      settled: () => {
        open -= 1
        finishIfIdle()
      }
    })

    yield* Effect.logInfo("mcp ready").pipe(Effect.annotateLogs({ transport: "stdio", startup_ms: Math.round(performance.now()) }))
    const lines = createInterface({ input: options.input, crlfDelay: Number.POSITIVE_INFINITY })
    lines.on("line", (line) => {
      if (line.trim().length === 0) return
      const messages = parseMessages(line)
      open += pending(messages)
      Runtime.runFork(runtime, connection.submit(messages))
    })
    lines.on("close", () => {
      inputEnded = true
      finishIfIdle()
    })
    yield* Deferred.await(ended).pipe(Effect.ensuring(connection.close))
  })
