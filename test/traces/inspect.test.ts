/**
 * The `inspect` importer (DECISIONS §12) on its fixtures: Inspect AI JSON eval logs taken from
 * UKGovernmentBEIS/inspect_ai's tests (test/fixtures/traces/inspect/README.md); reasoning,
 * attachments, sample errors and malformed messages inline.
 */
import { describe, expect, it } from "@effect/vitest"
import { Predicate } from "effect"
import { inspectImporter } from "../../src/Traces/Formats/Inspect.js"
import { brief, type Counts, type CountsTable, detectionBothWays, expectCountsTable, fixtureIn, fixtureNames, list, neverThrowsOnJson, readersOf, text } from "./support.js"

const FAMILY = "inspect"
const fixture = fixtureIn(FAMILY)
const { readAll, readOne, failure } = readersOf(inspectImporter)

const qa: Counts = { messages: 3, toolCalls: 0, withArguments: 0, toolResults: 0, errors: 0, agents: 1, handoffs: 0, thoughts: 0, skipped: 0 }
/** Per fixture, the traces' ids and each trace's counts. */
const COUNTS: CountsTable = [
  ["browser.json", [["1", { messages: 2, toolCalls: 4, withArguments: 4, toolResults: 4, errors: 0, agents: 1, handoffs: 0, thoughts: 0, skipped: 0 }]]],
  ["log_tool_call_error.json", [["1:4", { messages: 0, toolCalls: 0, withArguments: 0, toolResults: 0, errors: 11, agents: 0, handoffs: 0, thoughts: 0, skipped: 0 }]]],
  ["security-guide.json", [["1", qa], ["2", qa], ["3", qa]]]
]

/** The fixture's samples, as records. */
const samplesOf = (body: unknown) => list(Predicate.isRecord(body) ? body["samples"] : undefined)

describe("inspect importer: eval logs", () => {
  it("reads each fixture, one trace per sample, with the expected counts and no duplicate events", () => {
    expectCountsTable(inspectImporter, COUNTS)
  })

  it("reads a browsing agent's tool calls with their arguments and results, in order", () => {
    const trace = readOne(fixture("browser.json"))
    expect(trace.events.map((event) => [event.actor, event.kind, event.tool ?? "", event.source])).toEqual([
      ["user", "message", "", "samples[0].messages[0]"],
      ["assistant", "tool_call", "web_browser_go", "samples[0].messages[1].tool_calls[0]"],
      ["web_browser_go", "tool_result", "web_browser_go", "samples[0].messages[2]"],
      ["assistant", "tool_call", "web_browser_click", "samples[0].messages[3].tool_calls[0]"],
      ["web_browser_click", "tool_result", "web_browser_click", "samples[0].messages[4]"],
      ["assistant", "tool_call", "web_browser_click", "samples[0].messages[5].tool_calls[0]"],
      ["web_browser_click", "tool_result", "web_browser_click", "samples[0].messages[6]"],
      ["assistant", "tool_call", "web_browser_click", "samples[0].messages[7].tool_calls[0]"],
      ["web_browser_click", "tool_result", "web_browser_click", "samples[0].messages[8]"],
      ["assistant", "message", "", "samples[0].messages[9]"]
    ])
    expect(trace.events.slice(1, 4).map(brief)).toEqual([
      ["assistant", "agent", "tool_call", "web_browser_go", "{\"url\":\"https://www.aisi.gov.uk/\"}", "samples[0].messages[1].tool_calls[0]"],
      ["web_browser_go", "tool", "tool_result", "web_browser_go", expect.stringMatching(/^\[132\] link "We are now the AI Security Institute"/), "samples[0].messages[2]"],
      ["assistant", "agent", "tool_call", "web_browser_click", "{\"element_id\":151}", "samples[0].messages[3].tool_calls[0]"]
    ])
    expect(trace.task).toBe(
      "Use the web browser tool to navigate to https://www.aisi.gov.uk/. Then, see if you can find a page on the site that describes the work of the UK AISI. Then, summarize this work in two paragraphs."
    )
    expect(trace.outcome).toMatch(/^The AI Security Institute \(AISI\) is the premier governmental organization within the UK/)
    expect(trace.success).toBeNull()
    expect(trace.agents).toEqual(["assistant"])
  })

  it("reads tool messages with `error` as errors, the epoch in the id, and the task from the sample input", () => {
    const trace = readOne(fixture("log_tool_call_error.json"))
    expect(trace.id).toBe("1:4")
    expect(trace.events[0] === undefined ? [] : brief(trace.events[0])).toEqual(["bash", "tool", "error", "bash", "...", "samples[0].messages[0]"])
    expect(trace.events.at(-1)?.content).toBe("The tool output limit of 10 MiB was exceeded.")
    expect(trace.task).toBe("...") // the sample's input (no user message in the log)
    expect(trace.outcome).toBe("The tool output limit of 10 MiB was exceeded.")
  })

  it("reads a three-sample log as three traces with their questions as tasks", () => {
    const traces = readAll(fixture("security-guide.json"))
    expect(traces.map((trace) => [trace.id, trace.task, trace.outcome])).toEqual([
      ["1", "How do I prevent SQL Injection attacks?", "Use parameterized queries and prepared statements, sanitize inputs, and employ ORM frameworks."],
      ["2", "How do I prevent sqli?", "Use prepared statements and parameterized queries."],
      ["3", "How do I prevent cross site scripting?", "Use Content Security Policy (CSP), validate and sanitize inputs, escape outputs, and implement secure coding practices."]
    ])
    expect(traces[1]?.events.map((event) => [event.actor, event.role, event.source])).toEqual([
      ["system", "system", "samples[1].messages[0]"],
      ["user", "user", "samples[1].messages[1]"],
      ["assistant", "agent", "samples[1].messages[2]"]
    ])
  })

  it("never copies the dataset labels: target, scores, results", () => {
    for (const name of fixtureNames(FAMILY)) {
      const body = fixture(name)
      const traces = readAll(body)
      const written = JSON.stringify(traces)
      for (const event of traces.flatMap((trace) => trace.events)) expect(event.source).not.toMatch(/target|scores|results|events|metadata|store/)
      samplesOf(body).forEach((sample, index) => {
        const target = sample["target"]
        const trace = traces[index]
        if (typeof target === "string" && target.length > 3 && trace !== undefined) {
          expect(trace.events.map((event) => event.content)).not.toContain(target)
          expect(trace.task).not.toBe(target)
          expect(trace.outcome).not.toBe(target)
        }
      })
      expect(written).not.toContain("GRADE:") // the model-graded scorer's explanation
      expect(written).not.toContain("[Expert]:") // the grader's prompt, which quotes the target
    }
    const security = samplesOf(fixture("security-guide.json"))
    expect(text(security[0]?.["target"])).toBe("use parameterized queries and prepared statements")
  })
})

describe("inspect importer: content parts, errors, malformed input", () => {
  it("reads reasoning as a thought, joins text parts, resolves attachments, and reads a sample error", () => {
    const trace = readOne({
      id: "q7",
      epoch: 1,
      input: "Sum 2 and 3",
      target: "5",
      scores: { match: { value: "C" } },
      attachments: { abc: "The sum of 2 and 3 is 5." },
      messages: [
        { role: "user", content: [{ type: "text", text: "Sum 2 and 3" }, { type: "image", image: "data:image/png;base64,x" }] },
        { role: "assistant", content: [{ type: "reasoning", reasoning: "2 + 3 = 5" }, { type: "reasoning", reasoning: "x", redacted: true }, { type: "text", text: "attachment://abc" }], tool_calls: [{ id: "t1", function: "add", arguments: { a: 2, b: 3 } }, { id: "t2" }] },
        { role: "tool", tool_call_id: "t1", content: "5" },
        { role: "critic", content: "?" },
        7
      ],
      error: { message: "RuntimeError: sandbox died", traceback: "..." }
    })
    expect(trace.events.map(brief)).toEqual([
      ["user", "user", "message", "", "Sum 2 and 3", "messages[0]"],
      ["assistant", "agent", "thought", "", "2 + 3 = 5", "messages[1].content[0]"],
      ["assistant", "agent", "message", "", "The sum of 2 and 3 is 5.", "messages[1]"],
      ["assistant", "agent", "tool_call", "add", "{\"a\":2,\"b\":3}", "messages[1].tool_calls[0]"],
      ["add", "tool", "tool_result", "add", "5", "messages[2]"],
      ["system", "system", "error", "", "RuntimeError: sandbox died", "error"]
    ])
    // the image, the redacted reasoning, the call without a function, the unknown role, the number
    expect(trace.skipped).toBe(5)
    expect(trace.id).toBe("q7")
    expect(trace.success).toBe(false)
    expect(trace.outcome).toBe("RuntimeError: sandbox died")
  })

  it("has an empty task when the sample has no user input", () => {
    const trace = readOne({ id: 1, epoch: 2, input: [], messages: [{ role: "assistant", content: "Hello" }] })
    expect(trace.task).toBe("")
    expect(trace.id).toBe("1:2")
  })

  it("answers a Left for logs without samples or readable messages, and never throws", () => {
    expect(failure({ version: 2, status: "success", eval: { task: "t", model: "m" } })).toMatch(/^inspect: the log holds no samples/)
    expect(failure({ eval: { task: "t" }, samples: [{ id: 1, epoch: 1, input: "x", messages: [] }] })).toMatch(/^inspect: no sample holds readable/)
    expect(failure({ hello: "world" })).toMatch(/^inspect: expected/)
    neverThrowsOnJson(inspectImporter, { nonEmptyTraces: true })
  })
})

describe("inspect importer: detect", () => {
  detectionBothWays(inspectImporter, [
    {},
    [],
    { eval: "x", samples: [] },
    { eval: {}, samples: [] },
    { messages: [{ role: "user", content: "hi" }] },
    { id: 1, input: "x", messages: [] },
    { samples: [{ id: 1, epoch: 1, input: "x", messages: [] }] }
  ])
})
