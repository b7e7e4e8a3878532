/**
 * The typed request of each operation that reads a trace (DECISIONS §16), read from a parsed
 * body (and, over REST, the query's options) in two phases, keeping §3's order:
 * 1. lax (`readTraceIntake`): the envelope's shape, where the trace is, its `format` and `select`,
 *    so the trace can be normalized and its limits checked (413) before anything else is judged;
 * 2. the trace admitted (`admitTrace`, analyze only): native or raw, normalized, limits (413);
 * 3. strict (`decodeAnalyzeOptions`, `decodeDiagnoseOptions`): every other option decoded by its
 *    schema in the contract (src/Contract/Options.ts), 400 naming it (`invalid_mode` for the mode).
 * Every surface's effect (AnalyzeService, DiagnoseService, TraceReader) starts here; what is left
 * of intake is the pattern's own schema (Analysis/RawTraces.ts `validateAdmitted`). Redaction
 * (DECISIONS §20) happens here too, once: each trace as it is read (before its limits), a native
 * trace and the hints as they are admitted; everything after (limits, cache key, logs, renderers,
 * the provider) sees only redacted text.
 */
import * as Either from "effect/Either"
import * as Predicate from "effect/Predicate"
import type { CatalogueEntry } from "../Catalogue/Catalogue.js"
import type { PatternCode } from "../Catalogue/Pattern.js"
import type { Mode } from "../Catalogue/Resources.js"
import { type InvalidMode, type RequestTooLarge, type UnsupportedTraceFormat, ValidationError } from "../Errors.js"
import { NO_CONTENT_MESSAGE } from "../Traces/ContentSettings.js"
import type { FormatOption, NormalizedTrace, TraceFormat } from "../Traces/Model.js"
import { fitsSequence } from "../Traces/Native.js"
import type { Limits } from "../Traces/Normalize.js"
import type { TraceReaders } from "../Traces/Readers.js"
import { addCounts, type RedactionCounts, type ScopedRedactor } from "../Redaction/Redactor.js"
import { redactRecord, redactTrace } from "../Redaction/Trace.js"
import {
  type BodyParts,
  checkTraceLimits,
  NO_QUERY,
  type QueryOptions,
  queryList,
  queryNumber,
  resolveBaseline,
  resolveBudget,
  resolveFormat,
  resolveHints,
  resolveMaxPatterns,
  resolveMode,
  resolveModel,
  resolvePatterns,
  resolveSelect,
  splitBody
} from "./Intake.js"

/** Phase 1: the body's parts, the trace's format (auto by default) and which of its traces. */
export interface TraceIntake {
  readonly parts: BodyParts
  readonly format: FormatOption
  readonly select: string | number | undefined
}

/** The request of `POST /v1/traces/normalize` (and of `svc normalize`): phase 1 is all of it. */
export type NormalizeRequest = TraceIntake

export const readTraceIntake = (
  readers: TraceReaders,
  body: Record<string, unknown> | Array<unknown>,
  query: QueryOptions = NO_QUERY
): Either.Either<TraceIntake, ValidationError> => {
  const parts = splitBody(body, (candidate) => readers.detectFormat(candidate) !== undefined, query)
  return Either.flatMap(resolveFormat(parts.format), (format) => Either.map(resolveSelect(parts.select), (select) => ({ parts, format, select })))
}

/**
 * The two ways a trace reaches a pattern (DECISIONS §12), decided once per request:
 * - native: an object in the pattern's own input shape (any of its input fields, and no supported
 *   format recognises it): the seed's limits, then the pattern's schema;
 * - raw: a trace in a supported format (named with `format`, or detected): normalized, limits
 *   counted on the normalized trace, one trace chosen with `select`.
 */
export type AdmittedTrace =
  | { readonly _tag: "Native"; readonly trace: Readonly<Record<string, unknown>>; readonly redactions: RedactionCounts }
  | { readonly _tag: "Raw"; readonly format: TraceFormat; readonly trace: NormalizedTrace }

const COMMON_FIELDS = new Set(["agent_id", "framework", "metadata"])

/**
 * An object in the pattern's own shape: it has one of the pattern's input fields, and each of its
 * sequences the pattern declares holds the pattern's items (src/Traces/Native.ts): a foreign
 * `messages` list without `from` (a Gemini CLI session, an Agent SDK dump) is not native.
 */
const nativeShaped = (code: PatternCode, trace: Record<string, unknown>) =>
  Object.keys(trace).some((key) => code.inputFields.has(key) && !COMMON_FIELDS.has(key)) &&
  Array.from(code.sequenceItems).every(([field, keys]) => fitsSequence(trace[field], keys))

/** Native or raw, limits checked; a raw trace normalized and one trace chosen. */
export const admitTrace = (
  readers: TraceReaders,
  code: PatternCode,
  trace: unknown,
  raw: boolean,
  format: FormatOption,
  select: string | number | undefined,
  limits: Limits,
  redactor: ScopedRedactor
): Either.Either<AdmittedTrace, RequestTooLarge | ValidationError | UnsupportedTraceFormat> => {
  const native = Predicate.isRecord(trace) &&
    (format === "native" || (format === "auto" && !raw && readers.detectFormat(trace) === undefined && nativeShaped(code, trace)))
  if (native) {
    const redacted = redactRecord(redactor, trace)
    return Either.map(checkTraceLimits(redacted.value, code, limits), (): AdmittedTrace => ({ _tag: "Native", trace: redacted.value, redactions: redacted.counts }))
  }
  if (!code.reading.accepts) {
    return Either.left(
      new ValidationError({
        message: `${code.slug} does not read agent runs: it needs ${code.reading.needs || "its own input shape"}; send its own input shape (GET /v1/patterns/${code.slug})`
      })
    )
  }
  return Either.flatMap(
    readers.normalizeTrace(trace, format, limits, redactTrace(redactor)),
    (normalized) => Either.map(readers.selectTrace(normalized, select), (chosen): AdmittedTrace => ({ _tag: "Raw", format: normalized.format, trace: chosen }))
  )
}

/** The options of `POST /v1/analyze/{name}`, each decoded by the contract's schema. */
export interface AnalyzeOptions {
  readonly mode: Mode
  readonly model: string | null
  /** The baseline to compare with and record (DECISIONS §13); null: none. */
  readonly baseline: string | null
  readonly hints: Readonly<Record<string, unknown>>
}

/** The request of `POST /v1/analyze/{name}` (and of `svc_analyze_*`, `svc analyze`, a diagnose's lenses). */
export interface AnalyzeRequest {
  readonly entry: CatalogueEntry
  readonly trace: AdmittedTrace
  readonly options: AnalyzeOptions
  /** What redaction replaced in the trace and the hints, by kind (DECISIONS §20). */
  readonly redactions: RedactionCounts
}

/** A trace's redactions and the hints', together. */
export const redactionsOf = (...counts: ReadonlyArray<RedactionCounts | undefined>): RedactionCounts => {
  const total: Record<string, number> = {}
  for (const each of counts) if (each !== undefined) addCounts(total, each)
  return total
}

export type AnalyzeIntakeFailure = RequestTooLarge | ValidationError | UnsupportedTraceFormat | InvalidMode

/**
 * A body to the analyze request of a pattern, in §3's order: shape, trace limits (413), mode, model,
 * baseline, hints. `onMode` learns the effective mode as soon as it is known, so a surface can
 * label what fails after it.
 */
export const readAnalyzeRequest = (
  readers: TraceReaders,
  entry: CatalogueEntry,
  body: Record<string, unknown> | Array<unknown>,
  limits: Limits,
  redactor: ScopedRedactor,
  query: QueryOptions = NO_QUERY,
  onMode?: (mode: Mode) => void
): Either.Either<AnalyzeRequest, AnalyzeIntakeFailure> =>
  Either.gen(function*() {
    const { format, parts, select } = yield* readTraceIntake(readers, body, query)
    const trace = yield* admitTrace(readers, entry.pattern.code, parts.trace, parts.raw, format, select, limits, redactor)
    if (trace._tag === "Raw" && trace.trace.content === "absent") return yield* Either.left(new ValidationError({ message: NO_CONTENT_MESSAGE }))
    const mode = yield* resolveMode(parts.mode)
    onMode?.(mode)
    const options = yield* Either.all({
      mode: Either.right(mode),
      model: resolveModel(parts.model),
      baseline: resolveBaseline(parts.baseline),
      hints: Either.map(resolveHints(parts.hints), (hints) => redactRecord(redactor, hints))
    })
    const redactions = redactionsOf(trace._tag === "Native" ? trace.redactions : trace.trace.redactions, options.hints.counts)
    return { entry, trace, options: { ...options, hints: options.hints.value }, redactions }
  })

/** Phase 2 of `POST /v1/diagnose`: its options, each decoded by the contract's schema. */
export interface DiagnoseOptions {
  readonly mode: Mode
  readonly model: string | null
  readonly hints: Readonly<Record<string, unknown>>
  /** The patterns named to run (undefined: triage picks). */
  readonly patterns: ReadonlyArray<string> | undefined
  readonly maxPatterns: number
  readonly budgetTokens: number | null
}

/** The request of `POST /v1/diagnose` (and of `svc_diagnose`, `svc diagnose`). */
export interface DiagnoseRequest extends TraceIntake {
  readonly options: DiagnoseOptions
}

/** `known`: whether a name is a pattern of the catalogue. */
export const decodeDiagnoseOptions = (
  body: Record<string, unknown> | Array<unknown>,
  intake: TraceIntake,
  known: (slug: string) => boolean,
  query: QueryOptions = NO_QUERY
): Either.Either<DiagnoseOptions, InvalidMode | ValidationError> => {
  // The diagnose-only options are an envelope's; a raw body's come from the query alone.
  const from = !intake.parts.raw && Predicate.isRecord(body) && (Predicate.isRecord(body["trace"]) || Array.isArray(body["trace"])) ? body : undefined
  return Either.all({
    mode: resolveMode(intake.parts.mode),
    model: resolveModel(intake.parts.model),
    hints: resolveHints(intake.parts.hints),
    patterns: resolvePatterns(from?.["patterns"] ?? queryList(query.patterns), known),
    maxPatterns: resolveMaxPatterns(from?.["max_patterns"] ?? queryNumber(query.max_patterns)),
    budgetTokens: resolveBudget(from?.["budget_tokens"] ?? queryNumber(query.budget_tokens))
  })
}
