import * as Schema from "effect/Schema"
import { familyFields, traceInput } from "../../src/Catalogue/Families.js"
import { defineContract } from "../../src/Catalogue/Contract.js"

const Level = Schema.Literal("I", "II", "III")

export const contract = defineContract({
  slug: "glaser_conversation",
  name: "GlaserConversation",
  friendly: "Glaser Conversation Steering",
  group: "team",
  summary:
    "Reads a conversation through Glaser's three levels of conversation: Level I transactional (tell and ask, exchange information), Level II positional (advocate and inquire, persuade and defend), and Level III transformational (share and discover, co-create). It decides which level the task needed and which level the agent actually held, measures the moves behind it (questions asked and of what kind, advocacy, restated positions, co-creation, pronouns), and names the mismatch: an agent executing literally when the goal needed discovering, defending its output against a user's pushback, or flooding a simple request with open questions.",
  anchor: "Glaser 2014",
  family: "conversation",
  schemas: () => ({
    input: traceInput(
      "GlaserConversationInput",
      "A conversation between a user (or requesting agent) and an agent, or between agents.",
      { ...familyFields.conversation }
    ),
    headline: Schema.Struct({
      observed_level: Schema.Literal("I", "II", "III", "indeterminate").annotations({
        description: "The conversation level the agent mostly held: I transactional, II positional, III transformational."
      }),
      required_level: Schema.Literal("I", "II", "III", "indeterminate").annotations({
        description:
          "The level the task needed: I for a transaction or lookup, II for choosing between positions with reasons, III for an ill-defined problem whose goal had to be discovered together."
      }),
      mismatch: Schema.Literal("none", "under_level", "over_level", "indeterminate").annotations({
        description: "Whether the agent held the conversation below the needed level, above it, at it, or whether this cannot be told."
      }),
      level_path: Schema.Array(Level.annotations({ description: "A conversation level." })).annotations({
        description: "The agent's conversation level phase by phase (for example beginning, middle, end), in order."
      }),
      shift_point: Schema.NullOr(Schema.String).annotations({
        description:
          "Reference of the turn where the conversation should have changed level (usually a user signal the agent did not take up), e.g. `turns[3]`, or null."
      }),
      missed_move: Schema.NullOr(Schema.String).annotations({
        description:
          "The concrete move the agent should have made at the shift point (a discovery question, a reason plus an inquiry, a direct answer), written as the agent would say it, or null."
      })
    }).annotations({
      identifier: "GlaserConversationHeadline",
      description: "Glaser conversation steering: observed versus required conversation level and where it went wrong."
    })
  }),
  profiles: ["aligned", "transactional_trap", "positional_lock", "over_elevated", "indeterminate"],
  sequences: ["turns"]
})
