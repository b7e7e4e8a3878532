/**
 * `svc runs`: the runs of DECISIONS §17 (submitted once, diagnosed in the background by the
 * workers of `svc serve`): submit (RunsSubmit.ts), list, show, wait, retry, export and import. In
 * this process they read and write the store of SVC_HOME (svc.db) with no workers of their own;
 * with --url, a running service's runs.
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import { SEVERITY_SCALE } from "../../../Catalogue/Severity.js"
import type { Run } from "../../../Contract/RunsContract.js"
import { RunFilterParams } from "../../../Contract/Queries.js"
import { MAX_PAGE, RunStatus } from "../../../Contract/Statuses.js"
import { OUTPUT_NAMES } from "../../../Registry/Derived.js"
import { CliFailure, decodeFlags, IMPORT_IS_LOCAL } from "../Backend.js"
import { optional, out, remote } from "../CommonOptions.js"
import { EXIT } from "../ExitCodes.js"
import { failOn, reached } from "../FailOn.js"
import { commandHelp } from "../Help.js"
import { readText } from "../Input.js"
import { emit, pretty } from "../Output.js"
import { printable } from "../Printable.js"
import { printedOf } from "../Report.js"
import { backendOf, runCommand, type Terminal, trackRequest } from "../Running.js"
import { makeRunsSubmit } from "./RunsSubmit.js"

const runId = Args.text({ name: "ID" }).pipe(Args.withDescription("A run's id (`svc runs list` shows them)."))

/** The filters of `GET /v1/runs` and of the export, as options. */
const filters = {
  status: optional(Options.choice("status", RunStatus.literals), "Only runs in this state."),
  severity: optional(Options.choice("severity", SEVERITY_SCALE), "Only done runs of this severity."),
  pattern: optional(Options.text("pattern"), "Only done runs with a finding of this pattern."),
  problem: optional(Options.text("problem"), "Only the runs of this problem (its id, as `svc problems list` shows it)."),
  label: optional(Options.text("label"), "Only runs with this label, as key:value."),
  externalId: optional(Options.text("external-id"), "The run with this external id."),
  since: optional(Options.text("since"), "Submitted at or after this time (ISO-8601, e.g. 2025-06-01 or 2025-06-01T12:00:00Z)."),
  until: optional(Options.text("until"), "Submitted before this time (ISO-8601).")
}

interface FilterOptions {
  readonly status: Option.Option<string>
  readonly severity: Option.Option<string>
  readonly pattern: Option.Option<string>
  readonly problem: Option.Option<string>
  readonly label: Option.Option<string>
  readonly externalId: Option.Option<string>
  readonly since: Option.Option<string>
  readonly until: Option.Option<string>
}

/** The filter options decoded by the contract's query schema (RunFilterParams), as `GET /v1/runs` decodes its query: a refusal is its 400. */
const filterQuery = (options: FilterOptions) => {
  const query: { -readonly [Key in "status" | "severity" | "pattern" | "problem" | "label" | "external_id" | "since" | "until"]?: string } = {}
  const set = (key: keyof typeof query, value: Option.Option<string>) => {
    if (Option.isSome(value)) query[key] = value.value
  }
  set("status", options.status)
  set("severity", options.severity)
  set("pattern", options.pattern)
  set("problem", options.problem)
  set("label", options.label)
  set("external_id", options.externalId)
  set("since", options.since)
  set("until", options.until)
  return decodeFlags(RunFilterParams, query)
}

/** A run as a row: id, state, severity, submitted, labels. */
const runTable = (runs: ReadonlyArray<Run>): string => {
  const rows = runs.map((run) => [
    run.id,
    run.status === "skipped" && run.reason !== null ? `skipped:${run.reason}` : run.status,
    run.severity ?? "-",
    run.submitted_at,
    Object.entries(run.labels).map(([key, value]) => `${key}=${value}`).join(",")
  ] as const)
  const width = (index: 0 | 1 | 2) => Math.max(...rows.map((row) => row[index].length))
  return rows.map((row) => printable(`${row[0].padEnd(width(0))}  ${row[1].padEnd(width(1))}  ${row[2].padEnd(width(2))}  ${row[3]}  ${row[4]}`.trimEnd()) + "\n")
    .join("")
}

const makeList = (terminal: Terminal) =>
  Command.make(
    "list",
    {
      ...filters,
      limit: Options.integer("limit").pipe(
        Options.withSchema(Schema.Int.pipe(Schema.greaterThanOrEqualTo(1))),
        Options.withDescription(`The most runs printed, newest first (read page by page, ${MAX_PAGE} a page).`),
        Options.withDefault(50)
      ),
      json: Options.boolean("json").pipe(Options.withDescription("The runs as JSON ({runs, next_cursor}, as GET /v1/runs answers) instead of a table.")),
      ...remote
    },
    (options) =>
      runCommand(terminal, "runs list", (progress) =>
        Effect.gen(function*() {
          const backend = yield* backendOf(options, "svc runs list", progress)
          const query = yield* filterQuery(options)
          const runs: Array<Run> = []
          let cursor: string | null = null
          do {
            const size = Math.min(MAX_PAGE, options.limit - runs.length)
            const page: { readonly runs: ReadonlyArray<Run>; readonly next_cursor: string | null } = yield* trackRequest(
              progress,
              backend,
              "runs",
              backend.runs.list(cursor === null ? { ...query, limit: size } : { ...query, limit: size, cursor })
            )
            runs.push(...page.runs)
            cursor = page.next_cursor
          } while (cursor !== null && runs.length < options.limit)
          progress.stop()
          yield* emit(options.json ? pretty({ runs, next_cursor: cursor }) : runTable(runs), Option.none())
          if (!options.json && cursor !== null) {
            process.stderr.write(`svc runs list: more than ${options.limit} runs; raise --limit or narrow the filters\n`)
          }
          return EXIT.done
        }))
  ).pipe(
    Command.withDescription(
      commandHelp(
        "List runs, newest first: id, state (skipped with its reason), severity, submission time and labels; or JSON with --json.",
        [
          ["svc runs list --status failed", "the failed runs of the store (or of --url)"],
          ["svc runs list --label team:billing --since 2025-06-01 --limit 500 --json", "filtered, as JSON"],
          ["svc runs list --external-id build-4711", "the run with your own id"]
        ]
      )
    )
  )

const makeShow = (terminal: Terminal) =>
  Command.make(
    "show",
    {
      id: runId,
      format: optional(Options.choice("format", OUTPUT_NAMES), "The run's report in this format, rendered as `svc diagnose` renders it (default: the run itself as JSON, with its report when done)."),
      artifact: optional(Options.text("artifact"), "The trace's path in the repository, for SARIF locations (default trace.json)."),
      out,
      ...remote
    },
    (options) =>
      runCommand(terminal, "runs show", (progress) =>
        Effect.gen(function*() {
          const backend = yield* backendOf(options, "svc runs show", progress)
          const text = Option.isNone(options.format)
            ? pretty((yield* trackRequest(progress, backend, options.id, backend.runs.get(options.id))).body)
            : printedOf(
              yield* trackRequest(progress, backend, options.id, backend.runs.report(options.id, options.format.value, Option.getOrUndefined(options.artifact)))
            )
          progress.stop()
          yield* emit(text, options.out)
          return EXIT.done
        }))
  ).pipe(
    Command.withDescription(
      commandHelp(
        "Show a run as JSON (GET /v1/runs/{id}: its state, and its report when done), or its report in an output of diagnose. A run that is not done has no report (not_found, exit 2).",
        [
          ["svc runs show run_abc", "the run as JSON"],
          ["svc runs show run_abc --format markdown", "its report as Markdown"],
          ["svc runs show run_abc --format sarif --artifact traces/run.json --out run.sarif", "SARIF for code scanning"]
        ]
      )
    )
  )

/** States a run does not leave by itself. */
const FINAL: ReadonlySet<string> = new Set(["done", "failed", "skipped"])

/** The run as printed by `wait`: the Run, without the report (`svc runs show` prints that). */
const withoutReport = (body: unknown): unknown => Predicate.isRecord(body) ? Object.fromEntries(Object.entries(body).filter(([key]) => key !== "report")) : body

const makeWait = (terminal: Terminal) =>
  Command.make(
    "wait",
    {
      id: runId,
      timeout: Options.integer("timeout").pipe(
        Options.withSchema(Schema.Int.pipe(Schema.greaterThanOrEqualTo(1))),
        Options.withDescription("Give up after this many seconds (exit 3)."),
        Options.withDefault(600)
      ),
      failOn,
      ...remote
    },
    (options) =>
      runCommand(terminal, "runs wait", (progress) =>
        Effect.gen(function*() {
          const backend = yield* backendOf(options, "svc runs wait", progress)
          const line = progress.request(`run ${options.id}`)
          // Polled: at once, then after 250 ms, the pause growing to 2 s.
          const poll = Effect.gen(function*() {
            let pause = 250
            for (;;) {
              const served = yield* backend.runs.get(options.id)
              if (FINAL.has(served.value.status)) return served
              yield* Effect.sleep(Duration.millis(pause))
              pause = Math.min(2_000, pause * 1.5)
            }
          })
          const served = yield* poll.pipe(
            Effect.timeoutFail({
              duration: Duration.seconds(options.timeout),
              onTimeout: () => new CliFailure({ kind: "timeout", message: `run ${printable(options.id)} did not end within ${options.timeout} s (--timeout)` })
            }),
            Effect.onExit((exit) => Effect.sync(() => line.end(exit._tag === "Failure" || (exit._tag === "Success" && exit.value.value.status !== "done"))))
          )
          progress.stop()
          yield* emit(pretty(withoutReport(served.body)), Option.none())
          const run = served.value
          if (run.status === "failed") {
            process.stderr.write(`svc runs wait: run ${printable(run.id)} failed: ${printable(run.error?.error ?? "error")}: ${printable(run.error?.message ?? "")}\n`)
            return EXIT.noAnalysis
          }
          if (run.status === "skipped") {
            process.stderr.write(`svc runs wait: run ${printable(run.id)} was skipped (${printable(run.reason ?? "no reason")})\n`)
            return EXIT.noAnalysis
          }
          return run.severity !== null && reached(options.failOn, run.severity) ? EXIT.failOn : EXIT.done
        }))
  ).pipe(
    Command.withDescription(
      commandHelp(
        "Wait until a run ends and print it (JSON, without its report). In-process this polls the store, where the workers of a `svc serve` on the same store end it.",
        [
          ["svc runs wait run_abc", "exit 0 when it is done"],
          ["svc runs wait run_abc --timeout 120 --fail-on high --url http://127.0.0.1:8000", "a CI step: exit 1 on a high finding"]
        ],
        [
          "Exit codes: 0 done; 1 done with a severity at or above --fail-on; 2 no such run or a usage error; 3 the run failed or was skipped, or --timeout passed (the message says which); 70 unexpected failure."
        ]
      )
    )
  )

const makeRetry = (terminal: Terminal) =>
  Command.make(
    "retry",
    {
      id: runId.pipe(Args.optional),
      status: optional(Options.choice("status", ["failed", "skipped"]), "Re-queue every run in this state instead of one run."),
      ...remote
    },
    (options) =>
      runCommand(terminal, "runs retry", (progress) =>
        Effect.gen(function*() {
          const { id, status } = options
          if (Option.isSome(id) === Option.isSome(status)) {
            return yield* new CliFailure({ kind: "usage", message: "give a run's ID or --status failed|skipped (one of them)" })
          }
          const backend = yield* backendOf(options, "svc runs retry", progress)
          const text = Option.isSome(id)
            ? pretty((yield* trackRequest(progress, backend, id.value, backend.runs.retry(id.value))).body)
            : Option.isSome(status)
            ? pretty({ status: status.value, retried: yield* trackRequest(progress, backend, `retry ${status.value}`, backend.runs.retryAll(status.value)) })
            : ""
          progress.stop()
          yield* emit(text, Option.none())
          return EXIT.done
        }))
  ).pipe(
    Command.withDescription(
      commandHelp(
        "Re-queue a failed or skipped run (admin role), or every run in that state with --status. Prints the run (JSON), or how many were re-queued. In-process the runs wait for the workers of a `svc serve` on the same store.",
        [
          ["svc runs retry run_abc", "one run"],
          ["svc runs retry --status failed --url http://127.0.0.1:8000", "every failed run of a service (listed, then retried one by one)"]
        ]
      )
    )
  )

const makeExplain = (terminal: Terminal) =>
  Command.make("explain", { id: runId, ...remote }, (options) =>
    runCommand(terminal, "runs explain", (progress) =>
      Effect.gen(function*() {
        const backend = yield* backendOf(options, "svc runs explain", progress)
        const text = pretty((yield* trackRequest(progress, backend, options.id, backend.runs.explain(options.id))).body)
        progress.stop()
        yield* emit(text, Option.none())
        return EXIT.done
      }))).pipe(
      Command.withDescription(
        commandHelp(
          "Queue a run again with its lenses (admin role; it spends budget), whatever its problem knows: a run of a known failure that ended on its checks (explained_by) gets its own explanation (DECISIONS §24). Prints the run (JSON); its report is replaced when done.",
          [["svc runs explain run_abc --url http://127.0.0.1:8000", "explain one run again on a service"]]
        )
      )
    )

const makeExport = (terminal: Terminal) =>
  Command.make(
    "export",
    { ...filters, out, ...remote },
    (options) =>
      runCommand(terminal, "runs export", (progress) =>
        Effect.gen(function*() {
          const backend = yield* backendOf(options, "svc runs export", progress)
          const text = yield* trackRequest(progress, backend, "export", Effect.flatMap(filterQuery(options), backend.runs.exportLines))
          progress.stop()
          yield* emit(text, options.out)
          return EXIT.done
        }))
  ).pipe(
    Command.withDescription(
      commandHelp(
        "Export runs as JSON Lines, newest first: each run with its redacted trace, options and report (GET /v1/runs/export), for `svc runs import`.",
        [
          ["svc runs export --url http://127.0.0.1:8000 --out runs.jsonl", "every run of a service"],
          ["svc runs export --status done --since 2025-06-01 > june.jsonl", "the done runs of this store since June"]
        ]
      )
    )
  )

/** What an export file may hold: far more than a request body. */
const IMPORT_BYTES = 256 * 1024 * 1024

const makeImport = (terminal: Terminal) =>
  Command.make(
    "import",
    {
      file: Args.text({ name: "FILE" }).pipe(Args.withDescription("JSON Lines from `svc runs export`; - reads standard input.")),
      maxBytes: optional(
        Options.integer("max-bytes").pipe(Options.withSchema(Schema.Int.pipe(Schema.greaterThanOrEqualTo(1024)))),
        `Read a file of up to this many bytes (default ${IMPORT_BYTES / 1024 / 1024} MiB).`
      ),
      ...remote
    },
    (options) =>
      runCommand(terminal, "runs import", (progress) =>
        Effect.gen(function*() {
          if (Option.isSome(options.url)) return yield* new CliFailure({ kind: "usage", message: IMPORT_IS_LOCAL })
          const backend = yield* backendOf(options, "svc runs import", progress)
          const text = yield* readText(options.file, Option.getOrElse(options.maxBytes, () => IMPORT_BYTES))
          const outcome = yield* backend.runs.importLines(text.split("\n"))
          yield* emit(pretty(outcome), Option.none())
          for (const refused of outcome.refused.slice(0, 5)) process.stderr.write(`svc runs import: line ${refused.line} refused: ${printable(refused.message)}\n`)
          return outcome.refused.length > 0 ? EXIT.input : EXIT.done
        }))
  ).pipe(
    Command.withDescription(
      commandHelp(
        "Import runs exported by `svc runs export` into the store of this environment (SVC_HOME/svc.db; admin role), with their states and reports; a run the store holds already is left as it is. Prints {imported, existing, refused}; exit 2 when a line was refused. Not with --url: a service has no import route, so run it where the service's store is configured.",
        [
          ["svc runs export --url http://old:8000 | SVC_HOME=/srv/svc svc runs import -", "move a service's runs into another store"],
          ["svc runs import runs.jsonl", "into this SVC_HOME"]
        ]
      )
    )
  )

export const makeRuns = (terminal: Terminal) =>
  Command.make("runs").pipe(
    Command.withDescription(
      commandHelp(
        "Runs: traces submitted once and diagnosed in the background by the workers of `svc serve` (SVC_WORKERS), kept in its store and listed. In this process (no --url) the commands read and write the store of SVC_HOME (svc.db) and run no workers: a run submitted here is diagnosed by a `svc serve` on the same store.",
        [
          ["svc runs submit run.json --url http://127.0.0.1:8000", "submit; prints the run ids"],
          ["svc runs wait run_abc --url http://127.0.0.1:8000 && svc runs show run_abc --format markdown --url http://127.0.0.1:8000", "wait for a run, then read its report"],
          ["svc runs list --status failed", "the failed runs of this SVC_HOME"]
        ]
      )
    ),
    Command.withSubcommands([makeRunsSubmit(terminal), makeList(terminal), makeShow(terminal), makeWait(terminal), makeRetry(terminal), makeExplain(terminal), makeExport(terminal), makeImport(terminal)])
  )
