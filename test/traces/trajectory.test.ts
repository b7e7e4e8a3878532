/**
 * The `trajectory` importer (DECISIONS §12) on hand-written SWE-agent, mini-SWE-agent and OpenHands
 * trajectories (see test/fixtures/traces/trajectory/README.md): steps as thought / tool call / tool
 * result, exit statuses and errors as success, OpenHands events by id, JSON Lines output records as
 * one trace each, evaluation labels left out, and detection against the neighbouring formats.
 */
import { Predicate } from "effect"
import { describe, expect, it } from "@effect/vitest"
import { autoGenImporter } from "../../src/Traces/Formats/AutoGen.js"
import { langSmithImporter } from "../../src/Traces/Formats/LangSmith.js"
import { trajectoryImporter } from "../../src/Traces/Formats/Trajectory.js"
import { brief, fixtureIn, loadFixtures, neverThrowsOnJson, readersOf, type Rec } from "./support.js"

// `.jsonl` fixtures are read as the array of their records, as JSON Lines bodies reach the importer.
const fixture = fixtureIn("trajectory")
const record = (value: unknown): Rec => (Predicate.isRecord(value) ? value : expect.fail("expected an object"))

const { readAll, readOne, failure } = readersOf(trajectoryImporter)

describe("trajectory importer: SWE-agent .traj", () => {
  const body = record(fixture("swe-agent.traj"))

  it("reads each step as thought, tool call and tool result, and only the opening messages of `history`", () => {
    const trace = readOne(body)
    expect(trace.events).toHaveLength(2 + 5 * 3)
    expect(trace.events.slice(0, 5).map(brief)).toEqual([
      ["system", "system", "message", "", expect.stringMatching(/^SETTING: You are an autonomous programmer/), "history[0]"],
      ["user", "user", "message", "", expect.stringMatching(/^We're currently solving the following issue/), "history[1]"],
      ["swe-agent", "agent", "thought", "", "First I need to find where `convert` is defined.", "trajectory[0]"],
      ["swe-agent", "agent", "tool_call", "find_file", "find_file units.py", "trajectory[0]"],
      [
        "find_file",
        "tool",
        "tool_result",
        "find_file",
        "Found 1 matches for \"units.py\" in /acme-units:\n/acme-units/src/acme_units/units.py\n(Open file: n/a)\n(Current directory: /acme-units)\nbash-$",
        "trajectory[0]"
      ]
    ])
    expect(trace.events.filter((event) => event.kind === "tool_call").map((event) => event.tool)).toEqual(["find_file", "open", "edit", "python", "submit"])
    expect(trace.events.filter((event) => event.source.startsWith("history")).map((event) => event.source)).toEqual(["history[0]", "history[1]"])
  })

  it("takes the task from the first user message and the outcome from the submission; submitted is not success", () => {
    const trace = readOne(body)
    const info = record(body["info"])
    expect(trace.task).toMatch(/^We're currently solving the following issue within our repository\. Here's the issue text:\nISSUE:\nconvert\(\) raises KeyError/)
    expect(trace.outcome).toBe(info["submission"])
    expect(trace.success).toBeNull()
    expect(trace.agents).toEqual(["swe-agent"])
    expect(trace.skipped).toBe(0)
  })

  it("says failure when the exit status is an error, also after an automatic submission", () => {
    const info = record(body["info"])
    for (const status of ["exit_cost", "exit_error", "exit_format", "submitted (exit_cost)"]) {
      const trace = readOne({ ...body, info: { ...info, exit_status: status, submission: status.startsWith("submitted") ? info["submission"] : null } })
      expect(trace.success, status).toBe(false)
      expect(trace.events.at(-1), status).toEqual({ actor: "swe-agent", role: "agent", kind: "error", content: status, source: "info.exit_status" })
      expect(trace.outcome, status).toBe(status.startsWith("submitted") ? info["submission"] : status)
    }
  })

  it("never copies dataset labels added to the record", () => {
    const trace = readOne({ ...body, mistake_step: 3, ground_truth: "GROUND-TRUTH-u7q", resolved: true, report: { verdict: "REPORT-LABEL-p2x" } })
    const json = JSON.stringify(trace)
    expect(json).not.toContain("GROUND-TRUTH-u7q")
    expect(json).not.toContain("REPORT-LABEL-p2x")
    expect(trace.skipped).toBe(4)
  })

  it("skips and counts malformed steps, and answers Left when nothing is left", () => {
    const trace = readOne({ ...body, trajectory: ["bad", null, { action: "ls", observation: "a.txt", thought: "" }, {}] })
    expect(trace.events.slice(2).map((event) => [event.kind, event.content])).toEqual([
      ["tool_call", "ls"],
      ["tool_result", "a.txt"]
    ])
    expect(trace.skipped).toBe(3)
    expect(failure({ trajectory: [], history: [], info: { exit_status: "submitted" } })).toMatch(/no steps/)
  })
})

describe("trajectory importer: mini-SWE-agent", () => {
  it("splits assistant turns into THOUGHT and the bash command, and later user messages into observations", () => {
    const trace = readOne(fixture("mini-swe-agent.traj.json"))
    expect(trace.events.map(brief)).toEqual([
      ["system", "system", "message", "", expect.stringMatching(/^You are a helpful assistant/), "messages[0]"],
      ["user", "user", "message", "", expect.stringMatching(/^Please solve this issue: the `slugify` helper/), "messages[1]"],
      ["mini-swe-agent", "agent", "thought", "", "THOUGHT: I should find where slugify is implemented.", "messages[2]"],
      ["mini-swe-agent", "agent", "tool_call", "bash", "grep -rn \"def slugify\" .", "messages[2]"],
      ["bash", "tool", "tool_result", "bash", "<returncode>0</returncode>\n<output>\n./textkit/slug.py:4:def slugify(text):\n</output>", "messages[3]"],
      ["mini-swe-agent", "agent", "thought", "", "THOUGHT: Let me read the function.", "messages[4]"],
      ["mini-swe-agent", "agent", "tool_call", "bash", "cat textkit/slug.py", "messages[4]"],
      ["bash", "tool", "tool_result", "bash", expect.stringMatching(/^<returncode>0<\/returncode>\n<output>\nimport re/), "messages[5]"],
      ["mini-swe-agent", "agent", "thought", "", expect.stringMatching(/^THOUGHT: The substitution leaves a dash/), "messages[6]"],
      [
        "mini-swe-agent",
        "agent",
        "tool_call",
        "bash",
        "sed -i 's/text.lower())/text.lower()).strip(\"-\")/' textkit/slug.py && python -c \"from textkit.slug import slugify; print(slugify('Hello World!'))\"",
        "messages[6]"
      ],
      ["bash", "tool", "tool_result", "bash", expect.stringMatching(/^<returncode>1<\/returncode>/), "messages[7]"],
      ["mini-swe-agent", "agent", "message", "", "I will run it from the package root instead.", "messages[8]"],
      ["bash", "tool", "tool_result", "bash", "Please always provide EXACTLY ONE action in triple backticks, found 0 actions.", "messages[9]"],
      ["mini-swe-agent", "agent", "error", "", "LimitsExceeded", "info.exit_status"]
    ])
    expect(trace.success).toBe(false)
    expect(trace.outcome).toBe("LimitsExceeded")
    expect(trace.task).toMatch(/^Please solve this issue/)
  })

  it("reads a submitted run as success unknown with the submission as outcome", () => {
    const trace = readOne({
      trajectory_format: "mini-swe-agent-1.1",
      info: { exit_status: "Submitted", submission: "diff --git a/x b/x" },
      messages: [
        { role: "user", content: "Fix x." },
        { role: "assistant", content: "Done.\n\n```mswea_bash_command\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n```" }
      ]
    })
    expect(trace.success).toBeNull()
    expect(trace.outcome).toBe("diff --git a/x b/x")
  })

  it("reads native tool calls and tool messages (v2 trajectories)", () => {
    const trace = readOne({
      info: { exit_status: "Submitted", submission: "" },
      messages: [
        { role: "user", content: "List the files." },
        { role: "assistant", content: "Listing.", tool_calls: [{ id: "c1", type: "function", function: { name: "bash", arguments: "{\"command\":\"ls\"}" } }] },
        { role: "tool", tool_call_id: "c1", content: "README.md" }
      ]
    })
    expect(trace.events.map((event) => [event.kind, event.tool ?? "", event.content])).toEqual([
      ["message", "", "List the files."],
      ["thought", "", "Listing."],
      ["tool_call", "bash", "{\"command\":\"ls\"}"],
      ["tool_result", "bash", "README.md"]
    ])
  })

  it("claims a bare message list only when it carries mini-SWE-agent's command blocks", () => {
    const list = [
      { role: "system", content: "You can run commands." },
      { role: "user", content: "Please solve this issue: x" },
      { role: "assistant", content: "Look first.\n\n```mswea_bash_command\nls\n```" },
      { role: "user", content: "<returncode>0</returncode>\n<output>\na.py\n</output>" }
    ]
    expect(trajectoryImporter.detect(list)).toBe(true)
    const trace = readOne(list)
    expect(trace.events.map((event) => [event.kind, event.content, event.source])).toEqual([
      ["message", "You can run commands.", "[0]"],
      ["message", "Please solve this issue: x", "[1]"],
      ["thought", "Look first.", "[2]"],
      ["tool_call", "ls", "[2]"],
      ["tool_result", "<returncode>0</returncode>\n<output>\na.py\n</output>", "[3]"]
    ])
    expect(trajectoryImporter.detect([{ role: "user", content: "x" }, { role: "assistant", content: "```bash\nls\n```" }])).toBe(false)
  })
})

describe("trajectory importer: OpenHands events", () => {
  it("reads messages, tool actions and observations by event id, errors from exit codes and ErrorObservations", () => {
    const trace = readOne(fixture("openhands-events.json"))
    expect(trace.events.map((event) => [event.actor, event.role, event.kind, event.tool ?? "", event.to ?? "", event.source])).toEqual([
      ["system", "system", "message", "", "", "event:0"],
      ["user", "user", "message", "", "", "event:1"],
      ["openhands", "agent", "thought", "", "", "event:4"],
      ["openhands", "agent", "tool_call", "run", "", "event:4"],
      ["run", "tool", "tool_result", "run", "", "event:5"],
      ["openhands", "agent", "thought", "", "", "event:6"],
      ["openhands", "agent", "tool_call", "edit", "", "event:6"],
      ["edit", "tool", "tool_result", "edit", "", "event:7"],
      ["openhands", "agent", "thought", "", "", "event:8"],
      ["openhands", "agent", "tool_call", "run", "", "event:8"],
      ["run", "tool", "error", "run", "", "event:9"],
      ["openhands", "agent", "thought", "", "", "event:10"],
      ["openhands", "agent", "tool_call", "edit", "", "event:12"],
      ["edit", "tool", "error", "edit", "", "event:13"],
      ["openhands", "agent", "handoff", "", "BrowsingAgent", "event:14"],
      ["delegate", "tool", "tool_result", "delegate", "", "event:15"],
      ["openhands", "agent", "thought", "", "", "event:16"],
      ["openhands", "agent", "tool_call", "run", "", "event:16"],
      ["run", "tool", "tool_result", "run", "", "event:17"],
      ["openhands", "agent", "message", "", "", "event:18"]
    ])
    const at = (source: string, kind: string) => trace.events.find((event) => event.source === source && event.kind === kind)
    expect(at("event:4", "tool_call")?.content).toBe("grep -n \"year\" reports/export.py")
    expect(at("event:4", "tool_call")?.timestamp).toBe("2025-03-11T10:02:03.402915")
    expect(at("event:5", "tool_result")?.content).toBe("12:        row.append(f\"{d.year}-{d.month}-{d.day}\")")
    expect(at("event:9", "error")?.content).toMatch(/^F\.\n___ test_row_dates ___/)
    expect(at("event:10", "thought")?.content).toBe("The old test pins the unpadded format, which is what the task asks to change, so the expected value in the test must be updated.")
    expect(at("event:14", "handoff")?.content).toBe("Confirm that Python's date.isoformat() always zero-pads the month and the day.")
    expect(JSON.parse(at("event:6", "tool_call")?.content ?? "{}")).toEqual({
      path: "/workspace/reports/export.py",
      command: "str_replace",
      old_str: "row.append(f\"{d.year}-{d.month}-{d.day}\")",
      new_str: "row.append(d.isoformat())",
      start: 1,
      end: -1
    })
    expect(trace.task).toBe("The CSV export in reports/export.py writes dates like 2025-3-7. Make it write zero-padded ISO dates (2025-03-07) and keep the tests passing.")
    expect(trace.outcome).toBe("The CSV export now writes zero-padded ISO dates (2025-03-07), and the export test expects that format.")
    expect(trace.success).toBeNull()
    // recall action and observation, the think acknowledgement, the final agent_state_changed
    expect(trace.skipped).toBe(4)
  })

  it("reads an agent state that changes to error as an error and a failure", () => {
    const trace = readOne([
      { id: 1, source: "user", action: "message", message: "Deploy it.", args: { content: "Deploy it." } },
      { id: 2, source: "environment", observation: "agent_state_changed", content: "", message: "", extras: { agent_state: "error", reason: "LLMContextWindowExceedError: context too long" } }
    ])
    expect(trace.events.map((event) => [event.kind, event.content, event.source])).toEqual([
      ["message", "Deploy it.", "event:1"],
      ["error", "LLMContextWindowExceedError: context too long", "event:2"]
    ])
    expect(trace.success).toBe(false)
  })

  it("reads class-named events, old flat events and [action, observation] pairs", () => {
    const trace = readOne([
      { content: "Create hello.txt.", action: "message" },
      [
        { command: "touch hello.txt", thought: "Create the file.", action: "run" },
        { content: "", command: "touch hello.txt", exit_code: 0, observation: "run" }
      ],
      { id: 9, source: "agent", action: "AgentFinishAction", args: { final_thought: "Created hello.txt." } }
    ])
    expect(trace.events.map((event) => [event.role, event.kind, event.tool ?? "", event.content, event.source])).toEqual([
      ["user", "message", "", "Create hello.txt.", "[0]"],
      ["agent", "thought", "", "Create the file.", "[1][0]"],
      ["agent", "tool_call", "run", "touch hello.txt", "[1][0]"],
      ["tool", "tool_result", "run", "", "[1][1]"],
      ["agent", "message", "", "Created hello.txt.", "event:9"]
    ])
  })
})

describe("trajectory importer: OpenHands output records (JSON Lines)", () => {
  const body = fixture("openhands-output.jsonl")

  it("reads one trace per record, with the instance id, the instruction as task and the record error as failure", () => {
    const traces = readAll(body)
    expect(traces.map((trace) => [trace.id, trace.success, trace.agents])).toEqual([
      ["acme__reports-212", null, ["CodeActAgent"]],
      ["acme__reports-219", false, ["CodeActAgent"]]
    ])
    const [first, second] = traces
    expect(first?.task).toBe("<uploaded_files>\n/workspace/acme__reports__1.4\n</uploaded_files>\nFix the following issue: totals row in the PDF report is missing when a section is empty.")
    expect(first?.outcome).toBe("The totals row is now added for empty sections too.")
    expect(second?.events.at(-1)).toEqual({
      actor: "CodeActAgent",
      role: "agent",
      kind: "error",
      content: "RuntimeError: Agent reached maximum iteration in headless mode. Current iteration: 30, max iteration: 30",
      source: "[1].error"
    })
    expect(second?.outcome).toBe("RuntimeError: Agent reached maximum iteration in headless mode. Current iteration: 30, max iteration: 30")
    expect(second?.events.filter((event) => event.kind === "error" && event.tool === "run")).toHaveLength(2)
  })

  it("never copies test results, reports or the gold patch, and counts them as skipped", () => {
    const traces = readAll(body)
    const json = JSON.stringify(traces)
    expect(json).not.toContain("test_totals_label_kq47x")
    expect(json).not.toContain("GOLD-PATCH")
    expect(json).not.toContain("resolved")
    expect(traces.map((trace) => trace.skipped)).toEqual([2, 2])
  })

  it("reads a single record, and takes Python's \"None\" error as no error", () => {
    const [first] = Array.isArray(body) ? body : []
    const trace = readOne({ ...record(first), error: "None" })
    expect(trace.success).toBeNull()
    expect(trace.events.at(-1)?.source).toBe("event:6")
  })

  it("answers Left for empty histories and lists", () => {
    expect(failure([{ instance_id: "x", history: [] }])).toMatch(/empty history/)
    expect(failure([])).toMatch(/empty list/)
    expect(failure({ nothing: 1 })).toMatch(/expected/)
  })
})

describe("trajectory importer: SWE-agent history-only demonstrations (real files)", () => {
  it("reads a demonstration `.traj` as SWE-agent: the system prompt, the issue as the task, every action and observation", () => {
    const body = fixture("swe-agent-demo-function-calling-simple.traj")
    const trace = readOne(body)
    expect(trace.events.map((event) => [event.actor, event.role, event.kind, event.tool ?? "", event.source])).toEqual([
      ["system", "system", "message", "", "history[0]"],
      ["user", "user", "message", "", "history[1]"],
      ["swe-agent", "agent", "thought", "", "history[2]"],
      ["swe-agent", "agent", "tool_call", "find_file", "history[2]"],
      ["find_file", "tool", "tool_result", "find_file", "history[3]"],
      ["swe-agent", "agent", "thought", "", "history[4]"],
      ["swe-agent", "agent", "tool_call", "open", "history[4]"],
      ["open", "tool", "tool_result", "open", "history[5]"],
      ["swe-agent", "agent", "thought", "", "history[6]"],
      ["swe-agent", "agent", "tool_call", "edit", "history[6]"],
      ["edit", "tool", "tool_result", "edit", "history[7]"],
      ["swe-agent", "agent", "thought", "", "history[8]"],
      ["swe-agent", "agent", "tool_call", "bash", "history[8]"],
      ["bash", "tool", "tool_result", "bash", "history[9]"],
      ["swe-agent", "agent", "thought", "", "history[10]"],
      ["swe-agent", "agent", "tool_call", "submit", "history[10]"],
      ["submit", "tool", "tool_result", "submit", "history[11]"]
    ])
    expect(trace.events[0]?.content).toMatch(/SETTING: You are an autonomous programmer/)
    expect(trace.task).toMatch(/^We're currently solving the following issue within our repository\. Here's the issue text:\nISSUE:\nSyntaxError: invalid syntax/)
    expect(trace.events.find((event) => event.tool === "edit" && event.kind === "tool_call")?.content).toBe("edit 'def division(a: float, b: float) -> float' 'def division(a: float, b: float) -> float:'")
    expect(trace.agents).toEqual(["swe-agent"])
    expect(trace.skipped).toBe(0)
  })

  it("reads the replay demonstration (converted from its YAML) with tool calls as arguments and its problem statement id", () => {
    const trace = readOne(fixture("swe-agent-demo-str-replace-anthropic.json"))
    expect(trace.id).toBe("1c2844")
    expect(trace.agents).toEqual(["swe-agent"])
    expect(trace.task).toMatch(/^I've uploaded a python code repository in the directory \. Consider the following PR description:/)
    const calls = trace.events.filter((event) => event.kind === "tool_call")
    expect(calls.map((event) => event.tool)).toEqual(["str_replace_editor", "str_replace_editor", "str_replace_editor", "submit"])
    expect(JSON.parse(calls[2]?.content ?? "{}")).toMatchObject({ command: "str_replace" })
    expect(trace.events.filter((event) => event.kind === "tool_result")).toHaveLength(4)
  })
})

describe("trajectory importer: OpenHands edits and ids", () => {
  const edit = {
    id: 9,
    timestamp: "2025-01-20T20:29:48.925379",
    source: "agent",
    message: "",
    action: "edit",
    tool_call_metadata: {
      function_name: "str_replace_editor",
      tool_call_id: "toolu_01",
      model_response: {
        choices: [{
          message: {
            content: "Let's create the main HTML file:",
            role: "assistant",
            tool_calls: [
              { index: 0, function: { arguments: "{\"command\": \"view\", \"path\": \"/workspace\"}", name: "str_replace_editor" }, id: "toolu_00", type: "function" },
              { index: 1, function: { arguments: "{\"command\": \"create\", \"path\": \"/workspace/index.html\", \"file_text\": \"<h1>Todo</h1>\"}", name: "str_replace_editor" }, id: "toolu_01", type: "function" }
            ]
          }
        }]
      }
    },
    args: {
      path: "/workspace/index.html",
      content: "",
      start: 1,
      end: -1,
      thought: "Let's create the main HTML file:",
      impl_source: "oh_aci",
      translated_ipython_code: "print(file_editor(**{'command': 'create', 'path': '/workspace/index.html', 'file_text': '<h1>Todo</h1>'}))"
    }
  }

  it("keeps the text an edit writes: the model's call arguments when the action's own arguments lack it", () => {
    const trace = readOne([{ id: 1, source: "user", action: "message", args: { content: "Make a todo page." } }, edit])
    const call = trace.events.find((event) => event.kind === "tool_call")
    expect(call?.content).toBe("{\"command\": \"create\", \"path\": \"/workspace/index.html\", \"file_text\": \"<h1>Todo</h1>\"}")
    const { tool_call_metadata: _dropped, ...withoutMetadata } = edit
    const fallback = readOne([{ id: 1, source: "user", action: "message", args: { content: "Make a todo page." } }, withoutMetadata])
    expect(fallback.events.find((event) => event.kind === "tool_call")?.content).toContain("'file_text': '<h1>Todo</h1>'")
  })

  it("takes a resolver record's issue as its id when it has no instance_id", () => {
    const history = [{ id: 1, source: "user", action: "message", args: { content: "Add a licence." } }]
    expect(readOne({ issue: { owner: "acme", repo: "site", number: 5, title: "Add MIT license" }, instruction: "Add a licence.", history }).id).toBe("acme/site#5")
    expect(readOne({ issue: { number: 7 }, instruction: "Add a licence.", history }).id).toBe("7")
    expect(readOne({ instance_id: "acme__site-5", issue: { number: 5 }, instruction: "x", history }).id).toBe("acme__site-5")
  })
})

describe("trajectory importer: robustness and detection", () => {
  it("never throws on any JSON value", () => {
    neverThrowsOnJson(trajectoryImporter)
  })

  it("is true on its own fixtures, and the neighbouring importers do not claim them", () => {
    for (const [name, body] of loadFixtures("trajectory")) {
      expect(trajectoryImporter.detect(body), name).toBe(true)
      expect(langSmithImporter.detect(body), name).toBe(false)
      expect(autoGenImporter.detect(body), name).toBe(false)
    }
  })

  it("is false on the langsmith and autogen fixtures and on other shapes", () => {
    for (const [name, body] of [...loadFixtures("langsmith"), ...loadFixtures("autogen")]) expect(trajectoryImporter.detect(body), name).toBe(false)
    for (
      const body of [
        {},
        [],
        null,
        { steps: [{ actor: "a", content: "x" }] },
        { agents: ["a"], messages: [{ from: "a", content: "x" }] },
        { messages: [{ role: "user", content: "x" }] },
        [{ role: "user", content: "x" }],
        { resourceSpans: [] },
        { history: [{ role: "user", content: "x" }] }
      ]
    ) expect(trajectoryImporter.detect(body), JSON.stringify(body)).toBe(false)
  })
})
