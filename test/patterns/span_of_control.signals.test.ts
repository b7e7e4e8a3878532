import { describe, expect, it } from "@effect/vitest"
import { crewGraph } from "../../patterns/org_structure/signals.js"
import { descendants, graicunas, graicunasBreakdown, spanSignals, URWICK_LIMIT } from "../../patterns/span_of_control/signals.js"

const worker = (id: string, manager: string, authority?: string) =>
  authority === undefined ? { id, role: "worker", reports_to: [manager] } : { id, role: "worker", reports_to: [manager], decision_authority: authority }

describe("span_of_control signals", () => {
  it("computes Graicunas's relationship count by hand", () => {
    expect(graicunas(0)).toBe(0)
    expect(graicunas(1)).toBe(1)
    expect(graicunas(2)).toBe(6)
    expect(graicunas(3)).toBe(18)
    expect(graicunas(4)).toBe(44)
    expect(graicunas(5)).toBe(100)
    expect(graicunas(6)).toBe(222)
    expect(graicunas(9)).toBe(2376)
    expect(graicunas(2000)).toBeNull()
    expect(graicunasBreakdown(4)).toEqual({ direct_single: 4, cross: 12, direct_group: 28 })
    expect(URWICK_LIMIT).toBe(6)
  })

  it("finds a span over Urwick's limit that is also an escalation funnel, and the request load", () => {
    const agents = [
      { id: "boss", role: "orchestrator", decision_authority: "full" },
      ...["a", "b", "c", "d", "e", "f", "g"].map((id) => worker(id, "boss", "none"))
    ]
    const result = spanSignals({ agents, incoming_request_rate: 14 })
    expect(result.values["max_span"]).toBe(7)
    expect(result.values["max_span_agent"]).toBe("boss")
    expect(result.values["mean_span"]).toBe(7)
    expect(result.values["depth"]).toBe(1)
    expect(result.values["shape"]).toBe("wide")
    expect(result.values["graicunas_relationships"]).toBe(490)
    expect(result.values["over_urwick_limit"]).toEqual(["boss"])
    expect(result.values["escalation_bottlenecks"]).toEqual(["boss"])
    expect(result.values["bottlenecks"]).toEqual(["boss"])
    expect(result.values["apex_request_rate"]).toBe(14)
    expect(result.values["widest_manager_request_rate"]).toBe(14)
    expect(result.highlights).toEqual([
      {
        ref: "agents[0]",
        reason: "span 7 exceeds Urwick's limit of 6; most direct reports lack decision authority, so decisions escalate here"
      }
    ])
  })

  it("finds pass-through layers, middle chokepoints and a tall narrow shape", () => {
    const result = spanSignals({
      agents: [
        { id: "ceo", role: "apex" },
        worker("vp", "ceo"),
        worker("dir", "vp"),
        worker("lead", "dir"),
        worker("w1", "lead"),
        worker("w2", "lead")
      ]
    })
    expect(result.values["depth"]).toBe(4)
    expect(result.values["mean_span"]).toBe(1.25)
    expect(result.values["shape"]).toBe("tall_narrow")
    expect(result.values["pass_through_managers"]).toEqual(["ceo", "vp", "dir"])
    expect(result.values["single_report_share"]).toBe(0.75)
    expect(result.values["middle_chokepoints"]).toEqual(["vp", "dir"])
    expect(result.values["span_gini"]).toBe(0.15)
    expect(result.values["apex_request_rate"]).toBeNull()
  })

  it("handles cycles and missing managers without throwing", () => {
    const agents = [
      { id: "x", role: "a", reports_to: ["y"] },
      { id: "y", role: "b", reports_to: ["x"] },
      { id: "z", role: "c", reports_to: ["nobody"] }
    ]
    const result = spanSignals({ agents, incoming_request_rate: 5 })
    expect(result.values["cycle_members"]).toEqual(["x", "y"])
    expect(result.values["missing_managers"]).toEqual(["nobody"])
    expect(result.values["orphaned_agents"]).toBe(1)
    expect(result.values["structural_defects"]).toBe(3)
    expect(result.values["apex_count"]).toBe(0)
    expect(result.values["apex_request_rate"]).toBeNull()
    expect(result.values["widest_manager_request_rate"]).toBeNull()
    expect([...descendants(crewGraph(agents), 0)]).toEqual([1])
  })

  it("is total on a flat crew", () => {
    const result = spanSignals({ agents: [{ id: "solo", role: "everything" }] })
    expect(result.values["max_span"]).toBe(0)
    expect(result.values["mean_span"]).toBeNull()
    expect(result.values["max_span_agent"]).toBeNull()
    expect(result.values["graicunas_relationships"]).toBe(0)
    expect(result.values["shape"]).toBe("flat")
    expect(result.values["bottlenecks"]).toEqual([])
    expect(result.highlights).toEqual([])
  })
})
