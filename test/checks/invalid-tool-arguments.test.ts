import { describe, expect, it } from "@effect/vitest"
import { argumentViolations, canonicalArguments } from "../../src/Checks/Arguments.js"
import { invalidToolArguments } from "../../src/Checks/InvalidToolArguments.js"
import { call, citedOf, failure, longTrace, result, runOne, say, traceOf } from "./support.js"

const weather = {
  name: "get_weather",
  parameters: {
    type: "object",
    properties: {
      city: { type: "string" },
      units: { type: "string", enum: ["celsius", "fahrenheit"] },
      days: { type: "integer" },
      tags: { type: "array", items: { type: "string" } }
    },
    required: ["city"],
    additionalProperties: false
  }
}

describe("the JSON Schema subset", () => {
  it("finds each kind of violation, with where", () => {
    const kinds = (text: string) => argumentViolations(text, weather.parameters).map((each) => `${each.kind} ${each.path}`)
    expect(kinds('{"city":"Paris","units":"celsius","days":3,"tags":["a"]}')).toEqual([])
    expect(kinds("city=Paris")).toEqual(["not_json $"])
    expect(kinds('["Paris"]')).toEqual(["not_object $"])
    expect(kinds('{"units":"celsius"}')).toEqual(["missing_required $.city"])
    expect(kinds('{"city":"Paris","days":"3"}')).toEqual(["wrong_type $.days"])
    expect(kinds('{"city":"Paris","days":2.5}')).toEqual(["wrong_type $.days"])
    expect(kinds('{"city":"Paris","units":"kelvin"}')).toEqual(["not_in_enum $.units"])
    expect(kinds('{"city":"Paris","country":"FR"}')).toEqual(["additional_property $.country"])
    expect(kinds('{"city":"Paris","tags":["a",1]}')).toEqual(["wrong_type $.tags[1]"])
  })

  it("reads Gemini's upper-case types and nullable, and judges no keyword outside the subset", () => {
    const gemini = { type: "OBJECT", properties: { city: { type: "STRING", nullable: true } }, required: ["city"] }
    expect(argumentViolations('{"city":null}', gemini)).toEqual([])
    expect(argumentViolations('{"city":3}', gemini).map((each) => each.kind)).toEqual(["wrong_type"])
    expect(argumentViolations('{"n":1}', { type: "object", properties: { n: { anyOf: [{ type: "string" }], minimum: 5 } } })).toEqual([])
  })

  it("writes one form of the same arguments", () => {
    expect(canonicalArguments('{"b": [1, {"d":2, "c":1}], "a": "x"}')).toBe(canonicalArguments('{"a":"x","b":[1,{"c":1,"d":2}]}'))
    expect(canonicalArguments("ls   -la\n")).toBe(canonicalArguments("ls -la"))
    expect(canonicalArguments("ls -la")).not.toBe(canonicalArguments("ls -l"))
  })
})

describe("invalid_tool_arguments", () => {
  it("fires on arguments the declared schema refuses, naming what is wrong, citing the call and its answer", () => {
    const trace = traceOf([
      call("get_weather", '{"units":"kelvin"}', "a"),
      failure("get_weather", "validation error: city is required", "a"),
      say("Sorry, I could not get it.")
    ], { tools: [weather] })
    const { findings } = runOne(invalidToolArguments, trace)
    expect(findings).toHaveLength(1)
    expect(citedOf(findings[0])).toEqual([0, 1])
    expect(findings[0]?.explanation).toContain("get_weather's arguments at events[0] do not fit its declared schema: $.city is required but missing; $.units must be one of \"celsius\", \"fahrenheit\", not \"kelvin\"")
    const truncated = traceOf([call("get_weather", '{"city":"Par'), result("get_weather", "error")], { tools: [weather] })
    expect(runOne(invalidToolArguments, truncated).findings[0]?.explanation).toContain("the arguments are not JSON")
  })

  it("is quiet on valid arguments, on tools declared without a schema, and when the trace holds no arguments (content)", () => {
    const valid = traceOf([call("get_weather", '{"city":"Paris","units":"celsius"}'), result("get_weather", "18C")], { tools: [weather] })
    expect(runOne(invalidToolArguments, valid).findings).toEqual([])
    const noSchema = traceOf([call("get_weather", "city=Paris"), result("get_weather", "18C")], { tools: [{ name: "get_weather" }] })
    expect(runOne(invalidToolArguments, noSchema).findings).toEqual([])
    const noContent = traceOf([{ actor: "agent", role: "agent", kind: "tool_call", tool: "get_weather", content: "" }], { tools: [weather] })
    expect(runOne(invalidToolArguments, noContent).findings).toEqual([])
  })

  it("is linear", () => {
    const trace = { ...longTrace(1_000), tools: [{ name: "search", parameters: { type: "object", properties: { q: { type: "integer" } }, required: ["q"] } }] }
    const { visits, findings } = runOne(invalidToolArguments, trace)
    expect(findings).toEqual([])
    expect(visits).toBeLessThanOrEqual(3 * trace.events.length)
  })
})
