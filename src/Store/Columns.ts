/**
 * Rows by schema: the column schemas every store's row schemas are made of, as both drivers return
 * them (libsql: integers as numbers; PostgreSQL: BIGINT, COUNT and SUM as digits, INTEGER as
 * numbers), and the store's queries run through `SqlSchema` with a row that fails its schema made a
 * defect (`MalformedRow`, docs/architecture.md "Rows by schema"): rows are written by the stores
 * alone, so one that does not decode is a database changed outside the service, never skipped
 * silently.
 */
import * as SqlSchema from "@effect/sql/SqlSchema"
import type * as SqlClient from "@effect/sql/SqlClient"
import type * as Statement from "@effect/sql/Statement"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { identity } from "effect/Function"
import * as ParseResult from "effect/ParseResult"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"

// Each column is one declaration that checks and converts in one step, not a transformation
// between two schemas or a union: a list decodes some twenty columns a row, and each
// transformation or union node costs a few tenths of a microsecond a row (docs/architecture.md,
// "Rows by schema", has the measurement).

const DIGITS = /^-?\d+$/

/** A column decoded by `read` (undefined: not one, failing with `expected`) and encoded by `write`. */
const column = <A, I>(
  identifier: string,
  expected: string,
  read: (value: unknown) => A | undefined,
  isA: (value: unknown) => value is A,
  write: (value: A) => I
) =>
  Schema.declare([], {
    decode: () => (value, _, ast) => {
      const decoded = read(value)
      return decoded === undefined ? ParseResult.fail(new ParseResult.Type(ast, value, expected)) : ParseResult.succeed(decoded)
    },
    encode: () => (value, _, ast) => (isA(value) ? ParseResult.succeed(write(value)) : ParseResult.fail(new ParseResult.Type(ast, value, expected)))
  }, { identifier, description: expected })

const integerOf = (value: unknown): number | undefined =>
  typeof value === "number" ? value : typeof value === "string" && DIGITS.test(value) ? Number(value) : undefined

/** An integer column: a number, or digits (PostgreSQL's BIGINT, COUNT and SUM as the driver reads them). */
export const BigIntColumn = column("BigIntColumn", "an integer, or its digits", integerOf, Predicate.isNumber, identity)

/** A nullable integer column. */
export const NullableBigIntColumn = column(
  "NullableBigIntColumn",
  "null, an integer, or its digits",
  (value) => (value === null ? null : integerOf(value)),
  (value): value is number | null => value === null || Predicate.isNumber(value),
  identity
)

/** A count (`COUNT(*) AS n`). */
export const CountRow = Schema.Struct({ n: BigIntColumn }).annotations({ identifier: "CountRow" })

/** A nullable text column. */
export const NullableText = Schema.declare((value: unknown): value is string | null => value === null || typeof value === "string", {
  identifier: "NullableText",
  description: "a string or null"
})

const isStringRecord = (value: unknown): value is Record<string, string> =>
  Predicate.isRecord(value) && Object.values(value).every((item) => typeof item === "string")

/** Labels as a column keeps them: a JSON object of strings. */
export const LabelsColumn = column("LabelsColumn", "a JSON object of strings", (value) => {
  if (typeof value !== "string") return undefined
  const parsed = Either.try((): unknown => JSON.parse(value))
  return Either.isRight(parsed) && isStringRecord(parsed.right) ? parsed.right : undefined
}, isStringRecord, (labels) => JSON.stringify(labels))

/** A JSON list of strings in a nullable column (none: empty). */
export const StringListColumn = Schema.transform(
  Schema.NullOr(Schema.parseJson(Schema.Array(Schema.String))),
  Schema.Array(Schema.String),
  { strict: true, decode: (list) => list ?? [], encode: (list) => list }
).annotations({ identifier: "StringListColumn" })

/** A row of a statement that failed its schema: a defect, naming the query and what did not decode. */
export class MalformedRow extends Data.TaggedError("MalformedRow")<{ readonly query: string; readonly message: string }> {}

/** A query's ParseError as the defect it is; the statement's own failures (SqlError) stay failures. */
const rowsOrDie = (query: string) => <A, E, R>(effect: Effect.Effect<A, E | ParseResult.ParseError, R>): Effect.Effect<A, Exclude<E, ParseResult.ParseError>, R> =>
  Effect.catchIf(
    effect,
    (error): error is ParseResult.ParseError => ParseResult.isParseError(error),
    (error) => Effect.die(new MalformedRow({ query, message: ParseResult.TreeFormatter.formatErrorSync(error) }))
  )

interface Query<IA, II, A, AI, E, R> {
  /** Named in a malformed row's defect. */
  readonly name: string
  readonly Request: Schema.Schema<IA, II>
  readonly Result: Schema.Schema<A, AI>
  readonly execute: (request: II) => Effect.Effect<ReadonlyArray<unknown>, E, R>
}

/** `SqlSchema.findAll` with a malformed row a defect. Built once per query, not per call (its decoder is compiled then). */
export const findAll = <IA, II, A, AI, E, R>(query: Query<IA, II, A, AI, E, R>) => {
  const run = SqlSchema.findAll(query)
  const orDie = rowsOrDie(query.name)
  return (request: IA): Effect.Effect<ReadonlyArray<A>, Exclude<E, ParseResult.ParseError>, R> => orDie(run(request))
}

/** `SqlSchema.findOne` with a malformed row a defect. */
export const findOne = <IA, II, A, AI, E, R>(query: Query<IA, II, A, AI, E, R>) => {
  const run = SqlSchema.findOne(query)
  const orDie = rowsOrDie(query.name)
  return (request: IA) => orDie(run(request))
}

/**
 * The rows of a statement the caller builds (a write whose SQL depends on what it writes, and
 * returns a row), decoded as `Result` with a malformed row a defect: SqlSchema's decoding without
 * its request. Built once per row shape, not per call.
 */
export const rows = <A, AI>(name: string, Result: Schema.Schema<A, AI>) => {
  const decode = Schema.decodeUnknown(Schema.Array(Result))
  const orDie = rowsOrDie(name)
  return <E, R>(statement: Effect.Effect<ReadonlyArray<unknown>, E, R>): Effect.Effect<ReadonlyArray<A>, Exclude<E, ParseResult.ParseError>, R> =>
    orDie(Effect.flatMap(statement, decode))
}

/** A run whose `labels` column has `key` = `value`, in the client's dialect (runs' and compare's filter). */
export const labelEquals = (sql: SqlClient.SqlClient, key: string, value: string): Statement.Fragment =>
  sql.onDialectOrElse({
    pg: () => sql`(labels::jsonb ->> ${key}) = ${value}`,
    orElse: () => sql`json_extract(labels, ${`$."${key}"`}) = ${value}`
  })

