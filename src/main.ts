/**
 * Launch only: read the configuration, start the application, serve until a signal, drain
 * (DECISIONS §7). Start-up problems (configuration, catalogue, port) print one clear message
 * and exit 1.
 */
import * as HttpServer from "@effect/platform/HttpServer"
import {
  Cause,
  ConfigProvider,
  Context,
  Deferred,
  Duration,
  Effect,
  Exit,
  Layer,
  Metric,
  Option,
  Scope
} from "effect"
import { setFlagsFromString } from "node:v8"
import { AppLive, withoutRuntimeMetrics } from "./App.js"
import { appConfig, type AppConfigShape, describeConfigError } from "./Config.js"
import { RequestTracker, ServerHandle } from "./Lifecycle/Lifecycle.js"
import { Readiness } from "./Lifecycle/Readiness.js"
import { drainingGauge } from "./Observability/Metrics.js"
import { loggingLayer } from "./Observability/Logging.js"

type ShutdownSignal = "SIGTERM" | "SIGINT"

const fatal = (message: string): never => {
  process.stderr.write(`pattern-analysis-service: ${message}\n`)
  process.exit(1)
}

const program = Effect.gen(function*() {
  const config = yield* Effect.either(appConfig)
  if (config._tag === "Left") return fatal(`invalid configuration:\n${describeConfigError(config.left)}`)
  return yield* serve(config.right).pipe(Effect.provide(loggingLayer(config.right.logLevel)), withoutRuntimeMetrics)
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
  const handle = Context.get(context, ServerHandle)
  const tracker = Context.get(context, RequestTracker)
  yield* readiness.set("ready")
  // V8's default young-generation growth, held during start-up by boot.ts.
  setFlagsFromString("--semi-space-growth-factor=2")
  yield* Effect.logInfo("ready").pipe(
    Effect.annotateLogs({ address: HttpServer.formatAddress(server.address), startup_ms: Math.round(performance.now()) })
  )

  const signal = yield* Deferred.await(signalled)
  const signalledAt = Date.now()
  const since = () => Date.now() - signalledAt
  // 1. Readiness fails at once, so the orchestrator stops routing here.
  yield* readiness.set("draining")
  yield* Metric.set(drainingGauge, 1)
  yield* Effect.logInfo("draining").pipe(Effect.annotateLogs({ signal, in_flight: tracker.inFlight() }))
  const { drainDelay, shutdownGrace } = config.lifecycle
  // 2. Keep serving while routing moves. SIGINT is a person at a terminal: no delay.
  if (signal === "SIGTERM") yield* Effect.sleep(drainDelay)
  // 3. Stop accepting connections (idle keep-alive connections close too).
  handle.server.close()
  yield* Effect.logInfo("listener closed").pipe(Effect.annotateLogs({ since_signal_ms: since(), in_flight: tracker.inFlight() }))
  // 4. In-flight requests get the grace period to finish; then their connections are cut, which
  //    interrupts their fibers and aborts their upstream model calls.
  const finished = yield* tracker.idle.pipe(Effect.timeout(shutdownGrace), Effect.option)
  if (Option.isNone(finished)) {
    yield* Effect.logWarning("shutdown grace expired; cutting the requests still in flight").pipe(
      Effect.annotateLogs({ grace_seconds: Duration.toSeconds(shutdownGrace), in_flight: tracker.inFlight() })
    )
    handle.server.closeAllConnections()
    yield* tracker.idle.pipe(Effect.timeout("2 seconds"), Effect.option)
  }
  yield* Effect.logInfo("requests finished").pipe(Effect.annotateLogs({ since_signal_ms: since() }))
  // 5. Finalize the resources: SVC_HOME buffers are flushed, error reports sent.
  yield* Scope.close(scope, Exit.void).pipe(Effect.timeout("5 seconds"), Effect.option)
  yield* Effect.logInfo("stopped").pipe(Effect.annotateLogs({ since_signal_ms: since() }))
  process.exit(0)
})

Effect.runFork(program)
