/**
 * A trace's body decoded by the contract (issue 51 item 1): diagnose, checks, normalize and
 * `POST /v1/runs` declare one payload member per media type (JSON, JSON Lines, an Inspect zip,
 * src/Contract/TraceBodies.ts), which OpenAPI shows and the edge's replay enforces (415 for any
 * other, from the route's payload), and their query through `setUrlParams`. Against the real server.
 */
import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { useProviderDouble } from "../support/Harness.js"
import type { RunningService } from "../support/Service.js"
import { fixtureText } from "../traces/support.js"

const harness = useProviderDouble()

const post = (service: RunningService, target: string, body: string, contentType: string, method = "POST") =>
  fetch(`${service.url}${target}`, { method, headers: { "content-type": contentType }, body })

const ErrorBody = Schema.Struct({ detail: Schema.Struct({ error: Schema.String, message: Schema.String }) })
const refusal = async (response: Response) => Schema.decodeUnknownSync(ErrorBody)(await response.json()).detail

const JSONL = fixtureText("trajectory/openhands-output.jsonl")
const TRACE_ROUTES = ["/v1/diagnose", "/v1/checks", "/v1/traces/normalize", "/v1/runs"]

describe("trace bodies decoded by the contract", () => {
  it("OpenAPI declares each route's body per media type, and its query with enums", async () => {
    const service = await harness.start({})
    const document: unknown = await (await fetch(`${service.url}/openapi.json`)).json()
    const Parameter = Schema.Struct({ name: Schema.String, in: Schema.String, schema: Schema.Record({ key: Schema.String, value: Schema.Unknown }) })
    const Post = Schema.Struct({
      requestBody: Schema.Struct({ content: Schema.Record({ key: Schema.String, value: Schema.Struct({ schema: Schema.Struct({ $ref: Schema.String }) }) }) }),
      parameters: Schema.Array(Parameter)
    })
    const Paths = Schema.Struct({ paths: Schema.Record({ key: Schema.String, value: Schema.Unknown }) })
    const all = Schema.decodeUnknownSync(Paths)(document).paths
    const paths = Object.fromEntries(TRACE_ROUTES.map((path) => [path, Schema.decodeUnknownSync(Schema.Struct({ post: Post }))(all[path])]))
    for (const path of TRACE_ROUTES) {
      const content = paths[path]?.post?.requestBody.content ?? {}
      expect(Object.keys(content).sort(), path).toEqual(["application/json", "application/x-ndjson", "application/zip"])
      expect(content["application/x-ndjson"]?.schema.$ref, path).toBe("#/components/schemas/JsonLinesTrace")
      expect(content["application/zip"]?.schema.$ref, path).toBe("#/components/schemas/InspectEvalLog")
      const format = paths[path]?.post?.parameters.find((parameter) => parameter.name === "format")
      expect(format?.schema["enum"], path).toContain("otel")
    }
    expect(paths["/v1/diagnose"]?.post?.requestBody.content["application/json"]?.schema.$ref).toBe("#/components/schemas/DiagnoseRequest")
    const output = paths["/v1/diagnose"]?.post?.parameters.find((parameter) => parameter.name === "output")
    expect(output?.schema["$ref"]).toBe("#/components/schemas/DiagnoseOutput")
    const maxPatterns = paths["/v1/diagnose"]?.post?.parameters.find((parameter) => parameter.name === "max_patterns")
    expect(maxPatterns?.schema["type"]).toBe("integer")
  })

  it("reads JSON Lines under its aliases, a raw trace as a JSON array, and refuses other media types with the documented 415", async () => {
    const service = await harness.start({})
    for (const alias of ["application/jsonl", "application/x-jsonlines", "application/json-lines"]) {
      const response = await post(service, "/v1/traces/normalize?select=1", JSONL, alias)
      expect(response.status, alias).toBe(200)
    }
    const array = await post(service, "/v1/checks", fixtureText("openai/chat-tool-calls.json"), "application/json")
    expect(array.status).toBe(200)
    for (const path of TRACE_ROUTES) {
      const response = await post(service, path, "steps", "text/plain")
      expect(response.status, path).toBe(415)
      const detail = await refusal(response)
      expect(detail.error, path).toBe("unsupported_media_type")
      expect(detail.message, path).toContain("application/x-ndjson")
    }
    // a route whose payload is a JSON object takes neither JSON Lines nor a zip
    for (const contentType of ["application/x-ndjson", "application/zip"]) {
      const response = await post(service, "/v1/problems/prb_none", JSONL, contentType, "PATCH")
      expect(response.status, contentType).toBe(415)
      expect((await refusal(response)).message, contentType).toContain("send the body as JSON")
    }
  })

  it("refuses a bad query value by the contract, after the body's media type (DECISIONS §16), and counts a refused diagnose once", async () => {
    const service = await harness.start({})
    const sample = async (labels: Readonly<Record<string, string>>) => {
      const text = await (await fetch(`${service.url}/metrics`)).text()
      const line = text.split("\n").find((l) => l.startsWith("svc_requests_total{") && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)))
      return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(" ") + 1))
    }
    const labels = { surface: "rest", pattern: "diagnose" }
    const refusedMedia = await sample({ ...labels, status: "unsupported_media_type" })
    const refusedQuery = await sample({ ...labels, status: "validation_error" })
    const both = await post(service, "/v1/diagnose?output=bogus", "steps", "text/plain")
    expect(both.status).toBe(415)
    const output = await post(service, "/v1/diagnose?output=bogus", JSONL, "application/x-ndjson")
    expect(output.status).toBe(400)
    const detail = await refusal(output)
    expect(detail.error).toBe("validation_error")
    expect(detail.message).toContain("output must be one of json, markdown")
    expect(await sample({ ...labels, status: "unsupported_media_type" })).toBe(refusedMedia + 1)
    expect(await sample({ ...labels, status: "validation_error" })).toBe(refusedQuery + 1)
  })
})
