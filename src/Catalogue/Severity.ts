/**
 * Severity, and its order, in one module: the schema (so OpenAPI, the typed client and the model's
 * structured output name it), the rank of each step, and every comparison made of them (merging
 * lenses, the decisive step, the renderings' order, one step weaker after verification,
 * `svc --fail-on`). The steps themselves are the registry's (src/Registry/Severity.ts).
 */
import * as Schema from "effect/Schema"
import { SEVERITY_SCALE } from "../Registry/Derived.js"
import { listOf } from "../Registry/Entries.js"

/** The severity scale, least severe first. */
export { SEVERITY_SCALE }

export const Severity = Schema.Literal(...SEVERITY_SCALE).annotations({
  identifier: "Severity",
  description: `How much the failure mode hurts the run: ${listOf(SEVERITY_SCALE)}.`
})
export type Severity = typeof Severity.Type

const LEAST: Severity = SEVERITY_SCALE[0]

/** A severity's place on the scale: 0 for the least severe (none). */
export const severityRank = (severity: Severity): number => SEVERITY_SCALE.indexOf(severity)

/** The severity at a rank (clamped to the scale). */
export const severityAt = (rank: number): Severity => SEVERITY_SCALE[Math.min(SEVERITY_SCALE.length - 1, Math.max(0, rank))] ?? LEAST

/** A value as a severity, when it is one; else undefined. */
export const asSeverity = (value: unknown): Severity | undefined => SEVERITY_SCALE.find((severity) => severity === value)

/** The most severe of some severities; the least severe when there are none. */
export const maxSeverity = (severities: Iterable<Severity>): Severity => {
  let max = LEAST
  for (const severity of severities) if (severityRank(severity) > severityRank(max)) max = severity
  return max
}

/** One step down the scale (the least severe stays). */
export const weakerSeverity = (severity: Severity): Severity => severityAt(severityRank(severity) - 1)

/** For sorting, most severe first. */
export const bySeverityDescending = (a: Severity, b: Severity): number => severityRank(b) - severityRank(a)

/** Most severe first. */
export const SEVERITIES_DESCENDING: ReadonlyArray<Severity> = [...SEVERITY_SCALE].reverse()
