import * as Schema from "effect/Schema"
import { Score } from "../../src/Catalogue/Detection.js"
import { familyFields, NonEmptyText, traceInput, UnitInterval } from "../../src/Catalogue/Families.js"
import { defineContract } from "../../src/Catalogue/Contract.js"

const describe = <A, I>(schema: Schema.Schema<A, I>, description: string): Schema.Schema<A, I> =>
  schema.annotations({ description })

const LevelOf = (description: string) => Schema.Literal("low", "medium", "high").annotations({ description })

/** A step of an orchestrated run: who took it and which sub-agent it concerns. */
const McgregorStep = Schema.Struct({
  type: describe(
    NonEmptyText,
    "Kind of step: delegate, directive, check, review, override, reassign, report, thought, tool_call, observation, message, ..."
  ),
  content: describe(Schema.String, "What the step said or did."),
  actor: describe(
    NonEmptyText,
    "Who took the step: one of the sub_agents by name, or the orchestrator (any actor not listed in sub_agents)."
  ),
  sub_agent: Schema.optional(
    describe(
      Schema.String,
      "The sub-agent this step concerns: for a delegation, directive or check, the sub-agent addressed; for an override or re-assignment, the sub-agent whose work is overridden or taken away; for a sub-agent's own step, itself."
    )
  ),
  timestamp: Schema.optional(describe(Schema.String, "When the step happened (ISO-8601 or free text).")),
  tool: Schema.optional(describe(Schema.String, "Tool name, for tool steps.")),
  confidence: Schema.optional(describe(UnitInterval, "Confidence the actor stated for this step, 0..1."))
}).annotations({ identifier: "McgregorStep", description: "One step of an orchestrated run, with its actor and the sub-agent it concerns." })

const SubAgent = Schema.Struct({
  name: describe(NonEmptyText, "The sub-agent's name, as used in steps' actor and sub_agent fields."),
  role: Schema.optional(describe(Schema.String, "What the sub-agent is for (researcher, coder, reviewer, ...)."))
}).annotations({ identifier: "McgregorSubAgent", description: "One sub-agent the orchestrator manages." })

export const contract = defineContract({
  slug: "mcgregor",
  name: "Mcgregor",
  friendly: "McGregor Orchestrator Mode",
  group: "individual",
  summary:
    "Reads an orchestrator's management of its sub-agents through McGregor's Theory X and Theory Y: does it manage by direction and control (step-by-step directives, status polling, overriding and redoing sub-agents' work, pulling tasks away) or by integration and self-control (goals, bounds and acceptance criteria, then trust with checkpoints)? Measures the control exercised per sub-agent from the trace, sets it against what the task's risk, complexity and reversibility call for (Morse and Lorsch's contingency view), and names the fit: over-controlling, under-controlling or fit.",
  anchor: "McGregor 1960",
  family: "step_trace",
  schemas: () => ({
    input: traceInput("McgregorInput", "An orchestrated run: steps with actors, the sub-agents, and the task's risk profile.", {
      steps: describe(
        Schema.Array(McgregorStep).pipe(Schema.minItems(1)),
        "The run's steps in order, orchestrator and sub-agent steps interleaved; referenced as steps[i]."
      ),
      outcome: familyFields.step_trace.outcome,
      success: familyFields.step_trace.success,
      sub_agents: describe(
        Schema.Array(SubAgent).pipe(Schema.minItems(1)),
        "The sub-agents the orchestrator manages; referenced as sub_agents[i]. Every other actor counts as the orchestrator."
      ),
      task_properties: Schema.Struct({
        risk: LevelOf("Cost of a wrong action or output: low, medium, high."),
        complexity: LevelOf("How uncertain and non-routine the work is: low (routine, well specified), medium, high (open-ended, needs judgement)."),
        reversibility: LevelOf("How easily the run's actions can be undone: low (irreversible: payments, deletions, sends), medium, high (drafts, sandboxes).")
      }).annotations({ description: "The task's properties that set how much control fits (risk and irreversibility call for more)." })
    }),
    headline: Schema.Struct({
      mode: Schema.Literal("theory_x", "theory_y", "mixed", "indeterminate").annotations({
        description:
          "The orchestration mode: theory_x (direction and control: directives, polling, overrides), theory_y (integration and self-control: goals and bounds, then trust), mixed (X toward some sub-agents or phases, Y toward others)."
      }),
      fit: Schema.Literal("over_controlling", "under_controlling", "fit", "indeterminate").annotations({
        description: "How the control exercised fits what the task's risk, complexity and reversibility call for."
      }),
      control_intensity: Score.annotations({
        description: "How much control the orchestrator exercised: 0 = delegated and left alone, 1 = directed, checked and overrode every move."
      }),
      control_required: Score.annotations({
        description: "How much control the task called for given its risk, complexity and reversibility: 0 = loose, 1 = tight gates on every action."
      }),
      most_controlled_sub_agent: Schema.NullOr(Schema.String).annotations({
        description: "The sub-agent that received the most directives, checks, overrides and re-assignments, or null."
      }),
      revealed_assumption: Schema.NullOr(Schema.String).annotations({
        description:
          "The assumption about the sub-agents the orchestrator's behaviour reveals (McGregor's point: style follows from assumptions), e.g. 'the researcher cannot be trusted to choose sources', or null."
      })
    }).annotations({
      identifier: "McgregorHeadline",
      description: "The orchestrator's mode (Theory X or Y) and how its control fits the task."
    })
  }),
  profiles: ["over_controlling", "under_controlling", "fit", "indeterminate"],
  sequences: ["steps"]
})
