/**
 * Which instrumentation recorded a span trace (DECISIONS §23), so a trace without content can name
 * the one setting that turns content on. Read from the spans' instrumentation scope names and
 * attribute keys, most specific first: OpenInference (`openinference.*` keys or scopes), the Vercel
 * AI SDK, OpenLLMetry (`traceloop.*` keys or scopes, `llm.request.type`), then the OpenTelemetry
 * GenAI instrumentations (`gen_ai.*` keys alone). Undefined when none tells.
 *
 * The Vercel AI SDK writes two ways: its older `ai.*` attributes (scope `ai`: AI SDK 6 and before,
 * AI SDK 7's `LegacyOpenTelemetry`), and from AI SDK 7 with `@ai-sdk/otel`'s `OpenTelemetry` the
 * GenAI conventions under scope `gen_ai`. Those keys are the GenAI instrumentations' own, so the
 * scope alone does not tell (any tracer may be named `gen_ai`): a span of scope `gen_ai` is the AI
 * SDK's when it also carries what only the AI SDK writes on spans: its step spans (operation
 * `agent_step`), or the durations the conventions define as metrics, not span attributes
 * (`gen_ai.client.operation.duration` on its model calls, `gen_ai.execute_tool.duration` on its tool
 * runs; read from `@ai-sdk/otel` 1.0.173 and its exported spans, test/fixtures/traces/otel/ai-sdk-7-*).
 */
import type { Instrumentation } from "../../Model.js"
import { operationOf } from "./Records.js"
import type { Span } from "./Shapes.js"

const ORDER: ReadonlyArray<Instrumentation> = ["openinference", "vercel_ai_sdk", "openllmetry", "opentelemetry_genai"]

/** The span attributes only the AI SDK's `@ai-sdk/otel` writes under scope `gen_ai` (metrics in the GenAI conventions). */
const AI_SDK_GEN_AI_KEYS: ReadonlySet<string> = new Set([
  "gen_ai.client.operation.duration",
  "gen_ai.client.operation.time_to_first_chunk",
  "gen_ai.client.operation.time_per_output_chunk",
  "gen_ai.execute_tool.duration"
])

/** A span of the AI SDK's older `ai.*` attributes (scope `ai`). */
const isAiSdkLegacy = (scope: string, keys: ReadonlyArray<string>): boolean =>
  scope === "ai" || keys.some((key) => key === "ai.operationId" || key.startsWith("ai.model.") || key.startsWith("ai.telemetry."))

/** A span of AI SDK 7's `@ai-sdk/otel` (scope `gen_ai` and what only it writes). */
const isAiSdkGenAi = (span: Span, scope: string, keys: ReadonlyArray<string>): boolean =>
  scope === "gen_ai" && (operationOf(span) === "agent_step" || keys.some((key) => AI_SDK_GEN_AI_KEYS.has(key)))

/** What one span says, or undefined. */
const markOf = (span: Span): Instrumentation | undefined => {
  const scope = (span.scope ?? "").toLowerCase()
  const keys = Object.keys(span.attributes)
  if (scope.includes("openinference") || keys.some((key) => key.startsWith("openinference."))) return "openinference"
  if (isAiSdkLegacy(scope, keys) || isAiSdkGenAi(span, scope, keys)) return "vercel_ai_sdk"
  if (scope.includes("traceloop") || keys.some((key) => key.startsWith("traceloop.") || key === "llm.request.type")) return "openllmetry"
  if (keys.some((key) => key.startsWith("gen_ai."))) return "opentelemetry_genai"
  return undefined
}

/** The instrumentation of a trace's spans: the most specific one any span names. */
export const instrumentationOf = (spans: ReadonlyArray<Span>): Instrumentation | undefined => {
  let best: number | undefined
  for (const span of spans) {
    const mark = markOf(span)
    if (mark === undefined) continue
    const rank = ORDER.indexOf(mark)
    if (best === undefined || rank < best) best = rank
    if (best === 0) break
  }
  return best === undefined ? undefined : ORDER[best]
}
