/**
 * The instrumentations that record GenAI spans without message content by default, each with the
 * setting that makes it record content (DECISIONS §23; docs/otlp.md, "Turn message content on"):
 * what a content-free run's report names, and what the dashboard's Connect page lists.
 */
import type { Instrumentation } from "./Model.js"

export const CONTENT_SETTINGS: Readonly<Record<Instrumentation, { readonly name: string; readonly setting: string }>> = {
  opentelemetry_genai: { name: "OpenTelemetry GenAI instrumentations", setting: "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true" },
  openllmetry: { name: "OpenLLMetry", setting: "TRACELOOP_TRACE_CONTENT=true" },
  vercel_ai_sdk: { name: "Vercel AI SDK", setting: "experimental_telemetry: { recordInputs: true, recordOutputs: true }" },
  openinference: { name: "OpenInference", setting: "unset OPENINFERENCE_HIDE_INPUTS / OPENINFERENCE_HIDE_OUTPUTS (or hideInputs / hideOutputs in its traceConfig)" }
}

/** The instrumentations in the order the docs and the pages list them. */
export const INSTRUMENTATIONS: ReadonlyArray<Instrumentation> = ["opentelemetry_genai", "openllmetry", "vercel_ai_sdk", "openinference"]
