/**
 * The `codex` importer (DECISIONS §12) on OpenAI Codex CLI files: the `codex exec --json` sample
 * of openai/codex's docs/exec.md, and rollouts from the public daaain/claude-code-log repository's
 * Codex test data (see test/fixtures/traces/codex/README.md): exact counts per fixture, exact
 * events, the task, outcome and trace id, failures (failed commands, turn.failed, error events),
 * event messages that repeat response items left out, and detection against every other format.
 */
import { describe, expect, it } from "@effect/vitest"
import { codexImporter } from "../../src/Traces/Formats/Codex.js"
import { brief, type Counts, countsOf, detectionBothWays, expectNoDuplicates, fixtureIn, neverThrowsOnJson, readersOf } from "./support.js"

const fixture = fixtureIn("codex")
const { readOne, failure } = readersOf(codexImporter)

const LS_OUTPUT =
  "2025-09-11\nAGENTS.md\nCHANGELOG.md\ncliff.toml\ncodex-cli\ncodex-rs\ndocs\nexamples\nflake.lock\nflake.nix\nLICENSE\nnode_modules\nNOTICE\npackage.json\npnpm-lock.yaml\npnpm-workspace.yaml\nPNPM.md\nREADME.md\nscripts\nsdk\ntmp\n"

describe("codex importer: fixtures", () => {
  const table: ReadonlyArray<readonly [string, Counts]> = [
    ["exec-json-sample.jsonl", { messages: 1, toolCalls: 1, withArguments: 1, toolResults: 1, errors: 0, agents: 1, handoffs: 0, thoughts: 2, skipped: 3 }],
    ["rollout-tools.jsonl", { messages: 2, toolCalls: 3, withArguments: 3, toolResults: 3, errors: 0, agents: 1, handoffs: 0, thoughts: 1, skipped: 5 }],
    ["rollout-spawn-agent.jsonl", { messages: 1, toolCalls: 1, withArguments: 1, toolResults: 1, errors: 0, agents: 2, handoffs: 1, thoughts: 0, skipped: 2 }],
    ["codex-0.169-exec-json.jsonl", { messages: 1, toolCalls: 1, withArguments: 1, toolResults: 1, errors: 1, agents: 1, handoffs: 0, thoughts: 0, skipped: 3 }],
    ["codex-0.169-rollout-exec-command.jsonl", { messages: 4, toolCalls: 1, withArguments: 1, toolResults: 1, errors: 0, agents: 1, handoffs: 0, thoughts: 0, skipped: 13 }]
  ]
  it.each(table)("%s: exact counts and no duplicate events", (name, counts) => {
    const trace = readOne(fixture(name))
    expect(countsOf(trace)).toEqual(counts)
    expectNoDuplicates(trace)
  })

  it("reads the documented codex exec --json sample: the thread id, no task (the prompt is not in the stream), the answer", () => {
    const trace = readOne(fixture("exec-json-sample.jsonl"))
    expect(trace.id).toBe("0199a213-81c0-7800-8aa1-bbab2a035a53")
    expect(trace.task).toBe("")
    expect(trace.outcome).toBe("Yep — there’s a `README.md` in the repository root.")
    expect(trace.success).toBeNull()
    expect(trace.agents).toEqual(["codex"])
    expect(trace.events.map(brief)).toEqual([
      ["codex", "agent", "thought", "", "**Searching for README files**", "lines[2]"],
      ["codex", "agent", "tool_call", "shell", "bash -lc ls", "lines[3]"],
      ["shell", "tool", "tool_result", "shell", LS_OUTPUT, "lines[4]"],
      ["codex", "agent", "thought", "", "**Checking repository root for README**", "lines[5]"],
      ["codex", "agent", "message", "", "Yep — there’s a `README.md` in the repository root.", "lines[6]"]
    ])
  })

  it("reads a rollout's response items, not the event messages that repeat them", () => {
    const trace = readOne(fixture("rollout-tools.jsonl"))
    expect(trace.id).toBe("11111111-1111-4111-8111-111111111111")
    expect(trace.task).toBe("List the synthetic files.")
    expect(trace.outcome).toBe("The synthetic files are alpha.txt and beta.txt.")
    expect(trace.events.map(brief)).toEqual([
      ["user", "user", "message", "", "List the synthetic files.", "lines[3]"],
      ["codex", "agent", "thought", "", "I will inspect the synthetic directory.", "lines[4]"],
      ["codex", "agent", "tool_call", "exec_command", "{\"cmd\":\"find . -maxdepth 1 -type f\"}", "lines[5]"],
      ["exec_command", "tool", "tool_result", "exec_command", "./alpha.txt\n./beta.txt", "lines[6]"],
      ["codex", "agent", "tool_call", "apply_patch", "*** Begin Patch\n*** Add File: gamma.txt\n+synthetic\n*** End Patch", "lines[7]"],
      ["apply_patch", "tool", "tool_result", "apply_patch", "Done!", "lines[8]"],
      ["codex", "agent", "tool_call", "mcp__synthetic__lookup", "{\"query\":\"fixture\"}", "lines[9]"],
      ["mcp__synthetic__lookup", "tool", "tool_result", "mcp__synthetic__lookup", "{\"status\":\"ok\"}", "lines[10]"],
      ["codex", "agent", "message", "", "The synthetic files are alpha.txt and beta.txt.", "lines[12]"]
    ])
    expect(trace.events[0]?.timestamp).toBe("2026-01-02T03:04:07.001Z")
    // the encrypted reasoning is never read
    expect(JSON.stringify(trace)).not.toContain("SYNTHETIC_ENCRYPTED_CONTENT")
  })

  it("reads a spawn_agent call as a handoff to the sub-agent, and the user's event message when no item repeats it", () => {
    const trace = readOne(fixture("rollout-spawn-agent.jsonl"))
    expect(trace.id).toBe("22222222-2222-4222-8222-222222222222")
    expect(trace.task).toBe("Spawn a synthetic researcher.")
    // no agent message and no failure: no outcome
    expect(trace.outcome).toBe("")
    expect(trace.agents).toEqual(["codex", "synthetic_researcher"])
    expect(trace.events.map((event) => [...brief(event), event.to ?? ""])).toEqual([
      ["user", "user", "message", "", "Spawn a synthetic researcher.", "lines[1]", ""],
      ["codex", "agent", "tool_call", "spawn_agent", "{\"task_name\":\"synthetic_researcher\",\"message\":\"Inspect fixtures.\"}", "lines[2]", ""],
      ["codex", "agent", "handoff", "", "Inspect fixtures.", "lines[2]", "synthetic_researcher"],
      ["spawn_agent", "tool", "tool_result", "spawn_agent", "agent 33333333-3333-4333-8333-333333333333 spawned", "lines[4]", ""]
    ])
  })
})

describe("codex importer: exec streams", () => {
  it("reads failed commands, file changes, MCP calls, web searches, to-do lists and turn.failed", () => {
    const trace = readOne([
      { type: "thread.started", thread_id: "t-9" },
      { type: "turn.started" },
      { type: "item.started", item: { id: "i0", type: "todo_list", items: [{ text: "run tests", completed: false }, { text: "fix", completed: false }] } },
      { type: "item.started", item: { id: "i1", type: "command_execution", command: "npm test", aggregated_output: "", status: "in_progress" } },
      { type: "item.updated", item: { id: "i1", type: "command_execution", command: "npm test", aggregated_output: "1 failing", status: "in_progress" } },
      { type: "item.completed", item: { id: "i1", type: "command_execution", command: "npm test", aggregated_output: "1 failing", exit_code: 1, status: "failed" } },
      { type: "item.updated", item: { id: "i0", type: "todo_list", items: [{ text: "run tests", completed: true }, { text: "fix", completed: false }] } },
      { type: "item.completed", item: { id: "i2", type: "file_change", changes: [{ path: "src/a.ts", kind: "update" }], status: "completed" } },
      { type: "item.started", item: { id: "i3", type: "mcp_tool_call", server: "docs", tool: "search", arguments: { q: "vitest" }, status: "in_progress" } },
      { type: "item.completed", item: { id: "i3", type: "mcp_tool_call", server: "docs", tool: "search", arguments: { q: "vitest" }, result: { content: [{ type: "text", text: "vitest docs" }], structured_content: null }, status: "completed" } },
      { type: "item.completed", item: { id: "i4", type: "mcp_tool_call", server: "docs", tool: "fetch", arguments: { url: "x" }, error: { message: "timeout" }, status: "failed" } },
      { type: "item.completed", item: { id: "i5", type: "web_search", query: "vitest retry" } },
      { type: "item.completed", item: { id: "i6", type: "error", message: "command timed out once; retried" } },
      { type: "item.completed", item: { id: "i7", type: "agent_message", text: "The test still fails." } },
      { type: "turn.failed", error: { message: "stream disconnected before completion" } }
    ])
    expect(trace.events.map(brief)).toEqual([
      ["codex", "agent", "thought", "", "[ ] run tests\n[ ] fix", "lines[2]"],
      ["codex", "agent", "tool_call", "shell", "npm test", "lines[3]"],
      ["shell", "tool", "error", "shell", "1 failing", "lines[5]"],
      ["codex", "agent", "thought", "", "[x] run tests\n[ ] fix", "lines[6]"],
      ["codex", "agent", "tool_call", "apply_patch", "[{\"path\":\"src/a.ts\",\"kind\":\"update\"}]", "lines[7]"],
      ["apply_patch", "tool", "tool_result", "apply_patch", "update src/a.ts", "lines[7]"],
      ["codex", "agent", "tool_call", "search", "{\"q\":\"vitest\"}", "lines[8]"],
      ["search", "tool", "tool_result", "search", "vitest docs", "lines[9]"],
      ["codex", "agent", "tool_call", "fetch", "{\"url\":\"x\"}", "lines[10]"],
      ["fetch", "tool", "error", "fetch", "timeout", "lines[10]"],
      ["codex", "agent", "tool_call", "web_search", "vitest retry", "lines[11]"],
      ["codex", "agent", "error", "", "command timed out once; retried", "lines[12]"],
      ["codex", "agent", "message", "", "The test still fails.", "lines[13]"],
      ["codex", "agent", "error", "", "stream disconnected before completion", "lines[14]"]
    ])
    expect(trace.id).toBe("t-9")
    expect(trace.success).toBe(false)
    expect(trace.outcome).toBe("stream disconnected before completion")
    // thread.started, turn.started, the command's item.updated
    expect(trace.skipped).toBe(3)
  })
})

describe("codex importer: rollouts", () => {
  const at = (second: number) => `2025-10-01T10:00:${String(second).padStart(2, "0")}.000Z`
  const item = (second: number, payload: Record<string, unknown>) => ({ timestamp: at(second), type: "response_item", payload })

  it("reads injected context as the system's, failed commands and error events as errors, local shell calls, in time order", () => {
    const trace = readOne([
      { timestamp: at(0), type: "session_meta", payload: { id: "r-1", cwd: "/repo", originator: "codex_cli_rs", cli_version: "0.46.0" } },
      item(1, { type: "message", role: "developer", content: [{ type: "input_text", text: "<permissions instructions>sandboxed</permissions instructions>" }] }),
      item(2, { type: "message", role: "user", content: [{ type: "input_text", text: "<environment_context>\n  <cwd>/repo</cwd>\n</environment_context>" }] }),
      item(3, { type: "message", role: "user", content: [{ type: "input_text", text: "Make the tests pass." }, { type: "input_image", image_url: "data:image/png;base64,AAAA" }] }),
      { timestamp: at(4), type: "turn_context", payload: { model: "gpt-5-codex" } },
      item(6, { type: "function_call", name: "shell", arguments: "{\"command\":[\"npm\",\"test\"]}", call_id: "c1" }),
      // written out of order: read by its time
      item(5, { type: "reasoning", summary: [], content: [{ type: "reasoning_text", text: "Run the tests." }], encrypted_content: "gAAA" }),
      item(7, { type: "function_call_output", call_id: "c1", output: "{\"output\":\"1 failing\",\"metadata\":{\"exit_code\":1,\"duration_seconds\":1.2}}" }),
      item(8, { type: "local_shell_call", call_id: "c2", status: "completed", action: { type: "exec", command: ["ls"] } }),
      item(9, { type: "function_call_output", call_id: "c2", output: "Exit code: 0\nWall time: 0.1 seconds\nOutput:\nsrc" }),
      { timestamp: at(10), type: "event_msg", payload: { type: "exec_command_end", call_id: "c2", exit_code: 0 } },
      { timestamp: at(11), type: "event_msg", payload: { type: "error", message: "unexpected status 500" } },
      "{broken json line",
      { timestamp: at(12), type: "compacted", payload: { message: "summary" } }
    ])
    expect(trace.events.map(brief)).toEqual([
      ["system", "system", "message", "", "<permissions instructions>sandboxed</permissions instructions>", "lines[1]"],
      ["system", "system", "message", "", "<environment_context>\n  <cwd>/repo</cwd>\n</environment_context>", "lines[2]"],
      ["user", "user", "message", "", "Make the tests pass.", "lines[3]"],
      ["codex", "agent", "thought", "", "Run the tests.", "lines[6]"],
      ["codex", "agent", "tool_call", "shell", "{\"command\":[\"npm\",\"test\"]}", "lines[5]"],
      ["shell", "tool", "error", "shell", "{\"output\":\"1 failing\",\"metadata\":{\"exit_code\":1,\"duration_seconds\":1.2}}", "lines[7]"],
      ["codex", "agent", "tool_call", "local_shell", "{\"type\":\"exec\",\"command\":[\"ls\"]}", "lines[8]"],
      ["local_shell", "tool", "tool_result", "local_shell", "Exit code: 0\nWall time: 0.1 seconds\nOutput:\nsrc", "lines[9]"],
      ["codex", "agent", "error", "", "unexpected status 500", "lines[11]"]
    ])
    expect(trace.id).toBe("r-1")
    expect(trace.task).toBe("Make the tests pass.")
    expect(trace.success).toBe(false)
    expect(trace.outcome).toBe("unexpected status 500")
    // the image part, session_meta, turn_context, exec_command_end, the broken line, compacted
    expect(trace.skipped).toBe(6)
  })

  it("answers a Left for bodies with nothing to read, and never throws", () => {
    expect(failure([])).toMatch(/^codex: expected/)
    expect(failure({ type: "thread.started", thread_id: "x" })).toMatch(/^codex: expected/)
    expect(failure([{ type: "thread.started", thread_id: "x" }, { type: "turn.started" }])).toMatch(/^codex: the exec stream holds no items or errors \(2 records skipped\)/)
    expect(failure([{ timestamp: at(0), type: "session_meta", payload: { id: "x" } }])).toMatch(/^codex: the rollout holds no messages/)
    neverThrowsOnJson(codexImporter, { nonEmptyTraces: true })
  })
})

describe("codex importer: detect", () => {
  detectionBothWays(codexImporter, [
    {},
    [],
    null,
    [{ type: "turn.started" }, { type: "turn.completed", usage: {} }],
    [{ type: "message", role: "user", content: [{ type: "input_text", text: "a Responses item" }] }],
    [{ type: "response_item", payload: "not an object" }],
    [{ type: "item.completed", item: "not an object" }]
  ])
})

describe("codex importer: a real run of Codex CLI 0.169.0 (scripts/record-trace-fixtures/codex.mjs)", () => {
  it("the exec stream and the rollout of the same run read as the same thread: the task only in the rollout, one exec_command call and its output, the answer", () => {
    const stream = readOne(fixture("codex-0.169-exec-json.jsonl"))
    const rollout = readOne(fixture("codex-0.169-rollout-exec-command.jsonl"))
    expect(stream.id).toBe(rollout.id)
    expect(stream.task).toBe("")
    expect(rollout.task).toBe("List the files in this directory.")
    for (const trace of [stream, rollout]) expect(trace.outcome).toBe("The directory holds notes.txt and report.md.")
    expect(stream.events.map((event) => [event.actor, event.kind, event.tool ?? "", event.source])).toEqual([
      ["codex", "error", "", "lines[1]"],
      ["codex", "tool_call", "shell", "lines[3]"],
      ["shell", "tool_result", "shell", "lines[4]"],
      ["codex", "message", "", "lines[5]"]
    ])
    expect(stream.events[2]?.content).toBe("notes.txt\nreport.md\n")
    expect(rollout.events.map((event) => [event.actor, event.kind, event.tool ?? "", event.source])).toEqual([
      ["system", "message", "", "lines[2]"],
      ["system", "message", "", "lines[3]"],
      ["user", "message", "", "lines[7]"],
      ["codex", "tool_call", "exec_command", "lines[9]"],
      ["exec_command", "tool_result", "exec_command", "lines[12]"],
      ["codex", "message", "", "lines[15]"]
    ])
    expect(rollout.events[3]?.content).toBe("{\"cmd\":\"ls\"}")
    expect(rollout.events[4]?.content).toContain("notes.txt")
  })
})
