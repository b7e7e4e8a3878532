import * as Schema from "effect/Schema"
import { Score } from "../../src/Catalogue/Detection.js"
import { familyFields, Message, traceInput } from "../../src/Catalogue/Families.js"
import { defineContract } from "../../src/Catalogue/Contract.js"

const FeedbackMessage = Schema.Struct({
  ...Message.fields,
  is_feedback: Schema.optional(
    Schema.Boolean.annotations({
      description: "True when this message gives feedback (a review, critique, evaluation or suggestion) on another agent's work."
    })
  )
}).annotations({
  identifier: "FeedbackMessage",
  description: "One message of the log; feedback messages carry `is_feedback: true`."
})

export const contract = defineContract({
  slug: "feedback_triggers",
  name: "FeedbackTriggers",
  friendly: "Stone-Heen Feedback Triggers",
  group: "team",
  summary:
    "Reads how agents receive feedback through Stone and Heen's three triggers: truth triggers (the feedback seems wrong or unhelpful, so the receiver rejects it or spots one flaw and discards the rest), relationship triggers (the receiver reacts to who gave it: the critic 'lacks context', the lead 'decides', the subject switches to the giver), and identity triggers (the feedback shakes the receiver's story about itself, so it collapses, apologises and starts over, or defends its competence). It follows each feedback message to the receiver's answer and to whether the feedback was incorporated, and separates the kind of feedback given (appreciation, coaching, evaluation).",
  anchor: "Stone & Heen 2014",
  family: "message_log",
  schemas: () => ({
    input: traceInput(
      "FeedbackTriggersInput",
      "A multi-agent message log in which some messages give feedback (critic, reviewer, evaluator, user) and others receive it.",
      {
        agents: familyFields.message_log.agents,
        messages: Schema.Array(FeedbackMessage)
          .pipe(Schema.minItems(1))
          .annotations({ description: "The message log in order; referenced as messages[i]. Mark feedback messages with `is_feedback`." }),
        outcome: familyFields.message_log.outcome,
        success: familyFields.message_log.success,
        feedback_incorporated: Schema.optional(
          Schema.Boolean.annotations({
            description:
              "Whether the feedback given during the run ended up in the final result (judged by the operator, a diff or an eval). Optional: without it (a raw trace, say) the model judges it from the later messages."
          })
        )
      }
    ),
    headline: Schema.Struct({
      dominant_trigger: Schema.Literal("truth", "relationship", "identity", "none", "indeterminate").annotations({
        description: "The trigger that most blocked the feedback: truth, relationship, identity; none when it was received well; indeterminate."
      }),
      trigger_scores: Schema.Struct({
        truth: Score.annotations({ description: "Weight of evidence that the receiver rejected the content as wrong or unhelpful." }),
        relationship: Score.annotations({ description: "Weight of evidence that the receiver reacted to the giver rather than the content." }),
        identity: Score.annotations({ description: "Weight of evidence that the feedback threatened the receiver's self-story (collapse or defence)." })
      }).annotations({ description: "Weight of evidence for each trigger, 0..1 each (they need not sum to 1)." }),
      reaction: Schema.Literal(
        "incorporated",
        "partially_incorporated",
        "rejected",
        "deflected",
        "collapsed",
        "ignored",
        "indeterminate"
      ).annotations({
        description:
          "What the receiver did with the feedback: incorporated, partially_incorporated, rejected (content disputed), deflected (switched to the giver), collapsed (capitulated or over-corrected), ignored, or indeterminate."
      }),
      feedback_kind: Schema.Literal("appreciation", "coaching", "evaluation", "mixed", "indeterminate").annotations({
        description: "The kind of feedback mostly given: appreciation, coaching (how to improve), evaluation (where you stand), or mixed."
      }),
      triggered_agent: Schema.NullOr(Schema.String).annotations({
        description: "The agent whose reception of feedback was triggered, or null."
      }),
      first_triggered_response: Schema.NullOr(Schema.String).annotations({
        description: "Reference of the first triggered response to feedback, e.g. `messages[3]`, or null."
      })
    }).annotations({
      identifier: "FeedbackTriggersHeadline",
      description: "Stone-Heen feedback triggers: which trigger blocked the feedback, and what the receiver did with it."
    })
  }),
  profiles: ["truth", "relationship", "identity", "none", "indeterminate"],
  sequences: ["messages"]
})
