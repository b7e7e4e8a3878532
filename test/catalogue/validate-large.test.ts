/**
 * Long sequences through `validate` (the compiled decoder, FastDecode.ts): it must give exactly
 * the canonical form of `Schema`'s full decode, and every failure must still be the full decode's.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either, ParseResult } from "effect"
import { definitions } from "../../patterns/index.js"
import { exampleTrace } from "../support/ProviderDouble.js"

const code = (slug: string) => {
  const definition = definitions.find((d) => d.spec.slug === slug)
  if (definition === undefined) throw new Error(slug)
  return definition.code
}
/** The example trace with its sequence repeated to `n` elements (and unknown fields added). */
const long = (slug: string, field: string, n: number) => {
  const trace = exampleTrace(slug)
  const list = Array.isArray(trace[field]) ? trace[field] : []
  const { task, ...rest } = trace
  const element = (i: number): unknown => {
    const item: unknown = list[i % list.length]
    return typeof item === "object" && item !== null ? { ...item, note: `extra ${i}` } : item
  }
  return { ...rest, goal: task, [field]: Array.from({ length: n }, (_, i) => element(i)) }
}

describe("validation of long sequences", () => {
  it.each([["lewin", "steps"], ["lencioni", "messages"], ["trust_triangle", "turns"], ["goleman_ei", "observed_behaviors"], ["debate_pathology", "messages"]])(
    "%s: the fast path's canonical form equals the full decode's (aliases, defaults, unknown fields dropped)",
    (slug, field) => {
      const trace = long(slug, field, 1000)
      const fast = code(slug).validate(trace)
      const full = code(slug).validateFully(trace)
      expect(Either.isRight(fast)).toBe(true)
      expect(Either.isRight(full)).toBe(true)
      if (Either.isRight(fast) && Either.isRight(full)) {
        expect(JSON.stringify(fast.right.canonical)).toBe(JSON.stringify(full.right.canonical))
        expect(fast.right.signals()).toEqual(full.right.signals())
      }
    }
  )

  it("a bad element anywhere is the full decode's error, naming its path", () => {
    const trace = long("lewin", "steps", 1000)
    const steps = Array.isArray(trace["steps"]) ? [...trace["steps"]] : []
    steps[777] = { type: "", content: 5 }
    const result = code("lewin").validate({ ...trace, steps })
    expect(Either.isLeft(result)).toBe(true)
    if (Either.isLeft(result)) {
      const paths = ParseResult.ArrayFormatter.formatErrorSync(result.left).map((issue) => issue.path.join("."))
      expect(paths).toContain("steps.777.type")
      expect(paths).toContain("steps.777.content")
    }
  })
})
