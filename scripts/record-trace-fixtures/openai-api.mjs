// Records OpenAI API request and response bodies (Chat Completions and Responses) for the `openai`
// importer's tests (test/fixtures/traces/openai/chat-*.json, responses-*.json). The real `openai`
// npm SDK sends the requests to a loopback HTTP server that plays the API with scripted answers in
// the API reference's shapes; the request bodies are the JSON the SDK put on the wire, the
// responses what the SDK received. Nothing leaves the machine; the key is a dummy.
//
//   node scripts/record-trace-fixtures/openai-api.mjs
import { createServer } from "node:http"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import OpenAI from "openai"

const OUT = new URL("../../test/fixtures/traces/openai/", import.meta.url)
mkdirSync(OUT, { recursive: true })

let counter = 0
const nextId = (prefix) => `${prefix}_${String(++counter).padStart(4, "0")}loopback${"0".repeat(12)}`
const created = 1767225600 // 2026-01-01T00:00:00Z, so the fixtures are stable
const exchanges = []
const replies = []

const server = createServer((request, response) => {
  const chunks = []
  request.on("data", (chunk) => chunks.push(chunk))
  request.on("end", () => {
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8"))
    const reply = replies.shift()
    if (reply === undefined) throw new Error(`no scripted reply for ${request.url}`)
    exchanges.push({ request: body, response: reply })
    response.writeHead(200, { "content-type": "application/json", "x-request-id": nextId("req") })
    response.end(JSON.stringify(reply))
  })
})
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve))
const address = server.address()
const client = new OpenAI({
  apiKey: "sk-loopback-dummy",
  baseURL: `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}/v1`,
  maxRetries: 0
})
const write = (file, value) => writeFileSync(new URL(file, OUT), JSON.stringify(value, null, 2) + "\n")

// ---------------------------------------------------------------------------------------------
// Chat Completions: a three-call tool loop, each request carrying the whole conversation.
const chatUsage = { prompt_tokens: 180, completion_tokens: 30, total_tokens: 210 }
const completion = (message, finish_reason) => ({
  id: nextId("chatcmpl"), object: "chat.completion", created, model: "gpt-4o-mini-2024-07-18",
  choices: [{ index: 0, message: { refusal: null, annotations: [], ...message }, logprobs: null, finish_reason }],
  usage: chatUsage, service_tier: "default", system_fingerprint: "fp_loopback"
})
const weatherTools = [
  { type: "function", function: { name: "get_weather", description: "Current weather for a city.", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false } } },
  { type: "function", function: { name: "get_forecast", description: "Tomorrow's forecast for a city.", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false } } }
]
const chatMessages = [
  { role: "system", content: "You are a concise travel assistant. Use the tools for weather facts." },
  { role: "user", content: "I fly to Paris tomorrow and then to Berlin. Do I need an umbrella?" }
]
exchanges.length = 0
replies.push(
  completion({ role: "assistant", content: null, tool_calls: [
    { id: "call_paris_weather", type: "function", function: { name: "get_weather", arguments: "{\"city\": \"Paris\"}" } },
    { id: "call_berlin_weather", type: "function", function: { name: "get_weather", arguments: "{\"city\": \"Berlin\"}" } }
  ] }, "tool_calls")
)
const first = await client.chat.completions.create({ model: "gpt-4o-mini", messages: chatMessages, tools: weatherTools, tool_choice: "auto" })
const firstMessage = first.choices[0].message
chatMessages.push({ role: "assistant", content: firstMessage.content, tool_calls: firstMessage.tool_calls })
chatMessages.push({ role: "tool", tool_call_id: "call_paris_weather", content: "{\"city\":\"Paris\",\"sky\":\"light rain\",\"temp_c\":11}" })
chatMessages.push({ role: "tool", tool_call_id: "call_berlin_weather", content: "Error: weather service timed out for Berlin" })
replies.push(
  completion({ role: "assistant", content: "Paris has light rain. The Berlin lookup failed, so I will check tomorrow's forecast instead.", tool_calls: [
    { id: "call_berlin_forecast", type: "function", function: { name: "get_forecast", arguments: "{\"city\": \"Berlin\"}" } }
  ] }, "tool_calls")
)
const second = await client.chat.completions.create({ model: "gpt-4o-mini", messages: chatMessages, tools: weatherTools })
const secondMessage = second.choices[0].message
chatMessages.push({ role: "assistant", content: secondMessage.content, tool_calls: secondMessage.tool_calls })
chatMessages.push({ role: "tool", tool_call_id: "call_berlin_forecast", content: "{\"city\":\"Berlin\",\"tomorrow\":\"showers in the afternoon\",\"rain_probability\":0.7}" })
replies.push(completion({ role: "assistant", content: "Yes, take an umbrella: it is raining in Paris now, and Berlin expects afternoon showers tomorrow (70% chance)." }, "stop"))
await client.chat.completions.create({ model: "gpt-4o-mini", messages: chatMessages, tools: weatherTools })
write("chat-tool-calls.json", exchanges.slice())
write("chat-completion.json", exchanges[0].response)

// A single request with the less common message shapes, answered with a refusal.
exchanges.length = 0
replies.push(completion({ role: "assistant", content: null, refusal: "I can't help with identifying people in photos." }, "stop"))
await client.chat.completions.create({
  model: "gpt-4o",
  messages: [
    { role: "developer", content: "Answer briefly. Never identify real people." },
    { role: "user", name: "dana", content: [
      { type: "text", text: "Who is the person in this photo?" },
      { type: "image_url", image_url: { url: "https://example.com/photo.jpg", detail: "low" } }
    ] },
    { role: "assistant", name: "photo_helper", content: [{ type: "text", text: "Let me look at the photo." }] },
    { role: "user", content: "Please, just the name." }
  ]
})
write("chat-request.json", { ...exchanges[0].request, response: exchanges[0].response })

// ---------------------------------------------------------------------------------------------
// Responses API: reasoning, a hosted web search and a function call, then the answer.
const responseObject = (output, extra = {}) => ({
  id: nextId("resp"), object: "response", created_at: created, status: "completed", background: false, error: null,
  incomplete_details: null, instructions: "You are a research assistant. Cite what you find.", max_output_tokens: null,
  model: "o4-mini-2025-04-16", output, parallel_tool_calls: true, previous_response_id: null,
  reasoning: { effort: "low", summary: "auto" }, store: true, temperature: 1, text: { format: { type: "text" } },
  tool_choice: "auto", tools: [], top_p: 1, truncation: "disabled",
  usage: { input_tokens: 310, input_tokens_details: { cached_tokens: 0 }, output_tokens: 96, output_tokens_details: { reasoning_tokens: 64 }, total_tokens: 406 },
  user: null, metadata: {}, ...extra
})
const responseTools = [
  { type: "web_search_preview" },
  { type: "function", name: "convert_currency", description: "Convert an amount between currencies.", strict: true, parameters: { type: "object", properties: { amount: { type: "number" }, from: { type: "string" }, to: { type: "string" } }, required: ["amount", "from", "to"], additionalProperties: false } }
]
exchanges.length = 0
const firstOutput = [
  { id: "rs_0001", type: "reasoning", summary: [{ type: "summary_text", text: "**Finding the price**\n\nI need the current list price of the Raspberry Pi 5 (8 GB), then a USD to EUR conversion." }] },
  { id: "ws_0002", type: "web_search_call", status: "completed", action: { type: "search", query: "Raspberry Pi 5 8GB price USD" } },
  { id: "fc_0003", type: "function_call", status: "completed", call_id: "call_convert_1", name: "convert_currency", arguments: "{\"amount\":80,\"from\":\"USD\",\"to\":\"EUR\"}" }
]
replies.push(responseObject(firstOutput, { tools: responseTools }))
const input = [{ role: "user", content: "How much is a Raspberry Pi 5 with 8 GB in euros?" }]
await client.responses.create({ model: "o4-mini", instructions: "You are a research assistant. Cite what you find.", input, tools: responseTools, reasoning: { effort: "low", summary: "auto" } })
input.push(...firstOutput, { type: "function_call_output", call_id: "call_convert_1", output: "{\"amount\":73.6,\"currency\":\"EUR\",\"rate\":0.92}" })
replies.push(responseObject([
  { id: "msg_0004", type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", annotations: [], logprobs: [], text: "The Raspberry Pi 5 (8 GB) lists at $80, which is about €73.60 at today's rate of 0.92." }] }
], { tools: responseTools }))
await client.responses.create({ model: "o4-mini", instructions: "You are a research assistant. Cite what you find.", input, tools: responseTools, reasoning: { effort: "low", summary: "auto" } })
write("responses-tool-calls.json", exchanges.slice())
write("responses-items.json", { input: exchanges[1].request.input, output: exchanges[1].response.output })

// A response that failed on the server.
exchanges.length = 0
replies.push(responseObject([
  { id: "rs_0005", type: "reasoning", summary: [{ type: "summary_text", text: "**Planning the summary**\n\nI should fetch the report first." }] }
], { status: "failed", error: { code: "server_error", message: "The server had an error while processing your request. Sorry about that!" } }))
await client.responses.create({ model: "o4-mini", input: "Summarize the Q3 report.", instructions: "You are a research assistant. Cite what you find." })
write("responses-failed.json", exchanges[0].response)

server.close()
const version = JSON.parse(readFileSync(new URL("../../node_modules/openai/package.json", import.meta.url), "utf8")).version
console.log(`openai ${version}: wrote chat-tool-calls, chat-completion, chat-request, responses-tool-calls, responses-items, responses-failed`)
