import * as Schema from "effect/Schema"
import { Score } from "../../src/Catalogue/Detection.js"
import { Message, NonEmptyText, outcome, success, traceInput, UnitInterval } from "../../src/Catalogue/Families.js"
import { defineContract } from "../../src/Catalogue/Contract.js"

const Cost = Schema.Number.pipe(Schema.nonNegative())

const LossSource = Schema.Literal(
  "aggregation",
  "information_loss",
  "duplication",
  "unresolved_conflict",
  "conformity",
  "reduced_effort",
  "overhead"
)

export const contract = defineContract({
  slug: "process_gain_loss",
  name: "ProcessGainLoss",
  friendly: "Process Gain/Loss",
  group: "team",
  summary:
    "Asks whether a multi-agent team did better or worse than its members would have done alone. Following Steiner's model (actual productivity = potential productivity − process losses), it computes the team's potential from the solo baselines and the task type (best member for disjunctive tasks, weakest for conjunctive, mean for compensatory), measures strong and weak synergy against the best and the mean member, and reads the interaction log for where the loss came from: coordination losses (an aggregation rule that discards the best answer, information lost in handoffs, duplicated work, unresolved conflict) or motivation losses (conformity, reduced effort). It ends with a verdict on whether the team is worth its cost.",
  anchor: "Steiner 1972",
  family: "special",
  schemas: () => ({
    input: traceInput("ProcessGainLossInput", "A team result, the solo baselines of its members on the same task, and optionally the team's interaction log.", {
      individual_baselines: Schema.Array(
        Schema.Struct({
          agent: NonEmptyText.annotations({ description: "Member agent (or model) name, as in the interaction log." }),
          quality: UnitInterval.annotations({
            description: "Quality the agent reached alone on the same task and budget, 0..1 (pass rate, eval score, accuracy)."
          }),
          cost: Schema.optional(
            Cost.annotations({ description: "Cost of the solo run (USD, tokens or seconds; the same unit as team_result.cost)." })
          )
        }).annotations({ description: "One member's solo baseline." })
      )
        .pipe(Schema.minItems(1))
        .annotations({ description: "Each member's solo result on the same task; referenced as individual_baselines[i]." }),
      team_result: Schema.Struct({
        quality: UnitInterval.annotations({ description: "Quality the team reached, on the same 0..1 measure as the baselines." }),
        cost: Schema.optional(Cost.annotations({ description: "Cost of the team run, in the unit of the baselines' cost." }))
      }).annotations({ description: "The team's result; referenced as team_result." }),
      interaction_log: Schema.optional(
        Schema.Array(Message).annotations({
          description: "The team's messages in order, when available; referenced as interaction_log[i]."
        })
      ),
      task_type: Schema.optional(
        Schema.Literal("disjunctive", "conjunctive", "additive", "compensatory", "discretionary").annotations({
          description:
            "Steiner's task type, which sets the potential: disjunctive (one correct answer suffices: best member), conjunctive (every part must succeed: weakest member), additive (contributions sum), compensatory (answers are averaged: mean member), discretionary (the team chooses how to combine). Defaults to disjunctive."
        })
      ),
      outcome,
      success
    }),
    headline: Schema.Struct({
      verdict: Schema.Literal("strong_gain", "weak_gain", "no_effect", "loss", "indeterminate").annotations({
        description:
          "Team against its members: strong_gain (above the best member), weak_gain (above the mean, not the best), no_effect (at the mean), loss (below the mean), indeterminate."
      }),
      potential_productivity: Schema.NullOr(Score).annotations({
        description: "Steiner's potential productivity for the task type, from the solo baselines, or null if it cannot be set."
      }),
      net_vs_potential: Schema.NullOr(Schema.Number.pipe(Schema.between(-1, 1))).annotations({
        description: "Team quality minus potential productivity (negative = process loss, positive = process gain), or null."
      }),
      dominant_loss: Schema.Literal("coordination", "motivation", "none", "indeterminate").annotations({
        description: "Steiner's two loss families: coordination (combining contributions badly) or motivation (members contributing less)."
      }),
      loss_sources: Schema.Array(LossSource).annotations({
        description:
          "Mechanisms seen in the log: aggregation, information_loss, duplication, unresolved_conflict (coordination); conformity, reduced_effort (motivation); overhead (cost without quality)."
      }),
      recommendation: Schema.Literal("keep_team", "restructure_team", "use_best_single_agent", "indeterminate").annotations({
        description: "Whether the team is worth running as is, should change its process, or should be replaced by its best member."
      })
    }).annotations({
      identifier: "ProcessGainLossHeadline",
      description: "Process gain or loss against the solo baselines, and where the loss came from."
    })
  }),
  profiles: ["process_gain", "coordination_loss", "motivation_loss", "no_net_effect", "indeterminate"],
  sequences: ["interaction_log"],
  traces: {
    accepts: true,
    needs: "hints.individual_baselines (each member's solo quality on the same task) and hints.team_result (the team's measured quality); the interaction log is read from the trace."
  }
})
