/** `svc analyze`: one pattern over a trace, its detection as JSON or Markdown. */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { Detection } from "../../../Catalogue/Detection.js"
import { maxSeverity } from "../../../Catalogue/Severity.js"
import { intake, optional, out, remote, run, traceFile } from "../CommonOptions.js"
import { EXIT } from "../ExitCodes.js"
import { failOn, reached } from "../FailOn.js"
import { commandHelp, EXIT_CODES } from "../Help.js"
import { emit, pretty, withNewline } from "../Output.js"
import { intakeOf, runCommand, type Terminal, trackRequest } from "../Running.js"

/** The highest severity a detection shows: its own and its findings'. */
const detectionSeverity = (detection: Detection) => maxSeverity([detection.severity, ...detection.findings.map((finding) => finding.severity)])

export const makeAnalyze = (terminal: Terminal) =>
  Command.make(
    "analyze",
    {
      pattern: Args.text({ name: "PATTERN" }).pipe(Args.withDescription("The pattern's name (`svc patterns` lists them).")),
      file: traceFile,
      ...intake,
      ...run,
      baseline: optional(Options.text("baseline"), "Compare with (and update) this stored baseline."),
      format: Options.choice("format", ["json", "markdown"]).pipe(Options.withDescription("The output (default json)."), Options.withDefault("json")),
      out,
      failOn,
      ...remote
    },
    (options) =>
      runCommand(terminal, "analyze", (progress) =>
        Effect.gen(function*() {
          const { backend, envelope } = yield* intakeOf(options, "analyze", progress, { baseline: Option.getOrUndefined(options.baseline) })
          const { answer, body } = yield* trackRequest(progress, backend, options.pattern, backend.analyze(options.pattern, envelope))
          const text = options.format === "json"
            ? pretty(body)
            : withNewline((yield* Effect.promise(() => import("../../../Diagnose/Render/AnalysisMarkdown.js"))).renderAnalysisMarkdown(answer))
          progress.stop()
          yield* emit(text, options.out)
          return reached(options.failOn, detectionSeverity(answer.detection)) ? EXIT.failOn : EXIT.done
        }))
  ).pipe(
    Command.withDescription(
      commandHelp(
        "Run one pattern over a trace and print its detection: severity, findings quoted from the run (each quote checked against the trace), interventions from the pattern's playbooks.",
        [
          ["svc analyze lewin run.json", "a trace file in any supported format, the detection as JSON"],
          ["svc analyze lencioni run.jsonl --from langsmith --mode quick --format markdown", "a LangSmith export, read as Markdown"],
          ["cat run.json | svc analyze yerkes_dodson - --hints '{\"pressure\":0.8}'", "from standard input, with a hint"],
          ["svc analyze lewin run.json --url http://127.0.0.1:8000 --api-key $KEY", "against a running service"]
        ],
        [EXIT_CODES]
      )
    )
  )
