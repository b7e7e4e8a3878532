import * as Schema from "effect/Schema"
import { Score } from "../../src/Catalogue/Detection.js"
import { familyFields, NonEmptyText, traceInput, UnitInterval } from "../../src/Catalogue/Families.js"
import { defineContract } from "../../src/Catalogue/Contract.js"

const Locus = Schema.Literal("internal", "environmental", "interactional", "indeterminate")

export const contract = defineContract({
  slug: "lewin",
  name: "Lewin",
  friendly: "Lewin Attribution",
  group: "individual",
  summary:
    "Reads a failed or shaky agent run through Lewin's B = f(P, E): was the behaviour driven by the agent itself (its model, prompt, reasoning: the person), by its environment (tools, data, quotas, the task as posed), or by the interaction of the two? Kelley's covariance principle (consensus, distinctiveness, consistency) tests the attribution, and Ross's fundamental attribution error guards against the reflex of blaming the model for what the environment did.",
  anchor: "Lewin 1936; Kelley 1967; Ross 1977",
  family: "step_trace",
  schemas: () => ({
    input: traceInput("LewinInput", "A step trace with optional attribution hints.", {
      ...familyFields.step_trace,
      individual_factors: Schema.optional(
        Schema.Array(NonEmptyText).annotations({
          description: "Known properties of the agent itself (P): model, prompt, temperature, skills, memory."
        })
      ),
      environmental_factors: Schema.optional(
        Schema.Array(NonEmptyText).annotations({
          description: "Known properties of the environment (E): tools, APIs, data, quotas, task wording."
        })
      ),
      initial_attribution: Schema.optional(
        Schema.String.annotations({ description: "The operator's first guess at the cause, to be tested." })
      ),
      covariance: Schema.optional(
        Schema.Struct({
          consensus: UnitInterval.annotations({
            description: "Share of other agents/models that fail the same way on this task (0..1)."
          }),
          distinctiveness: UnitInterval.annotations({
            description: "How specific the failure is to this task rather than all tasks (0..1)."
          }),
          consistency: UnitInterval.annotations({
            description: "How reliably this agent fails this task across runs (0..1)."
          })
        }).annotations({ description: "Kelley covariance judgements, when the operator has run comparisons." })
      )
    }),
    headline: Schema.Struct({
      dominant_locus: Locus.annotations({
        description: "Where the behaviour's cause sits: internal (P), environmental (E), interactional (P×E), or indeterminate."
      }),
      locus_scores: Schema.Struct({
        internal: Score.annotations({ description: "Weight of evidence for a cause in the agent itself." }),
        environmental: Score.annotations({ description: "Weight of evidence for a cause in the environment." }),
        interactional: Score.annotations({ description: "Weight of evidence for a P×E mismatch." })
      }).annotations({ description: "Weight of evidence for each locus, 0..1 each (they need not sum to 1)." }),
      initial_attribution_verdict: Schema.Literal("confirmed", "refuted", "partly", "not_given").annotations({
        description: "What the evidence says of the operator's initial attribution."
      }),
      attribution_error_risk: Schema.NullOr(Schema.String).annotations({
        description: "Where blaming the model would be Ross's fundamental attribution error, or null."
      })
    }).annotations({ identifier: "LewinHeadline", description: "Lewin attribution: where the cause sits." })
  }),
  profiles: ["internal", "environmental", "interactional", "indeterminate"],
  sequences: ["steps"]
})
