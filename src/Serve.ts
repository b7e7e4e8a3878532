/**
 * The service as one program (Program.ts): build the application from the configuration and serve
 * until the fiber is interrupted (a signal, under `NodeRuntime.runMain`). Draining (DECISIONS §7)
 * is the server's finalizer (Lifecycle/Drain.ts); `ShutdownSignals` (Lifecycle/Signals.ts) says
 * which signal came first. A start-up problem (configuration, catalogue, port) is one line on
 * stderr (Program.ts). Run by `npm start` (main.ts) and by `svc serve`.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { AppLive } from "./App.js"
import { flushCompileCache } from "./Lifecycle/CompileCache.js"
import { setForServing } from "./Lifecycle/Heap.js"
import { listenForSignals, ShutdownSignals } from "./Lifecycle/Signals.js"
import * as Program from "./Program.js"

const serveProgram = Program.make({ name: "pattern-analysis-service", logs: { stream: "stdout" } }, ({ config, logging }) =>
  Effect.gen(function*() {
    const app = AppLive(config).pipe(
      // Once serving: the heap's serving settings (Lifecycle/Heap.ts; the young generation's growth
      // was held during start-up), and the code compiled for start-up written to the compile cache
      // (Lifecycle/CompileCache.ts).
      Layer.tap(() =>
        Effect.sync(() => {
          setForServing()
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
      Effect.provide(logging)
    )
  }))

/** The service, listening for the shutdown signals (and exiting at once on a second one) from when it runs. */
export const serve: Effect.Effect<never, Program.StartFailure> = Effect.suspend(() =>
  Effect.provideService(serveProgram, ShutdownSignals, listenForSignals())
)
