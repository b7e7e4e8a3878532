/**
 * The one launcher of every process of this package: `npm start` (main.ts), and through the `svc`
 * command line (cli.ts) `svc serve`, `svc mcp` over stdio and every other command. It owns what
 * they share:
 * - the configuration, read once from the environment through Config.ts (the only reader of SVC_
 *   variables), and the logging Layer made from it (`start`);
 * - a start failure's one line on stderr, `<program>: <why>`: an invalid configuration's message
 *   (each variable named), else `could not start: <the error's own message>` (`startFailureOf`,
 *   `make`); the `StartFailure` it fails with says whether the configuration was at fault, which
 *   chooses the exit code (`npm start` 1, `svc` 2 for the configuration, else 70);
 * - the runtime (`run`): `NodeRuntime.runMain`, which interrupts the program on the first SIGINT or
 *   SIGTERM, without Effect's per-fiber runtime metrics, the process's exit code decided once from
 *   how the program ended.
 * It loads nothing of the service itself (no HTTP server, no resources): `svc --version` and
 * `svc mcp` load it too.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Cause from "effect/Cause"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as RuntimeFlags from "effect/RuntimeFlags"
import * as RuntimeFlagsPatch from "effect/RuntimeFlagsPatch"
import { type AppConfigShape, callerSettings, InvalidConfiguration, loadConfig } from "./Config.js"
import { loggingLayer } from "./Observability/Logging.js"

/** What a program starts with. */
export interface Started {
  readonly config: AppConfigShape
  /** JSON log lines on the program's stream, at its level. */
  readonly logging: Layer.Layer<never>
}

/** Where a program's logs go. */
export interface Logs {
  /** stdout for the service; stderr where stdout carries a protocol (`svc mcp`) or a command's result. */
  readonly stream: "stdout" | "stderr"
  /** A command logs errors only unless SVC_LOG_LEVEL is set: a person at a terminal wants the result. */
  readonly errorsUnlessSet?: boolean
}

/** A program did not start (or stopped on an error); `configuration`: the environment was at fault. */
export class StartFailure extends Data.TaggedError("StartFailure")<{ readonly configuration: boolean; readonly message: string }> {}

/** The configuration, and the logging Layer for `logs`. */
export const start = (logs: Logs): Effect.Effect<Started, InvalidConfiguration> =>
  Effect.gen(function*() {
    const config = yield* loadConfig
    const quiet = logs.errorsUnlessSet === true && !(yield* callerSettings.logLevelSet.pipe(Effect.orElseSucceed(() => false)))
    return { config, logging: loggingLayer(quiet ? "error" : config.logLevel, logs.stream) }
  })

/** The error's own message, never a stack; a defect (no error the program expects) as Effect renders it. */
const reasonOf = (cause: Cause.Cause<unknown>): string =>
  Option.match(Cause.failureOption(cause), {
    onNone: () => Cause.pretty(cause),
    onSome: (error) =>
      error instanceof Error && error.message.length > 0
        ? error.message
        : typeof error === "object" && error !== null && "cause" in error
        ? `${String(error)}: ${String(error.cause)}`
        : String(error)
  })

/** Why a program did not start, as its one line says it. */
export const startFailureOf = (cause: Cause.Cause<unknown>): StartFailure => {
  const error = Option.getOrUndefined(Cause.failureOption(cause))
  if (error instanceof StartFailure) return error
  if (error instanceof InvalidConfiguration) return new StartFailure({ configuration: true, message: error.message })
  return new StartFailure({ configuration: false, message: `could not start: ${reasonOf(cause)}` })
}

/**
 * A program: its configuration and logging (`start`), then `main`. A failure, at start or later,
 * is printed once on stderr as `<name>: <why>` and the program fails with its `StartFailure`; an
 * interruption (a signal) passes through.
 */
export const make = <A, E, R>(
  options: { readonly name: string; readonly logs: Logs },
  main: (started: Started) => Effect.Effect<A, E, R>
): Effect.Effect<A, StartFailure, R> =>
  Effect.flatMap(start(options.logs), main).pipe(
    Effect.catchAllCause((cause) => {
      if (Cause.isInterruptedOnly(cause)) return Effect.interrupt
      const failure = startFailureOf(cause)
      return Effect.zipRight(Effect.sync(() => process.stderr.write(`${options.name}: ${failure.message}\n`)), Effect.fail(failure))
    })
  )

/**
 * Effect 3 runs with per-fiber runtime metrics on by default (effect_fiber_*): a tagged metric
 * update on every fiber start and end. They are off here; the service's own metrics are explicit.
 */
export const withoutRuntimeMetrics = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.withRuntimeFlagsPatch(effect, RuntimeFlagsPatch.disable(RuntimeFlags.RuntimeMetrics))

/** The process's exit code, from how its program ended. */
export type ExitCodeOf = <A, E>(exit: Exit.Exit<A, E>) => number

/** Node's own convention: 1 when the program failed, else 0 (a signal is how a service stops). */
const failedWith1: ExitCodeOf = (exit) => (Exit.isFailure(exit) && !Cause.isInterruptedOnly(exit.cause) ? 1 : 0)

/**
 * Runs the process's program until it ends or a signal interrupts it, then exits with
 * `exitCode(exit)`; by default 0, or 1 when it failed (`npm start`). The
 * program has printed its own failure (`make`): the runtime prints nothing more.
 */
export const run = <A, E>(program: Effect.Effect<A, E>, exitCode: ExitCodeOf = failedWith1): void =>
  NodeRuntime.runMain(program.pipe(Effect.withConfigProvider(ConfigProvider.fromEnv()), withoutRuntimeMetrics), {
    disableErrorReporting: true,
    disablePrettyLogger: true,
    teardown: (exit, onExit) => {
      const code = exitCode(exit)
      process.exitCode = code
      onExit(code)
    }
  })
