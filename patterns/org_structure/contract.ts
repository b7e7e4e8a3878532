import * as Schema from "effect/Schema"
import { Score } from "../../src/Catalogue/Detection.js"
import { familyFields, traceInput } from "../../src/Catalogue/Families.js"
import { defineContract } from "../../src/Catalogue/Contract.js"

const StructureType = Schema.Literal(
  "simple_structure",
  "machine_bureaucracy",
  "professional_bureaucracy",
  "divisionalized",
  "adhocracy",
  "matrix",
  "indeterminate"
)

export const contract = defineContract({
  slug: "org_structure",
  name: "OrgStructure",
  friendly: "Org Structure Matrix",
  group: "organization",
  summary:
    "Classifies a multi-agent crew as one of Mintzberg's structural configurations (simple structure, machine bureaucracy, professional bureaucracy, divisionalized form, adhocracy) or a Galbraith-style matrix, from its reporting lines and decision authority, and judges its fit to the task: a hub-and-spoke orchestrator on a task that needs many parallel specialists, a fixed pipeline on a novel problem, a flat group chat with nobody entitled to decide. Depth, spans, apexes, matrix lines, reporting defects and the centralisation of decision authority are computed from the crew, not guessed.",
  anchor: "Mintzberg 1979; Galbraith 1995",
  family: "crew",
  schemas: () => ({
    input: traceInput("OrgStructureInput", "A crew of agents with their roles, reporting lines and decision authority.", {
      ...familyFields.crew
    }),
    headline: Schema.Struct({
      structure_type: StructureType.annotations({
        description: "The Mintzberg configuration (or matrix) the crew actually works as, or indeterminate."
      }),
      coordination_mechanism: Schema.Literal(
        "direct_supervision",
        "standardized_work",
        "standardized_outputs",
        "standardized_skills",
        "mutual_adjustment",
        "mixed",
        "indeterminate"
      ).annotations({ description: "Mintzberg's prime coordinating mechanism the crew relies on." }),
      centralization: Schema.Literal("low", "medium", "high", "indeterminate").annotations({
        description: "How far decision authority sits at the apex rather than in the operating core."
      }),
      task_demands: Schema.String.annotations({
        description: "What the task needs from a structure: routine or novel, decomposable or interdependent, and why."
      }),
      fit: Schema.Literal("fit", "over_structured", "under_structured", "misaligned", "indeterminate").annotations({
        description:
          "Fit of structure to task: fit, over_structured (more hierarchy or standardisation than the task needs), under_structured (too little), misaligned (the wrong kind), or indeterminate."
      }),
      fit_score: Score.annotations({ description: "Fit of the structure to the task, 0 (opposite) to 1 (fits)." })
    }).annotations({
      identifier: "OrgStructureHeadline",
      description: "The crew's structural configuration, its coordination and centralisation, and its fit to the task."
    })
  }),
  profiles: [
    "simple_structure",
    "machine_bureaucracy",
    "professional_bureaucracy",
    "divisionalized",
    "adhocracy",
    "matrix",
    "indeterminate"
  ],
  sequences: ["agents"]
})
