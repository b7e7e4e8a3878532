import * as Schema from "effect/Schema"
import { Score } from "../../src/Catalogue/Detection.js"
import { familyFields, NonEmptyText, traceInput } from "../../src/Catalogue/Families.js"
import { defineContract } from "../../src/Catalogue/Contract.js"

const Trap = Schema.Literal(
  "values_mismatch",
  "lack_of_self_efficacy",
  "disruptive_emotions",
  "attribution_errors",
  "none",
  "indeterminate"
)

export const contract = defineContract({
  slug: "motivation_traps",
  name: "MotivationTraps",
  friendly: "Motivation Traps",
  group: "individual",
  summary:
    "Diagnoses why an agent gave up, stalled or put in too little effort, using Clark and Saxberg's four motivation traps: values mismatch (the task does not connect to what the agent is built and rewarded for), lack of self-efficacy (it believes it cannot do it, despite the tools it has), disruptive emotions (apology spirals, distress, hostile input), and attribution errors (it blames a stable, uncontrollable cause it misdiagnosed). Naming the trap first matters because the wrong fix (telling the agent to try harder) deepens the trap.",
  anchor: "Clark & Saxberg 2019",
  family: "behaviour_report",
  schemas: () => ({
    input: traceInput("MotivationTrapsInput", "Observed behaviours of an agent that gave up or disengaged, with how it gave up.", {
      ...familyFields.behaviour_report,
      abandonment_signal: NonEmptyText.annotations({
        description:
          "How the agent gave up, stalled or disengaged: its last words or the observed stop (a refusal, a premature 'done', a hand-off to the user, a degraded answer); referenced as abandonment_signal."
      }),
      prior_failures: Schema.optional(
        Schema.Array(NonEmptyText).annotations({
          description:
            "Failures that came before the abandonment, in this run or earlier runs of the same task, one per item; referenced as prior_failures[i]."
        })
      )
    }),
    headline: Schema.Struct({
      trap: Trap.annotations({
        description:
          "The motivation trap that best explains the abandonment: values_mismatch, lack_of_self_efficacy, disruptive_emotions, attribution_errors; none when the agent did not disengage for motivational reasons (e.g. a hard limit stopped it); indeterminate when the report cannot tell."
      }),
      trap_scores: Schema.Struct({
        values_mismatch: Score.annotations({ description: "Weight of evidence that the task did not connect to what the agent values (role, objective, reward)." }),
        lack_of_self_efficacy: Score.annotations({ description: "Weight of evidence that the agent believed it could not succeed." }),
        disruptive_emotions: Score.annotations({ description: "Weight of evidence that affect-laden behaviour (apologies, distress, reaction to hostility) displaced work." }),
        attribution_errors: Score.annotations({ description: "Weight of evidence that the agent blamed a wrong, stable or uncontrollable cause." })
      }).annotations({ description: "Weight of evidence for each of the four traps, 0..1 each (they need not sum to 1)." }),
      failed_process: Schema.Literal("active_choice", "persistence", "mental_effort", "indeterminate").annotations({
        description:
          "Which motivational process failed: active_choice (never really started), persistence (started, then quit), mental_effort (kept going with shallow, low-effort work)."
      }),
      abandonment_form: Schema.Literal("refused", "stopped", "declared_done", "handed_off", "degraded_effort", "indeterminate").annotations({
        description:
          "How the abandonment showed: refused the task, stopped mid-way, declared done prematurely, handed the work back to the user, or kept going with degraded effort."
      }),
      misapplied_fix_risk: Schema.NullOr(Schema.String).annotations({
        description:
          "The fix a builder would reach for that would deepen this trap (e.g. 'try harder' instructions for lack of self-efficacy), or null."
      })
    }).annotations({
      identifier: "MotivationTrapsHeadline",
      description: "The motivation trap behind the abandonment, the process it broke and the fix to avoid."
    })
  }),
  profiles: ["values_mismatch", "lack_of_self_efficacy", "disruptive_emotions", "attribution_errors", "none", "indeterminate"],
  sequences: ["observed_behaviors", "prior_failures"]
})
