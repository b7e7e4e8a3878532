/**
 * Launch only: read the configuration, build the application and serve until a signal
 * (`Layer.launch` under `NodeRuntime.runMain`). Draining (DECISIONS §7) is the server's
 * finalizer (Lifecycle/Drain.ts); Lifecycle/Signals.ts adds what the runtime's one signal
 * handler cannot express. Start-up problems (configuration, catalogue, port) print one clear
 * message and exit 1.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, ConfigProvider, Effect, Layer, Option } from "effect"
import { setFlagsFromString } from "node:v8"
import { AppLive, withoutRuntimeMetrics } from "./App.js"
import { appConfig, describeConfigError } from "./Config.js"
import { listenForSignals, ShutdownSignals } from "./Lifecycle/Signals.js"
import { loggingLayer } from "./Observability/Logging.js"

class StartupFailure {
  readonly _tag = "StartupFailure"
  constructor(readonly message: string) {}
}

/** The one line a failed start-up prints: the error's own message, never a stack. */
const describeFailure = (cause: Cause.Cause<unknown>): string =>
  Option.match(Cause.failureOption(cause), {
    onNone: () => Cause.pretty(cause),
    onSome: (error) =>
      error instanceof StartupFailure
        ? error.message
        : error instanceof Error && error.message.length > 0
        ? `could not start: ${error.message}`
        : typeof error === "object" && error !== null && "cause" in error
        ? `could not start: ${String(error)}: ${String(error.cause)}`
        : `could not start: ${String(error)}`
  })

const signals = listenForSignals()

const program = Effect.gen(function*() {
  const config = yield* appConfig.pipe(
    Effect.mapError((error) => new StartupFailure(`invalid configuration:\n${describeConfigError(error)}`))
  )
  const app = AppLive(config).pipe(
    // V8's default young-generation growth, held during start-up by boot.ts, once serving.
    Layer.tap(() => Effect.sync(() => setFlagsFromString("--semi-space-growth-factor=2")))
  )
  return yield* Layer.launch(app).pipe(
    Effect.onExit(() => {
      const received = signals.received()
      return Effect.logInfo("stopped").pipe(Effect.annotateLogs({ since_signal_ms: received === null ? 0 : Date.now() - received.at }))
    }),
    Effect.provide(loggingLayer(config.logLevel))
  )
}).pipe(
  Effect.tapErrorCause((cause) =>
    Cause.isInterruptedOnly(cause)
      ? Effect.void
      : Effect.sync(() => process.stderr.write(`pattern-analysis-service: ${describeFailure(cause)}\n`))
  ),
  Effect.provideService(ShutdownSignals, signals),
  Effect.withConfigProvider(ConfigProvider.fromEnv()),
  withoutRuntimeMetrics
)

NodeRuntime.runMain(program, { disableErrorReporting: true, disablePrettyLogger: true })
