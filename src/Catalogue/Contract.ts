/**
 * What one pattern is in the HTTP contract: its names, input schema and detection schema, and
 * nothing that runs. Each `patterns/<slug>/contract.ts` calls `defineContract`; the typed client
 * and the OpenAPI document import these alone. The pattern's behaviour (its signals) is joined to
 * its contract in `patterns/<slug>/pattern.ts` (Pattern.ts, `definePattern`).
 */
import * as Schema from "effect/Schema"
import type { TraceReading } from "../Traces/Reading.js"
import { detectionSchema } from "./Detection.js"
import type { Family } from "./Families.js"

export const Group = Schema.Literal("individual", "team", "organization").annotations({ identifier: "PatternGroup" })
export type Group = typeof Group.Type

/** Sequence fields and the limit they count against (CATALOGUE.md: `messages` vs the rest). */
export type SequenceLimit = "steps" | "messages"

export interface PatternSpec<Slug extends string, P extends string, I, IE, H, HE> {
  readonly slug: Slug
  /** PascalCase name used for OpenAPI component names, e.g. `Lewin` → `LewinInput`. */
  readonly name: string
  readonly friendly: string
  readonly group: Group
  readonly summary: string
  /** Primary citation, short form, e.g. "Lewin 1936; Kelley 1967; Ross 1977". */
  readonly anchor: string
  readonly family: Family
  readonly input: Schema.Schema<I, IE>
  /** The pattern's profile enum; must include "indeterminate". */
  readonly profiles: readonly [P, ...Array<P>]
  readonly headline: Schema.Schema<H, HE>
  /** Array fields of the input that count against the trace limits. */
  readonly sequences: ReadonlyArray<string>
  /**
   * How the pattern takes a raw trace in a supported format (DECISIONS §12); absent: it takes any
   * trace with nothing more (its extras are derived by code or optional).
   */
  readonly traces?: TraceReading
}

export const defineContract = <const Slug extends string, const P extends string, I, IE, H, HE>(
  spec: PatternSpec<Slug, P, I, IE, H, HE>
) => {
  // Built on first read (the HTTP contract reads it; a `svc` command on a file never does): the 34
  // detection schemas were a fifth of the catalogue's module evaluation (issue 52).
  let detection: ReturnType<typeof detectionSchema<P, H, HE>> | undefined
  return {
    spec,
    get detection() {
      return (detection ??= detectionSchema(spec.name, spec.profiles, spec.headline))
    }
  } as const
}

export interface PatternContract<Slug extends string, P extends string, I, IE, H, HE, D, DE> {
  readonly spec: PatternSpec<Slug, P, I, IE, H, HE>
  readonly detection: Schema.Schema<D, DE>
}
