/**
 * The docs list exactly the registries' entries (src/Registry/): each file holds the generated
 * sections it must (src/Registry/Docs.ts), they are current (`npm run docs:registries` writes
 * them), and the hand-written mapping table of docs/traces.md has a row for every imported format
 * and for no other.
 */
import { describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { DOCS_SECTIONS, sectionsIn, withSections } from "../../src/Registry/Docs.js"
import { TRACE_FORMATS } from "../../src/Registry/Formats.js"

const root = join(import.meta.dirname, "..", "..")
const read = (file: string) => readFileSync(join(root, file), "utf8")

describe("the registries' sections of the docs", () => {
  for (const [file, sections] of Object.entries(DOCS_SECTIONS)) {
    it(`${file} holds its sections, as the registries generate them (npm run docs:registries)`, () => {
      const text = read(file)
      expect([...new Set(sectionsIn(text))].sort()).toEqual([...sections].sort())
      expect(withSections(text), `${file} is stale: run npm run docs:registries`).toEqual(text)
    })
  }

  it("docs/traces.md maps every imported format, and no other", () => {
    const text = read("docs/traces.md")
    const from = text.indexOf("| Format | Accepted shapes |")
    expect(from).toBeGreaterThan(0)
    const table = text.slice(from, text.indexOf("\n\n", from))
    const rows = table.split("\n").filter((line) => line.startsWith("| `"))
    const named = new Set(rows.map((row) => /^\| `([a-z_]+)`/.exec(row)?.[1]))
    const imported = TRACE_FORMATS.filter((format) => format.kind === "imported").map((format) => format.name)
    expect([...named].sort()).toEqual([...imported].sort())
  })
})
