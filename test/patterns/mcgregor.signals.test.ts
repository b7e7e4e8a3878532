import { describe, expect, it } from "@effect/vitest"
import { classifyControl, controlDemand, mcgregorSignals } from "../../patterns/mcgregor/signals.js"

describe("mcgregor signals", () => {
  it("measures the orchestrator's control acts per sub-agent", () => {
    const result = mcgregorSignals({
      sub_agents: [{ name: "coder" }, { name: "tester" }],
      task_properties: { risk: "high", complexity: "low", reversibility: "low" },
      steps: [
        { type: "delegate", actor: "boss", sub_agent: "coder", content: "Implement the login form." },
        { type: "message", actor: "coder", content: "Implemented. May I run the tests?" },
        { type: "message", actor: "boss", content: "Do not touch the schema. Report back when the tester is done." },
        { type: "tool_call", actor: "tester", tool: "pytest", content: "pytest -q" },
        { type: "observation", actor: "tester", tool: "pytest", content: "2 failed" },
        { type: "override", actor: "boss", sub_agent: "coder", content: "Your fix is wrong." },
        { type: "tool_call", actor: "boss", tool: "editor", content: "edit login.py" },
        { type: "observation", actor: "boss", tool: "editor", content: "saved" },
        { type: "reassign", actor: "boss", sub_agent: "intern", content: "Hand this to intern." }
      ]
    })
    expect(result.values["orchestrator_actors"]).toEqual(["boss"])
    expect(result.values["orchestrator_steps"]).toBe(6)
    expect(result.values["sub_agent_steps"]).toBe(3)
    expect(result.values["orchestrator_share"]).toBe(0.6667)
    // the observation returned to the orchestrator is not an act of management
    expect(result.values["orchestrator_acts"]).toBe(5)
    expect(result.values["directive_steps"]).toBe(1)
    expect(result.values["check_steps"]).toBe(1)
    expect(result.values["override_steps"]).toBe(1)
    expect(result.values["reassignment_steps"]).toBe(1)
    expect(result.values["directive_share"]).toBe(0.2)
    expect(result.values["check_share"]).toBe(0.2)
    // steps[2] is both a directive and a check: counted once in the union
    expect(result.values["directive_or_check_share"]).toBe(0.2)
    expect(result.values["control_act_share"]).toBe(0.6)
    expect(result.values["orchestrator_tool_calls"]).toBe(1)
    expect(result.values["steps_per_sub_agent"]).toEqual({ coder: 1, tester: 2 })
    // steps[2] names no sub_agent: the first sub-agent named in its content (tester) is the target
    expect(result.values["directives_per_sub_agent"]).toEqual({ coder: 0, tester: 1 })
    expect(result.values["checks_per_sub_agent"]).toEqual({ coder: 0, tester: 1 })
    expect(result.values["overrides_per_sub_agent"]).toEqual({ coder: 1, tester: 0 })
    expect(result.values["reassignments_per_sub_agent"]).toEqual({ coder: 0, tester: 0, intern: 1 })
    expect(result.values["checks_per_sub_agent_step"]).toBe(0.3333)
    expect(result.values["most_controlled_sub_agent"]).toBe("tester")
    expect(result.values["idle_sub_agents"]).toEqual([])
    expect(result.values["unknown_sub_agent_refs"]).toEqual(["intern"])
    expect(result.values["permission_requests"]).toBe(1)
    expect(result.values["longest_autonomous_run"]).toBe(2)
    expect(result.values["task_control_demand"]).toBe(1)
    expect(result.values["task_complexity"]).toBe(0)
    expect(result.values["control_gap"]).toBe(-0.8)
    expect(result.highlights.map((h) => h.ref)).toEqual(["steps[1]", "steps[2]", "steps[5]", "steps[8]"])
  })

  it("maps task properties to the control they call for", () => {
    expect(controlDemand({ risk: "low", complexity: "high", reversibility: "high" })).toBe(0)
    expect(controlDemand({ risk: "medium", complexity: "medium", reversibility: "medium" })).toBe(0.5)
    expect(controlDemand({ risk: "high", complexity: "low", reversibility: "medium" })).toBe(0.75)
  })

  it("classifies by type first, then by wording", () => {
    expect(classifyControl({ type: "check", content: "anything" })).toEqual(["check"])
    expect(classifyControl({ type: "message", content: "Rejected. I'll do it myself." })).toEqual(["override"])
    expect(classifyControl({ type: "message", content: "Please write the summary." })).toEqual([])
  })

  it("is total when only sub-agents act", () => {
    const result = mcgregorSignals({
      sub_agents: [{ name: "solo" }, { name: "spare" }],
      task_properties: { risk: "low", complexity: "low", reversibility: "high" },
      steps: [{ type: "thought", actor: "solo", content: "working" }]
    })
    expect(result.values["orchestrator_acts"]).toBe(0)
    expect(result.values["directive_or_check_share"]).toBe(0)
    expect(result.values["checks_per_sub_agent_step"]).toBe(0)
    expect(result.values["control_gap"]).toBeNull()
    expect(result.values["most_controlled_sub_agent"]).toBeNull()
    expect(result.values["idle_sub_agents"]).toEqual(["spare"])
    expect(result.values["longest_autonomous_run"]).toBe(1)
    expect(result.highlights).toEqual([])
  })
})
