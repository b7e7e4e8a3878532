/**
 * The last step of intake for a pattern (DECISIONS §12): an admitted trace (src/Intake/Requests.ts)
 * validated by the pattern's schema. A native trace as it is, failures naming field paths; a raw
 * one projected to the pattern's input first (family projection, derived extras, `hints`).
 * Pure functions; no I/O.
 */
import * as Either from "effect/Either"
import type { PatternCode, ValidatedTrace } from "../Catalogue/Pattern.js"
import { ValidationError } from "../Errors.js"
import type { CheckFinding } from "../Contract/ChecksContract.js"
import type { TraceFormat } from "../Traces/Model.js"
import { projectTrace } from "../Catalogue/Project.js"
import { formatParseError, hintsFor } from "../Intake/Intake.js"
import type { AdmittedTrace } from "../Intake/Requests.js"

/** How a raw trace was read, for the prompt, the evidence sources and the detection's `intake`. */
export interface TraceOrigin {
  readonly format: TraceFormat
  readonly traceId: string | null
  readonly events: number
  readonly skipped: number
  readonly success: boolean | null
  readonly derived: ReadonlyArray<string>
  readonly hinted: ReadonlyArray<string>
  /** `hints.ground_truth`: the task's correct final answer, when the caller knows it (every lens reads it; `svc eval --with-ground-truth`). */
  readonly groundTruth: string | undefined
  /** The source pointer of an evidence ref (always a string: `derived:<field>` and the like). */
  readonly sourceOf: (ref: string) => string
  /** The normalized event an evidence ref is, when the ref names one element per event. */
  readonly eventOf: (ref: string) => number | undefined
  /** The element that is a normalized event, in this pattern's numbering (`steps[4]`), when it has one element per event. */
  readonly refOfEvent: (event: number) => string | undefined
  /** The checks' findings on the trace, for the prompt as candidate events (DECISIONS §23); none outside a diagnose. */
  readonly candidates: ReadonlyArray<CheckFinding>
  /** What the cache key adds for a raw trace: the format, the trace with its sources, the hints. */
  readonly keyParts: Readonly<Record<string, unknown>>
}

/** The one hint every lens of a raw trace reads, whatever its input fields: the task's correct final answer. */
export const GROUND_TRUTH = "ground_truth"

const FIELD_REF = /^([A-Za-z_][A-Za-z0-9_]*)(\[\d+\])?/

/** What of the checks' findings makes the prompt: the cache key holds it, so other candidates are another prompt. */
const candidateKey = (candidates: ReadonlyArray<CheckFinding>) =>
  candidates.map((finding) => [finding.check, finding.severity, finding.explanation, finding.evidence.map((item) => item.event)])

/** The pattern's validated input from an admitted trace, with the raw trace's origin. */
export const validateAdmitted = (
  code: PatternCode,
  admitted: AdmittedTrace,
  allHints: Readonly<Record<string, unknown>>,
  candidates: ReadonlyArray<CheckFinding> = []
): Either.Either<{ readonly trace: ValidatedTrace; readonly origin: TraceOrigin | undefined }, ValidationError> => {
  if (admitted._tag === "Native") {
    return Either.mapBoth(code.validate(admitted.trace), {
      onLeft: (error) => new ValidationError({ message: formatParseError(error) }),
      onRight: (trace) => ({ trace, origin: undefined })
    })
  }
  const { format, trace } = admitted
  // Only the pattern's own fields: other keys of `hints` are neither projected nor cache-keyed, but
  // `ground_truth`, which every lens reads (the prompt's intake note) and the cache key holds.
  const hints = hintsFor(allHints, code.inputFields)
  const groundTruth = typeof allHints[GROUND_TRUTH] === "string" && allHints[GROUND_TRUTH].trim().length > 0 ? allHints[GROUND_TRUTH].trim() : undefined
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
  const refOfEvent = (event: number): string | undefined => {
    const sequence = projection.sequence
    return sequence !== undefined && Number.isInteger(event) && event >= 0 && event < sequence.events.length ? `${sequence.field}[${event}]` : undefined
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
      groundTruth,
      sourceOf,
      eventOf,
      refOfEvent,
      candidates,
      keyParts: {
        format,
        id: trace.id,
        events: trace.events,
        task: trace.task,
        outcome: trace.outcome,
        success: trace.success,
        hints,
        ...(groundTruth === undefined ? {} : { groundTruth }),
        // absent without candidates: a trace no check flags keeps the key it had
        ...(candidates.length === 0 ? {} : { candidates: candidateKey(candidates) })
      }
    }
  })
}
