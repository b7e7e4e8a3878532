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

  it("shows the list queries' decoded types (issue 51): limit an integer 1-200, status and severity enums, times date-time, one schema for REST, the client, MCP and the CLI", () => {
    const Document = Schema.Struct({
      paths: Schema.Record({ key: Schema.String, value: Schema.Record({ key: Schema.String, value: Schema.Struct({ parameters: Schema.optional(Schema.Array(Schema.Struct({ name: Schema.String, schema: Schema.Unknown }))) }) }) }),
      components: Schema.Struct({ schemas: Schema.Record({ key: Schema.String, value: Schema.Unknown }) })
    })
    const document = Schema.decodeUnknownSync(Document)(readJson("docs/openapi.json"))
    const Ref = Schema.Struct({ $ref: Schema.String })
    const resolved = (schema: unknown): unknown =>
      Schema.is(Ref)(schema) ? document.components.schemas[schema.$ref.replace("#/components/schemas/", "")] : schema
    const parameter = (path: string, name: string) => resolved(document.paths[path]?.["get"]?.parameters?.find((entry) => entry.name === name)?.schema)
    for (const path of ["/v1/runs", "/v1/problems", "/v1/alerts/deliveries"]) {
      expect(parameter(path, "limit"), path).toMatchObject({ type: "integer", minimum: 1, maximum: 200 })
    }
    expect(parameter("/v1/problems/compare", "limit")).toMatchObject({ type: "integer", minimum: 1, maximum: 200 })
    expect(parameter("/v1/runs", "status")).toMatchObject({ type: "string", enum: ["queued", "running", "done", "failed", "skipped"] })
    expect(parameter("/v1/problems", "status")).toMatchObject({ type: "string", enum: ["open", "resolved", "ignored", "regressed"] })
    for (const path of ["/v1/runs", "/v1/problems", "/v1/runs/export"]) {
      expect(parameter(path, "severity"), path).toMatchObject({ type: "string", enum: ["none", "low", "medium", "high", "critical"] })
      expect(parameter(path, "since"), path).toMatchObject({ type: "string", format: "date-time" })
      expect(parameter(path, "label"), path).toMatchObject({ type: "string", pattern: "^[a-z0-9_.-]{1,64}:" })
    }
  })
})
