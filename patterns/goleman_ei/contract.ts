import * as Schema from "effect/Schema"
import { Score } from "../../src/Catalogue/Detection.js"
import { familyFields, NonEmptyText, traceInput } from "../../src/Catalogue/Families.js"
import { defineContract } from "../../src/Catalogue/Contract.js"

const Domain = Schema.Literal(
  "self_awareness",
  "self_management",
  "social_awareness",
  "relationship_management",
  "none",
  "indeterminate"
)

export const contract = defineContract({
  slug: "goleman_ei",
  name: "GolemanEi",
  friendly: "Goleman EI Audit",
  group: "individual",
  summary:
    "Audits a user-facing agent through Goleman's emotional-intelligence model in its four-domain form (Goleman, Boyatzis & McKee): self-awareness (does the agent know and say what it can and cannot do, with calibrated confidence), self-management (does it stay composed, transparent and adaptive when the user is hostile or its own attempts fail, instead of apology loops or defensiveness), social awareness (does it read the user's frustration, urgency or confusion and act on it, rather than answering with stock empathy), and relationship management (does it de-escalate, hand off to a human and keep trust without sycophantic concessions). Scores each domain and names the weakest one.",
  anchor: "Goleman 1995; Goleman, Boyatzis & McKee 2002",
  family: "behaviour_report",
  schemas: () => ({
    input: traceInput("GolemanEiInput", "Observed behaviours of a user-facing agent, with optional user cues and the agent's own claims.", {
      ...familyFields.behaviour_report,
      interaction_class: Schema.optional(
        NonEmptyText.annotations({
          description:
            "What kind of interaction the agent serves: customer_support, coding_assistant, tutoring, sales, healthcare_intake, internal_ops, ... It sets which emotional competences matter most."
        })
      ),
      user_signals: Schema.optional(
        Schema.Array(NonEmptyText).annotations({
          description:
            "Cues from the user side, one per item, in order (quoted messages, sentiment labels, escalation requests, churn events); referenced as user_signals[i]."
        })
      ),
      self_reports: Schema.optional(
        Schema.Array(NonEmptyText).annotations({
          description:
            "What the agent said about itself or its own work (\"I have fixed it\", \"I'm not certain\", \"I can't access billing\"); referenced as self_reports[i]."
        })
      )
    }),
    headline: Schema.Struct({
      domain_scores: Schema.Struct({
        self_awareness: Score.annotations({
          description: "Accurate self-assessment: the agent's claims about its own work and limits match what it did (1 = fully calibrated)."
        }),
        self_management: Score.annotations({
          description: "Composure, transparency and adaptability under friction: no apology loops, no defensiveness, changes approach after failure."
        }),
        social_awareness: Score.annotations({
          description: "Empathy and service orientation: the agent notices the user's emotional and practical cues and its response changes because of them."
        }),
        relationship_management: Score.annotations({
          description: "Conflict management and collaboration: de-escalates, hands off when it should, keeps trust without conceding what is not true."
        })
      }).annotations({ description: "Score per EI domain, 0 (absent) to 1 (fully present)." }),
      weakest_domain: Domain.annotations({
        description: "The domain whose failure did most harm in this run; `none` when all are adequate, `indeterminate` when the report cannot tell."
      }),
      empathy_mode: Schema.Literal("genuine", "formulaic", "sycophantic", "absent", "indeterminate").annotations({
        description:
          "How empathy showed: genuine (the cue changed what the agent did), formulaic (stock phrases, no change in action), sycophantic (agreement or concessions instead of help), absent, or indeterminate."
      }),
      self_report_reliability: Schema.Literal("reliable", "overclaiming", "underclaiming", "not_given", "indeterminate").annotations({
        description: "Whether the agent's self-reports match the evidence: reliable, overclaiming (says done or verified when it was not), underclaiming, or not_given."
      })
    }).annotations({ identifier: "GolemanEiHeadline", description: "Goleman EI audit: score per domain and the weakest domain." })
  }),
  profiles: [
    "self_awareness_gap",
    "self_management_gap",
    "social_awareness_gap",
    "relationship_management_gap",
    "balanced",
    "indeterminate"
  ],
  sequences: ["observed_behaviors", "user_signals", "self_reports"]
})
