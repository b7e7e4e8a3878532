import * as Schema from "effect/Schema"
import { familyFields, NonEmptyText, traceInput } from "../../src/Catalogue/Families.js"
import { defineContract } from "../../src/Catalogue/Contract.js"

export const contract = defineContract({
  slug: "schein_culture",
  name: "ScheinCulture",
  friendly: "Schein Culture Audit",
  group: "organization",
  summary:
    "Audits the culture an agent actually enacts with Schein's three levels: artifacts (the observable behaviour, tool use and output habits), espoused values (what the system prompt says matters) and basic underlying assumptions (what the agent's behaviour shows it takes for granted, such as 'an answer beats no answer' or 'closing the ticket is the goal'). It names where enacted behaviour contradicts the espoused values, which unstated assumption explains the contradiction, and which embedding mechanism (metrics, rewards, examples, tools) to change so that the prompt's values become the agent's real ones.",
  anchor: "Schein 1985",
  family: "behaviour_report",
  schemas: () => ({
    input: traceInput("ScheinCultureInput", "Observed behaviours of an agent together with its system prompt.", {
      ...familyFields.behaviour_report,
      system_prompt: NonEmptyText.annotations({
        description: "The agent's system prompt: the espoused values this audit compares the behaviour with. Referenced as `system_prompt`."
      })
    }),
    headline: Schema.Struct({
      artifacts: Schema.Array(Schema.String).annotations({
        description: "The observable artifacts that characterise the agent's culture: recurring behaviours, tool habits, output forms."
      }),
      espoused_values: Schema.Array(Schema.String).annotations({
        description: "The values the system prompt espouses, each in a few words."
      }),
      assumptions: Schema.Array(Schema.String).annotations({
        description: "Basic underlying assumptions the behaviour reveals, each stated as the belief the agent acts on."
      }),
      misalignment_level: Schema.Literal("none", "low", "medium", "high", "indeterminate").annotations({
        description: "How far enacted behaviour departs from the espoused values, or indeterminate when the behaviours cannot tell."
      }),
      misalignments: Schema.Array(
        Schema.Struct({
          espoused: Schema.String.annotations({ description: "The value as the system prompt states it." }),
          enacted: Schema.String.annotations({ description: "What the agent actually does instead." }),
          assumption: Schema.NullOr(Schema.String).annotations({
            description: "The tacit assumption that explains the gap, or null when none can be inferred."
          })
        }).annotations({ description: "One place where espoused and enacted culture part." })
      ).annotations({ description: "Each espoused value the behaviour contradicts, with the assumption behind it." })
    }).annotations({
      identifier: "ScheinCultureHeadline",
      description: "Schein's three levels read from the agent: artifacts, espoused values, assumptions, and where they misalign."
    })
  }),
  profiles: ["aligned", "espoused_enacted_gap", "conflicting_values", "tacit_assumption", "indeterminate"],
  sequences: ["observed_behaviors"],
  traces: {
    accepts: true,
    needs: "hints.system_prompt (the agent's system prompt, its espoused values) when the trace holds no system prompt of its own."
  }
})
