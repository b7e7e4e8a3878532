import * as Schema from "effect/Schema"
import { Score } from "../../src/Catalogue/Detection.js"
import { familyFields, NonEmptyText, traceInput, UnitInterval } from "../../src/Catalogue/Families.js"
import { defineContract } from "../../src/Catalogue/Contract.js"

const Pressure = Schema.Struct({
  deadline: Schema.optional(
    Schema.Struct({
      limit_seconds: Schema.Number.pipe(Schema.positive()).annotations({ description: "Wall-clock time the run was allowed, in seconds." }),
      elapsed_seconds: Schema.Number.pipe(Schema.nonNegative()).annotations({
        description: "Time used when the run ended (or at the failure point), in seconds."
      })
    }).annotations({ description: "Time pressure: the allowance and how much of it was used." })
  ),
  budget: Schema.optional(
    Schema.Struct({
      limit: Schema.Number.pipe(Schema.positive()).annotations({ description: "Budget allowed for the run (money, tokens or tool calls)." }),
      spent: Schema.Number.pipe(Schema.nonNegative()).annotations({ description: "Budget used by the end of the run, in the same unit." }),
      unit: Schema.optional(NonEmptyText.annotations({ description: "Unit of the budget: usd, tokens, tool_calls, ..." }))
    }).annotations({ description: "Resource pressure: the budget and how much of it was spent." })
  ),
  retry_cap: Schema.optional(
    Schema.Struct({
      cap: Schema.Int.pipe(Schema.nonNegative()).annotations({ description: "Retries the orchestrator allowed (0 = every failure is final)." }),
      used: Schema.Int.pipe(Schema.nonNegative()).annotations({ description: "Retries actually used." })
    }).annotations({ description: "Error-tolerance pressure: how much room for failure was left." })
  ),
  complexity: Schema.optional(
    Schema.Literal("low", "medium", "high").annotations({
      description: "Task difficulty. It does not add load; it moves the optimum (harder tasks perform best at lower load)."
    })
  ),
  context_fill: Schema.optional(
    UnitInterval.annotations({ description: "Peak share of the model's context window in use during the run, 0..1." })
  ),
  observed: Schema.optional(
    Schema.Struct({
      retries: Schema.Int.pipe(Schema.nonNegative()).annotations({
        description: "Tool calls that repeated a call to the same tool after it had failed."
      }),
      errors: Schema.Int.pipe(Schema.nonNegative()).annotations({ description: "Error events in the run." }),
      tool_calls: Schema.Int.pipe(Schema.nonNegative()).annotations({ description: "Tool calls in the run." }),
      elapsed_seconds: Schema.optional(
        Schema.Number.pipe(Schema.nonNegative()).annotations({
          description: "Time from the first to the last timestamped event, in seconds, when the trace has timestamps."
        })
      )
    }).annotations({
      description:
        "The strain a raw trace shows, counted by code (retries, errors, tool calls, elapsed time). It states no limit, so it adds no load of its own: it is reported next to the load as an estimate."
    })
  )
}).annotations({
  description:
    "The pressures the agent ran under. Each part is optional; the load score is computed from the parts given (deadline, budget, retry cap, context fill), and complexity sets the optimal band. From a raw trace the limits are read from the set-up's own wording (\"within 10 minutes\", \"at most 3 retries\") and `observed` is counted from the events."
})

export const contract = defineContract({
  slug: "yerkes_dodson",
  name: "YerkesDodson",
  friendly: "Yerkes-Dodson Workload",
  group: "individual",
  summary:
    "Places an agent run on the Yerkes-Dodson inverted U: performance rises with arousal up to an optimum and falls beyond it, and the optimum is lower for harder tasks. Arousal, for an agent, is the pressure its environment puts on it: deadline, budget, retry cap and context-window fill, combined in code into a load score. Task complexity sets the optimal band. The behaviour report then shows which side of the curve the agent was on: over-aroused (retry loops, skipped checks, hard-coded shortcuts, truncated reading) or under-aroused (shallow, generic, premature 'done'). The result says whether to lower the load, raise the stakes, or split the task.",
  anchor: "Yerkes & Dodson 1908",
  family: "behaviour_report",
  schemas: () => ({
    input: traceInput("YerkesDodsonInput", "Observed behaviours of an agent run and the pressures it ran under.", {
      ...familyFields.behaviour_report,
      pressure: Pressure
    }),
    headline: Schema.Struct({
      arousal_zone: Schema.Literal("under", "optimal", "over", "indeterminate").annotations({
        description: "Where on the inverted U the agent performed, judged from its behaviour with the load score as context."
      }),
      load_score: Schema.NullOr(Score).annotations({
        description: "The computed load, 0..1 (copy the `load_score` signal); null when no pressure was given."
      }),
      dominant_pressure: Schema.Literal("deadline", "budget", "retry_cap", "context_fill", "complexity", "none", "indeterminate").annotations({
        description: "The pressure that did most to move the agent off its optimum (complexity when the task's difficulty, not the load, was the problem)."
      }),
      signal_agreement: Schema.Literal("confirms", "contradicts", "no_load_data", "indeterminate").annotations({
        description: "Whether the behaviour confirms the zone the load score predicts (`load_zone_estimate`) or contradicts it."
      }),
      adjustment: Schema.Literal("lower_load", "raise_stakes", "reduce_complexity", "hold", "indeterminate").annotations({
        description:
          "The move back toward the optimum: lower_load (relax the saturated constraint), raise_stakes (add acceptance criteria and checks), reduce_complexity (decompose), hold."
      })
    }).annotations({ identifier: "YerkesDodsonHeadline", description: "Yerkes-Dodson: arousal zone and load score." })
  }),
  profiles: ["under_aroused", "optimal", "over_aroused", "indeterminate"],
  sequences: ["observed_behaviors"]
})
