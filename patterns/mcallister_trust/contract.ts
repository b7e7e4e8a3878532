import * as Schema from "effect/Schema"
import { Score } from "../../src/Catalogue/Detection.js"
import { familyFields, traceInput } from "../../src/Catalogue/Families.js"
import { defineContract } from "../../src/Catalogue/Contract.js"

export const contract = defineContract({
  slug: "mcallister_trust",
  name: "McAllisterTrust",
  friendly: "McAllister Trust Balance",
  group: "team",
  summary:
    "Reads a user-agent (or agent-agent) conversation through McAllister's two foundations of interpersonal trust: cognition-based trust, earned by reliable role performance (grounded answers, kept commitments, calibrated confidence), and affect-based trust, earned by care and attention to the other party's needs. It measures how the trustor's behaviour changes over the turns (verification requests, corrections, taking the work back, disclosure, thanks), finds where trust broke and on which foundation, and flags warmth that keeps reliance alive after competence has failed (over-trust, sycophancy).",
  anchor: "McAllister 1995",
  family: "conversation",
  schemas: () => ({
    input: traceInput(
      "McAllisterTrustInput",
      "A conversation between a trustor (usually the user, or a delegating agent) and the agent being trusted.",
      { ...familyFields.conversation }
    ),
    headline: Schema.Struct({
      cognitive_trust: Score.annotations({
        description:
          "Cognition-based trust at the end of the conversation: how far the trustor relies on the agent's competence and reliability (0 = withdrawn, 1 = solid)."
      }),
      affective_trust: Score.annotations({
        description:
          "Affect-based trust at the end of the conversation: how far the trustor experiences the agent as attending to their needs and concerns (0 = absent, 1 = strong)."
      }),
      balance: Schema.Literal("cognitive_led", "affective_led", "balanced", "both_low", "indeterminate").annotations({
        description:
          "Which foundation carries the relationship: cognitive_led (reliable but cold), affective_led (warm but unreliable), balanced, both_low, or indeterminate."
      }),
      trajectory: Schema.Literal("building", "stable", "eroding", "collapsed", "indeterminate").annotations({
        description:
          "How trust moved over the turns: building, stable, eroding, collapsed (the trustor took the work back or left), or indeterminate."
      }),
      calibration: Schema.Literal("calibrated", "over_trust", "under_trust", "indeterminate").annotations({
        description:
          "Whether the trustor's reliance matched the agent's demonstrated reliability: over_trust (relying on unverified or wrong output), under_trust (checking reliable output), calibrated, or indeterminate."
      }),
      erosion_point: Schema.NullOr(Schema.String).annotations({
        description: "Reference of the turn where trust first visibly broke, e.g. `turns[2]`, or null when it did not break."
      })
    }).annotations({
      identifier: "McAllisterTrustHeadline",
      description: "McAllister trust balance: cognitive versus affective trust, their trajectory and calibration."
    })
  }),
  profiles: ["balanced", "cognitive_deficit", "affective_deficit", "dual_deficit", "affect_masking", "indeterminate"],
  sequences: ["turns"]
})
