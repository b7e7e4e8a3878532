import * as Schema from "effect/Schema"
import { Score } from "../../src/Catalogue/Detection.js"
import { familyFields, NonEmptyText, traceInput } from "../../src/Catalogue/Families.js"
import { defineContract } from "../../src/Catalogue/Contract.js"

const Strength = Schema.Literal(
  "thoroughness",
  "persistence",
  "helpfulness",
  "caution",
  "initiative",
  "confidence",
  "none",
  "indeterminate"
)

export const contract = defineContract({
  slug: "grant_strengths",
  name: "GrantStrengths",
  friendly: "Grant Strengths as Weaknesses",
  group: "individual",
  summary:
    "Reads an agent run through Grant and Schwartz's inverted U: every strength an agent is built and prompted for (thoroughness, persistence, helpfulness, caution, initiative, confidence) raises performance up to an inflection point and lowers it beyond. The pattern finds the strength the run overdosed (verification loops, retry escalation, sycophantic accommodation, over-clarifying, scope creep, unverified assertion), places it on the curve for the run's task class, names the counterweight it crowded out, and proposes dosing controls rather than removing the strength.",
  anchor: "Grant & Schwartz 2011",
  family: "step_trace",
  schemas: () => ({
    input: traceInput("GrantStrengthsInput", "A step trace and the class of task it ran on (the inflection point depends on it).", {
      ...familyFields.step_trace,
      task_class: NonEmptyText.annotations({
        description:
          "The class of task the run belongs to (e.g. customer_support, code_fix, research, data_extraction, triage). The same strength peaks at different doses in different task classes."
      })
    }),
    headline: Schema.Struct({
      overused_strength: Strength.annotations({
        description:
          "The strength the run used past its inflection point: thoroughness, persistence, helpfulness, caution, initiative, confidence; none when every strength stayed in range; indeterminate when the trace cannot tell."
      }),
      overuse_score: Score.annotations({
        description: "How far past the inflection point the strength was pushed: 0 = within range, 1 = the overuse alone sank the run."
      }),
      inverted_u_position: Schema.Literal("below_peak", "near_peak", "past_peak", "indeterminate").annotations({
        description:
          "Where the dose of the named strength sits on Grant & Schwartz's inverted U for this task class: below_peak (too little), near_peak (about right), past_peak (overused)."
      }),
      neglected_counterweight: Schema.NullOr(Schema.String).annotations({
        description:
          "The complementary behaviour the overuse crowded out (e.g. decisiveness for thoroughness, stopping for persistence, candour for helpfulness), or null."
      }),
      task_class_fit: Schema.NullOr(Schema.String).annotations({
        description:
          "Why this strength is prized in the run's task class and where its inflection point lies there (a dose, a count, a budget), or null when the task class gives no basis."
      })
    }).annotations({
      identifier: "GrantStrengthsHeadline",
      description: "The overused strength, how far past its peak it went, and what it crowded out."
    })
  }),
  profiles: ["thoroughness", "persistence", "helpfulness", "caution", "initiative", "confidence", "none", "indeterminate"],
  sequences: ["steps"]
})
