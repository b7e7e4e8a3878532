/**
 * The `autogen` importer (DECISIONS §12) on hand-written AG2, AutoGen 0.4 AgentChat, Magentic-One
 * and AutoGen core histories (see test/fixtures/traces/autogen/README.md): actors from `name` /
 * `source`, tool calls and results, handoffs, task / outcome / success, skipped records, dataset
 * labels left out, and detection against the neighbouring formats.
 */
import { describe, expect, it } from "@effect/vitest"
import { autoGenImporter } from "../../src/Traces/Formats/AutoGen.js"
import { langSmithImporter } from "../../src/Traces/Formats/LangSmith.js"
import { trajectoryImporter } from "../../src/Traces/Formats/Trajectory.js"
import { brief, fixtureIn, loadFixtures, neverThrowsOnJson, readersOf } from "./support.js"

const fixture = fixtureIn("autogen")
const { readAll, readOne, failure } = readersOf(autoGenImporter)

describe("autogen importer: AG2 ChatResult", () => {
  const body = fixture("ag2-chat-result.json")

  it("reads names as actors, tool calls with null content, tool_responses and a code-execution reply", () => {
    const trace = readOne(body)
    expect(trace.id).toBe("4217")
    expect(trace.events.map(brief)).toEqual([
      [
        "user_proxy",
        "user",
        "message",
        "",
        "Plan a three-stop walking tour of the Alfama district in Lisbon for tomorrow morning, and check the weather first.",
        "chat_history[0]"
      ],
      ["tour_planner", "agent", "tool_call", "get_weather", "{\"city\": \"Lisbon\", \"day\": \"tomorrow\"}", "chat_history[1]"],
      ["get_weather", "tool", "tool_result", "get_weather", "Sunny, 24 C, light wind from the north-west.", "chat_history[2]"],
      [
        "tour_planner",
        "agent",
        "message",
        "",
        "Good walking weather. Let me compute the distances between the stops.\n\n```python\nfrom geopy.distance import geodesic\nstops = {\"Se Cathedral\": (38.7099, -9.1335), \"Miradouro de Santa Luzia\": (38.7118, -9.1301), \"Castelo de Sao Jorge\": (38.7139, -9.1334)}\nnames = list(stops)\nfor a, b in zip(names, names[1:]):\n    print(a, \"->\", b, round(geodesic(stops[a], stops[b]).m), \"m\")\n```",
        "chat_history[3]"
      ],
      [
        "code_execution",
        "tool",
        "error",
        "code_execution",
        "exitcode: 1 (execution failed)\nCode output: \nTraceback (most recent call last):\n  File \"tmp_code_4c1e.py\", line 1, in <module>\n    from geopy.distance import geodesic\nModuleNotFoundError: No module named 'geopy'\n",
        "chat_history[4]"
      ],
      [
        "tour_planner",
        "agent",
        "message",
        "",
        "geopy is not installed, so I estimated the distances from the map instead.\n\n1. Se Cathedral (start, 9:00)\n2. Miradouro de Santa Luzia, about 350 m uphill (9:40)\n3. Castelo de Sao Jorge, about 300 m further (10:15)\n\nTomorrow is sunny, so bring water and a hat. TERMINATE",
        "chat_history[5]"
      ]
    ])
    expect(trace.agents).toEqual(["tour_planner"])
  })

  it("takes the task from the first user message, the outcome from `summary`, and leaves success unknown", () => {
    const trace = readOne(body)
    expect(trace.task).toBe("Plan a three-stop walking tour of the Alfama district in Lisbon for tomorrow morning, and check the weather first.")
    expect(trace.outcome).toBe("Three stops in Alfama: Se Cathedral, Miradouro de Santa Luzia, Castelo de Sao Jorge; sunny weather tomorrow.")
    expect(trace.success).toBeNull()
    expect(trace.skipped).toBe(1)
  })

  it("reads a list of chat results (initiate_chats) as one trace each", () => {
    const second = { chat_id: 4218, chat_history: [{ content: "Now book a lunch table nearby.", role: "assistant", name: "user_proxy" }, { content: "Booked for 12:30.", role: "user", name: "booker" }], summary: "Booked." }
    const traces = readAll([body, second])
    expect(traces.map((trace) => [trace.id, trace.outcome])).toEqual([
      ["4217", "Three stops in Alfama: Se Cathedral, Miradouro de Santa Luzia, Castelo de Sao Jorge; sunny weather tomorrow."],
      ["4218", "Booked."]
    ])
    expect(traces[1]?.events.map((event) => event.source)).toEqual(["[1].chat_history[0]", "[1].chat_history[1]"])
  })

  it("uses `question` / `task` for the task, and reads function calls and function results", () => {
    const trace = readOne({
      task: "Convert 12 EUR to USD.",
      messages: [
        { role: "user", name: "Admin", content: "Convert 12 EUR to USD, please." },
        { role: "assistant", name: "fx", content: null, function_call: { name: "convert", arguments: "{\"amount\": 12}" } },
        { role: "function", name: "convert", content: "13.07 USD" },
        { role: "assistant", name: "fx", content: "12 EUR is 13.07 USD." }
      ]
    })
    expect(trace.task).toBe("Convert 12 EUR to USD.")
    expect(trace.events.map((event) => [event.actor, event.role, event.kind, event.tool ?? "", event.content])).toEqual([
      ["Admin", "user", "message", "", "Convert 12 EUR to USD, please."],
      ["fx", "agent", "tool_call", "convert", "{\"amount\": 12}"],
      ["convert", "tool", "tool_result", "convert", "13.07 USD"],
      ["fx", "agent", "message", "", "12 EUR is 13.07 USD."]
    ])
  })
})

describe("autogen importer: AutoGen 0.4 AgentChat", () => {
  it("reads a TaskResult: thoughts, FunctionCall lists, execution results with errors, memory, handoffs, timestamps", () => {
    const trace = readOne(fixture("agentchat-task-result.json"))
    expect(trace.events.map((event) => [event.actor, event.role, event.kind, event.tool ?? "", event.to ?? "", event.source, event.timestamp])).toEqual([
      ["user", "user", "message", "", "", "messages[0]", "2025-06-02T09:14:03.112094Z"],
      ["ops_agent", "agent", "thought", "", "", "messages[1]", "2025-06-02T09:14:05.480211Z"],
      ["ops_agent", "agent", "tool_call", "read_job_log", "", "messages[2]", "2025-06-02T09:14:05.481003Z"],
      ["ops_agent", "agent", "tool_call", "disk_usage", "", "messages[2]", "2025-06-02T09:14:05.481003Z"],
      ["read_job_log", "tool", "tool_result", "read_job_log", "", "messages[3]", "2025-06-02T09:14:06.902417Z"],
      ["disk_usage", "tool", "error", "disk_usage", "", "messages[3]", "2025-06-02T09:14:06.902417Z"],
      ["ops_agent", "agent", "message", "", "", "messages[4]", "2025-06-02T09:14:06.903120Z"],
      ["memory", "tool", "tool_result", "memory", "", "messages[5]", "2025-06-02T09:14:07.010554Z"],
      ["ops_agent", "agent", "handoff", "", "storage_agent", "messages[6]", "2025-06-02T09:14:08.771902Z"],
      ["storage_agent", "agent", "message", "", "", "messages[7]", "2025-06-02T09:14:11.204318Z"]
    ])
    const contents = trace.events.map((event) => event.content)
    expect(contents[2]).toBe("{\"host\": \"db-replica-2\", \"job\": \"nightly-backup\", \"lines\": 50}")
    expect(contents[5]).toBe("PermissionError: disk_usage requires the ops-readonly role")
    expect(contents[7]).toBe("db-replica-2 writes its backups to the /var/backups volume (200 GB).")
    expect(trace.task).toBe("Our nightly backup job failed on db-replica-2. Find out why and tell me whether last night's data is safe.")
    expect(trace.outcome).toMatch(/^The backup stopped at 02:13/)
    // A termination keyword says the team stopped, not that the task was done.
    expect(trace.success).toBeNull()
    expect(trace.agents).toEqual(["ops_agent", "storage_agent"])
  })

  it("reads a Magentic-One list: text of multimodal messages only, and a StopMessage at the turn limit as a failure", () => {
    const trace = readOne(fixture("magentic-one.json"))
    expect(trace.events.map((event) => event.source)).toEqual(["[0]", "[1]", "[2]", "[3]", "[4]", "[5]", "[6]", "[7]"])
    expect(trace.agents).toEqual(["MagenticOneOrchestrator", "WebSurfer"])
    expect(trace.events[3]?.content).toBe(
      "I typed 'LocHal Tilburg openingstijden' into the browser search bar.\n\nThe web browser is open to the page [LocHal Tilburg openingstijden - Search](https://www.bing.com/search?q=LocHal+Tilburg+openingstijden)."
    )
    expect(JSON.stringify(trace)).not.toContain("iVBORw0KGgo")
    expect(trace.success).toBe(false)
    expect(trace.outcome).toBe("Maximum number of turns 6 reached.")
    expect(trace.task).toBe("Find the opening hours of the Tilburg city library on Saturdays.")
  })

  it("takes a cut-off stop_reason as a failure", () => {
    const trace = readOne({ messages: [{ source: "user", content: "hi", type: "TextMessage" }, { source: "a", content: "hello", type: "TextMessage" }], stop_reason: "Maximum number of messages 2 reached, current message count: 2" })
    expect(trace.success).toBe(false)
    expect(trace.outcome).toBe("Maximum number of messages 2 reached, current message count: 2")
  })
})

describe("autogen importer: AutoGen core LLMMessage history", () => {
  it("reads system, user, assistant thoughts and FunctionCalls, and execution results; counts unknown types", () => {
    const trace = readOne(fixture("core-llm-history.json"))
    expect(trace.events.map(brief)).toEqual([
      ["system", "system", "message", "", "You route library patrons to the right desk.", "messages[0]"],
      ["User", "user", "message", "", "Hello, I returned a book last week but the app still says it is overdue.", "messages[1]"],
      ["TriageAgent", "agent", "thought", "", "This is about a loan record, so the loans desk should handle it.", "messages[2]"],
      ["TriageAgent", "agent", "tool_call", "transfer_to_loans_desk", "{}", "messages[2]"],
      ["transfer_to_loans_desk", "tool", "tool_result", "transfer_to_loans_desk", "Transferred to LoansDeskAgent. Adopt persona immediately.", "messages[3]"],
      ["LoansDeskAgent", "agent", "message", "", "I can fix that. Which book was it, and on which day did you drop it in the return box?", "messages[4]"],
      ["User", "user", "message", "", "It was 'The Dispossessed', returned last Tuesday.", "messages[5]"],
      [
        "LoansDeskAgent",
        "agent",
        "message",
        "",
        "Thanks. I have cleared the overdue flag on 'The Dispossessed'; the return was logged late by the sorting machine.",
        "messages[6]"
      ]
    ])
    expect(trace.skipped).toBe(1)
    expect(trace.success).toBeNull()
    expect(trace.agents).toEqual(["TriageAgent", "LoansDeskAgent"])
  })

  it("reads a recorded ChatCompletionClient session as one trace, the repeated history once", () => {
    const system = { content: "You are terse.", type: "SystemMessage" }
    const question = { content: "Name a prime above 10.", source: "User", type: "UserMessage" }
    const usage = { prompt_tokens: 20, completion_tokens: 1 }
    const body = [
      { mode: "create", messages: [system, question], response: { finish_reason: "stop", content: "11", usage, cached: false, thought: null }, stream: [] },
      {
        mode: "create",
        messages: [system, question, { content: "11", thought: null, source: "Assistant", type: "AssistantMessage" }, { content: "And one above 20?", source: "User", type: "UserMessage" }],
        response: { finish_reason: "stop", content: "23", usage, cached: false, thought: null },
        stream: []
      }
    ]
    expect(autoGenImporter.detect(body)).toBe(true)
    const trace = readOne(body)
    expect(trace.events.map((event) => [event.actor, event.kind, event.content, event.source])).toEqual([
      ["system", "message", "You are terse.", "[0].messages[0]"],
      ["User", "message", "Name a prime above 10.", "[0].messages[1]"],
      ["Assistant", "message", "11", "[0].response"],
      ["User", "message", "And one above 20?", "[1].messages[3]"],
      ["Assistant", "message", "23", "[1].response"]
    ])
  })
})

describe("autogen importer: malformed input and labels", () => {
  it("counts non-object records, empty messages, control events and unknown types, and never throws", () => {
    const trace = readOne([
      { source: "user", content: "start", type: "TextMessage" },
      "loose string",
      null,
      { source: "a", content: "", type: "UserInputRequestedEvent" },
      { source: "a", content: "chunk", type: "ModelClientStreamingChunkEvent" },
      { source: "a", content: "x", type: "BrandNewEvent" },
      { name: "a", role: "assistant", content: null },
      { name: "a", role: "narrator", content: "?" },
      { source: "a", content: 12, type: "TextMessage" },
      { source: "a", content: [{ call: "no name" }], type: "ToolCallRequestEvent" }
    ])
    expect(trace.events.map((event) => event.content)).toEqual(["start", "12"])
    expect(trace.skipped).toBe(8)
  })

  it("answers Left with a clear message for empty histories and unreadable ones", () => {
    expect(failure({ chat_history: [] })).toMatch(/empty/)
    expect(failure({ messages: [] })).toMatch(/empty/)
    expect(failure([])).toMatch(/empty|no chats/)
    expect(failure({ messages: [1, 2, 3] })).toMatch(/none of the 3 messages/)
    expect(failure({ nothing: true })).toMatch(/expected/)
    expect(failure(null)).toMatch(/expected/)
  })

  it("never copies dataset labels into the trace", () => {
    const trace = readOne({
      messages: [
        { source: "user", content: "Sort these numbers.", type: "TextMessage" },
        { source: "solver", content: "1, 2, 3", type: "TextMessage" }
      ],
      mistake_step: "7",
      mistake_agent: "solver-LABEL-a91",
      ground_truth: "GT-LABEL-zz4",
      is_correct: false
    })
    const json = JSON.stringify(trace)
    expect(json).not.toContain("GT-LABEL-zz4")
    expect(json).not.toContain("solver-LABEL-a91")
    expect(trace.skipped).toBe(4)
  })

  it("never throws on any JSON value", () => {
    neverThrowsOnJson(autoGenImporter)
  })
})

describe("autogen importer: Magentic-One group chats of the Who&When dataset (real logs)", () => {
  // mistake_agent names a speaker, which the trace does hold; the other labels never appear.
  const labels = ["ground_truth", "mistake_step", "mistake_reason", "is_corrected", "is_correct"]
  const labelValues = (body: unknown): ReadonlyArray<string> => {
    const record = typeof body === "object" && body !== null && !Array.isArray(body) ? Object.entries(body) : []
    return record.flatMap(([key, value]) => (labels.includes(key) && typeof value === "string" && value.length > 8 ? [value] : []))
  }

  it("reads the speaker in `role` as the actor: thoughts, instructions as handoffs, `human` as the user", () => {
    const body = fixture("who-and-when-hand-crafted-6.json")
    expect(autoGenImporter.detect(body)).toBe(true)
    const trace = readOne(body)
    expect(trace.events.map((event) => [event.actor, event.role, event.kind, event.to ?? "", event.source])).toEqual([
      ["user", "user", "message", "", "history[0]"],
      ["Orchestrator", "agent", "thought", "", "history[1]"],
      ["Orchestrator", "agent", "thought", "", "history[2]"],
      ["Orchestrator", "agent", "handoff", "WebSurfer", "history[3]"],
      ["WebSurfer", "agent", "message", "", "history[4]"],
      ["Orchestrator", "agent", "thought", "", "history[5]"],
      ["Orchestrator", "agent", "thought", "", "history[6]"],
      ["Orchestrator", "agent", "message", "", "history[7]"]
    ])
    expect(trace.events[3]?.content).toMatch(/^Please search for the highest price a high-rise apartment/)
    expect(trace.agents).toEqual(["Orchestrator", "WebSurfer"])
    expect(trace.id).toBe("e6bc98089608217e45b6956a46518fe3cce64a799b3ac43c6974c449ae14c408")
    expect(trace.task).toBe("What's the highest price a high-rise apartment was sold for in Mission Bay, San Francisco, in 2021?")
    expect(trace.outcome).toContain("FINAL ANSWER: 1080000000")
    expect(trace.success).toBeNull()
  })

  it("reads every speaker of a longer log, and never copies the labels (ground_truth, mistake_*)", () => {
    const body = fixture("who-and-when-hand-crafted-43.json")
    const trace = readOne(body)
    expect(trace.events).toHaveLength(16)
    expect(trace.agents).toEqual(["Orchestrator", "WebSurfer", "Assistant"])
    expect(trace.events.filter((event) => event.kind === "handoff").map((event) => [event.to, event.source])).toEqual([
      ["WebSurfer", "history[3]"],
      ["WebSurfer", "history[6]"],
      ["Assistant", "history[10]"]
    ])
    expect(trace.events[12]).toMatchObject({ actor: "Assistant", kind: "message", source: "history[12]" })
    expect(trace.id).toBe("db4fd70a-2d37-40ea-873f-9433dc5e301f")
    const json = JSON.stringify(trace)
    for (const value of labelValues(body)) expect(json).not.toContain(value)
    expect(json).not.toContain("mistake")
    // ground_truth, is_corrected, mistake_agent, mistake_step, mistake_reason
    expect(trace.skipped).toBe(5)
  })

  it("takes the question as the task and question_ID as the id of an AG2 log of the dataset", () => {
    const body = fixture("who-and-when-algorithm-generated-47.json")
    const trace = readOne(body)
    expect(trace.id).toBe("0bb3b44a-ede5-4db5-a520-4e844b0079c5")
    expect(trace.task).toMatch(/^Consider the following symbols: /)
    expect(trace.agents).toEqual(["Mesopotamian_Number_Systems_Expert"])
    for (const value of labelValues(body)) expect(JSON.stringify(trace)).not.toContain(value)
  })

  it("takes the first human message as the task without `question`, and reads a bare list of speaker roles", () => {
    const trace = readOne([
      { role: "human", content: "Find the 2021 report." },
      { role: "Orchestrator (-> FileSurfer)", content: "Open the reports folder." },
      { role: "FileSurfer", content: "Opened /reports: 2021.pdf" },
      { role: "Orchestrator (termination condition)", content: "FINAL ANSWER: 2021.pdf" }
    ])
    expect(trace.task).toBe("Find the 2021 report.")
    expect(trace.events.map((event) => [event.actor, event.kind, event.to ?? ""])).toEqual([
      ["user", "message", ""],
      ["Orchestrator", "handoff", "FileSurfer"],
      ["FileSurfer", "message", ""],
      ["Orchestrator", "message", ""]
    ])
  })
})

describe("autogen importer: detect", () => {
  it("is true on its own fixtures, and the neighbouring importers do not claim them", () => {
    for (const [name, body] of loadFixtures("autogen")) {
      expect(autoGenImporter.detect(body), name).toBe(true)
      expect(langSmithImporter.detect(body), name).toBe(false)
      expect(trajectoryImporter.detect(body), name).toBe(false)
    }
  })

  it("is false on the langsmith and trajectory fixtures (OpenHands events carry `source` too)", () => {
    for (const [name, body] of [...loadFixtures("langsmith"), ...loadFixtures("trajectory")]) expect(autoGenImporter.detect(body), name).toBe(false)
  })

  it("is false on other shapes, including plain Chat Completions messages and requests", () => {
    for (
      const body of [
        {},
        [],
        null,
        { steps: [{ actor: "a", content: "x" }] },
        { agents: ["a"], messages: [{ from: "a", content: "x" }] },
        { messages: [{ role: "user", content: "x" }] },
        [{ role: "user", content: "x" }, { role: "assistant", content: "y" }],
        { model: "gpt-4o", messages: [{ role: "user", name: "dana", content: "x" }] },
        { resourceSpans: [] },
        { messages: [] }
      ]
    ) expect(autoGenImporter.detect(body), JSON.stringify(body)).toBe(false)
  })

  it("is true when records carry `name`, `source` or an AutoGen type", () => {
    expect(autoGenImporter.detect([{ role: "user", name: "user_proxy", content: "x" }])).toBe(true)
    expect(autoGenImporter.detect({ messages: [{ source: "user", content: "x", type: "TextMessage" }] })).toBe(true)
    expect(autoGenImporter.detect({ history: [{ type: "UserMessage", content: "x" }] })).toBe(true)
    expect(autoGenImporter.detect({ chat_id: 1, chat_history: [], summary: "" })).toBe(true)
  })
})
