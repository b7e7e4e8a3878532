import * as Schema from "effect/Schema"
import { Level } from "../../src/Catalogue/Detection.js"
import { NonEmptyText, plainInput } from "../../src/Catalogue/Families.js"
import { defineContract } from "../../src/Catalogue/Contract.js"

const text = (description: string) => NonEmptyText.annotations({ description })

const Grounded = {
  ref: Schema.String.annotations({
    description: "The request field the item rests on: `artifact`, `contribution_summary` or `task_context`."
  }),
  quote: Schema.String.annotations({ description: "A short verbatim quote from that field." })
}

export const contract = defineContract({
  slug: "plus_delta",
  name: "PlusDelta",
  friendly: "Plus/Delta Feedback",
  group: "team",
  summary:
    "Generates a plus/delta review of one agent's (or team's) contribution, in the form facilitators use to close a retrospective: pluses (what worked and must be kept), deltas (what to do differently next time, stated as a changed behaviour), and a short list of commitments with an owner and a check the next run can verify. Every item is grounded in a quote from the artifact, the contribution summary or the task context. The review also flags gaps in the request itself: self-reported claims the artifact does not show, missing acceptance criteria, a reviewer reviewing itself. It ends with a prompt patch the subject agent can carry into its next run.",
  anchor: "Plus/delta retrospective practice (facilitation literature)",
  family: "request",
  schemas: () => ({
    input: plainInput("PlusDeltaInput", "A request for a plus/delta review of one contribution.", {
      reviewer: text("Who gives the review: a person, a role or an agent (e.g. 'staff engineer', 'critic agent')."),
      subject: text("Who receives it: the agent, sub-agent or team whose contribution is reviewed."),
      task_context: text("What the subject was asked to do, with the standard or acceptance criteria it was held to."),
      contribution_summary: text("What the subject did, as reported by the subject or the run log."),
      artifact: text("The output under review (text, code, plan, report) or a representative excerpt of it.")
    }),
    headline: Schema.Struct({
      plus: Schema.Array(
        Schema.Struct({
          item: Schema.String.annotations({ description: "What worked, specific enough to keep doing on purpose." }),
          ...Grounded
        }).annotations({ description: "One plus." })
      ).annotations({ description: "Pluses: what worked and should be kept." }),
      delta: Schema.Array(
        Schema.Struct({
          item: Schema.String.annotations({ description: "What did not work or fell short of the task context." }),
          change: Schema.String.annotations({ description: "The different behaviour next time, stated as an action ('put breaking changes first')." }),
          priority: Level.annotations({ description: "How much the change matters for the next run: low, medium, high." }),
          ...Grounded
        }).annotations({ description: "One delta." })
      ).annotations({ description: "Deltas: what to change next time, highest priority first." }),
      commitments: Schema.Array(
        Schema.Struct({
          action: Schema.String.annotations({ description: "The committed change for the next run." }),
          owner: Schema.String.annotations({ description: "Who carries it out: the subject agent, its orchestrator, a tool owner, a person." }),
          check: Schema.String.annotations({ description: "How the next run or its review verifies the commitment was kept." })
        }).annotations({ description: "One commitment." })
      ).annotations({ description: "At most three commitments drawn from the top deltas." }),
      verdict: Schema.Literal("keep_course", "adjust", "rework", "indeterminate").annotations({
        description: "Overall: keep_course (pluses dominate), adjust (targeted deltas), rework (the deltas undo the contribution), indeterminate (the request is too thin to judge)."
      }),
      prompt_patch: Schema.NullOr(Schema.String).annotations({
        description: "Instructions to add to the subject's prompt for its next run, distilled from the commitments, or null."
      })
    }).annotations({
      identifier: "PlusDeltaHeadline",
      description: "The plus/delta review: pluses, deltas, commitments, verdict and a prompt patch for the next run."
    })
  }),
  profiles: ["keep_course", "adjust", "rework", "indeterminate"],
  sequences: []
})
