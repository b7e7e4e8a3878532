/** `svc diagnose`: the lenses triage picks for a trace, run and merged into one report. */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { maxSeverity } from "../../../Catalogue/Severity.js"
import type { DiagnoseReport } from "../../../Contract/DiagnoseReport.js"
import { OUTPUT_NAMES } from "../../../Registry/Derived.js"
import { DIAGNOSE_OUTPUTS } from "../../../Registry/Outputs.js"
import { intake, lensFields, lenses, optional, out, remote, run, traceFile } from "../CommonOptions.js"
import { EXIT } from "../ExitCodes.js"
import { failOn, reached } from "../FailOn.js"
import { commandHelp, EXIT_CODES } from "../Help.js"
import { artifactOf } from "../Input.js"
import { emit } from "../Output.js"
import { printable } from "../Printable.js"
import { printedOf, renderReport } from "../Report.js"
import { intakeOf, runCommand, type Terminal, trackRequest } from "../Running.js"

/** Whether an output's renderer shows the run's events (against a service, one more request fetches them). */
const showsEvents = (format: string): boolean => DIAGNOSE_OUTPUTS.some((output) => output.name === format && output.events)

/** The highest severity the report shows: its own and its findings'. */
const reportSeverity = (report: DiagnoseReport) => maxSeverity([report.severity, ...report.findings.map((finding) => finding.severity)])

/** Exit 3 when lenses were chosen and none of them ran. */
const noneRan = (report: DiagnoseReport): boolean => report.patterns.length > 0 && report.patterns.every((run) => run.error !== null)

export const makeDiagnose = (terminal: Terminal) =>
  Command.make(
    "diagnose",
    {
      file: traceFile,
      ...intake,
      ...run,
      ...lenses,
      format: Options.choice("format", OUTPUT_NAMES).pipe(
        Options.withDescription("The report's format (default markdown)."),
        Options.withDefault("markdown")
      ),
      artifact: optional(Options.text("artifact"), "The trace's path in the repository, for SARIF locations (default: FILE as given, or trace.json)."),
      out,
      failOn,
      ...remote
    },
    (options) =>
      runCommand(terminal, "diagnose", (progress) =>
        Effect.gen(function*() {
          const { backend, input, envelope } = yield* intakeOf(options, "diagnose", progress, lensFields(options))
          const answer = yield* trackRequest(
            progress,
            backend,
            "diagnose",
            backend.diagnose(envelope, showsEvents(options.format))
          )
          const artifact = Option.getOrElse(options.artifact, () => artifactOf(input.path))
          const rendered = yield* renderReport(options.format, {
            report: answer.report,
            context: { events: answer.events, artifact, body: input.text },
            body: answer.body
          })
          const text = printedOf(rendered)
          progress.stop()
          yield* emit(text, options.out)
          const report = answer.report
          const failed = report.patterns.filter((run) => run.error !== null)
          if (failed.length > 0) {
            const kinds = Array.from(new Set(failed.map((run) => run.error?.kind ?? "error")))
            process.stderr.write(`svc diagnose: ${failed.length} of ${report.patterns.length} lenses did not run (${printable(kinds.join(", "))}); the report says why\n`)
          }
          return reached(options.failOn, reportSeverity(report))
            ? EXIT.failOn
            : noneRan(report)
            ? EXIT.noAnalysis
            : EXIT.done
        }))
  ).pipe(
    Command.withDescription(
      commandHelp(
        "Diagnose a run: triage (by code, no model call) picks the patterns that fit the trace, they run concurrently, and one report merges them: the decisive step, findings corroborated across patterns, ranked interventions. Without a model provider the triage report is still written (every lens marked llm_resolution_error) and the exit code is 3.",
        [
          ["svc diagnose run.json", "the report as Markdown on standard output"],
          ["svc diagnose traces/failed-run.json --format sarif --out diagnose.sarif --fail-on high", "a CI step: SARIF for code scanning, exit 1 on a high finding"],
          ["svc diagnose run.jsonl --patterns lencioni,psych_safety --mode quick --format json", "two named patterns, quick mode"],
          ["svc diagnose run.json --format html --out report.html", "one self-contained HTML page"],
          ["svc diagnose run.json --url http://127.0.0.1:8000", "against a running service (same output)"]
        ],
        [EXIT_CODES]
      )
    )
  )
