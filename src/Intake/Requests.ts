/**
 * The typed request of each operation that reads a trace (DECISIONS §16), read from a parsed
 * body (and, over REST, the query's options) in two phases, keeping §3's order:
 * 1. lax (`readTraceIntake`): the envelope's shape, where the trace is, its `format` and `select`,
 *    so the trace can be normalized and its limits checked (413) before anything else is judged;
 * 2. strict (`decodeDiagnoseOptions`, and AnalyzeService's `admit`/`prepare` for analyze): every
 *    other option decoded by its schema in the contract (src/Contract/Options.ts), 400 naming it
 *    (`invalid_mode` for the mode).
 * Every surface's effect (AnalyzeService, DiagnoseService, TraceReader) starts here.
 */
import { Either } from "effect"
import type { Mode } from "../Catalogue/Resources.js"
import type { InvalidMode, ValidationError } from "../Errors.js"
import type { FormatOption } from "../Traces/Model.js"
import { isRecord } from "../Traces/Importer.js"
import { detectFormat } from "../Traces/Normalize.js"
import {
  type BodyParts,
  NO_QUERY,
  type QueryOptions,
  queryList,
  queryNumber,
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
  body: Record<string, unknown> | Array<unknown>,
  query: QueryOptions = NO_QUERY
): Either.Either<TraceIntake, ValidationError> => {
  const parts = splitBody(body, (candidate) => detectFormat(candidate) !== undefined, query)
  return Either.flatMap(resolveFormat(parts.format), (format) => Either.map(resolveSelect(parts.select), (select) => ({ parts, format, select })))
}

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
  const from = !intake.parts.raw && isRecord(body) && (isRecord(body["trace"]) || Array.isArray(body["trace"])) ? body : undefined
  return Either.all({
    mode: resolveMode(intake.parts.mode),
    model: resolveModel(intake.parts.model),
    hints: resolveHints(intake.parts.hints),
    patterns: resolvePatterns(from?.["patterns"] ?? queryList(query.patterns), known),
    maxPatterns: resolveMaxPatterns(from?.["max_patterns"] ?? queryNumber(query.max_patterns)),
    budgetTokens: resolveBudget(from?.["budget_tokens"] ?? queryNumber(query.budget_tokens))
  })
}
