// The Vercel AI SDK 7 agent that instrumented-clients.mjs runs (copied into the directory where the
// client packages are installed, so its imports resolve there): generateText with a tool that
// throws, the @ai-sdk/otel integration, spans exported by @opentelemetry/sdk-node configured
// through the OTEL_* environment variables (as a user of the SDK sets them). CONTENT=0 turns
// recordInputs / recordOutputs off.
import { NodeSDK } from "@opentelemetry/sdk-node"
import { OpenTelemetry } from "@ai-sdk/otel"
import { generateText, registerTelemetry, stepCountIs, tool } from "ai"
import { createOpenAI } from "@ai-sdk/openai"
import { z } from "zod"

const sdk = new NodeSDK()
sdk.start()
registerTelemetry(new OpenTelemetry())

const content = process.env.CONTENT !== "0"
const openai = createOpenAI({ apiKey: "sk-loopback", baseURL: `${process.env.MODEL_URL}/v1` })
const result = await generateText({
  model: openai.chat("gpt-4o-mini"),
  system: "You issue refunds with issue_refund.",
  prompt: "Please refund order A-1001 (42 EUR).",
  tools: {
    issue_refund: tool({
      description: "Refund an order.",
      inputSchema: z.object({ order_id: z.string(), amount: z.number() }),
      execute: async ({ order_id }) => {
        throw new Error(`payments API returned 503 for order ${order_id}: upstream unavailable`)
      }
    })
  },
  stopWhen: stepCountIs(3),
  maxRetries: 0,
  telemetry: { isEnabled: true, functionId: "refund-agent", recordInputs: content, recordOutputs: content }
})
process.stderr.write(`agent said: ${result.text}\n`)
await sdk.shutdown()
