import * as Schema from "effect/Schema"
import { Score } from "../../src/Catalogue/Detection.js"
import { familyFields, traceInput } from "../../src/Catalogue/Families.js"
import { defineContract } from "../../src/Catalogue/Contract.js"

const Bias = Schema.Literal("anchoring", "availability", "confirmation", "escalation_of_commitment")

export const contract = defineContract({
  slug: "bias_stack",
  name: "BiasStack",
  friendly: "Bias Stack Detector",
  group: "team",
  summary:
    "Reads an agent's step trace for the judgment biases that compound in long tool-using runs: Tversky and Kahneman's anchoring (the first figure or hypothesis fixes every later estimate), availability (reasoning from the last or most familiar case), confirmation (reading every observation as support and never testing the alternative), and Staw's escalation of commitment (re-trying, re-justifying and investing more in a failing course because of what was already spent). It measures stated confidence against contradicting evidence, finds the first biased step and shows how one bias fed the next.",
  anchor: "Tversky & Kahneman 1974; Staw 1976",
  family: "step_trace",
  schemas: () => ({
    input: traceInput(
      "BiasStackInput",
      "A step trace; steps may carry the agent's stated confidence (0..1) so confidence can be tracked against evidence.",
      { ...familyFields.step_trace }
    ),
    headline: Schema.Struct({
      biases_present: Schema.Array(Bias).annotations({
        description: "Every bias the trace evidences (empty when none)."
      }),
      dominant_bias: Schema.Literal(
        "anchoring",
        "availability",
        "confirmation",
        "escalation_of_commitment",
        "stacked",
        "none",
        "indeterminate"
      ).annotations({
        description: "The bias that did the most damage, `stacked` when two or more fed each other, `none`, or `indeterminate`."
      }),
      bias_scores: Schema.Struct({
        anchoring: Score.annotations({ description: "Weight of evidence for anchoring and insufficient adjustment." }),
        availability: Score.annotations({ description: "Weight of evidence for reasoning from recent or familiar cases." }),
        confirmation: Score.annotations({ description: "Weight of evidence for seeking or reading evidence as confirming." }),
        escalation_of_commitment: Score.annotations({
          description: "Weight of evidence for persisting in a failing course because of prior investment."
        })
      }).annotations({ description: "Weight of evidence per bias, 0..1 each." }),
      first_biased_step: Schema.NullOr(Schema.String).annotations({
        description: "Reference of the first step where a bias entered, e.g. `steps[2]`, or null."
      }),
      stack_chain: Schema.NullOr(Schema.String).annotations({
        description: "How the biases fed each other in this run (e.g. 'anchor at steps[1] → confirming reads → retries'), or null."
      }),
      confidence_calibration: Schema.Literal("calibrated", "overconfident", "underconfident", "indeterminate").annotations({
        description: "Whether stated confidence tracked the evidence; indeterminate when the steps carry no confidence."
      })
    }).annotations({ identifier: "BiasStackHeadline", description: "Which judgment biases shaped the run and how they stacked." })
  }),
  profiles: ["anchoring", "availability", "confirmation", "escalation_of_commitment", "stacked", "none", "indeterminate"],
  sequences: ["steps"]
})
