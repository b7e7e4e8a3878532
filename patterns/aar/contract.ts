import * as Schema from "effect/Schema"
import { familyFields, traceInput } from "../../src/Catalogue/Families.js"
import { defineContract } from "../../src/Catalogue/Contract.js"

const GapKind = Schema.Literal(
  "met_intent",
  "intent_unclear",
  "plan_flawed",
  "execution_drift",
  "conditions_changed",
  "indeterminate"
)

const Owner = Schema.Literal("prompt", "tool", "scaffold", "eval", "human_review", "guardrail", "process")

export const contract = defineContract({
  slug: "aar",
  name: "Aar",
  friendly: "After-Action Review",
  group: "team",
  summary:
    "Runs the US Army after-action review (TC 25-20, 1993) on an agent run: what was supposed to happen (the task's standard and the agent's own plan), what actually happened step by step, why the two differ (unclear intent, a flawed plan, drift in execution, or changed conditions), and what to sustain and improve. The result is a blameless, evidence-cited review that ends in concrete next steps an agent builder can own, with deterministic signals for stated intent, the first error, verification, assumptions and completion claimed on a failed run.",
  anchor: "US Army TC 25-20 (1993)",
  family: "step_trace",
  schemas: () => ({
    input: traceInput("AarInput", "A step trace of one agent run to review after the fact.", {
      ...familyFields.step_trace
    }),
    headline: Schema.Struct({
      intended: Schema.String.annotations({
        description:
          "What was supposed to happen: the task's standard and the agent's stated plan, in one or two sentences."
      }),
      actual: Schema.String.annotations({ description: "What actually happened, in one or two sentences, from the trace." }),
      gap: Schema.Struct({
        kind: GapKind.annotations({
          description:
            "Why intended and actual differ: met_intent (no gap), intent_unclear, plan_flawed, execution_drift, conditions_changed, or indeterminate."
        }),
        first_divergence: Schema.NullOr(Schema.String).annotations({
          description: "Ref of the first element where the run departed from the intent, e.g. `steps[4]`, or null when there is no gap."
        }),
        why: Schema.String.annotations({ description: "Why there was a difference, stated as a cause in the run, not a blame." })
      }).annotations({ description: "The difference between intended and actual, and its cause." }),
      sustain: Schema.Array(Schema.String).annotations({
        description: "What went right and should be kept in the next run (TC 25-20 'sustain')."
      }),
      improve: Schema.Array(Schema.String).annotations({
        description: "Lessons: what to do differently next time (TC 25-20 'improve')."
      }),
      next_steps: Schema.Array(
        Schema.Struct({
          action: Schema.String.annotations({ description: "The concrete change to make before the next run." }),
          owner: Owner.annotations({ description: "Where the change lands: prompt, tool, scaffold, eval, human_review, guardrail or process." }),
          verify_by: Schema.String.annotations({ description: "How the next run (or an eval) will show the change worked." })
        }).annotations({ description: "One follow-up action of the review." })
      ).annotations({ description: "Follow-up actions that close the gap, each with an owner layer and a check." })
    }).annotations({ identifier: "AarHeadline", description: "After-action review: intended vs actual, the gap, lessons and next steps." })
  }),
  profiles: ["met_intent", "intent_unclear", "plan_flawed", "execution_drift", "conditions_changed", "indeterminate"],
  sequences: ["steps"]
})
