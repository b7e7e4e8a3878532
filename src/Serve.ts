/**
 * The service as one program: read the configuration, build the application and serve until the
 * fiber is interrupted (a signal, under `NodeRuntime.runMain`). Draining (DECISIONS §7) is the
 * server's finalizer (Lifecycle/Drain.ts); `ShutdownSignals` (Lifecycle/Signals.ts) says which
 * signal came first. Start-up problems (configuration, catalogue, port) print one clear message
 * and fail. Run by `npm start` (main.ts) and by `svc serve`.
 */
import { Cause, ConfigProvider, Effect, Layer, Option } from "effect"
import { setFlagsFromString } from "node:v8"
import { AppLive } from "./App.js"
import { withoutRuntimeMetrics } from "./Resources.js"
import { loadConfig } from "./Config.js"
import { flushCompileCache } from "./Lifecycle/CompileCache.js"
import { ShutdownSignals } from "./Lifecycle/Signals.js"
import { loggingLayer } from "./Observability/Logging.js"

class StartupFailure {
  readonly _tag = "StartupFailure"
  constructor(readonly message: string) {}
}

/** The service did not start (or stopped on an error); its one line is printed on stderr. */
export class ServeFailed {
  readonly _tag = "ServeFailed"
  constructor(readonly configuration: boolean) {}
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

export const serveProgram = Effect.gen(function*() {
  const config = yield* Effect.mapError(loadConfig, (error) => new StartupFailure(error.message))
  const app = AppLive(config).pipe(
    // Once serving: V8's default young-generation growth, held during start-up by boot.ts, and the
    // code compiled for start-up written to the compile cache (Lifecycle/CompileCache.ts).
    Layer.tap(() =>
      Effect.sync(() => {
        setFlagsFromString("--semi-space-growth-factor=2")
        flushCompileCache()
      })
    )
  )
  const signals = yield* ShutdownSignals
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
  Effect.mapError((error) => new ServeFailed(error instanceof StartupFailure)),
  Effect.withConfigProvider(ConfigProvider.fromEnv()),
  withoutRuntimeMetrics
)
