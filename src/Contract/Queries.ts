/**
 * The list queries' schemas (issue 51): each decodes the text of a URL into what it means, so the
 * services take values, not strings, and OpenAPI shows the decoded type (Effect renders a
 * transformation from a string as `type: string` unless it is annotated, so each one is). REST's
 * query, the typed client, MCP's arguments (their typed side: a number for `limit`) and the CLI's
 * flags go through these same schemas, and a refusal names the parameter and says what it takes.
 * Schemas only (no HttpApi): the `svc runs` and `svc problems` commands decode their flags with
 * them without loading the contract.
 */
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { Severity } from "../Catalogue/Severity.js"
import { DEFAULT_PAGE, MAX_PAGE, ProblemStatus, RunStatus } from "./Statuses.js"

/** A label's key: `[a-z0-9_.-]{1,64}`. */
export const LABEL_KEY = /^[a-z0-9_.-]{1,64}$/

const refuseNul = (value: string) => !value.includes("\u0000") || "holds U+0000, which no identifier or parameter may hold"
const NUL_FREE = { jsonSchema: { pattern: "^[^\\u0000]*$" } }

/**
 * Text without U+0000, for every identifier and parameter the runs and problems APIs take (ids,
 * `external_id`, labels, filters, versions, compare values): neither store keeps it in text
 * (SQLite cuts the text there, PostgreSQL refuses it), so it is refused here, once for every
 * surface. Trace content may hold it (the store escapes it there).
 */
export const NulFreeText = Schema.String.pipe(Schema.filter(refuseNul, NUL_FREE))

/**
 * A query parameter's value: text without U+0000, given once. A parameter given twice reaches the
 * schema as a list (`?label=a&label=b`), refused with a message saying so rather than a type's.
 */
export const QueryText = Schema.String.annotations({
  message: (issue) => (Array.isArray(issue.actual) ? "given more than once; give it once" : "expected a string")
}).pipe(Schema.filter(refuseNul, NUL_FREE))

const query = (description: string) => Schema.optional(QueryText.annotations({ description }))

/** The refusal of a value outside a literal set in a query, naming the set. */
export const literalRefusal = (name: string, literals: ReadonlyArray<string>) => (issue: ParseResult.ParseIssue) => ({
  message: Array.isArray(issue.actual)
    ? "given more than once; give it once"
    : typeof issue.actual === "string" && issue.actual.includes("\u0000")
    ? `${name} holds U+0000, which no identifier or parameter may hold`
    : `${name} must be one of ${literals.join(", ")}${typeof issue.actual === "string" ? ` (got ${JSON.stringify(issue.actual.slice(0, 40))})` : ""}`,
  override: true
})

/** One value of a literal set in a query, refused with the set named. */
export const queryLiteral = <const L extends ReadonlyArray<string>>(name: string, literals: L, description: string) =>
  Schema.optional(Schema.Literal(...literals).annotations({ description, message: literalRefusal(name, literals) }))

/** A page's size: an integer 1-MAX_PAGE, given as text in a URL. */
export const PageLimit = Schema.compose(QueryText, Schema.NumberFromString).pipe(
  Schema.int(),
  Schema.between(1, MAX_PAGE)
).annotations({
  identifier: "PageLimit",
  description: `Entries per page, 1-${MAX_PAGE} (default ${DEFAULT_PAGE}).`,
  jsonSchema: { type: "integer", minimum: 1, maximum: MAX_PAGE, description: `Entries per page, 1-${MAX_PAGE} (default ${DEFAULT_PAGE}).` },
  message: (issue) => ({ message: Array.isArray(issue.actual) ? "given more than once; give it once" : `limit must be an integer 1-${MAX_PAGE}`, override: true })
})

/** A time in a query: ISO-8601 text, decoded to milliseconds since the epoch. */
export const QueryTime = Schema.transformOrFail(QueryText, Schema.Number, {
  strict: true,
  decode: (text, _, ast) => {
    const ms = Date.parse(text)
    return Number.isFinite(ms) ? ParseResult.succeed(ms) : ParseResult.fail(new ParseResult.Type(ast, text, `an ISO-8601 time is expected (got ${JSON.stringify(text.slice(0, 40))})`))
  },
  encode: (ms) => ParseResult.succeed(new Date(ms).toISOString())
})

/** An optional time parameter (OpenAPI: a `date-time` string). */
export const queryTime = (description: string) =>
  Schema.optional(QueryTime.annotations({ description, jsonSchema: { type: "string", format: "date-time", description } }))

/** A label in a query, `key:value`: decoded to its key and value (the value may hold `:`). */
export const QueryLabel = Schema.transformOrFail(QueryText, Schema.Tuple(Schema.String, Schema.String), {
  strict: true,
  decode: (text, _, ast) => {
    const at = text.indexOf(":")
    const key = at < 0 ? "" : text.slice(0, at)
    return at > 0 && LABEL_KEY.test(key)
      ? ParseResult.succeed([key, text.slice(at + 1)] as const)
      : ParseResult.fail(new ParseResult.Type(ast, text, "label must be key:value, the key of 1-64 characters of [a-z0-9_.-]"))
  },
  encode: ([key, value]) => ParseResult.succeed(`${key}:${value}`)
})

/** An optional label parameter (OpenAPI: a `key:value` string). */
export const queryLabel = (description: string) =>
  Schema.optional(QueryLabel.annotations({ description, jsonSchema: { type: "string", pattern: "^[a-z0-9_.-]{1,64}:", description } }))

export const RunFilterParams = Schema.Struct({
  status: queryLiteral("status", RunStatus.literals, "Only runs in this state."),
  severity: queryLiteral("severity", Severity.literals, "Only done runs of this severity."),
  pattern: query("Only done runs with a finding of this pattern."),
  problem: query("Only the runs of this problem (DECISIONS §24): a problem's id, as `GET /v1/problems` gives it."),
  label: queryLabel("Only runs with this label, as `key:value`."),
  external_id: query("The run with this external id."),
  trace_id: query("The runs of this trace id (the source's own: an OTel trace id in hex, a run id)."),
  since: queryTime("Submitted at or after this time (ISO-8601)."),
  until: queryTime("Submitted before this time (ISO-8601).")
})
/** A runs filter, decoded. */
export type RunFilterQuery = typeof RunFilterParams.Type

/** A page: its size and the previous page's cursor. */
export const PageParams = Schema.Struct({
  limit: Schema.optional(PageLimit),
  cursor: query("The `next_cursor` of the previous page.")
})

export const RunListParams = Schema.Struct({
  ...RunFilterParams.fields,
  ...PageParams.fields
})

export const ProblemListParams = Schema.Struct({
  status: queryLiteral("status", ProblemStatus.literals, "Only problems in this status."),
  severity: RunFilterParams.fields.severity,
  pattern: query("Only problems with a finding of this pattern."),
  label: queryLabel("Only problems seen on a run with this label, as `key:value`."),
  since: queryTime("Seen at or after this time (ISO-8601)."),
  until: queryTime("Last seen before this time (ISO-8601)."),
  ...PageParams.fields
})
/** A problems filter and page, decoded. */
export type ProblemListQuery = typeof ProblemListParams.Type

