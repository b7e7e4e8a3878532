/**
 * DANVA signals: the whole headline is computable without the model. Emotion labels are
 * canonicalised (case, whitespace, a small alias table: "anger" = "angry", "fear" = "fearful").
 * Measured: accuracy, Cohen's kappa (accuracy corrected for the agreement the label frequencies
 * alone would give), per-emotion hit rate and Wagner's (1993) unbiased hit rate Hu, the confusion
 * pairs, accuracy split by intensity as the DANVA splits its items into high and low intensity,
 * intensity error and bias, response bias (one label used for everything, e.g. "neutral"), and
 * valence flips (a negative emotion read as a positive one or the reverse).
 */
import type { Signals } from "../../src/Catalogue/Detection.js"
import { type Highlight, mean, normalise, ratio, round, signals } from "../../src/Catalogue/SignalKit.js"

export interface DanvaItem {
  readonly id: string
  readonly user_input: string
  readonly true_emotion: string
  readonly true_intensity: number
  readonly inferred_emotion: string
  readonly inferred_intensity?: number | undefined
}

export interface DanvaTrace {
  readonly items: ReadonlyArray<DanvaItem>
}

const ALIASES: Readonly<Record<string, string>> = {
  happiness: "happy",
  joy: "happy",
  joyful: "happy",
  sadness: "sad",
  anger: "angry",
  mad: "angry",
  fear: "fearful",
  afraid: "fearful",
  scared: "fearful",
  surprise: "surprised",
  disgust: "disgusted",
  frustration: "frustrated",
  anxiety: "anxious",
  none: "neutral",
  "no emotion": "neutral"
}

/** Lower-cased, whitespace-collapsed, aliases resolved. */
export const canonicalEmotion = (label: string): string => {
  const key = normalise(label)
  return ALIASES[key] ?? key
}

const POSITIVE = new Set(["happy", "excited", "grateful", "relieved", "calm", "content", "proud", "amused", "hopeful"])
const NEGATIVE = new Set(["sad", "angry", "fearful", "disgusted", "frustrated", "anxious", "disappointed", "ashamed", "worried", "annoyed"])

export const valence = (emotion: string): "positive" | "negative" | "neutral" | "unknown" =>
  POSITIVE.has(emotion) ? "positive" : NEGATIVE.has(emotion) ? "negative" : emotion === "neutral" ? "neutral" : "unknown"

/** DANVA splits items into high- and low-intensity portrayals; 0.5 is the cut on the 0..1 scale. */
export const HIGH_INTENSITY = 0.5

const increment = (table: Record<string, number>, key: string) => {
  table[key] = (table[key] ?? 0) + 1
}

/** Wagner's unbiased hit rate: hits² / (times presented × times the label was used); 0 when either is 0. */
export const unbiasedHitRate = (hits: number, presented: number, used: number): number =>
  presented === 0 || used === 0 ? 0 : round((hits * hits) / (presented * used))

/** Cohen's kappa from paired labels; null when chance agreement is 1 (a single shared label). */
export const kappa = (pairs: ReadonlyArray<readonly [string, string]>): number | null => {
  const n = pairs.length
  if (n === 0) return null
  const truth: Record<string, number> = {}
  const guess: Record<string, number> = {}
  let agree = 0
  for (const [t, g] of pairs) {
    increment(truth, t)
    increment(guess, g)
    if (t === g) agree += 1
  }
  const expected = Object.entries(truth).reduce((sum, [label, count]) => sum + (count / n) * ((guess[label] ?? 0) / n), 0)
  return expected >= 1 ? null : round((agree / n - expected) / (1 - expected))
}

export const danvaSignals = (trace: DanvaTrace): Signals => {
  const items = trace.items.map((item, index) => ({
    index,
    truth: canonicalEmotion(item.true_emotion),
    guess: canonicalEmotion(item.inferred_emotion),
    trueIntensity: item.true_intensity,
    inferredIntensity: item.inferred_intensity
  }))
  const n = items.length
  const hits = items.filter((item) => item.truth === item.guess)

  const presented: Record<string, number> = {}
  const used: Record<string, number> = {}
  const correct: Record<string, number> = {}
  const confusions: Record<string, number> = {}
  for (const item of items) {
    increment(presented, item.truth)
    increment(used, item.guess)
    if (item.truth === item.guess) increment(correct, item.truth)
    else increment(confusions, `${item.truth}->${item.guess}`)
  }
  const emotions = Object.keys(presented).sort()
  const hitRate: Record<string, number> = {}
  const hu: Record<string, number> = {}
  for (const emotion of emotions) {
    hitRate[emotion] = ratio(correct[emotion] ?? 0, presented[emotion] ?? 0)
    hu[emotion] = unbiasedHitRate(correct[emotion] ?? 0, presented[emotion] ?? 0, used[emotion] ?? 0)
  }
  const sortedPairs = Object.entries(confusions).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
  const confusionPairs: Record<string, number> = Object.fromEntries(sortedPairs)
  const weakest = emotions.length === 0
    ? null
    : emotions.reduce((worst, emotion) => ((hu[emotion] ?? 0) < (hu[worst] ?? 0) ? emotion : worst))

  const high = items.filter((item) => item.trueIntensity >= HIGH_INTENSITY)
  const low = items.filter((item) => item.trueIntensity < HIGH_INTENSITY)
  const accuracyOf = (group: ReadonlyArray<{ truth: string; guess: string }>) =>
    group.length === 0 ? null : ratio(group.filter((item) => item.truth === item.guess).length, group.length)

  const rated = items.flatMap((item) =>
    item.inferredIntensity === undefined ? [] : [{ index: item.index, error: item.inferredIntensity - item.trueIntensity }]
  )
  const bias = mean(rated.map((r) => r.error))
  const usedSorted = Object.entries(used).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
  const dominant = usedSorted[0]
  const flattened = items.filter((item) => item.guess === "neutral" && item.truth !== "neutral")
  const flips = items.filter((item) => {
    const t = valence(item.truth)
    const g = valence(item.guess)
    return (t === "positive" && g === "negative") || (t === "negative" && g === "positive")
  })

  const highlights: Array<Highlight> = [
    ...flips.map((item) => ({ ref: `items[${item.index}]`, reason: `valence flip: ${item.truth} read as ${item.guess}` })),
    ...items
      .filter((item) => item.truth !== item.guess)
      .map((item) => ({ ref: `items[${item.index}]`, reason: `${item.truth} read as ${item.guess}` })),
    ...rated
      .filter((r) => Math.abs(r.error) >= 0.4)
      .map((r) => ({ ref: `items[${r.index}]`, reason: `intensity off by ${round(r.error)}` }))
  ]

  return signals(
    {
      item_count: n,
      accuracy: ratio(hits.length, n),
      kappa: kappa(items.map((item) => [item.truth, item.guess] as const)),
      emotions_presented: emotions,
      hit_rate: hitRate,
      unbiased_hit_rate: hu,
      mean_unbiased_hit_rate: mean(emotions.map((emotion) => hu[emotion] ?? 0)),
      weakest_emotion: weakest,
      confusion_pairs: confusionPairs,
      top_confusion: sortedPairs[0]?.[0] ?? null,
      accuracy_high_intensity: accuracyOf(high),
      accuracy_low_intensity: accuracyOf(low),
      intensity_rated_items: rated.length,
      intensity_mae: mean(rated.map((r) => Math.abs(r.error))),
      intensity_bias: bias,
      intensity_direction: bias === null ? "not_rated" : bias > 0.05 ? "over_reads" : bias < -0.05 ? "under_reads" : "accurate",
      dominant_inferred_label: dominant?.[0] ?? null,
      dominant_inferred_share: ratio(dominant?.[1] ?? 0, n),
      flattened_to_neutral: flattened.length,
      valence_flips: flips.length
    },
    highlights
  )
}
