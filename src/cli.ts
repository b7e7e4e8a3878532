/**
 * `bin/svc` → dist/cli.mjs (cliBoot.ts) → this: the `svc` command line (DECISIONS §14, docs/cli.md),
 * run by the one launcher (Program.ts), as `npm start` is. Under `NodeRuntime.runMain`: Ctrl-C or
 * SIGTERM interrupts the command (model calls in flight are aborted, a read that waits is given
 * up) and ends it with 130 or 143; `svc serve` stopped by a signal ends with 0, as `npm start`.
 * Colour: help, usage errors and progress are plain when NO_COLOR is set or the stream is not a
 * terminal; progress is drawn only when stderr is a terminal (and TERM is not dumb). What they
 * echo of the command line is escaped (Printable.ts): only the colours themselves reach the terminal.
 */
import * as CliCommand from "@effect/cli/Command"
import * as ValidationError from "@effect/cli/ValidationError"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Cause from "effect/Cause"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import packageJson from "../package.json" with { type: "json" }
import * as Program from "./Program.js"
import { CommandEnded, EXIT, type ExitCode } from "./Surfaces/Cli/ExitCodes.js"
import { markStdin } from "./Surfaces/Cli/Input.js"
import { printableLines } from "./Surfaces/Cli/Printable.js"
import { makeSvc } from "./Surfaces/Cli/Svc.js"
import type { Terminal } from "./Surfaces/Cli/Running.js"

const noColor = (process.env["NO_COLOR"] ?? "") !== ""
const stderrLive = process.stderr.isTTY === true && process.env["TERM"] !== "dumb"
const terminal: Terminal = { live: stderrLive, color: stderrLive && !noColor }

/**
 * How a signal ends the process: the one ending that is not a command's value, since a signal
 * interrupts the command and an interrupted effect returns nothing. The first signal that stops the
 * process (runMain interrupts the command on either, then stops listening) ends it with 130 or 143,
 * or with 0 once `svc serve` runs the service (a signal is how a service is meant to stop).
 */
let stoppedBy: "SIGINT" | "SIGTERM" | undefined
let serving = false
const noteSignal = (signal: NodeJS.Signals) => {
  stoppedBy ??= signal === "SIGTERM" ? "SIGTERM" : "SIGINT"
  process.off("SIGINT", noteSignal)
  process.off("SIGTERM", noteSignal)
}
process.on("SIGINT", noteSignal)
process.on("SIGTERM", noteSignal)

/** A colour (SGR) sequence, captured: splitting on it leaves the colours at the odd indices. */
const COLOUR = new RegExp(`(${String.fromCharCode(27)}\\[[0-9;]*m)`)
/** Colours kept when `colour`, else dropped; every other control character escaped. */
const forTerminal = (colour: boolean) => (args: ReadonlyArray<unknown>) =>
  args.map((arg) =>
    typeof arg === "string" ? arg.split(COLOUR).map((part, index) => (index % 2 === 1 ? (colour ? part : "") : printableLines(part))).join("") : arg
  )
const stdoutArgs = forTerminal(process.stdout.isTTY === true && !noColor)
const stderrArgs = forTerminal(terminal.color)

/** @effect/cli prints help and usage errors through the Console, in colour: plain where colour is off. */
const console = Effect.map(Effect.console, (base): Console.Console => ({
  ...base,
  log: (...args) => base.log(...stdoutArgs(args)),
  info: (...args) => base.info(...stdoutArgs(args)),
  error: (...args) => base.error(...stderrArgs(args)),
  warn: (...args) => base.warn(...stderrArgs(args))
}))

/** `svc serve`: the service as `npm start` runs it (Serve.ts, loaded only by this command). */
const serve = Effect.gen(function*() {
  const { holdForStartUp } = yield* Effect.promise(() => import("./Lifecycle/Heap.js"))
  // As boot.ts does for `npm start`: young-generation growth held until the service is ready.
  holdForStartUp()
  const loaded = yield* Effect.promise(() => import("./Serve.js"))
  serving = true
  return yield* loaded.serve
})

const svc = CliCommand.run(makeSvc(terminal, serve), { name: "svc", version: packageJson.version, executable: "svc" })

const program = Effect.flatMap(console, (withPlain) =>
  svc(markStdin(process.argv)).pipe(Effect.withConsole(withPlain), Effect.provide(NodeContext.layer)))

/**
 * The process's exit code, decided once from how the program ended: a signal, the ending a command
 * chose (CommandEnded), a usage error, or a defect. Help, --version and --completions succeed.
 */
const exitCodeOf = <A, E>(exit: Exit.Exit<A, E>): ExitCode =>
  Exit.match(exit, {
    onSuccess: () => EXIT.done,
    onFailure: (cause) => {
      if (Cause.isInterruptedOnly(cause)) return serving ? EXIT.done : stoppedBy === "SIGTERM" ? EXIT.terminated : EXIT.interrupted
      const failure = Cause.failureOption(cause)
      if (Option.isSome(failure) && failure.value instanceof CommandEnded) return failure.value.code
      // Usage errors: @effect/cli has printed what was wrong and the usage.
      if (Option.isSome(failure) && ValidationError.isValidationError(failure.value)) return EXIT.input
      process.stderr.write(`svc: unexpected failure:\n${printableLines(Cause.pretty(cause))}\n`)
      return EXIT.unexpected
    }
  })

Program.run(program, exitCodeOf)
