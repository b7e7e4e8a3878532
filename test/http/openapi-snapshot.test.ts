/**
 * The OpenAPI document is a committed snapshot (docs/openapi.json): the document the service
 * serves must equal it, so a contract change is always a visible diff in review, made on purpose
 * with `npm run openapi:snapshot` and a version change (docs/packaging.md). The client package's
 * version moves with the service's.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { type RunningService, startService } from "../support/Service.js"

const root = join(import.meta.dirname, "..", "..")
const readJson = (path: string): unknown => JSON.parse(readFileSync(join(root, path), "utf8"))
let service: RunningService
beforeAll(async () => {
  service = await startService()
})
afterAll(async () => {
  await service?.close()
})

describe("the OpenAPI snapshot", () => {
  it("equals the document the service serves (npm run openapi:snapshot updates it)", async () => {
    const served: unknown = await (await fetch(`${service.url}/openapi.json`)).json()
    expect(served, "the contract changed: run `npm run openapi:snapshot`, review the diff and change the version (docs/packaging.md)")
      .toEqual(readJson("docs/openapi.json"))
  })

  it("carries the package's version, which the client package shares", () => {
    const Versioned = Schema.Struct({ version: Schema.String })
    const version = Schema.decodeUnknownSync(Versioned)(readJson("package.json")).version
    expect(Schema.decodeUnknownSync(Schema.Struct({ info: Versioned }))(readJson("docs/openapi.json")).info.version).toBe(version)
    expect(Schema.decodeUnknownSync(Versioned)(readJson("packages/client/package.json")).version).toBe(version)
  })
})
