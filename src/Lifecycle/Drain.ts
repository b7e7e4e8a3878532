/**
 * Draining (DECISIONS §7), run as the finalizer of the listening server, so it runs whenever the
 * application closes: readiness fails at once; on SIGTERM requests keep being served for the
 * drain delay while routing moves; the listener closes; in-flight requests get the grace to
 * finish, then their connections are cut (which interrupts them and aborts their model calls).
 * The resources they use are finalized after this, by the layers outside the server.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { Server } from "node:http"
import { AppConfig } from "../Config.js"
import { markDraining } from "../Observability/Metrics.js"
import { RequestTracker } from "./Lifecycle.js"
import { Readiness } from "./Readiness.js"
import { ShutdownSignals } from "./Signals.js"

export const drain = (server: Server) =>
  Effect.gen(function*() {
    const readiness = yield* Readiness
    const tracker = yield* RequestTracker
    const { lifecycle } = yield* AppConfig
    const received = (yield* ShutdownSignals).received()
    const since = () => (received === null ? 0 : Date.now() - received.at)
    const idle = Effect.interruptible(tracker.idle)
    // 1. Readiness fails at once, so the orchestrator stops routing here.
    yield* readiness.set("draining")
    markDraining(1)
    yield* Effect.logInfo("draining").pipe(Effect.annotateLogs({ signal: received?.signal ?? "none", in_flight: yield* tracker.inFlight }))
    // 2. Keep serving while routing moves. SIGINT is a person at a terminal: no delay.
    if (received?.signal === "SIGTERM") yield* Effect.sleep(lifecycle.drainDelay)
    // 3. Stop accepting connections (idle keep-alive connections close too).
    server.close()
    yield* Effect.logInfo("listener closed").pipe(Effect.annotateLogs({ since_signal_ms: since(), in_flight: yield* tracker.inFlight }))
    // 4. In-flight requests get the grace period to finish; then their connections are cut.
    //    (A finalizer runs uninterruptibly: the wait is made interruptible so its timeout can end it.)
    const finished = yield* idle.pipe(Effect.timeout(lifecycle.shutdownGrace), Effect.option)
    if (Option.isNone(finished)) {
      yield* Effect.logWarning("shutdown grace expired; cutting the requests still in flight").pipe(
        Effect.annotateLogs({ grace_seconds: Duration.toSeconds(lifecycle.shutdownGrace), in_flight: yield* tracker.inFlight })
      )
      server.closeAllConnections()
      yield* idle.pipe(Effect.timeout("2 seconds"), Effect.option)
    }
    yield* Effect.logInfo("requests finished").pipe(Effect.annotateLogs({ since_signal_ms: since() }))
  })
