import * as Schema from "effect/Schema"
import { Score } from "../../src/Catalogue/Detection.js"
import { NonEmptyText, plainInput } from "../../src/Catalogue/Families.js"
import { defineContract } from "../../src/Catalogue/Contract.js"

export const contract = defineContract({
  slug: "smart_goal",
  name: "SmartGoal",
  friendly: "SMART Goal Generator",
  group: "team",
  summary:
    "Turns a vague goal for an agent or an agent team ('make the support bot better') into a SMART statement in Doran's original sense: Specific (the area to improve), Measurable (an indicator with a baseline and a target), Assignable (who owns it: which agent, team or person), Realistic (achievable with the tools, permissions, budget and data the constraints allow) and Time-related (a date or a step/budget bound). It scores the original goal on each criterion, writes acceptance checks an orchestrator or eval can run, and lists the assumptions the rewrite had to make so that someone confirms them. Findings are the gaps and risks in the request: undefined terms, missing baselines, constraints that make a target unrealistic, single metrics that invite trading off what is not measured.",
  anchor: "Doran 1981",
  family: "request",
  schemas: () => ({
    input: plainInput("SmartGoalInput", "A vague goal to rewrite as a SMART goal, with whatever context is known.", {
      vague_goal: NonEmptyText.annotations({ description: "The goal as stated, however vague (e.g. 'make our support agent better at refunds')." }),
      context: Schema.optional(
        NonEmptyText.annotations({
          description: "Background: the agent system, its tools, current numbers (baselines), who asked for the goal and why."
        })
      ),
      constraints: Schema.optional(
        Schema.Array(NonEmptyText.annotations({ description: "One constraint." })).annotations({
          description: "Limits the goal must respect (budget, tools, permissions, policies, model), one per item; referenced as constraints[i]."
        })
      ),
      deadline_hint: Schema.optional(
        NonEmptyText.annotations({ description: "Any time frame mentioned by the requester ('before the Q3 review', 'next sprint')." })
      )
    }),
    headline: Schema.Struct({
      smart_statement: Schema.String.annotations({
        description: "The rewritten goal in one or two sentences that meet all five criteria."
      }),
      criteria: Schema.Struct({
        specific: Schema.String.annotations({ description: "The specific area, artefact or behaviour the goal targets." }),
        measurable: Schema.String.annotations({ description: "The indicator, its baseline and its target, and where it is measured." }),
        assignable: Schema.String.annotations({ description: "Who owns and who executes the goal (agent, team, person)." }),
        realistic: Schema.String.annotations({ description: "Why the target is achievable with the stated tools, budget and constraints." }),
        time_related: Schema.String.annotations({ description: "The date, or the step, token or wall-time bound, by which the result is due." })
      }).annotations({ description: "How the SMART statement meets each of Doran's criteria." }),
      original_scores: Schema.Struct({
        specific: Score.annotations({ description: "How specific the original goal was." }),
        measurable: Score.annotations({ description: "How measurable the original goal was." }),
        assignable: Score.annotations({ description: "How clearly the original goal said who does it." }),
        realistic: Score.annotations({ description: "How realistic the original goal was, given what is known." }),
        time_related: Score.annotations({ description: "How clearly the original goal said when." })
      }).annotations({ description: "Scores of the original vague goal on each criterion, 0..1." }),
      weakest_criterion: Schema.Literal("specific", "measurable", "assignable", "realistic", "time_related", "none", "indeterminate").annotations({
        description: "The criterion the original goal most lacked; none when it was already SMART; indeterminate when the request is too thin."
      }),
      acceptance_checks: Schema.Array(Schema.String.annotations({ description: "One check." })).annotations({
        description: "Checks an orchestrator, eval or reviewer can run to decide the goal is met (metric, data set, threshold, date)."
      }),
      assumptions: Schema.Array(Schema.String.annotations({ description: "One assumption." })).annotations({
        description: "What the rewrite assumed because the request did not say, each to be confirmed by the requester."
      })
    }).annotations({
      identifier: "SmartGoalHeadline",
      description: "The SMART goal: statement, per-criterion rationale and scores of the original, acceptance checks, assumptions."
    })
  }),
  profiles: ["specific", "measurable", "assignable", "realistic", "time_related", "already_smart", "indeterminate"],
  sequences: []
})
