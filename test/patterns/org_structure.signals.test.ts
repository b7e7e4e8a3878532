import { describe, expect, it } from "@effect/vitest"
import { authorityLevel, components, crewGraph, orgStructureSignals } from "../../patterns/org_structure/signals.js"

describe("org_structure signals", () => {
  it("survives cycles, missing managers and self-reports", () => {
    const agents = [
      { id: "a", role: "apex" },
      { id: "b", role: "worker", reports_to: ["a"] },
      { id: "c", role: "loop 1", reports_to: ["d"] },
      { id: "d", role: "loop 2", reports_to: ["c"] },
      { id: "e", role: "orphan", reports_to: ["ghost"] },
      { id: "f", role: "self", reports_to: ["f"] }
    ]
    const graph = crewGraph(agents)
    expect(graph.roots).toEqual([0, 4, 5])
    expect(graph.orphans).toEqual([4])
    expect(graph.cycleMembers).toEqual([2, 3])
    expect(graph.missingManagers).toEqual(["ghost"])
    expect(graph.selfReports).toEqual([5])
    expect(graph.levels).toEqual([1, 2, 1, 1, 1, 1])
    expect(graph.depth).toBe(1)
    const result = orgStructureSignals({ agents })
    expect(result.values["reporting_lines"]).toBe(3)
    expect(result.values["apex_count"]).toBe(2)
    expect(result.values["orphaned_agents"]).toBe(1)
    expect(result.values["cycle_members"]).toEqual(["c", "d"])
    expect(result.values["max_span"]).toBe(1)
    expect(result.values["mean_span"]).toBe(1)
    expect(result.values["structure_hint"]).toBe("simple_structure")
    expect(result.values["apex_authority_share"]).toBeNull()
    expect(result.highlights.map((h) => h.ref)).toEqual(["agents[2]", "agents[3]", "agents[4]", "agents[5]", "agents[0]"])
  })

  it("measures matrix lines and the centralisation of authority", () => {
    const result = orgStructureSignals({
      agents: [
        { id: "lead", role: "function lead", decision_authority: "full" },
        { id: "pm", role: "project manager", decision_authority: "may approve up to $500" },
        { id: "w1", role: "worker", reports_to: ["lead", "pm"], decision_authority: "advisory" },
        { id: "w2", role: "worker", reports_to: ["lead"], decision_authority: "none" },
        { id: "w3", role: "worker", reports_to: ["pm"], decision_authority: "read-only" }
      ]
    })
    expect(result.values["multi_boss_agents"]).toBe(1)
    expect(result.values["matrix_share"]).toBe(0.2)
    expect(result.values["structure_hint"]).toBe("matrix")
    expect(result.values["authority_levels"]).toEqual({ none: 2, advisory: 1, bounded: 1, full: 1, unclassified: 0 })
    expect(result.values["apex_authority_share"]).toBe(0.8333)
    expect(result.values["operating_core_authority"]).toBe(0.1111)
    expect(result.values["authority_gini"]).toBe(0.5333)
    expect(result.values["max_span"]).toBe(2)
    expect(result.values["full_authority_agents"]).toEqual(["lead"])
  })

  it("hints pipelines, divisions, flat groups and single agents", () => {
    const chain = orgStructureSignals({
      agents: [
        { id: "a", role: "plan" },
        { id: "b", role: "code", reports_to: ["a"] },
        { id: "c", role: "test", reports_to: ["b"] },
        { id: "d", role: "review", reports_to: ["c"] }
      ]
    })
    expect(chain.values["depth"]).toBe(3)
    expect(chain.values["structure_hint"]).toBe("machine_bureaucracy")
    const divisions = orgStructureSignals({
      agents: [
        { id: "h", role: "hq" },
        { id: "m1", role: "research lead", reports_to: ["h"] },
        { id: "m2", role: "writing lead", reports_to: ["h"] },
        { id: "w1", role: "w", reports_to: ["m1"] },
        { id: "w2", role: "w", reports_to: ["m1"] },
        { id: "w3", role: "w", reports_to: ["m2"] },
        { id: "w4", role: "w", reports_to: ["m2"] }
      ]
    })
    expect(divisions.values["depth"]).toBe(2)
    expect(divisions.values["structure_hint"]).toBe("divisionalized")
    const flat = orgStructureSignals({ agents: [{ id: "x", role: "peer" }, { id: "y", role: "peer" }] })
    expect(flat.values["structure_hint"]).toBe("adhocracy")
    expect(flat.values["depth"]).toBe(0)
    expect(flat.values["mean_span"]).toBeNull()
    expect(flat.values["max_span"]).toBe(0)
    expect(flat.highlights).toEqual([])
    expect(orgStructureSignals({ agents: [{ id: "solo", role: "all" }] }).values["structure_hint"]).toBe("simple_structure")
  })

  it("reads decision authority text and finds components", () => {
    expect(authorityLevel(undefined)).toBeNull()
    expect(authorityLevel("  ")).toBeNull()
    expect(authorityLevel("full")).toBe(3)
    expect(authorityLevel("bounded: refunds only")).toBe(2)
    expect(authorityLevel("Final say on releases")).toBe(3)
    expect(authorityLevel("recommends fixes")).toBe(1)
    expect(authorityLevel("whatever")).toBeNull()
    expect(components(3, [[1], [0], []])).toEqual([0, 0, 1])
  })
})
