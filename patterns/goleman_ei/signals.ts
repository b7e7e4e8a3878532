/**
 * Goleman EI signals. Counts the surface cues each EI domain leaves in a behaviour report:
 * negative affect in the user's signals (social awareness has something to read), stock
 * empathy phrases (empathy said rather than done), apologies (self-management under friction),
 * certainty claims in the agent's self-reports (accurate self-assessment), and hand-offs to a
 * human (relationship management). Cue counts are facts for the model, not domain scores.
 */
import type { Signals } from "../../src/Catalogue/Detection.js"
import { type Highlight, ratio, repeatedIndices, signals } from "../../src/Catalogue/SignalKit.js"

export interface GolemanTrace {
  readonly observed_behaviors: ReadonlyArray<string>
  readonly success: boolean
  readonly interaction_class?: string | undefined
  readonly user_signals?: ReadonlyArray<string> | undefined
  readonly self_reports?: ReadonlyArray<string> | undefined
}

/** Negative affect or escalation on the user side. */
export const NEGATIVE_AFFECT =
  /\b(angry|anger|furious|frustrat\w*|upset|annoy\w*|ridiculous|useless|unacceptable|third time|(once|yet) again|still (not|broken|waiting)|cancel\w*|complain\w*|escalat\w*|manager|supervisor|human|worried|anxious|scared|confus\w*|disappoint\w*)\b|!{2,}/i
/** Stock empathy: acknowledgement that does not depend on what the user said. */
export const FORMULAIC_EMPATHY =
  /\b(i (completely |totally |fully )?understand (your|how you) (frustration|feel\w*|concern)|sorry for (any|the) inconvenience|apologi[sz]e for (any|the) inconvenience|i hear you|thank you for your patience|we value you|your (satisfaction|experience) is (important|our priority))\b/i
export const APOLOGY = /\b(sorry|apologi[sz]\w*)\b/i
/** Certainty claims about the agent's own work. */
export const CERTAINTY_CLAIM =
  /\b(fixed|resolved|verified|confirmed|processed|completed|done|guarantee\w*|definitely|certainly|i am (sure|certain|confident)|i'm (sure|certain|confident)|rest assured)\b|100 ?%/i
/** Calibrated uncertainty or an admitted limit. */
export const CALIBRATED_LIMIT =
  /\b(not (sure|certain)|i (can't|cannot|don't have) (access|verify|see|confirm)|unable to (verify|confirm|access)|i (may|might) be wrong|i don't know|outside (my|what i))\b/i
export const HANDOFF = /\b(escalat\w*|hand(ed)?[- ]?off|transfer\w*|human (agent|review)|specialist|supervisor|ticket)\b/i
/** Negation in front of a hand-off ("did not offer a transfer"): the hand-off was withheld. */
export const NEGATED = /\b(did not|didn't|never|no|not|without|refused|declined|ignored)\b/i
export const DEFENSIVE = /\b(as i (already|previously) (said|explained|mentioned)|you (must|should) have|that is not (my|our) (fault|problem)|you didn't|per (our|the) policy)\b/i

const indicesMatching = (items: ReadonlyArray<string>, pattern: RegExp): Array<number> =>
  items.flatMap((text, i) => (pattern.test(text) ? [i] : []))

export const golemanSignals = (trace: GolemanTrace): Signals => {
  const behaviours = trace.observed_behaviors
  const userSignals = trace.user_signals ?? []
  const selfReports = trace.self_reports ?? []

  const negative = indicesMatching(userSignals, NEGATIVE_AFFECT)
  const formulaic = indicesMatching(behaviours, FORMULAIC_EMPATHY)
  const formulaicReports = indicesMatching(selfReports, FORMULAIC_EMPATHY)
  const apologies = [...behaviours, ...selfReports].filter((text) => APOLOGY.test(text)).length
  const claims = indicesMatching(selfReports, CERTAINTY_CLAIM)
  const limits = indicesMatching(selfReports, CALIBRATED_LIMIT)
  const handoffMentions = indicesMatching(behaviours, HANDOFF)
  const handoffs = handoffMentions.filter((i) => !NEGATED.test(behaviours[i] ?? ""))
  const withheld = handoffMentions.filter((i) => NEGATED.test(behaviours[i] ?? ""))
  const defensive = indicesMatching(behaviours, DEFENSIVE)
  const repeats = repeatedIndices(behaviours)

  const highlights: Array<Highlight> = [
    ...negative.map((i) => ({ ref: `user_signals[${i}]`, reason: "user signals negative affect or escalation" })),
    ...claims.map((i) => ({
      ref: `self_reports[${i}]`,
      reason: trace.success ? "agent claims its work is done or verified" : "agent claims success in a run that failed"
    })),
    ...formulaic.map((i) => ({ ref: `observed_behaviors[${i}]`, reason: "stock empathy phrase" })),
    ...withheld.map((i) => ({ ref: `observed_behaviors[${i}]`, reason: "hand-off to a person withheld" })),
    ...defensive.map((i) => ({ ref: `observed_behaviors[${i}]`, reason: "defensive or blaming wording" })),
    ...repeats.map((i) => ({ ref: `observed_behaviors[${i}]`, reason: "repeats an earlier behaviour" })),
    ...formulaicReports.map((i) => ({ ref: `self_reports[${i}]`, reason: "stock empathy phrase" }))
  ]

  return signals(
    {
      interaction_class: trace.interaction_class ?? null,
      behaviour_count: behaviours.length,
      user_signal_count: userSignals.length,
      self_report_count: selfReports.length,
      negative_user_signals: negative.length,
      negative_signal_share: ratio(negative.length, userSignals.length),
      formulaic_empathy_markers: formulaic.length + formulaicReports.length,
      apology_count: apologies,
      certainty_claims: claims.length,
      calibrated_limit_statements: limits.length,
      claims_contradict_outcome: !trace.success && claims.length > 0,
      handoffs_offered: handoffs.length,
      handoffs_withheld: withheld.length,
      defensive_markers: defensive.length,
      repeated_behaviours: repeats.length,
      unanswered_distress: negative.length > 0 && handoffs.length === 0 && !trace.success,
      success: trace.success
    },
    highlights
  )
}
