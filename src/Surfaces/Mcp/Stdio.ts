/**
 * MCP over stdio (`svc mcp`, StdioMain.ts): newline-delimited JSON-RPC on
 * stdin and stdout, one connection of the MCP protocol for the life of the process. Only
 * protocol messages go to stdout; logs go to stderr (the entry point sets that up).
 *
 * The guards run here for each tool call, as the edge runs them for each HTTP request: the API
 * key comes from SVC_API_KEY (required when SVC_API_REQUIRE_AUTH=true; its name picks the data
 * scope), the key's role must reach the tool's (`svc_submit_run` needs `ingest`, the other tools
 * `read`), and the rate limit counts each call. Limits, deadlines and cancellation
 * (`notifications/cancelled`, which aborts the call's model requests) are the services' own.
 * A line is at most the body limit (SVC_API_MAX_BODY_BYTES): a longer one is dropped as it
 * streams and answered with -32600; batches follow the HTTP rules (refused under MCP 2025-06-18,
 * at most SVC_MCP_MAX_BATCH messages); an answer is at most the reply limit (JsonRpc.ts).
 * When stdin ends, the calls still running finish and their answers are written before the
 * process exits.
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import type * as Redacted from "effect/Redacted"
import * as Runtime from "effect/Runtime"
import type { Readable, Writable } from "node:stream"
import { AppConfig } from "../../Config.js"
import type { Guards } from "../../Auth/Guards.js"
import { makeLocalCaller } from "../LocalCaller.js"
import { batchRefusal, encode, type Incoming, INVALID_REQUEST, lineLimit, parseMessages, refusalMessage, replyLimit } from "./JsonRpc.js"
import { makeLineSplitter } from "./Lines.js"
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
    const config = yield* AppConfig
    const guards = yield* Effect.context<Guards>()
    // The guards for each call, with the operation of its tool (Tools.ts).
    const caller: CallContext["caller"] = (operation) => Effect.flatten(Effect.provide(makeLocalCaller(options.apiKey, "svc mcp", operation), guards))
    const runtime = yield* Effect.runtime<never>()
    const context: CallContext = { transport: "stdio", caller, refuse: () => false }
    const maxReplyBytes = replyLimit(config.limits.maxBodyBytes)
    const maxLineBytes = lineLimit(config.limits.maxBodyBytes)

    const ended = yield* Deferred.make<void>()
    let open = 0
    let inputEnded = false
    const finishIfIdle = () => {
      if (inputEnded && open === 0) Deferred.unsafeDone(ended, Effect.void)
    }
    // A reader that went away (EPIPE) must not take the process down: what is left is not written.
    let outputBroken = false
    options.output.on("error", () => {
      outputBroken = true
    })
    // The version `initialize` negotiated, which decides whether batches are accepted.
    let version: string | undefined
    const initializeIds = new Set<string>()
    const connection = yield* protocol.open(context, {
      deliver: (message) => {
        if (message._tag === "Result" && initializeIds.delete(message.id.key) && Predicate.isRecord(message.result)) {
          const negotiated = message.result["protocolVersion"]
          if (typeof negotiated === "string") version = negotiated
        }
        if (!outputBroken) options.output.write(`${encode(message, maxReplyBytes)}\n`)
      },
      settled: () => {
        open -= 1
        finishIfIdle()
      }
    })
    const submit = (messages: ReadonlyArray<Incoming>) => {
      open += pending(messages)
      Runtime.runFork(runtime, connection.submit(messages))
    }
    const answerAtOnce = (code: number, reason: string) => {
      const message = refusalMessage({ code, reason })
      if (!outputBroken) options.output.write(`${encode(message, maxReplyBytes)}\n`)
    }

    yield* Effect.logInfo("mcp ready").pipe(Effect.annotateLogs({ transport: "stdio", startup_ms: Math.round(performance.now()) }))
    const lines = makeLineSplitter(maxLineBytes, {
      line: (line) => {
        if (line.trim().length === 0) return
        const parsed = parseMessages(line, (size) => batchRefusal(size, config.mcp.maxBatch, version))
        if (parsed._tag === "Refused") return answerAtOnce(parsed.code, parsed.reason)
        for (const message of parsed.messages) if (message._tag === "Request" && message.method === "initialize") initializeIds.add(message.id.key)
        submit(parsed.messages)
      },
      tooLong: () => answerAtOnce(INVALID_REQUEST, `a line over ${maxLineBytes} bytes (SVC_API_MAX_BODY_BYTES) was dropped unread`)
    })
    let closed = false
    const close = () => {
      if (closed) return
      closed = true
      lines.end()
      inputEnded = true
      finishIfIdle()
    }
    options.input.on("data", (chunk: unknown) => {
      if (chunk instanceof Uint8Array) lines.push(chunk)
      else if (typeof chunk === "string") lines.push(Buffer.from(chunk, "utf8"))
    })
    options.input.on("end", close)
    options.input.on("close", close)
    options.input.on("error", close)
    yield* Deferred.await(ended).pipe(Effect.ensuring(connection.close))
  })
