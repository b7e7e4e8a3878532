import * as Schema from "effect/Schema"
import { NonEmptyText, plainInput } from "../../src/Catalogue/Families.js"
import { defineContract } from "../../src/Catalogue/Contract.js"

const Model = Schema.Literal(
  "decide_alone",
  "informed_decide",
  "consult_individually",
  "consult_group",
  "group_consensus",
  "indeterminate"
)

const Agent = Schema.Struct({
  name: NonEmptyText.annotations({ description: "Agent name as it appears in the orchestrator (e.g. `db_agent`)." }),
  role: Schema.optional(
    Schema.String.annotations({ description: "What the agent is for: planner, executor, reviewer, retriever, ..." })
  ),
  holds_unique_information: Schema.optional(
    Schema.Boolean.annotations({
      description:
        "True when the agent holds information or tool access the decision needs and the deciding orchestrator does not have (logs, a private index, a credentialed API)."
    })
  ),
  implements_decision: Schema.optional(
    Schema.Boolean.annotations({
      description: "True when the agent must carry out the decision afterwards, so its commitment affects execution."
    })
  ),
  shares_goal: Schema.optional(
    Schema.Boolean.annotations({
      description:
        "False when the agent's prompt or reward optimises for something other than the decision's goal (its own SLO, cost, speed)."
    })
  ),
  preferred_option: Schema.optional(
    Schema.String.annotations({ description: "The option this agent already favours, when known." })
  ),
  model: Schema.optional(
    Schema.String.annotations({ description: "Model behind the agent; agents on one model share blind spots." })
  )
}).annotations({ description: "One agent that could take part in the decision." })

export const contract = defineContract({
  slug: "group_decision",
  name: "GroupDecision",
  friendly: "Group Decision Protocol",
  group: "team",
  summary:
    "Designs how a multi-agent system should make one decision before it makes it. Following Vroom and Yetton's normative model, it reads the decision's problem attributes (does quality matter, does the orchestrator hold the information, is the problem structured, must the executing agents commit, do they share the goal, will they disagree), applies the seven feasibility rules to the five processes from deciding alone (AI) to group consensus (GII), and returns the recommended process with a concrete protocol: who is asked what, in which order, with which independence safeguards, decision rule and escalation to a human.",
  anchor: "Vroom & Yetton 1973",
  family: "request",
  schemas: () => ({
    input: plainInput("GroupDecisionInput", "A decision a multi-agent system has to make, and the agents that could take part.", {
      title: NonEmptyText.annotations({ description: "The decision to be made, as one sentence." }),
      options: Schema.Array(NonEmptyText)
        .pipe(Schema.minItems(1))
        .annotations({ description: "The alternatives on the table; referenced as options[i]." }),
      agents: Schema.Array(Agent)
        .pipe(Schema.minItems(1))
        .annotations({ description: "Agents that could take part in the decision; referenced as agents[i]." }),
      stakes: Schema.Literal("low", "medium", "high", "critical").annotations({
        description: "What a wrong choice costs: low, medium, high, critical."
      }),
      reversibility: Schema.optional(
        Schema.Literal("reversible", "partly_reversible", "irreversible").annotations({
          description: "How easily the decision can be undone once executed."
        })
      ),
      time_pressure: Schema.optional(
        Schema.Literal("low", "medium", "high").annotations({
          description: "How urgent the decision is (latency and token budget available for deliberation)."
        })
      )
    }),
    headline: Schema.Struct({
      decision_model: Model.annotations({
        description:
          "Recommended process: decide_alone (AI), informed_decide (AII), consult_individually (CI), consult_group (CII), group_consensus (GII), or indeterminate."
      }),
      vroom_yetton_code: Schema.NullOr(Schema.Literal("AI", "AII", "CI", "CII", "GII")).annotations({
        description: "The Vroom-Yetton code of the recommended process, or null when indeterminate."
      }),
      problem_attributes: Schema.Struct({
        quality_requirement: Schema.NullOr(Schema.Boolean).annotations({
          description: "A: one option is likely to be better than another, so quality matters."
        }),
        leader_has_information: Schema.NullOr(Schema.Boolean).annotations({
          description: "B: the deciding orchestrator holds enough information to decide well alone."
        }),
        structured: Schema.NullOr(Schema.Boolean).annotations({
          description: "C: the alternatives and the information needed are known."
        }),
        commitment_required: Schema.NullOr(Schema.Boolean).annotations({
          description: "D: the executing agents' commitment matters for the decision to be carried out well."
        }),
        acceptance_if_alone: Schema.NullOr(Schema.Boolean).annotations({
          description: "E: the executing agents would carry out a decision taken without them."
        }),
        goal_congruence: Schema.NullOr(Schema.Boolean).annotations({
          description: "F: the agents share the goal the decision serves."
        }),
        conflict_likely: Schema.NullOr(Schema.Boolean).annotations({
          description: "G: the agents are likely to disagree over the preferred option."
        })
      }).annotations({ description: "The answers to the Vroom-Yetton diagnostic questions (null when unknown)." }),
      protocol_steps: Schema.Array(
        Schema.Struct({
          step: Schema.Int.annotations({ description: "Position of the step in the protocol, from 1." }),
          actor: Schema.String.annotations({ description: "Who acts: the orchestrator, a named agent, all agents, a human." }),
          action: Schema.String.annotations({ description: "What the actor does, concretely (what it is sent, what it returns)." }),
          output: Schema.String.annotations({ description: "The artefact the step produces and passes on." })
        }).annotations({ description: "One step of the decision protocol." })
      ).annotations({ description: "The ordered protocol the orchestrator should run." }),
      decision_rule: Schema.String.annotations({
        description: "How the final choice is made: who decides, by which rule (sole decider, majority, unanimity, judge)."
      }),
      escalation: Schema.NullOr(Schema.String).annotations({
        description: "When the protocol stops and hands the decision to a human, or null when it never should."
      })
    }).annotations({
      identifier: "GroupDecisionHeadline",
      description: "Recommended Vroom-Yetton decision process and the protocol that implements it."
    })
  }),
  profiles: [
    "decide_alone",
    "informed_decide",
    "consult_individually",
    "consult_group",
    "group_consensus",
    "indeterminate"
  ],
  sequences: [],
  traces: {
    accepts: true,
    needs: "hints.options (the alternatives on the table) and hints.stakes (low, medium, high or critical); the title and the agents are read from the trace."
  }
})
