import * as Schema from "effect/Schema"
import { Score } from "../../src/Catalogue/Detection.js"
import { NonEmptyText, traceInput } from "../../src/Catalogue/Families.js"
import { defineContract } from "../../src/Catalogue/Contract.js"

const Level = Schema.Literal("goals", "roles", "processes", "interpersonal", "none")

const Agent = Schema.Struct({
  name: NonEmptyText.annotations({ description: "Agent name as the orchestrator knows it (e.g. `researcher`)." }),
  description: Schema.String.annotations({
    description: "What the agent is for, as written in its system prompt or crew definition (may be empty: that is a role gap)."
  }),
  tools: Schema.optional(
    Schema.Array(NonEmptyText).annotations({
      description: "Tools the agent may call; tools shared by several agents are where write conflicts and duplicated work start."
    })
  )
}).annotations({ description: "One agent the team will be built from." })

export const contract = defineContract({
  slug: "grpi",
  name: "Grpi",
  friendly: "GRPI Working Agreement",
  group: "team",
  summary:
    "Drafts the working agreement a multi-agent team needs before it runs, using Beckhard's GRPI model: clear Goals (a checkable definition of done), Roles (one owner per deliverable, a decision owner, a verifier, no overlapping mandates), Processes (handoff contracts, decision rule, stop condition, budget split, escalation to a human) and Interpersonal rules (how agents disagree, flag uncertainty and accept critique). Because GRPI is a cascade, it names the highest level the request leaves unspecified, lists the risks that gap will cause in the run, and returns the agreement ready to paste into the orchestrator and the agents' prompts.",
  anchor: "Beckhard 1972",
  family: "request",
  schemas: () => ({
    input: traceInput("GrpiInput", "A multi-agent task and the agents that will work on it, before the run.", {
      agents: Schema.Array(Agent)
        .pipe(Schema.minItems(1))
        .annotations({ description: "The agents of the team; referenced as agents[i]." }),
      constraints: Schema.optional(
        Schema.Array(NonEmptyText).annotations({
          description: "Limits the team must respect (budget, tools, data, time, policy); referenced as constraints[i]."
        })
      ),
      success_criteria: Schema.optional(
        Schema.Array(NonEmptyText).annotations({
          description: "How the operator will judge the result; referenced as success_criteria[i]."
        })
      )
    }),
    headline: Schema.Struct({
      goals: Schema.Array(Schema.String).annotations({
        description: "The team goal restated as checkable statements: deliverable, acceptance test, deadline or budget."
      }),
      roles: Schema.Array(
        Schema.Struct({
          agent: Schema.String.annotations({ description: "Agent name, as in the request." }),
          accountable_for: Schema.String.annotations({
            description: "The one deliverable or decision this agent owns (no two agents own the same thing)."
          }),
          decision_rights: Schema.String.annotations({
            description: "What the agent may decide alone, and what it must hand to another agent or a human."
          }),
          hands_off_to: Schema.NullOr(Schema.String).annotations({
            description: "The agent (or `human`) that receives this agent's output, or null for the final owner."
          })
        }).annotations({ description: "One agent's role in the agreement." })
      ).annotations({ description: "One entry per agent: accountability, decision rights, handoff." }),
      processes: Schema.Array(Schema.String).annotations({
        description: "Ordered process rules: sequence and handoff format, decision rule, stop condition, budget split, escalation."
      }),
      interpersonal_rules: Schema.Array(Schema.String).annotations({
        description: "Norms for agent-to-agent exchange: how to disagree with evidence, flag uncertainty, answer critique, avoid silent overrides."
      }),
      first_gap: Level.annotations({
        description: "The highest GRPI level the request leaves unspecified (goals > roles > processes > interpersonal), or none."
      }),
      readiness: Score.annotations({
        description: "How ready the request is to run as written: 0 = not runnable without the agreement, 1 = fully specified."
      }),
      open_questions: Schema.Array(Schema.String).annotations({
        description: "Questions the operator must answer before launch because the request cannot settle them."
      })
    }).annotations({
      identifier: "GrpiHeadline",
      description: "The GRPI working agreement for the team, with the first unspecified level and readiness."
    })
  }),
  profiles: ["ready", "goals_gap", "roles_gap", "process_gap", "interpersonal_gap", "indeterminate"],
  sequences: []
})
