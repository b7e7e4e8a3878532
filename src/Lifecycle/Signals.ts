/**
 * Shutdown signals (DECISIONS §7). The runtime (`NodeRuntime.runMain`) interrupts the application
 * on the first SIGTERM or SIGINT, and its finalizers drain (Drain.ts). What the runtime's single
 * handler cannot express is recorded here: which signal came first (SIGINT, a person at a
 * terminal, skips the drain delay) and when, and a second signal, which exits at once with 1.
 */
import * as Context from "effect/Context"

export type ShutdownSignal = "SIGTERM" | "SIGINT"

export interface ReceivedSignal {
  readonly signal: ShutdownSignal
  readonly at: number
}

export interface ShutdownSignalsShape {
  /** The first shutdown signal, or null (also when the application is closed without one). */
  readonly received: () => ReceivedSignal | null
}

export class ShutdownSignals extends Context.Reference<ShutdownSignals>()("ShutdownSignals", {
  defaultValue: (): ShutdownSignalsShape => ({ received: () => null })
}) {}

/** Listens for SIGTERM and SIGINT for the life of the process. */
export const listenForSignals = (): ShutdownSignalsShape => {
  let received: ReceivedSignal | null = null
  const on = (signal: ShutdownSignal) => () => {
    if (received !== null) {
      process.stderr.write(`pattern-analysis-service: second ${signal}, exiting now\n`)
      process.exit(1)
    }
    received = { signal, at: Date.now() }
  }
  process.on("SIGTERM", on("SIGTERM"))
  process.on("SIGINT", on("SIGINT"))
  return { received: () => received }
}
