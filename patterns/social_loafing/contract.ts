import * as Schema from "effect/Schema"
import { Score } from "../../src/Catalogue/Detection.js"
import { familyFields, traceInput } from "../../src/Catalogue/Families.js"
import { defineContract } from "../../src/Catalogue/Contract.js"

const Form = Schema.Literal("free_riding", "rubber_stamping", "echoing", "sucker_effect", "none", "indeterminate")

export const contract = defineContract({
  slug: "social_loafing",
  name: "SocialLoafing",
  friendly: "Social Loafing Detector",
  group: "team",
  summary:
    "Finds the agents in a multi-agent run that let the others do the work. Latané, Williams and Harkins showed that people exert less effort in a group than alone, over and above coordination losses; Karau and Williams's meta-analysis later found the effect strongest when individual contributions cannot be identified and evaluated. This pattern computes each agent's share of messages, words and substantive contributions against an even share, flags approval-only messages, deferrals and echoes, tracks effort over the run, and names the form the loafing takes: free riding, rubber-stamp review, echoing others, or the sucker effect in which the capable agent stops trying.",
  anchor: "Latané, Williams & Harkins 1979",
  family: "message_log",
  schemas: () => ({
    input: traceInput("SocialLoafingInput", "A multi-agent message log.", { ...familyFields.message_log }),
    headline: Schema.Struct({
      loafing_agents: Schema.Array(Schema.String).annotations({
        description: "Agents whose contribution fell well short of their share of the work, in the model's judgement."
      }),
      contribution_shares: Schema.Array(
        Schema.Struct({
          agent: Schema.String.annotations({ description: "Agent name, as in `agents`." }),
          message_share: Score.annotations({ description: "Share of the team's messages sent by this agent." }),
          word_share: Score.annotations({ description: "Share of the team's words written by this agent." }),
          substantive_share: Score.annotations({
            description: "Share of the team's substantive words (not approvals, deferrals or echoes) written by this agent."
          })
        }).annotations({ description: "One agent's contribution, as computed in the signals." })
      ).annotations({ description: "Contribution shares per agent, copied from the deterministic signals." }),
      dominant_form: Form.annotations({
        description:
          "The form the loafing takes: free_riding (little or no own work), rubber_stamping (approval without checking), echoing (restating others), sucker_effect (a capable agent withdraws effort after others coast), none, or indeterminate."
      }),
      contribution_gini: Score.annotations({
        description: "Gini coefficient of substantive contributions across the team (0 = even, toward 1 = one agent did everything)."
      }),
      identifiability: Schema.Literal("high", "low", "indeterminate").annotations({
        description:
          "Whether each agent's contribution was separately attributable and checked (high) or pooled into a shared output nobody evaluated per agent (low): the condition under which loafing thrives."
      })
    }).annotations({ identifier: "SocialLoafingHeadline", description: "Who loafed, in what form, and the contribution shares." })
  }),
  profiles: ["free_riding", "rubber_stamping", "echoing", "sucker_effect", "none", "indeterminate"],
  sequences: ["messages"]
})
