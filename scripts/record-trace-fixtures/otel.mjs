// Records OpenTelemetry traces (and log records) of an agent-like OpenAI exchange for the `otel`
// and `openinference` importers' tests (test/fixtures/traces/otel/*.json and
// test/fixtures/traces/openinference/*.json).
//
// The real `openai` npm SDK talks to a loopback HTTP server that plays the Chat Completions and
// Responses APIs with scripted answers; the SDK runs through the real instrumentations with
// message-content capture on:
//   - @opentelemetry/instrumentation-openai (OTel GenAI semantic conventions: chat spans, message
//     log records), enabled the documented way (constructing it registers its require hook, then
//     `openai` is required);
//   - @arizeai/openinference-instrumentation-openai (OpenInference attributes), patched with its
//     documented `manuallyInstrument(module)`; the agent and tool spans around the calls come from
//     @arizeai/openinference-core's `traceAgent` / `traceTool`.
// The application's own `invoke_agent` / `execute_tool` spans of the OTel run are written by this
// script with the tracer, following the GenAI agent-span conventions, as an application would.
// Spans and log records go to in-memory exporters and are written as OTLP/JSON with
// @opentelemetry/otlp-transformer's JsonTraceSerializer / JsonLogsSerializer (exactly the bodies
// the OTLP/HTTP JSON exporters send), and, for OpenInference, also as a list of ReadableSpan-like
// JSON objects. Trace and span ids come from a counting id generator so re-runs give the same ids;
// timestamps are the run's. Nothing leaves the machine; the API key is a dummy.
//
//   node scripts/record-trace-fixtures/otel.mjs              the content-capturing runs (1, 2)
//   node scripts/record-trace-fixtures/otel.mjs no-content   run 3 alone: the instrumentation's
//     default (no message content), as most deployments run it (DECISIONS §18)
import { createServer } from "node:http"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { context, metrics, SpanKind, SpanStatusCode } from "@opentelemetry/api"
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks"
import { resourceFromAttributes } from "@opentelemetry/resources"
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { InMemoryLogRecordExporter, LoggerProvider, SimpleLogRecordProcessor } from "@opentelemetry/sdk-logs"
import { JsonLogsSerializer, JsonTraceSerializer } from "@opentelemetry/otlp-transformer"
import { OpenAIInstrumentation as OtelOpenAIInstrumentation } from "@opentelemetry/instrumentation-openai"
import { OpenAIInstrumentation as OpenInferenceOpenAIInstrumentation } from "@arizeai/openinference-instrumentation-openai"
import { traceAgent, traceTool } from "@arizeai/openinference-core"

const require = createRequire(import.meta.url)
const OTEL_OUT = new URL("../../test/fixtures/traces/otel/", import.meta.url)
const OI_OUT = new URL("../../test/fixtures/traces/openinference/", import.meta.url)
mkdirSync(OTEL_OUT, { recursive: true })
mkdirSync(OI_OUT, { recursive: true })
const write = (dir, file, value) => writeFileSync(new URL(file, dir), JSON.stringify(value, null, 2) + "\n")

context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())

// ---------------------------------------------------------------------------------------------
// Deterministic ids: a counter per provider, hex of the right widths.
const countingIds = (seed) => {
  let traces = 0
  let spans = 0
  return {
    generateTraceId: () => `${seed}${(++traces).toString(16).padStart(32 - seed.length, "0")}`,
    generateSpanId: () => `${seed}${(++spans).toString(16).padStart(16 - seed.length, "0")}`
  }
}
const telemetry = (seed, serviceName) => {
  const spanExporter = new InMemorySpanExporter()
  const logExporter = new InMemoryLogRecordExporter()
  const resource = resourceFromAttributes({ "service.name": serviceName })
  const tracerProvider = new BasicTracerProvider({
    resource,
    idGenerator: countingIds(seed),
    spanProcessors: [new SimpleSpanProcessor(spanExporter)]
  })
  const loggerProvider = new LoggerProvider({ resource, processors: [new SimpleLogRecordProcessor({ exporter: logExporter })] })
  return { spanExporter, logExporter, tracerProvider, loggerProvider }
}

// ---------------------------------------------------------------------------------------------
// The loopback API: scripted replies, in order.
let counter = 0
const nextId = (prefix) => `${prefix}_${String(++counter).padStart(4, "0")}loopback`
const created = 1767225600
const replies = []
const server = createServer((request, response) => {
  const chunks = []
  request.on("data", (chunk) => chunks.push(chunk))
  request.on("end", () => {
    JSON.parse(Buffer.concat(chunks).toString("utf8"))
    const reply = replies.shift()
    if (reply === undefined) throw new Error(`no scripted reply for ${request.url}`)
    response.writeHead(reply.status ?? 200, { "content-type": "application/json", "x-request-id": nextId("req") })
    response.end(JSON.stringify(reply.body))
  })
})
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve))
const address = server.address()
const baseURL = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}/v1`

const completion = (message, finish_reason) => ({
  body: {
    id: nextId("chatcmpl"), object: "chat.completion", created, model: "gpt-4o-mini-2024-07-18",
    choices: [{ index: 0, message: { role: "assistant", refusal: null, annotations: [], ...message }, logprobs: null, finish_reason }],
    usage: { prompt_tokens: 120, completion_tokens: 24, total_tokens: 144 }, system_fingerprint: "fp_loopback"
  }
})
const notFound = {
  status: 404,
  body: { error: { message: "The model `gpt-4o-mini-typo` does not exist or you do not have access to it.", type: "invalid_request_error", param: null, code: "model_not_found" } }
}
const SYSTEM = "You are a weather assistant. Use get_weather for current conditions; answer in one sentence."
const QUESTION = "What's the weather in Paris and in London? Should I take an umbrella?"
const WEATHER = {
  Paris: "{\"city\":\"Paris\",\"temperature_c\":18,\"conditions\":\"sunny\"}",
  London: "{\"city\":\"London\",\"temperature_c\":11,\"conditions\":\"light rain\"}"
}
const ANSWER = "Paris is sunny at 18°C, London has light rain at 11°C: take an umbrella for London."
const tools = [{
  type: "function",
  function: {
    name: "get_weather", description: "Current weather for a city.",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false }
  }
}]
const scriptChat = () => replies.push(
  completion({ content: null, tool_calls: [{ id: "call_paris", type: "function", function: { name: "get_weather", arguments: "{\"city\":\"Paris\"}" } }] }, "tool_calls"),
  completion({ content: null, tool_calls: [{ id: "call_london", type: "function", function: { name: "get_weather", arguments: "{\"city\":\"London\"}" } }] }, "tool_calls"),
  completion({ content: ANSWER }, "stop"),
  notFound
)
const getWeather = (city) => WEATHER[city] ?? "{\"error\":\"unknown city\"}"

/**
 * The agent loop: three Chat Completions calls, each carrying the whole conversation so far, with a
 * tool run between them; `runTool` wraps the tool call in the caller's tool span.
 */
const chatAgent = async (client, question, runTool) => {
  const messages = [{ role: "system", content: SYSTEM }, { role: "user", content: question }]
  for (;;) {
    const reply = await client.chat.completions.create({ model: "gpt-4o-mini", messages, tools, temperature: 0 })
    const message = reply.choices[0].message
    messages.push({ role: "assistant", content: message.content, tool_calls: message.tool_calls })
    if (message.tool_calls === undefined || message.tool_calls.length === 0) return message.content
    for (const call of message.tool_calls) {
      const result = await runTool(call)
      messages.push({ role: "tool", tool_call_id: call.id, content: result })
    }
  }
}
const failingCall = async (client) => {
  try {
    await client.chat.completions.create({ model: "gpt-4o-mini-typo", messages: [{ role: "user", content: "Say hello." }] })
  } catch (error) {
    return String(error)
  }
  throw new Error("the failing call did not fail")
}

const otlpTraces = (spans) => JSON.parse(Buffer.from(JsonTraceSerializer.serializeRequest(spans)).toString("utf8"))
const otlpLogs = (logs) => JSON.parse(Buffer.from(JsonLogsSerializer.serializeRequest(logs)).toString("utf8"))

// ---------------------------------------------------------------------------------------------
// 1. OpenTelemetry GenAI: @opentelemetry/instrumentation-openai.
const only = process.argv[2]
if (only === undefined) {
  const otel = telemetry("0e1", "weather-agent")
  const instrumentation = new OtelOpenAIInstrumentation({ captureMessageContent: true })
  instrumentation.setTracerProvider(otel.tracerProvider)
  instrumentation.setLoggerProvider(otel.loggerProvider)
  // The instrumentation creates its metric instruments when given a meter provider (as
  // registerInstrumentations does); the no-op global one is enough here.
  instrumentation.setMeterProvider(metrics.getMeterProvider())
  const { OpenAI } = require("openai")
  const client = new OpenAI({ apiKey: "sk-loopback-dummy", baseURL, maxRetries: 0 })
  const tracer = otel.tracerProvider.getTracer("weather-agent", "1.0.0")
  const userMessages = [{ role: "user", parts: [{ type: "text", content: QUESTION }] }]

  // Chat Completions: an invoke_agent span around the loop, execute_tool spans for the tool runs.
  scriptChat()
  await tracer.startActiveSpan(
    "invoke_agent weather_agent",
    {
      kind: SpanKind.INTERNAL,
      attributes: {
        "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "weather_agent", "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "gpt-4o-mini",
        "gen_ai.system_instructions": JSON.stringify([{ type: "text", content: SYSTEM }]),
        "gen_ai.input.messages": JSON.stringify(userMessages)
      }
    },
    async (agentSpan) => {
      const answer = await chatAgent(client, QUESTION, (call) =>
        tracer.startActiveSpan(`execute_tool ${call.function.name}`, {
          attributes: {
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": call.function.name, "gen_ai.tool.type": "function",
            "gen_ai.tool.call.id": call.id, "gen_ai.tool.call.arguments": call.function.arguments
          }
        }, (toolSpan) => {
          const result = getWeather(JSON.parse(call.function.arguments).city)
          toolSpan.setAttribute("gen_ai.tool.call.result", result)
          toolSpan.end()
          return result
        }))
      agentSpan.setAttribute("gen_ai.output.messages", JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: answer }], finish_reason: "stop" }]))
      agentSpan.setStatus({ code: SpanStatusCode.OK })
      agentSpan.end()
    }
  )
  // A call that fails (404 model_not_found), in a trace of its own.
  await failingCall(client)
  await otel.loggerProvider.forceFlush()
  const chatSpans = otel.spanExporter.getFinishedSpans()
  const chatLogs = otel.logExporter.getFinishedLogRecords()
  const traces = otlpTraces(chatSpans)
  const logs = otlpLogs(chatLogs)
  write(OTEL_OUT, "openai-chat-agent.otlp-traces.json", traces)
  write(OTEL_OUT, "openai-chat-agent.otlp-logs.json", logs)
  write(OTEL_OUT, "openai-chat-agent.otlp.json", { resourceSpans: traces.resourceSpans, resourceLogs: logs.resourceLogs })
  otel.spanExporter.reset()
  otel.logExporter.reset()

  // Responses API: two calls (function call, then the answer), operation-details log records.
  replies.push(
    {
      body: {
        id: nextId("resp"), object: "response", created_at: created, status: "completed", model: "gpt-4o-mini-2024-07-18",
        output: [{ type: "function_call", id: nextId("fc"), call_id: "call_rome", name: "get_weather", arguments: "{\"city\":\"Rome\"}", status: "completed" }],
        usage: { input_tokens: 60, output_tokens: 18, total_tokens: 78 }
      }
    },
    {
      body: {
        id: nextId("resp"), object: "response", created_at: created, status: "completed", model: "gpt-4o-mini-2024-07-18",
        output: [{
          type: "message", id: nextId("msg"), role: "assistant", status: "completed",
          content: [{ type: "output_text", text: "Rome is warm and clear at 24°C.", annotations: [] }]
        }],
        usage: { input_tokens: 90, output_tokens: 12, total_tokens: 102 }
      }
    }
  )
  await tracer.startActiveSpan(
    "invoke_agent weather_agent",
    { attributes: { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "weather_agent", "gen_ai.provider.name": "openai" } },
    async (agentSpan) => {
      const input = [{ role: "user", content: "How is the weather in Rome?" }]
      const first = await client.responses.create({ model: "gpt-4o-mini", instructions: SYSTEM, input, tools: [{ type: "function", name: "get_weather", parameters: tools[0].function.parameters, strict: true }] })
      const call = first.output[0]
      const result = await tracer.startActiveSpan(`execute_tool ${call.name}`, {
        attributes: { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": call.name, "gen_ai.tool.call.id": call.call_id, "gen_ai.tool.call.arguments": call.arguments }
      }, (toolSpan) => {
        const value = "{\"city\":\"Rome\",\"temperature_c\":24,\"conditions\":\"clear\"}"
        toolSpan.setAttribute("gen_ai.tool.call.result", value)
        toolSpan.end()
        return value
      })
      await client.responses.create({
        model: "gpt-4o-mini", instructions: SYSTEM,
        input: [...input, { type: "function_call", call_id: call.call_id, name: call.name, arguments: call.arguments }, { type: "function_call_output", call_id: call.call_id, output: result }]
      })
      agentSpan.setStatus({ code: SpanStatusCode.OK })
      agentSpan.end()
    }
  )
  await otel.loggerProvider.forceFlush()
  const responseTraces = otlpTraces(otel.spanExporter.getFinishedSpans())
  const responseLogs = otlpLogs(otel.logExporter.getFinishedLogRecords())
  write(OTEL_OUT, "openai-responses-agent.otlp.json", { resourceSpans: responseTraces.resourceSpans, resourceLogs: responseLogs.resourceLogs })
  instrumentation.disable()
}

// ---------------------------------------------------------------------------------------------
// 2. OpenInference: @arizeai/openinference-instrumentation-openai, agent/tool spans from
//    @arizeai/openinference-core.
if (only === undefined) {
  const oi = telemetry("a11", "weather-agent")
  const instrumentation = new OpenInferenceOpenAIInstrumentation({ tracerProvider: oi.tracerProvider })
  const openaiModule = require("openai")
  instrumentation.manuallyInstrument(openaiModule)
  const client = new openaiModule.OpenAI({ apiKey: "sk-loopback-dummy", baseURL, maxRetries: 0 })
  const tracer = oi.tracerProvider.getTracer("weather-agent", "1.0.0")
  const getWeatherTool = traceTool((args) => getWeather(args.city), { name: "get_weather", tracer, attributes: { "tool.name": "get_weather" } })
  const agent = traceAgent((question) => chatAgent(client, question, (call) => getWeatherTool(JSON.parse(call.function.arguments))), {
    name: "weather_agent", tracer, attributes: { "agent.name": "weather_agent" }
  })
  scriptChat()
  await agent(QUESTION)
  // The failing call, in an agent span of its own: this instrumentation version only records
  // errors thrown synchronously, so the rejected call's LLM span is never ended (nor exported);
  // the agent span records the exception and the ERROR status.
  const failingAgent = traceAgent((question) => client.chat.completions.create({ model: "gpt-4o-mini-typo", messages: [{ role: "user", content: question }] }), {
    name: "weather_agent", tracer, attributes: { "agent.name": "weather_agent" }
  })
  await failingAgent("Say hello.").then(() => { throw new Error("the failing call did not fail") }, () => undefined)
  const spans = oi.spanExporter.getFinishedSpans()
  write(OI_OUT, "openai-chat-agent.otlp-traces.json", otlpTraces(spans))
  write(OI_OUT, "openai-chat-agent.spans.json", spans.map((span) => ({
    name: span.name,
    kind: span.kind,
    spanContext: { traceId: span.spanContext().traceId, spanId: span.spanContext().spanId },
    ...(span.parentSpanContext === undefined ? {} : { parentSpanContext: { traceId: span.parentSpanContext.traceId, spanId: span.parentSpanContext.spanId } }),
    startTime: span.startTime,
    endTime: span.endTime,
    status: span.status,
    attributes: span.attributes,
    events: span.events.map((event) => ({ name: event.name, time: event.time, attributes: event.attributes })),
    resource: { attributes: span.resource.attributes },
    instrumentationScope: span.instrumentationScope
  })))
  instrumentation.disable()
}

// ---------------------------------------------------------------------------------------------
// 3. Content off: @opentelemetry/instrumentation-openai with its default configuration (no message
// content on spans or log records), and the application's agent and tool spans with names and
// ids only, as the GenAI conventions record them when content capture is off.
if (only === "no-content") {
  const otel = telemetry("0e3", "weather-agent")
  const instrumentation = new OtelOpenAIInstrumentation()
  instrumentation.setTracerProvider(otel.tracerProvider)
  instrumentation.setLoggerProvider(otel.loggerProvider)
  instrumentation.setMeterProvider(metrics.getMeterProvider())
  const { OpenAI } = require("openai")
  const client = new OpenAI({ apiKey: "sk-loopback-dummy", baseURL, maxRetries: 0 })
  const tracer = otel.tracerProvider.getTracer("weather-agent", "1.0.0")
  scriptChat()
  await tracer.startActiveSpan(
    "invoke_agent weather_agent",
    { kind: SpanKind.INTERNAL, attributes: { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "weather_agent", "gen_ai.provider.name": "openai", "gen_ai.request.model": "gpt-4o-mini" } },
    async (agentSpan) => {
      await chatAgent(client, QUESTION, (call) =>
        tracer.startActiveSpan(`execute_tool ${call.function.name}`, {
          attributes: { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": call.function.name, "gen_ai.tool.type": "function", "gen_ai.tool.call.id": call.id }
        }, (toolSpan) => {
          const result = getWeather(JSON.parse(call.function.arguments).city)
          toolSpan.end()
          return result
        }))
      agentSpan.setStatus({ code: SpanStatusCode.OK })
      agentSpan.end()
    }
  )
  await otel.loggerProvider.forceFlush()
  const traces = otlpTraces(otel.spanExporter.getFinishedSpans())
  const logs = otlpLogs(otel.logExporter.getFinishedLogRecords())
  write(OTEL_OUT, "openai-chat-agent-no-content.otlp.json", { resourceSpans: traces.resourceSpans, resourceLogs: logs.resourceLogs ?? [] })
  instrumentation.disable()
}

server.close()
const versions = ["openai", "@opentelemetry/instrumentation-openai", "@arizeai/openinference-instrumentation-openai", "@arizeai/openinference-core", "@opentelemetry/sdk-trace-base", "@opentelemetry/sdk-logs", "@opentelemetry/otlp-transformer"]
  .map((name) => `${name}@${JSON.parse(readFileSync(new URL(`../../node_modules/${name}/package.json`, import.meta.url), "utf8")).version}`)
process.stdout.write(`recorded with ${versions.join(", ")}\n`)
