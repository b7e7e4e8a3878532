/**
 * The `tau_bench` importer (DECISIONS §12) on its fixtures: tau-bench's published historical
 * trajectories, one record cut out of them, and a tau2-bench results file
 * (test/fixtures/traces/tau_bench/README.md); a single simulation, errors and malformed records
 * inline; the lone record through `POST /v1/traces/normalize`.
 */
import { describe, expect, it } from "@effect/vitest"
import { Predicate, Schema } from "effect"
import { tauBenchImporter } from "../../src/Traces/Formats/TauBench.js"
import { NormalizedTrace } from "../../src/Traces/Model.js"
import { useProviderDouble } from "../support/Harness.js"
import { brief, type CountsTable, detectionBothWays, expectCountsTable, fixtureIn, fixtureText, list, neverThrowsOnJson, readersOf, sub, text } from "./support.js"

const FAMILY = "tau_bench"
const fixture = fixtureIn(FAMILY)
const { readAll, readOne, failure } = readersOf(tauBenchImporter)

/** Per fixture, the traces' ids and each trace's counts. */
const COUNTS: CountsTable = [
  [
    "tau-bench-gpt-4o-airline.json",
    [
      ["0", { messages: 16, toolCalls: 8, withArguments: 8, toolResults: 8, errors: 0, agents: 1, handoffs: 0, thoughts: 0, skipped: 0 }],
      ["1", { messages: 12, toolCalls: 0, withArguments: 0, toolResults: 0, errors: 0, agents: 1, handoffs: 0, thoughts: 0, skipped: 0 }]
    ]
  ],
  [
    "tau-bench-gpt-4o-airline.task-48-trial-1.json",
    [["48:1", { messages: 6, toolCalls: 2, withArguments: 2, toolResults: 2, errors: 0, agents: 1, handoffs: 0, thoughts: 0, skipped: 0 }]]
  ],
  [
    "tau2-airline-run1.json",
    [
      ["c4726c14-f132-4944-a51a-465518856f47", { messages: 10, toolCalls: 4, withArguments: 4, toolResults: 4, errors: 0, agents: 1, handoffs: 0, thoughts: 0, skipped: 0 }],
      ["e6b9ec17-d11e-449a-a79d-707c2d2f8e42", { messages: 12, toolCalls: 7, withArguments: 7, toolResults: 7, errors: 0, agents: 1, handoffs: 0, thoughts: 0, skipped: 0 }]
    ]
  ]
]

describe("tau_bench importer: tau-bench and tau2-bench results", () => {
  it("reads each fixture, one trace per record or simulation, with the expected counts and no duplicate events", () => {
    expectCountsTable(tauBenchImporter, COUNTS)
  })

  it("reads a tau-bench trajectory: policy, user turns, tool calls with their arguments and results", () => {
    const [first, second] = readAll(fixture("tau-bench-gpt-4o-airline.json"))
    expect(first?.events.slice(0, 2).map((event) => [event.actor, event.role, event.kind, event.source])).toEqual([
      ["system", "system", "message", "[0].traj[0]"],
      ["user", "user", "message", "[0].traj[1]"]
    ])
    expect(first?.events.slice(6, 8).map(brief)).toEqual([
      ["assistant", "agent", "tool_call", "get_user_details", "{\"user_id\":\"mia_li_3668\"}", "[0].traj[6].tool_calls[0]"],
      ["get_user_details", "tool", "tool_result", "get_user_details", expect.stringMatching(/^\{"name": \{"first_name": "Mia", "last_name": "Li"\}/), "[0].traj[7]"]
    ])
    expect(first?.events.find((event) => event.source === "[0].traj[21]")?.content).toBe("Error: payment amount does not add up, total price is 305, but paid 255")
    expect(first?.task).toBe("Hi! I'm looking to book a flight from New York to Seattle on May 20th.")
    expect(first?.outcome).toMatch(/^Your flight from New York \(JFK\) to Seattle \(SEA\) has been successfully booked\./)
    // the benchmark's verdict: reward 0
    // the reward is a label: success stays unknown without an error status (DECISIONS §12)
    expect([first?.success, second?.success]).toEqual([null, null])
    expect(second?.events.at(-1)).toEqual({ actor: "user", role: "user", kind: "message", content: "Thank you! ###STOP###", source: "[1].traj[11]" })
    expect(second?.task).toMatch(/^Hi there! I need to change my return flight from Texas to Newark\./)
  })

  it("reads tau2 simulations with timestamps, the simulation id, and tool results named through the call id", () => {
    const [first, second] = readAll(fixture("tau2-airline-run1.json"))
    expect(first?.events.slice(0, 2)).toEqual([
      { actor: "assistant", role: "agent", kind: "message", content: "Hi! How can I help you today?", timestamp: "2026-07-31T01:29:51.967653", source: "simulations[0].messages[0]" },
      {
        actor: "user",
        role: "user",
        kind: "message",
        content: "Hi, I'd like to cancel my reservation, please. The confirmation code is EHGLP3.",
        timestamp: "2026-07-31T01:29:53.842000",
        source: "simulations[0].messages[1]"
      }
    ])
    expect(first?.events.slice(6, 8).map(brief)).toEqual([
      ["assistant", "agent", "tool_call", "get_flight_status", "{\"flight_number\":\"HAT156\",\"date\":\"2024-05-17\"}", "simulations[0].messages[6].tool_calls[0]"],
      ["get_flight_status", "tool", "tool_result", "get_flight_status", "available", "simulations[0].messages[7]"]
    ])
    // the task is the user's first message, not the agent's greeting
    expect(first?.task).toBe("Hi, I'd like to cancel my reservation, please. The confirmation code is EHGLP3.")
    expect(first?.outcome).toBe("You're welcome.")
    expect(second?.events.slice(-4).map(brief)).toEqual([
      ["assistant", "agent", "tool_call", "transfer_to_human_agents", expect.stringMatching(/^\{"summary":"User wants to cancel reservation Q69X3R/), "simulations[1].messages[22].tool_calls[0]"],
      ["transfer_to_human_agents", "tool", "tool_result", "transfer_to_human_agents", "Transfer successful", "simulations[1].messages[23]"],
      ["assistant", "agent", "message", "", "YOU ARE BEING TRANSFERRED TO A HUMAN AGENT. PLEASE HOLD ON.", "simulations[1].messages[24]"],
      ["user", "user", "message", "", "###TRANSFER###", "simulations[1].messages[25]"]
    ])
  })

  it("reads one record cut out of a results file: every message and tool call, and their call ids, success unknown (its reward is a label)", () => {
    const body = fixture("tau-bench-gpt-4o-airline.task-48-trial-1.json")
    expect(Array.isArray(body)).toBe(false)
    const trace = readOne(body)
    expect(trace.id).toBe("48:1")
    expect(trace.events.map((event) => [event.actor, event.kind, event.tool ?? "", event.call_id ?? "", event.source])).toEqual([
      ["system", "message", "", "", "traj[0]"],
      ["user", "message", "", "", "traj[1]"],
      ["assistant", "message", "", "", "traj[2]"],
      ["user", "message", "", "", "traj[3]"],
      ["assistant", "tool_call", "get_reservation_details", "call_Mxn2CmKacuvxn7cEyJA5chIF", "traj[4].tool_calls[0]"],
      ["get_reservation_details", "tool_result", "get_reservation_details", "call_Mxn2CmKacuvxn7cEyJA5chIF", "traj[5]"],
      ["assistant", "message", "", "", "traj[6]"],
      ["user", "message", "", "", "traj[7]"],
      ["assistant", "tool_call", "transfer_to_human_agents", "call_Ab7YHfneXdQk4tCXNRPh0C8u", "traj[8].tool_calls[0]"],
      ["transfer_to_human_agents", "tool_result", "transfer_to_human_agents", "call_Ab7YHfneXdQk4tCXNRPh0C8u", "traj[9]"]
    ])
    expect(trace.task).toBe("Hi, I need to change the date of a flight I booked.")
    expect(trace.outcome).toMatch(/^Your reservation is in basic economy class, which cannot be modified\./)
    expect(trace.success).toBeNull()
    // the task's ground truth and the simulated user's instruction stay out
    const written = JSON.stringify(trace)
    expect(written).not.toContain("tragically")
    expect(written).not.toContain("gt_data_hash")
  })

  it("gives tau2 simulations' tool calls and results their call ids, success unknown without an abnormal termination", () => {
    const [first, second] = readAll(fixture("tau2-airline-run1.json"))
    expect([first?.success, second?.success]).toEqual([null, null])
    const call = first?.events.find((event) => event.source === "simulations[0].messages[6].tool_calls[0]")
    const result = first?.events.find((event) => event.source === "simulations[0].messages[7]")
    expect(call?.call_id).toEqual(expect.any(String))
    expect(result?.call_id).toBe(call?.call_id)
  })

  it("never copies the labels: reward, reward_info, the task's ground truth and the user's instructions", () => {
    const v1 = fixture("tau-bench-gpt-4o-airline.json")
    const v1Written = JSON.stringify(readAll(v1))
    for (const record of list(v1)) {
      const task = sub(sub(record, "info"), "task")
      expect(v1Written).not.toContain(text(task?.["instruction"]).slice(0, 60))
      for (const action of list(task?.["actions"])) expect(v1Written).not.toContain(JSON.stringify(action["kwargs"]))
    }
    const v2 = fixture("tau2-airline-run1.json")
    const v2Traces = readAll(v2)
    const v2Written = JSON.stringify(v2Traces)
    for (const task of list(Predicate.isRecord(v2) ? v2["tasks"] : undefined)) {
      const instructions = sub(sub(task, "user_scenario"), "instructions")
      expect(v2Written).not.toContain(text(instructions?.["reason_for_call"]).slice(0, 40))
      for (const assertion of list(sub(task, "evaluation_criteria")?.["nl_assertions"])) expect(v2Written).not.toContain(JSON.stringify(assertion))
    }
    expect(v2Written).not.toContain("Agent should refuse to proceed with the cancellation.")
    expect(v2Written).not.toContain("db_match")
    for (const event of v2Traces.flatMap((trace) => trace.events)) expect(event.source).not.toMatch(/reward|tasks|review|info/)
  })
})

describe("tau_bench importer: other shapes, errors, malformed input", () => {
  it("reads one tau2 simulation, user tool calls, grouped tool results, tool errors, and an abnormal termination", () => {
    const trace = readOne({
      id: "sim-1",
      task_id: "[mobile_data_issue]airplane_mode_on",
      termination_reason: "too_many_errors",
      reward_info: { reward: 0.0, nl_assertions: [{ nl_assertion: "Agent should turn airplane mode off" }] },
      messages: [
        { role: "assistant", content: "Hi! How can I help you today?", turn_idx: 0 },
        { role: "user", content: "My mobile data is not working.", tool_calls: [{ id: "u1", name: "check_status_bar", arguments: {}, requestor: "user" }], turn_idx: 1 },
        { role: "tool", id: "u1", content: "Airplane mode: ON", requestor: "user", error: false, turn_idx: 2 },
        { role: "assistant", content: null, tool_calls: [{ id: "a1", name: "get_line", arguments: { phone: "555" }, requestor: "assistant" }, { id: "a2" }], turn_idx: 3 },
        { role: "tool", tool_messages: [{ role: "tool", id: "a1", content: "Error: line not found", requestor: "assistant", error: true, turn_idx: 4 }, { role: "tool", tool_messages: [] }] },
        { role: "narrator", content: "?" },
        null
      ]
    })
    expect(trace.events.map(brief)).toEqual([
      ["assistant", "agent", "message", "", "Hi! How can I help you today?", "messages[0]"],
      ["user", "user", "message", "", "My mobile data is not working.", "messages[1]"],
      ["user", "user", "tool_call", "check_status_bar", "{}", "messages[1].tool_calls[0]"],
      ["check_status_bar", "tool", "tool_result", "check_status_bar", "Airplane mode: ON", "messages[2]"],
      ["assistant", "agent", "tool_call", "get_line", "{\"phone\":\"555\"}", "messages[3].tool_calls[0]"],
      ["get_line", "tool", "error", "get_line", "Error: line not found", "messages[4].tool_messages[0]"],
      ["system", "system", "error", "", "termination_reason: too_many_errors", "termination_reason"]
    ])
    expect(trace.id).toBe("sim-1")
    expect(trace.skipped).toBe(4) // the call without a name, the nested group, the unknown role, null
    expect(trace.success).toBe(false)
    expect(trace.events.filter((event) => event.call_id !== undefined).map((event) => [event.kind, event.call_id, event.status ?? ""])).toEqual([
      ["tool_call", "u1", ""],
      ["tool_result", "u1", ""],
      ["tool_call", "a1", ""],
      ["error", "a1", "error"]
    ])
    expect(trace.outcome).toBe("termination_reason: too_many_errors")
    expect(JSON.stringify(trace)).not.toContain("airplane mode off")
  })

  it("reads a tau-bench run that raised (info.error), and later trials with their trial number", () => {
    const traces = readAll([
      { task_id: 3, reward: 0.0, info: { error: "litellm.RateLimitError", traceback: "..." }, traj: [], trial: 0 },
      { task_id: 3, reward: 1.0, info: { task: { instruction: "secret instruction" } }, traj: [{ role: "user", content: "Cancel my order" }, { role: "assistant", content: "Done." }], trial: 1 }
    ])
    expect(traces.map((trace) => [trace.id, trace.success, trace.task, trace.outcome])).toEqual([
      ["3", false, "", "litellm.RateLimitError"],
      ["3:1", null, "Cancel my order", "Done."]
    ])
    expect(traces[0]?.events.map((event) => event.source)).toEqual(["[0].info.error"])
    expect(JSON.stringify(traces)).not.toContain("secret instruction")
  })

  it("answers a Left when nothing is readable, and never throws", () => {
    expect(failure([{ task_id: 1, reward: 0, traj: [] }])).toMatch(/^tau_bench: no record holds readable messages \(1 records\)/)
    expect(failure({ hello: "world" })).toMatch(/^tau_bench: expected/)
    neverThrowsOnJson(tauBenchImporter, { nonEmptyTraces: true })
  })
})

describe("tau_bench importer: detect", () => {
  detectionBothWays(tauBenchImporter, [
    {},
    [],
    [{ role: "user", content: "hi" }],
    [{ task_id: 1, traj: [] }],
    { messages: [{ role: "user", content: "hi" }], info: {} },
    { simulations: [] },
    { task_id: 1, messages: [] }
  ])
})

describe("POST /v1/traces/normalize with one tau-bench record", () => {
  const harness = useProviderDouble()
  const One = Schema.Struct({ format: Schema.String, events: Schema.Int, trace: NormalizedTrace })

  it("detects the lone record as tau_bench and answers its events", async () => {
    const service = await harness.start({ ANTHROPIC_API_KEY: "sk-ant-traces-0123456789", ANTHROPIC_BASE_URL: harness.double.url })
    const response = await fetch(`${service.url}/v1/traces/normalize`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: fixtureText("tau_bench/tau-bench-gpt-4o-airline.task-48-trial-1.json")
    })
    const json: unknown = await response.json()
    expect(response.status, JSON.stringify(json).slice(0, 300)).toBe(200)
    const read = Schema.decodeUnknownSync(One)(json)
    expect([read.format, read.events, read.trace.id, read.trace.success]).toEqual(["tau_bench", 10, "48:1", null])
  })
})
