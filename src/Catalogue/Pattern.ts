/**
 * What one pattern is in code. Each `patterns/<slug>/pattern.ts` calls `definePattern` with its
 * contract (`contract.ts`, schemas only) and its signals (`signals.ts`); its data
 * files (playbooks.json, composition.json, CITATIONS.md, prompts/*.md) are loaded and validated at
 * start-up by `CatalogueLoader`. The engine treats every pattern the same way: it never looks at a
 * slug to decide what to do.
 */
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import * as SchemaAST from "effect/SchemaAST"
import { type JsonValue, structuredOutputSchema } from "./JsonSchema.js"
import { compileDecoder, hasTransformation } from "./FastDecode.js"
import type { Group, PatternContract, SequenceLimit } from "./Contract.js"
import { type ModelOutput, modelOutputSchema, type Signals } from "./Detection.js"
import { type DeriveFromTrace, READS_ANY_TRACE, type TraceReading } from "../Traces/Reading.js"
import type { Family } from "./Families.js"
import { type ItemKeys, sequenceItemKeys } from "../Traces/Native.js"

/** The type-erased view of a pattern that the engine, loader and guards use. */
export interface PatternCode {
  readonly slug: string
  readonly name: string
  readonly friendly: string
  readonly group: Group
  readonly summary: string
  readonly anchor: string
  readonly family: Family
  readonly profiles: ReadonlyArray<string>
  readonly sequences: ReadonlyArray<{ readonly field: string; readonly limit: SequenceLimit }>
  /** The top-level fields of its input shape as clients send it (`task`, `goal`, `steps`, ...). */
  readonly inputFields: ReadonlySet<string>
  /**
   * The keys of the items of each input field that is a list of objects (`messages` → `from`,
   * `content`, ...): what a body's sequences must carry to be this pattern's own shape.
   */
  readonly sequenceItems: ReadonlyMap<string, ItemKeys>
  /** Whether and how it takes a raw trace (DECISIONS §12). */
  readonly reading: TraceReading
  /** Derives the extras a raw trace cannot state (Traces/Reading.ts); undefined when none. */
  readonly derive: DeriveFromTrace | undefined
  /** Validates an untrusted trace; on success returns its canonical encoded form and signals. */
  readonly validate: (trace: unknown) => Either.Either<ValidatedTrace, ParseResult.ParseError>
  /** The same by `Schema`'s decoder alone, without the compiled one (FastDecode.ts): the reference `validate` must match. */
  readonly validateFully: (trace: unknown) => Either.Either<ValidatedTrace, ParseResult.ParseError>
  /** Validates model output against this pattern's model-output schema. */
  readonly validateModelOutput: (output: unknown) => Either.Either<ModelOutput, ParseResult.ParseError>
  /** Inlined JSON Schema of the model output (the structured-output format sent to providers). */
  readonly modelOutputJsonSchema: () => { readonly [key: string]: JsonValue }
}

export interface ValidatedTrace {
  /** The trace in its canonical encoded form (aliases resolved, defaults applied). */
  readonly canonical: Readonly<Record<string, unknown>>
  readonly signals: () => Signals
}

/**
 * A pattern: its contract (Contract.ts) joined to its behaviour, the deterministic measurements
 * it takes from a validated trace (pure; never calls the model).
 */
export const definePattern = <const Slug extends string, const P extends string, I, IE, H, HE, D, DE>(
  contract: PatternContract<Slug, P, I, IE, H, HE, D, DE>,
  signals: (trace: I) => Signals,
  derive?: DeriveFromTrace
) => {
  const { spec } = contract
  const parseOptions = { errors: "all", onExcessProperty: "ignore" } as const
  // The schemas and decoders a request uses, built on its first use: across the 34 patterns they
  // cost about 10 MB of allocation at start-up, where no request needs them yet.
  const make = () => {
    const modelOutput = modelOutputSchema(spec.name, spec.profiles, spec.headline)
    const encodeOutput = Schema.encodeSync(modelOutput)
    const decodeOutput = Schema.decodeUnknownEither(modelOutput, parseOptions)
    return {
      modelOutput,
      decodeInput: Schema.decodeUnknownEither(spec.input, parseOptions),
      // Compiled decoders for valid input (FastDecode.ts); Schema's decoder decides the rest.
      fastInput: compileDecoder(spec.input, parseOptions),
      // The model output has no transformations, so its decoded form is its encoded form.
      fastOutput: hasTransformation(modelOutput.ast) ? undefined : compileDecoder(modelOutput, parseOptions),
      decodeModelOutput: (output: unknown) =>
        Either.map(decodeOutput(output), (decoded): ModelOutput => {
          const encoded = encodeOutput(decoded)
          return { ...encoded, headline: encoded.headline }
        })
    }
  }
  let made: ReturnType<typeof make> | undefined
  const built = () => (made ??= make())
  // The decoded trace is the canonical form: aliases resolved, defaults applied, unknown fields
  // dropped, and plain JSON (the input schemas have no class or date transformations).
  const validated = (decoded: I): Either.Either<ValidatedTrace, ParseResult.ParseError> =>
    Predicate.isRecord(decoded)
      ? Either.right({ canonical: decoded, signals: () => signals(decoded) })
      : Either.left(new ParseResult.ParseError({ issue: new ParseResult.Type(spec.input.ast, decoded) }))
  const validateFully = (trace: unknown) => Either.flatMap(built().decodeInput(trace), (decoded) => validated(decoded))
  let inputFields: ReadonlySet<string> | undefined
  let sequenceItems: ReadonlyMap<string, ItemKeys> | undefined
  let structured: { readonly [key: string]: JsonValue } | undefined
  const code: PatternCode = {
    slug: spec.slug,
    name: spec.name,
    friendly: spec.friendly,
    group: spec.group,
    summary: spec.summary,
    anchor: spec.anchor,
    family: spec.family,
    profiles: spec.profiles,
    sequences: spec.sequences.map((field) => ({ field, limit: field === "messages" ? "messages" : "steps" })),
    get inputFields() {
      inputFields ??= new Set(
        SchemaAST.getPropertySignatures(Schema.encodedSchema(spec.input).ast).flatMap((signature) =>
          typeof signature.name === "string" ? [signature.name] : []
        )
      )
      return inputFields
    },
    get sequenceItems() {
      sequenceItems ??= sequenceItemKeys(Schema.encodedSchema(spec.input).ast)
      return sequenceItems
    },
    reading: spec.traces ?? READS_ANY_TRACE,
    derive,
    validate: (trace) => {
      const fast = built().fastInput?.(trace)
      return fast !== undefined && Either.isRight(fast) ? validated(fast.right) : validateFully(trace)
    },
    validateFully,
    validateModelOutput: (output) => {
      const fast = built().fastOutput?.(output)
      return fast !== undefined && Either.isRight(fast) ? Either.right({ ...fast.right, headline: fast.right.headline }) : built().decodeModelOutput(output)
    },
    modelOutputJsonSchema: () => {
      structured ??= structuredOutputSchema(built().modelOutput)
      return structured
    }
  }
  /** The pattern's model-output schema (built on first use). */
  const modelOutput = () => built().modelOutput
  return {
    spec,
    code,
    /** The contract's detection schema (built when first read). */
    get detection() {
      return contract.detection
    },
    modelOutput
  } as const
}

export type PatternDefinition = ReturnType<typeof definePattern>
