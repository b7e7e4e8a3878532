/**
 * The normalized trace (DECISIONS §12): what every supported format is read into, and what every
 * trace-reading pattern's input is projected from (Catalogue/Project.ts). One ordered list of
 * events, each with who (`actor`, `role`), what (`kind`, `content`, `tool`), when (`timestamp`)
 * and where it came from (`source`, a pointer back into the original: a span id, a message index,
 * a run id, an event id). Contents are the source's text verbatim, so evidence quotes can be
 * checked against them.
 */
import * as Schema from "effect/Schema"
import { FORMAT_NAMES, FORMAT_OPTIONS } from "../Registry/Derived.js"
import { listOf } from "../Registry/Entries.js"
import { TRACE_FORMATS } from "../Registry/Formats.js"
import { INSTRUMENTATIONS } from "./ContentSettings.js"

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

export const EventStatus = Schema.Literal("ok", "error").annotations({
  identifier: "TraceEventStatus",
  description: "Whether what the event stands for (a model call, a tool execution) succeeded, as its source says: `ok` or `error`."
})
export type EventStatus = typeof EventStatus.Type

export const TokenUsage = Schema.Struct({
  input: Schema.optional(Schema.NonNegativeInt.annotations({ description: "Tokens the model read (the prompt)." })),
  output: Schema.optional(Schema.NonNegativeInt.annotations({ description: "Tokens the model wrote (the completion)." }))
}).annotations({ identifier: "TraceTokenUsage", description: "A model call's token usage, as its source reports it." })
export type TokenUsage = typeof TokenUsage.Type

export const DeclaredTool = Schema.Struct({
  name: Schema.String.annotations({ description: "The tool's name, as calls name it." }),
  description: Schema.optional(Schema.String.annotations({ description: "What the tool does, as declared to the model." })),
  parameters: Schema.optional(
    Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({ description: "The JSON Schema of the tool's arguments, as declared to the model." })
  )
}).annotations({ identifier: "TraceDeclaredTool", description: "A tool the agent was offered (declared to the model)." })
export type DeclaredTool = typeof DeclaredTool.Type

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
  }),
  // Structure (DECISIONS §23): what the checks read without a model. Each is absent when the
  // source does not say, so a format without such data normalizes as it did before.
  call_id: Schema.optional(Schema.String.annotations({
    description: "The tool call the event belongs to (a tool call, its result or its error), as the source identifies it: `call_…`, `toolu_…`, a tool span's call id."
  })),
  status: Schema.optional(EventStatus),
  status_code: Schema.optional(Schema.String.annotations({
    description: "The source's code for the status, when it has one: an error type (`NotFoundError`), an HTTP status (`429`), an exception type."
  })),
  status_message: Schema.optional(Schema.String.annotations({
    description: "The source's message for the status, when it has one (an exception's or a span status's message)."
  })),
  finish_reason: Schema.optional(Schema.String.annotations({
    description: "Why the model call this event answers stopped, as the source writes it (`stop`, `length`, `tool_calls`, `end_turn`, `max_tokens`, ...)."
  })),
  tokens: Schema.optional(TokenUsage),
  duration_ms: Schema.optional(Schema.NonNegative.annotations({
    description: "How long the model call or tool execution took, in milliseconds (from the span's or run's start and end)."
  }))
}).annotations({
  identifier: "TraceEvent",
  description:
    "One event of a normalized trace. A model call's facts (`finish_reason`, `tokens`, `status`, `duration_ms`) are on the first event of its output; a model call without content is a `message` of the agent with empty content that carries them."
})
export type TraceEvent = typeof TraceEvent.Type

export const Instrumentation = Schema.Literal(...INSTRUMENTATIONS).annotations({
  identifier: "TraceInstrumentation",
  description:
    "The instrumentation that recorded a span trace, read from its spans' instrumentation scope and attributes: the OpenTelemetry GenAI instrumentations, OpenLLMetry (Traceloop), the Vercel AI SDK, or OpenInference."
})
export type Instrumentation = typeof Instrumentation.Type

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
  tools: Schema.optional(
    Schema.Array(DeclaredTool).annotations({
      description: "The tools the agent was offered, in order of first declaration, with their argument schemas when the format has them; absent when the trace declares none."
    })
  ),
  content: Schema.optional(
    Schema.Literal("absent").annotations({
      description:
        "Present, as `absent`, when the trace holds no message content at all (the GenAI instrumentations' default): the events say what ran, not what was said. Such a trace is not analysed (DECISIONS §18)."
    })
  ),
  // (DECISIONS §23) so a report can name the one setting that turns content on
  instrumentation: Schema.optional(Instrumentation.annotations({
    description: "On a trace without content (`content: \"absent\"`) read from spans: the instrumentation that recorded it, when its spans tell."
  }))
}).annotations({ identifier: "NormalizedTrace", description: "A trace in the service's normalized form." })
export type NormalizedTrace = typeof NormalizedTrace.Type

/**
 * What instrumentations write in place of content they were told not to record (DECISIONS §23):
 * not content. An event whose text is one of these is kept with empty content, so a trace of them
 * alone is `content: "absent"`; a call id that is one is no id. Each with where it comes from.
 */
export const CONTENT_PLACEHOLDERS: ReadonlyArray<{ readonly placeholder: string; readonly writtenBy: string }> = [
  { placeholder: "__REDACTED__", writtenBy: "OpenInference instrumentations, for inputs and outputs hidden by OPENINFERENCE_HIDE_* or traceConfig (REDACTED_VALUE)" },
  { placeholder: "<not specified>", writtenBy: "Google ADK, for a tool call's id and response it did not see (gcp.vertex.agent.tool_response)" }
]
const PLACEHOLDERS: ReadonlySet<string> = new Set(CONTENT_PLACEHOLDERS.map((entry) => entry.placeholder))

/** True when a text is an instrumentation's placeholder, not content (surrounding whitespace aside). */
export const isContentPlaceholder = (text: string): boolean => text.length < 32 && PLACEHOLDERS.has(text.trim())
