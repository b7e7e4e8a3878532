import * as Schema from "effect/Schema"
import { Score } from "../../src/Catalogue/Detection.js"
import { NonEmptyText, outcome, plainInput, success, UnitInterval } from "../../src/Catalogue/Families.js"
import { defineContract } from "../../src/Catalogue/Contract.js"

const RoutingDecision = Schema.Struct({
  task_id: NonEmptyText.annotations({ description: "Identifier of the routed task (ticket, job, request)." }),
  routed_to: NonEmptyText.annotations({ description: "The agent the router chose." }),
  candidates: Schema.optional(
    Schema.Array(NonEmptyText).annotations({
      description: "Agents the router considered eligible for this task, the chosen one included."
    })
  ),
  outcome: Schema.optional(
    Schema.String.annotations({ description: "What happened to the task: resolved, failed, timeout, reopened, escalated, ..." })
  ),
  reason: Schema.optional(
    Schema.String.annotations({ description: "The router's stated reason for the choice, when it logs one." })
  )
}).annotations({ description: "One routing decision." })

export const contract = defineContract({
  slug: "superflocks",
  name: "Superflocks",
  friendly: "Superflocks Detector",
  group: "team",
  summary:
    "Checks whether an agent router is building a superflock: sending most of the work to the agent with the best individual score until the system depends on it. William Muir's group-selection experiments found that hens bred from the most productive individuals did worse as a flock than hens selected as whole groups; Margaret Heffernan carried the lesson to organisations that route everything to their stars. This pattern computes the top agent's share, the routing Gini, the effective number of agents, idle agents, the share of decisions with no fallback and how failures concentrate, and judges the fragility of the routing policy and whether it selects on individual scores or on team outcomes.",
  anchor: "Muir 1996; Heffernan 2014",
  family: "special",
  schemas: () => ({
    input: plainInput("SuperflocksInput", "Routing decisions of a multi-agent router over a window.", {
      window: NonEmptyText.annotations({
        description: "The period or sample the decisions cover, e.g. `2026-03-02..2026-03-08` or `last 500 tickets`."
      }),
      agents: Schema.Array(NonEmptyText)
        .pipe(Schema.minItems(1))
        .annotations({ description: "Every agent the router could send work to; referenced as agents[i]." }),
      routing_decisions: Schema.Array(RoutingDecision)
        .pipe(Schema.minItems(1))
        .annotations({ description: "Routing decisions in time order; referenced as routing_decisions[i]." }),
      individual_scores: Schema.optional(
        Schema.Array(
          Schema.Struct({
            agent: NonEmptyText.annotations({ description: "Agent name, as in `agents`." }),
            score: UnitInterval.annotations({
              description: "The individual rating the router selects on (leaderboard, solo eval pass rate), 0..1."
            })
          }).annotations({ description: "One agent's individual rating." })
        ).annotations({ description: "Individual ratings of the agents, when the router uses them; referenced as individual_scores[i]." })
      ),
      outcome,
      success
    }),
    headline: Schema.Struct({
      top_agent: Schema.NullOr(Schema.String).annotations({ description: "The agent that received the most work, or null." }),
      top_agent_share: Score.annotations({ description: "Share of routing decisions sent to the top agent (from the signals)." }),
      routing_gini: Score.annotations({
        description: "Gini coefficient of routed work across all agents (0 = even, toward 1 = one agent takes all; from the signals)."
      }),
      fragility: Schema.Literal("low", "medium", "high", "indeterminate").annotations({
        description: "How badly the system degrades if the top agent slows down, fails or is withdrawn."
      }),
      idle_agents: Schema.Array(Schema.String).annotations({
        description: "Agents that received no work in the window (their capability is neither used nor measured)."
      }),
      selection_basis: Schema.Literal("individual_score", "team_outcome", "mixed", "indeterminate").annotations({
        description:
          "What the routing policy optimises: each agent's individual score (Muir's individual selection) or the outcome of the whole system (group selection)."
      })
    }).annotations({
      identifier: "SuperflocksHeadline",
      description: "Routing concentration, fragility and the selection basis behind it."
    })
  }),
  profiles: ["superflock", "star_dependency", "balanced", "indeterminate"],
  sequences: ["routing_decisions"]
})
