import * as Schema from "effect/Schema"
import { Score } from "../../src/Catalogue/Detection.js"
import { familyFields, traceInput } from "../../src/Catalogue/Families.js"
import { defineContract } from "../../src/Catalogue/Contract.js"

export const contract = defineContract({
  slug: "trust_triangle",
  name: "TrustTriangle",
  friendly: "Trust Triangle Audit",
  group: "team",
  summary:
    "Audits a conversation between a user and an agent with Frei and Morriss's trust triangle: people trust you when they believe they are dealing with the real you (authenticity), when they have faith in your judgement and can follow your reasoning (logic), and when they believe you care about them (empathy). Trust is lost through whichever driver wobbles. For agents that means claims of actions never taken, capitulating under pushback or hiding behind scripted persona (authenticity); wrong or unexplained answers (logic); ignoring what the user said, their constraints and their state (empathy). It names the wobbling driver, scores all three, tracks the user's trust across the turns and proposes the move that would rebuild it.",
  anchor: "Frei & Morriss 2020",
  family: "conversation",
  schemas: () => ({
    input: traceInput("TrustTriangleInput", "A conversation between a user and an agent.", { ...familyFields.conversation }),
    headline: Schema.Struct({
      wobbling_driver: Schema.Literal("authenticity", "logic", "empathy", "none", "indeterminate").annotations({
        description: "The driver of trust that failed most in this conversation, or none / indeterminate."
      }),
      driver_scores: Schema.Struct({
        authenticity: Score.annotations({
          description: "Strength of authenticity: the agent's claims match what it did, it holds its position on evidence, it is candid about limits. 1 = solid."
        }),
        logic: Score.annotations({
          description: "Strength of logic: answers are correct and the reasoning is given clearly, point first. 1 = solid."
        }),
        empathy: Score.annotations({
          description: "Strength of empathy: the agent takes up what the user said, their constraints and their state. 1 = solid."
        })
      }).annotations({ description: "How solid each driver of trust is in this conversation, 0..1 each." }),
      logic_wobble_kind: Schema.Literal("quality_of_logic", "communication_of_logic", "none", "indeterminate").annotations({
        description:
          "When logic wobbles, whether the reasoning itself was wrong (quality) or sound but not conveyed (communication), else none."
      }),
      trust_trajectory: Schema.Literal("rising", "stable", "falling", "broken", "indeterminate").annotations({
        description: "How the user's trust moved across the conversation, read from the user's turns."
      }),
      rebuild_move: Schema.NullOr(Schema.String).annotations({
        description: "The single change to the agent that would most rebuild trust on the wobbling driver, or null when trust held."
      })
    }).annotations({ identifier: "TrustTriangleHeadline", description: "The wobbling driver of trust and the scores of all three." })
  }),
  profiles: ["authenticity_wobble", "logic_wobble", "empathy_wobble", "stable", "indeterminate"],
  sequences: ["turns"]
})
