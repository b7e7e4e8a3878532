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

/**
 * What a pattern's `contract.ts` gives: its names and profiles as values, and its input and
 * headline schemas as a function that builds them.
 */
export type PatternDefinition<Slug extends string, P extends string, I, IE, H, HE> =
  & Omit<PatternSpec<Slug, P, I, IE, H, HE>, "input" | "headline">
  & {
    readonly schemas: () => { readonly input: Schema.Schema<I, IE>; readonly headline: Schema.Schema<H, HE> }
  }

/**
 * A pattern's contract. Its schemas are built when first read, not when its module loads (issue
 * 52): the catalogue, the routes and the records need the names alone, so start-up built 34
 * input, headline and detection schemas that only a request on the pattern (or the OpenAPI
 * document, or triage) reads; that was a third of the allocation of start-up's module evaluation.
 */
export const defineContract = <const Slug extends string, const P extends string, I, IE, H, HE>(
  definition: PatternDefinition<Slug, P, I, IE, H, HE>
) => {
  const { schemas, ...names } = definition
  let built: ReturnType<typeof schemas> | undefined
  const schemasOf = () => (built ??= schemas())
  const spec: PatternSpec<Slug, P, I, IE, H, HE> = {
    ...names,
    get input() {
      return schemasOf().input
    },
    get headline() {
      return schemasOf().headline
    }
  }
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
