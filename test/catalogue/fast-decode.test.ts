/**
 * The compiled decoders (src/Catalogue/FastDecode.ts) against `Schema`'s own decoder, on every
 * pattern's input and model-output schemas: each compiles, every value it accepts decodes to the
 * same value with its keys in the same order, and it accepts nothing the general decoder refuses.
 * Values are generated from the schemas (effect's Arbitrary), then varied the way clients vary
 * them (the `goal` alias, defaults left out, unknown fields, other key orders) and broken at a
 * random place. The catalogue's own files (playbooks.json, composition.json) the same way, under
 * `onExcessProperty: "error"`, which the loader reads them with.
 */
import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, Either, FastCheck, Predicate, Schema } from "effect"
import { definitions } from "../../patterns/index.js"
import { compileDecoder, compiles, decoderOf, hasTransformation } from "../../src/Catalogue/FastDecode.js"
import { Composition, PlaybooksFile } from "../../src/Catalogue/Resources.js"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"

const options = { errors: "all", onExcessProperty: "ignore" } as const

/** JSON with key order kept and `undefined` values shown (both decoders must agree on both). */
const exact = (value: unknown) => JSON.stringify(value, (_key, item: unknown) => (item === undefined ? "<undefined>" : item))

/** A seeded pseudo-random source, so a failure replays. */
const random = (seed: number) => {
  let state = seed
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648
    return state / 2147483648
  }
}

/** Client-side variants of a valid encoded trace. */
const variants = (encoded: unknown, next: () => number): Array<unknown> => {
  if (!Predicate.isRecord(encoded)) return [encoded]
  const { task, success, ...rest } = encoded
  const reversed = Object.fromEntries(Object.entries(encoded).reverse())
  const withExtras = { ...encoded, note: "not in the schema", nested: { deep: [1, 2] } }
  const steps = Array.isArray(encoded["steps"])
    ? { ...encoded, steps: encoded["steps"].map((step: unknown) => (Predicate.isRecord(step) ? { extra: next(), ...step } : step)) }
    : encoded
  return [encoded, reversed, withExtras, steps, task === undefined ? rest : { ...rest, goal: task }, success === undefined ? encoded : { task, ...rest }]
}

/** The value with one place (chosen at random) replaced by a value of another kind. */
const broken = (value: unknown, next: () => number): unknown => {
  const replacements: Array<unknown> = [null, 5, -1, 2.5, "", "x", [], {}, undefined, true]
  const pick = () => replacements[Math.floor(next() * replacements.length)]
  const go = (node: unknown, depth: number): unknown => {
    if (Array.isArray(node)) {
      if (node.length === 0 || next() < 0.2) return next() < 0.5 ? pick() : []
      const at = Math.floor(next() * node.length)
      return node.map((item, i) => (i === at ? go(item, depth + 1) : item))
    }
    if (Predicate.isRecord(node)) {
      const keys = Object.keys(node)
      if (keys.length === 0 || (depth > 0 && next() < 0.2)) return pick()
      const key = keys[Math.floor(next() * keys.length)] ?? ""
      if (next() < 0.2) {
        const { [key]: _removed, ...rest } = node
        return rest
      }
      return { ...node, [key]: go(node[key], depth + 1) }
    }
    return pick()
  }
  return go(value, 0)
}

type Decode = (input: unknown) => Either.Either<unknown, unknown>

/**
 * Both decoders on one valid input (both accept it, alike), then on `rounds` broken copies of it:
 * none accepted that Schema refuses, the others alike. Returns how many copies Schema refused.
 */
const agreeOn = (input: unknown, fast: Decode, full: Decode, rounds: number, next: () => number): number => {
  const reference = full(input)
  const compiled = fast(input)
  expect(Either.isRight(reference)).toBe(true)
  expect(Either.isRight(compiled)).toBe(true)
  if (Either.isRight(compiled) && Either.isRight(reference)) expect(exact(compiled.right)).toBe(exact(reference.right))
  let refused = 0
  for (let round = 0; round < rounds; round++) {
    const bad = broken(input, next)
    const badReference = full(bad)
    const badCompiled = fast(bad)
    if (Either.isLeft(badReference)) {
      refused += 1
      expect(Either.isRight(badCompiled), exact(bad)).toBe(false)
    } else if (Either.isRight(badCompiled)) {
      expect(exact(badCompiled.right)).toBe(exact(badReference.right))
    }
  }
  return refused
}

describe("compiled decoders (FastDecode.ts) against Schema's decoder", () => {
  it("every pattern's input and model output compile (the fast path is the one taken)", () => {
    for (const definition of definitions) {
      expect(compiles(definition.spec.input.ast), `${definition.spec.slug} input`).toBe(true)
      expect(hasTransformation(definition.modelOutput().ast), `${definition.spec.slug} output`).toBe(false)
      expect(compiles(definition.modelOutput().ast), `${definition.spec.slug} output`).toBe(true)
    }
  })

  it.each(definitions.map((definition) => [definition.spec.slug, definition] as const))(
    "%s: the same decoded traces, and no broken one accepted",
    (_slug, definition) => {
      // `validate` takes the compiled decoder first (the test above shows it compiles).
      const fast = (input: unknown) => Either.map(definition.code.validate(input), (validated) => validated.canonical)
      // The schema seen through its AST alone (the 34 definitions' types differ).
      const schema = Schema.make<unknown, unknown, never>(definition.spec.input.ast)
      const full = Schema.decodeUnknownEither(schema, options)
      const encode = Schema.encodeSync(schema)
      const next = random(definition.spec.slug.length * 7919)
      const samples = FastCheck.sample(Arbitrary.make(schema), { numRuns: 25, seed: 42 })
      let accepted = 0
      let refused = 0
      for (const sample of samples) {
        for (const input of variants(encode(sample), next)) {
          refused += agreeOn(input, fast, full, 4, next)
          accepted += 1
        }
      }
      expect(accepted).toBeGreaterThan(100)
      expect(refused).toBeGreaterThan(50)
    }
  )

  it.each(definitions.map((definition) => [definition.spec.slug, definition] as const))(
    "%s: the same model answers (decoded, then encoded), and no broken one accepted",
    (_slug, definition) => {
      // `validateModelOutput` takes the compiled decoder first.
      const fast = definition.code.validateModelOutput
      const schema = Schema.make<unknown, unknown, never>(definition.modelOutput().ast)
      const full = Schema.decodeUnknownEither(schema, options)
      const encode = Schema.encodeSync(schema)
      const next = random(definition.spec.slug.length * 104729)
      const samples = FastCheck.sample(Arbitrary.make(schema), { numRuns: 25, seed: 7 })
      let refused = 0
      for (const sample of samples) {
        const encoded = encode(sample)
        const input = Predicate.isRecord(encoded) ? { ...encoded, reasoning: "an extra field the model added" } : encoded
        refused += agreeOn(input, fast, (value) => Either.map(full(value), encode), 8, next)
      }
      expect(refused).toBeGreaterThan(50)
    }
  )

  it.each([
    ["playbooks.json", Schema.make<unknown, unknown, never>(PlaybooksFile.ast)],
    ["composition.json", Schema.make<unknown, unknown, never>(Composition.ast)]
  ] as const)("the catalogue's %s, unknown keys refused: the same decoded files, and no broken one accepted", (file, schema) => {
    const strict = { errors: "all", onExcessProperty: "error" } as const
    const compiled = compileDecoder(schema, strict)
    if (compiled === undefined) throw new Error(`${file}: the schema does not compile`)
    const full = Schema.decodeUnknownEither(schema, strict)
    const patterns = join(import.meta.dirname, "..", "..", "patterns")
    const files = readdirSync(patterns, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry): unknown => JSON.parse(readFileSync(join(patterns, entry.name, file), "utf8")))
    expect(files.length).toBeGreaterThan(30)
    const next = random(file.length * 31)
    let refused = 0
    for (const input of files) {
      refused += agreeOn(input, compiled, full, 8, next)
      // An unknown key, at the top or in an entry: both refuse it.
      const extra = Array.isArray(input) ? input.map((entry: unknown, i) => (i === 0 && Predicate.isRecord(entry) ? { ...entry, note: "x" } : entry)) : Predicate.isRecord(input) ? { ...input, note: "x" } : input
      expect(Either.isLeft(full(extra))).toBe(true)
      expect(Either.isLeft(compiled(extra))).toBe(true)
      // What the loader calls gives the general decoder's verdict on the rest.
      expect(Either.isLeft(decoderOf(schema, strict)(extra))).toBe(true)
    }
    expect(refused).toBeGreaterThan(50)
  })
})
