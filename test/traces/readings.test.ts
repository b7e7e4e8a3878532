/**
 * Every trace-reading pattern takes a raw trace (DECISIONS §12): a normalized trace is projected
 * with `projectTrace` (family projection, then the pattern's derived extras, then hints) and
 * validated with the pattern's own input schema. Most patterns need nothing more; the few that
 * read what only the operator knows say so in `reading.needs` and validate once given those hints.
 */
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Either, Predicate } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { definitions } from "../../patterns/index.js"
import { intakeNote } from "../../src/Analysis/Prompts.js"
import { validateAdmitted } from "../../src/Analysis/RawTraces.js"
import { resolveRef } from "../../src/Analysis/TraceRefs.js"
import { appConfig } from "../../src/Config.js"
import { type AdmittedTrace, admitTrace } from "../../src/Intake/Requests.js"
import { NOT_REDACTING } from "../../src/Redaction/Redactor.js"
import type { NormalizedTrace } from "../../src/Traces/Model.js"
import * as Normalize from "../../src/Traces/Normalize.js"
import { projectTrace } from "../../src/Catalogue/Project.js"

const catalogueOrder: ReadonlyArray<string> = JSON.parse(readFileSync(join(import.meta.dirname, "..", "..", "patterns", "catalogue.json"), "utf8"))

/** A single-agent coding run: system prompt, tools, an error, a retry, a final self-report. */
const codingRun: NormalizedTrace = {
  id: "run-7f3a",
  task: "tests/test_dates.py::test_parse_offset fails since yesterday. Please fix it and open a pull request.",
  outcome: "I fixed the date parser (it dropped the timezone offset) and verified that all 42 tests pass. I opened pull request #118. I am 90% confident the fix is complete.",
  success: true,
  agents: ["coder"],
  skipped: 0,
  events: [
    {
      actor: "system",
      role: "system",
      kind: "message",
      content:
        "You are a coding agent working in the acme/api repository. You may read and edit files and run the test suite. Do not push to main; open a pull request instead. Retry a failing command at most 2 times.",
      source: "messages[0]"
    },
    {
      actor: "user",
      role: "user",
      kind: "message",
      content: "tests/test_dates.py::test_parse_offset fails since yesterday. Please fix it and open a pull request.",
      timestamp: "2025-03-04T09:00:00Z",
      source: "messages[1]"
    },
    { actor: "coder", role: "agent", kind: "thought", content: "Run the failing test first to see the error.", timestamp: "2025-03-04T09:00:04Z", source: "messages[2]" },
    { actor: "coder", role: "agent", kind: "tool_call", tool: "run_tests", content: "{\"path\":\"tests/test_dates.py\"}", timestamp: "2025-03-04T09:00:05Z", source: "messages[2].tool_calls[0]" },
    {
      actor: "run_tests",
      role: "tool",
      kind: "error",
      tool: "run_tests",
      content: "AssertionError: expected 2025-03-04T10:00:00+01:00, got 2025-03-04T10:00:00",
      timestamp: "2025-03-04T09:00:41Z",
      source: "messages[3]"
    },
    { actor: "coder", role: "agent", kind: "tool_call", tool: "read_file", content: "{\"path\":\"src/dates.py\"}", timestamp: "2025-03-04T09:00:50Z", source: "messages[4].tool_calls[0]" },
    { actor: "read_file", role: "tool", kind: "tool_result", tool: "read_file", content: "def parse(text):\n    return datetime.strptime(text[:19], FORMAT)", timestamp: "2025-03-04T09:00:51Z", source: "messages[5]" },
    { actor: "coder", role: "agent", kind: "tool_call", tool: "edit_file", content: "{\"path\":\"src/dates.py\",\"patch\":\"use fromisoformat\"}", timestamp: "2025-03-04T09:02:10Z", source: "messages[6].tool_calls[0]" },
    { actor: "edit_file", role: "tool", kind: "tool_result", tool: "edit_file", content: "ok", timestamp: "2025-03-04T09:02:11Z", source: "messages[7]" },
    { actor: "coder", role: "agent", kind: "tool_call", tool: "run_tests", content: "{\"path\":\"tests\"}", timestamp: "2025-03-04T09:02:15Z", source: "messages[8].tool_calls[0]" },
    { actor: "run_tests", role: "tool", kind: "tool_result", tool: "run_tests", content: "42 passed in 3.1s", timestamp: "2025-03-04T09:02:40Z", source: "messages[9]" },
    { actor: "coder", role: "agent", kind: "tool_call", tool: "create_pull_request", content: "{\"title\":\"Keep the timezone offset when parsing dates\"}", timestamp: "2025-03-04T09:02:50Z", source: "messages[10].tool_calls[0]" },
    { actor: "create_pull_request", role: "tool", kind: "tool_result", tool: "create_pull_request", content: "https://git.example.com/acme/api/pull/118", timestamp: "2025-03-04T09:02:52Z", source: "messages[11]" },
    {
      actor: "coder",
      role: "agent",
      kind: "message",
      content:
        "I fixed the date parser (it dropped the timezone offset) and verified that all 42 tests pass. I opened pull request #118. I am 90% confident the fix is complete.",
      timestamp: "2025-03-04T09:03:00Z",
      source: "messages[12]"
    }
  ]
}

/** A multi-agent research run: a planner hands off to a researcher and a writer. */
const crewRun: NormalizedTrace = {
  id: "4bf92f3577b34da6a3ce929d0e0e4736",
  task: "Research the size of the Spanish residential solar market and write a one-page brief.",
  outcome: "Brief: Spain added about 1.2 GW of residential solar in 2023, down from 2.5 GW in 2022 ...",
  success: null,
  agents: ["planner", "researcher", "writer"],
  skipped: 0,
  events: [
    { actor: "user", role: "user", kind: "message", content: "Research the size of the Spanish residential solar market and write a one-page brief.", source: "span:01/input[0]" },
    { actor: "planner", role: "agent", kind: "message", content: "Plan: the researcher gathers 2022-2023 installation figures, the writer drafts the brief.", source: "span:02" },
    { actor: "planner", role: "agent", kind: "handoff", to: "researcher", content: "transfer_to_researcher", source: "span:03" },
    { actor: "researcher", role: "agent", kind: "tool_call", tool: "web_search", content: "Spain residential solar installations 2023 GW", source: "span:04" },
    { actor: "web_search", role: "tool", kind: "tool_result", tool: "web_search", content: "UNEF: 1,180 MW of self-consumption solar installed in homes in 2023 (2,504 MW in 2022).", source: "span:05" },
    { actor: "researcher", role: "agent", kind: "tool_call", tool: "web_search", content: "Spain residential solar market value 2023", source: "span:06" },
    { actor: "web_search", role: "tool", kind: "tool_result", tool: "web_search", content: "No result with a market value in euros.", source: "span:07" },
    { actor: "researcher", role: "agent", kind: "message", content: "About 1.2 GW in 2023, down from 2.5 GW in 2022. I found no figure for the market value.", source: "span:08" },
    { actor: "researcher", role: "agent", kind: "handoff", to: "writer", content: "transfer_to_writer", source: "span:09" },
    { actor: "writer", role: "agent", kind: "message", content: "Brief: Spain added about 1.2 GW of residential solar in 2023, down from 2.5 GW in 2022 ...", source: "span:10" },
    { actor: "writer", role: "agent", kind: "handoff", to: "planner", content: "transfer_to_planner", source: "span:11" },
    { actor: "planner", role: "agent", kind: "message", content: "The brief is ready; the market value in euros is missing.", source: "span:12" }
  ]
}

/** A support chat with an upset user and no tools. */
const supportChat: NormalizedTrace = {
  id: null,
  task: "Hi, I need help with my account.",
  outcome: "I have refunded the second charge of 12.99 EUR; you will see it within 5 business days.",
  success: null,
  agents: ["assistant"],
  skipped: 0,
  events: [
    { actor: "system", role: "system", kind: "message", content: "You are the support assistant of StreamBox. Be kind and concise. You may issue refunds up to 50 EUR. Agents are rated by customer satisfaction (CSAT) after each chat.", source: "messages[0]" },
    { actor: "user", role: "user", kind: "message", content: "Hi, I need help with my account.", source: "messages[1]" },
    { actor: "assistant", role: "agent", kind: "message", content: "Of course! What is going on with your account?", source: "messages[2]" },
    { actor: "user", role: "user", kind: "message", content: "You charged me TWICE this month and nobody answers my emails. I'm furious!!", source: "messages[3]" },
    { actor: "assistant", role: "agent", kind: "message", content: "I'm sorry, that sounds really frustrating. Let me check your billing history.", source: "messages[4]" },
    { actor: "user", role: "user", kind: "message", content: "Just give me my money back.", source: "messages[5]" },
    { actor: "assistant", role: "agent", kind: "message", content: "I have refunded the second charge of 12.99 EUR; you will see it within 5 business days.", source: "messages[6]" }
  ]
}

/** A data run with no system prompt and no timestamps: a read fails, a retry succeeds. */
const dataRun: NormalizedTrace = {
  id: "run-b21",
  task: "Summarise the quarterly sales data in sales_q3.csv: totals per region and the biggest change.",
  outcome: "North 1.2M (+8%), South 0.9M (-3%), West 1.5M (+21%). The biggest change is West.",
  success: null,
  agents: ["analyst"],
  skipped: 0,
  events: [
    { actor: "user", role: "user", kind: "message", content: "Summarise the quarterly sales data in sales_q3.csv: totals per region and the biggest change.", source: "event:1" },
    { actor: "analyst", role: "agent", kind: "tool_call", tool: "read_csv", content: "{\"path\":\"sales_q3.csv\"}", source: "event:2" },
    { actor: "read_csv", role: "tool", kind: "error", tool: "read_csv", content: "FileNotFoundError: sales_q3.csv", source: "event:3" },
    { actor: "analyst", role: "agent", kind: "tool_call", tool: "read_csv", content: "{\"path\":\"data/sales_q3.csv\"}", source: "event:4" },
    { actor: "read_csv", role: "tool", kind: "tool_result", tool: "read_csv", content: "region,q2,q3\nNorth,1.11,1.2\nSouth,0.93,0.9\nWest,1.24,1.5", source: "event:5" },
    { actor: "analyst", role: "agent", kind: "message", content: "North 1.2M (+8%), South 0.9M (-3%), West 1.5M (+21%). The biggest change is West.", source: "event:6" }
  ]
}

const traces: ReadonlyArray<readonly [string, NormalizedTrace]> = [
  ["coding run", codingRun],
  ["crew run", crewRun],
  ["support chat", supportChat],
  ["data run", dataRun]
]

/** What the operator gives the patterns that read more than a run holds. */
const HINTS: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {
  danva_emotion: {
    items: [
      { id: "m3", user_input: "You charged me TWICE this month and nobody answers my emails. I'm furious!!", true_emotion: "angry", true_intensity: 0.9, inferred_emotion: "frustrated" }
    ]
  },
  process_gain_loss: {
    individual_baselines: [{ agent: "researcher", quality: 0.6 }, { agent: "writer", quality: 0.5 }],
    team_result: { quality: 0.7 }
  },
  group_decision: { options: ["ship the brief now", "wait for the market value"], stakes: "medium" },
  schein_culture: { system_prompt: "You are a careful agent. Verify every figure before you report it." },
  johari: { self_report: { summary: "I could not read the file and stopped." } }
}

const project = (slug: string, trace: NormalizedTrace, hints: Readonly<Record<string, unknown>> = {}) => {
  const definition = definitions.find((d) => d.code.slug === slug)
  if (definition === undefined) throw new Error(`no pattern ${slug}`)
  return projectTrace(definition.code.family, definition.code.derive, trace, hints)
}

const validates = (slug: string, trace: NormalizedTrace, hints: Readonly<Record<string, unknown>> = {}): boolean => {
  const definition = definitions.find((d) => d.code.slug === slug)
  if (definition === undefined) return false
  return Either.isRight(definition.code.validate(projectTrace(definition.code.family, definition.code.derive, trace, hints).input))
}

/** Every key of a JSON-like value, at any depth. */
const keysOf = (u: unknown): Array<string> =>
  Array.isArray(u) ? u.flatMap(keysOf) : Predicate.isRecord(u) ? Object.entries(u).flatMap(([key, value]) => [key, ...keysOf(value)]) : []

const field = (input: Readonly<Record<string, unknown>>, ...path: ReadonlyArray<string | number>): unknown =>
  path.reduce<unknown>((node, key) => (Array.isArray(node) && typeof key === "number" ? node[key] : Predicate.isRecord(node) && typeof key === "string" ? node[key] : undefined), input)

describe("raw traces through every pattern (no hints)", () => {
  const withoutHints = definitions.map((d) => ({ slug: d.code.slug, all: traces.every(([, trace]) => validates(d.code.slug, trace)) }))

  it("at least 28 of the 34 patterns validate every trace with no hints", () => {
    expect(definitions.length).toBe(34)
    const passing = withoutHints.filter((r) => r.all).map((r) => r.slug)
    expect(passing.length, `validating: ${passing.join(", ")}`).toBeGreaterThanOrEqual(28)
  })

  it.each(definitions.map((d) => [d.code.slug, d] as const))("%s: validates, or names the hints it needs and validates with them", (slug, definition) => {
    const all = withoutHints.find((r) => r.slug === slug)?.all ?? false
    if (all) {
      expect(definition.code.reading.accepts).toBe(true)
      return
    }
    expect(definition.code.reading.needs.trim().length).toBeGreaterThan(0)
    const hints = HINTS[slug]
    if (hints === undefined) return expect.fail(`${slug} needs hints the test does not give: ${definition.code.reading.needs}`)
    for (const key of Object.keys(hints)) expect(definition.code.reading.needs).toContain(`hints.${key}`)
    for (const [name, trace] of traces) expect(validates(slug, trace, hints), `${slug} on the ${name} with hints`).toBe(true)
  })

  it.each(definitions.map((d) => [d.code.slug, d] as const))("%s: signals run on every projected input", (slug, definition) => {
    for (const [, trace] of traces) {
      const projected = projectTrace(definition.code.family, definition.code.derive, trace, HINTS[slug] ?? {})
      const validated = definition.code.validate(projected.input)
      if (Either.isLeft(validated)) continue
      const signals = validated.right.signals()
      expect(Object.keys(signals.values).length).toBeGreaterThan(0)
      expect(validated.right.signals()).toEqual(signals)
      for (const highlight of signals.highlights) {
        expect(resolveRef(validated.right.canonical, highlight.ref), `${slug}: highlight ${highlight.ref}`).toBeDefined()
      }
    }
  })

  it("derived fields are named as derived and every derived source points at an event", () => {
    for (const definition of definitions) {
      for (const [, trace] of traces) {
        const projected = projectTrace(definition.code.family, definition.code.derive, trace, {})
        expect(projected.hinted).toEqual([])
        if (definition.code.derive === undefined) expect(projected.derived).toEqual([])
        const eventSources = new Set(trace.events.map((event) => event.source))
        for (const source of projected.sources.values()) expect(eventSources.has(source), `${definition.code.slug}: ${source}`).toBe(true)
      }
    }
  })

  it("hints win over derived values", () => {
    const projected = project("grant_strengths", codingRun, { task_class: "triage" })
    expect(projected.input["task_class"]).toBe("triage")
    expect(projected.derived).not.toContain("task_class")
    expect(projected.hinted).toEqual(["task_class"])
  })
})

describe("what the patterns derive from a trace", () => {
  it("task_class is a keyword classification of the task", () => {
    expect(project("grant_strengths", codingRun).input["task_class"]).toBe("coding")
    expect(project("grant_strengths", crewRun).input["task_class"]).toBe("research")
    expect(project("grant_strengths", supportChat).input["task_class"]).toBe("customer_support")
    expect(project("robbins_culture", dataRun).input["task_class"]).toBe("data_analysis")
  })

  it("yerkes_dodson pressure counts retries and errors, and reads the retry cap the set-up states", () => {
    const coding = project("yerkes_dodson", codingRun).input
    expect(field(coding, "pressure", "observed")).toEqual({ retries: 1, errors: 1, tool_calls: 5, elapsed_seconds: 180 })
    expect(field(coding, "pressure", "retry_cap")).toEqual({ cap: 2, used: 1 })
    const data = project("yerkes_dodson", dataRun).input
    expect(field(data, "pressure", "observed")).toEqual({ retries: 1, errors: 1, tool_calls: 2 })
    expect(field(data, "pressure", "retry_cap")).toBeUndefined()
    expect(field(project("yerkes_dodson", supportChat).input, "pressure", "observed", "retries")).toBe(0)
  })

  it("cognitive_reappraisal picks the user's emotional message and the agent's reply, verbatim", () => {
    const projected = project("cognitive_reappraisal", supportChat)
    expect(projected.input["user_input"]).toBe("You charged me TWICE this month and nobody answers my emails. I'm furious!!")
    expect(projected.input["agent_response"]).toBe("I'm sorry, that sounds really frustrating. Let me check your billing history.")
    expect(projected.sources.get("user_input")).toBe("messages[3]")
    expect(projected.sources.get("agent_response")).toBe("messages[4]")
  })

  it("johari reads the agent's own final report; without one it needs hints.self_report", () => {
    const report = field(project("johari", codingRun).input, "self_report")
    expect(report).toEqual({
      summary: codingRun.outcome,
      claims: [
        "I fixed the date parser (it dropped the timezone offset) and verified that all 42 tests pass.",
        "I opened pull request #118."
      ],
      confidence: 0.9
    })
    const silent: NormalizedTrace = { ...dataRun, outcome: "FileNotFoundError: sales_q3.csv", events: dataRun.events.slice(0, 3) }
    expect(validates("johari", silent)).toBe(false)
    expect(validates("johari", silent, HINTS["johari"])).toBe(true)
  })

  it("hexaco's authority scope is the system prompt, or says it is inferred", () => {
    expect(project("hexaco", codingRun).input["authority_scope"]).toBe(codingRun.events[0]?.content)
    expect(project("hexaco", dataRun).input["authority_scope"]).toMatch(/^Inferred from the trace.*read_csv/)
  })

  it("schein_culture takes the trace's system prompt and needs hints.system_prompt without one", () => {
    expect(validates("schein_culture", supportChat)).toBe(true)
    expect(validates("schein_culture", dataRun)).toBe(false)
    expect(validates("schein_culture", dataRun, HINTS["schein_culture"])).toBe(true)
  })

  it("superflocks routes each request to its first agent and each handoff to its receiver", () => {
    const projected = project("superflocks", crewRun)
    expect(projected.input["routing_decisions"]).toEqual([
      { task_id: "request-1", routed_to: "planner" },
      { task_id: "request-1", routed_to: "researcher" },
      { task_id: "request-1", routed_to: "writer" },
      { task_id: "request-1", routed_to: "planner" }
    ])
    expect(projected.sources.get("routing_decisions[1]")).toBe("span:03")
    expect(project("superflocks", codingRun).input["window"]).toBe("2025-03-04T09:00:00Z..2025-03-04T09:03:00Z")
  })

  it("mcgregor leaves the orchestrator out of the sub-agents and estimates the task's risk from its actions", () => {
    const crew = project("mcgregor", crewRun).input
    expect(field(crew, "sub_agents")).toEqual([
      { name: "researcher", role: "agent in the run (4 events; tools: web_search)" },
      { name: "writer", role: "agent in the run (2 events)" }
    ])
    expect(field(crew, "steps", 2)).toMatchObject({ actor: "planner", sub_agent: "researcher", type: "handoff" })
    expect(field(crew, "steps", 4, "actor")).toBe("researcher")
    // editing files and creating a pull request are writes (medium); nothing irreversible was done
    expect(field(project("mcgregor", codingRun).input, "task_properties")).toEqual({ risk: "medium", complexity: "medium", reversibility: "medium" })
    expect(field(project("mcgregor", supportChat).input, "task_properties")).toEqual({ risk: "low", complexity: "low", reversibility: "high" })
  })

  it("debate_pathology numbers rounds by full cycles of speakers and takes the outcome as the decision", () => {
    const input = project("debate_pathology", crewRun).input
    const messages = input["messages"]
    const rounds = Array.isArray(messages) ? messages.map((m) => field(m, "round")) : []
    expect(rounds).toEqual([1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2])
    expect(input["final_decision"]).toBe(crewRun.outcome)
  })

  it("sdt_reward quotes the set-up's extrinsic signals; an empty list when there are none", () => {
    const chat = project("sdt_reward", supportChat)
    expect(chat.input["extrinsic_signals"]).toEqual(["Agents are rated by customer satisfaction (CSAT) after each chat."])
    expect(chat.sources.get("extrinsic_signals[0]")).toBe("messages[0]")
    expect(project("sdt_reward", dataRun).input["extrinsic_signals"]).toEqual([])
  })

  it("vroom_expectancy counts tool-call series and reads their performance from the results", () => {
    const projected = project("vroom_expectancy", dataRun)
    expect(projected.input["effort_signals"]).toEqual([
      { signal: "2 calls to read_csv by analyst (1 failed; 1 retry after a failure)", amount: 2, unit: "calls", performance: "partial" }
    ])
    expect(projected.sources.get("effort_signals[0]")).toBe("event:2")
    const coding = project("vroom_expectancy", codingRun).input
    expect(field(coding, "effort_signals", 0, "performance")).toBe("missed")
    expect(field(coding, "effort_signals", 3)).toEqual({
      signal: "1 call to run_tests by coder (1 retry after a failure)",
      amount: 1,
      unit: "calls",
      performance: "achieved"
    })
    expect(field(project("vroom_expectancy", supportChat).input, "effort_signals", 0, "unit")).toBe("agent events")
  })

  it("motivation_traps quotes how the run stopped and the failures before it", () => {
    const input = project("motivation_traps", dataRun).input
    expect(input["abandonment_signal"]).toBe(dataRun.outcome)
    expect(input["prior_failures"]).toEqual(["FileNotFoundError: sales_q3.csv"])
  })

  it("plus_delta reviews the main agent's contribution, with the final output as the artifact", () => {
    const input = project("plus_delta", crewRun).input
    expect(input["subject"]).toBe("researcher")
    expect(input["reviewer"]).toBe("pattern-analysis-service (automated review of the trace)")
    expect(input["task_context"]).toBe(crewRun.task)
    expect(input["artifact"]).toBe(crewRun.outcome)
    expect(input["contribution_summary"]).toMatch(/researcher took 4 events .*web_search ×2/)
  })

  it("feedback_triggers marks review wording on an agent's work as feedback and leaves feedback_incorporated to the model", () => {
    const corrected: NormalizedTrace = {
      ...dataRun,
      events: [
        ...dataRun.events,
        { actor: "user", role: "user", kind: "message", content: "That's wrong, you missed the East region.", source: "event:7" },
        { actor: "analyst", role: "agent", kind: "message", content: "You're right, East is 0.7M (+2%). Fixed the summary.", source: "event:8" }
      ]
    }
    const input = project("feedback_triggers", corrected).input
    expect(field(input, "messages", 6, "is_feedback")).toBe(true)
    expect(field(input, "messages", 0, "is_feedback")).toBeUndefined()
    expect(input["feedback_incorporated"]).toBeUndefined()
    const definition = definitions.find((d) => d.code.slug === "feedback_triggers")
    const validated = definition?.code.validate(input)
    if (validated === undefined || Either.isLeft(validated)) return expect.fail("feedback_triggers does not validate")
    const values = validated.right.signals().values
    expect(values["feedback_messages"]).toBe(1)
    expect(values["feedback_incorporated"]).toBeNull()
  })

  it("grpi describes each agent by the system prompt the trace holds for it", () => {
    const input = project("grpi", supportChat).input
    expect(field(input, "agents", 0)).toEqual({ name: "assistant", description: supportChat.events[0]?.content })
    expect(input["constraints"]).toEqual(["You may issue refunds up to 50 EUR."])
    expect(field(project("grpi", crewRun).input, "agents", 1)).toEqual({ name: "researcher", description: "", tools: ["web_search"] })
  })
})

describe("dataset labels never reach a pattern's input", () => {
  // Importers drop labels (DECISIONS §12); even a trace object that still carried them would not
  // pass them on: the projection and the derivations read the normalized fields alone. Every
  // pattern is checked on the path a raw trace takes in the service: admitted, then projected and
  // validated by `validateAdmitted`, whose canonical input, signals and intake note are what the
  // model is shown. None is skipped: the patterns that cannot take the labelled run alone are
  // listed with the path that applies to them, and that list is asserted to be exact.
  const labelled: NormalizedTrace = Object.assign({}, dataRun, {
    mistake_step: 2,
    ground_truth: "LABEL: the file path was wrong",
    is_correct: false,
    annotations: [{ score: 0.1, label: "LABEL: failure" }],
    events: dataRun.events.map((event, i) => Object.assign({}, event, { label: `LABEL ${i}`, score: 0.5, is_correct: i > 2 }))
  })
  const forbidden = new Set(["mistake_step", "ground_truth", "is_correct", "annotations", "label", "score"])
  const admitted: AdmittedTrace = { _tag: "Raw", format: "trajectory", trace: labelled }
  const limits = Effect.runSync(appConfig.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map())))).limits

  /** The patterns that do not validate the labelled run with no hints, and the path each takes instead. */
  const NOT_FROM_THE_RUN_ALONE: Readonly<Record<string, { readonly path: "refused" | "hints"; readonly why: string }>> = {
    danva_emotion: { path: "refused", why: "reads labelled emotion items, not agent runs: intake refuses a raw trace" },
    process_gain_loss: { path: "hints", why: "needs hints.individual_baselines and hints.team_result" },
    group_decision: { path: "hints", why: "needs hints.options and hints.stakes" },
    schein_culture: { path: "hints", why: "needs hints.system_prompt: the labelled run holds no system prompt" }
  }

  /** What the model is shown of a leaked label: a forbidden key or the LABEL text anywhere. */
  const leaks = (u: unknown): ReadonlyArray<string> => [
    ...keysOf(u).filter((key) => forbidden.has(key)),
    ...(JSON.stringify(u).includes("LABEL") ? ["LABEL text"] : [])
  ]

  it("exactly the listed patterns need more than the labelled run, each for its stated reason", () => {
    const failing = definitions.filter((d) => Either.isLeft(validateAdmitted(d.code, admitted, {}))).map((d) => d.code.slug)
    expect(failing.sort()).toEqual(Object.keys(NOT_FROM_THE_RUN_ALONE).sort())
    for (const [slug, { path }] of Object.entries(NOT_FROM_THE_RUN_ALONE)) {
      const definition = definitions.find((d) => d.code.slug === slug)
      expect(definition?.code.reading.accepts, slug).toBe(path === "hints")
      if (path === "hints") expect(HINTS[slug], `${slug} has hints in this test`).toBeDefined()
    }
  })

  it.each(definitions.map((d, i) => [d.code.slug, d, i] as const))("%s", (slug, definition, index) => {
    // The case's name is the pattern's served name: the catalogue entry at its position, in snake_case.
    expect(slug).toBe(catalogueOrder[index])
    expect(slug).toMatch(/^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/)
    expect(definition.spec.slug).toBe(slug)
    const exception = NOT_FROM_THE_RUN_ALONE[slug]
    if (exception?.path === "refused") {
      const refused = admitTrace(Normalize, definition.code, labelled, true, "auto", undefined, limits, NOT_REDACTING)
      if (Either.isRight(refused)) return expect.fail(`${slug} admitted a raw trace: ${exception.why}`)
      expect(refused.left.message).toContain(`${slug} does not read agent runs`)
      expect(leaks(refused.left.message), slug).toEqual([])
      return
    }
    const hints = exception === undefined ? {} : HINTS[slug] ?? {}
    expect(leaks(hints), `${slug}: the test's hints are label-free`).toEqual([])
    const projected = projectTrace(definition.code.family, definition.code.derive, labelled, hints)
    expect(leaks(projected.input), `${slug}: projected input`).toEqual([])
    const validated = validateAdmitted(definition.code, admitted, hints)
    if (Either.isLeft(validated)) return expect.fail(`${slug} does not validate the labelled run: ${validated.left.message}`)
    const { trace, origin } = validated.right
    expect(leaks(trace.canonical), `${slug}: canonical input`).toEqual([])
    expect(leaks(trace.signals()), `${slug}: signals`).toEqual([])
    if (origin === undefined) return expect.fail(`${slug}: a raw trace has an origin`)
    expect(leaks(intakeNote(origin)), `${slug}: intake note`).toEqual([])
    expect(leaks([...origin.derived, ...origin.hinted]), `${slug}: derived and hinted fields`).toEqual([])
  })
})
