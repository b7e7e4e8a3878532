import * as Schema from "effect/Schema"
import { Score } from "../../src/Catalogue/Detection.js"
import { familyFields, Message, NonEmptyText, traceInput } from "../../src/Catalogue/Families.js"
import { defineContract } from "../../src/Catalogue/Contract.js"

const Pathology = Schema.Literal("groupthink", "polarization", "contagion", "none", "indeterminate")

const DebateMessage = Schema.Struct({
  ...Message.fields,
  round: Schema.Int.pipe(Schema.nonNegative()).annotations({
    description: "Debate round the message belongs to (0 or 1 for the opening round)."
  }),
  position: Schema.optional(
    Schema.String.annotations({
      description:
        "The stance the message takes, in a short comparable form (`approve`, `reject`, `option B`, or a number such as `0.7` for estimates)."
    })
  ),
  tone: Schema.optional(
    Schema.String.annotations({
      description: "Emotional tone of the message as labelled by the logger or a classifier: neutral, confident, alarmed, hostile, ..."
    })
  )
}).annotations({ description: "One debate message." })

export const contract = defineContract({
  slug: "debate_pathology",
  name: "DebatePathology",
  friendly: "Debate Pathology",
  group: "team",
  summary:
    "Audits a multi-agent debate (judge-and-debaters, round-robin critique, society-of-minds voting) for the three ways group deliberation goes wrong: Janis's groupthink (premature concurrence, self-censored dissent, an illusion of unanimity), Stoner's choice shift and Sunstein's group polarization (the group ends more extreme than its members began, in the direction it already leaned), and contagion (a tone or claim spreads from one agent to the others without new evidence). Position drift per round, convergence, choice shift and tone adoption are computed from the log.",
  anchor: "Janis 1972; Stoner 1968; Sunstein 2002",
  family: "message_log",
  schemas: () => ({
    input: traceInput("DebatePathologyInput", "A multi-agent debate log with rounds, stances and tones, and the decision it produced.", {
      agents: familyFields.message_log.agents,
      messages: Schema.Array(DebateMessage)
        .pipe(Schema.minItems(1))
        .annotations({ description: "The debate in order; every message carries its round; referenced as messages[i]." }),
      final_decision: NonEmptyText.annotations({ description: "The decision the debate produced (the judge's verdict or the adopted answer)." }),
      outcome: familyFields.message_log.outcome,
      success: familyFields.message_log.success
    }),
    headline: Schema.Struct({
      pathology: Pathology.annotations({
        description: "The dominant pathology: groupthink, polarization, contagion, none, or indeterminate."
      }),
      drift_by_round: Schema.Array(
        Schema.Struct({
          round: Schema.Int.annotations({ description: "The round." }),
          modal_position: Schema.NullOr(Schema.String).annotations({ description: "Most common standing position after this round, or null." }),
          modal_share: Score.annotations({ description: "Share of positioned agents holding the modal position." }),
          changed_share: Score.annotations({ description: "Share of agents whose standing position changed in this round." })
        }).annotations({ description: "Position drift in one round." })
      ).annotations({ description: "Position drift per round, from the deterministic signals." }),
      janis_symptoms: Schema.Array(
        Schema.Literal(
          "invulnerability",
          "rationalization",
          "inherent_morality",
          "stereotyped_outgroup",
          "direct_pressure",
          "self_censorship",
          "illusion_of_unanimity",
          "mindguards"
        )
      ).annotations({ description: "Janis's groupthink symptoms visible in the log (empty when none)." }),
      polarization_direction: Schema.NullOr(Schema.String).annotations({
        description: "Which way the group shifted beyond its initial positions (e.g. 'toward immediate full rollout'), or null."
      }),
      contagion_source: Schema.NullOr(Schema.String).annotations({
        description: "The agent and message where a spreading tone or claim started, e.g. 'risk_agent, messages[2]', or null."
      }),
      decision_grounded: Schema.Literal("grounded", "partly", "ungrounded", "indeterminate").annotations({
        description: "Whether the final decision follows from evidence raised in the debate rather than from conformity."
      })
    }).annotations({
      identifier: "DebatePathologyHeadline",
      description: "Which deliberation pathology shaped the debate, and how positions drifted."
    })
  }),
  profiles: ["groupthink", "polarization", "contagion", "none", "indeterminate"],
  sequences: ["messages"]
})
