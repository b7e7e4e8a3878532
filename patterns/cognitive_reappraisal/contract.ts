import * as Schema from "effect/Schema"
import { NonEmptyText, outcome, plainInput, success } from "../../src/Catalogue/Families.js"
import { defineContract } from "../../src/Catalogue/Contract.js"

const Strategy = Schema.Literal(
  "situation_selection",
  "situation_modification",
  "attentional_deployment",
  "cognitive_change",
  "response_modulation",
  "acknowledgement_only",
  "none",
  "indeterminate"
)

export const contract = defineContract({
  slug: "cognitive_reappraisal",
  name: "CognitiveReappraisal",
  friendly: "Cognitive Reappraisal",
  group: "individual",
  summary:
    "Reads one emotionally loaded exchange through Gross's process model of emotion regulation: which of the five regulation families the agent's response used on the user's emotion (situation selection, situation modification, attentional deployment, cognitive change or reappraisal, response modulation or suppression), and which one the situation needed. It separates antecedent-focused help (fix the problem, or reframe it with true facts) from response-focused damping ('don't worry', 'calm down'). It flags reappraisals built on false reassurance and reframes offered where the situation should have been changed.",
  anchor: "Gross 1998",
  family: "special",
  schemas: () => ({
    input: plainInput("CognitiveReappraisalInput", "One user message carrying emotion, the agent's response, and what happened next.", {
      user_input: NonEmptyText.annotations({ description: "The user's message the agent responded to." }),
      user_emotion: Schema.optional(
        NonEmptyText.annotations({
          description: "The user's emotion when known (labelled, or from a classifier): fearful, angry, sad, frustrated, ..."
        })
      ),
      agent_response: NonEmptyText.annotations({ description: "The agent's full response to that message, including any action it reports." }),
      outcome,
      success
    }),
    headline: Schema.Struct({
      strategy_used: Strategy.annotations({
        description: "The main regulation family the response applied to the user's emotion (acknowledgement_only: it named the emotion and did nothing at any point of the process)."
      }),
      strategy_needed: Strategy.annotations({
        description: "The family the situation called for: situation_modification when the cause is fixable, cognitive_change when the appraisal is mistaken, and so on."
      }),
      fit: Schema.Literal("fit", "partial", "mismatch", "indeterminate").annotations({
        description: "Whether the strategy used was the one needed: fit, partial (right family, poorly executed or incomplete), mismatch."
      }),
      reframe_validity: Schema.Literal("accurate", "false_reassurance", "minimising", "not_attempted", "indeterminate").annotations({
        description:
          "Quality of any reappraisal: accurate (true facts that change the meaning), false_reassurance (the reframe rests on claims the outcome contradicts), minimising (denies the stakes), not_attempted."
      }),
      emotion_read: Schema.Literal("correct", "misread", "ignored", "indeterminate").annotations({
        description: "Whether the response addressed the emotion the user actually had."
      })
    }).annotations({
      identifier: "CognitiveReappraisalHeadline",
      description: "Gross process model: regulation strategy used versus needed."
    })
  }),
  profiles: [
    "fit",
    "suppression",
    "false_reassurance",
    "reappraisal_instead_of_action",
    "action_without_reappraisal",
    "unregulated",
    "indeterminate"
  ],
  sequences: []
})
