/**
 * The contract decodes the options (issue 28, DECISIONS §16): each option of analyze and diagnose
 * has one schema (src/Contract/Options.ts), which OpenAPI documents and intake decodes with. So
 * the bound OpenAPI states is the bound a request meets: a value just inside it is taken, one just
 * outside is the documented 400 naming the option.
 */
import { describe, expect, it } from "@effect/vitest"
import { Predicate, Schema } from "effect"
import { useProviderDouble } from "../support/Harness.js"
import { exampleTrace } from "../support/ProviderDouble.js"
import type { RunningService } from "../support/Service.js"

const harness = useProviderDouble()
const ErrorBody = Schema.Struct({ detail: Schema.Struct({ error: Schema.String, message: Schema.String }) })

const diagnose = async (service: RunningService, options: Record<string, unknown>) => {
  const response = await fetch(`${service.url}/v1/diagnose`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ trace: { messages: [{ role: "user", content: "hello" }, { role: "assistant", content: "hi" }] }, mode: "quick", ...options })
  })
  const body: unknown = await response.json()
  return { status: response.status, message: Schema.is(ErrorBody)(body) ? body.detail.message : "" }
}

/** The schema of an envelope field in the served OpenAPI document, its `$ref`s and null alternative unwrapped. */
const fieldSchema = (document: unknown, envelope: string, field: string): Record<string, unknown> => {
  const schemas = Predicate.isRecord(document) && Predicate.isRecord(document["components"]) ? document["components"]["schemas"] : undefined
  const resolve = (node: unknown): Array<Record<string, unknown>> => {
    if (!Predicate.isRecord(node)) return []
    const ref = node["$ref"]
    if (typeof ref === "string" && Predicate.isRecord(schemas)) {
      // A reference's own keywords (a refinement's bounds) stand beside the referenced schema's.
      const { $ref: _ref, ...own } = node
      return resolve(schemas[ref.split("/").at(-1) ?? ""]).map((target) => ({ ...target, ...own }))
    }
    const anyOf = node["anyOf"]
    return Array.isArray(anyOf) ? anyOf.flatMap(resolve) : [node]
  }
  const root = Predicate.isRecord(schemas) ? schemas[envelope] : undefined
  const properties = Predicate.isRecord(root) ? root["properties"] : undefined
  return Object.assign({}, ...resolve(Predicate.isRecord(properties) ? properties[field] : undefined).filter((node) => node["type"] !== "null"))
}

describe("the bounds OpenAPI states are the bounds intake enforces", () => {
  it("max_patterns, budget_tokens, patterns, select and model: just inside is taken, just outside is a 400 naming the option", async () => {
    const service = await harness.start({})
    const document: unknown = await (await fetch(`${service.url}/openapi.json`)).json()
    const maxPatterns = fieldSchema(document, "DiagnoseEnvelope", "max_patterns")
    const budget = fieldSchema(document, "DiagnoseEnvelope", "budget_tokens")
    const patterns = fieldSchema(document, "DiagnoseEnvelope", "patterns")
    const select = fieldSchema(document, "DiagnoseEnvelope", "select")
    expect([maxPatterns["minimum"], maxPatterns["maximum"]]).toEqual([1, 12])
    expect([budget["minimum"], budget["maximum"]]).toEqual([1000, 100_000_000])
    expect([patterns["minItems"], patterns["maxItems"]]).toEqual([1, 12])
    expect(select["maxLength"]).toBe(256)

    const cases: ReadonlyArray<readonly [string, unknown, unknown]> = [
      ["max_patterns", maxPatterns["maximum"], Number(maxPatterns["maximum"]) + 1],
      ["max_patterns", maxPatterns["minimum"], Number(maxPatterns["minimum"]) - 1],
      ["budget_tokens", budget["minimum"], Number(budget["minimum"]) - 1],
      ["budget_tokens", budget["maximum"], Number(budget["maximum"]) + 1],
      ["patterns", ["lewin"], []],
      ["select", 0, "x".repeat(257)],
      ["model", "anthropic:claude-haiku-4-5", "two words"]
    ]
    for (const [option, inside, outside] of cases) {
      const taken = await diagnose(service, { [option]: inside })
      expect(taken.status, `${option}=${JSON.stringify(inside)}`).toBe(200)
      const refused = await diagnose(service, { [option]: outside })
      expect(refused.status, `${option}=${JSON.stringify(outside).slice(0, 40)}`).toBe(400)
      expect(refused.message).toContain(option)
    }
    // null counts as absent for every option.
    expect((await diagnose(service, { max_patterns: null, budget_tokens: null, patterns: null, select: null, model: null, format: null, hints: null })).status).toBe(200)
  })

  it("analyze: mode is invalid_mode, model and baseline refused by the contract's patterns", async () => {
    const service = await harness.start({})
    const analyze = (options: Record<string, unknown>) =>
      fetch(`${service.url}/v1/analyze/lewin`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ trace: exampleTrace("lewin"), ...options }) })
    const mode = await analyze({ mode: "thorough" })
    expect(mode.status).toBe(400)
    expect(Schema.decodeUnknownSync(ErrorBody)(await mode.json()).detail).toMatchObject({ error: "invalid_mode", message: expect.stringContaining("mode must be one of quick, standard, forensic") })
    for (const [option, value] of [["model", "m".repeat(201)], ["baseline", "../etc/passwd"]] as const) {
      const refused = await analyze({ [option]: value })
      expect(refused.status, option).toBe(400)
      expect(Schema.decodeUnknownSync(ErrorBody)(await refused.json()).detail.message).toContain(`${option} must be`)
    }
  })
})
