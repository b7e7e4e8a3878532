/**
 * The `smolagents` importer (DECISIONS §12) on the benchmark's own published answer records
 * (huggingface/smolagents `examples/smolagents_benchmark/output/*.jsonl`, the first two records of
 * three files; see test/fixtures/traces/smolagents/README.md), on `agent.memory` step dumps in the
 * shape `memory.py` writes, and detection both ways against every other format's fixtures.
 */
import { describe, expect, it } from "@effect/vitest"
import { parsePythonLiteral, smolagentsImporter } from "../../src/Traces/Formats/Smolagents.js"
import { type Counts, countsOf, detectionBothWays, expectNoDuplicates, fixtureIn, neverThrowsOnJson, readersOf } from "./support.js"

const fixture = fixtureIn("smolagents")
const { readAll, readOne, failure } = readersOf(smolagentsImporter)

/** A record's counts: one agent, no handoffs, nothing skipped. */
const counts = (messages: number, toolCalls: number, withArguments: number, toolResults: number, errors: number, thoughts: number): Counts => ({
  messages,
  toolCalls,
  withArguments,
  toolResults,
  errors,
  agents: 1,
  handoffs: 0,
  thoughts,
  skipped: 0
})

const FIXTURES: ReadonlyArray<{ readonly file: string; readonly records: ReadonlyArray<{ readonly counts: Counts; readonly outcome: string; readonly success: boolean | null }> }> = [
  {
    file: "gpt-4o__code__math__2025-07-24.head2.jsonl",
    records: [
      { counts: counts(2, 1, 1, 1, 0, 1), outcome: "2", success: null },
      { counts: counts(2, 2, 2, 2, 0, 2), outcome: "4", success: null }
    ]
  },
  {
    file: "gpt-4o__tool-calling__math__2025-07-24.head2.jsonl",
    records: [
      { counts: counts(2, 2, 2, 2, 0, 0), outcome: "Each side of the octagon is 12 cm long.", success: null },
      { counts: counts(2, 2, 2, 2, 1, 0), outcome: "2", success: null }
    ]
  },
  {
    file: "gpt-4o__code__math__2025-09-08.head2.jsonl",
    records: [
      { counts: counts(1, 0, 0, 0, 1, 0), outcome: "Error in generating model output:\nlitellm.AuthenticationError", success: false },
      { counts: counts(1, 0, 0, 0, 1, 0), outcome: "Error in generating model output:\nlitellm.AuthenticationError", success: false }
    ]
  }
]

const questionOf = (body: unknown, index: number): string => {
  const record: unknown = Array.isArray(body) ? body[index] : undefined
  const question = typeof record === "object" && record !== null && "question" in record ? record.question : undefined
  return typeof question === "string" ? question : expect.fail("no question")
}

describe("smolagents importer: benchmark records", () => {
  it.each(FIXTURES)("reads $file: one trace per record, with the expected counts", ({ file, records }) => {
    const body = fixture(file)
    const traces = readAll(body)
    expect(traces.map((trace) => trace.id)).toEqual(records.map((_, index) => String(index)))
    traces.forEach((trace, index) => {
      const expected = records[index] ?? expect.fail("no expectation")
      expect([index, countsOf(trace)]).toEqual([index, expected.counts])
      expectNoDuplicates(trace)
      expect(trace.task).toBe(questionOf(body, index))
      expect(trace.outcome.startsWith(expected.outcome)).toBe(true)
      expect(trace.success).toBe(expected.success)
      for (const event of trace.events) {
        expect(event.source).toMatch(new RegExp(`^\\[${index}\\]\\.(intermediate_steps\\[\\d+\\](\\.calls\\[\\d+\\])?|question|answer)$`))
        // labels and accounting are never read
        expect(event.source).not.toMatch(/true_answer|token_counts|source/)
      }
    })
  })

  it("reads a CodeAgent run: the thought before the code, the call from \"Calling tools:\" (the code), the observation without its prefix", () => {
    const [, trace] = readAll(fixture("gpt-4o__code__math__2025-07-24.head2.jsonl"))
    expect(trace?.events.map((event) => [event.actor, event.kind, event.tool ?? "", event.content.slice(0, 40), event.source])).toEqual([
      ["system", "message", "", "You are an expert assistant who can solv", "[1].intermediate_steps[0]"],
      ["user", "message", "", "Rick is thinking of a positive factor of", "[1].intermediate_steps[1]"],
      ["agent", "thought", "", "Thought: To find the solution, we need t", "[1].intermediate_steps[2]"],
      ["agent", "tool_call", "python_interpreter", "def get_factors(n):\n    factors = set()\n", "[1].intermediate_steps[3]"],
      ["python_interpreter", "tool_result", "python_interpreter", "Execution logs:\n4\nLast output from code ", "[1].intermediate_steps[4]"],
      ["agent", "thought", "", "The code execution reveals that there ar", "[1].intermediate_steps[5]"],
      ["agent", "tool_call", "python_interpreter", "final_answer(4)", "[1].intermediate_steps[6]"],
      ["python_interpreter", "tool_result", "python_interpreter", "Execution logs:\nLast output from code sn", "[1].intermediate_steps[7]"]
    ])
    // the thought stops where the code (a copy of the call) starts
    for (const event of trace?.events ?? []) if (event.kind === "thought") expect(event.content).not.toContain("<code>")
  })

  it("reads a ToolCallingAgent run: the \"Tool call …\" copies are not events, the arguments are parsed, an error without the retry advice", () => {
    const [first, second] = readAll(fixture("gpt-4o__tool-calling__math__2025-07-24.head2.jsonl"))
    expect(first?.events.filter((event) => event.kind === "tool_call").map((event) => [event.tool, event.content.slice(0, 30)])).toEqual([
      ["python_interpreter", "{\"code\":\"# Given\\nhexagon_side"],
      ["final_answer", "{\"answer\":\"Each side of the oc"]
    ])
    for (const event of first?.events ?? []) expect(event.content).not.toMatch(/^(Tool call |Calling tools:|Observation:)/)
    const error = second?.events.find((event) => event.kind === "error")
    expect(error?.content).toMatch(/^Error executing tool 'python_interpreter'/)
    expect(error?.content).not.toContain("Now let's retry")
  })

  it("never copies true_answer or scores", () => {
    const trace = readOne({
      model_id: "m",
      agent_action_type: "vanilla",
      question: "What is 6 x 7?",
      original_question: "What is 6 x 7?",
      answer: "42",
      true_answer: "LABEL-forty-two",
      score: 0.25,
      is_correct: false,
      source: "GSM8K",
      intermediate_steps: "42",
      token_counts: { input: 0, output: 0 }
    })
    expect(trace.events.map((event) => [event.actor, event.kind, event.content])).toEqual([
      ["user", "message", "What is 6 x 7?"],
      ["agent", "message", "42"]
    ])
    expect(trace.id).toBeNull()
    expect(JSON.stringify(trace)).not.toMatch(/LABEL-forty-two|0\.25|GSM8K/)
  })
})

describe("smolagents importer: agent memory steps", () => {
  const steps = [
    { task: "Find the population of Lyon", task_images: null },
    {
      model_input_messages: [{ role: "user", content: [{ type: "text", text: "New task:\nFind the population of Lyon" }] }],
      model_output_message: { role: "assistant", content: "1. Search. 2. Answer." },
      plan: "1. Search. 2. Answer.",
      timing: { start_time: 1753384542.0, end_time: 1753384543.0 },
      token_usage: null
    },
    {
      step_number: 1,
      timing: { start_time: 1753384544.0, end_time: 1753384545.0 },
      model_input_messages: [{ role: "user", content: [{ type: "text", text: "history again" }] }],
      tool_calls: [{ id: "call_1", type: "function", function: { name: "python_interpreter", arguments: "print(web_search('Lyon population'))" } }],
      error: null,
      model_output_message: { role: "assistant", content: "Thought: search it.\n<code>\nprint(web_search('Lyon population'))\n</code>" },
      model_output: "Thought: search it.\n<code>\nprint(web_search('Lyon population'))\n</code>",
      code_action: "print(web_search('Lyon population'))",
      observations: "Execution logs:\nLyon: 522,250 inhabitants (2021)",
      observations_images: null,
      action_output: null,
      token_usage: null,
      is_final_answer: false
    },
    {
      step_number: 2,
      timing: { start_time: 1753384546.0, end_time: 1753384547.0 },
      tool_calls: [{ id: "call_2", type: "function", function: { name: "python_interpreter", arguments: "final_answer(522250)" } }],
      error: { type: "AgentExecutionError", message: "Code execution failed: name 'final_anwser' is not defined" },
      model_output: "Thought: answer.\n<code>\nfinal_answer(522250)\n</code>",
      observations: null,
      action_output: null,
      is_final_answer: false
    },
    {
      step_number: 3,
      timing: { start_time: 1753384548.0, end_time: 1753384549.0 },
      tool_calls: [{ id: "call_3", type: "function", function: { name: "final_answer", arguments: { answer: 522250 } } }],
      error: null,
      model_output: "Tool call call_3: calling 'final_answer' with arguments: {'answer': 522250}",
      observations: "522250",
      action_output: 522250,
      is_final_answer: true
    },
    { output: 522250 }
  ]

  it("reads TaskStep, PlanningStep and ActionSteps once each: the model's inputs and output message are not read again", () => {
    const trace = readOne({ system_prompt: "You are an expert assistant.", steps })
    expect(trace.events.map((event) => [event.actor, event.kind, event.tool ?? "", event.content, event.source])).toEqual([
      ["system", "message", "", "You are an expert assistant.", "system_prompt"],
      ["user", "message", "", "Find the population of Lyon", "steps[0].task"],
      ["agent", "thought", "", "1. Search. 2. Answer.", "steps[1].plan"],
      ["agent", "thought", "", "Thought: search it.", "steps[2].model_output"],
      ["agent", "tool_call", "python_interpreter", "print(web_search('Lyon population'))", "steps[2].tool_calls[0]"],
      ["python_interpreter", "tool_result", "python_interpreter", "Execution logs:\nLyon: 522,250 inhabitants (2021)", "steps[2].observations"],
      ["agent", "thought", "", "Thought: answer.", "steps[3].model_output"],
      ["agent", "tool_call", "python_interpreter", "final_answer(522250)", "steps[3].tool_calls[0]"],
      ["python_interpreter", "error", "python_interpreter", "Code execution failed: name 'final_anwser' is not defined", "steps[3].error"],
      ["agent", "tool_call", "final_answer", "{\"answer\":522250}", "steps[4].tool_calls[0]"],
      ["final_answer", "tool_result", "final_answer", "522250", "steps[4].observations"]
    ])
    expect(trace.task).toBe("Find the population of Lyon")
    expect(trace.outcome).toBe("522250")
    expect(trace.events[1]?.timestamp).toBeUndefined()
    expect(trace.events[3]?.timestamp).toBe("2025-07-24T19:15:44.000Z")
    expectNoDuplicates(trace)
    // a bare list (get_full_steps()) reads the same, with list pointers
    expect(readOne(steps).events.map((event) => event.source)[0]).toBe("[0].task")
  })

  it("parses Python literals as smolagents prints tool calls", () => {
    expect(parsePythonLiteral("[{'id': 'call_1', 'type': 'function', 'function': {'name': 'f', 'arguments': 'a\\nb \"q\"'}}]")).toEqual([
      { id: "call_1", type: "function", function: { name: "f", arguments: "a\nb \"q\"" } }
    ])
    expect(parsePythonLiteral("{'a': (1, -2.5e3, True, None), \"b\": 'it\\'s'}")).toEqual({ a: [1, -2500, true, null], b: "it's" })
    expect(parsePythonLiteral("[{'a': 1}")).toBeUndefined()
    expect(parsePythonLiteral("print(1)")).toBeUndefined()
  })

  it("answers a Left for bodies with nothing readable, and never throws", () => {
    expect(failure([{ question: "q", intermediate_steps: [], agent_action_type: "code" }, 5].slice(1))).toMatch(/^smolagents: /)
    neverThrowsOnJson(smolagentsImporter, { nonEmptyTraces: true })
  })
})

describe("smolagents importer: detect", () => {
  detectionBothWays(smolagentsImporter, [{}, [], null, { question: "q" }, { question: "q", history: [] }, [{ role: "user", content: "hi" }], { steps: [{ agent: "a" }] }])
})
