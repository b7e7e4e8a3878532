/**
 * The `langsmith` importer (DECISIONS §12) on what the real `langsmith` SDK sends (fixtures
 * recorded by scripts/record-trace-fixtures/langsmith.mjs, see
 * test/fixtures/traces/langsmith/README.md): the batch payload `{post, patch}`, a run tree from
 * `RunTree.toJSON()`, and flat run lists; history de-duplication across llm runs; malformed runs.
 * Ids and timestamps are read from the fixtures, which are re-recorded with new ones.
 */
import { Predicate } from "effect"
import { describe, expect, it } from "@effect/vitest"
import { autoGenImporter } from "../../src/Traces/Formats/AutoGen.js"
import { langSmithImporter } from "../../src/Traces/Formats/LangSmith.js"
import { trajectoryImporter } from "../../src/Traces/Formats/Trajectory.js"
import { brief, fixtureIn, fixtureNames, list, loadFixtures, neverThrowsOnJson, readersOf, sub, text, type Rec } from "./support.js"

const fixture = fixtureIn("langsmith")
const field = (record: Rec | undefined, key: string): unknown => (record === undefined ? undefined : record[key])
const asRecord = (value: unknown): Rec | undefined => (Predicate.isRecord(value) ? value : undefined)
const iso = (value: unknown): string => (typeof value === "number" ? new Date(value).toISOString() : text(value))

const { readAll, readOne, failure } = readersOf(langSmithImporter)

describe("langsmith importer: the SDK's batch payload (traceable)", () => {
  const body = fixture("traceable-batch.json")
  const posts = list(field(asRecord(body), "post"))
  const byName = (name: string) => posts.filter((run) => run["name"] === name).sort((a, b) => text(a["dotted_order"]).localeCompare(text(b["dotted_order"])))
  const [root] = byName("research_agent")
  const [llm1, llm2, llm3] = byName("ChatOpenAI")
  const [search] = byName("search_docs")
  const [fetchPage] = byName("fetch_page")
  const id = (run: Rec | undefined) => text(field(run, "id"))

  it("has the runs the recording script made", () => {
    expect(posts).toHaveLength(6)
    expect(field(root, "parent_run_id")).toBeUndefined()
    expect([llm1, llm2, llm3, search, fetchPage].every((run) => field(run, "parent_run_id") === id(root))).toBe(true)
  })

  it("reads one event per message, tool result and error, in execution order", () => {
    const trace = readOne(body)
    expect(trace.id).toBe(id(root))
    expect(trace.events.map(brief)).toEqual([
      ["user", "user", "message", "", "Which release introduced the retry budget setting?", `run:${id(root)}`],
      ["system", "system", "message", "", "You are a research assistant. Use the tools to answer.", `run:${id(llm1)}/inputs.messages[0]`],
      ["research_agent", "agent", "tool_call", "search_docs", "{\"query\":\"retry budget\"}", `run:${id(llm1)}/outputs.choices[0]`],
      [
        "search_docs",
        "tool",
        "tool_result",
        "search_docs",
        "{\"results\":[\"Release 2.4 notes: added the retry budget setting (retry budget).\"]}",
        `run:${id(search)}`
      ],
      ["research_agent", "agent", "message", "", "The search points at the changelog; let me open it.", `run:${id(llm2)}/outputs.choices[0]`],
      ["research_agent", "agent", "tool_call", "fetch_page", "{\"url\":\"https://docs.example.test/changelog\"}", `run:${id(llm2)}/outputs.choices[0]`],
      ["fetch_page", "tool", "error", "fetch_page", "Error: fetch_page failed: 503 Service Unavailable for https://docs.example.test/changelog", `run:${id(fetchPage)}`],
      [
        "research_agent",
        "agent",
        "message",
        "",
        "The retry budget setting was introduced in release 2.4, according to the search results.",
        `run:${id(llm3)}/outputs.choices[0]`
      ]
    ])
    expect(trace.task).toBe("Which release introduced the retry budget setting?")
    expect(trace.outcome).toBe("The retry budget setting was introduced in release 2.4, according to the search results.")
    expect(trace.success).toBe(true)
    expect(trace.agents).toEqual(["research_agent"])
    expect(trace.skipped).toBe(0)
  })

  it("stamps events with the runs' times: start for inputs and calls, end for outputs and results", () => {
    const trace = readOne(body)
    const at = (source: string) => trace.events.find((event) => event.source === source)?.timestamp
    expect(at(`run:${id(root)}`)).toBe(text(field(root, "start_time")))
    expect(at(`run:${id(llm1)}/inputs.messages[0]`)).toBe(text(field(llm1, "start_time")))
    expect(at(`run:${id(llm1)}/outputs.choices[0]`)).toBe(iso(field(llm1, "end_time")))
    expect(at(`run:${id(search)}`)).toBe(iso(field(search, "end_time")))
  })

  it("de-duplicates the history each llm run repeats: N messages become about N events, not N²", () => {
    const trace = readOne(body)
    const inputMessages = [llm1, llm2, llm3].reduce((sum, run) => sum + list(field(sub(run, "inputs"), "messages")).length, 0)
    expect(inputMessages).toBe(2 + 4 + 6)
    expect(trace.events).toHaveLength(8)
    const contents = trace.events.map((event) => `${event.kind}:${event.content}`)
    expect(new Set(contents).size).toBe(contents.length)
  })

  it("orders a flat list of the same runs by dotted_order, whatever order they arrive in", () => {
    expect(readOne([...posts].reverse()).events).toEqual(readOne(body).events)
    expect(readOne({ runs: [...posts].reverse() }).events).toEqual(readOne(body).events)
  })
})

describe("langsmith importer: a run tree and its batches (RunTree)", () => {
  const tree = fixture("runtree.json")
  const treeRecord = asRecord(tree) ?? {}
  const rootId = text(treeRecord["id"])
  const [node] = list(treeRecord["child_runs"])
  const [llm1, tool, llm2] = list(field(node, "child_runs"))
  const id = (run: Rec | undefined) => text(field(run, "id"))

  it("reads LangChain serialized messages in [[...]] batches, generations, a tool run and errors; the LangGraph node names the agent", () => {
    const trace = readOne(tree)
    expect(trace.id).toBe(rootId)
    expect(trace.events.map(brief)).toEqual([
      ["user", "user", "message", "", "Where is my order 8812? It was due on Monday.", `run:${rootId}/inputs.messages[0]`],
      ["system", "system", "message", "", "You are the support agent for an online bookshop.", `run:${id(llm1)}/inputs.messages[0][0]`],
      ["agent", "agent", "tool_call", "lookup_order", "{\"order_id\":\"8812\"}", `run:${id(llm1)}/outputs.generations[0][0]`],
      ["lookup_order", "tool", "tool_result", "lookup_order", "{\"status\":\"held at customs\"}", `run:${id(tool)}`],
      ["agent", "agent", "error", "", "RateLimitError: 429 Too Many Requests", `run:${id(llm2)}`],
      ["support_graph", "agent", "error", "", "GraphRecursionError: the support_graph run stopped after the agent node failed", `run:${rootId}`]
    ])
    expect(trace.task).toBe("Where is my order 8812? It was due on Monday.")
    expect(trace.outcome).toBe("GraphRecursionError: the support_graph run stopped after the agent node failed")
    expect(trace.success).toBe(false)
    expect(trace.skipped).toBe(0)
  })

  it("says an error that propagates up the chain once", () => {
    const trace = readOne(tree)
    expect(trace.events.filter((event) => event.content === "RateLimitError: 429 Too Many Requests")).toHaveLength(1)
  })

  it("reads the batches as sent: the root posted first (unfinished), then a patch that ends it", () => {
    const first = readOne(fixture("runtree-batch-1.json"))
    expect(first.success).toBeNull()
    expect(first.events.map((event) => event.content)).toEqual(["Where is my order 8812? It was due on Monday."])

    const second = asRecord(fixture("runtree-batch-2.json"))
    expect(list(field(second, "patch"))).toHaveLength(1)
    const alone = readOne(second)
    expect(alone.success).toBe(false)
    expect(alone.id).toBe(rootId)

    const firstBody = asRecord(fixture("runtree-batch-1.json"))
    const merged = {
      post: [...list(field(firstBody, "post")), ...list(field(second, "post"))],
      patch: list(field(second, "patch"))
    }
    const whole = readOne(merged)
    expect(whole.events.map(brief)).toEqual(readOne(tree).events.map(brief))
    expect(whole.success).toBe(false)
  })

  it("detects its own fixtures", () => {
    for (const name of fixtureNames("langsmith")) {
      expect(langSmithImporter.detect(fixture(name)), name).toBe(true)
    }
  })
})

describe("langsmith importer: run shapes", () => {
  /** 2026-01-01T00:00:00Z in epoch milliseconds, as the JS SDK writes end times. */
  const t0 = Date.UTC(2026, 0, 1)
  const run = (id: string, extra: Rec): Rec => ({ id, name: id, run_type: "chain", inputs: {}, outputs: {}, trace_id: "t-1", ...extra })

  it("orders runs without dotted_order by start_time, and a patch fills in outputs, error and end_time", () => {
    const body = {
      post: [
        run("tool-b", { run_type: "tool", name: "lookup", parent_run_id: "root", start_time: t0 + 3000, inputs: { input: "second" }, outputs: undefined }),
        run("root", { name: "planner", start_time: t0 + 1000, inputs: { task: "Find two things." } }),
        run("tool-a", { run_type: "tool", name: "lookup", parent_run_id: "root", start_time: t0 + 2000, inputs: { input: "first" } })
      ],
      patch: [
        { id: "tool-a", outputs: { output: "found the first" }, end_time: t0 + 2500 },
        { id: "tool-b", error: "TimeoutError: lookup took longer than 30s", end_time: t0 + 33000 },
        { id: "root", outputs: { output: "Only the first was found." }, end_time: t0 + 40000 }
      ]
    }
    const trace = readOne(body)
    expect(trace.events.map((event) => [event.actor, event.kind, event.content, event.timestamp])).toEqual([
      ["user", "message", "Find two things.", "2026-01-01T00:00:01.000Z"],
      ["planner", "tool_call", "first", "2026-01-01T00:00:02.000Z"],
      ["lookup", "tool_result", "found the first", "2026-01-01T00:00:02.500Z"],
      ["planner", "tool_call", "second", "2026-01-01T00:00:03.000Z"],
      ["lookup", "error", "TimeoutError: lookup took longer than 30s", "2026-01-01T00:00:33.000Z"],
      ["planner", "message", "Only the first was found.", "2026-01-01T00:00:40.000Z"]
    ])
    expect(trace.success).toBe(true)
    expect(trace.outcome).toBe("Only the first was found.")
  })

  it("leaves success unknown while the root has not finished", () => {
    const trace = readOne([run("root", { inputs: { input: "hello" } }), run("child", { run_type: "llm", parent_run_id: "root", inputs: { messages: [{ role: "user", content: "hello" }] } })])
    expect(trace.success).toBeNull()
    expect(trace.events).toHaveLength(1)
  })

  it("reads several root runs with distinct trace ids as several traces", () => {
    const traces = readAll([
      run("a", { trace_id: "trace-a", inputs: { input: "first question" }, end_time: 5 }),
      run("b", { trace_id: "trace-b", inputs: { input: "second question" }, error: "boom" })
    ])
    expect(traces.map((trace) => [trace.id, trace.task, trace.success])).toEqual([
      ["trace-a", "first question", true],
      ["trace-b", "second question", false]
    ])
  })

  it("reads LangChain dict messages, prompts, Anthropic-style content blocks and generic LangChain chain names", () => {
    const trace = readOne({
      id: "root",
      name: "LangGraph",
      run_type: "chain",
      inputs: {},
      child_runs: [
        {
          id: "seq",
          name: "RunnableSequence",
          run_type: "chain",
          inputs: {},
          extra: { metadata: { langgraph_node: "researcher" } },
          child_runs: [
            {
              id: "llm",
              name: "ChatAnthropic",
              run_type: "llm",
              extra: { metadata: { langgraph_node: "researcher" } },
              inputs: { messages: [[{ type: "human", data: { content: "Summarise the memo." } }]] },
              outputs: {
                generations: [[{
                  text: "",
                  message: {
                    lc: 1,
                    type: "constructor",
                    id: ["langchain_core", "messages", "AIMessage"],
                    kwargs: {
                      content: [{ type: "thinking", thinking: "The memo is short." }, { type: "text", text: "It asks for a budget review." }, {
                        type: "tool_use",
                        id: "tu_1",
                        name: "save_note",
                        input: { note: "budget review" }
                      }]
                    }
                  }
                }]]
              }
            },
            { id: "llm2", name: "OpenAI", run_type: "llm", inputs: { prompts: ["Title for: budget review"] }, outputs: { generations: [[{ text: "Budget review" }]] } }
          ]
        }
      ]
    })
    expect(trace.events.map((event) => [event.actor, event.kind, event.tool ?? "", event.content])).toEqual([
      ["user", "message", "", "Summarise the memo."],
      ["researcher", "thought", "", "The memo is short."],
      ["researcher", "message", "", "It asks for a budget review."],
      ["researcher", "tool_call", "save_note", "{\"note\":\"budget review\"}"],
      ["user", "message", "", "Title for: budget review"],
      ["researcher", "message", "", "Budget review"]
    ])
  })

  it("keeps a message said twice in one conversation twice, and each repeated history once", () => {
    const history = [
      { role: "user", content: "ping" },
      { role: "assistant", content: "pong" },
      { role: "user", content: "ping" }
    ]
    const trace = readOne([
      run("root", {}),
      run("l1", { run_type: "llm", parent_run_id: "root", start_time: 1, inputs: { messages: history.slice(0, 1) }, outputs: { choices: [{ message: history[1] }] } }),
      run("l2", { run_type: "llm", parent_run_id: "root", start_time: 2, inputs: { messages: history }, outputs: { choices: [{ message: { role: "assistant", content: "pong" } }] } })
    ])
    expect(trace.events.map((event) => event.content)).toEqual(["ping", "pong", "ping", "pong"])
  })
})

describe("langsmith importer: malformed input never throws or hangs", () => {
  it("skips and counts runs on a parent-id cycle, runs without ids and non-object runs", () => {
    const trace = readOne([
      { id: "root", name: "agent", run_type: "chain", inputs: { input: "go" }, end_time: 10 },
      { id: "a", name: "a", run_type: "tool", parent_run_id: "b", inputs: { input: "x" } },
      { id: "b", name: "b", run_type: "tool", parent_run_id: "a", inputs: { input: "y" } },
      { id: "self", name: "self", run_type: "tool", parent_run_id: "self", inputs: { input: "z" } },
      { name: "no id", run_type: "tool", parent_run_id: "root" },
      "not a run",
      42,
      null
    ])
    expect(trace.events.map((event) => event.content)).toEqual(["go"])
    expect(trace.skipped).toBe(3 + 1 + 3)
  })

  it("answers Left when every run sits on a cycle, or there are no runs", () => {
    expect(failure([{ id: "a", run_type: "chain", parent_run_id: "b" }, { id: "b", run_type: "chain", parent_run_id: "a" }])).toMatch(/cycle/)
    expect(failure({ post: [], patch: [] })).toMatch(/no runs/)
    expect(failure([])).toMatch(/no runs/)
    expect(failure("runs")).toMatch(/no runs/)
    expect(failure([{ id: "a", run_type: "prompt", inputs: {} }])).toMatch(/no messages/)
  })

  it("counts messages of unknown roles, and reads non-string contents", () => {
    const trace = readOne({
      id: "l",
      name: "llm",
      run_type: "llm",
      inputs: { messages: [{ role: "narrator", content: "?" }, { role: "user", content: 42 }, { role: "user", content: { nested: true } }, 7] },
      outputs: {}
    })
    expect(trace.events.map((event) => event.content)).toEqual(["42", "{\"nested\":true}"])
    expect(trace.skipped).toBe(2)
  })

  it("walks a tree 20 000 runs deep without recursion", () => {
    let tree: Rec = { id: "leaf", name: "leaf", run_type: "tool", inputs: { input: "deepest" }, outputs: { output: "ok" } }
    for (let i = 0; i < 20_000; i++) tree = { id: `n${i}`, name: `n${i}`, run_type: "chain", inputs: {}, child_runs: [tree] }
    const trace = readOne(tree)
    expect(trace.events.map((event) => event.content)).toEqual(["deepest", "ok"])
  })

  it("never throws on any JSON value", () => {
    neverThrowsOnJson(langSmithImporter)
  })
})

describe("langsmith importer: detect", () => {
  it("is false on the autogen and trajectory fixtures, and they do not claim its fixtures", () => {
    for (const [name, body] of [...loadFixtures("autogen"), ...loadFixtures("trajectory")]) expect(langSmithImporter.detect(body), name).toBe(false)
    for (const [name, body] of loadFixtures("langsmith")) {
      expect(autoGenImporter.detect(body), name).toBe(false)
      expect(trajectoryImporter.detect(body), name).toBe(false)
    }
  })

  it("is false on other shapes", () => {
    for (
      const body of [
        {},
        [],
        null,
        "text",
        { steps: [{ actor: "a", content: "x" }] },
        { agents: ["a"], messages: [{ from: "a", content: "x" }] },
        { messages: [{ role: "user", content: "x" }] },
        { resourceSpans: [] },
        [{ name: "span", trace_id: "t", span_id: "s", attributes: {} }]
      ]
    ) expect(langSmithImporter.detect(body), JSON.stringify(body)).toBe(false)
  })

  it("is true on a run, a run list and a batch payload", () => {
    expect(langSmithImporter.detect({ id: "r", run_type: "llm", inputs: {} })).toBe(true)
    expect(langSmithImporter.detect([{ id: "r", run_type: "tool", parent_run_id: "p" }])).toBe(true)
    expect(langSmithImporter.detect({ post: [], patch: [] })).toBe(true)
    expect(langSmithImporter.detect({ post: [{ id: "r", run_type: "chain" }] })).toBe(true)
  })
})
