/** `svc normalize`: a trace as every pattern reads it. */
import * as Command from "@effect/cli/Command"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { intake, remote, traceFile } from "../CommonOptions.js"
import { EXIT } from "../ExitCodes.js"
import { commandHelp } from "../Help.js"
import { emit, pretty } from "../Output.js"
import { intakeOf, runCommand, type Terminal, trackRequest } from "../Running.js"

export const makeNormalize = (terminal: Terminal) =>
  Command.make(
    "normalize",
    { file: traceFile, from: intake.from, select: intake.select, maxBytes: intake.maxBytes, ...remote },
    (options) =>
      runCommand(terminal, "normalize", (progress) =>
        Effect.gen(function*() {
          const { backend, envelope } = yield* intakeOf(options, "normalize", progress)
          const normalized = yield* trackRequest(progress, backend, "normalize", backend.normalize(envelope))
          progress.stop()
          yield* emit(pretty(normalized), Option.none())
          return EXIT.done
        }))
  ).pipe(
    Command.withDescription(
      commandHelp(
        "Print a trace as every pattern reads it: the format detected, the ordered events with their source pointers, history repeated across model calls de-duplicated. No model call.",
        [
          ["svc normalize run.json", "see what the service reads of a trace"],
          ["svc normalize export.jsonl --from langsmith --select 2", "the third trace of a LangSmith export"]
        ]
      )
    )
  )
