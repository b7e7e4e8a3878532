import * as Schema from "effect/Schema"
import { Score } from "../../src/Catalogue/Detection.js"
import { familyFields, traceInput } from "../../src/Catalogue/Families.js"
import { defineContract } from "../../src/Catalogue/Contract.js"

const Dysfunction = Schema.Literal(
  "absence_of_trust",
  "fear_of_conflict",
  "lack_of_commitment",
  "avoidance_of_accountability",
  "inattention_to_results",
  "none",
  "indeterminate"
)

const level = (description: string) =>
  Score.annotations({ description: `${description} 0 = healthy, 1 = severe dysfunction.` })

export const contract = defineContract({
  slug: "lencioni",
  name: "Lencioni",
  friendly: "Lencioni Five Dysfunctions",
  group: "team",
  summary:
    "Reads a multi-agent message log through Lencioni's five dysfunctions of a team, a pyramid in which each level rests on the one below: absence of trust (agents hide errors and never ask for help), fear of conflict (artificial harmony: agreement without challenge), lack of commitment (hedged plans, no decision), avoidance of accountability (nobody checks a peer's delivery against what was agreed) and inattention to results (each agent reports its own part done while the team goal is missed). It scores every level, names the dysfunction that most explains the run and the lowest level where the pyramid cracks, and maps each to concrete changes in prompts, orchestration and evals.",
  anchor: "Lencioni 2002",
  family: "message_log",
  schemas: () => ({
    input: traceInput("LencioniInput", "A multi-agent message log.", { ...familyFields.message_log }),
    headline: Schema.Struct({
      dominant_dysfunction: Dysfunction.annotations({
        description: "The dysfunction that most explains the run's failure, or none / indeterminate."
      }),
      dysfunction_scores: Schema.Struct({
        trust: level("Absence of trust: errors hidden or glossed over, no admitted uncertainty, no help sought."),
        conflict: level("Fear of conflict: agreement without challenge, objections softened or dropped."),
        commitment: level("Lack of commitment: hedged plans, no decision, no owner or date."),
        accountability: level("Avoidance of accountability: deliveries not checked against what was agreed, questions left unanswered."),
        results: level("Inattention to results: members report their own part done while the team result is unmet.")
      }).annotations({ description: "Severity of each level of the pyramid, bottom (trust) to top (results)." }),
      base_dysfunction: Dysfunction.annotations({
        description: "The lowest level of the pyramid that is dysfunctional: where Lencioni's model says repair must start."
      }),
      optimised_for: Schema.Literal("collective_result", "individual_tasks", "harmony", "status", "indeterminate").annotations({
        description:
          "What the team actually optimised: the collective result, each agent's own task, keeping the peace, or looking good (status and ego in Lencioni's terms)."
      })
    }).annotations({ identifier: "LencioniHeadline", description: "The five dysfunctions scored, with the dominant one and the base of the crack." })
  }),
  profiles: [
    "absence_of_trust",
    "fear_of_conflict",
    "lack_of_commitment",
    "avoidance_of_accountability",
    "inattention_to_results",
    "none",
    "indeterminate"
  ],
  sequences: ["messages"]
})
