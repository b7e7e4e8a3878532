/**
 * Which instrumentation recorded a span trace (DECISIONS §23), so a trace without content can name
 * the one setting that turns content on. Read from the spans' instrumentation scope names and
 * attribute keys, most specific first: OpenInference (`openinference.*` keys or scopes), the Vercel
 * AI SDK (scope `ai`, `ai.*` keys), OpenLLMetry (`traceloop.*` keys or scopes, `llm.request.type`),
 * then the OpenTelemetry GenAI instrumentations (`gen_ai.*` keys alone). Undefined when none tells.
 */
import type { Instrumentation } from "../../Model.js"
import type { Span } from "./Shapes.js"

const ORDER: ReadonlyArray<Instrumentation> = ["openinference", "vercel_ai_sdk", "openllmetry", "opentelemetry_genai"]

/** What one span says, or undefined. */
const markOf = (span: Span): Instrumentation | undefined => {
  const scope = (span.scope ?? "").toLowerCase()
  const keys = Object.keys(span.attributes)
  if (scope.includes("openinference") || keys.some((key) => key.startsWith("openinference."))) return "openinference"
  if (scope === "ai" || keys.some((key) => key.startsWith("ai.") && (key === "ai.operationId" || key.startsWith("ai.model.") || key.startsWith("ai.telemetry.")))) return "vercel_ai_sdk"
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
