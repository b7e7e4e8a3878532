/**
 * `npm run mcp` (and, once the CLI lands, `svc mcp`): the MCP surface over stdio. Same
 * configuration, Layers and providers as the service, no HTTP server. stdout carries the
 * protocol and nothing else: logs are JSON lines on stderr, and anything that would print to
 * stdout through `console` is sent to stderr too.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, Config, ConfigProvider, Effect, Layer } from "effect"
import { ResourcesLive, withoutRuntimeMetrics } from "./App.js"
import { appConfig, describeConfigError } from "./Config.js"
import { loggingLayer } from "./Observability/Logging.js"
import { McpCoreLive } from "./Surfaces/Mcp/Mcp.js"
import { serveStdio } from "./Surfaces/Mcp/Stdio.js"

// A dependency that prints with console.log must not corrupt the protocol stream.
console.log = console.error
console.info = console.error
console.debug = console.error

const program = Effect.gen(function*() {
  const config = yield* appConfig.pipe(Effect.mapError((error) => new Error(`invalid configuration:\n${describeConfigError(error)}`)))
  const apiKey = yield* Config.option(Config.redacted("SVC_API_KEY"))
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
      : Effect.sync(() => process.stderr.write(`pattern-analysis-service mcp: ${Cause.squash(cause) instanceof Error ? String(Cause.squash(cause)) : Cause.pretty(cause)}\n`))
  ),
  Effect.withConfigProvider(ConfigProvider.fromEnv()),
  withoutRuntimeMetrics
)

NodeRuntime.runMain(program, { disableErrorReporting: true, disablePrettyLogger: true })
