import * as Schema from "effect/Schema"
import { Score } from "../../src/Catalogue/Detection.js"
import { familyFields, traceInput } from "../../src/Catalogue/Families.js"
import { defineContract } from "../../src/Catalogue/Contract.js"

export const contract = defineContract({
  slug: "psych_safety",
  name: "PsychSafety",
  friendly: "Edmondson Psychological Safety",
  group: "team",
  summary:
    "Reads a multi-agent message log through Edmondson's team psychological safety: whether the system makes it safe to surface errors, uncertainty, questions and dissent, and whether the team shows the learning behaviour that safety enables. In agent systems the climate is built by orchestrator prompts ('only report success'), by how the lead agent answers a reported failure (inquiry or blame), and by what downstream summaries keep. The pattern counts errors surfaced versus errors masked on the way up, measures voice before and after the first punitive response, and names where a failure was hidden.",
  anchor: "Edmondson 1999",
  family: "message_log",
  schemas: () => ({
    input: traceInput(
      "PsychSafetyInput",
      "A multi-agent message log (orchestrator, workers, reviewers) in which errors, questions and concerns may or may not be voiced.",
      { ...familyFields.message_log }
    ),
    headline: Schema.Struct({
      safety_level: Schema.Literal("low", "medium", "high", "indeterminate").annotations({
        description: "Psychological safety of the run's climate, read from how errors, questions and dissent were voiced and answered."
      }),
      errors_surfaced: Schema.Int.pipe(Schema.nonNegative()).annotations({
        description: "Errors or failures that an agent reported openly to the team."
      }),
      errors_hidden: Schema.Int.pipe(Schema.nonNegative()).annotations({
        description: "Errors that occurred but were masked, dropped or reported as success further along the log."
      }),
      response_to_voice: Schema.Literal("inquiry", "neutral", "dismissal", "blame", "none_observed", "indeterminate").annotations({
        description:
          "How the lead or receiving agents answered a reported error, question or concern: inquiry (asked what happened, thanked), neutral, dismissal, blame, none_observed (nothing was voiced), or indeterminate."
      }),
      learning_behaviour: Score.annotations({
        description:
          "Presence of Edmondson's learning behaviours in the log: asking for help or clarification, seeking feedback, talking about errors, raising concerns, experimenting (0 = none, 1 = pervasive)."
      }),
      silenced_agent: Schema.NullOr(Schema.String).annotations({
        description: "The agent whose voice was most suppressed (went quiet, deferred, or dropped a concern it had), or null."
      }),
      first_concealment: Schema.NullOr(Schema.String).annotations({
        description: "Reference of the first message where an error was masked or dropped, e.g. `messages[5]`, or null."
      })
    }).annotations({
      identifier: "PsychSafetyHeadline",
      description: "Edmondson psychological safety: safety level, errors surfaced versus hidden, and how voice was answered."
    })
  }),
  profiles: ["learning_climate", "error_hiding", "voice_withheld", "punitive_response", "indeterminate"],
  sequences: ["messages"]
})
