/**
 * `svc mcp`: the MCP surface over stdio as one program. Same configuration, Layers and providers
 * as the service, no HTTP server. stdout carries the protocol and nothing else: logs are JSON
 * lines on stderr, and anything that would print to stdout through `console` is sent to stderr.
 */
import { Cause, ConfigProvider, Effect, Layer } from "effect"
import { ResourcesLive, withoutRuntimeMetrics } from "../../Resources.js"
import { callerSettings, InvalidConfiguration, loadConfig } from "../../Config.js"
import { loggingLayer } from "../../Observability/Logging.js"
import { McpCoreLive } from "./Mcp.js"
import { serveStdio } from "./Stdio.js"


/** Fails with the message already printed on stderr; `configuration`: the environment was invalid. */
export class McpStdioFailed {
  readonly _tag = "McpStdioFailed"
  constructor(readonly configuration: boolean) {}
}

export const mcpStdioProgram = Effect.gen(function*() {
  // A dependency that prints with console.log must not corrupt the protocol stream.
  console.log = console.error
  console.info = console.error
  console.debug = console.error
  const config = yield* loadConfig
  const apiKey = yield* callerSettings.apiKey
  const logging = loggingLayer(config.logLevel, "stderr")
  yield* serveStdio({ input: process.stdin, output: process.stdout, apiKey }).pipe(
    Effect.provide(McpCoreLive.pipe(Layer.provideMerge(ResourcesLive(config)), Layer.provide(logging))),
    Effect.provide(logging),
    Effect.scoped
  )
}).pipe(
  Effect.tapErrorCause((cause) =>
    Cause.isInterruptedOnly(cause)
      ? Effect.void
      : Effect.sync(() => {
        const failure = Cause.squash(cause)
        const said = failure instanceof InvalidConfiguration ? failure.message : failure instanceof Error ? String(failure) : Cause.pretty(cause)
        process.stderr.write(`svc mcp: ${said}\n`)
      })
  ),
  Effect.mapError((error) => new McpStdioFailed(error instanceof InvalidConfiguration)),
  Effect.withConfigProvider(ConfigProvider.fromEnv()),
  withoutRuntimeMetrics
)
