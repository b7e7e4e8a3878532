/**
 * The options and arguments several commands share: where the command runs (--url, --api-key),
 * the trace it reads (FILE, --from, --select, --hints), how it is analysed (--mode, --model) and
 * where the result goes (--out). The choices come from the registries (src/Registry/): help,
 * usage errors and completions name them.
 */
import * as Args from "@effect/cli/Args"
import * as Options from "@effect/cli/Options"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { FORMAT_OPTIONS, MODE_NAMES, MODES_DESCRIBED } from "../../Registry/Derived.js"

/** An option that may be left out, with its help line. */
export const optional = <A>(option: Options.Options<A>, description: string) => option.pipe(Options.withDescription(description), Options.optional)

export const remote = {
  url: optional(Options.text("url"), "Ask the service at this address instead of running in this process (e.g. http://127.0.0.1:8000)."),
  apiKey: optional(Options.redacted("api-key"), "The API key for --url (default: SVC_API_KEY; in-process, SVC_API_KEY alone is read).")
}

export const traceFile = Args.text({ name: "FILE" }).pipe(
  Args.withDescription("The trace file (JSON or JSON Lines); - or nothing reads standard input."),
  Args.optional
)

export const intake = {
  from: optional(Options.choice("from", FORMAT_OPTIONS), "The trace's format (default: detected)."),
  select: optional(Options.text("select"), "Which trace of a file that holds several: its id, or its index as `svc normalize` lists them."),
  hints: optional(Options.text("hints"), "Extra input fields a raw trace cannot hold: a JSON object, or a file holding one."),
  maxBytes: optional(
    Options.integer("max-bytes").pipe(Options.withSchema(Schema.Int.pipe(Schema.greaterThanOrEqualTo(1024)))),
    "Read a trace file of up to this many bytes (default: SVC_API_MAX_BODY_BYTES, 5 MiB); in-process the service takes it too, and as many characters of content. A service at --url keeps its own limit."
  )
}

export const run = {
  mode: optional(Options.choice("mode", MODE_NAMES), `${MODES_DESCRIBED}.`),
  model: optional(Options.text("model"), "The model, with an optional provider prefix (anthropic:, openai:, local:).")
}

/** The lenses of a diagnose (`svc diagnose`, `svc runs submit`). */
export const lenses = {
  patterns: optional(Options.text("patterns"), "Run exactly these patterns, comma-separated, instead of the ones triage picks."),
  maxPatterns: optional(Options.integer("max-patterns"), "How many of triage's best patterns run (default 5, at most 12)."),
  budgetTokens: optional(Options.integer("budget-tokens"), "The most tokens the lenses may spend (estimated before running); lenses beyond it are skipped.")
}

/** The lens options as the request's fields (`patterns`, `max_patterns`, `budget_tokens`), the ones given. */
export const lensFields = (options: {
  readonly patterns: Option.Option<string>
  readonly maxPatterns: Option.Option<number>
  readonly budgetTokens: Option.Option<number>
}) => ({
  patterns: Option.getOrUndefined(Option.map(options.patterns, (list) => list.split(",").map((name) => name.trim()).filter((name) => name.length > 0))),
  max_patterns: Option.getOrUndefined(options.maxPatterns),
  budget_tokens: Option.getOrUndefined(options.budgetTokens)
})

export const out = optional(Options.file("out"), "Write the result to this file instead of standard output.")
