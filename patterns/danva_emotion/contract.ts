import * as Schema from "effect/Schema"
import { Score } from "../../src/Catalogue/Detection.js"
import { NonEmptyText, plainInput, UnitInterval } from "../../src/Catalogue/Families.js"
import { defineContract } from "../../src/Catalogue/Contract.js"

const Item = Schema.Struct({
  id: NonEmptyText.annotations({ description: "Stable identifier of the test item (message id, case id)." }),
  user_input: NonEmptyText.annotations({ description: "The user's message the agent had to read." }),
  true_emotion: NonEmptyText.annotations({
    description: "The emotion the item expresses, from the labelled ground truth (happy, sad, angry, fearful, neutral, ...)."
  }),
  true_intensity: UnitInterval.annotations({
    description: "Ground-truth intensity, 0 (barely present) to 1 (extreme); items at 0.5 or above count as high intensity, as in the DANVA's high/low split."
  }),
  inferred_emotion: NonEmptyText.annotations({ description: "The emotion the agent (or its classifier) inferred." }),
  inferred_intensity: Schema.optional(
    UnitInterval.annotations({ description: "The intensity the agent inferred, 0..1, when it rates intensity." })
  )
}).annotations({ identifier: "DanvaEmotionItem", description: "One labelled emotion-reading item; referenced as items[i]." })

export const contract = defineContract({
  slug: "danva_emotion",
  name: "DanvaEmotion",
  friendly: "DANVA Emotion Reader",
  group: "individual",
  summary:
    "Scores an agent's emotion reading the way Nowicki and Duke's Diagnostic Analysis of Nonverbal Accuracy scores a person's: labelled items, each with a true emotion and intensity, against what the agent inferred. Accuracy, chance-corrected agreement, per-emotion unbiased hit rates, the confusion pairs, the high- versus low-intensity split and the intensity error are all computed in code. The model explains the misreadings from the messages themselves (sarcasm read as praise, polite anger or understated fear flattened to neutral) and names the prompt, classifier and eval changes that fix them.",
  anchor: "Nowicki & Duke 1994",
  family: "special",
  schemas: () => ({
    input: plainInput("DanvaEmotionInput", "Labelled emotion-reading items: what the user expressed and what the agent inferred.", {
      items: Schema.Array(Item).pipe(Schema.minItems(1)).annotations({
        description: "The test items in order; referenced as items[i]."
      })
    }),
    headline: Schema.Struct({
      accuracy: Score.annotations({ description: "Share of items whose emotion label the agent got right (copy the `accuracy` signal)." }),
      confusion_pairs: Schema.Array(
        Schema.Struct({
          true_emotion: Schema.String.annotations({ description: "The emotion the items expressed." }),
          inferred_emotion: Schema.String.annotations({ description: "The emotion the agent read instead." }),
          count: Schema.Int.pipe(Schema.nonNegative()).annotations({ description: "How many items were misread this way." })
        }).annotations({ description: "One confusion: true emotion read as another." })
      ).annotations({ description: "The most frequent confusions, most frequent first (at most 3; from the `confusion_pairs` signal)." }),
      intensity_error: Schema.NullOr(UnitInterval).annotations({
        description: "Mean absolute intensity error over the items the agent rated (the `intensity_mae` signal); null when it rated none."
      }),
      intensity_bias: Schema.Literal("over_reads", "under_reads", "accurate", "not_rated", "indeterminate").annotations({
        description: "Direction of the intensity error: over_reads (sees more than is there), under_reads, accurate, or not_rated."
      }),
      weakest_emotion: Schema.NullOr(Schema.String).annotations({
        description: "The emotion with the lowest unbiased hit rate, or null when there is none to name."
      })
    }).annotations({
      identifier: "DanvaEmotionHeadline",
      description: "DANVA emotion reading: accuracy, confusion pairs and intensity error (computed without the model)."
    })
  }),
  profiles: ["accurate", "label_confusion", "flattening", "valence_inversion", "intensity_misjudgment", "indeterminate"],
  sequences: ["items"],
  traces: {
    accepts: false,
    needs: "hints.items: labelled emotion-reading items (the user's message, the true emotion and intensity from ground truth, the emotion the agent inferred), which a run cannot carry."
  }
})
