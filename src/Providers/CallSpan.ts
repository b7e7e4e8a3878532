/**
 * The span of one model call (DECISIONS §21), in the OpenTelemetry GenAI semantic conventions
 * (the version docs/operations.md pins): `chat {model}`, kind client, with
 * `gen_ai.operation.name`, `gen_ai.provider.name`, `gen_ai.request.model`, `gen_ai.request.max_tokens`,
 * `gen_ai.output.type`, `server.address`/`server.port`; at its end `gen_ai.response.model`,
 * `gen_ai.response.id`, `gen_ai.response.finish_reasons`, `gen_ai.usage.input_tokens`,
 * `gen_ai.usage.output_tokens`, `gen_ai.usage.cache_read.input_tokens`,
 * `gen_ai.usage.cache_creation.input_tokens`, or `error.type`.
 * Prompts and answers (`gen_ai.system_instructions`, `gen_ai.input.messages`,
 * `gen_ai.output.messages`, as JSON) only with SVC_OTEL_CAPTURE_CONTENT=true: they hold the trace.
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type { TracingShape } from "../Observability/Tracing.js"
import type { ModelCall, ModelReply } from "./ModelCall.js"
import type { ResolvedProvider } from "./Resolution.js"

/** `gen_ai.provider.name`: the conventions' names for the hosted two; `local` for an OpenAI-compatible host of the operator's. */
const PROVIDER_NAMES = { anthropic: "anthropic", openai: "openai", local: "local" } as const

const serverOf = (baseUrl: string): Record<string, unknown> => {
  try {
    const url = new URL(baseUrl)
    const port = url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port)
    return { "server.address": url.hostname, "server.port": port }
  } catch {
    return {}
  }
}

const textParts = (role: string, content: string) => ({ role, parts: [{ type: "text", content }] })

/** What the call is about besides the model: the pattern and mode of the analysis making it. */
export interface CallContext {
  readonly pattern: string
  readonly mode: string
}

/** `effect` (one call to `target`) inside its span; the effect itself when tracing is off. */
export const withCallSpan = <E>(
  tracing: TracingShape,
  target: ResolvedProvider,
  call: ModelCall,
  context: CallContext,
  effect: Effect.Effect<ModelReply, E>
): Effect.Effect<ModelReply, E> => {
  if (!tracing.enabled) return effect
  const attributes: Record<string, unknown> = {
    "gen_ai.operation.name": "chat",
    "gen_ai.provider.name": PROVIDER_NAMES[target.provider],
    "gen_ai.request.model": target.model,
    "gen_ai.request.max_tokens": call.maxOutputTokens,
    "gen_ai.output.type": "json",
    "svc.pattern": context.pattern,
    "svc.mode": context.mode,
    ...serverOf(target.baseUrl)
  }
  if (tracing.captureContent) {
    attributes["gen_ai.system_instructions"] = JSON.stringify(call.system.map((content) => ({ type: "text", content })))
    attributes["gen_ai.input.messages"] = JSON.stringify(call.messages.map((message) => textParts(message.role, message.content)))
  }
  return tracing.span(effect, `chat ${target.model}`, {
    kind: "client",
    attributes,
    onEnd: (exit, set) => {
      if (!Exit.isSuccess(exit)) return
      const reply = exit.value
      if (reply.responseModel !== null) set("gen_ai.response.model", reply.responseModel)
      if (reply.responseId !== null) set("gen_ai.response.id", reply.responseId)
      if (reply.finishReason !== null) set("gen_ai.response.finish_reasons", [reply.finishReason])
      set("gen_ai.usage.input_tokens", reply.inputTokens)
      set("gen_ai.usage.output_tokens", reply.outputTokens)
      set("gen_ai.usage.cache_read.input_tokens", reply.cachedInputTokens)
      set("gen_ai.usage.cache_creation.input_tokens", reply.cacheWriteTokens)
      if (tracing.captureContent) {
        set(
          "gen_ai.output.messages",
          JSON.stringify([{ ...textParts("assistant", JSON.stringify(reply.value)), finish_reason: reply.finishReason ?? "stop" }])
        )
      }
    }
  })
}
