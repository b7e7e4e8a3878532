// Writes docs/openapi.json, the committed snapshot of the OpenAPI document the service serves at
// /openapi.json (test/http/openapi-snapshot.test.ts compares the two). Run it when the contract
// changes on purpose, and change the version as docs/packaging.md says.
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { openApiDocument } from "../src/Docs/Docs.js"

const path = join(import.meta.dirname, "..", "docs", "openapi.json")
writeFileSync(path, `${JSON.stringify(openApiDocument(), null, 2)}\n`)
console.error(`wrote ${path}`)
