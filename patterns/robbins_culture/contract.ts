import * as Schema from "effect/Schema"
import { Score } from "../../src/Catalogue/Detection.js"
import { familyFields, NonEmptyText, traceInput } from "../../src/Catalogue/Families.js"
import { defineContract } from "../../src/Catalogue/Contract.js"

export const DIMENSIONS = [
  "innovation",
  "attention_to_detail",
  "outcome_orientation",
  "people_orientation",
  "team_orientation",
  "aggressiveness",
  "stability"
] as const

const Dimension = Schema.Literal(...DIMENSIONS)

export const contract = defineContract({
  slug: "robbins_culture",
  name: "RobbinsCulture",
  friendly: "Robbins-Judge Culture",
  group: "organization",
  summary:
    "Profiles the culture an agent enacts on the seven primary characteristics Robbins and Judge use to describe organizational culture (after O'Reilly, Chatman and Caldwell's Organizational Culture Profile): innovation and risk taking, attention to detail, outcome orientation, people orientation, team orientation, aggressiveness and stability. Each dimension is scored from the observed behaviour and compared with what the declared task class needs, so the detection names the dimension most out of fit (a ledger agent that improvises, a support agent that pushes, a coding agent that ships without checking) and the prompt, tool and eval changes that move it.",
  anchor: "Robbins & Judge (Organizational Behavior)",
  family: "behaviour_report",
  schemas: () => ({
    input: traceInput("RobbinsCultureInput", "Observed behaviours of an agent and the class of task it serves.", {
      ...familyFields.behaviour_report,
      task_class: NonEmptyText.annotations({
        description:
          "The class of task the agent serves (e.g. 'month-end ledger reconciliation', 'customer support', 'marketing brainstorming'); sets the culture profile the task needs."
      })
    }),
    headline: Schema.Struct({
      dimension_scores: Schema.Struct({
        innovation: Score.annotations({ description: "Innovation and risk taking: how far the agent improvises, experiments and takes untested actions." }),
        attention_to_detail: Score.annotations({ description: "Attention to detail: precision, analysis and verification in the agent's work." }),
        outcome_orientation: Score.annotations({ description: "Outcome orientation: focus on results over the techniques and processes used to reach them." }),
        people_orientation: Score.annotations({ description: "People orientation: how far decisions weigh their effect on users and the humans affected." }),
        team_orientation: Score.annotations({ description: "Team orientation: work organised with other agents and humans (hand-offs, reviews) rather than alone." }),
        aggressiveness: Score.annotations({ description: "Aggressiveness: pushing, insisting and competing rather than accommodating." }),
        stability: Score.annotations({ description: "Stability: holding to the status quo and the same approach rather than adapting." })
      }).annotations({ description: "Observed level of each of the seven culture dimensions, 0 (absent) to 1 (strongly present)." }),
      task_demands: Schema.String.annotations({
        description: "What the task class needs from the culture, naming the dimensions it needs high and low."
      }),
      largest_misfit: Dimension.annotations({
        description: "The dimension furthest from what the task class needs, `none` when the profile fits, or `indeterminate`."
      }),
      misfit_direction: Schema.Literal("too_high", "too_low", "none", "indeterminate").annotations({
        description: "Whether the largest misfit is a dimension too high or too low for the task class."
      }),
      fit_score: Score.annotations({ description: "Overall fit of the enacted culture to the task class, 0 (opposite) to 1 (fits)." })
    }).annotations({
      identifier: "RobbinsCultureHeadline",
      description: "The seven Robbins-Judge culture dimensions scored from behaviour, and their fit to the task class."
    })
  }),
  profiles: [
    "fit",
    "innovation_misfit",
    "detail_misfit",
    "outcome_misfit",
    "people_misfit",
    "team_misfit",
    "aggressiveness_misfit",
    "stability_misfit",
    "indeterminate"
  ],
  sequences: ["observed_behaviors"]
})
