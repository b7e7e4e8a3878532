/**
 * `svc check FILE…`: the deterministic checks (DECISIONS §23) on one or more trace files, as
 * `POST /v1/checks` answers them: no lens, no model, so it runs the same with or without a provider.
 * One request per file; a file the service refuses (or that cannot be read) is reported on stderr
 * and the others go on; anything else (no service, a key refused) stops the command.
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { type CheckedFile, CHECK_OUTPUT_NAMES, loadChecksRenderer } from "../../../Diagnose/Render/Outputs.js"
import { CliFailure } from "../Backend.js"
import { intake, out, remote } from "../CommonOptions.js"
import { EXIT, exitCodeOfKind } from "../ExitCodes.js"
import { failOn, reached } from "../FailOn.js"
import { commandHelp } from "../Help.js"
import { artifactOf, envelopeOf, isStdin, readTrace } from "../Input.js"
import { emit } from "../Output.js"
import { printable } from "../Printable.js"
import { printedOf } from "../Report.js"
import { backendOf, runCommand, selectOf, type Terminal, trackRequest } from "../Running.js"

const counted = (count: number, noun: string) => `${count} ${noun}${count === 1 ? "" : "s"}`

export const makeCheck = (terminal: Terminal) =>
  Command.make(
    "check",
    {
      files: Args.text({ name: "FILE" }).pipe(
        Args.withDescription("Trace files (JSON or JSON Lines), each checked on its own; - or nothing reads standard input."),
        Args.repeated
      ),
      from: intake.from,
      select: intake.select,
      maxBytes: intake.maxBytes,
      format: Options.choice("format", CHECK_OUTPUT_NAMES).pipe(
        Options.withDescription("The output (default markdown): json (one file: the service's answer; several: a list with each file), markdown, sarif (a run per file), otlp."),
        Options.withDefault("markdown")
      ),
      out,
      failOn,
      ...remote
    },
    (options) =>
      runCommand(terminal, "check", (progress) =>
        Effect.gen(function*() {
          const paths = options.files.length === 0 ? [undefined] : options.files.map((file) => (isStdin(file) ? undefined : file))
          if (paths.filter((path) => path === undefined).length > 1) {
            return yield* new CliFailure({ kind: "usage", message: "standard input (-) can be read once; name it once" })
          }
          const backend = yield* backendOf(options, "svc check", progress)
          const fields = { format: Option.getOrUndefined(options.from), select: selectOf(options.select) }
          const checked: Array<CheckedFile> = []
          let refused = 0
          for (const [index, path] of paths.entries()) {
            const file = path ?? "-"
            const answer = yield* Effect.either(
              Effect.flatMap(readTrace(Option.fromNullable(path), backend.readLimit), (input) =>
                Effect.flatMap(envelopeOf(input.body, fields), (envelope) =>
                  Effect.map(trackRequest(progress, backend, "check", backend.check(envelope)), (served) => ({ input, served }))))
            )
            // A file the service refuses is this file's failure; anything else is the command's.
            if (Either.isLeft(answer) && exitCodeOfKind(answer.left.kind) !== EXIT.input) return yield* answer.left
            const said = Either.match(answer, {
              onLeft: (failure) => {
                refused += 1
                return `refused: ${failure.kind === "usage" ? "" : `${failure.kind}: `}${failure.message}`
              },
              onRight: ({ input, served }) => {
                checked.push({
                  file,
                  result: served.value,
                  body: served.body,
                  context: { events: [], artifact: artifactOf(input.path), body: input.text }
                })
                return `${served.value.severity}, ${counted(served.value.checks.length, "check")} fired`
              }
            })
            if (paths.length > 1 || Either.isLeft(answer)) process.stderr.write(`${paths.length > 1 ? `${index + 1}/${paths.length} ` : ""}${printable(file)}: ${printable(said)}\n`)
          }
          progress.stop()
          if (checked.length > 0) {
            const render = yield* Effect.promise(() => loadChecksRenderer(options.format))
            const at = new Date(yield* Clock.currentTimeMillis).toISOString()
            yield* emit(printedOf(render(checked, { at, several: paths.length > 1 })), options.out)
          }
          // A finding at or above --fail-on is what a CI step asks about; a refused file otherwise.
          return checked.some(({ result }) => reached(options.failOn, result.severity))
            ? EXIT.failOn
            : refused > 0
            ? EXIT.input
            : EXIT.done
        }))
  ).pipe(
    Command.withDescription(
      commandHelp(
        "Run the deterministic checks on trace files (a tool error the run carried on past, a success claimed after an error, ...): each finding cites the events it rests on. No lens runs and no model is called, in-process or with --url; works on traces without message content.",
        [
          ["svc check run.json", "the checks' findings as Markdown"],
          ["svc check traces/*.json --format sarif --out checks.sarif --fail-on medium", "a CI step: SARIF for code scanning, exit 1 when a file has a finding of medium or above"],
          ["svc check run.otlp.json --format json --url http://127.0.0.1:8000", "against a running service (POST /v1/checks)"]
        ],
        [
          "Exit codes: 0 done; 1 a file's checks reached --fail-on; 2 a usage error, or a file refused (unreadable, not a trace; the others are checked) and nothing reached --fail-on; 3 no service at --url, or the rate limit; 70 unexpected failure."
        ]
      )
    )
  )
