import * as Schema from "effect/Schema"
import { Score } from "../../src/Catalogue/Detection.js"
import { familyFields, NonEmptyText, traceInput, UnitInterval } from "../../src/Catalogue/Families.js"
import { defineContract } from "../../src/Catalogue/Contract.js"

const Quadrant = Schema.Literal("open", "blind", "hidden", "unknown", "indeterminate")

export const contract = defineContract({
  slug: "johari",
  name: "Johari",
  friendly: "Johari Window",
  group: "individual",
  summary:
    "Compares what an agent says about its own run (its self-report: summary, claims, stated confidence) with what an observer sees in the conversation and the outcome, and sorts the run's facts into Luft and Ingham's four quadrants: open (known to the agent and visible to others), blind (visible in the trace but missing from or contradicted by the self-report), hidden (known to the agent, as its self-report shows, but never disclosed to the user) and unknown (a failure cause neither side shows). Reports the size of each quadrant, the self-report's accuracy and calibration, and whether disclosure or feedback would enlarge the open area.",
  anchor: "Luft & Ingham 1955",
  family: "conversation",
  schemas: () => ({
    input: traceInput("JohariInput", "A conversation plus the agent's own report on the run.", {
      ...familyFields.conversation,
      self_report: Schema.Struct({
        summary: NonEmptyText.annotations({
          description: "The agent's own account of the run: what it did, what it achieved, what it is unsure of."
        }),
        claims: Schema.optional(
          Schema.Array(NonEmptyText).annotations({
            description: "The self-report broken into single checkable claims; referenced as self_report.claims[i]."
          })
        ),
        confidence: Schema.optional(
          UnitInterval.annotations({ description: "The confidence the agent stated in its result, 0..1." })
        )
      }).annotations({
        description:
          "What the agent knows or believes about its own run (known to self). Compared with the turns (known to others). Required: without it there is no self side of the window."
      })
    }),
    headline: Schema.Struct({
      quadrants: Schema.Struct({
        open: Score.annotations({ description: "Share of the run's relevant facts known to the agent and visible to others." }),
        blind: Score.annotations({
          description: "Share visible in the trace or outcome but missing from or contradicted by the self-report."
        }),
        hidden: Score.annotations({
          description: "Share the agent knew (its self-report or reasoning shows it) but did not disclose to the user."
        }),
        unknown: Score.annotations({
          description: "Share of the failure that neither the self-report nor the conversation explains."
        })
      }).annotations({ description: "Approximate size of each Johari quadrant; the four shares sum to about 1." }),
      dominant_quadrant: Quadrant.annotations({
        description: "The quadrant that holds the failure: open (none, the run was transparent), blind, hidden, unknown, or indeterminate."
      }),
      self_report_accuracy: Schema.NullOr(Score).annotations({
        description: "Share of the self-report's checkable claims that the trace and outcome confirm; null when it makes no checkable claim."
      }),
      calibration: Schema.Literal("calibrated", "overconfident", "underconfident", "not_stated", "indeterminate").annotations({
        description: "Whether the agent's stated confidence matched the outcome."
      }),
      largest_blind_spot: Schema.NullOr(Schema.String).annotations({
        description: "The most consequential thing observers could see and the agent could not, in one sentence; null when there is none."
      })
    }).annotations({ identifier: "JohariHeadline", description: "Johari window: quadrant sizes and self-report accuracy." })
  }),
  profiles: ["open", "blind", "hidden", "unknown", "indeterminate"],
  sequences: ["turns"],
  traces: {
    accepts: true,
    needs: "hints.self_report (the agent's own summary, claims and confidence) when the agent sends no final message in the trace."
  }
})
