/**
 * The `svc` commands (DECISIONS §14), with `@effect/cli`: serve, analyze, diagnose, normalize,
 * patterns, mcp. Each command that reads or analyses runs in this process by default (Local.ts)
 * or against a service with `--url` (Remote.ts); both print the same output for the same input.
 * stdout holds only the result (or nothing, with `--out`); progress and errors go to stderr.
 * The heavy parts (the service's Layers, the HTTP client, the renderers) are loaded by the
 * command that needs them, so `svc --help` and `svc patterns --url` start quickly.
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as Span from "@effect/cli/HelpDoc/Span"
import * as Options from "@effect/cli/Options"
import { Config, Effect, Option, type Redacted, type Scope } from "effect"
import { rename, writeFile } from "node:fs/promises"
import { isAbsolute, relative, resolve } from "node:path"
import type { DiagnoseReport } from "../../Diagnose/Model.js"
import { loadRenderer } from "../../Diagnose/Render/Outputs.js"
import { FORMAT_OPTIONS, MODE_NAMES, MODES_DESCRIBED, OUTPUT_NAMES, SEVERITY_SCALE } from "../../Registry/Derived.js"
import { DIAGNOSE_OUTPUTS } from "../../Registry/Outputs.js"
import type { SeverityName } from "../../Registry/Severity.js"
import { type Backend, CliFailure, type DiagnoseAnswer, EXIT, exitCodeOf } from "./Backend.js"
import { envelopeOf, readHints, readTrace, type TraceInput } from "./Input.js"
import { printable, printableLines } from "./Printable.js"
import { makeProgress, type ProgressView } from "./Progress.js"

/** What the commands share with the entry point: the terminal and the exit code to end with. */
export interface CliState {
  /** stderr is a terminal (and TERM is not dumb): progress is drawn. */
  readonly live: boolean
  /** NO_COLOR is unset and the stream is a terminal. */
  readonly color: boolean
  exitCode: number
  /** `svc serve` is running: a signal that stops it ends the process with 0, as `npm start`. */
  serving: boolean
  /** The first signal that asked the process to stop: SIGTERM exits 143, SIGINT 130. */
  stoppedBy: "SIGINT" | "SIGTERM" | undefined
}

// ---------------------------------------------------------------------------------------------
// Help text

const describe = (summary: string, examples: ReadonlyArray<readonly [command: string, what: string]>, notes: ReadonlyArray<string> = []) =>
  HelpDoc.blocks([
    HelpDoc.p(summary),
    ...notes.map((note) => HelpDoc.p(note)),
    HelpDoc.h1("EXAMPLES"),
    ...examples.flatMap(([command, what]) => [HelpDoc.p(Span.code(`$ ${command}`)), HelpDoc.p(Span.weak(`  ${what}`))])
  ])

const EXIT_CODES =
  "Exit codes: 0 done; 1 a finding at or above --fail-on; 2 usage or input error (a file larger than SVC_API_MAX_BODY_BYTES too); 3 no analysis could run (provider, timeout, rate limit, service unreachable) and nothing reached --fail-on; 70 unexpected failure; 130 interrupted (Ctrl-C); 143 terminated (SIGTERM)."

// ---------------------------------------------------------------------------------------------
// Options shared by the commands that read traces or ask the service

/** An option that may be left out, with its help line. */
const optional = <A>(option: Options.Options<A>, description: string) => option.pipe(Options.withDescription(description), Options.optional)

// The choices come from the registries (src/Registry/): help, usage errors and completions name them.
/** `--fail-on`: every step of the severity scale but the least severe. */
const FAIL_ON = SEVERITY_SCALE.slice(1)

const remote = {
  url: optional(Options.text("url"), "Ask the service at this address instead of running in this process (e.g. http://127.0.0.1:8000)."),
  apiKey: optional(Options.redacted("api-key"), "The API key for --url (default: SVC_API_KEY; in-process, SVC_API_KEY alone is read).")
}

const traceFile = Args.text({ name: "FILE" }).pipe(
  Args.withDescription("The trace file (JSON or JSON Lines); - or nothing reads standard input."),
  Args.optional
)

const intake = {
  from: optional(Options.choice("from", FORMAT_OPTIONS), "The trace's format (default: detected)."),
  select: optional(Options.text("select"), "Which trace of a file that holds several: its id, or its index as `svc normalize` lists them."),
  hints: optional(Options.text("hints"), "Extra input fields a raw trace cannot hold: a JSON object, or a file holding one.")
}

const run = {
  mode: optional(Options.choice("mode", MODE_NAMES), `${MODES_DESCRIBED}.`),
  model: optional(Options.text("model"), "The model, with an optional provider prefix (anthropic:, openai:, local:).")
}

const out = optional(Options.file("out"), "Write the result to this file instead of standard output.")

const failOn = optional(Options.choice("fail-on", FAIL_ON), "Exit 1 when a finding (or the overall severity) is at or above this severity.")

// ---------------------------------------------------------------------------------------------
// Running a command

const selectOf = (value: Option.Option<string>): string | number | undefined =>
  Option.match(value, { onNone: () => undefined, onSome: (raw) => (/^\d+$/.test(raw) ? Number(raw) : raw) })

/** The API key: --api-key, else SVC_API_KEY. */
const apiKeyOf = (flag: Option.Option<Redacted.Redacted>) =>
  Option.isSome(flag)
    ? Effect.succeed(flag)
    : Config.option(Config.redacted("SVC_API_KEY")).pipe(Effect.orElseSucceed(() => Option.none<Redacted.Redacted>()))

const backendOf = (
  remoteOptions: { readonly url: Option.Option<string>; readonly apiKey: Option.Option<Redacted.Redacted> },
  command: string,
  progress: ProgressView
) =>
  Effect.gen(function*() {
    const apiKey = yield* apiKeyOf(remoteOptions.apiKey)
    if (Option.isSome(remoteOptions.url)) {
      const url = remoteOptions.url.value
      if (!/^https?:\/\/[^\s/]+/.test(url)) return yield* new CliFailure({ kind: "usage", message: `--url must be an http:// or https:// address (got ${printable(JSON.stringify(url.slice(0, 80)))})` })
      const { makeRemoteBackend } = yield* Effect.promise(() => import("./Remote.js"))
      return yield* makeRemoteBackend({ url, apiKey })
    }
    const { makeLocalBackend } = yield* Effect.promise(() => import("./Local.js"))
    return yield* makeLocalBackend({ apiKey, command, progress: progress.listener })
  })

/** The options every trace-reading command shares (analyze and diagnose add mode, model and hints). */
interface TraceOptions {
  readonly file: Option.Option<string>
  readonly from: Option.Option<string>
  readonly select: Option.Option<string>
  readonly hints?: Option.Option<string>
  readonly mode?: Option.Option<string>
  readonly model?: Option.Option<string>
  readonly url: Option.Option<string>
  readonly apiKey: Option.Option<Redacted.Redacted>
}

/** Where the command runs, the trace it reads and the request body for it (`extra`: the command's own options). */
const intakeOf = (options: TraceOptions, command: string, progress: ProgressView, extra: Readonly<Record<string, unknown>> = {}) =>
  Effect.gen(function*() {
    const backend = yield* backendOf(options, `svc ${command}`, progress)
    const input = yield* readTrace(options.file, backend.readLimit)
    const hints = options.hints === undefined ? Option.none() : yield* readHints(options.hints, backend.readLimit)
    const envelope = envelopeOf(input.body, {
      format: Option.getOrUndefined(options.from),
      select: selectOf(options.select),
      hints: Option.getOrUndefined(hints),
      mode: options.mode === undefined ? undefined : Option.getOrUndefined(options.mode),
      model: options.model === undefined ? undefined : Option.getOrUndefined(options.model),
      ...extra
    })
    return { backend, input, envelope }
  })

/** Writes the result: to --out (whole or not at all: a temporary file renamed), else stdout. */
const emit = (text: string, target: Option.Option<string>) =>
  Option.match(target, {
    onNone: () =>
      Effect.async<void>((resume) => {
        process.stdout.write(text, () => resume(Effect.void))
      }),
    onSome: (path) =>
      Effect.tryPromise({
        try: async () => {
          const temporary = `${path}.${process.pid}.tmp`
          await writeFile(temporary, text)
          await rename(temporary, path)
        },
        catch: (error) =>
          new CliFailure({ kind: "usage", message: `cannot write ${printable(path)}: ${printable(error instanceof Error ? error.message : String(error))}` })
      })
  })

const withNewline = (text: string) => (text.endsWith("\n") ? text : `${text}\n`)
const pretty = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`

const rank = (severity: string): number => SEVERITY_SCALE.findIndex((s) => s === severity)

/** The highest severity a report or detection shows: its own and its findings'. */
const worst = (own: unknown, findings: unknown): number => {
  const list: ReadonlyArray<unknown> = Array.isArray(findings) ? findings : []
  return list.reduce<number>((max, finding) => {
    const severity: unknown = typeof finding === "object" && finding !== null ? Reflect.get(finding, "severity") : undefined
    return Math.max(max, typeof severity === "string" ? rank(severity) : 0)
  }, typeof own === "string" ? rank(own) : 0)
}

/**
 * Runs one command's work with progress drawn on stderr; a failure is printed there as
 * `svc <command>: <kind>: <message>` and sets the exit code from its kind. The message is made
 * printable as a whole: names are escaped where they are quoted, and whatever else a message
 * quotes (a service's answer, a trace's field) cannot reach the terminal raw either.
 */
const runCommand = <A>(state: CliState, command: string, work: (progress: ProgressView) => Effect.Effect<A, CliFailure, Scope.Scope>) =>
  Effect.gen(function*() {
    const progress = makeProgress({ live: state.live, color: state.color, stream: process.stderr })
    yield* work(progress).pipe(
      Effect.ensuring(Effect.sync(() => progress.stop())),
      Effect.catchAll((failure) =>
        Effect.sync(() => {
          state.exitCode = exitCodeOf(failure.kind)
          const label = failure.kind === "usage" || failure.kind === "unexpected" ? "" : `${failure.kind}: `
          process.stderr.write(`svc ${command}: ${printable(label)}${printableLines(failure.message)}\n`)
        })
      ),
      Effect.scoped
    )
  })

// ---------------------------------------------------------------------------------------------
// The commands

/** `svc serve` and `svc mcp` print their own start-up failure: the exit code says whether the configuration was at fault. */
const exitOnFailure = (state: CliState) => <A>(program: Effect.Effect<A, { readonly configuration: boolean }>) =>
  Effect.catchAll(program, (failure) =>
    Effect.sync(() => {
      state.exitCode = failure.configuration ? EXIT.input : EXIT.unexpected
    }))

const makeServe = (state: CliState) =>
  Command.make("serve", {}, () =>
    Effect.gen(function*() {
      const { setFlagsFromString } = yield* Effect.promise(() => import("node:v8"))
      // As boot.ts does for `npm start`: young-generation growth held until the service is ready.
      setFlagsFromString("--semi-space-growth-factor=1")
      const { serveProgram } = yield* Effect.promise(() => import("../../Serve.js"))
      const { listenForSignals, ShutdownSignals } = yield* Effect.promise(() => import("../../Lifecycle/Signals.js"))
      state.serving = true
      // A start-up failure has printed its one line: a configuration error is a usage error.
      yield* serveProgram.pipe(Effect.provideService(ShutdownSignals, listenForSignals()), exitOnFailure(state))
    })
  ).pipe(
  Command.withDescription(
    describe(
      "Run the service (as `npm start`): JSON over HTTP on SVC_HOST:SVC_PORT (default 127.0.0.1:8000), configured from the environment (README, Configuration). SIGTERM drains.",
      [["svc serve", "serve on 127.0.0.1:8000"], ["SVC_PORT=9000 OPENAI_API_KEY=sk-... svc serve", "another port, a hosted provider"]]
    )
  )
)

const makeAnalyze = (state: CliState) =>
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
      runCommand(state, "analyze", (progress) =>
        Effect.gen(function*() {
          const { backend, envelope } = yield* intakeOf(options, "analyze", progress, { baseline: Option.getOrUndefined(options.baseline) })
          const { answer, body } = yield* trackRequest(progress, backend, options.pattern, backend.analyze(options.pattern, envelope))
          const text = options.format === "json"
            ? pretty(body)
            : withNewline((yield* Effect.promise(() => import("../../Diagnose/Render/AnalysisMarkdown.js"))).renderAnalysisMarkdown(answer))
          progress.stop()
          yield* emit(text, options.out)
          state.exitCode = reached(options.failOn, worst(answer.detection["severity"], answer.detection["findings"])) ? EXIT.failOn : EXIT.done
        }))
  ).pipe(
    Command.withDescription(
      describe(
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

/** Against a service, the request is one line with its elapsed time. */
const trackRequest = <A>(progress: ProgressView, backend: Backend, label: string, effect: Effect.Effect<A, CliFailure>) => {
  if (backend.where === "in-process") return effect
  const line = progress.request(`${label} → ${backend.where}`)
  return effect.pipe(Effect.onExit((exit) => Effect.sync(() => line.end(exit._tag === "Failure"))))
}

const reached = (threshold: Option.Option<SeverityName>, severity: number): boolean =>
  Option.isSome(threshold) && severity >= rank(threshold.value)

/** The report in an output of the registry, through its renderer (loaded on first use): text as it is, JSON indented. */
const renderReport = (format: (typeof OUTPUT_NAMES)[number], answer: DiagnoseAnswer, input: TraceInput, artifact: string) =>
  Effect.map(Effect.promise(() => loadRenderer(format)), (render) => {
    const rendered = render({ report: answer.report, context: { events: answer.events, artifact, body: input.text }, body: answer.body })
    return rendered._tag === "Text" ? withNewline(rendered.text) : pretty(rendered.value)
  })

/** Whether an output's renderer shows the run's events (against a service, one more request fetches them). */
const showsEvents = (format: string): boolean => DIAGNOSE_OUTPUTS.some((output) => output.name === format && output.events)

/**
 * SARIF's artifact location by default: the input file as given, relative to the working directory
 * when it lies inside it (the repository root in a CI job, as code scanning expects); standard
 * input is trace.json.
 */
const artifactOf = (path: string | undefined): string => {
  if (path === undefined) return "trace.json"
  const inside = relative(process.cwd(), resolve(path))
  return inside.length > 0 && !inside.startsWith("..") && !isAbsolute(inside) ? inside : path
}

/** Exit 3 when lenses were chosen and none of them ran. */
const noneRan = (report: DiagnoseReport): boolean => report.patterns.length > 0 && report.patterns.every((run) => run.error !== null)

const makeDiagnose = (state: CliState) =>
  Command.make(
    "diagnose",
    {
      file: traceFile,
      ...intake,
      ...run,
      patterns: optional(Options.text("patterns"), "Run exactly these patterns, comma-separated, instead of the ones triage picks."),
      maxPatterns: optional(Options.integer("max-patterns"), "How many of triage's best patterns run (default 5, at most 12)."),
      budgetTokens: optional(Options.integer("budget-tokens"), "The most tokens the lenses may spend (estimated before running); lenses beyond it are skipped."),
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
      runCommand(state, "diagnose", (progress) =>
        Effect.gen(function*() {
          const { backend, input, envelope } = yield* intakeOf(options, "diagnose", progress, {
            patterns: Option.getOrUndefined(Option.map(options.patterns, (list) => list.split(",").map((name) => name.trim()).filter((name) => name.length > 0))),
            max_patterns: Option.getOrUndefined(options.maxPatterns),
            budget_tokens: Option.getOrUndefined(options.budgetTokens)
          })
          const answer = yield* trackRequest(
            progress,
            backend,
            "diagnose",
            backend.diagnose(envelope, showsEvents(options.format))
          )
          const artifact = Option.getOrElse(options.artifact, () => artifactOf(input.path))
          const text = yield* renderReport(options.format, answer, input, artifact)
          progress.stop()
          yield* emit(text, options.out)
          const report = answer.report
          const failed = report.patterns.filter((run) => run.error !== null)
          if (failed.length > 0) {
            const kinds = Array.from(new Set(failed.map((run) => run.error?.kind ?? "error")))
            process.stderr.write(`svc diagnose: ${failed.length} of ${report.patterns.length} lenses did not run (${printable(kinds.join(", "))}); the report says why\n`)
          }
          state.exitCode = reached(options.failOn, worst(report.severity, report.findings))
            ? EXIT.failOn
            : noneRan(report)
            ? EXIT.noAnalysis
            : EXIT.done
        }))
  ).pipe(
    Command.withDescription(
      describe(
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

const makeNormalize = (state: CliState) =>
  Command.make(
    "normalize",
    { file: traceFile, from: intake.from, select: intake.select, ...remote },
    (options) =>
      runCommand(state, "normalize", (progress) =>
        Effect.gen(function*() {
          const { backend, envelope } = yield* intakeOf(options, "normalize", progress)
          const normalized = yield* trackRequest(progress, backend, "normalize", backend.normalize(envelope))
          progress.stop()
          yield* emit(pretty(normalized), Option.none())
        }))
  ).pipe(
    Command.withDescription(
      describe(
        "Print a trace as every pattern reads it: the format detected, the ordered events with their source pointers, history repeated across model calls de-duplicated. No model call.",
        [
          ["svc normalize run.json", "see what the service reads of a trace"],
          ["svc normalize export.jsonl --from langsmith --select 2", "the third trace of a LangSmith export"]
        ]
      )
    )
  )

const makePatterns = (state: CliState) =>
  Command.make(
    "patterns",
    {
      name: Args.text({ name: "NAME" }).pipe(Args.withDescription("A pattern: print its record (or its playbooks, citations, composition)."), Args.optional),
      playbooks: Options.boolean("playbooks").pipe(Options.withDescription("The pattern's playbooks (JSON).")),
      citations: Options.boolean("citations").pipe(Options.withDescription("The works behind the pattern (Markdown).")),
      composition: Options.boolean("composition").pipe(Options.withDescription("How the pattern composes with the others (JSON).")),
      json: Options.boolean("json").pipe(Options.withDescription("The list as JSON (GET /v1/patterns) instead of a table.")),
      ...remote
    },
    (options) =>
      runCommand(state, "patterns", (progress) =>
        Effect.gen(function*() {
          const backend = yield* backendOf(options, "svc patterns", progress)
          const parts = [options.playbooks && "playbooks", options.citations && "citations", options.composition && "composition"].filter(
            (part): part is "playbooks" | "citations" | "composition" => typeof part === "string"
          )
          const part = parts[0]
          if (parts.length > 1) return yield* new CliFailure({ kind: "usage", message: "give one of --playbooks, --citations, --composition" })
          if (Option.isNone(options.name)) {
            if (part !== undefined) return yield* new CliFailure({ kind: "usage", message: `--${part} needs a pattern NAME` })
            const list = yield* backend.patterns
            return yield* emit(options.json ? pretty(list) : patternTable(list), Option.none())
          }
          const value = yield* backend.pattern(options.name.value, part ?? "record")
          yield* emit(typeof value === "string" ? withNewline(value) : pretty(value), Option.none())
        }))
  ).pipe(
    Command.withDescription(
      describe("List the 34 patterns, or show one: its record, playbooks, citations or composition.", [
        ["svc patterns", "name, group and friendly name of each pattern"],
        ["svc patterns lencioni", "the pattern's record (JSON)"],
        ["svc patterns lencioni --citations", "the research behind it"],
        ["svc patterns --json --url http://127.0.0.1:8000", "the catalogue of a running service"]
      ])
    )
  )

/** The catalogue as a table: name, group, friendly name. */
const patternTable = (list: unknown): string => {
  const patterns: ReadonlyArray<unknown> = typeof list === "object" && list !== null ? asArray(Reflect.get(list, "patterns")) : []
  const rows = patterns.map((pattern) => {
    const field = (name: string): string => {
      const value: unknown = typeof pattern === "object" && pattern !== null ? Reflect.get(pattern, name) : undefined
      return typeof value === "string" ? value : ""
    }
    return [field("name"), field("group"), field("friendly")] as const
  })
  const width = (index: 0 | 1) => Math.max(...rows.map((row) => row[index].length), 4)
  return rows.map(([slug, family, friendly]) => `${slug.padEnd(width(0))}  ${family.padEnd(width(1))}  ${friendly}`).join("\n") + "\n"
}

const asArray = (value: unknown): ReadonlyArray<unknown> => (Array.isArray(value) ? value : [])

const makeMcp = (state: CliState) =>
  Command.make("mcp", {}, () =>
    Effect.gen(function*() {
      const { mcpStdioProgram } = yield* Effect.promise(() => import("../Mcp/StdioMain.js"))
      yield* mcpStdioProgram.pipe(exitOnFailure(state))
    })
  ).pipe(
    Command.withDescription(
      describe(
        "Serve MCP over stdio for a desktop client (Claude Desktop, Claude Code, Cursor): every pattern, svc_diagnose and svc_list_patterns as tools, playbooks and citations as resources. stdout carries only the protocol; logs go to stderr. SVC_API_KEY is the caller's key when SVC_API_REQUIRE_AUTH=true.",
        [["svc mcp", "what an MCP client's configuration runs (docs/mcp.md)"]]
      )
    )
  )

/** The `svc` command with its subcommands. */
export const makeSvc = (state: CliState) =>
  Command.make("svc").pipe(
    Command.withDescription(
      describe(
        "Read AI-agent runs through 34 organizational-behaviour frameworks: why a run failed and what to change, in named, cited terms. In this process by default (same configuration as the service, from the environment), or against a running service with --url.",
        [
          ["svc diagnose run.json", "the lenses that fit a run, one report"],
          ["svc analyze lewin run.json --mode quick", "one pattern"],
          ["svc patterns", "the catalogue"],
          ["svc --completions bash > ~/.local/share/bash-completion/completions/svc", "shell completions (bash, zsh, fish)"]
        ],
        [EXIT_CODES]
      )
    ),
    Command.withSubcommands([makeServe(state), makeAnalyze(state), makeDiagnose(state), makeNormalize(state), makePatterns(state), makeMcp(state)])
  )

