/**
 * The HTTP contract end to end: the real service on a loopback port, plain HTTP requests.
 * Every endpoint's shape, every error's `{detail:{error,message}}` body and status, request ids
 * and security headers.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { request as httpRequest } from "node:http"
import { join } from "node:path"
import { Schema } from "effect"
import { Health } from "../../src/Api.js"
import { CatalogueResponse, CompositionResponse, PatternRecord, PlaybooksResponse } from "../../src/Catalogue/Resources.js"
import { startProviderDouble } from "../support/ProviderDouble.js"
import { type RunningService, startService } from "../support/Service.js"

const root = join(import.meta.dirname, "..", "..")
const catalogueOrder: Array<string> = JSON.parse(readFileSync(join(root, "patterns", "catalogue.json"), "utf8"))
const version: string = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).version
const lewinTrace = JSON.parse(readFileSync(join(root, "patterns", "lewin", "example.trace.json"), "utf8"))

let service: RunningService
beforeAll(async () => {
  service = await startService()
})
afterAll(async () => {
  await service.close()
})

const OpenApiDocument = Schema.Struct({
  openapi: Schema.String,
  info: Schema.Struct({ version: Schema.String }),
  paths: Schema.Record({ key: Schema.String, value: Schema.Record({ key: Schema.String, value: Schema.Unknown }) }),
  components: Schema.Struct({ schemas: Schema.Record({ key: Schema.String, value: Schema.Unknown }) })
})
const Operation = Schema.Struct({ requestBody: Schema.Unknown, responses: Schema.Record({ key: Schema.String, value: Schema.Unknown }) })

/** A pattern's schema names: its slug in PascalCase; the one surname keeps its inner capital. */
const PASCAL_EXCEPTIONS: Readonly<Record<string, string>> = { mcallister_trust: "McAllisterTrust" }
const pascalOf = (slug: string): string =>
  PASCAL_EXCEPTIONS[slug] ?? slug.split("_").map((part) => part.charAt(0).toUpperCase() + part.slice(1)).join("")

/** The component schemas a fragment of the document references directly, sorted. */
const refsIn = (fragment: unknown): Array<string> =>
  Array.from(new Set(Array.from(JSON.stringify(fragment ?? null).matchAll(/"#\/components\/schemas\/([^"]+)"/g), (match) => match[1] ?? ""))).sort()

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${service.url}${path}`, { headers })
const postJson = (path: string, body: string, headers: Record<string, string> = { "content-type": "application/json" }) =>
  fetch(`${service.url}${path}`, { method: "POST", body, headers })

/** Asserts the documented error envelope and nothing else. */
const expectError = async (response: Response, status: number, kind: string) => {
  expect(response.status).toBe(status)
  expect(response.headers.get("content-type")).toMatch(/^application\/json/)
  const body: unknown = await response.json()
  expect(body).toEqual({ detail: { error: kind, message: expect.any(String) } })
  return body
}

/** Raw request for what fetch will not send (chunked uploads, lying Content-Length). */
const raw = (options: {
  readonly method: string
  readonly path: string
  readonly headers: Record<string, string | number>
  readonly write: (req: ReturnType<typeof httpRequest>) => void
}) =>
  new Promise<{ status: number; headers: Record<string, string | Array<string> | undefined>; body: string }>((resolve, reject) => {
    const req = httpRequest(`${service.url}${options.path}`, { method: options.method, headers: options.headers }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (chunk: Buffer) => chunks.push(chunk))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }))
    })
    req.on("error", reject)
    options.write(req)
  })

describe("probes", () => {
  it("GET /healthz answers status, server, version and pattern count", async () => {
    const response = await get("/healthz")
    expect(response.status).toBe(200)
    const body = await response.json()
    expect(Schema.is(Health)(body)).toBe(true)
    expect(body).toEqual({ status: "ok", server: "pattern-analysis-service", version, patterns: 34 })
  })

  it("GET /livez answers ok", async () => {
    const response = await get("/livez")
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ status: "ok" })
  })

  it("GET /readyz is 200 ready while serving and 503 while starting or draining", async () => {
    const ready = await get("/readyz")
    expect(ready.status).toBe(200)
    expect(await ready.json()).toEqual({ status: "ready" })
    const other = await startService()
    try {
      await other.setReadiness("draining")
      const draining = await fetch(`${other.url}/readyz`)
      expect(draining.status).toBe(503)
      expect(await draining.json()).toEqual({ status: "draining" })
      await other.setReadiness("ready")
      expect((await fetch(`${other.url}/readyz`)).status).toBe(503)
    } finally {
      await other.close()
    }
  })
})

describe("catalogue", () => {
  it("lists the 34 patterns in catalogue order with complete records", async () => {
    const response = await get("/v1/patterns")
    expect(response.status).toBe(200)
    const body = Schema.decodeUnknownSync(CatalogueResponse)(await response.json(), { onExcessProperty: "error" })
    expect(body.count).toBe(34)
    expect(body.patterns.map((p) => p.name)).toEqual(catalogueOrder)
    for (const record of body.patterns) {
      expect(Object.keys(record).sort()).toEqual(
        ["accepts_traces", "analyze_url", "anchor", "friendly", "group", "input_shape", "modes", "name", "needs", "resources", "summary", "tool"]
          .sort()
      )
      expect(record.tool).toBe(`svc_${record.name}`)
      expect(record.analyze_url).toBe(`/v1/analyze/${record.name}`)
      expect(record.modes).toEqual(["quick", "standard", "forensic"])
    }
  })

  it("serves each pattern's record, playbooks, citations and composition", async () => {
    for (const name of catalogueOrder) {
      const record = Schema.decodeUnknownSync(PatternRecord)(await (await get(`/v1/patterns/${name}`)).json())
      expect(record.name).toBe(name)
      const playbooks = await get(`/v1/patterns/${name}/playbooks`)
      expect(playbooks.status).toBe(200)
      const playbooksBody = Schema.decodeUnknownSync(PlaybooksResponse)(await playbooks.json(), { onExcessProperty: "error" })
      expect(playbooksBody.pattern).toBe(name)
      expect(playbooksBody.count).toBe(playbooksBody.playbooks.length)
      expect(playbooksBody.count).toBeGreaterThanOrEqual(6)
      for (const entry of playbooksBody.playbooks) expect(entry.key).toBe(entry.key_parts.join("."))
      const citations = await get(`/v1/patterns/${name}/citations`)
      expect(citations.status).toBe(200)
      expect(citations.headers.get("content-type")).toBe("text/markdown; charset=utf-8")
      expect(await citations.text()).toMatch(/\(\d{4}[a-z]?\)/)
      const composition = Schema.decodeUnknownSync(CompositionResponse)(await (await get(`/v1/patterns/${name}/composition`)).json())
      expect(composition.pattern).toBe(name)
      expect(composition.composition.upstream).toBeInstanceOf(Array)
    }
  })

  it("answers 404 unknown_pattern for names outside the catalogue, on every resource", async () => {
    for (const path of ["/v1/patterns/nope", "/v1/patterns/nope/playbooks", "/v1/patterns/nope/citations", "/v1/patterns/nope/composition"]) {
      await expectError(await get(path), 404, "unknown_pattern")
    }
    await expectError(await get("/v1/patterns/LEWIN"), 404, "unknown_pattern")
  })
})

describe("analyze: checks before the engine", () => {
  it("answers 404 unknown_pattern before looking at the body", async () => {
    await expectError(await postJson("/v1/analyze/not_a_pattern", "{not json"), 404, "unknown_pattern")
  })

  it("answers 413 from Content-Length before reading the body", async () => {
    const small = await startService({ SVC_API_MAX_BODY_BYTES: "2048" })
    try {
      const response = await fetch(`${small.url}/v1/analyze/lewin`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ ...lewinTrace, padding: "x".repeat(4096) })
      })
      await expectError(response, 413, "request_too_large")
      expect((await fetch(`${small.url}/healthz`)).status).toBe(200)
    } finally {
      await small.close()
    }
  })

  it("answers 413 as JSON for a chunked body over the limit, and keeps serving", async () => {
    const small = await startService({ SVC_API_MAX_BODY_BYTES: "65536" })
    try {
      const response = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = httpRequest(`${small.url}/v1/analyze/lewin`, {
          method: "POST",
          headers: { "content-type": "application/json", "transfer-encoding": "chunked" }
        }, (res) => {
          const chunks: Array<Buffer> = []
          res.on("data", (c: Buffer) => chunks.push(c))
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }))
        })
        req.on("error", reject)
        const chunk = Buffer.alloc(64 * 1024, "a")
        for (let i = 0; i < 16; i++) req.write(chunk)
        req.end()
      })
      expect(response.status).toBe(413)
      expect(JSON.parse(response.body)).toEqual({ detail: { error: "request_too_large", message: expect.stringContaining("SVC_API_MAX_BODY_BYTES") } })
      expect((await fetch(`${small.url}/healthz`)).status).toBe(200)
    } finally {
      await small.close()
    }
  })

  it("answers 415 for a body that is not sent as JSON", async () => {
    await expectError(await postJson("/v1/analyze/lewin", JSON.stringify(lewinTrace), { "content-type": "text/plain" }), 415, "unsupported_media_type")
    await expectError(await postJson("/v1/analyze/lewin", JSON.stringify(lewinTrace), {}), 415, "unsupported_media_type")
  })

  it("answers 400 validation_error for malformed JSON, scalars, bad UTF-8 and empty bodies; unsupported_trace_format for lists of nothing known", async () => {
    for (const body of ["{\"task\": ", "\"a string\"", "42", "null", "", "   "]) {
      await expectError(await postJson("/v1/analyze/lewin", body), 400, "validation_error")
    }
    // A top-level array is a raw trace (DECISIONS §12); one in no supported format says so.
    await expectError(await postJson("/v1/analyze/lewin", "[1,2,3]"), 400, "unsupported_trace_format")
    const badUtf8 = await raw({
      method: "POST",
      path: "/v1/analyze/lewin",
      headers: { "content-type": "application/json", "content-length": 4 },
      write: (req) => req.end(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]))
    })
    expect(badUtf8.status).toBe(400)
    expect(JSON.parse(badUtf8.body).detail.error).toBe("validation_error")
  })

  it("answers 413 for trace limits, naming the limit and its variable", async () => {
    const small = await startService({ SVC_API_MAX_TRACE_STEPS: "3", SVC_API_MAX_STRING_CHARS: "50000" })
    try {
      const steps = await fetch(`${small.url}/v1/analyze/lewin`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ ...lewinTrace, mode: "bogus" })
      })
      const body = await expectError(steps, 413, "request_too_large")
      expect(JSON.stringify(body)).toContain("SVC_API_MAX_TRACE_STEPS")
    } finally {
      await small.close()
    }
  })

  it("answers 400 invalid_mode after limits and before the schema", async () => {
    const response = await postJson("/v1/analyze/lewin", JSON.stringify({ task: 5, mode: "deep" }))
    const body = await expectError(response, 400, "invalid_mode")
    expect(JSON.stringify(body)).toContain("quick, standard, forensic")
    await expectError(await postJson("/v1/analyze/lewin", JSON.stringify({ trace: lewinTrace, mode: 3 })), 400, "invalid_mode")
  })

  it("answers 400 validation_error naming the field paths that fail the schema", async () => {
    const response = await postJson("/v1/analyze/lewin", JSON.stringify({ task: "t", steps: [{ type: "thought", content: 7 }] }))
    const body = await expectError(response, 400, "validation_error")
    const message = JSON.stringify(body)
    expect(message).toContain("steps.0.content")
    expect(message).toContain("outcome")
  })

  it("answers 502 llm_resolution_error naming the variables when no provider is configured", async () => {
    for (const body of [JSON.stringify(lewinTrace), JSON.stringify({ trace: lewinTrace, mode: null })]) {
      const response = await postJson("/v1/analyze/lewin", body)
      const error = await expectError(response, 502, "llm_resolution_error")
      expect(JSON.stringify(error)).toContain("ANTHROPIC_API_KEY")
      expect(JSON.stringify(error)).toContain("LOCAL_MODEL_HOST")
    }
  })

  it("accepts goal as an alias of task: the analysis succeeds and the model reads it as the task", async () => {
    const double = await startProviderDouble()
    const analyzing = await startService({ ANTHROPIC_API_KEY: "sk-ant-contract-0123456789", ANTHROPIC_BASE_URL: double.url })
    try {
      const { task, ...rest } = lewinTrace
      expect(typeof task === "string" && task.length > 0, "the example trace has a task").toBe(true)
      /** One analysis: its answer and the text of every model call it made. */
      const analyse = async (body: Record<string, unknown>) => {
        double.reset()
        const response = await fetch(`${analyzing.url}/v1/analyze/lewin`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ ...body, mode: "quick" })
        })
        const answer: unknown = await response.json()
        return { status: response.status, answer, prompts: double.calls.map((call) => ({ object: call.objectName, text: call.text })) }
      }
      const canonical = await analyse({ ...rest, task })
      const aliased = await analyse({ ...rest, goal: task })
      for (const run of [canonical, aliased]) {
        expect(run.status, JSON.stringify(run.answer)).toBe(200)
        expect(run.answer).toMatchObject({ pattern: "lewin", mode: "quick", cached: false, detection: { severity: expect.stringMatching(/^(none|low|medium|high|critical)$/) } })
        expect(run.prompts.map((prompt) => prompt.object)).toContain("LewinDetection")
      }
      // The model is shown the same trace, the alias's text in the task's place.
      const analysis = aliased.prompts.find((prompt) => prompt.object === "LewinDetection")
      expect(analysis?.text).toContain(task)
      expect(aliased.prompts).toEqual(canonical.prompts)
    } finally {
      await analyzing.close()
      await double.close()
    }
  })
})

describe("errors outside the endpoints", () => {
  it("answers 404 not_found for unknown routes", async () => {
    await expectError(await get("/nope"), 404, "not_found")
    await expectError(await get("/v2/patterns"), 404, "not_found")
  })

  it("answers 405 method_not_allowed with Allow for known paths", async () => {
    const response = await fetch(`${service.url}/healthz`, { method: "DELETE" })
    expect(response.headers.get("allow")).toBe("GET, HEAD")
    await expectError(response, 405, "method_not_allowed")
    await expectError(await get("/v1/analyze/lewin"), 405, "method_not_allowed")
  })
})

describe("every response", () => {
  it("carries X-Request-ID: echoed when well formed, generated otherwise", async () => {
    expect((await get("/healthz", { "x-request-id": "abc-123.x:y_z" })).headers.get("x-request-id")).toBe("abc-123.x:y_z")
    const generated = (await get("/healthz")).headers.get("x-request-id")
    expect(generated).toMatch(/^[0-9a-f-]{36}$/)
    const replaced = (await get("/healthz", { "x-request-id": "bad id with spaces" })).headers.get("x-request-id")
    expect(replaced).not.toBe("bad id with spaces")
    expect((await get("/nope", { "x-request-id": "err-1" })).headers.get("x-request-id")).toBe("err-1")
    const long = "a".repeat(129)
    expect((await get("/healthz", { "x-request-id": long })).headers.get("x-request-id")).not.toBe(long)
  })

  it("carries the security headers, errors included", async () => {
    for (const response of [await get("/healthz"), await get("/nope"), await get("/docs")]) {
      expect(response.headers.get("x-content-type-options")).toBe("nosniff")
      expect(response.headers.get("x-frame-options")).toBe("DENY")
      expect(response.headers.get("referrer-policy")).toBe("no-referrer")
      expect(response.headers.get("content-security-policy")).toContain("default-src 'self'")
    }
  })
})

describe("OpenAPI", () => {
  it("is OpenAPI 3.1 with a precise request and detection schema per pattern", async () => {
    const response = await get("/openapi.json")
    expect(response.status).toBe(200)
    const doc = Schema.decodeUnknownSync(OpenApiDocument)(await response.json())
    expect(doc.openapi).toBe("3.1.0")
    expect(doc.info.version).toBe(version)
    const committed = Schema.decodeUnknownSync(OpenApiDocument)(JSON.parse(readFileSync(join(root, "docs", "openapi.json"), "utf8")))
    for (const [document, { paths, components: { schemas } }] of [["served", doc], ["docs/openapi.json", committed]] as const) {
      for (const name of catalogueOrder) {
        const pascal = pascalOf(name)
        const at = `${document}: ${name}`
        expect(pascal.toLowerCase(), at).toBe(name.replaceAll("_", ""))
        const operation = Schema.decodeUnknownSync(Operation)(paths[`/v1/analyze/${name}`]?.["post"])
        expect(refsIn(operation.requestBody), at).toEqual([`${pascal}AnalyzeEnvelope`, `${pascal}AnalyzeFlat`, "RawTrace"].sort())
        expect(refsIn(operation.responses["200"]), at).toEqual([`${pascal}AnalyzeResponse`])
        for (const suffix of ["AnalyzeEnvelope", "AnalyzeFlat", "AnalyzeResponse", "Input", "Detection", "Headline"]) {
          expect(Object.hasOwn(schemas, `${pascal}${suffix}`), `${at}: components.schemas.${pascal}${suffix}`).toBe(true)
        }
        expect(refsIn(schemas[`${pascal}AnalyzeEnvelope`]), at).toContain(`${pascal}Input`)
        expect(refsIn(schemas[`${pascal}AnalyzeResponse`]), at).toContain(`${pascal}Detection`)
        expect(refsIn(schemas[`${pascal}Detection`]), at).toContain(`${pascal}Headline`)
      }
    }
    for (const path of ["/healthz", "/livez", "/readyz", "/metrics", "/v1/patterns", "/v1/patterns/{name}", "/openapi.json", "/docs", "/redoc"]) {
      expect(doc.paths[path], path).toBeDefined()
    }
  })

  it("declares the API-key schemes the edge enforces: on the catalogue and analyze, not on probes", async () => {
    const doc: unknown = await (await get("/openapi.json")).json()
    const at = (...keys: ReadonlyArray<string>) =>
      keys.reduce<unknown>((node, key) => (typeof node === "object" && node !== null ? Reflect.get(node, key) : undefined), doc)
    expect(at("components", "securitySchemes", "bearer")).toMatchObject({ type: "http", scheme: "bearer" })
    expect(at("components", "securitySchemes", "apiKey")).toMatchObject({ type: "apiKey", name: "X-API-Key", in: "header" })
    const either = [{ bearer: [] }, { apiKey: [] }]
    expect(at("paths", "/v1/analyze/lewin", "post", "security")).toEqual(either)
    expect(at("paths", "/v1/patterns", "get", "security")).toEqual(either)
    expect(at("paths", "/healthz", "get", "security")).toEqual([])
  })
})
