// A small instrumented agent that ships its telemetry over OTLP/HTTP with the REAL OpenTelemetry JS
// exporters, configured the way users configure them: through the standard environment variables.
// Driven by test/support/OtlpAgent.ts for the OTLP receiver's tests (test/otlp/*.test.ts).
//
// What it exercises, as in scripts/record-trace-fixtures/otel.mjs:
//   - the real `openai` SDK against a loopback Chat Completions double (scripted replies), through
//     @opentelemetry/instrumentation-openai (chat spans; gen_ai.* log records via the Logs API when
//     message content capture is on);
//   - the application's own `invoke_agent` / `execute_tool` spans (GenAI agent-span conventions);
//   - @opentelemetry/exporter-{trace,logs}-otlp-proto (OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf, the
//     default) or -otlp-http (http/json), constructed WITHOUT url/headers so they read
//     OTEL_EXPORTER_OTLP_ENDPOINT (+ /v1/traces, /v1/logs), OTEL_EXPORTER_OTLP_HEADERS,
//     OTEL_EXPORTER_OTLP_TIMEOUT (also the retry deadline: otlp-exporter-base's retrying transport
//     retries 429/502/503/504 and network errors, honouring Retry-After, while time is left) and
//     OTEL_EXPORTER_OTLP_COMPRESSION themselves; BatchSpanProcessor / BatchLogRecordProcessor.
//
// Its own options (env):
//   AGENT_SCENARIO        ok (default) | failing (a tool throws: tool and agent spans end in ERROR)
//   AGENT_TRACES          independent agent runs, one trace each (default 1)
//   AGENT_BATCH_SIZE      maxExportBatchSize of both batch processors (default 512)
//   AGENT_SCHEDULE_DELAY  their scheduledDelayMillis (default 30000: batches cut by size and the
//                         final forceFlush alone, so request counts do not vary with machine speed)
//   AGENT_SECOND_ENDPOINT base URL of a second receiver: batches alternate between the two
//   AGENT_SECRET          put into the user's question (for redaction checks)
//   AGENT_CONTEXT_SPANS=1 the run inside an HTTP SERVER span, database CLIENT spans in the tools
//   AGENT_CONTENT=0       message content capture off (the instrumentation's default)
//   AGENT_VERSION, AGENT_ENVIRONMENT  service.version, deployment.environment.name
//
// stdout: exactly one JSON line at the end,
//   { "traceIds": [...], "spans": n, "logs": n, "exports": [{ "signal", "items", "ok", "error" }] }
// (spans / logs: what the providers produced; exports: each real exporter call's outcome). Exit 0
// whatever the receiver answered; non-zero only on this program's own bugs. Diagnostics on stderr.
// Loopback only: the double listens on 127.0.0.1 and the receivers are the caller's.
import { createServer } from "node:http"
import { createRequire } from "node:module"
import { setTimeout as sleep } from "node:timers/promises"
import { context, diag, DiagLogLevel, metrics, ROOT_CONTEXT, SpanKind, SpanStatusCode } from "@opentelemetry/api"
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks"
import { ExportResultCode } from "@opentelemetry/core"
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from "@opentelemetry/resources"
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { BatchLogRecordProcessor, LoggerProvider } from "@opentelemetry/sdk-logs"
import { OTLPTraceExporter as ProtoTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto"
import { OTLPTraceExporter as JsonTraceExporter } from "@opentelemetry/exporter-trace-otlp-http"
import { OTLPLogExporter as ProtoLogExporter } from "@opentelemetry/exporter-logs-otlp-proto"
import { OTLPLogExporter as JsonLogExporter } from "@opentelemetry/exporter-logs-otlp-http"
import { OpenAIInstrumentation } from "@opentelemetry/instrumentation-openai"

const require = createRequire(import.meta.url)
const env = process.env
const say = (line) => process.stderr.write(`otlp-agent: ${line}\n`)

// The SDK's own diagnostics (export failures, retries) to stderr: DiagConsoleLogger would put
// info/debug on stdout, which carries the result line alone.
const LEVELS = { NONE: DiagLogLevel.NONE, ERROR: DiagLogLevel.ERROR, WARN: DiagLogLevel.WARN, INFO: DiagLogLevel.INFO, DEBUG: DiagLogLevel.DEBUG, VERBOSE: DiagLogLevel.VERBOSE, ALL: DiagLogLevel.ALL }
const diagLine = (level) => (message, ...args) => say(`[${level}] ${message}${args.length > 0 ? ` ${args.map((arg) => (arg instanceof Error ? arg.message : typeof arg === "string" ? arg : "")).join(" ")}` : ""}`)
diag.setLogger(
  { error: diagLine("error"), warn: diagLine("warn"), info: diagLine("info"), debug: diagLine("debug"), verbose: diagLine("verbose") },
  { logLevel: LEVELS[(env.OTEL_LOG_LEVEL ?? "INFO").toUpperCase()] ?? DiagLogLevel.INFO, suppressOverrideMessage: true }
)

const positive = (name, fallback, max = 10_000) => {
  const raw = env[name]
  if (raw === undefined || raw === "") return fallback
  const value = Number(raw)
  if (!Number.isInteger(value) || value < 1 || value > max) throw new Error(`${name} must be an integer in 1..${max}, got ${raw}`)
  return value
}
const scenario = env.AGENT_SCENARIO ?? "ok"
if (scenario !== "ok" && scenario !== "failing") throw new Error(`AGENT_SCENARIO must be ok or failing, got ${scenario}`)
const runs = positive("AGENT_TRACES", 1)
const batchSize = positive("AGENT_BATCH_SIZE", 512)
const content = env.AGENT_CONTENT !== "0"
const contextSpans = env.AGENT_CONTEXT_SPANS === "1"
const secret = env.AGENT_SECRET ?? ""
const protocol = env.OTEL_EXPORTER_OTLP_PROTOCOL ?? "http/protobuf"
if (protocol !== "http/protobuf" && protocol !== "http/json") throw new Error(`OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf or http/json here, got ${protocol}`)
const secondEndpoint = env.AGENT_SECOND_ENDPOINT === undefined || env.AGENT_SECOND_ENDPOINT === "" ? undefined : env.AGENT_SECOND_ENDPOINT.replace(/\/+$/, "")

context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())

// ---------------------------------------------------------------------------------------------
// Exporters: the real ones, each call's outcome recorded.
const outcomes = []
const errorText = (error) => {
  if (error === undefined || error === null) return "export failed"
  // OTLPExporterError carries the HTTP status as `code`.
  const code = typeof error.code === "number" ? ` (HTTP ${error.code})` : ""
  return `${error.message ?? String(error)}${code}`
}
const recorded = (signal, exporter) => ({
  export: (items, resultCallback) =>
    exporter.export(items, (result) => {
      const ok = result.code === ExportResultCode.SUCCESS
      outcomes.push({ signal, items: items.length, ok, error: ok ? null : errorText(result.error) })
      resultCallback(result)
    }),
  forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve(),
  shutdown: () => exporter.shutdown()
})
// Batches alternate between the exporters, as a load balancer in front of two replicas would
// spread them.
const roundRobin = (exporters) => {
  let next = 0
  return {
    export: (items, resultCallback) => exporters[next++ % exporters.length].export(items, resultCallback),
    forceFlush: () => Promise.all(exporters.map((exporter) => exporter.forceFlush())).then(() => undefined),
    shutdown: () => Promise.all(exporters.map((exporter) => exporter.shutdown())).then(() => undefined)
  }
}
// OTEL_EXPORTER_OTLP_HEADERS as the spec has it (comma-separated key=value, values URL-encoded), for
// the second exporter, whose explicit url means the env endpoint does not apply to it.
const envHeaders = () => {
  const headers = {}
  for (const pair of (env.OTEL_EXPORTER_OTLP_HEADERS ?? "").split(",")) {
    const at = pair.indexOf("=")
    if (at <= 0) continue
    headers[decodeURIComponent(pair.slice(0, at).trim())] = decodeURIComponent(pair.slice(at + 1).trim())
  }
  return headers
}
const [TraceExporter, LogExporter] = protocol === "http/json" ? [JsonTraceExporter, JsonLogExporter] : [ProtoTraceExporter, ProtoLogExporter]
const exporterFor = (signal, Exporter) => {
  const first = recorded(signal, new Exporter())
  if (secondEndpoint === undefined) return first
  return roundRobin([first, recorded(signal, new Exporter({ url: `${secondEndpoint}/v1/${signal}`, headers: envHeaders() }))])
}

// Counters beside the exporters: what the providers produced, whatever became of it.
let spanCount = 0
let logCount = 0
const countingSpans = { onStart: () => undefined, onEnd: () => void spanCount++, forceFlush: () => Promise.resolve(), shutdown: () => Promise.resolve() }
const countingLogs = { onEmit: () => void logCount++, forceFlush: () => Promise.resolve(), shutdown: () => Promise.resolve() }

// OTEL_SERVICE_NAME / OTEL_RESOURCE_ATTRIBUTES read by the SDK's env detector, the documented way.
const resource = defaultResource()
  .merge(detectResources({ detectors: [envDetector] }))
  .merge(resourceFromAttributes({
    ...(env.AGENT_VERSION ? { "service.version": env.AGENT_VERSION } : {}),
    ...(env.AGENT_ENVIRONMENT ? { "deployment.environment.name": env.AGENT_ENVIRONMENT } : {})
  }))
// Batches are cut by size, and the rest by the forceFlush at the end, which also makes the program
// quick whatever the delay; a long delay keeps the timer from cutting a batch short on a slow
// machine, so the number of requests is the same from run to run.
const batching = { maxExportBatchSize: batchSize, maxQueueSize: Math.max(2048, batchSize), scheduledDelayMillis: positive("AGENT_SCHEDULE_DELAY", 30_000, 600_000) }
const tracerProvider = new BasicTracerProvider({
  resource,
  spanProcessors: [countingSpans, new BatchSpanProcessor(exporterFor("traces", TraceExporter), batching)]
})
const loggerProvider = new LoggerProvider({
  resource,
  processors: [countingLogs, new BatchLogRecordProcessor({ exporter: exporterFor("logs", LogExporter), ...batching })]
})

// ---------------------------------------------------------------------------------------------
// The loopback Chat Completions double: scripted replies, in order.
let counter = 0
const nextId = (prefix) => `${prefix}_${String(++counter).padStart(4, "0")}loopback`
const replies = []
const server = createServer((request, response) => {
  const chunks = []
  request.on("data", (chunk) => chunks.push(chunk))
  request.on("end", () => {
    const reply = replies.shift()
    if (reply === undefined) {
      say(`no scripted reply for ${request.method} ${request.url}`)
      response.writeHead(500, { "content-type": "application/json" })
      response.end(JSON.stringify({ error: { message: "no scripted reply", type: "server_error", param: null, code: null } }))
      return
    }
    response.writeHead(200, { "content-type": "application/json", "x-request-id": nextId("req") })
    response.end(JSON.stringify(reply))
  })
})
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve))
const address = server.address()
const baseURL = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}/v1`

const created = 1767225600
const completion = (message, finish_reason) => ({
  id: nextId("chatcmpl"), object: "chat.completion", created, model: "gpt-4o-mini-2024-07-18",
  choices: [{ index: 0, message: { role: "assistant", refusal: null, annotations: [], ...message }, logprobs: null, finish_reason }],
  usage: { prompt_tokens: 120, completion_tokens: 24, total_tokens: 144 }, system_fingerprint: "fp_loopback"
})
const SYSTEM = "You are a weather assistant. Use get_weather for current conditions; answer in one sentence."
const QUESTION = "What's the weather in Paris and in London? Should I take an umbrella?"
const question = secret === "" ? QUESTION : `${QUESTION} My weather API key is ${secret} if you need it.`
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
const scriptRun = () => {
  replies.length = 0
  replies.push(
    completion({ content: null, tool_calls: [{ id: "call_paris", type: "function", function: { name: "get_weather", arguments: "{\"city\":\"Paris\"}" } }] }, "tool_calls"),
    completion({ content: null, tool_calls: [{ id: "call_london", type: "function", function: { name: "get_weather", arguments: "{\"city\":\"London\"}" } }] }, "tool_calls"),
    completion({ content: ANSWER }, "stop")
  )
}

// ---------------------------------------------------------------------------------------------
// The instrumentation, enabled the documented way (constructing it registers its require hook,
// then `openai` is required).
const instrumentation = new OpenAIInstrumentation({ captureMessageContent: content })
instrumentation.setTracerProvider(tracerProvider)
instrumentation.setLoggerProvider(loggerProvider)
// It creates its metric instruments when given a meter provider; the no-op global one will do.
instrumentation.setMeterProvider(metrics.getMeterProvider())
const { OpenAI } = require("openai")
const client = new OpenAI({ apiKey: "sk-loopback-dummy", baseURL, maxRetries: 0 })
const tracer = tracerProvider.getTracer("weather-agent", "1.0.0")

const failed = (span, error) => {
  span.recordException(error)
  span.setAttribute("error.type", error.name)
  span.setStatus({ code: SpanStatusCode.ERROR, message: error.message })
}

/** A database CLIENT span around the tool's lookup: context that carries no GenAI attributes. */
const lookup = (city) => tracer.startActiveSpan("SELECT forecasts", {
  kind: SpanKind.CLIENT,
  attributes: {
    "db.system.name": "postgresql", "db.operation.name": "SELECT", "db.collection.name": "forecasts",
    "db.query.text": "SELECT conditions, temperature_c FROM forecasts WHERE city = $1"
  }
}, async (span) => {
  await sleep(2)
  span.end()
  return WEATHER[city] ?? "{\"error\":\"unknown city\"}"
})

const runTool = (call) => tracer.startActiveSpan(`execute_tool ${call.function.name}`, {
  kind: SpanKind.INTERNAL,
  attributes: {
    "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": call.function.name, "gen_ai.tool.type": "function",
    "gen_ai.tool.call.id": call.id,
    ...(content ? { "gen_ai.tool.call.arguments": call.function.arguments } : {})
  }
}, async (span) => {
  try {
    const city = JSON.parse(call.function.arguments).city
    const result = contextSpans ? await lookup(city) : WEATHER[city] ?? "{\"error\":\"unknown city\"}"
    // The failing scenario: the second tool call's upstream times out.
    if (scenario === "failing" && city === "London") throw new Error("weather service unavailable: upstream timed out after 5000 ms")
    if (content) span.setAttribute("gen_ai.tool.call.result", result)
    return result
  } catch (error) {
    failed(span, error)
    throw error
  } finally {
    span.end()
  }
})

/** One agent run: Chat Completions calls carrying the conversation so far, tool runs between them. */
const agent = () => tracer.startActiveSpan("invoke_agent weather_agent", {
  kind: SpanKind.INTERNAL,
  attributes: {
    "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "weather_agent", "gen_ai.provider.name": "openai",
    "gen_ai.request.model": "gpt-4o-mini",
    ...(content ? {
      "gen_ai.system_instructions": JSON.stringify([{ type: "text", content: SYSTEM }]),
      "gen_ai.input.messages": JSON.stringify([{ role: "user", parts: [{ type: "text", content: question }] }])
    } : {})
  }
}, async (span) => {
  try {
    const messages = [{ role: "system", content: SYSTEM }, { role: "user", content: question }]
    // Bounded: the script has three replies.
    for (let turn = 0; turn < 5; turn++) {
      const reply = await client.chat.completions.create({ model: "gpt-4o-mini", messages, tools, temperature: 0 })
      const message = reply.choices[0].message
      messages.push({ role: "assistant", content: message.content, tool_calls: message.tool_calls })
      if (message.tool_calls === undefined || message.tool_calls.length === 0) {
        if (content) span.setAttribute("gen_ai.output.messages", JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: message.content }], finish_reason: "stop" }]))
        span.setStatus({ code: SpanStatusCode.OK })
        return { ok: true, traceId: span.spanContext().traceId }
      }
      for (const call of message.tool_calls) messages.push({ role: "tool", tool_call_id: call.id, content: await runTool(call) })
    }
    throw new Error("the agent did not finish in 5 turns")
  } catch (error) {
    failed(span, error)
    return { ok: false, traceId: span.spanContext().traceId }
  } finally {
    span.end()
  }
})

/** The run as an HTTP request's work: a SERVER span `POST /chat` at the root. */
const served = () => tracer.startActiveSpan("POST /chat", {
  kind: SpanKind.SERVER,
  attributes: { "http.request.method": "POST", "url.path": "/chat", "url.scheme": "http", "http.route": "/chat" }
}, async (span) => {
  const outcome = await agent()
  span.setAttribute("http.response.status_code", outcome.ok ? 200 : 500)
  if (!outcome.ok) span.setStatus({ code: SpanStatusCode.ERROR })
  span.end()
  return outcome
})

// ---------------------------------------------------------------------------------------------
const traceIds = []
let failure
try {
  for (let run = 0; run < runs; run++) {
    scriptRun()
    // From the root context, so each run is a trace of its own.
    const outcome = await context.with(ROOT_CONTEXT, contextSpans ? served : agent)
    traceIds.push(outcome.traceId)
  }
} catch (error) {
  failure = error
}
// A receiver refusing a batch makes forceFlush reject: that is an outcome to report, not a bug.
for (const [name, provider] of [["tracer", tracerProvider], ["logger", loggerProvider]]) {
  await provider.forceFlush().catch((error) => say(`${name} provider forceFlush: ${errorText(error)}`))
}
for (const [name, provider] of [["tracer", tracerProvider], ["logger", loggerProvider]]) {
  await provider.shutdown().catch((error) => say(`${name} provider shutdown: ${errorText(error)}`))
}
instrumentation.disable()
await new Promise((resolve) => server.close(resolve))
if (failure !== undefined) {
  say(failure instanceof Error ? failure.stack ?? failure.message : String(failure))
  process.exit(2)
}
process.stdout.write(`${JSON.stringify({ traceIds, spans: spanCount, logs: logCount, exports: outcomes })}\n`, () => process.exit(0))
