/**
 * The instrumentations that record GenAI spans without message content by default, each with the
 * setting that makes it record content (DECISIONS §23; docs/otlp.md, "Turn message content on"):
 * what a content-free run's report names, analyze's 400 says, and the dashboard's Connect and run
 * pages list. No runtime import: the dashboard's bundle takes it as it is, and Model.ts's
 * `Instrumentation` schema is made from INSTRUMENTATIONS.
 */

/** The instrumentations a span trace can name, in the order the docs, reports and pages list them. */
export const INSTRUMENTATIONS = ["opentelemetry_genai", "openllmetry", "vercel_ai_sdk", "openinference"] as const
export type InstrumentationName = (typeof INSTRUMENTATIONS)[number]

/**
 * Each instrumentation's name and its content switch. The Vercel AI SDK's switches are its call's
 * telemetry options: `telemetry` from AI SDK 7 (with the `@ai-sdk/otel` integration),
 * `experimental_telemetry` before it.
 */
export const CONTENT_SETTINGS: Readonly<Record<InstrumentationName, { readonly name: string; readonly setting: string }>> = {
  opentelemetry_genai: { name: "OpenTelemetry GenAI instrumentations", setting: "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true" },
  openllmetry: { name: "OpenLLMetry", setting: "TRACELOOP_TRACE_CONTENT=true" },
  vercel_ai_sdk: { name: "Vercel AI SDK", setting: "telemetry: { recordInputs: true, recordOutputs: true } (experimental_telemetry before AI SDK 7)" },
  openinference: { name: "OpenInference", setting: "unset OPENINFERENCE_HIDE_INPUTS / OPENINFERENCE_HIDE_OUTPUTS (or hideInputs / hideOutputs in its traceConfig)" }
}

/** Every instrumentation's setting, each with its name: for a trace whose instrumentation is not known. */
export const EVERY_CONTENT_SETTING = INSTRUMENTATIONS.map((each) => `${CONTENT_SETTINGS[each].setting} (${CONTENT_SETTINGS[each].name})`).join("; ")

/**
 * Why a trace without message content cannot be analysed, and how to turn content on (DECISIONS
 * §18): the one message of analyze's 400 and of diagnose's skipped lenses.
 */
export const NO_CONTENT_MESSAGE = `the trace holds no message content: its instrumentation records what ran but not what was said, as the GenAI instrumentations do by default. Turn content on and send it again: ${EVERY_CONTENT_SETTING}`
