import { describe, expect, it } from "@effect/vitest"
import { contentTokens, grpiSignals, jaccard } from "../../patterns/grpi/signals.js"

describe("grpi signals", () => {
  it("flags a vague goal, an undescribed agent and overlapping roles", () => {
    const result = grpiSignals({
      task: "Write a good report",
      agents: [
        { name: "a", description: "Searches the web and summarises findings" },
        { name: "b", description: "Searches the web and summarises findings quickly" },
        { name: "c", description: "" }
      ]
    })
    expect(result.values["task_vague_terms"]).toEqual(["good"])
    expect(result.values["task_checkable"]).toBe(false)
    expect(result.values["checkable_criteria_share"]).toBe(0)
    expect(result.values["agents_without_description"]).toBe(1)
    // {searc, web, summa, findi} vs the same plus {quick}: 4 / 5
    expect(result.values["max_role_overlap"]).toBe(0.8)
    expect(result.values["role_overlap_pairs"]).toEqual(["a~b"])
    expect(result.values["decision_owner_agents"]).toEqual([])
    expect(result.values["verifier_agents"]).toEqual([])
    // goals: no criteria, nothing checkable, vague; roles: 0.3 * 2/3 + 0.3 * (1 - 0.8)
    expect(result.values["level_coverage"]).toEqual({ goals: 0, roles: 0.26, processes: 0, interpersonal: 0 })
    expect(result.values["first_unspecified_level"]).toBe("goals")
    expect(result.highlights.map((h) => h.ref)).toEqual(["task", "agents[2]", "agents[0]", "agents[1]"])
  })

  it("scores a well-specified request as covered at every level", () => {
    const result = grpiSignals({
      task: "Produce a migration plan for the billing DB by 2026-05-01 with at most 3 revision rounds.",
      agents: [
        { name: "planner", description: "Drafts the plan and hands off to the second agent in the JSON template." },
        {
          name: "reviewer",
          description: "Reviews the plan against the criteria and approves or rejects it; escalates to a human when unsure."
        }
      ],
      constraints: ["Raise concerns with evidence; disagree openly"],
      success_criteria: ["Plan lists every table with its downtime in minutes", "Zero data loss"]
    })
    expect(result.values["checkable_criteria_share"]).toBe(1)
    expect(result.values["decision_owner_agents"]).toEqual(["reviewer"])
    expect(result.values["verifier_agents"]).toEqual(["reviewer"])
    // {draft, plan, hands, off, secon, json, templ} vs 9 tokens of the reviewer, sharing `plan`: 1 / 15
    expect(result.values["max_role_overlap"]).toBe(0.0667)
    expect(result.values["agents_with_handoff"]).toBe(1)
    expect(result.values["has_stop_rule"]).toBe(true)
    expect(result.values["has_deadline"]).toBe(true)
    expect(result.values["has_budget"]).toBe(true)
    expect(result.values["has_escalation_path"]).toBe(true)
    // goals 0.4 + 0.3 + 0.15 + 0.15; roles 0.3 + 0.3 * 0.9333 + 0.2 + 0.2; processes 0.4 * 0.5 + 0.3 + 0.15 + 0.15
    expect(result.values["level_coverage"]).toEqual({ goals: 1, roles: 0.98, processes: 0.8, interpersonal: 1 })
    expect(result.values["first_unspecified_level"]).toBe("none")
    expect(result.highlights).toEqual([])
  })

  it("finds duplicate names, shared tools and uncheckable criteria", () => {
    const result = grpiSignals({
      task: "Fix the flaky test",
      agents: [
        { name: "A", description: "x y", tools: ["search", "write"] },
        { name: "a", description: "", tools: ["search"] }
      ],
      success_criteria: ["It works"]
    })
    expect(result.values["duplicate_agent_names"]).toEqual(["a"])
    expect(result.values["shared_tools"]).toEqual(["search"])
    expect(result.values["short_descriptions"]).toBe(1)
    expect(result.values["mean_description_words"]).toBe(1)
    expect(result.values["has_deadline"]).toBe(false)
    expect(result.values["has_stop_rule"]).toBe(false)
    expect(result.highlights.map((h) => h.ref)).toEqual(["agents[1]", "agents[0]", "success_criteria[0]"])
  })

  it("has total helpers", () => {
    expect(jaccard(new Set(), new Set())).toBe(0)
    expect([...contentTokens("The searches and SEARCH")]).toEqual(["searc"])
  })
})
