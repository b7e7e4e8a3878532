// Records LangSmith trace fixtures from the real `langsmith` JS SDK (devDependency), so the
// langsmith importer (src/Traces/Formats/LangSmith.ts) is tested against what the SDK sends.
//
// A loopback HTTP server stands in for the LangSmith API: it answers `GET /info` with
// `batch_ingest_config.use_multipart_endpoint: false`, so the SDK sends its JSON batch payload
// `POST /runs/batch` `{post, patch}` (multipart bodies, should the SDK send them anyway, are
// decoded back into `{post, patch}`). Nothing leaves the machine; the API key is a dummy.
//
// Scenarios (the model and tool calls are local functions returning fixed values; the SDK
// records them as it would real ones):
//   1. `traceable`: a `research_agent` chain calls an llm run (OpenAI-style messages), a tool
//      run, a second llm run carrying the whole history, a tool that throws, and a final llm run;
//      the chain catches the tool error and answers. -> traceable-batch.json (every batch body as
//      sent, merged only when the SDK split the trace over several requests: see README).
//   2. `RunTree`: a `support_graph` chain (LangGraph-style node `agent` under it) with LangChain
//      serialized messages as llm inputs, `outputs.generations`, a tool run, and a root that
//      ends with an error. -> runtree.json (`RunTree.toJSON()`, a nested run tree with
//      child_runs), and runtree-batch-1.json / runtree-batch-2.json: the root posted first and
//      flushed, then the rest, so the second body carries a real `patch` of the root.
//
// Run: node scripts/record-trace-fixtures/langsmith.mjs
import { createServer } from "node:http"
import { mkdirSync, writeFileSync, readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { Client, RunTree } from "langsmith"
import { traceable } from "langsmith/traceable"

const here = dirname(fileURLToPath(import.meta.url))
const outDir = join(here, "..", "..", "test", "fixtures", "traces", "langsmith")
mkdirSync(outDir, { recursive: true })

process.env.LANGSMITH_TRACING = "true"
process.env.LANGSMITH_PROJECT = "fixture-recording"

/** Every body the SDK sent, in order: `{path, body}` with body parsed. */
const captured = []

const decodeMultipart = (raw, contentType) => {
  const match = /boundary=([^;]+)/.exec(contentType ?? "")
  if (match === null) return { post: [], patch: [] }
  const boundary = `--${match[1]}`
  const runs = { post: new Map(), patch: new Map() }
  for (const chunk of raw.toString("utf8").split(boundary)) {
    const headerEnd = chunk.indexOf("\r\n\r\n")
    if (headerEnd < 0) continue
    const headers = chunk.slice(0, headerEnd)
    const name = /name="([^"]+)"/.exec(headers)?.[1]
    if (name === undefined) continue
    const data = chunk.slice(headerEnd + 4).replace(/\r\n$/, "")
    const [method, id, field] = name.split(".")
    if (method !== "post" && method !== "patch") continue
    const run = runs[method].get(id) ?? {}
    if (field === undefined) Object.assign(run, JSON.parse(data))
    else run[field] = JSON.parse(data)
    runs[method].set(id, run)
  }
  return { post: [...runs.post.values()], patch: [...runs.patch.values()], decoded_from: "multipart" }
}

const server = createServer((req, res) => {
  const chunks = []
  req.on("data", (c) => chunks.push(c))
  req.on("end", () => {
    const raw = Buffer.concat(chunks)
    const path = (req.url ?? "").split("?")[0]
    if (req.method === "GET" && path === "/info") {
      res.writeHead(200, { "content-type": "application/json" })
      res.end(JSON.stringify({ version: "0.0.0-loopback", batch_ingest_config: { use_multipart_endpoint: false } }))
      return
    }
    if (path === "/runs/batch") captured.push({ path, body: JSON.parse(raw.toString("utf8")) })
    else if (path === "/runs/multipart") captured.push({ path, body: decodeMultipart(raw, req.headers["content-type"]) })
    else if (raw.length > 0) captured.push({ path, body: JSON.parse(raw.toString("utf8")) })
    res.writeHead(200, { "content-type": "application/json" })
    res.end("{}")
  })
})
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve))
const address = server.address()
const apiUrl = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`

const makeClient = () => new Client({ apiUrl, apiKey: "lsv2-dummy-loopback-key", autoBatchTracing: true })

// ---------------------------------------------------------------- scenario 1: traceable
{
  const client = makeClient()
  const system = { role: "system", content: "You are a research assistant. Use the tools to answer." }
  const user = { role: "user", content: "Which release introduced the retry budget setting?" }
  const call1 = { id: "call_search_1", type: "function", function: { name: "search_docs", arguments: "{\"query\":\"retry budget\"}" } }
  const call2 = { id: "call_fetch_2", type: "function", function: { name: "fetch_page", arguments: "{\"url\":\"https://docs.example.test/changelog\"}" } }

  const completion = (message) => ({
    id: "chatcmpl-fixture",
    object: "chat.completion",
    model: "gpt-4o-mini",
    choices: [{ index: 0, message, finish_reason: message.tool_calls ? "tool_calls" : "stop" }]
  })

  const chatModel = traceable(async ({ messages }) => {
    const last = messages.at(-1)
    if (last.role === "user") return completion({ role: "assistant", content: null, tool_calls: [call1] })
    if (last.tool_call_id === "call_search_1") {
      return completion({ role: "assistant", content: "The search points at the changelog; let me open it.", tool_calls: [call2] })
    }
    return completion({ role: "assistant", content: "The retry budget setting was introduced in release 2.4, according to the search results." })
  }, { name: "ChatOpenAI", run_type: "llm", client, metadata: { ls_provider: "openai", ls_model_name: "gpt-4o-mini" } })

  const searchDocs = traceable(async ({ query }) => ({ results: [`Release 2.4 notes: added the retry budget setting (${query}).`] }), {
    name: "search_docs",
    run_type: "tool",
    client
  })
  const fetchPage = traceable(async ({ url }) => {
    throw new Error(`fetch_page failed: 503 Service Unavailable for ${url}`)
  }, { name: "fetch_page", run_type: "tool", client })

  const agent = traceable(async ({ question }) => {
    const history = [system, { ...user, content: question }]
    const first = await chatModel({ messages: [...history] })
    history.push(first.choices[0].message)
    const found = await searchDocs(JSON.parse(call1.function.arguments))
    history.push({ role: "tool", tool_call_id: "call_search_1", content: JSON.stringify(found) })
    const second = await chatModel({ messages: [...history] })
    history.push(second.choices[0].message)
    let page
    try {
      page = await fetchPage(JSON.parse(call2.function.arguments))
    } catch (error) {
      page = `Error: ${error.message}`
    }
    history.push({ role: "tool", tool_call_id: "call_fetch_2", content: String(page) })
    const third = await chatModel({ messages: [...history] })
    return { answer: third.choices[0].message.content }
  }, { name: "research_agent", run_type: "chain", client })

  await agent({ question: user.content })
  await client.awaitPendingTraceBatches()
  const bodies = captured.splice(0)
  if (bodies.length === 1) {
    writeFileSync(join(outDir, "traceable-batch.json"), JSON.stringify(bodies[0].body, null, 2) + "\n")
  } else {
    bodies.forEach((b, i) => writeFileSync(join(outDir, `traceable-batch-${i + 1}.json`), JSON.stringify(b.body, null, 2) + "\n"))
  }
  console.log(`traceable: ${bodies.length} request(s): ${bodies.map((b) => b.path).join(", ")}`)
}

// ---------------------------------------------------------------- scenario 2: RunTree
{
  const client = makeClient()
  const lc = (kind, kwargs) => ({ lc: 1, type: "constructor", id: ["langchain", "schema", "messages", kind], kwargs })
  const systemMsg = lc("SystemMessage", { content: "You are the support agent for an online bookshop.", type: "system" })
  const humanMsg = lc("HumanMessage", { content: "Where is my order 8812? It was due on Monday.", type: "human" })
  const aiCall = lc("AIMessage", {
    content: "",
    type: "ai",
    tool_calls: [{ name: "lookup_order", args: { order_id: "8812" }, id: "call_lookup_1", type: "tool_call" }]
  })
  const toolMsg = lc("ToolMessage", { content: "{\"status\":\"held at customs\"}", tool_call_id: "call_lookup_1", name: "lookup_order", type: "tool" })

  const root = new RunTree({
    name: "support_graph",
    run_type: "chain",
    inputs: { messages: [humanMsg] },
    client,
    tracingEnabled: true
  })
  const node = root.createChild({ name: "agent", run_type: "chain", inputs: { messages: [humanMsg] } })
  const llm1 = node.createChild({ name: "ChatOpenAI", run_type: "llm", inputs: { messages: [[systemMsg, humanMsg]] } })
  await llm1.end({
    generations: [[{ text: "", type: "ChatGeneration", message: aiCall }]],
    llm_output: { model_name: "gpt-4o-mini" }
  })
  const tool = node.createChild({ name: "lookup_order", run_type: "tool", inputs: { input: "{\"order_id\": \"8812\"}" } })
  await tool.end({ output: "{\"status\":\"held at customs\"}" })
  const llm2 = node.createChild({ name: "ChatOpenAI", run_type: "llm", inputs: { messages: [[systemMsg, humanMsg, aiCall, toolMsg]] } })
  await llm2.end(undefined, "RateLimitError: 429 Too Many Requests")
  await node.end(undefined, "RateLimitError: 429 Too Many Requests")
  await root.end(undefined, "GraphRecursionError: the support_graph run stopped after the agent node failed")

  // The tree as the SDK serializes it (postRun/patchRun clear child_runs, so serialize first).
  writeFileSync(join(outDir, "runtree.json"), JSON.stringify(root.toJSON(), null, 2) + "\n")

  // Then send it as a client would: the root posted and flushed first, the rest afterwards.
  const rootEnd = { end_time: root.end_time, error: root.error }
  root.end_time = undefined
  root.error = undefined
  await root.postRun()
  await client.awaitPendingTraceBatches()
  for (const run of [node, llm1, tool, llm2]) await run.postRun()
  root.end_time = rootEnd.end_time
  root.error = rootEnd.error
  await root.patchRun()
  await client.awaitPendingTraceBatches()
  const bodies = captured.splice(0)
  bodies.forEach((b, i) => writeFileSync(join(outDir, `runtree-batch-${i + 1}.json`), JSON.stringify(b.body, null, 2) + "\n"))
  console.log(`RunTree: ${bodies.length} request(s): ${bodies.map((b) => b.path).join(", ")}`)
}

server.close()
const version = JSON.parse(readFileSync(join(here, "..", "..", "node_modules", "langsmith", "package.json"), "utf8")).version
console.log(`langsmith ${version}, node ${process.version}; wrote ${outDir}`)
