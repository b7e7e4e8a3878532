/**
 * `svc runs submit`: trace files submitted as runs (DECISIONS §17), one request per file (a
 * directory: each of its files, by name), each trace of a file one run. In-process the runs wait in
 * the store for the workers of a `svc serve` on the same store; nothing is diagnosed here.
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import type { SubmitRunsResponse } from "../../../Contract/RunsContract.js"
import { CliFailure } from "../Backend.js"
import { intake, lensFields, lenses, optional, remote, run } from "../CommonOptions.js"
import { EXIT, exitCodeOfKind } from "../ExitCodes.js"
import { commandHelp } from "../Help.js"
import { envelopeOf, readHints, readTrace, traceFilesOf } from "../Input.js"
import { emit, pretty } from "../Output.js"
import { printable } from "../Printable.js"
import { setOwn } from "../../../Text.js"
import { backendOf, runCommand, selectOf, type Terminal } from "../Running.js"

/** `--label key=value`, repeated, as the request's labels (the service checks keys and values). */
const labelsOf = (pairs: ReadonlyArray<string>): Either.Either<Record<string, string> | undefined, CliFailure> => {
  if (pairs.length === 0) return Either.right(undefined)
  const labels: Record<string, string> = {}
  for (const pair of pairs) {
    const at = pair.indexOf("=")
    if (at < 1) return Either.left(new CliFailure({ kind: "usage", message: `--label must be key=value (got ${printable(JSON.stringify(pair.slice(0, 80)))})` }))
    setOwn(labels, pair.slice(0, at), pair.slice(at + 1))
  }
  return Either.right(labels)
}

const counted = (count: number, noun: string) => `${count} ${noun}${count === 1 ? "" : "s"}`

/** What one file came to: its runs and refused traces, or why the whole file was refused. */
type FileOutcome =
  | { readonly _tag: "Submitted"; readonly file: string; readonly answer: typeof SubmitRunsResponse.Type; readonly body: unknown }
  | { readonly _tag: "Refused"; readonly file: string; readonly failure: CliFailure }

export const makeRunsSubmit = (terminal: Terminal) =>
  Command.make(
    "submit",
    {
      target: Args.text({ name: "FILE|DIR" }).pipe(
        Args.withDescription("A trace file (JSON or JSON Lines; several traces make several runs), a directory of them, or - for standard input (the default)."),
        Args.optional
      ),
      ...intake,
      ...run,
      ...lenses,
      label: Options.text("label").pipe(Options.withDescription("A label of the runs, key=value (repeatable, up to 16)."), Options.repeated),
      externalId: optional(Options.text("external-id"), "Your own id for the run (one trace only), to find it with `svc runs list --external-id`."),
      json: Options.boolean("json").pipe(Options.withDescription("Print each file's answer as JSON ([{file, runs, rejected}]) instead of the run ids.")),
      ...remote
    },
    (options) =>
      runCommand(terminal, "runs submit", (progress) =>
        Effect.gen(function*() {
          const labels = yield* labelsOf(options.label)
          const backend = yield* backendOf(options, "svc runs submit", progress)
          const files = yield* traceFilesOf(Option.getOrElse(options.target, () => "-"))
          if (Option.isSome(options.externalId) && files.length > 1) {
            return yield* new CliFailure({ kind: "usage", message: `--external-id names one run, and ${files.length} files were given; submit them one by one` })
          }
          const hints = yield* readHints(options.hints, backend.readLimit)
          const fields = {
            format: Option.getOrUndefined(options.from),
            select: selectOf(options.select),
            hints: Option.getOrUndefined(hints),
            mode: Option.getOrUndefined(options.mode),
            model: Option.getOrUndefined(options.model),
            ...lensFields(options),
            labels,
            external_id: Option.getOrUndefined(options.externalId)
          }
          const outcomes: Array<FileOutcome> = []
          for (const [index, path] of files.entries()) {
            const file = path ?? "-"
            const submitted = yield* Effect.either(
              Effect.flatMap(readTrace(Option.fromNullable(path), backend.readLimit), (input) =>
                Effect.flatMap(envelopeOf(input.body, fields), (envelope) => backend.runs.submit(envelope, input.text)))
            )
            // A file the service refuses (or that cannot be read) is reported and the others go on;
            // anything else (no service, a key refused, the store down) stops the command.
            if (Either.isLeft(submitted) && exitCodeOfKind(submitted.left.kind) !== EXIT.input) return yield* submitted.left
            const outcome: FileOutcome = Either.match(submitted, {
              onLeft: (failure) => ({ _tag: "Refused", file, failure }),
              onRight: ({ value, body }) => ({ _tag: "Submitted", file, answer: value, body })
            })
            outcomes.push(outcome)
            const said = outcome._tag === "Submitted"
              ? `${counted(outcome.answer.runs.length, "run")}, ${outcome.answer.rejected.length} rejected`
              : `refused: ${outcome.failure.kind === "usage" ? "" : `${outcome.failure.kind}: `}${outcome.failure.message}`
            process.stderr.write(`${index + 1}/${files.length} ${printable(file)}: ${printable(said)}\n`)
            if (outcome._tag === "Submitted") {
              for (const rejected of outcome.answer.rejected.slice(0, 5)) {
                process.stderr.write(`  trace #${rejected.index}: ${printable(rejected.error)}: ${printable(rejected.message)}\n`)
              }
            }
          }
          const submitted = outcomes.flatMap((outcome) => (outcome._tag === "Submitted" ? [outcome] : []))
          const runs = submitted.flatMap((outcome) => outcome.answer.runs)
          const rejected = submitted.reduce((sum, outcome) => sum + outcome.answer.rejected.length, 0)
          const refusedFiles = outcomes.length - submitted.length
          const notes = [
            ...(rejected > 0 ? [`${counted(rejected, "trace")} rejected`] : []),
            ...(refusedFiles > 0 ? [`${counted(refusedFiles, "file")} refused`] : []),
            // In-process there are no workers (only `svc serve` starts them).
            ...(backend.where === "in-process" ? ["queued for the workers of a `svc serve` on the same store (the same SVC_HOME)"] : [])
          ]
          process.stderr.write(`svc runs submit: ${counted(runs.length, "run")} from ${counted(files.length, "file")}${notes.map((note) => `; ${note}`).join("")}\n`)
          const text = options.json
            ? pretty(outcomes.map((outcome) =>
              outcome._tag === "Submitted"
                ? { file: outcome.file, ...(Predicate.isRecord(outcome.body) ? outcome.body : {}) }
                : { file: outcome.file, error: { error: outcome.failure.kind, message: outcome.failure.message } }
            ))
            : runs.map((each) => `${each.id}\n`).join("")
          yield* emit(text, Option.none())
          return rejected > 0 || refusedFiles > 0 ? EXIT.input : EXIT.done
        }))
  ).pipe(
    Command.withDescription(
      commandHelp(
        "Submit traces as runs, diagnosed in the background: one request per file, one run per trace a file holds (the same trace with the same options is the existing run). Prints the run ids; each file's count goes to standard error. In-process (no --url) nothing is diagnosed: the runs wait in the store (SVC_HOME/svc.db) for the workers of a `svc serve` on the same store.",
        [
          ["svc runs submit run.json --url http://127.0.0.1:8000", "one run per trace of the file, on a running service"],
          ["svc runs submit traces/ --label team=billing --label env=ci --mode quick", "every file of a directory, with labels"],
          ["svc runs submit failed.json --external-id build-4711 --json", "with your own id, the answer as JSON"],
          ["cat export.jsonl | svc runs submit - --from langsmith", "from standard input"]
        ],
        [
          "Exit codes: 0 every trace became a run; 2 a file or a trace was refused (the others were submitted) or a usage error; 3 no service, the store or the rate limit; 70 unexpected failure."
        ]
      )
    )
  )
