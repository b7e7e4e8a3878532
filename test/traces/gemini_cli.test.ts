/**
 * The `gemini_cli` importer (DECISIONS §12) on its fixtures: Gemini CLI session recordings taken
 * from google-gemini/gemini-cli's evals and tests (test/fixtures/traces/gemini_cli/README.md);
 * the JSON Lines recording, `/chat save` checkpoints and malformed records inline.
 */
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Either } from "effect"
import { appConfig } from "../../src/Config.js"
import { geminiCliImporter } from "../../src/Traces/Formats/GeminiCli.js"
import { keepAsRead, normalizeTrace } from "../../src/Traces/Normalize.js"
import { brief, type Counts, countsOf, detectionBothWays, expectNoDuplicates, fixtureIn, fixtureNames, neverThrowsOnJson, readersOf } from "./support.js"

const FAMILY = "gemini_cli"
const fixture = fixtureIn(FAMILY)
const { readOne, failure } = readersOf(geminiCliImporter)

const COUNTS: ReadonlyArray<readonly [string, Counts]> = [
  ["memory-persistence.session.json", { messages: 6, toolCalls: 0, withArguments: 0, toolResults: 0, errors: 0, agents: 1, handoffs: 0, thoughts: 0, skipped: 0 }],
  ["tool-output-masking.session.json", { messages: 2, toolCalls: 1, withArguments: 1, toolResults: 1, errors: 0, agents: 1, handoffs: 0, thoughts: 0, skipped: 0 }],
  ["acp-resume.session.json", { messages: 3, toolCalls: 2, withArguments: 0, toolResults: 1, errors: 1, agents: 1, handoffs: 0, thoughts: 1, skipped: 0 }],
  ["message-types.session.json", { messages: 4, toolCalls: 0, withArguments: 0, toolResults: 0, errors: 1, agents: 1, handoffs: 0, thoughts: 1, skipped: 0 }],
  ["gemini-cli-0.61-session.jsonl", { messages: 3, toolCalls: 1, withArguments: 1, toolResults: 1, errors: 0, agents: 1, handoffs: 0, thoughts: 0, skipped: 1 }]
]

describe("gemini_cli importer: session recordings", () => {
  it("reads each fixture with the expected counts and no duplicate events", () => {
    expect(COUNTS.map(([name]) => name).sort()).toEqual(fixtureNames(FAMILY, [".json", ".jsonl"]).sort())
    for (const [name, counts] of COUNTS) {
      const trace = readOne(fixture(name))
      expect([name, countsOf(trace)]).toEqual([name, counts])
      expectNoDuplicates(trace)
    }
  })

  it("reads a conversation in order with timestamps and the session id", () => {
    const trace = readOne(fixture("memory-persistence.session.json"))
    expect(trace.id).toBe("test-session-5f0c2a7e")
    expect(trace.task).toBe("By the way, I always prefer Vitest over Jest for testing in all my projects.")
    expect(trace.outcome).toBe("Great! Anything else you would like to work on?")
    expect(trace.success).toBeNull()
    expect(trace.agents).toEqual(["gemini"])
    expect(trace.events.map((event) => [event.actor, event.kind, event.source, event.timestamp])).toEqual([
      ["user", "message", "messages[0]", "2026-01-01T00:00:00Z"],
      ["gemini", "message", "messages[1]", "2026-01-01T00:00:05Z"],
      ["user", "message", "messages[2]", "2026-01-01T00:01:00Z"],
      ["gemini", "message", "messages[3]", "2026-01-01T00:01:10Z"],
      ["user", "message", "messages[4]", "2026-01-01T00:02:00Z"],
      ["gemini", "message", "messages[5]", "2026-01-01T00:02:05Z"]
    ])
  })

  it("reads a tool call with its arguments and its functionResponse result", () => {
    const trace = readOne(fixture("tool-output-masking.session.json"))
    expect(trace.id).toBe("0d6c5a52-8f3e-4b7a-9c21-6e4f3b2a1d90")
    expect(trace.events.map(brief)).toEqual([
      ["user", "user", "message", "", "Get secret.", "messages[0]"],
      ["gemini", "agent", "message", "", "I found a masked output.", "messages[1]"],
      ["gemini", "agent", "tool_call", "run_shell_command", "{\"command\":\"get_secret\"}", "messages[1].toolCalls[0]"],
      [
        "run_shell_command",
        "tool",
        "tool_result",
        "run_shell_command",
        expect.stringMatching(/^<tool_output_masked>\nOutput: \[PREVIEW\]\nOutput too large\. Full output available at: \/home\/user\/\.gemini\/tmp\//),
        "messages[1].toolCalls[0].result"
      ]
    ])
    expect(trace.task).toBe("Get secret.")
    expect(trace.outcome).toBe("I found a masked output.")
    // tokens and model are not trace content
    expect(JSON.stringify(trace)).not.toContain("gemini-3-flash-preview")
  })

  it("reads thoughts, resultDisplay results and a failed tool call as an error", () => {
    const trace = readOne(fixture("acp-resume.session.json"))
    expect(trace.events.map(brief)).toEqual([
      ["user", "user", "message", "", "Hello", "messages[0]"],
      ["gemini", "agent", "thought", "", "Thinking\nabout greeting", "messages[1].thoughts[0]"],
      ["gemini", "agent", "message", "", "Hi there", "messages[1]"],
      ["gemini", "agent", "tool_call", "test_tool", "{}", "messages[1].toolCalls[0]"],
      ["test_tool", "tool", "tool_result", "test_tool", "Tool output", "messages[1].toolCalls[0].result"],
      ["gemini", "agent", "message", "", "Trying a write", "messages[2]"],
      ["gemini", "agent", "tool_call", "write_file", "{}", "messages[2].toolCalls[0]"],
      ["write_file", "tool", "error", "write_file", "Permission denied", "messages[2].toolCalls[0].result"]
    ])
    expect(trace.id).toBe("existing-session-id")
    expect(trace.task).toBe("Hello")
    expect(trace.outcome).toBe("Permission denied")
  })

  it("reads info and warning records as system messages and error records as errors", () => {
    const trace = readOne(fixture("message-types.session.json"))
    expect(trace.events.map(brief)).toEqual([
      ["user", "user", "message", "", "Hello user", "messages[0]"],
      ["system", "system", "message", "", "System info", "messages[1]"],
      ["system", "system", "error", "", "System error", "messages[2]"],
      ["system", "system", "message", "", "System warning", "messages[3]"],
      ["gemini", "agent", "thought", "", "Thinking\nabout things", "messages[4].thoughts[0]"],
      ["gemini", "agent", "message", "", "Hello gemini", "messages[4]"]
    ])
    expect(trace.outcome).toBe("Hello gemini")
    expect(trace.success).toBeNull()
  })
})

describe("gemini_cli importer: other shapes", () => {
  it("replays the JSON Lines recording: updates by id, $rewindTo, $set.messages", () => {
    const trace = readOne([
      { sessionId: "s-1", projectHash: "p", startTime: "2026-05-17T11:07:00.000Z", kind: "main" },
      { id: "u1", timestamp: "2026-05-17T11:07:01.000Z", type: "user", content: [{ text: "List the files" }] },
      { id: "g1", timestamp: "2026-05-17T11:07:02.000Z", type: "gemini", content: "", model: "gemini-3-flash-preview" },
      { id: "g1", timestamp: "2026-05-17T11:07:02.000Z", type: "gemini", content: "", toolCalls: [{ id: "c1", name: "ls", args: { path: "." }, status: "success", result: [{ functionResponse: { id: "c1", name: "ls", response: { output: "a.txt" } } }] }] },
      { id: "u2", timestamp: "2026-05-17T11:07:03.000Z", type: "user", content: "wrong turn" },
      { $rewindTo: "u2" },
      { $set: { memoryScratchpad: { version: 1 } } },
      { id: "g2", timestamp: "2026-05-17T11:07:04.000Z", type: "gemini", content: [{ text: "There is " }, { text: "a.txt." }] },
      "not a record"
    ])
    expect(trace.id).toBe("s-1")
    expect(trace.events.map(brief)).toEqual([
      ["user", "user", "message", "", "List the files", "[1]"],
      ["gemini", "agent", "tool_call", "ls", "{\"path\":\".\"}", "[3].toolCalls[0]"],
      ["ls", "tool", "tool_result", "ls", "a.txt", "[3].toolCalls[0].result"],
      ["gemini", "agent", "message", "", "There is a.txt.", "[7]"]
    ])
    expect(trace.skipped).toBe(1)
  })

  it("restarts from a $set.messages checkpoint, and an unknown $rewindTo drops everything", () => {
    const meta = { sessionId: "s-2", projectHash: "p" }
    const checkpointed = readOne([
      meta,
      { id: "a", type: "user", content: "old question" },
      { $set: { messages: [{ id: "b", type: "user", content: "kept question" }, { type: "gemini", content: "no id" }] } },
      { id: "c", type: "gemini", content: "answer" }
    ])
    expect(checkpointed.events.map((event) => [event.content, event.source])).toEqual([
      ["kept question", "[2].$set.messages[0]"],
      ["answer", "[3]"]
    ])
    expect(checkpointed.skipped).toBe(1)
    const rewound = readOne([meta, { id: "a", type: "user", content: "gone" }, { $rewindTo: "zzz" }, { id: "d", type: "user", content: "after" }])
    expect(rewound.events.map((event) => event.content)).toEqual(["after"])
  })

  it("reads a /chat save checkpoint (history of Content) and the legacy bare list", () => {
    const history = [
      { role: "user", parts: [{ text: "Read README.md" }] },
      { role: "model", parts: [{ thought: true, text: "I should read the file." }, { functionCall: { name: "read_file", args: { path: "README.md" } } }] },
      { role: "user", parts: [{ functionResponse: { name: "read_file", response: { error: "ENOENT" } } }] },
      { role: "model", parts: [{ text: "There is no README.md." }, { inlineData: { mimeType: "image/png", data: "iVBOR" } }] }
    ]
    const expected = [
      ["user", "user", "message", "", "Read README.md", "history[0].parts[0]"],
      ["gemini", "agent", "thought", "", "I should read the file.", "history[1].parts[0]"],
      ["gemini", "agent", "tool_call", "read_file", "{\"path\":\"README.md\"}", "history[1].parts[1]"],
      ["read_file", "tool", "error", "read_file", "ENOENT", "history[2].parts[0]"],
      ["gemini", "agent", "message", "", "There is no README.md.", "history[3].parts[0]"]
    ]
    const saved = readOne({ history, authType: "oauth-personal" })
    expect(saved.events.map(brief)).toEqual(expected)
    expect(saved.skipped).toBe(1)
    expect(saved.id).toBeNull()
    const legacy = readOne(history)
    expect(legacy.events.map((event) => event.source)).toEqual(expected.map((row) => String(row[5]).replace("history", "")))
  })

  it("reads a restore checkpoint's client history and its pending tool call", () => {
    const trace = readOne({
      clientHistory: [{ role: "user", parts: [{ text: "Fix the typo" }] }, { role: "model", parts: [{ text: "Editing." }] }],
      toolCall: { name: "replace", args: { file_path: "a.md", old_string: "teh", new_string: "the" } },
      commitHash: "abc123",
      messageId: "m-7"
    })
    expect(trace.events.map(brief).at(-1)).toEqual(["gemini", "agent", "tool_call", "replace", "{\"file_path\":\"a.md\",\"old_string\":\"teh\",\"new_string\":\"the\"}", "toolCall"])
  })

  it("has an empty task when no user spoke, and success false when the session ends on an error", () => {
    const trace = readOne({ sessionId: "s", projectHash: "p", messages: [{ id: "1", type: "gemini", content: "hi" }, { id: "2", type: "error", content: "Quota exceeded" }] })
    expect(trace.task).toBe("")
    expect(trace.outcome).toBe("Quota exceeded")
    expect(trace.success).toBe(false)
  })

  it("skips and counts malformed and unknown records, and never throws", () => {
    const trace = readOne({
      sessionId: "s",
      projectHash: "p",
      messages: [
        null,
        { id: "1", type: "user", content: "go" },
        { id: "2", type: "compression", content: "x" },
        { id: "3", type: "gemini", content: [{ fileData: { fileUri: "gs://x" } }], thoughts: [7, { subject: "" }], toolCalls: [{ args: {} }, "x"] }
      ]
    })
    expect(trace.events.map(brief)).toEqual([["user", "user", "message", "", "go", "messages[1]"]])
    expect(trace.skipped).toBe(7)
    expect(failure({ sessionId: "s", projectHash: "p", messages: [{ id: "1", type: "info", content: "" }] })).toMatch(/^gemini_cli: no readable/)
    expect(failure({ hello: "world" })).toMatch(/^gemini_cli: expected/)
    neverThrowsOnJson(geminiCliImporter, { nonEmptyTraces: true })
  })
})

describe("gemini_cli importer: detect", () => {
  detectionBothWays(geminiCliImporter, [
    {},
    [],
    { messages: [] },
    { messages: [{ role: "user", content: "hi" }] },
    { messages: [{ type: "user", content: "hi", role: "user" }] },
    { messages: [{ source: "user", type: "TextMessage", content: "hi" }] },
    { agents: ["a"], messages: [{ from: "a", content: "x" }] },
    [{ role: "user", parts: [{ type: "text", content: "OTel parts have a type" }] }, { role: "assistant", parts: [{ type: "text", content: "x" }] }],
    [{ role: "user", parts: [{ text: "only user turns" }] }]
  ])

  it("is read as gemini_cli under format auto, not emptied by the native fallback", () => {
    const limits = Effect.runSync(appConfig.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map())))).limits
    const result = normalizeTrace(fixture("memory-persistence.session.json"), "auto", limits, keepAsRead)
    expect(Either.isRight(result) ? [result.right.format, result.right.traces[0]?.events.length] : result.left.message).toEqual([FAMILY, 6])
  })
})

describe("gemini_cli importer: a real session of Gemini CLI 0.61.0 (scripts/record-trace-fixtures/gemini-cli.mjs)", () => {
  it("the CLI's injected <session_context> is the system's, the task the user's prompt; the tool result read once, not again from the next user turn", () => {
    const trace = readOne(fixture("gemini-cli-0.61-session.jsonl"))
    expect(trace.task).toBe("List the files in this directory.")
    expect(trace.outcome).toBe("The directory holds notes.txt and report.md.")
    expect(trace.events.map((event) => [event.actor, event.role, event.kind, event.tool ?? "", event.source])).toEqual([
      ["system", "system", "message", "", "[1].$set.messages[0]"],
      ["user", "user", "message", "", "[2]"],
      ["gemini", "agent", "tool_call", "list_directory", "[6].toolCalls[0]"],
      ["list_directory", "tool", "tool_result", "list_directory", "[6].toolCalls[0].result"],
      ["gemini", "agent", "message", "", "[9]"]
    ])
    expect(trace.events[0]?.content.startsWith("<session_context>")).toBe(true)
    expect(trace.events[3]?.content).toContain("notes.txt")
    // The next user turn's functionResponse repeats that result: skipped and counted.
    expect(trace.skipped).toBe(1)
  })
})
