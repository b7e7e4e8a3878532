// The OpenLLMetry agent that instrumented-clients.mjs runs (copied into the directory where the
// client packages are installed, so its imports resolve there): the real `openai` SDK instrumented
// by @traceloop/node-server-sdk, an agent (`withAgent`) whose tool (`withTool`) fails. OpenLLMetry
// 0.27.0 never ends a `withTool` span whose function throws (it is not exported), so the tool does
// what its users must: it catches the error, records it on its span, marks the span ERROR and
// returns the error. Content follows TRACELOOP_TRACE_CONTENT. The spans go through the OTLP/HTTP
// JSON exporter given as OpenLLMetry's documented `exporter` option (its default is the protobuf
// exporter to TRACELOOP_BASE_URL; the spans are the same), batched as by default.
import * as traceloop from "@traceloop/node-server-sdk"
import OpenAI from "openai"
import { SpanStatusCode, trace } from "@opentelemetry/api"
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http"

traceloop.initialize({
  appName: "refund-agent",
  instrumentModules: { openAI: OpenAI },
  exporter: new OTLPTraceExporter({ url: `${process.env.TRACELOOP_BASE_URL}/v1/traces` })
})
const client = new OpenAI({ apiKey: "sk-loopback", baseURL: `${process.env.MODEL_URL}/v1`, maxRetries: 0 })
const tools = [{
  type: "function",
  function: {
    name: "issue_refund", description: "Refund an order.",
    parameters: { type: "object", properties: { order_id: { type: "string" }, amount: { type: "number" } }, required: ["order_id", "amount"] }
  }
}]

const issueRefund = (args) => traceloop.withTool({ name: "issue_refund" }, async () => {
  const error = new Error(`payments API returned 503 for order ${args.order_id}: upstream unavailable`)
  const span = trace.getActiveSpan()
  span?.recordException(error)
  span?.setStatus({ code: SpanStatusCode.ERROR, message: error.message })
  return { error: error.message }
})

const answer = await traceloop.withAgent({ name: "refund_agent" }, async () => {
  const messages = [{ role: "system", content: "You issue refunds with issue_refund." }, { role: "user", content: "Please refund order A-1001 (42 EUR)." }]
  for (let turn = 0; turn < 4; turn++) {
    const reply = await client.chat.completions.create({ model: "gpt-4o-mini", messages, tools })
    const message = reply.choices[0].message
    messages.push(message)
    if (!message.tool_calls?.length) return message.content
    for (const call of message.tool_calls) {
      messages.push({ role: "tool", tool_call_id: call.id, content: JSON.stringify(await issueRefund(JSON.parse(call.function.arguments))) })
    }
  }
})
process.stderr.write(`agent said: ${answer}\n`)
await traceloop.forceFlush()
