/**
 * `svc problems` and `svc digest`: the problems of DECISIONS §19 (the same failure across runs,
 * grouped when the workers of `svc serve` finish runs): list, show, resolve / ignore / reopen,
 * merge, detach and compare; and the weekly digest. In this process they read and write the store
 * of SVC_HOME (svc.db); with --url, a running service's. Changing a problem needs the admin role.
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { SEVERITY_SCALE } from "../../../Catalogue/Severity.js"
import type { Problem, ProblemDetail } from "../../../Contract/ProblemsContract.js"
import { ProblemListParams } from "../../../Contract/Queries.js"
import { MAX_PAGE, ProblemStatus } from "../../../Contract/Statuses.js"
import { digestHtml, digestMarkdown } from "../../../Problems/Digest.js"
import { type Backend, type CliFailure, decodeFlags } from "../Backend.js"
import { optional, out, remote } from "../CommonOptions.js"
import { EXIT } from "../ExitCodes.js"
import { commandHelp } from "../Help.js"
import { emit, pretty } from "../Output.js"
import { printable } from "../Printable.js"
import { backendOf, runCommand, type Terminal, trackRequest } from "../Running.js"

const problemId = Args.text({ name: "ID" }).pipe(Args.withDescription("A problem's id (`svc problems list` shows them)."))

/** Problems as rows: id, severity, status, runs, last seen, title. */
const problemTable = (problems: ReadonlyArray<Problem>): string => {
  const rows = problems.map((problem) => [problem.id, problem.severity, problem.status, String(problem.run_count), problem.last_seen, problem.title] as const)
  const width = (index: 0 | 1 | 2 | 3) => Math.max(...rows.map((row) => row[index].length))
  return rows.map((row) =>
    printable(`${row[0].padEnd(width(0))}  ${row[1].padEnd(width(1))}  ${row[2].padEnd(width(2))}  ${row[3].padStart(width(3))}  ${row[4]}  ${row[5]}`) + "\n"
  ).join("")
}

const makeList = (terminal: Terminal) =>
  Command.make(
    "list",
    {
      status: optional(Options.choice("status", ProblemStatus.literals), "Only problems in this status."),
      severity: optional(Options.choice("severity", SEVERITY_SCALE), "Only problems of this (highest) severity."),
      pattern: optional(Options.text("pattern"), "Only problems with a finding of this pattern."),
      label: optional(Options.text("label"), "Only problems seen on a run with this label, as key:value."),
      since: optional(Options.text("since"), "Seen at or after this time (ISO-8601)."),
      until: optional(Options.text("until"), "Last seen before this time (ISO-8601)."),
      limit: Options.integer("limit").pipe(
        Options.withSchema(Schema.Int.pipe(Schema.greaterThanOrEqualTo(1))),
        Options.withDescription(`The most problems printed, most recently seen first (read page by page, ${MAX_PAGE} a page).`),
        Options.withDefault(50)
      ),
      json: Options.boolean("json").pipe(Options.withDescription("The problems as JSON ({problems, next_cursor}, as GET /v1/problems answers) instead of a table.")),
      ...remote
    },
    (options) =>
      runCommand(terminal, "problems list", (progress) =>
        Effect.gen(function*() {
          const backend = yield* backendOf(options, "svc problems list", progress)
          const query = yield* decodeFlags(ProblemListParams, {
            ...Option.match(options.status, { onNone: () => ({}), onSome: (status) => ({ status }) }),
            ...Option.match(options.severity, { onNone: () => ({}), onSome: (severity) => ({ severity }) }),
            ...Option.match(options.pattern, { onNone: () => ({}), onSome: (pattern) => ({ pattern }) }),
            ...Option.match(options.label, { onNone: () => ({}), onSome: (label) => ({ label }) }),
            ...Option.match(options.since, { onNone: () => ({}), onSome: (since) => ({ since }) }),
            ...Option.match(options.until, { onNone: () => ({}), onSome: (until) => ({ until }) })
          })
          const problems: Array<Problem> = []
          let cursor: string | null = null
          do {
            const size = Math.min(MAX_PAGE, options.limit - problems.length)
            const page: { readonly problems: ReadonlyArray<Problem>; readonly next_cursor: string | null } = yield* trackRequest(
              progress,
              backend,
              "problems",
              backend.problems.list(cursor === null ? { ...query, limit: size } : { ...query, limit: size, cursor })
            )
            problems.push(...page.problems)
            cursor = page.next_cursor
          } while (cursor !== null && problems.length < options.limit)
          progress.stop()
          yield* emit(options.json ? pretty({ problems, next_cursor: cursor }) : problemTable(problems), Option.none())
          return EXIT.done
        }))
  ).pipe(
    Command.withDescription(
      commandHelp("List problems, most recently seen first: id, severity, status, runs, last seen and title; or JSON with --json.", [
        ["svc problems list --status regressed", "what came back"],
        ["svc problems list --label agent:billing --severity high --url http://127.0.0.1:8000", "one agent's worst, of a running service"]
      ])
    )
  )

/** A problem's detail as text: trend, labels, examples, interventions. */
const problemText = (problem: ProblemDetail): string => {
  const lines = [
    `${problem.id}  ${problem.severity}  ${problem.status}  ${problem.run_count} run(s)`,
    problem.title,
    `patterns: ${problem.patterns.join(", ")}; first seen ${problem.first_seen}; last seen ${problem.last_seen}`,
    ...(problem.resolved_in_version === null ? [] : [`resolved in version ${problem.resolved_in_version}`]),
    ...(problem.check === null ? [] : [`check: ${problem.check}`]),
    "",
    // the failure explained once (DECISIONS §24)
    ...(problem.explanation.exemplars.length === 0
      ? ["not explained yet: no run of it was read by its lenses"]
      : [
        `what failed, and why (from ${problem.explanation.exemplars.length} explained run(s), ${problem.tokens} tokens):`,
        `  ${problem.explanation.verdict}`,
        ...problem.explanation.perspectives.slice(0, 6).map((perspective) => `  - ${perspective.pattern ?? perspective.check ?? ""}: ${perspective.title}`),
        ...problem.explanation.interventions.slice(0, 3).map((intervention) => `  ${intervention.rank}. ${intervention.description}`)
      ]),
    "",
    "runs per day:",
    ...problem.days.slice(-14).map((day) => `  ${day.day}  ${day.runs}`),
    "",
    "seen with:",
    ...problem.labels.slice(0, 10).map((label) => `  ${label.key}=${label.value}  ${label.runs}`),
    "",
    "what to change:",
    ...problem.interventions.slice(0, 5).map((intervention) => `  ${intervention.title} (${intervention.pattern}: ${intervention.playbook})`),
    "",
    "examples:",
    ...problem.examples.slice(0, 5).flatMap((example) => [`  ${example.run_id}  ${example.seen_at}`, ...example.evidence.slice(0, 2).map((item) => `    "${item.quote}"`)])
  ]
  return `${lines.map(printable).join("\n")}\n`
}

const makeShow = (terminal: Terminal) =>
  Command.make(
    "show",
    { id: problemId, json: Options.boolean("json").pipe(Options.withDescription("The problem as JSON (GET /v1/problems/{id}).")), out, ...remote },
    (options) =>
      runCommand(terminal, "problems show", (progress) =>
        Effect.gen(function*() {
          const backend = yield* backendOf(options, "svc problems show", progress)
          const problem = yield* trackRequest(progress, backend, "problem", backend.problems.get(options.id))
          progress.stop()
          yield* emit(options.json ? pretty(problem) : problemText(problem), options.out)
          return EXIT.done
        }))
  ).pipe(Command.withDescription(commandHelp("One problem: its runs per day, labels, what to change and example runs with their quotes.", [["svc problems show prb_3f2a…", ""]])))

/** The work of a command that changes one problem (admin): the change, then the problem as JSON. */
const printChange = (
  terminal: Terminal,
  name: string,
  options: Parameters<typeof backendOf>[0],
  change: (backend: Backend) => Effect.Effect<Problem, CliFailure>
) =>
  runCommand(terminal, `problems ${name}`, (progress) =>
    Effect.gen(function*() {
      const backend = yield* backendOf(options, `svc problems ${name}`, progress)
      const problem = yield* trackRequest(progress, backend, name, change(backend))
      progress.stop()
      yield* emit(pretty(problem), Option.none())
      return EXIT.done
    }))

/** A command that changes one problem and prints it as JSON (admin). */
const changing = (
  terminal: Terminal,
  name: string,
  description: string,
  change: (backend: Backend, id: string) => Effect.Effect<Problem, CliFailure>
) =>
  Command.make(name, { id: problemId, ...remote }, (options) => printChange(terminal, name, options, (backend) => change(backend, options.id))).pipe(
    Command.withDescription(description)
  )

const makeResolve = (terminal: Terminal) =>
  Command.make(
    "resolve",
    {
      id: problemId,
      version: optional(Options.text("version"), "The version (the runs' `version` label) that fixes it: later runs regress it only on a version it was not seen on before."),
      ...remote
    },
    (options) =>
      printChange(terminal, "resolve", options, (backend) =>
        backend.problems.update(options.id, { status: "resolved", resolved_in_version: Option.getOrNull(options.version) }))
  ).pipe(
    Command.withDescription(
      commandHelp("Resolve a problem (admin); a later run with it regresses it.", [["svc problems resolve prb_3f2a… --version 1.4", "fixed in 1.4: runs of 1.3 do not regress it"]])
    )
  )

const makeMerge = (terminal: Terminal) =>
  Command.make(
    "merge",
    { id: problemId, into: Options.text("into").pipe(Options.withDescription("The problem that takes this one's runs, counts and fingerprints.")), ...remote },
    (options) => printChange(terminal, "merge", options, (backend) => backend.problems.merge(options.id, options.into))
  ).pipe(Command.withDescription(commandHelp("Merge a problem into another (admin): a model's rewording split them; future runs of both go to the one.", [])))

const makeDetach = (terminal: Terminal) =>
  Command.make(
    "detach",
    { id: problemId, run: Options.text("run").pipe(Options.withDescription("A run of the problem: it moves into a new problem of its own fingerprint.")), ...remote },
    (options) => printChange(terminal, "detach", options, (backend) => backend.problems.detach(options.id, options.run))
  ).pipe(Command.withDescription(commandHelp("Move a run out of a problem into a new one (admin); future runs of its fingerprint follow.", [])))

const makeCompare = (terminal: Terminal) =>
  Command.make(
    "compare",
    {
      label: Options.text("label").pipe(Options.withDescription("A label key, e.g. version."), Options.withDefault("version")),
      a: Options.text("a").pipe(Options.withDescription("One value of the label.")),
      b: Options.text("b").pipe(Options.withDescription("Another value of it.")),
      ...remote
    },
    (options) =>
      runCommand(terminal, "problems compare", (progress) =>
        Effect.gen(function*() {
          const backend = yield* backendOf(options, "svc problems compare", progress)
          const compared = yield* trackRequest(progress, backend, "compare", backend.problems.compare({ label: options.label, a: options.a, b: options.b }))
          progress.stop()
          yield* emit(pretty(compared), Option.none())
          return EXIT.done
        }))
  ).pipe(
    Command.withDescription(
      commandHelp("How often each problem happens under two values of a label, with the traces received under each (n) and the sampling.", [
        ["svc problems compare --a 1.3 --b 1.4", "version 1.3 against 1.4"]
      ])
    )
  )

const makeRegroup = (terminal: Terminal) =>
  Command.make(
    "regroup",
    { scope: optional(Options.text("scope"), "The key name whose scope is rebuilt (default: the caller's key's; with auth off, the one shared scope)."), ...remote },
    (options) =>
      runCommand(terminal, "problems regroup", (progress) =>
        Effect.gen(function*() {
          const backend = yield* backendOf(options, "svc problems regroup", progress)
          const outcome = yield* trackRequest(progress, backend, "regroup", backend.problems.regroup(Option.getOrUndefined(options.scope)))
          progress.stop()
          yield* emit(pretty(outcome), Option.none())
          return EXIT.done
        }))
  ).pipe(
    Command.withDescription(
      commandHelp(
        "Rebuild a scope's problems as one problem per failure (admin; DECISIONS §24): the checks run again on every done run's stored trace, its report's checks and failures are rewritten, and the problems are made again from the failures. A problem keeps its id when its anchor maps one to one; statuses and merges carry over; no alert is sent. One transaction under the scope's lock: all or nothing, run it again if it was interrupted. In-process only (the store of SVC_HOME or SVC_DATABASE_URL).",
        [["svc problems regroup", "the caller's scope"], ["svc problems regroup --scope billing", "the scope of the key named billing"]]
      )
    )
  )

export const makeProblems = (terminal: Terminal) =>
  Command.make("problems").pipe(
    Command.withDescription(
      commandHelp(
        "Problems: the same failure grouped across runs when `svc serve`'s workers finish them, with trends, regressions and alerts (docs/problems.md). In this process (no --url) the commands read and write the store of SVC_HOME (svc.db).",
        [["svc problems list --url http://127.0.0.1:8000", "a running service's problems"]]
      )
    ),
    Command.withSubcommands([
      makeList(terminal),
      makeShow(terminal),
      makeResolve(terminal),
      changing(terminal, "ignore", "Ignore a problem (admin): its runs still count, without alerts.", (backend, id) => backend.problems.update(id, { status: "ignored" })),
      changing(terminal, "reopen", "Open a resolved or ignored problem again (admin).", (backend, id) => backend.problems.update(id, { status: "open" })),
      makeMerge(terminal),
      makeDetach(terminal),
      makeCompare(terminal),
      makeRegroup(terminal)
    ])
  )

export const makeDigest = (terminal: Terminal) =>
  Command.make(
    "digest",
    {
      output: Options.choice("output", ["markdown", "json", "html"]).pipe(Options.withDescription("markdown (default), json or html."), Options.withDefault("markdown")),
      publicUrl: optional(Options.text("public-url"), "The service's external address, for links (default: --url)."),
      out,
      ...remote
    },
    (options) =>
      runCommand(terminal, "digest", (progress) =>
        Effect.gen(function*() {
          const backend = yield* backendOf(options, "svc digest", progress)
          const digest = yield* trackRequest(progress, backend, "digest", backend.problems.digest)
          progress.stop()
          const base = Option.getOrNull(Option.orElse(options.publicUrl, () => options.url))
          const text = options.output === "json" ? pretty(digest) : options.output === "html" ? digestHtml(digest, base) : digestMarkdown(digest, base)
          yield* emit(text, options.out)
          return EXIT.done
        }))
  ).pipe(
    Command.withDescription(
      commandHelp("The last 7 UTC days: new and regressed problems, the most recurring, runs finished and tokens spent.", [
        ["svc digest --url http://127.0.0.1:8000 > week.md", "Markdown, for a channel or an issue"],
        ["svc digest --output html --out week.html", "a page"]
      ])
    )
  )
