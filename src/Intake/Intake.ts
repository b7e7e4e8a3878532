/**
 * From a parsed body to an analysis request, in the order of DECISIONS §3: trace limits (413),
 * mode (400 invalid_mode), then the pattern's schema (400 validation_error naming field paths).
 * Pure functions; no I/O.
 */
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import type { PatternCode, ValidatedTrace } from "../Catalogue/Pattern.js"
import type { Mode } from "../Catalogue/Resources.js"
import {
  BaselineOption,
  BudgetTokens,
  DEFAULT_MAX_PATTERNS,
  FormatOptionValue,
  HintsOption,
  MaxPatterns,
  ModelOption,
  ModeOption,
  PatternNames,
  SelectOption
} from "../Contract/Options.js"
import type { AppConfigShape } from "../Config.js"
import { InvalidMode, RequestTooLarge, ValidationError } from "../Errors.js"
import { DEFAULT_MODE } from "../Registry/Modes.js"
import type { FormatOption } from "../Traces/Model.js"

export const MAX_NESTING_DEPTH = 64
const OPTION_KEYS = new Set(["mode", "model", "baseline"])
const UNSAFE_KEYS = new Set(["__proto__", "constructor", "prototype"])

export interface BodyParts {
  /** The trace: the pattern's own shape (an object) or a raw trace in a supported format. */
  readonly trace: unknown
  /** True when the body itself was a raw trace (an array, or recognisably a format): no options. */
  readonly raw: boolean
  readonly mode: unknown
  readonly model: unknown
  readonly baseline: unknown
  readonly format: unknown
  readonly select: unknown
  readonly hints: unknown
}

/** The options a request may give as query parameters (DECISIONS §16), as their text. */
export const QUERY_OPTIONS = ["format", "select", "mode", "model", "patterns", "max_patterns", "budget_tokens"] as const
export type QueryOptions = { readonly [Name in (typeof QUERY_OPTIONS)[number]]?: string | undefined }
export const NO_QUERY: QueryOptions = {}

/** The options of a request target's query (`/v1/diagnose?select=1&mode=quick`); others are ignored. */
export const queryOptions = (target: string): QueryOptions => {
  const at = target.indexOf("?")
  if (at < 0) return NO_QUERY
  const params = new URLSearchParams(target.slice(at + 1))
  const options: Partial<Record<(typeof QUERY_OPTIONS)[number], string>> = {}
  for (const name of QUERY_OPTIONS) {
    const value = params.get(name)
    if (value !== null) options[name] = value
  }
  return options
}

/** `?select=`: digits are an index (`?select=1`, the second trace), any other text a trace id. */
const querySelect = (select: string | undefined): string | number | undefined =>
  select === undefined ? undefined : /^\d{1,9}$/.test(select) ? Number(select) : select

/** A query number as a number when it is one (`?max_patterns=3`); other text stays text, for the check to refuse. */
export const queryNumber = (value: string | undefined): number | string | undefined =>
  value === undefined ? undefined : /^\d{1,15}$/.test(value) ? Number(value) : value

/** `?patterns=a,b`: the names as a list. */
export const queryList = (value: string | undefined): Array<string> | undefined =>
  value === undefined ? undefined : value.split(",").map((name) => name.trim()).filter((name) => name.length > 0)

/**
 * The three body forms (DECISIONS §3, §12): a raw trace as it is (an array, or an object
 * recognisably in a supported format: its own `model`, `mode` or `trace` fields are trace data,
 * never options; so a Langfuse export `{trace, observations}` or a MAD record `{mas_name, trace}`,
 * which `recognised` (the importers' detection) claims, is never taken for the envelope); the
 * envelope `{trace, mode?, model?, baseline?, format?, select?, hints?}` when
 * `trace` is an object or an array; otherwise the flat native trace minus the option keys.
 * Options missing from the body come from the query (`query`), raw bodies' options only from it.
 */
export const splitBody = (
  body: Record<string, unknown> | Array<unknown>,
  recognised: (body: unknown) => boolean,
  query: QueryOptions = NO_QUERY
): BodyParts => {
  const none = { mode: query.mode, model: query.model, baseline: undefined, format: query.format, select: querySelect(query.select), hints: undefined }
  if (Array.isArray(body) || recognised(body)) return { trace: body, raw: true, ...none }
  const envelopeTrace = body["trace"]
  // The envelope wins where it and the query both give an option (DECISIONS §16).
  if (Predicate.isRecord(envelopeTrace) || Array.isArray(envelopeTrace)) {
    return {
      trace: envelopeTrace,
      raw: false,
      mode: body["mode"] ?? none.mode,
      model: body["model"] ?? none.model,
      baseline: body["baseline"],
      format: body["format"] ?? none.format,
      select: body["select"] ?? none.select,
      hints: body["hints"]
    }
  }
  // The body is the trace when it holds no option key (no copy: a flat body can hold hundreds of
  // thousands of keys); else a copy without them (spread copies own keys as data, `__proto__` too).
  let trace = body
  for (const key of OPTION_KEYS) {
    if (!Object.hasOwn(body, key)) continue
    if (trace === body) trace = { ...body }
    delete trace[key]
  }
  return { ...none, trace, raw: false, mode: body["mode"] ?? none.mode, model: body["model"] ?? none.model, baseline: body["baseline"] }
}


/**
 * One option decoded by its own schema in the contract (src/Contract/Options.ts): the bounds and
 * the message of a bad value live there; null and absent are the same.
 */
const decodeOption = <A, I>(schema: Schema.Schema<A | null, I | null>) => {
  const decode = Schema.decodeUnknownEither(schema)
  return (value: unknown): Either.Either<A | null, string> =>
    value === undefined ? Either.right(null) : Either.mapLeft(decode(value), (error) => ParseResult.TreeFormatter.formatErrorSync(error))
}
const decodeFormat = decodeOption(FormatOptionValue)
const decodeSelect = decodeOption(SelectOption)
const decodeHints = decodeOption(HintsOption)
const decodeMode = decodeOption(ModeOption)
const decodeModel = decodeOption(ModelOption)
const decodeBaseline = decodeOption(BaselineOption)
const refused = (message: string) => new ValidationError({ message })

/** `format` absent or null means auto. */
export const resolveFormat = (format: unknown): Either.Either<FormatOption, ValidationError> =>
  Either.mapBoth(decodeFormat(format), { onLeft: refused, onRight: (value) => value ?? "auto" })

/**
 * `hints`: an object of the pattern's extra input fields, absent by default. Taken as it is (no
 * copy): each pattern reads only its own input fields from it (`hintsFor`), so a body with
 * hundreds of thousands of other keys costs nothing per lens.
 */
export const resolveHints = (hints: unknown): Either.Either<Readonly<Record<string, unknown>>, ValidationError> =>
  Either.mapBoth(decodeHints(hints), { onLeft: refused, onRight: (value) => value ?? {} })

/** The hints one pattern reads: those of its input fields the object holds as its own. */
export const hintsFor = (hints: Readonly<Record<string, unknown>>, fields: ReadonlySet<string>): Readonly<Record<string, unknown>> => {
  const own: Record<string, unknown> = {}
  for (const field of fields) {
    if (!UNSAFE_KEYS.has(field) && Object.hasOwn(hints, field)) own[field] = hints[field]
  }
  return own
}

/** `select`: a trace id or an index, when a body holds several traces. */
export const resolveSelect = (select: unknown): Either.Either<string | number | undefined, ValidationError> =>
  Either.mapBoth(decodeSelect(select), { onLeft: refused, onRight: (value) => value ?? undefined })

export type Limits = AppConfigShape["limits"]

/**
 * One iterative walk over the trace: nesting depth, per-string and total characters, sequence
 * lengths. It also deletes prototype-polluting keys so nothing downstream ever sees them.
 */
export const checkTraceLimits = (
  trace: Record<string, unknown>,
  code: PatternCode,
  limits: Limits
): Either.Either<void, RequestTooLarge | ValidationError> => {
  for (const { field, limit } of code.sequences) {
    const value = trace[field]
    if (!Array.isArray(value)) continue
    const [max, variable] = limit === "messages"
      ? [limits.maxMessages, "SVC_API_MAX_MESSAGES"]
      : [limits.maxTraceSteps, "SVC_API_MAX_TRACE_STEPS"]
    if (value.length > max) {
      return Either.left(
        new RequestTooLarge({
          message: `${field} has ${value.length} elements, more than the limit of ${max}; raise ${variable} or split the trace`
        })
      )
    }
  }
  const declared = new Set(code.sequences.map(({ field }) => `trace.${field}`))
  let total = 0
  // A string's path is spelled out only for the error that names it: a trace has many strings.
  const checkText = (value: string, parent: string, key: string | number): RequestTooLarge | undefined => {
    if (value.length > limits.maxStringChars) {
      const path = typeof key === "number" ? `${parent}[${key}]` : `${parent}.${key}`
      return new RequestTooLarge({
        message: `${path} has ${value.length} characters, more than the per-string limit of ${limits.maxStringChars}; raise SVC_API_MAX_STRING_CHARS`
      })
    }
    total += value.length
    return total > limits.maxTotalChars
      ? new RequestTooLarge({
        message: `the trace has more than ${limits.maxTotalChars} characters of text in total; raise SVC_API_MAX_TOTAL_CHARS or condense the trace`
      })
      : undefined
  }
  // Only objects and lists are stacked; strings are checked where they are found.
  const stack: Array<{ readonly value: object; readonly depth: number; readonly path: string }> = [
    { value: trace, depth: 0, path: "trace" }
  ]
  while (stack.length > 0) {
    const item = stack.pop()
    if (item === undefined) break
    const { value, depth, path } = item
    if (depth >= MAX_NESTING_DEPTH) {
      return Either.left(new ValidationError({ message: `${path} is nested more than ${MAX_NESTING_DEPTH} levels deep` }))
    }
    if (Array.isArray(value)) {
      // Lists the pattern does not declare as sequences are still bounded by the steps limit.
      if (depth > 0 && value.length > limits.maxTraceSteps && !declared.has(path)) {
        return Either.left(
          new RequestTooLarge({
            message: `${path.slice("trace.".length)} has ${value.length} elements, more than the limit of ${limits.maxTraceSteps}; raise SVC_API_MAX_TRACE_STEPS`
          })
        )
      }
      for (let i = value.length - 1; i >= 0; i--) {
        const element: unknown = value[i]
        if (typeof element === "string") {
          const failure = checkText(element, path, i)
          if (failure !== undefined) return Either.left(failure)
        } else if (typeof element === "object" && element !== null) {
          stack.push({ value: element, depth: depth + 1, path: `${path}[${i}]` })
        }
      }
      continue
    }
    if (!Predicate.isRecord(value)) continue
    for (const key of Object.keys(value)) {
      if (UNSAFE_KEYS.has(key)) {
        delete value[key]
        continue
      }
      const field: unknown = value[key]
      if (typeof field === "string") {
        const failure = checkText(field, path, key)
        if (failure !== undefined) return Either.left(failure)
      } else if (typeof field === "object" && field !== null) {
        stack.push({ value: field, depth: depth + 1, path: `${path}.${key}` })
      }
    }
  }
  return Either.void
}

/** `mode` absent or null means the default (standard); anything outside the registry's modes is invalid_mode. */
export const resolveMode = (mode: unknown): Either.Either<Mode, InvalidMode> =>
  Either.mapBoth(decodeMode(mode), { onLeft: (message) => new InvalidMode({ message }), onRight: (value) => value ?? DEFAULT_MODE })

/** `model` absent or null: the provider's default; surrounding spaces are not part of it. */
export const resolveModel = (model: unknown): Either.Either<string | null, ValidationError> =>
  Either.mapBoth(decodeModel(model), { onLeft: refused, onRight: (value) => (value === null ? null : value.trim()) })

export const resolveBaseline = (baseline: unknown): Either.Either<string | null, ValidationError> =>
  Either.mapLeft(decodeBaseline(baseline), refused)

/** Formats schema issues as `path: message`, naming field paths; at most 10. */
export const formatParseError = (error: ParseResult.ParseError): string => {
  const issues = ParseResult.ArrayFormatter.formatErrorSync(error)
  const lines = issues.slice(0, 10).map((issue) =>
    `${issue.path.length === 0 ? "(trace)" : issue.path.map(String).join(".")}: ${issue.message}`
  )
  const more = issues.length > 10 ? `; and ${issues.length - 10} more` : ""
  return `the trace does not match the pattern's input schema: ${lines.join("; ")}${more}`
}

export const validateTrace = (
  code: PatternCode,
  trace: Record<string, unknown>
): Either.Either<ValidatedTrace, ValidationError> =>
  Either.mapLeft(code.validate(trace), (error) => new ValidationError({ message: formatParseError(error) }))

/** The diagnose options decoded by their schemas in the contract (src/Contract/Options.ts). */
const decodePatterns = Schema.decodeUnknownEither(PatternNames)
const decodeMaxPatterns = Schema.decodeUnknownEither(MaxPatterns)
const decodeBudget = Schema.decodeUnknownEither(BudgetTokens)
const refusal = (error: ParseResult.ParseError) => new ValidationError({ message: ParseResult.TreeFormatter.formatErrorSync(error) })

export const resolvePatterns = (value: unknown, known: (slug: string) => boolean): Either.Either<ReadonlyArray<string> | undefined, ValidationError> => {
  if (value === undefined || value === null) return Either.right(undefined)
  return Either.flatMap(Either.mapLeft(decodePatterns(value), refusal), (names) => {
    const unknown = (names ?? []).filter((name) => !known(name))
    if (unknown.length > 0) {
      return Either.left(new ValidationError({ message: `patterns names no pattern called ${unknown.map((name) => JSON.stringify(name.slice(0, 60))).join(", ")}; GET /v1/patterns lists them` }))
    }
    return Either.right(names === null ? undefined : Array.from(new Set(names)))
  })
}

export const resolveMaxPatterns = (value: unknown): Either.Either<number, ValidationError> =>
  value === undefined ? Either.right(DEFAULT_MAX_PATTERNS) : Either.mapBoth(decodeMaxPatterns(value), { onLeft: refusal, onRight: (n) => n ?? DEFAULT_MAX_PATTERNS })

export const resolveBudget = (value: unknown): Either.Either<number | null, ValidationError> =>
  value === undefined ? Either.right(null) : Either.mapLeft(decodeBudget(value), refusal)
