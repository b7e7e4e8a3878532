import * as Schema from "effect/Schema"
import { Score } from "../../src/Catalogue/Detection.js"
import { familyFields, traceInput } from "../../src/Catalogue/Families.js"
import { defineContract } from "../../src/Catalogue/Contract.js"

/** The task categories the conflict-mode fit is judged against. */
export const TASK_CATEGORIES = [
  "safety_or_policy",
  "emergency",
  "negotiation",
  "complex_problem_solving",
  "customer_support",
  "low_stakes_preference",
  "relationship_repair",
  "other"
] as const

const Style = Schema.Literal("competing", "collaborating", "compromising", "avoiding", "accommodating")

export const contract = defineContract({
  slug: "thomas_kilmann",
  name: "ThomasKilmann",
  friendly: "Thomas-Kilmann Conflict",
  group: "team",
  summary:
    "Reads a conversation in which the agent and its counterpart (a user, a customer, another agent) want incompatible things, and names the conflict-handling mode the agent used on Thomas and Kilmann's two axes, assertiveness (pursuing its own or its principal's concerns: policy, correctness, safety) and cooperativeness (pursuing the other side's): competing, collaborating, compromising, avoiding or accommodating. It then judges the mode the situation called for, flags shifts such as holding a line and then capitulating, and maps the mismatch to prompt, policy-tool and escalation changes.",
  anchor: "Thomas & Kilmann 1974",
  family: "conversation",
  schemas: () => ({
    input: traceInput("ThomasKilmannInput", "A conversation containing a conflict, with an optional category of the task.", {
      ...familyFields.conversation,
      task_category: Schema.optional(
        Schema.Literal(...TASK_CATEGORIES).annotations({
          description:
            "Kind of situation, used as a prior for the fitting mode: safety_or_policy, emergency, negotiation, complex_problem_solving, customer_support, low_stakes_preference, relationship_repair, other."
        })
      )
    }),
    headline: Schema.Struct({
      style_used: Schema.Literal(
        "competing",
        "collaborating",
        "compromising",
        "avoiding",
        "accommodating",
        "no_conflict",
        "indeterminate"
      ).annotations({ description: "The mode that decided how the conflict ended; no_conflict when there was none." }),
      style_that_fits: Schema.Union(Style, Schema.Literal("indeterminate")).annotations({
        description: "The mode the situation called for, given stakes, the agent's constraints and the other side's concern."
      }),
      fit: Schema.Literal("fit", "partial", "mismatch", "indeterminate").annotations({
        description: "Whether the mode used matches the one that fits."
      }),
      assertiveness: Score.annotations({ description: "How far the agent pursued its own side's concerns, 0..1." }),
      cooperativeness: Score.annotations({ description: "How far the agent pursued the other side's concerns, 0..1." }),
      conflict_point: Schema.NullOr(Schema.String).annotations({
        description: "Where and over what the conflict arose, e.g. 'turns[2]: refund of the annual renewal', or null."
      }),
      style_shift: Schema.NullOr(Schema.String).annotations({
        description: "A change of mode during the conflict, e.g. 'competing → accommodating at turns[5]', or null."
      })
    }).annotations({
      identifier: "ThomasKilmannHeadline",
      description: "Conflict-handling mode used versus the mode that fits."
    })
  }),
  profiles: ["competing", "collaborating", "compromising", "avoiding", "accommodating", "no_conflict", "indeterminate"],
  sequences: ["turns"]
})
