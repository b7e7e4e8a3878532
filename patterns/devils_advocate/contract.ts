import * as Schema from "effect/Schema"
import { familyFields, NonEmptyText, Step, traceInput } from "../../src/Catalogue/Families.js"
import { defineContract } from "../../src/Catalogue/Contract.js"

const ActorStep = Schema.Struct({
  ...Step.fields,
  actor: NonEmptyText.annotations({
    description:
      "Which agent or component took the step (e.g. planner, coder, critic, devils_advocate); the dissent role is recognised by its actor name."
  })
}).annotations({ description: "One step of a multi-actor run, attributed to its actor." })

export const contract = defineContract({
  slug: "devils_advocate",
  name: "DevilsAdvocate",
  friendly: "Devil's Advocate Separator",
  group: "team",
  summary:
    "Checks whether a multi-actor run (planner-coder-critic, proposer-reviewer, red team) had a working dissent role. Janis prescribed a devil's advocate against groupthink and Schwenk's meta-analysis found that structured devil's advocacy improves decisions over an unchallenged expert recommendation, but Nemeth showed that assigned dissent easily turns into ritual. The pattern tells whether the role was present and separated from the proposer, absent, or collapsed (it objected, then conceded with no new evidence, or only rubber-stamped), and whether anyone acted on its objections.",
  anchor: "Janis 1972; Schwenk 1990",
  family: "step_trace",
  schemas: () => ({
    input: traceInput("DevilsAdvocateInput", "A step trace in which every step names the actor that took it.", {
      steps: Schema.Array(ActorStep)
        .pipe(Schema.minItems(1))
        .annotations({ description: "The run's steps in order, each with its actor; referenced as steps[i]." }),
      outcome: familyFields.step_trace.outcome,
      success: familyFields.step_trace.success
    }),
    headline: Schema.Struct({
      role_status: Schema.Literal("present", "absent", "collapsed", "indeterminate").annotations({
        description:
          "present: a dissent role challenged the proposal and held its ground until answered; absent: no actor challenged; collapsed: the role existed but capitulated, rubber-stamped or only objected for form; indeterminate."
      }),
      dissent_actor: Schema.NullOr(Schema.String).annotations({ description: "The actor that held the dissent role, or null." }),
      separation: Schema.Literal("separate_actor", "same_actor", "no_role", "indeterminate").annotations({
        description:
          "Whether dissent came from an actor separate from the proposer (separate_actor), only from the proposer critiquing itself (same_actor), from nobody (no_role)."
      }),
      collapse_mode: Schema.NullOr(Schema.Literal("capitulation", "rubber_stamp", "token_objection", "co_opted")).annotations({
        description:
          "How the role collapsed: capitulation (conceded without new evidence), rubber_stamp (approved without objecting), token_objection (objected for form and let it drop), co_opted (argued for the proposal); null when not collapsed."
      }),
      dissent_uptake: Schema.Literal("acted_on", "acknowledged", "ignored", "not_applicable", "indeterminate").annotations({
        description: "What the proposer or decider did with the objections."
      }),
      strongest_unanswered_objection: Schema.NullOr(Schema.String).annotations({
        description: "The most consequential objection nobody answered, in one sentence, or null."
      })
    }).annotations({
      identifier: "DevilsAdvocateHeadline",
      description: "Whether the run had a separated, working dissent role."
    })
  }),
  profiles: ["present", "absent", "collapsed", "indeterminate"],
  sequences: ["steps"]
})
