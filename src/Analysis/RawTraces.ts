/**
 * The two ways a trace reaches a pattern (DECISIONS §12), decided once per request:
 * - native: an object in the pattern's own input shape (any of its input fields, and no supported
 *   format recognises it): the seed's limits and the pattern's schema, failures naming field paths;
 * - raw: a trace in a supported format (named with `format`, or detected): normalized, limits
 *   counted on the normalized trace, one trace chosen with `select`, projected to the pattern's
 *   input (family projection, derived extras, `hints`), then the pattern's schema.
 * Pure functions; no I/O.
 */
import { Either } from "effect"
import type { PatternCode, ValidatedTrace } from "../Catalogue/Pattern.js"
import { type RequestTooLarge, type UnsupportedTraceFormat, ValidationError } from "../Errors.js"
import type { FormatOption, NormalizedTrace, TraceFormat } from "../Traces/Model.js"
import { detectFormat, type Limits, normalizeTrace, selectTrace } from "../Traces/Normalize.js"
import { projectTrace } from "../Traces/Project.js"
import { checkTraceLimits, formatParseError, hintsFor } from "../Intake/Intake.js"

export type AdmittedTrace =
  | { readonly _tag: "Native"; readonly trace: Record<string, unknown> }
  | { readonly _tag: "Raw"; readonly format: TraceFormat; readonly trace: NormalizedTrace }

/** How a raw trace was read, for the prompt, the evidence sources and the detection's `intake`. */
export interface TraceOrigin {
  readonly format: TraceFormat
  readonly traceId: string | null
  readonly events: number
  readonly skipped: number
  readonly success: boolean | null
  readonly derived: ReadonlyArray<string>
  readonly hinted: ReadonlyArray<string>
  /** The source pointer of an evidence ref (always a string: `derived:<field>` and the like). */
  readonly sourceOf: (ref: string) => string
  /** The normalized event an evidence ref is, when the ref names one element per event. */
  readonly eventOf: (ref: string) => number | undefined
  /** What the cache key adds for a raw trace: the format, the trace with its sources, the hints. */
  readonly keyParts: Readonly<Record<string, unknown>>
}

const COMMON_FIELDS = new Set(["agent_id", "framework", "metadata"])

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** An object in the pattern's own shape: it has one of the pattern's input fields. */
const nativeShaped = (code: PatternCode, trace: Record<string, unknown>) =>
  Object.keys(trace).some((key) => code.inputFields.has(key) && !COMMON_FIELDS.has(key))

/** Native or raw, limits checked; a raw trace normalized and one trace chosen. */
export const admitTrace = (
  code: PatternCode,
  trace: unknown,
  raw: boolean,
  format: FormatOption,
  select: string | number | undefined,
  limits: Limits
): Either.Either<AdmittedTrace, RequestTooLarge | ValidationError | UnsupportedTraceFormat> => {
  const native = isRecord(trace) &&
    (format === "native" || (format === "auto" && !raw && detectFormat(trace) === undefined && nativeShaped(code, trace)))
  if (native) return Either.map(checkTraceLimits(trace, code, limits), (): AdmittedTrace => ({ _tag: "Native", trace }))
  if (!code.reading.accepts) {
    return Either.left(
      new ValidationError({
        message: `${code.slug} does not read agent runs: it needs ${code.reading.needs || "its own input shape"}; send its own input shape (GET /v1/patterns/${code.slug})`
      })
    )
  }
  return Either.flatMap(
    normalizeTrace(trace, format, limits),
    (normalized) => Either.map(selectTrace(normalized, select), (chosen): AdmittedTrace => ({ _tag: "Raw", format: normalized.format, trace: chosen }))
  )
}

const FIELD_REF = /^([A-Za-z_][A-Za-z0-9_]*)(\[\d+\])?/

/** The pattern's validated input from an admitted trace, with the raw trace's origin. */
export const validateAdmitted = (
  code: PatternCode,
  admitted: AdmittedTrace,
  allHints: Readonly<Record<string, unknown>>
): Either.Either<{ readonly trace: ValidatedTrace; readonly origin: TraceOrigin | undefined }, ValidationError> => {
  if (admitted._tag === "Native") {
    return Either.mapBoth(code.validate(admitted.trace), {
      onLeft: (error) => new ValidationError({ message: formatParseError(error) }),
      onRight: (trace) => ({ trace, origin: undefined })
    })
  }
  const { format, trace } = admitted
  // Only the pattern's own fields: other keys of `hints` are neither projected nor cache-keyed.
  const hints = hintsFor(allHints, code.inputFields)
  const projection = projectTrace(code.family, code.derive, trace, hints)
  const validated = code.validate(projection.input)
  if (Either.isLeft(validated)) {
    const needs = code.reading.needs
    return Either.left(
      new ValidationError({
        message: `the trace was read as ${format} (${trace.events.length} events), but ${code.slug} ${
          needs.length > 0 ? `needs ${needs}` : "cannot use it as it is"
        }; give what is missing in \`hints\`. ${formatParseError(validated.left).replace("the trace does not match", "The projected input does not match")}`
      })
    )
  }
  // Unknown success stays unknown: the schema's default (false) is not shown to the model.
  const canonical = trace.success === null && !Object.hasOwn(hints, "success")
    ? Object.fromEntries(Object.entries(validated.right.canonical).filter(([field]) => field !== "success"))
    : validated.right.canonical
  const derived = new Set(projection.derived)
  const hinted = new Set(projection.hinted)
  const eventOf = (ref: string): number | undefined => {
    const match = FIELD_REF.exec(ref.trim())
    const index = match?.[2]
    const sequence = projection.sequence
    if (index === undefined || sequence === undefined || sequence.field !== match?.[1]) return undefined
    const i = Number(index.slice(1, -1))
    return i < sequence.events.length ? i : undefined
  }
  const sourceOf = (ref: string): string => {
    const match = FIELD_REF.exec(ref.trim())
    const field = match?.[1] ?? ref
    const index = match?.[2]
    const element = index === undefined ? field : `${field}${index}`
    const i = eventOf(ref)
    const event = i === undefined ? undefined : projection.sequence?.events[i]
    return event?.source ?? projection.sources.get(element) ?? projection.sources.get(field) ??
      (derived.has(field) ? `derived:${field}` : hinted.has(field) ? `hints.${field}` : `trace:${field}`)
  }
  return Either.right({
    trace: { canonical, signals: validated.right.signals },
    origin: {
      format,
      traceId: trace.id,
      events: trace.events.length,
      skipped: trace.skipped,
      success: trace.success,
      derived: projection.derived,
      hinted: projection.hinted,
      sourceOf,
      eventOf,
      keyParts: { format, id: trace.id, events: trace.events, task: trace.task, outcome: trace.outcome, success: trace.success, hints }
    }
  })
}
