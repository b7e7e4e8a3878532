/**
 * The `mast` importer (DECISIONS §12) on records of MAST's published dataset (MAD,
 * `MAD_human_labelled_dataset.json`, four records copied whole and one record's raw trace file
 * `{run_id, prompt, content}`; see test/fixtures/traces/mast/README.md): AG2 per-agent messages,
 * MetaGPT logs in two shapes, and a HyperAgent log with a planner handing subgoals to its interns;
 * the failure annotations never read; detection both ways against every other format's fixtures.
 */
import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { mastImporter } from "../../src/Traces/Formats/Mast.js"
import { NormalizedTrace } from "../../src/Traces/Model.js"
import { useProviderDouble } from "../support/Harness.js"
import { type Counts, countsOf, detectionBothWays, expectNoDuplicates, fixtureIn, fixtureText, list, neverThrowsOnJson, readersOf, text } from "./support.js"

const fixture = fixtureIn("mast")
const { readAll, readOne, failure } = readersOf(mastImporter)

const FIXTURES: ReadonlyArray<{
  readonly file: string
  readonly id: string
  readonly task: RegExp
  readonly agents: ReadonlyArray<string>
  readonly counts: Counts
  readonly source: RegExp
}> = [
  {
    file: "MAD_human_labelled_dataset.02-ag2-gsm-plus.json",
    id: "AG2-2",
    task: /^Monica is wrapping Christmas gifts\./,
    agents: ["assistant"],
    counts: { messages: 10, toolCalls: 0, withArguments: 0, toolResults: 0, errors: 0, agents: 1, handoffs: 0, thoughts: 0, skipped: 0 },
    source: /^\[0\]\.trace\.trajectory\[\d+\]$/
  },
  {
    file: "MAD_human_labelled_dataset.04-metagpt-programdev.json",
    id: "MetaGPT-4",
    task: /^develop a program that detects palindromes in a text file$/,
    agents: ["Alice(SimpleCoder)", "Bob(SimpleTester)", "Charlie(SimpleReviewer)"],
    counts: { messages: 5, toolCalls: 0, withArguments: 0, toolResults: 0, errors: 0, agents: 3, handoffs: 0, thoughts: 0, skipped: 0 },
    source: /^\[0\]\.trace\.content#L\d+$/
  },
  {
    file: "MAD_human_labelled_dataset.06-hyperagent-swe-bench-lite.json",
    id: "HyperAgent-6",
    task: /^ColumnTransformer with pandas output can't handle transformers with no features/,
    agents: ["Planner", "Inner-Navigator-Assistant", "Navigator", "Inner-Editor-Assistant", "Editor", "Inner-Executor-Assistant", "Executor"],
    // the two "Initialized …" log lines belong to no turn
    counts: { messages: 18, toolCalls: 0, withArguments: 0, toolResults: 0, errors: 0, agents: 7, handoffs: 3, thoughts: 0, skipped: 2 },
    source: /^\[0\]\.trace\.trajectory\[\d+\]$/
  },
  {
    // the raw trace file of record 14 (MetaGPT, run 4): `{run_id, prompt, content}`, no record around it
    file: "MAD_human_labelled_dataset.14-metagpt-programdev.trace.json",
    id: "4",
    task: /^write a program that generates Fibonacci numbers up to a given number$/,
    agents: ["Alice(SimpleCoder)", "Bob(SimpleTester)", "Charlie(SimpleReviewer)"],
    counts: { messages: 5, toolCalls: 0, withArguments: 0, toolResults: 0, errors: 0, agents: 3, handoffs: 0, thoughts: 0, skipped: 0 },
    source: /^content#L\d+$/
  },
  {
    file: "MAD_human_labelled_dataset.16-metagpt-mmlu.json",
    id: "MetaGPT-16",
    task: /^The following are multiple choice questions \(with answers\) about high_school_computer_science\./,
    agents: ["SimpleCoder", "SimpleTester", "SimpleReviewer"],
    // the log's "=== … ===" banners, at its start (two lines, one block) and its end, belong to no turn
    counts: { messages: 6, toolCalls: 0, withArguments: 0, toolResults: 0, errors: 0, agents: 3, handoffs: 0, thoughts: 0, skipped: 2 },
    source: /^\[0\]\.trace#L\d+$/
  }
]

describe("mast importer: MAD records", () => {
  it.each(FIXTURES)("reads $file with the expected counts, agents, task and trace id", ({ file, id, task, agents, counts, source }) => {
    const trace = readOne(fixture(file))
    expect(countsOf(trace)).toEqual(counts)
    expect(trace.agents).toEqual(agents)
    expectNoDuplicates(trace)
    expect(trace.id).toBe(id)
    expect(trace.task).toMatch(task)
    expect(trace.success).toBeNull()
    for (const event of trace.events) expect(event.source).toMatch(source)
    // the failure annotations are labels: never read
    const text = JSON.stringify(trace)
    for (const label of ["annotator_", "failure mode", "Poor task constraint compliance", "Round "]) expect(text).not.toContain(label)
  })

  it("reads AG2's per-agent messages: the user proxy speaks as the user; the benchmark's answer and seed solution are not read", () => {
    const trace = readOne(fixture("MAD_human_labelled_dataset.02-ag2-gsm-plus.json"))
    expect(trace.events.slice(0, 2).map((event) => [event.actor, event.role, event.kind])).toEqual([
      ["mathproxyagent", "user", "message"],
      ["assistant", "agent", "message"]
    ])
    expect(trace.events[0]?.content).toMatch(/^Let's use Python to solve a math problem\.\n\nQuery requirements:/)
    const text = JSON.stringify(trace)
    expect(text).not.toContain("<<6+4+2=12>>")
    expect(text).not.toContain("perturbation")
  })

  it("reads HyperAgent's log: each response a turn, replies addressed to the planner, subgoals as handoffs; the gold patch and hints not read", () => {
    const trace = readOne(fixture("MAD_human_labelled_dataset.06-hyperagent-swe-bench-lite.json"))
    expect(trace.events.filter((event) => event.kind === "handoff").map((event) => [event.actor, event.to, event.content.slice(0, 40)])).toEqual([
      ["Planner", "Codebase Navigator", "Subgoal: Please locate the ColumnTransfo"],
      ["Planner", "Codebase Editor", "Subgoal: Please modify the `_iter` metho"],
      ["Planner", "Executor", "Subgoal: Please run the following code s"]
    ])
    expect(trace.events.filter((event) => event.to === "Planner" && event.kind === "message").map((event) => event.actor)).toEqual(["Navigator", "Editor", "Executor"])
    expect(JSON.stringify(trace)).not.toContain("hints_text")
  })

  it("reads MetaGPT's communication log: FROM/TO blocks and NEW MESSAGES, with their times", () => {
    const trace = readOne(fixture("MAD_human_labelled_dataset.16-metagpt-mmlu.json"))
    expect(trace.events.map((event) => [event.actor, event.role, event.to ?? "", event.timestamp ?? "", event.source])).toEqual([
      ["Human", "user", "<all>", "2025-03-27T01:21:03.000Z", "[0].trace#L4"],
      ["SimpleCoder", "agent", "", "2025-03-27T01:21:11.000Z", "[0].trace#L21"],
      ["SimpleTester", "agent", "", "2025-03-27T01:21:19.000Z", "[0].trace#L49"],
      ["SimpleReviewer", "agent", "", "2025-03-27T01:21:27.000Z", "[0].trace#L79"],
      ["SimpleTester", "agent", "", expect.stringMatching(/^2025-03-27T01:21/), "[0].trace#L84"],
      ["SimpleReviewer", "agent", "", expect.stringMatching(/^2025-03-27T01:2/), "[0].trace#L118"]
    ])
    // the ACTION line is not content
    expect(trace.events[0]?.content).toMatch(/^The following are multiple choice questions/)
  })

  it("reads MetaGPT's raw trace file {run_id, prompt, content}: one event per agent's action, with its time and log line", () => {
    const trace = readOne(fixture("MAD_human_labelled_dataset.14-metagpt-programdev.trace.json"))
    expect(trace.events.map((event) => [event.actor, event.role, event.kind, event.timestamp ?? "", event.source, event.content.split("\n")[0]])).toEqual([
      ["Alice(SimpleCoder)", "agent", "message", "2025-01-17T11:26:53.893Z", "content#L1", "to do SimpleWriteCode(SimpleWriteCode)"],
      ["Bob(SimpleTester)", "agent", "message", "2025-01-17T11:26:56.825Z", "content#L9", "to do SimpleWriteTest(SimpleWriteTest)"],
      ["Charlie(SimpleReviewer)", "agent", "message", "2025-01-17T11:27:02.806Z", "content#L24", "to do SimpleWriteReview(SimpleWriteReview)"],
      ["Bob(SimpleTester)", "agent", "message", "2025-01-17T11:27:08.076Z", "content#L25", "to do SimpleWriteTest(SimpleWriteTest)"],
      ["Charlie(SimpleReviewer)", "agent", "message", "2025-01-17T11:27:13.435Z", "content#L40", "to do SimpleWriteReview(SimpleWriteReview)"]
    ])
    // each action holds what the agent wrote under it
    expect(trace.events[0]?.content).toMatch(/```python\ndef generate_fibonacci\(limit\):/)
    expect(trace.outcome).toBe("to do SimpleWriteReview(SimpleWriteReview)")
  })

  it("reads a record's trace file alone as it reads the record", () => {
    const [record] = list(fixture("MAD_human_labelled_dataset.04-metagpt-programdev.json"))
    const inner: unknown = JSON.parse(text(record?.["trace"]))
    const whole = readOne(record)
    const alone = readOne(inner)
    const strip = (trace: NormalizedTrace) => trace.events.map((event) => ({ ...event, source: event.source.replace(/^trace\./, "") }))
    expect(strip(alone)).toEqual(strip(whole))
    expect([alone.task, alone.id]).toEqual([whole.task, "21"])
  })

  it("reads trace files with a MAST annotation or in a list, MetaGPT profiles of several words, and leaves the annotation out", () => {
    const content = [
      "2024-03-01 10:00:00.100 | INFO     | metagpt.team:invest:90 - Investment: $3.0.",
      "2024-03-01 10:00:01.200 | INFO     | metagpt.roles.role:_act:391 - Alice(Product Manager): to do PrepareDocuments(PrepareDocuments)",
      "2024-03-01 10:00:02.300 | INFO     | metagpt.roles.role:_act:391 - Bob(Architect): to do WriteDesign(WriteDesign)",
      "## Implementation approach",
      "We will use pygame.",
      "2024-03-01 10:00:03.400 | ERROR    | metagpt.utils.common:wrapper:649 - Exception occurs, start to serialize the project",
      ""
    ].join("\n")
    const traces = readAll([
      { run_id: 7, prompt: "write a snake game", content, mast_annotation: { "1.1": 1 } },
      { run_id: 8, content: "2024-03-01 10:00:00.000 | INFO     | __main__:_act:85 - Bob(SimpleTester): to do SimpleWriteTest(SimpleWriteTest)", mast_annotation: { "3.3": 1 } }
    ])
    expect(traces.map((trace) => [trace.id, trace.task])).toEqual([["7", "write a snake game"], ["8", ""]])
    expect(traces[0]?.events.map((event) => [event.actor, event.kind, event.content, event.source])).toEqual([
      ["Alice(Product Manager)", "message", "to do PrepareDocuments(PrepareDocuments)", "[0].content#L2"],
      ["Bob(Architect)", "message", "to do WriteDesign(WriteDesign)\n## Implementation approach\nWe will use pygame.", "[0].content#L3"],
      ["agent", "error", "Exception occurs, start to serialize the project", "[0].content#L6"]
    ])
    expect(traces[0]?.skipped).toBe(1) // the investment line
    expect(JSON.stringify(traces)).not.toContain("mast_annotation")
    expect(JSON.stringify(traces)).not.toContain("1.1")
  })

  it("reads the full dataset's shape, logs of ChatDev, AG2 text and OpenManus, and several records as several traces", () => {
    const log = [
      "[2025-17-01 11:36:43 INFO] **[Preprocessing]**",
      "**task_prompt**: develop a snake game",
      "[2025-17-01 11:36:44 INFO] flask app.py did not start for online log",
      "[2025-17-01 11:36:45 INFO] Chief Executive Officer: **[Start Chat]**",
      "",
      "Let us decide the product modality.",
      "[2025-17-01 11:36:46 INFO] Chief Product Officer: **Chief Product Officer<->Chief Executive Officer on : DemandAnalysis, turn 0**",
      "",
      "<INFO> Application"
    ].join("\n")
    const ag2 = ["user_proxy (to assistant):", "", "What is 2 + 2?", "", "-".repeat(80), "assistant (to user_proxy):", "", "4. TERMINATE", "", "-".repeat(80)].join("\n")
    const manus = [
      "2025-03-08 18:08:25.067 | INFO     | app.agent.toolcall:think:53 - ✨ Manus's thoughts: I should search the web.",
      "2025-03-08 18:08:25.068 | INFO     | app.agent.toolcall:think:54 - 🛠️ Manus selected 1 tools to use",
      "2025-03-08 18:08:25.069 | INFO     | app.agent.toolcall:think:58 - 🧰 Tools being prepared: ['google_search']",
      "2025-03-08 18:08:25.070 | INFO     | app.agent.toolcall:execute_tool:180 - 🔧 Tool arguments: {\"query\": \"soybean market 2025\"}",
      "2025-03-08 18:08:27.000 | INFO     | app.agent.toolcall:act:131 - 🎯 Tool 'google_search' completed its mission! Result: ['https://example.org']",
      "2025-03-08 18:08:28.000 | ERROR    | app.agent.toolcall:act:140 - Token limit exceeded"
    ].join("\n")
    const record = (name: string, id: number, trajectory: string) => ({
      mas_name: name,
      llm_name: "GPT-4o",
      benchmark_name: "ProgramDev",
      trace_id: id,
      trace: { key: `k-${id}`, index: id, trajectory },
      mast_annotation: { "1.1": 1, "3.3": 0 }
    })
    const traces = readAll([record("ChatDev", 8, log), record("AG2", 3, ag2), record("OpenManus", 5, manus), { mas_name: "x" }])
    expect(traces.map((trace) => trace.id)).toEqual(["ChatDev-8", "AG2-3", "OpenManus-5"])
    const [chatdev, chat, openManus] = traces
    expect(chatdev?.events.map((event) => [event.actor, event.content, event.source])).toEqual([
      ["Chief Executive Officer", "**[Start Chat]**\n\nLet us decide the product modality.", "[0].trace.trajectory#L4"],
      ["Chief Product Officer", "**Chief Product Officer<->Chief Executive Officer on : DemandAnalysis, turn 0**\n\n<INFO> Application", "[0].trace.trajectory#L7"]
    ])
    expect(chatdev?.task).toBe("develop a snake game")
    // two log lines of no turn (the preamble's task_prompt line is part of the first); the malformed record
    expect(chatdev?.skipped).toBe(2 + 1)
    expect(chat?.events.map((event) => [event.actor, event.role, event.to, event.content])).toEqual([
      ["user_proxy", "user", "assistant", "What is 2 + 2?"],
      ["assistant", "agent", "user_proxy", "4. TERMINATE"]
    ])
    expect(openManus?.events.map((event) => [event.actor, event.kind, event.tool ?? "", event.content])).toEqual([
      ["Manus", "thought", "", "I should search the web."],
      ["Manus", "tool_call", "google_search", "{\"query\": \"soybean market 2025\"}"],
      ["google_search", "tool_result", "google_search", "['https://example.org']"],
      ["agent", "error", "", "Token limit exceeded"]
    ])
    expect(openManus?.task).toBe("")
    expect(JSON.stringify(traces)).not.toContain("mast_annotation")
  })

  it("answers a Left for bodies with nothing readable, and never throws", () => {
    expect(failure({ mas_name: "AG2", benchmark_name: "GSM", trace_id: 1, trace: "   " })).toMatch(/^mast: /)
    expect(failure([])).toMatch(/^mast: /)
    neverThrowsOnJson(mastImporter, { nonEmptyTraces: true })
  })
})

describe("mast importer: detect", () => {
  detectionBothWays(mastImporter, [
    {},
    [],
    null,
    { trace: { trajectory: "x" }, mode: "quick" },
    { mas_name: "AG2", trace: { steps: [] } },
    // a run id, a prompt and a text are not enough: the text must show a turn the importer reads
    { run_id: 1, prompt: "summarize", content: "The summary is short." },
    { run_id: 1, content: "2025-01-17 11:40:27.872 | INFO     | metagpt.roles.role:_act:391 - Alice(SimpleCoder): to do X" },
    { id: "run-1", prompt: "hi", content: "2025-01-17 11:40:27.872 | INFO     | metagpt.roles.role:_act:391 - Alice(SimpleCoder): to do X" }
  ])
})

describe("POST /v1/traces/normalize with a MAD record of the full dataset", () => {
  const harness = useProviderDouble()
  const One = Schema.Struct({ format: Schema.String, events: Schema.Int, trace: NormalizedTrace })

  it("reads the record's `trace` object as its trajectory, not as the envelope's trace", async () => {
    const service = await harness.start({ ANTHROPIC_API_KEY: "sk-ant-traces-0123456789", ANTHROPIC_BASE_URL: harness.double.url })
    const record = {
      mas_name: "AG2",
      llm_name: "GPT-4o",
      benchmark_name: "GSM",
      trace_id: 7,
      trace: { key: "AG2_7", index: 7, trajectory: ["user_proxy (to assistant):", "", "What is 2 + 2?", "", "-".repeat(80), "assistant (to user_proxy):", "", "4", ""].join("\n") },
      mast_annotation: { "1.1": 0, "3.1": 1 }
    }
    const response = await fetch(`${service.url}/v1/traces/normalize`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(record) })
    const json: unknown = await response.json()
    expect(response.status, JSON.stringify(json).slice(0, 300)).toBe(200)
    const read = Schema.decodeUnknownSync(One)(json)
    expect(read.format).toBe("mast")
    expect(read.trace.id).toBe("AG2-7")
    expect(read.trace.events.map((event) => [event.actor, event.content])).toEqual([["user_proxy", "What is 2 + 2?"], ["assistant", "4"]])
  })

  it("detects a raw trace file {run_id, prompt, content} as mast and answers its events", async () => {
    const service = await harness.start({ ANTHROPIC_API_KEY: "sk-ant-traces-0123456789", ANTHROPIC_BASE_URL: harness.double.url })
    const response = await fetch(`${service.url}/v1/traces/normalize`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: fixtureText("mast/MAD_human_labelled_dataset.14-metagpt-programdev.trace.json")
    })
    const json: unknown = await response.json()
    expect(response.status, JSON.stringify(json).slice(0, 300)).toBe(200)
    const read = Schema.decodeUnknownSync(One)(json)
    expect([read.format, read.events, read.trace.id, read.trace.task]).toEqual(["mast", 5, "4", "write a program that generates Fibonacci numbers up to a given number"])
  })
})
