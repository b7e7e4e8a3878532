/**
 * What every reading command does around its own work: choose where it runs (in this process,
 * Local.ts, or against a service with --url, Remote.ts), read the trace into a request body, draw
 * progress on stderr, print a failure as one line and end with the exit code it chose.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import { callerSettings } from "../../Config.js"
import type { StartFailure } from "../../Program.js"
import { type Backend, CliFailure } from "./Backend.js"
import { type CommandEnded, endWith, EXIT, type ExitCode, exitCodeOfKind } from "./ExitCodes.js"
import { envelopeOf, readHints, readTrace } from "./Input.js"
import { printable, printableLines } from "./Printable.js"
import { makeProgress, type ProgressView } from "./Progress.js"

/** What the commands know of the terminal they run in. */
export interface Terminal {
  /** stderr is a terminal (and TERM is not dumb): progress is drawn. */
  readonly live: boolean
  /** NO_COLOR is unset and the stream is a terminal. */
  readonly color: boolean
}

/** `--select`: an index when it is all digits, else a trace's id. */
export const selectOf = (value: Option.Option<string>): string | number | undefined =>
  Option.match(value, { onNone: () => undefined, onSome: (raw) => (/^\d+$/.test(raw) ? Number(raw) : raw) })

/** The API key: --api-key, else SVC_API_KEY. */
const apiKeyOf = (flag: Option.Option<Redacted.Redacted>) =>
  Option.isSome(flag)
    ? Effect.succeed(flag)
    : callerSettings.apiKey.pipe(Effect.orElseSucceed(() => Option.none<Redacted.Redacted>()))

/** In this process, or the service at --url; the backend's code is loaded once chosen. */
export const backendOf = (
  remoteOptions: {
    readonly url: Option.Option<string>
    readonly apiKey: Option.Option<Redacted.Redacted>
    /** --max-bytes: what a trace file may hold (and, in-process, what the service takes). */
    readonly maxBytes?: Option.Option<number>
  },
  command: string,
  progress: ProgressView
) =>
  Effect.gen(function*() {
    const apiKey = yield* apiKeyOf(remoteOptions.apiKey)
    if (Option.isSome(remoteOptions.url)) {
      const url = remoteOptions.url.value
      if (!/^https?:\/\/[^\s/]+/.test(url)) return yield* new CliFailure({ kind: "usage", message: `--url must be an http:// or https:// address (got ${printable(JSON.stringify(url.slice(0, 80)))})` })
      const { makeRemoteBackend } = yield* Effect.promise(() => import("./Remote.js"))
      return yield* makeRemoteBackend({ url, apiKey, maxBytes: remoteOptions.maxBytes ?? Option.none() })
    }
    const { makeLocalBackend } = yield* Effect.promise(() => import("./Local.js"))
    return yield* makeLocalBackend({ apiKey, command, progress: progress.listener, maxBytes: remoteOptions.maxBytes ?? Option.none() })
  })

/** The options every trace-reading command shares (analyze and diagnose add mode, model and hints). */
export interface TraceOptions {
  readonly file: Option.Option<string>
  readonly from: Option.Option<string>
  readonly select: Option.Option<string>
  readonly maxBytes: Option.Option<number>
  readonly hints?: Option.Option<string>
  readonly mode?: Option.Option<string>
  readonly model?: Option.Option<string>
  readonly url: Option.Option<string>
  readonly apiKey: Option.Option<Redacted.Redacted>
}

/** Where the command runs, the trace it reads and the request body for it (`extra`: the command's own options). */
export const intakeOf = (options: TraceOptions, command: string, progress: ProgressView, extra: Readonly<Record<string, unknown>> = {}) =>
  Effect.gen(function*() {
    const backend = yield* backendOf(options, `svc ${command}`, progress)
    const input = yield* readTrace(options.file, backend.readLimit)
    const hints = options.hints === undefined ? Option.none() : yield* readHints(options.hints, backend.readLimit)
    const envelope = yield* envelopeOf(input.body, {
      format: Option.getOrUndefined(options.from),
      select: selectOf(options.select),
      hints: Option.getOrUndefined(hints),
      mode: options.mode === undefined ? undefined : Option.getOrUndefined(options.mode),
      model: options.model === undefined ? undefined : Option.getOrUndefined(options.model),
      ...extra
    })
    return { backend, input, envelope }
  })

/** Against a service, the request is one line with its elapsed time. */
export const trackRequest = <A>(progress: ProgressView, backend: Backend, label: string, effect: Effect.Effect<A, CliFailure>) => {
  if (backend.where === "in-process") return effect
  const line = progress.request(`${label} → ${backend.where}`)
  return effect.pipe(Effect.onExit((exit) => Effect.sync(() => line.end(exit._tag === "Failure"))))
}

/**
 * Runs one command's work with progress drawn on stderr and ends with the exit code it returns; a
 * failure is printed there as `svc <command>: <kind>: <message>` and its kind chooses the exit
 * code. The message is made printable as a whole: names are escaped where they are quoted, and
 * whatever else a message quotes (a service's answer, a trace's field) cannot reach the terminal
 * raw either.
 */
export const runCommand = (
  terminal: Terminal,
  command: string,
  work: (progress: ProgressView) => Effect.Effect<ExitCode, CliFailure, Scope.Scope>
): Effect.Effect<never, CommandEnded> =>
  Effect.gen(function*() {
    const progress = makeProgress({ live: terminal.live, color: terminal.color, stream: process.stderr })
    const code = yield* work(progress).pipe(
      Effect.ensuring(Effect.sync(() => progress.stop())),
      Effect.catchAll((failure) =>
        Effect.sync(() => {
          const label = failure.kind === "usage" || failure.kind === "unexpected" ? "" : `${failure.kind}: `
          process.stderr.write(`svc ${command}: ${printable(label)}${printableLines(failure.message)}\n`)
          return exitCodeOfKind(failure.kind)
        })
      ),
      Effect.scoped
    )
    return yield* endWith(code)
  })

/**
 * `svc serve` and `svc mcp` print their own start failure (Program.ts): an invalid configuration
 * exits 2, as a usage error, anything else 70.
 */
export const endProgram = <A, R>(program: Effect.Effect<A, StartFailure, R>): Effect.Effect<never, CommandEnded, R> =>
  Effect.matchEffect(program, {
    onFailure: (failure) => endWith(failure.configuration ? EXIT.input : EXIT.unexpected),
    onSuccess: () => endWith(EXIT.done)
  })
