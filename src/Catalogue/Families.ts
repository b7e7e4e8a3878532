/**
 * Input families (CATALOGUE.md "Input shapes"). A pattern builds its input schema from one family
 * plus its own extras with `traceInput`, which also makes `goal` an accepted alias of `task`.
 */
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"

export const Family = Schema.Literal(
  "step_trace",
  "message_log",
  "conversation",
  "behaviour_report",
  "crew",
  "request",
  "special"
).annotations({ identifier: "InputFamily" })
export type Family = typeof Family.Type

export const NonEmptyText = Schema.String.pipe(Schema.minLength(1))
export const UnitInterval = Schema.Number.pipe(Schema.between(0, 1))

const describe = <A, I>(schema: Schema.Schema<A, I>, description: string): Schema.Schema<A, I> =>
  schema.annotations({ description })

/** Fields every trace-bearing family carries (optional everywhere). */
export const commonOptional = {
  agent_id: Schema.optional(describe(Schema.String, "Identifier of the agent (or system) that produced the trace.")),
  framework: Schema.optional(
    describe(Schema.String, "Agent framework that produced the trace: langgraph, crewai, autogen, openai-agents-sdk, ...")
  ),
  metadata: Schema.optional(
    Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
      description: "Free-form metadata about the run (not analysed)."
    })
  )
}

export const task = describe(NonEmptyText, "What the agent was asked to do. `goal` is accepted as an alias.")
export const outcome = describe(Schema.String, "What actually happened at the end of the run.")
export const success = Schema.optionalWith(describe(Schema.Boolean, "Whether the run met its task (default false)."), {
  default: () => false
})

export const Step = Schema.Struct({
  type: describe(NonEmptyText, "Kind of step: thought, action, tool_call, observation, message, error, ..."),
  content: describe(Schema.String, "What the step said or did."),
  timestamp: Schema.optional(describe(Schema.String, "When the step happened (ISO-8601 or free text).")),
  actor: Schema.optional(describe(Schema.String, "Which agent or component took the step.")),
  tool: Schema.optional(describe(Schema.String, "Tool name, for tool steps.")),
  confidence: Schema.optional(describe(UnitInterval, "Confidence the agent stated for this step, 0..1."))
}).annotations({ identifier: "Step", description: "One step of an agent run." })

export const Message = Schema.Struct({
  from: describe(NonEmptyText, "Sender agent."),
  content: describe(Schema.String, "Message text."),
  to: Schema.optional(describe(Schema.String, "Recipient agent, or `all`.")),
  type: Schema.optional(describe(Schema.String, "Message kind: proposal, critique, answer, status, ...")),
  timestamp: Schema.optional(describe(Schema.String, "When the message was sent.")),
  round: Schema.optional(describe(Schema.Int.pipe(Schema.nonNegative()), "Debate or conversation round."))
}).annotations({ identifier: "Message", description: "One message of a multi-agent message log." })

export const Turn = Schema.Struct({
  role: describe(NonEmptyText, "Speaker: user, assistant, agent name, system, tool."),
  content: describe(Schema.String, "What was said.")
}).annotations({ identifier: "Turn", description: "One turn of a conversation." })

export const CrewAgent = Schema.Struct({
  id: describe(NonEmptyText, "Agent identifier."),
  role: describe(NonEmptyText, "What the agent is for."),
  reports_to: Schema.optional(
    describe(Schema.Array(Schema.String), "Identifiers of the agents this one reports to (empty for the top).")
  ),
  decision_authority: Schema.optional(
    describe(Schema.String, "What the agent may decide on its own: none, advisory, bounded, full, or a description.")
  )
}).annotations({ identifier: "CrewAgent", description: "One agent of a crew and where it sits." })

/** The fields of each family other than task (which `traceInput` adds with the alias). */
export const familyFields = {
  step_trace: {
    steps: describe(Schema.Array(Step).pipe(Schema.minItems(1)), "The run's steps in order; referenced as steps[i]."),
    outcome,
    success
  },
  message_log: {
    agents: describe(Schema.Array(NonEmptyText).pipe(Schema.minItems(1)), "Names of the agents taking part."),
    messages: describe(
      Schema.Array(Message).pipe(Schema.minItems(1)),
      "The message log in order; referenced as messages[i]."
    ),
    outcome,
    success
  },
  conversation: {
    turns: describe(Schema.Array(Turn).pipe(Schema.minItems(1)), "The conversation in order; referenced as turns[i]."),
    outcome,
    success
  },
  behaviour_report: {
    observed_behaviors: describe(
      Schema.Array(NonEmptyText).pipe(Schema.minItems(1)),
      "Behaviours observed in the agent, one per item; referenced as observed_behaviors[i]."
    ),
    outcome,
    success,
    system_prompt: Schema.optional(describe(Schema.String, "The agent's system prompt, when available."))
  },
  crew: {
    agents: describe(Schema.Array(CrewAgent).pipe(Schema.minItems(1)), "The crew; referenced as agents[i]."),
    outcome,
    success
  }
} as const

/**
 * Builds a pattern's input schema: `task` (with `goal` as alias) plus the given fields plus the
 * common optional fields. The encoded side (what clients send, what OpenAPI shows) has both `task`
 * and `goal` optional, one of them required; the decoded side always has `task`.
 */
export const traceInput = <Fields extends Schema.Struct.Fields>(identifier: string, description: string, fields: Fields) => {
  const Wire = Schema.Struct({
    task: Schema.optional(task),
    goal: Schema.optional(describe(NonEmptyText, "Alias of `task`.")),
    ...fields,
    ...commonOptional
  })
  const Decoded = Schema.Struct({ task, ...fields, ...commonOptional })
  return Schema.transformOrFail(Wire, Schema.typeSchema(Decoded), {
    strict: false,
    decode: (input, _options, ast) => {
      const { goal, ...rest }: Readonly<Record<string, unknown>> = input
      const resolved = rest["task"] ?? goal
      return resolved === undefined
        ? ParseResult.fail(new ParseResult.Type(ast, input, "`task` (or its alias `goal`) is required"))
        : ParseResult.succeed({ ...rest, task: resolved })
    },
    encode: (decoded) => ParseResult.succeed(decoded)
  }).annotations({ identifier, description })
}

/** Builds an input schema for shapes without a task (request and special families). */
export const plainInput = <Fields extends Schema.Struct.Fields>(identifier: string, description: string, fields: Fields) =>
  Schema.Struct({ ...fields, ...commonOptional }).annotations({ identifier, description })
