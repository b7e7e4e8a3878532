import { describe, expect, it } from "@effect/vitest"
import { unknownTool } from "../../src/Checks/UnknownTool.js"
import { call, citedOf, failure, handoff, longTrace, result, runOne, say, traceOf, user } from "./support.js"

const tools = [{ name: "get_weather" }, { name: "get_forecast" }]

describe("unknown_tool", () => {
  it("fires on a call to a tool the trace does not declare, citing the calls and the first answer", () => {
    const trace = traceOf([
      user("Weather in Paris?"),
      call("weather_lookup", '{"city":"Paris"}', "a"),
      failure("weather_lookup", "Tool weather_lookup not found", "a"),
      call("weather_lookup", '{"city":"Paris, FR"}', "b"),
      say("I could not get the weather.")
    ], { tools })
    const { findings } = runOne(unknownTool, trace)
    expect(findings).toHaveLength(1)
    expect(citedOf(findings[0])).toEqual([1, 2, 3])
    expect(findings[0]?.severity).toBe("medium")
    expect(findings[0]?.explanation).toBe("weather_lookup was called at events[1], events[3] (2 times), but the trace declares only get_weather, get_forecast.")
  })

  it("is quiet when the trace declares no tools, and on names that are the declared ones in another spelling", () => {
    expect(runOne(unknownTool, traceOf([call("anything", "{}"), result("anything", "ok")])).findings).toEqual([])
    const spelled = traceOf([
      call("GET_WEATHER", '{"city":"Paris"}'),
      call("mcp__exa__web_search_exa", '{"q":"x"}'),
      call("web_search", '{"q":"y"}'),
      call("final_result", '{"answer":"sunny"}'),
      call("transfer_to_billing", "{}"),
      handoff("agent", "billing")
    ], { tools: [...tools, { name: "web_search_exa" }, { name: "web_search_preview" }] })
    expect(runOne(unknownTool, spelled).findings).toEqual([])
  })

  it("works on a content-free trace (names and declarations are structure): described, not quoted", () => {
    const bare = traceOf([{ actor: "agent", role: "agent", kind: "tool_call", tool: "delete_user", content: "", call_id: "x" }], { tools })
    const [finding] = runOne(unknownTool, bare).findings
    expect(finding?.evidence[0]).toMatchObject({ quote: null, describes: "tool_call delete_user" })
    expect(finding?.explanation).toContain("delete_user was called at events[0]")
  })

  it("is linear", () => {
    const trace = { ...longTrace(1_000), tools: [{ name: "lookup" }] }
    const { visits, findings } = runOne(unknownTool, trace)
    expect(visits).toBeLessThanOrEqual(3 * trace.events.length)
    expect(findings).toHaveLength(1)
  })
})
