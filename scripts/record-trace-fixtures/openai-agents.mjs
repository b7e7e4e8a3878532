// Records OpenAI Agents SDK trace exports for the `openai` importer's tests
// (test/fixtures/traces/openai/agents-sdk-*.json). Runs real `@openai/agents` runs (a triage agent
// handing off to a billing agent whose function tool fails once) against a loopback HTTP server
// that plays the OpenAI API: `POST /v1/responses` (the SDK's default model provider),
// `POST /v1/chat/completions` (the same run with `useResponses: false`, which writes generation
// spans) and `POST /v1/traces/ingest`, where the SDK's own `OpenAITracingExporter` (behind a
// `BatchTraceProcessor`) posts the trace and span JSON exactly as it would to api.openai.com.
// Nothing leaves the machine: the model's turns are scripted, the key is a dummy.
//
//   node scripts/record-trace-fixtures/openai-agents.mjs
import { createServer } from "node:http"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { z } from "zod"
import {
  Agent,
  BatchTraceProcessor,
  OpenAIProvider,
  OpenAITracingExporter,
  Runner,
  getGlobalTraceProvider,
  setTraceProcessors,
  tool
} from "@openai/agents"

const OUT = new URL("../../test/fixtures/traces/openai/", import.meta.url)
mkdirSync(OUT, { recursive: true })

const TRIAGE = "You are the triage agent of ACME support. Hand billing questions to the billing agent."
const BILLING = "You are the billing agent of ACME support. Look invoices up with lookup_invoice before answering."
const QUESTION = "Why was I charged twice on invoice INV-1042?"

// ---------------------------------------------------------------------------------------------
// The loopback OpenAI double.
let counter = 0
const nextId = (prefix) => `${prefix}_${String(++counter).padStart(4, "0")}${"0".repeat(20)}`
const usage = { input_tokens: 120, input_tokens_details: { cached_tokens: 0 }, output_tokens: 24, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 144 }
const ingested = []
let failNextModelCall = false

/** What the scripted model does next, from the agent's instructions and the conversation so far. */
const decide = (instructions, calls, tools) => {
  // calls: names of the function calls already answered, in order; tools: the offered tools' names
  if (instructions.startsWith(TRIAGE)) {
    const transfer = tools.find((name) => name.startsWith("transfer_to_")) ?? "transfer_to_billing_agent"
    if (calls.includes(transfer)) return { say: "You are with the billing agent now." }
    return { call: transfer, args: "{}" }
  }
  if (instructions.startsWith(BILLING)) {
    const lookups = calls.filter((name) => name === "lookup_invoice").length
    if (lookups === 0) return { call: "lookup_invoice", args: '{"invoice_id":"INV-1O42"}' }
    if (lookups === 1) return { call: "lookup_invoice", args: '{"invoice_id":"INV-1042"}' }
    return {
      say: "Invoice INV-1042 was charged twice because the card payment was retried after a timeout. The duplicate charge of $49.00 has been refunded and will appear within 5 business days."
    }
  }
  return { say: "Hello! How can I help?" }
}

const responsesReply = (body) => {
  const input = Array.isArray(body.input) ? body.input : []
  const names = new Map(input.filter((item) => item.type === "function_call").map((item) => [item.call_id, item.name]))
  const answered = input.filter((item) => item.type === "function_call_output").map((item) => names.get(item.call_id) ?? "")
  const tools = (body.tools ?? []).map((tool) => tool.name ?? "")
  const step = decide(typeof body.instructions === "string" ? body.instructions : "", answered, tools)
  const output = step.call
    ? [{ id: nextId("fc"), type: "function_call", status: "completed", arguments: step.args, call_id: nextId("call"), name: step.call }]
    : [{ id: nextId("msg"), type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", annotations: [], logprobs: [], text: step.say }] }]
  return {
    id: nextId("resp"), object: "response", created_at: Math.floor(Date.now() / 1000), status: "completed", background: false,
    error: null, incomplete_details: null, instructions: body.instructions ?? null, max_output_tokens: null, model: "gpt-4.1-mini-2025-04-14",
    output, parallel_tool_calls: true, previous_response_id: null, reasoning: { effort: null, summary: null }, store: true, temperature: 1,
    text: { format: { type: "text" } }, tool_choice: "auto", tools: body.tools ?? [], top_p: 1, truncation: "disabled", usage, user: null, metadata: {}
  }
}

const chatReply = (body) => {
  const messages = Array.isArray(body.messages) ? body.messages : []
  const names = new Map(messages.flatMap((message) => (message.tool_calls ?? []).map((call) => [call.id, call.function?.name])))
  const answered = messages.filter((message) => message.role === "tool").map((message) => names.get(message.tool_call_id) ?? "")
  const system = messages.find((message) => message.role === "system")
  const tools = (body.tools ?? []).map((tool) => tool.function?.name ?? "")
  const step = decide(typeof system?.content === "string" ? system.content : "", answered, tools)
  const message = step.call
    ? { role: "assistant", content: null, refusal: null, annotations: [], tool_calls: [{ id: nextId("call"), type: "function", function: { name: step.call, arguments: step.args } }] }
    : { role: "assistant", content: step.say, refusal: null, annotations: [] }
  return {
    id: nextId("chatcmpl"), object: "chat.completion", created: Math.floor(Date.now() / 1000), model: "gpt-4.1-mini-2025-04-14",
    choices: [{ index: 0, message, logprobs: null, finish_reason: step.call ? "tool_calls" : "stop" }],
    usage: { prompt_tokens: 120, completion_tokens: 24, total_tokens: 144, prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 } },
    service_tier: "default", system_fingerprint: "fp_loopback"
  }
}

const server = createServer((request, response) => {
  const chunks = []
  request.on("data", (chunk) => chunks.push(chunk))
  request.on("end", () => {
    const text = Buffer.concat(chunks).toString("utf8")
    const body = text.length > 0 ? JSON.parse(text) : {}
    const send = (status, payload) => {
      response.writeHead(status, { "content-type": "application/json", "x-request-id": nextId("req"), "x-should-retry": "false" })
      response.end(JSON.stringify(payload))
    }
    if (request.url === "/v1/traces/ingest") {
      ingested.push(body)
      return send(200, {})
    }
    if (failNextModelCall) {
      failNextModelCall = false
      return send(400, { error: { message: "The model `gpt-4.1-mini` does not support the requested tool_choice.", type: "invalid_request_error", param: "tool_choice", code: null } })
    }
    if (request.url === "/v1/responses") return send(200, responsesReply(body))
    if (request.url === "/v1/chat/completions") return send(200, chatReply(body))
    return send(404, { error: { message: `no route ${request.url}`, type: "invalid_request_error" } })
  })
})
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve))
const address = server.address()
const baseURL = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}/v1`

// ---------------------------------------------------------------------------------------------
// Tracing: the SDK's own exporter, pointed at the loopback ingest endpoint.
const exporter = new OpenAITracingExporter({ apiKey: "sk-loopback-dummy", endpoint: `${baseURL}/traces/ingest`, maxRetries: 1 })
setTraceProcessors([new BatchTraceProcessor(exporter, { scheduleDelay: 50 })])

const lookupInvoice = tool({
  name: "lookup_invoice",
  description: "Look an invoice up by its id.",
  parameters: z.object({ invoice_id: z.string() }),
  execute: async ({ invoice_id }) => {
    if (!/^INV-\d+$/.test(invoice_id)) throw new Error(`invoice ${invoice_id} not found`)
    return JSON.stringify({ invoice_id, amount: "49.00", currency: "USD", charges: 2, second_charge: "retry after gateway timeout", refunded: true })
  }
})
const billing = new Agent({ name: "Billing agent", instructions: BILLING, tools: [lookupInvoice], model: "gpt-4.1-mini" })
const triage = new Agent({ name: "Triage agent", instructions: TRIAGE, handoffs: [billing], model: "gpt-4.1-mini" })

const record = async (file, useResponses, runs, wrap) => {
  ingested.length = 0
  const runner = new Runner({
    modelProvider: new OpenAIProvider({ apiKey: "sk-loopback-dummy", baseURL, useResponses }),
    workflowName: "ACME support",
    groupId: "conversation-7"
  })
  for (const { agent, input, fail } of runs) {
    failNextModelCall = fail === true
    try {
      const result = await runner.run(agent, input)
      console.log(`${file}: final output: ${result.finalOutput}`)
    } catch (error) {
      console.log(`${file}: run failed: ${error instanceof Error ? error.message : String(error)}`)
    }
  }
  await getGlobalTraceProvider().forceFlush()
  const data = ingested.flatMap((batch) => batch.data ?? [])
  writeFileSync(new URL(file, OUT), JSON.stringify(wrap ? { data } : data, null, 2) + "\n")
  console.log(`${file}: ${data.length} exported objects in ${ingested.length} ingest batch(es)`)
}

await record("agents-sdk-responses.json", true, [{ agent: triage, input: QUESTION }], true)
await record("agents-sdk-chat-completions.json", false, [{ agent: triage, input: QUESTION }], true)
await record(
  "agents-sdk-two-runs.json",
  true,
  [
    { agent: billing, input: "Is invoice INV-1042 paid?" },
    { agent: triage, input: "Cancel my subscription.", fail: true }
  ],
  false
)

await getGlobalTraceProvider().shutdown()
server.close()
const version = (name) => JSON.parse(readFileSync(new URL(`../../node_modules/${name}/package.json`, import.meta.url), "utf8")).version
console.log(`@openai/agents ${version("@openai/agents")}, zod ${version("zod")}`)
