/**
 * `bin/svc` → dist/cli.mjs: the `svc` command line (DECISIONS §14, docs/cli.md). Under
 * `NodeRuntime.runMain`: Ctrl-C or SIGTERM interrupts the command (model calls in flight are
 * aborted, a read that waits is given up) and ends it with 130 or 143; `svc serve` stopped by a
 * signal ends with 0, as `npm start`.
 * Colour: help, usage errors and progress are plain when NO_COLOR is set or the stream is not a
 * terminal; progress is drawn only when stderr is a terminal (and TERM is not dumb). What they
 * echo of the command line is escaped (Printable.ts): only the colours themselves reach the terminal.
 */
import * as CliCommand from "@effect/cli/Command"
import * as ValidationError from "@effect/cli/ValidationError"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, Console, Effect, Exit } from "effect"
import packageJson from "../package.json" with { type: "json" }
import { type CliState, makeSvc } from "./Surfaces/Cli/Commands.js"
import { EXIT } from "./Surfaces/Cli/Backend.js"
import { markStdin } from "./Surfaces/Cli/Input.js"
import { printableLines } from "./Surfaces/Cli/Printable.js"

const noColor = (process.env["NO_COLOR"] ?? "") !== ""
const stderrLive = process.stderr.isTTY === true && process.env["TERM"] !== "dumb"
const state: CliState = { live: stderrLive, color: stderrLive && !noColor, exitCode: EXIT.done, serving: false, stoppedBy: undefined }

/** The first signal that stops the process, for its exit code (runMain interrupts the command on either, then stops listening). */
const noteSignal = (signal: NodeJS.Signals) => {
  state.stoppedBy ??= signal === "SIGTERM" ? "SIGTERM" : "SIGINT"
  process.off("SIGINT", noteSignal)
  process.off("SIGTERM", noteSignal)
}
process.on("SIGINT", noteSignal)
process.on("SIGTERM", noteSignal)

/** A colour (SGR) sequence, captured: splitting on it leaves the colours at the odd indices. */
const COLOUR = new RegExp(`(${String.fromCharCode(27)}\\[[0-9;]*m)`)
/** Colours kept when `colour`, else dropped; any other control character escaped. */
const forTerminal = (colour: boolean) => (args: ReadonlyArray<unknown>) =>
  args.map((arg) =>
    typeof arg === "string" ? arg.split(COLOUR).map((part, index) => (index % 2 === 1 ? (colour ? part : "") : printableLines(part))).join("") : arg
  )
const stdoutArgs = forTerminal(process.stdout.isTTY === true && !noColor)
const stderrArgs = forTerminal(state.color)

/** @effect/cli prints help and usage errors through the Console, in colour: plain where colour is off. */
const console = Effect.map(Effect.console, (base): Console.Console => ({
  ...base,
  log: (...args) => base.log(...stdoutArgs(args)),
  info: (...args) => base.info(...stdoutArgs(args)),
  error: (...args) => base.error(...stderrArgs(args)),
  warn: (...args) => base.warn(...stderrArgs(args))
}))

const svc = CliCommand.run(makeSvc(state), { name: "svc", version: packageJson.version, executable: "svc" })

const program = Effect.flatMap(console, (withPlain) =>
  svc(markStdin(process.argv)).pipe(Effect.withConsole(withPlain), Effect.provide(NodeContext.layer)))

const exitCodeOf = <A, E>(exit: Exit.Exit<A, E>): number =>
  Exit.match(exit, {
    onSuccess: () => state.exitCode,
    onFailure: (cause) => {
      if (Cause.isInterruptedOnly(cause)) return state.serving ? EXIT.done : state.stoppedBy === "SIGTERM" ? EXIT.terminated : EXIT.interrupted
      const failure = Cause.failureOption(cause)
      // Usage errors: @effect/cli has printed what was wrong and the usage.
      if (failure._tag === "Some" && ValidationError.isValidationError(failure.value)) return EXIT.input
      process.stderr.write(`svc: unexpected failure:\n${printableLines(Cause.pretty(cause))}\n`)
      return EXIT.unexpected
    }
  })

NodeRuntime.runMain(program, {
  disableErrorReporting: true,
  disablePrettyLogger: true,
  teardown: (exit, onExit) => {
    const code = exitCodeOf(exit)
    process.exitCode = code
    onExit(code)
  }
})
