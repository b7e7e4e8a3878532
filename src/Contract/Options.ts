/**
 * The options of a request as the contract declares them (DECISIONS §3, §12, §13, §16), each with
 * its bounds and the message a bad value answers with: the envelopes of analyze, diagnose and
 * normalize (AnalyzeContract.ts, DiagnoseContract.ts, TracesContract.ts) are built from these, and
 * intake (src/Intake/Intake.ts, src/Intake/Requests.ts) decodes every option with the same schema, so a bound lives in
 * one place. `null` counts as absent for every option.
 */
import type * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { Mode } from "../Catalogue/Resources.js"
import { MODE_CHOICE, MODE_NAMES } from "../Registry/Derived.js"
import { FORMAT_OPTIONS, FormatOption } from "../Traces/Model.js"

/** How a refused value is shown in a message: text quoted and cut, anything else by its kind. */
const shown = (actual: unknown): string =>
  typeof actual === "string" ? JSON.stringify(actual.slice(0, 40)) : actual === null ? "null" : Array.isArray(actual) ? "a list" : `a ${typeof actual}`

/** The schema, answering a value it refuses with `message` (naming the option) and the value seen. */
const refusing = <A, I>(schema: Schema.Schema<A, I>, message: string) =>
  schema.annotations({
    message: (issue: ParseResult.ParseIssue) => ({ message: `${message} (got ${shown("actual" in issue ? issue.actual : undefined)})`, override: true })
  })

export const ModeOption = refusing(
  Schema.NullOr(Mode).annotations({ description: `${MODE_CHOICE}; null counts as absent.` }),
  `mode must be one of ${MODE_NAMES.join(", ")}`
)

export const ModelId = Schema.String.pipe(Schema.pattern(/^\s*[^\s\p{Cc}]{1,200}\s*$/u)).annotations({
  identifier: "ModelId",
  description:
    "Model to call; a `provider:model` prefix (anthropic:, openai:, local:) selects the provider. Default: the provider's default model. At most 200 characters, no spaces."
})
export const ModelOption = refusing(Schema.NullOr(ModelId), "model must be a non-empty model identifier of at most 200 characters without spaces")

export const BaselineId = Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9_-]{1,64}$/)).annotations({
  identifier: "BaselineId",
  description: "Id of a stored baseline detection to compare against ([A-Za-z0-9_-]{1,64})."
})
export const BaselineOption = refusing(Schema.NullOr(BaselineId), "baseline must be an id of 1-64 characters of [A-Za-z0-9_-] (never a path)")

export const FormatOptionValue = refusing(Schema.NullOr(FormatOption), `format must be one of ${FORMAT_OPTIONS.join(", ")}`)

export const TraceSelect = Schema.Union(
  Schema.String.pipe(Schema.minLength(1), Schema.maxLength(256)),
  Schema.Int.pipe(Schema.nonNegative())
).annotations({
  identifier: "TraceSelect",
  description: "Which trace to analyse when the body holds several: a trace id (1-256 characters), or an index in the order normalize lists them."
})
export const SelectOption = refusing(Schema.NullOr(TraceSelect), "select must be a trace id (a string of 1-256 characters) or an index (an integer >= 0)")

export const TraceHints = Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
  identifier: "TraceHints",
  description:
    "The pattern's extra input fields that a raw trace cannot hold (e.g. `pressure`, `self_report`, `task_class`), by the names of the pattern's own input schema; they win over values derived from the trace. The PatternRecord's `needs` says which a pattern requires. `ground_truth` (a string: the task's correct final answer, when known) is read by every lens of a raw trace (`svc eval --with-ground-truth`, docs/eval.md)."
})
export const HintsOption = refusing(Schema.NullOr(TraceHints), "hints must be an object of the pattern's extra input fields")

/** Diagnose: how many patterns may run, and how many of triage's best run by default. */
import { DEFAULT_MAX_PATTERNS, MAX_PATTERNS } from "../Registry/Modes.js"

export { DEFAULT_MAX_PATTERNS, MAX_PATTERNS }

export const PatternNames = refusing(
  Schema.NullOr(
    Schema.Array(Schema.String).pipe(Schema.minItems(1), Schema.maxItems(MAX_PATTERNS)).annotations({
      description: `Run exactly these patterns (1 to ${MAX_PATTERNS}) instead of the ones triage picks.`
    })
  ),
  `patterns must be a list of 1 to ${MAX_PATTERNS} pattern names`
)

export const MaxPatterns = refusing(
  Schema.NullOr(
    Schema.Int.pipe(Schema.between(1, MAX_PATTERNS)).annotations({
      description: `How many of triage's best patterns run (default ${DEFAULT_MAX_PATTERNS}, at most ${MAX_PATTERNS}).`
    })
  ),
  `max_patterns must be an integer from 1 to ${MAX_PATTERNS}`
)

/** The bounds of `budget_tokens`. */
export const BUDGET_TOKENS = { min: 1_000, max: 100_000_000 } as const

export const BudgetTokens = refusing(
  Schema.NullOr(
    Schema.Int.pipe(Schema.between(BUDGET_TOKENS.min, BUDGET_TOKENS.max)).annotations({
      description: "The most tokens (in and out, estimated by mode before running) the lenses may spend; lenses beyond it are skipped and say so."
    })
  ),
  "budget_tokens must be an integer from 1000 to 100000000 (tokens in and out across the lenses)"
)
