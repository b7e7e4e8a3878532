/**
 * Launch only: read the configuration, start the application, serve until a signal, drain
 * (DECISIONS §7). Start-up problems (configuration, catalogue, port) print one clear message
 * and exit 1.
 */
import { HttpServer } from "@effect/platform"
import { Cause, ConfigProvider, Context, Deferred, Duration, Effect, Exit, Layer, Option, Scope } from "effect"
import { AppLive } from "./App.js"
import { appConfig, type AppConfigShape, describeConfigError } from "./Config.js"
import { Readiness } from "./Lifecycle/Readiness.js"
import { loggingLayer } from "./Observability/Logging.js"

type ShutdownSignal = "SIGTERM" | "SIGINT"

const fatal = (message: string): never => {
  process.stderr.write(`pattern-analysis-service: ${message}\n`)
  process.exit(1)
}

const program = Effect.gen(function*() {
  const config = yield* Effect.either(appConfig)
  if (config._tag === "Left") return fatal(`invalid configuration:\n${describeConfigError(config.left)}`)
  return yield* serve(config.right).pipe(Effect.provide(loggingLayer(config.right.logLevel)))
}).pipe(Effect.withConfigProvider(ConfigProvider.fromEnv()))

const serve = (config: AppConfigShape) => Effect.gen(function*() {
  const signalled = yield* Deferred.make<ShutdownSignal>()
  let signals = 0
  const onSignal = (signal: ShutdownSignal) => () => {
    signals += 1
    if (signals > 1) {
      process.stderr.write(`pattern-analysis-service: second ${signal}, exiting now\n`)
      process.exit(1)
    }
    Effect.runFork(Deferred.succeed(signalled, signal))
  }
  process.on("SIGTERM", onSignal("SIGTERM"))
  process.on("SIGINT", onSignal("SIGINT"))

  const scope = yield* Scope.make()
  const built = yield* Layer.buildWithScope(AppLive(config), scope).pipe(Effect.exit)
  if (Exit.isFailure(built)) {
    const failure = Cause.failureOption(built.cause)
    const message = Option.match(failure, {
      onNone: () => Cause.pretty(built.cause),
      onSome: (error) =>
        error instanceof Error && error.message.length > 0
          ? error.message
          : typeof error === "object" && error !== null && "cause" in error
          ? `${String(error)}: ${String(error.cause)}`
          : String(error)
    })
    return fatal(`could not start: ${message}`)
  }
  const context = built.value
  const readiness = Context.get(context, Readiness)
  const server = Context.get(context, HttpServer.HttpServer)
  yield* readiness.set("ready")
  yield* Effect.logInfo("ready").pipe(Effect.annotateLogs({ address: HttpServer.formatAddress(server.address) }))

  const signal = yield* Deferred.await(signalled)
  yield* readiness.set("draining")
  const { drainDelay, shutdownGrace } = config.lifecycle
  yield* Effect.logInfo("draining").pipe(Effect.annotateLogs({ signal }))
  // SIGINT is a person at a terminal: skip the delay that lets an orchestrator re-route traffic.
  if (signal === "SIGTERM") yield* Effect.sleep(drainDelay)
  const closed = yield* Scope.close(scope, Exit.void).pipe(Effect.timeout(shutdownGrace), Effect.either)
  if (closed._tag === "Left") {
    yield* Effect.logWarning("shutdown grace expired; in-flight requests are cut").pipe(
      Effect.annotateLogs({ grace_seconds: Duration.toSeconds(shutdownGrace) })
    )
  }
  yield* Effect.logInfo("stopped")
  process.exit(0)
})

Effect.runFork(program)
