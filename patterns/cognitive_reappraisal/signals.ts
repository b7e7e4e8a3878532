/**
 * Cognitive-reappraisal signals. Gross's process model places emotion regulation at five points:
 * situation selection, situation modification, attentional deployment, cognitive change
 * (reappraisal) and response modulation (suppression). The agent's response is scanned for the
 * wording each family leaves (an agent regulating a user's emotion acts through what it says and
 * does). Also measured: the user's negative-affect markers, absolute reassurances (a reappraisal
 * is only as good as its facts, so each one is a claim to check against the outcome), clarifying
 * questions, and the share of antecedent-focused versus response-focused wording.
 */
import type { Signals } from "../../src/Catalogue/Detection.js"
import { type Highlight, ratio, signals, wordCount } from "../../src/Catalogue/SignalKit.js"

export interface ReappraisalTrace {
  readonly user_input: string
  readonly user_emotion?: string | undefined
  readonly agent_response: string
  readonly outcome: string
  readonly success: boolean
}

export const STRATEGIES = [
  "situation_selection",
  "situation_modification",
  "attentional_deployment",
  "cognitive_change",
  "response_modulation"
] as const
export type Strategy = (typeof STRATEGIES)[number]

/** Wording each regulation family leaves in an agent's reply (global flag: every occurrence counts). */
export const STRATEGY_MARKERS: Readonly<Record<Strategy, RegExp>> = {
  situation_selection:
    /\b(instead of|switch to|move (this|it) to|another (channel|option|route)|(schedule|book) a call|you (don't|do not) (have|need) to|skip (this|that) step|avoid (this|that))\b/gi,
  situation_modification:
    /\b(i('ve| have) (fixed|reset|refunded|restored|updated|changed|applied|issued|retried|escalated|extended|paused)|i (will|can|'ll) (fix|reset|refund|restore|update|retry|escalate|extend|pause)|here('s| is) (how to|a workaround|the fix)|let me (fix|reset|restore|check|retry|look))\b/gi,
  attentional_deployment:
    /\b(let's focus|focus on|in the meantime|meanwhile|for now|the good news|on the bright side|let's look at|set (that|this) aside)\b/gi,
  cognitive_change:
    /\b(this (means|doesn't mean|does not mean)|what (this|that) means|(it's|it is) (common|normal|expected|temporary|reversible)|to put (it|this) in (perspective|context)|the reason (is|this)|not (lost|deleted|gone|permanent)|is (recoverable|intact|reversible))\b/gi,
  response_modulation:
    /\b(calm down|(don't|do not) (worry|panic|stress)|no need to (worry|panic|be upset|stress)|please (stay calm|be patient|relax)|relax|let's keep (this|it) (professional|civil)|there's no reason to (worry|panic|be upset)|stay positive)\b/gi
}

export const ACKNOWLEDGEMENT = /\b(i understand|i hear you|that sounds|i'm sorry|i am sorry|i can see|must be (frustrating|stressful|worrying|scary))\b/gi
export const REASSURANCE =
  /\b(completely safe|totally safe|perfectly safe|nothing (to worry|serious)|(is|are) safe|guarantee\w*|definitely|certainly|no (data|money|work) (is|was|will be) lost|nothing will happen|(it's|it is) (fine|ok|okay))\b|100 ?%/gi
export const NEGATIVE_AFFECT =
  /\b(panic\w*|scared|afraid|terrified|worried|anxious|stress\w*|angry|furious|frustrat\w*|upset|devastat\w*|desperate|overwhelm\w*|hate|awful|disaster)\b|!{2,}/gi

const count = (text: string, pattern: RegExp): number => (text.match(pattern) ?? []).length

/** The family with the most markers; "none" without markers, "mixed" on a tie at the top. */
export const markerStrategy = (counts: Readonly<Record<Strategy, number>>): Strategy | "none" | "mixed" => {
  const best = Math.max(...STRATEGIES.map((s) => counts[s]))
  if (best === 0) return "none"
  const top = STRATEGIES.filter((s) => counts[s] === best)
  return top.length === 1 && top[0] !== undefined ? top[0] : "mixed"
}

export const reappraisalSignals = (trace: ReappraisalTrace): Signals => {
  const response = trace.agent_response
  const counts: Record<Strategy, number> = {
    situation_selection: count(response, STRATEGY_MARKERS.situation_selection),
    situation_modification: count(response, STRATEGY_MARKERS.situation_modification),
    attentional_deployment: count(response, STRATEGY_MARKERS.attentional_deployment),
    cognitive_change: count(response, STRATEGY_MARKERS.cognitive_change),
    response_modulation: count(response, STRATEGY_MARKERS.response_modulation)
  }
  const antecedent = counts.situation_selection + counts.situation_modification + counts.attentional_deployment + counts.cognitive_change
  const reassurances = count(response, REASSURANCE)
  const acknowledgements = count(response, ACKNOWLEDGEMENT)
  const userAffect = count(trace.user_input, NEGATIVE_AFFECT)
  const inputWords = wordCount(trace.user_input)
  const responseWords = wordCount(response)

  const highlights: Array<Highlight> = [
    ...(userAffect > 0 ? [{ ref: "user_input", reason: "user expresses negative affect" }] : []),
    ...(counts.response_modulation > 0
      ? [{ ref: "agent_response", reason: "response-focused regulation (suppression wording)" }]
      : reassurances > 0
      ? [{ ref: "agent_response", reason: "absolute reassurance: a reappraisal claim to check against the outcome" }]
      : []),
    ...(reassurances > 0 && !trace.success ? [{ ref: "outcome", reason: "run failed after an absolute reassurance" }] : [])
  ]

  return signals(
    {
      user_emotion: trace.user_emotion === undefined ? null : trace.user_emotion.trim().toLowerCase(),
      user_negative_markers: userAffect,
      user_input_words: inputWords,
      agent_response_words: responseWords,
      response_to_input_ratio: ratio(responseWords, inputWords),
      strategy_markers: counts,
      marker_strategy: markerStrategy(counts),
      antecedent_markers: antecedent,
      response_focused_markers: counts.response_modulation,
      antecedent_share: antecedent + counts.response_modulation === 0 ? null : ratio(antecedent, antecedent + counts.response_modulation),
      acknowledgements,
      acknowledgement_only: acknowledgements > 0 && antecedent + counts.response_modulation === 0,
      absolute_reassurances: reassurances,
      reassurance_contradicted: reassurances > 0 && !trace.success,
      clarifying_questions: count(response, /\?/g),
      success: trace.success
    },
    highlights
  )
}
