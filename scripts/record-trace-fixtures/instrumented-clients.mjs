// Records what two agent clients really export, for the `otel` importer's tests
// (test/fixtures/traces/otel/ai-sdk-7-*.json and openllmetry-*.json; provenance in its README):
//   ai-sdk       the Vercel AI SDK 7 (`ai`, `@ai-sdk/openai`, `@ai-sdk/otel`, `@opentelemetry/sdk-node`)
//   openllmetry  OpenLLMetry (`@traceloop/node-server-sdk`, `openai`)
// Their packages are not this repository's dependencies: install them in a directory of their own
// and name it. The client's agent (clients/<client>-agent.mjs) is copied there and run twice, with
// message content on and off, against two loopback servers: a Chat Completions API whose first
// answer asks for the tool `issue_refund` and whose next one (once a tool message is in the
// conversation) claims the refund was issued, and an OTLP/HTTP receiver that writes the request
// body it gets (one batch per run), pretty-printed, as the fixture. Nothing leaves the machine; the API key is a dummy.
//
//   node scripts/record-trace-fixtures/instrumented-clients.mjs ai-sdk <dir>
//   node scripts/record-trace-fixtures/instrumented-clients.mjs openllmetry <dir>
import { createServer } from "node:http"
import { spawn } from "node:child_process"
import { copyFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"

const CLIENTS = {
  "ai-sdk": {
    fixture: "ai-sdk-7-refund-agent",
    contentEnv: (on) => ({ CONTENT: on ? "1" : "0" }),
    env: (otlp) => ({
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_SERVICE_NAME: "refund-agent",
      OTEL_NODE_RESOURCE_DETECTORS: "env",
      OTEL_METRICS_EXPORTER: "none",
      OTEL_LOGS_EXPORTER: "none"
    })
  },
  openllmetry: {
    fixture: "openllmetry-refund-agent",
    contentEnv: (on) => ({ TRACELOOP_TRACE_CONTENT: on ? "true" : "false" }),
    env: (otlp) => ({ TRACELOOP_BASE_URL: otlp, OTEL_NODE_RESOURCE_DETECTORS: "env", OTEL_LOGS_EXPORTER: "none" })
  }
}
const [name, dir] = process.argv.slice(2)
const client = CLIENTS[name ?? ""]
if (client === undefined || dir === undefined) {
  process.stderr.write(`usage: instrumented-clients.mjs <${Object.keys(CLIENTS).join("|")}> <directory with the client's packages installed>\n`)
  process.exit(2)
}
const OUT = new URL("../../test/fixtures/traces/otel/", import.meta.url)
const agent = join(dir, `record-${name}-agent.mjs`)
copyFileSync(new URL(`clients/${name}-agent.mjs`, import.meta.url), agent)

const bodyOf = (request) => new Promise((resolve, reject) => {
  const chunks = []
  request.on("data", (chunk) => chunks.push(chunk))
  request.on("end", () => resolve(Buffer.concat(chunks)))
  request.on("error", reject)
})
const listen = async (handler) => {
  const server = createServer((request, response) => void handler(request, response))
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address()
  return { server, url: `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}` }
}

// The model: a tool call first, then (once the tool answered) a final answer claiming success.
let completions = 0
const completion = (message, finish_reason, model) => JSON.stringify({
  id: `chatcmpl_${++completions}`, object: "chat.completion", created: 1767225600 + completions, model: typeof model === "string" ? model : "gpt-4o-mini",
  choices: [{ index: 0, message: { role: "assistant", refusal: null, ...message }, logprobs: null, finish_reason }],
  usage: { prompt_tokens: 120, completion_tokens: 24, total_tokens: 144 }
})
const model = await listen(async (request, response) => {
  const body = JSON.parse((await bodyOf(request)).toString("utf8"))
  const toolAnswered = (body.messages ?? []).some((message) => message.role === "tool")
  response.writeHead(200, { "content-type": "application/json" })
  response.end(toolAnswered
    ? completion({ content: "Done: the refund of 42 EUR for order A-1001 has been issued." }, "stop", body.model)
    : completion({ content: null, tool_calls: [{ id: `call_${completions + 1}`, type: "function", function: { name: "issue_refund", arguments: "{\"order_id\":\"A-1001\",\"amount\":42}" } }] }, "tool_calls", body.model))
})

// The receiver: each /v1/traces body as it came.
let bodies = []
const receiver = await listen(async (request, response) => {
  const bytes = await bodyOf(request)
  if (request.url === "/v1/traces" && String(request.headers["content-type"]).includes("json")) bodies.push(bytes.toString("utf8"))
  else process.stderr.write(`receiver: ${request.method} ${request.url} ${request.headers["content-type"]} not kept\n`)
  response.writeHead(200, { "content-type": "application/json" })
  response.end("{}")
})

const run = (content) => new Promise((resolve, reject) => {
  const env = { ...process.env, ...client.env(receiver.url), ...client.contentEnv(content), MODEL_URL: model.url }
  const child = spawn(process.execPath, [agent], { cwd: dir, env, stdio: ["ignore", "inherit", "inherit"] })
  child.on("error", reject)
  child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`${name} agent exited with ${code}`))))
})
for (const content of [true, false]) {
  bodies = []
  await run(content)
  if (bodies.length !== 1) throw new Error(`expected one OTLP/JSON request, got ${bodies.length}`)
  const file = `${client.fixture}${content ? "" : "-no-content"}.otlp-traces.json`
  writeFileSync(new URL(file, OUT), JSON.stringify(JSON.parse(bodies[0]), null, 2) + "\n")
  process.stderr.write(`wrote ${file}\n`)
}
model.server.close()
receiver.server.close()
