// Writes the registries' sections of the docs (src/Registry/Docs.ts: the text between
// `<!-- registry:NAME -->` and `<!-- /registry -->`) from the registries in src/Registry/. Run it
// after editing a registry; test/docs/registries.test.ts fails until the docs are current.
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { DOCS_SECTIONS, withSections } from "../src/Registry/Docs.js"

const root = join(import.meta.dirname, "..")
for (const file of Object.keys(DOCS_SECTIONS)) {
  const path = join(root, file)
  const before = readFileSync(path, "utf8")
  const after = withSections(before)
  if (after !== before) {
    writeFileSync(path, after)
    console.error(`wrote ${file}`)
  }
}
