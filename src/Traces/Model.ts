/**
 * The normalized trace (DECISIONS §12): what every supported format is read into, and what every
 * trace-reading pattern's input is projected from (Catalogue/Project.ts). One ordered list of
 * events, each with who (`actor`, `role`), what (`kind`, `content`, `tool`), when (`timestamp`)
 * and where it came from (`source`, a pointer back into the original: a span id, a message index,
 * a run id, an event id). Contents are the source's text verbatim, so evidence quotes can be
 * checked against them.
 */
import { Schema } from "effect"
import { FORMAT_NAMES, FORMAT_OPTIONS } from "../Registry/Derived.js"
import { listOf } from "../Registry/Entries.js"
import { TRACE_FORMATS } from "../Registry/Formats.js"

/** The formats' names, in the registry's order (src/Registry/Formats.ts: the detection order). */
export const FORMATS = FORMAT_NAMES
export { FORMAT_OPTIONS }

export const TraceFormat = Schema.Literal(...FORMATS).annotations({
  identifier: "TraceFormat",
  description: `A supported trace format: ${TRACE_FORMATS.map((format) => `${format.name}, ${format.reads}`).join("; ")}.`
})
export type TraceFormat = typeof TraceFormat.Type

export const FormatOption = Schema.Literal(...FORMAT_OPTIONS).annotations({
  identifier: "TraceFormatOption",
  description: `The trace's format (${listOf(FORMATS)}), or \`auto\` (the default) to detect it.`
})
export type FormatOption = typeof FormatOption.Type

export const EventKind = Schema.Literal("message", "thought", "tool_call", "tool_result", "error", "handoff").annotations({
  identifier: "TraceEventKind",
  description: "What an event is: a message, a thought (reasoning), a tool call, a tool result, an error, or a handoff between agents."
})
export type EventKind = typeof EventKind.Type

export const ActorRole = Schema.Literal("user", "agent", "system", "tool").annotations({
  identifier: "TraceActorRole",
  description: "The kind of participant: the user, an agent (or assistant), the system prompt, or a tool."
})
export type ActorRole = typeof ActorRole.Type

export const TraceEvent = Schema.Struct({
  actor: Schema.String.annotations({ description: "Who produced the event: `user`, `system`, an agent's name (or `assistant`), or a tool's name." }),
  role: ActorRole,
  kind: EventKind,
  content: Schema.String.annotations({ description: "The event's text, verbatim from the source after redaction (DECISIONS §20: secrets, and with SVC_REDACT=secrets,pii personal data, become placeholders such as `[aws_key:3f9a1c]`); tool calls: the arguments." }),
  tool: Schema.optional(Schema.String.annotations({ description: "The tool's name, for tool calls and results." })),
  to: Schema.optional(Schema.String.annotations({ description: "The receiving agent of a handoff or an addressed message." })),
  timestamp: Schema.optional(Schema.String.annotations({ description: "When it happened (ISO-8601), when the source says." })),
  source: Schema.String.annotations({
    description: "Where in the original the event came from: `span:<id>`, `span:<id>/input[2]`, `messages[3]`, `run:<id>`, `event:<id>`, ..."
  })
}).annotations({ identifier: "TraceEvent", description: "One event of a normalized trace." })
export type TraceEvent = typeof TraceEvent.Type

export const NormalizedTrace = Schema.Struct({
  id: Schema.NullOr(Schema.String).annotations({ description: "The trace's id in its source (trace id, run id, session id), when it has one." }),
  task: Schema.String.annotations({ description: "What the run was asked to do: the first user input or the root span's input." }),
  outcome: Schema.String.annotations({ description: "How the run ended: its final output or status." }),
  success: Schema.NullOr(Schema.Boolean).annotations({
    description: "Whether the run succeeded, from an error status where the format has one; null when the trace does not say."
  }),
  agents: Schema.Array(Schema.String).annotations({ description: "The agents taking part, in order of first appearance." }),
  events: Schema.Array(TraceEvent),
  skipped: Schema.Int.annotations({
    description: "Records of the input that were not read (malformed, of unknown types, or not trace content such as dataset labels)."
  }),
  redactions: Schema.optional(
    Schema.Record({ key: Schema.String, value: Schema.Int }).annotations({
      description:
        "Secrets and personal data replaced by placeholders (`[email:3f9a1c]`) before anything kept or sent the trace, by kind (DECISIONS §20); absent when none."
    })
  ),
  content: Schema.optional(
    Schema.Literal("absent").annotations({
      description:
        "Present, as `absent`, when the trace holds no message content at all (the GenAI instrumentations' default): the events say what ran, not what was said. Such a trace is not analysed (DECISIONS §18)."
    })
  )
}).annotations({ identifier: "NormalizedTrace", description: "A trace in the service's normalized form." })
export type NormalizedTrace = typeof NormalizedTrace.Type

/**
 * Why a trace without message content cannot be analysed, and how to turn content on (DECISIONS
 * §18): the one message of analyze's 400 and of diagnose's skipped lenses.
 */
export const NO_CONTENT_MESSAGE =
  "the trace holds no message content: its instrumentation records what ran but not what was said, as the GenAI instrumentations do by default. Turn content on and send it again: OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true (OpenTelemetry GenAI instrumentations), TRACELOOP_TRACE_CONTENT=true (OpenLLMetry), experimental_telemetry: { recordInputs: true, recordOutputs: true } (Vercel AI SDK), or unset OPENINFERENCE_HIDE_INPUTS / OPENINFERENCE_HIDE_OUTPUTS (OpenInference)"
