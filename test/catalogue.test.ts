/**
 * The catalogue, checked by code: every pattern folder is complete and consistent with its code.
 * Runs over every registered definition; the last test insists on all 34 of CATALOGUE.md.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either, JSONSchema, Schema, type SchemaAST } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { definitions } from "../patterns/index.js"
import { quoteOccurs, resolveRef } from "../src/Analysis/TraceRefs.js"
import { loadPattern } from "../src/Catalogue/CatalogueLoader.js"

const patternsDir = join(import.meta.dirname, "..", "patterns")
const order: ReadonlyArray<string> = Schema.decodeUnknownSync(Schema.Array(Schema.String))(
  JSON.parse(readFileSync(join(patternsDir, "catalogue.json"), "utf8"))
)
const allSlugs = new Set(order)

const jsonSchemaOf = (ast: SchemaAST.AST) => {
  const $defs: Record<string, JSONSchema.JsonSchema7> = {}
  const root = JSONSchema.fromAST(ast, { definitions: $defs })
  return { ...root, $defs }
}

const readJson = (slug: string, file: string): unknown => JSON.parse(readFileSync(join(patternsDir, slug, file), "utf8"))

type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }
const isObject = (u: unknown): u is { readonly [key: string]: Json } => typeof u === "object" && u !== null && !Array.isArray(u)

/** Property paths in a JSON Schema that carry no description (following $refs once). */
const undescribed = (root: unknown): Array<string> => {
  const defs = isObject(root) && isObject(root["$defs"]) ? root["$defs"] : {}
  const missing: Array<string> = []
  const seen = new Set<string>()
  const deref = (node: Json): Json => {
    if (isObject(node) && typeof node["$ref"] === "string") {
      const name = node["$ref"].replace("#/$defs/", "")
      return defs[name] ?? node
    }
    return node
  }
  const visit = (node: Json, path: string) => {
    if (!isObject(node)) return
    if (typeof node["$ref"] === "string") {
      if (seen.has(node["$ref"])) return
      seen.add(node["$ref"])
    }
    const target = deref(node)
    if (!isObject(target)) return
    for (const key of ["anyOf", "oneOf", "allOf"]) {
      const list = target[key]
      if (Array.isArray(list)) list.forEach((member: Json) => visit(member, path))
    }
    if (isObject(target["items"])) visit(target["items"], `${path}[]`)
    const properties = target["properties"]
    if (isObject(properties)) {
      for (const [name, property] of Object.entries(properties)) {
        const resolved = deref(property)
        const described = (isObject(property) && typeof property["description"] === "string") ||
          (isObject(resolved) && typeof resolved["description"] === "string")
        if (!described) missing.push(`${path}.${name}`)
        visit(property, `${path}.${name}`)
      }
    }
  }
  visit(isObject(root) ? root : null, "")
  return missing
}

describe.each(definitions.map((definition) => [definition.spec.slug, definition] as const))("pattern %s", (slug, definition) => {
  it("loads: folder complete and consistent with its code", () => {
    const loaded = loadPattern(patternsDir, definition.code, allSlugs)
    if (Either.isLeft(loaded)) expect.fail(loaded.left.message)
    expect(loaded.right.playbooks.length).toBeGreaterThanOrEqual(6)
  })

  it("record matches CATALOGUE.md order and carries a real summary", () => {
    expect(order).toContain(slug)
    expect(definition.spec.summary.length).toBeGreaterThan(150)
    expect(definition.spec.profiles).toContain("indeterminate")
  })

  it("input and headline schemas describe every field", () => {
    expect(undescribed(jsonSchemaOf(definition.spec.input.ast))).toEqual([])
    expect(undescribed(jsonSchemaOf(definition.spec.headline.ast))).toEqual([])
  })

  it("headline enums include indeterminate where a verdict may be impossible", () => {
    if (definition.spec.family === "request") return
    expect(JSON.stringify(jsonSchemaOf(definition.spec.headline.ast))).toContain("indeterminate")
  })

  it("the example trace validates and its signals are deterministic", () => {
    const validated = definition.code.validate(readJson(slug, "example.trace.json"))
    if (Either.isLeft(validated)) expect.fail(String(validated.left))
    const first = validated.right.signals()
    expect(first).toEqual(validated.right.signals())
    expect(Object.keys(first.values).length).toBeGreaterThan(0)
    for (const highlight of first.highlights) {
      expect(resolveRef(validated.right.canonical, highlight.ref), `highlight ${highlight.ref}`).toBeDefined()
    }
  })

  it("the example output validates and its evidence quotes the example trace", () => {
    const trace = readJson(slug, "example.trace.json")
    const output = definition.code.validateModelOutput(readJson(slug, "example.output.json"))
    if (Either.isLeft(output)) expect.fail(String(output.left))
    const loaded = loadPattern(patternsDir, definition.code, allSlugs)
    if (Either.isLeft(loaded)) expect.fail(loaded.left.message)
    const keys = new Set(loaded.right.playbooks.map((entry) => entry.key))
    expect(output.right.findings.length).toBeGreaterThan(0)
    for (const finding of output.right.findings) {
      expect(finding.evidence.length).toBeGreaterThan(0)
      for (const evidence of finding.evidence) {
        expect(quoteOccurs(trace, evidence.ref, evidence.quote), `${evidence.ref}: ${evidence.quote}`).toBe(true)
      }
      if (finding.playbook !== null) expect(keys).toContain(finding.playbook)
    }
    for (const intervention of output.right.interventions) {
      if (intervention.playbook !== null) expect(keys).toContain(intervention.playbook)
      if (intervention.compose_pattern !== null) expect(allSlugs).toContain(intervention.compose_pattern)
    }
  })
})

describe("catalogue", () => {
  it("holds all 34 patterns of CATALOGUE.md, in order", () => {
    expect(order).toHaveLength(34)
    expect(definitions.map((definition) => definition.spec.slug)).toEqual(order)
  })
})
