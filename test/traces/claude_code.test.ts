/**
 * The `claude_code` importer (DECISIONS §12) on Claude Code session transcripts taken from the
 * public daaain/claude-code-log repository's test data (see
 * test/fixtures/traces/claude_code/README.md): exact counts per fixture, exact events, the task,
 * outcome and trace id, sub-agent sidechains as their own actor with a handoff, malformed and
 * non-content records skipped and counted, and detection against every other format's fixtures.
 */
import { describe, expect, it } from "@effect/vitest"
import { claudeCodeImporter } from "../../src/Traces/Formats/ClaudeCode.js"
import { brief, type Counts, countsOf, detectionBothWays, expectNoDuplicates, fixtureIn, neverThrowsOnJson, readersOf } from "./support.js"

const fixture = fixtureIn("claude_code")
const { readAll, readOne, failure } = readersOf(claudeCodeImporter)

const TODOS_RESULT =
  "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable"

describe("claude_code importer: fixtures", () => {
  const table: ReadonlyArray<readonly [string, Counts]> = [
    ["todowrite_examples.jsonl", { messages: 5, toolCalls: 3, withArguments: 3, toolResults: 3, errors: 0, agents: 1, handoffs: 0, thoughts: 0, skipped: 1 }],
    ["sidechain_integrated.jsonl", { messages: 2, toolCalls: 2, withArguments: 2, toolResults: 2, errors: 0, agents: 2, handoffs: 1, thoughts: 0, skipped: 0 }]
  ]
  it.each(table)("%s: exact counts, no duplicate events, events in time order", (name, counts) => {
    const trace = readOne(fixture(name))
    expect(countsOf(trace)).toEqual(counts)
    expectNoDuplicates(trace)
    const times = trace.events.map((event) => Date.parse(event.timestamp ?? ""))
    expect(times).toEqual([...times].sort((a, b) => a - b))
  })

  it("reads a session with TodoWrite calls: the user's first message is the task, the last answer the outcome", () => {
    const trace = readOne(fixture("todowrite_examples.jsonl"))
    expect(trace.id).toBe("todowrite_session")
    expect(trace.task).toBe("Can you help me implement a new feature with proper task management?")
    expect(trace.outcome).toBe("Absolutely! Security review is crucial. Let me add that to our todo list with high priority.")
    expect(trace.success).toBeNull()
    expect(trace.agents).toEqual(["claude"])
    expect(trace.events.slice(0, 4).map(brief)).toEqual([
      ["user", "user", "message", "", "Can you help me implement a new feature with proper task management?", "lines[0].message.content"],
      [
        "claude",
        "agent",
        "message",
        "",
        "I'll help you implement a new feature with proper task management. Let me create a todo list to track our progress.",
        "lines[1].message.content[0]"
      ],
      [
        "claude",
        "agent",
        "tool_call",
        "TodoWrite",
        "{\"todos\":[{\"id\":\"1\",\"content\":\"Design the feature architecture\",\"status\":\"pending\",\"priority\":\"high\"},{\"id\":\"2\",\"content\":\"Implement core functionality\",\"status\":\"pending\",\"priority\":\"high\"},{\"id\":\"3\",\"content\":\"Add comprehensive tests\",\"status\":\"pending\",\"priority\":\"medium\"},{\"id\":\"4\",\"content\":\"Write user documentation\",\"status\":\"pending\",\"priority\":\"low\"},{\"id\":\"5\",\"content\":\"Perform code review\",\"status\":\"pending\",\"priority\":\"medium\"}]}",
        "lines[2].message.content[0]"
      ],
      ["TodoWrite", "tool", "tool_result", "TodoWrite", TODOS_RESULT, "lines[3].message.content[0]"]
    ])
    expect(trace.events[0]?.timestamp).toBe("2025-06-14T10:00:00Z")
    // the summary record (line 11) is not content
    expect(trace.events.map((event) => event.source)).not.toContain("lines[11]")
  })

  it("reads a Task sidechain as the sub-agent's events, with a handoff from the main agent, in time order", () => {
    const trace = readOne(fixture("sidechain_integrated.jsonl"))
    expect(trace.id).toBe("88a8d761-7b9a-4bf1-a8ca-c1febe6bf358")
    // the excerpt holds no user message: no task, never the model's words
    expect(trace.task).toBe("")
    expect(trace.outcome).toBe("Excellent research! The sub-assistant has identifi...")
    expect(trace.agents).toEqual(["claude", "general-purpose"])
    expect(trace.events.map((event) => [...brief(event), event.to ?? ""])).toEqual([
      [
        "claude",
        "agent",
        "tool_call",
        "Task",
        "{\"subagent_type\":\"general-purpose\",\"description\":\"Research data-border-color usage and CSS class mat...\",\"prompt\":\"Research how data-border-color is used in the code...\"}",
        "lines[0].message.content[0]",
        ""
      ],
      ["claude", "agent", "handoff", "", "Research how data-border-color is used in the code...", "lines[0].message.content[0]", "general-purpose"],
      ["general-purpose", "agent", "message", "", "I'll research how `data-border-color` is used thro...", "lines[2].message.content[0]", ""],
      ["general-purpose", "agent", "tool_call", "Grep", "{\"pattern\":\"data-border-color\",\"output_mode\":\"files_with_matches\"}", "lines[3].message.content[0]", ""],
      // the Read call that this result answers is not in the excerpt
      ["tool", "tool", "tool_result", "", "  3130â†’                # Simplified: no \"Tool Re...", "lines[4].message.content[0]", ""],
      ["Task", "tool", "tool_result", "Task", "Perfect! Now I have a complete understanding. Let ...", "lines[1].message.content[0]", ""],
      ["claude", "agent", "message", "", "Excellent research! The sub-assistant has identifi...", "lines[5].message.content[0]", ""]
    ])
  })
})

// Records in Claude Code's own schema, for the cases the fixtures do not hold.
const base = (uuid: string, timestamp: string, extra: Record<string, unknown> = {}) => ({
  parentUuid: null,
  isSidechain: false,
  userType: "external",
  cwd: "/repo",
  sessionId: "s-1",
  version: "1.0.80",
  uuid,
  timestamp,
  ...extra
})
const user = (uuid: string, timestamp: string, content: unknown, extra: Record<string, unknown> = {}) => ({
  ...base(uuid, timestamp, extra),
  type: "user",
  message: { role: "user", content }
})
const assistant = (uuid: string, timestamp: string, content: unknown, extra: Record<string, unknown> = {}) => ({
  ...base(uuid, timestamp, extra),
  type: "assistant",
  message: { id: `msg_${uuid}`, type: "message", role: "assistant", model: "claude-sonnet-4-5", content }
})

describe("claude_code importer: records", () => {
  it("reads thinking, is_error results as errors, injected messages as the system's, and skips what is not content", () => {
    const trace = readOne([
      { type: "summary", summary: "Fixing the build", leafUuid: "u9" },
      { type: "file-history-snapshot", messageId: "m1", snapshot: {}, isSnapshotUpdate: false },
      user("u0", "2025-07-01T10:00:00Z", "Caveat: The messages below were generated by the user while running local commands.", { isMeta: true }),
      user("u1", "2025-07-01T10:00:01Z", "Fix the failing build."),
      assistant("a1", "2025-07-01T10:00:02Z", [{ type: "thinking", thinking: "Run the build first.", signature: "sig" }]),
      assistant("a2", "2025-07-01T10:00:03Z", [{ type: "tool_use", id: "t1", name: "Bash", input: { command: "npm run build" } }]),
      user("u2", "2025-07-01T10:00:04Z", [{ type: "tool_result", tool_use_id: "t1", content: "error TS2304: Cannot find name 'x'", is_error: true }], {
        toolUseResult: "Error: error TS2304: Cannot find name 'x'"
      }),
      assistant("a3", "2025-07-01T10:00:05Z", [{ type: "redacted_thinking", data: "opaque" }, { type: "text", text: "The build fails on an undefined name." }]),
      user("u3", "2025-07-01T10:00:06Z", [{ type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } }, { type: "text", text: "Here is a screenshot." }]),
      { type: "system", content: "PostToolUse hook failed", level: "error", timestamp: "2025-07-01T10:00:07Z", sessionId: "s-1", uuid: "y1" },
      "not a record",
      { silly: "no type" },
      assistant("a4", "2025-07-01T10:00:08Z", [{ type: "text", text: "API Error: 529 Overloaded" }], { isApiErrorMessage: true })
    ])
    expect(trace.events.map(brief)).toEqual([
      ["system", "system", "message", "", "Caveat: The messages below were generated by the user while running local commands.", "lines[2].message.content"],
      ["user", "user", "message", "", "Fix the failing build.", "lines[3].message.content"],
      ["claude", "agent", "thought", "", "Run the build first.", "lines[4].message.content[0]"],
      ["claude", "agent", "tool_call", "Bash", "{\"command\":\"npm run build\"}", "lines[5].message.content[0]"],
      ["Bash", "tool", "error", "Bash", "error TS2304: Cannot find name 'x'", "lines[6].message.content[0]"],
      ["claude", "agent", "message", "", "The build fails on an undefined name.", "lines[7].message.content[1]"],
      ["user", "user", "message", "", "Here is a screenshot.", "lines[8].message.content[1]"],
      ["system", "system", "error", "", "PostToolUse hook failed", "lines[9]"],
      ["claude", "agent", "error", "", "API Error: 529 Overloaded", "lines[12].message.content[0]"]
    ])
    expect(trace.task).toBe("Fix the failing build.")
    expect(trace.outcome).toBe("API Error: 529 Overloaded")
    expect(trace.success).toBe(false)
    // summary, snapshot, redacted thinking, image, the string, the record without type
    expect(trace.skipped).toBe(6)
  })

  it("ties an old-style sidechain to its Task call by the prompt, and keeps two sub-agents apart", () => {
    const trace = readOne([
      user("u1", "2025-07-01T10:00:00Z", "Audit both packages."),
      assistant("a1", "2025-07-01T10:00:01Z", [
        { type: "tool_use", id: "task-1", name: "Task", input: { description: "audit a", prompt: "Audit package a.", subagent_type: "general-purpose" } },
        { type: "tool_use", id: "task-2", name: "Task", input: { description: "audit b", prompt: "Audit package b.", subagent_type: "general-purpose" } }
      ]),
      user("s1", "2025-07-01T10:00:02Z", "Audit package b.", { isSidechain: true }),
      user("s2", "2025-07-01T10:00:02.500Z", "Audit package a.", { isSidechain: true }),
      assistant("s3", "2025-07-01T10:00:03Z", [{ type: "text", text: "Package b is clean." }], { isSidechain: true, parentUuid: "s1" }),
      assistant("s4", "2025-07-01T10:00:04Z", [{ type: "text", text: "Package a has one advisory." }], { isSidechain: true, parentUuid: "s2" }),
      user("u2", "2025-07-01T10:00:05Z", [
        { type: "tool_result", tool_use_id: "task-1", content: [{ type: "text", text: "Package a has one advisory." }] },
        { type: "tool_result", tool_use_id: "task-2", content: [{ type: "text", text: "Package b is clean." }] }
      ]),
      assistant("a2", "2025-07-01T10:00:06Z", [{ type: "text", text: "One advisory in a; b is clean." }])
    ])
    // in order of first appearance as speakers: b's sub-agent speaks first
    expect(trace.agents).toEqual(["claude", "general-purpose#2", "general-purpose"])
    expect(trace.events.map((event) => [event.actor, event.kind, event.content, event.to ?? ""])).toEqual([
      ["user", "message", "Audit both packages.", ""],
      ["claude", "tool_call", "{\"description\":\"audit a\",\"prompt\":\"Audit package a.\",\"subagent_type\":\"general-purpose\"}", ""],
      ["claude", "handoff", "Audit package a.", "general-purpose"],
      ["claude", "tool_call", "{\"description\":\"audit b\",\"prompt\":\"Audit package b.\",\"subagent_type\":\"general-purpose\"}", ""],
      ["claude", "handoff", "Audit package b.", "general-purpose#2"],
      ["claude", "message", "Audit package b.", "general-purpose#2"],
      ["claude", "message", "Audit package a.", "general-purpose"],
      ["general-purpose#2", "message", "Package b is clean.", ""],
      ["general-purpose", "message", "Package a has one advisory.", ""],
      ["Task", "tool_result", "Package a has one advisory.", ""],
      ["Task", "tool_result", "Package b is clean.", ""],
      ["claude", "message", "One advisory in a; b is clean.", ""]
    ])
    // the sidechain's prompts are the main agent's words, never the task
    expect(trace.task).toBe("Audit both packages.")
    expect(trace.outcome).toBe("One advisory in a; b is clean.")
  })

  it("numbers many sub-agents of one type in order: general-purpose, #2, #3, ... (a name is never reused)", () => {
    const tasks = Array.from({ length: 5 }, (_, i) => ({ type: "tool_use", id: `task-${i}`, name: "Task", input: { prompt: `Audit package ${i}.`, subagent_type: "general-purpose" } }))
    const trace = readOne([
      user("u1", "2025-07-01T10:00:00Z", "Audit five packages."),
      assistant("a1", "2025-07-01T10:00:01Z", tasks),
      user("u2", "2025-07-01T10:00:05Z", tasks.map((task) => ({ type: "tool_result", tool_use_id: task.id, content: "clean" })))
    ])
    expect(trace.events.filter((event) => event.kind === "handoff").map((event) => event.to)).toEqual([
      "general-purpose",
      "general-purpose#2",
      "general-purpose#3",
      "general-purpose#4",
      "general-purpose#5"
    ])
  })

  it("keeps sessions apart: one trace per sessionId, records without one counted against the first", () => {
    const traces = readAll([
      user("u1", "2025-07-01T10:00:00Z", "First session."),
      42,
      { ...user("v1", "2025-07-02T10:00:00Z", "Second session."), sessionId: "s-2" },
      { ...assistant("v2", "2025-07-02T10:00:01Z", [{ type: "text", text: "Answer two." }]), sessionId: "s-2" }
    ])
    expect(traces.map((trace) => [trace.id, trace.task, trace.outcome, trace.skipped])).toEqual([
      ["s-1", "First session.", "", 1],
      ["s-2", "Second session.", "Answer two.", 0]
    ])
  })

  it("answers a Left for bodies with nothing to read, and never throws", () => {
    expect(failure([])).toMatch(/^claude_code: expected/)
    expect(failure("text")).toMatch(/^claude_code: expected/)
    expect(failure([{ type: "summary", summary: "s", leafUuid: "x" }, 7])).toMatch(/^claude_code: no user or assistant messages to read \(2 records skipped\)/)
    neverThrowsOnJson(claudeCodeImporter, { nonEmptyTraces: true })
  })
})

describe("claude_code importer: detect", () => {
  detectionBothWays(claudeCodeImporter, [
    {},
    [],
    null,
    [{ type: "user", message: { role: "user", content: "no session" } }],
    [{ role: "user", content: "hi" }],
    [{ type: "message", role: "assistant", content: [{ type: "text", text: "a" }] }],
    [{ timestamp: "2025-01-01T00:00:00Z", type: "response_item", payload: { type: "message" } }]
  ])

  it("looks past a preamble of summaries", () => {
    const summaries = Array.from({ length: 30 }, (_, i) => ({ type: "summary", summary: `s${i}`, leafUuid: `l${i}` }))
    expect(claudeCodeImporter.detect([...summaries, user("u1", "2025-07-01T10:00:00Z", "hi")])).toBe(true)
  })
})
