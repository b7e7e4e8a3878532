/**
 * Grant & Schwartz signals. The inverted U says a strength helps up to an inflection point and
 * hurts beyond it, so the trace is read for the *dose* of each agent strength: how many steps carry
 * the wording of thoroughness, persistence, helpfulness, caution, initiative or confidence, and the
 * structural traces of overuse (long runs of the same tool, repeated calls, work carried on after
 * the first error, stated confidence on a failed run).
 */
import type { Signals } from "../../src/Catalogue/Detection.js"
import { errorIndices, type Highlight, longestRun, mean, ratio, signals, stepStats } from "../../src/Catalogue/SignalKit.js"

export interface GrantStrengthsTrace {
  readonly steps: ReadonlyArray<{
    readonly type: string
    readonly content: string
    readonly tool?: string | undefined
    readonly confidence?: number | undefined
  }>
  readonly success: boolean
}

/** The agent strengths this pattern doses, in the fixed order used for ties. */
export const STRENGTHS = ["thoroughness", "persistence", "helpfulness", "caution", "initiative", "confidence"] as const
export type Strength = (typeof STRENGTHS)[number]

/** Wording that marks a step as an exercise of each strength. */
export const STRENGTH_MARKERS: Readonly<Record<Strength, RegExp>> = {
  thoroughness:
    /\b(double[- ]check\w*|re-?check\w*|re-?verif\w*|verif(y|ying|ied|ication)|re-?read\w*|re-?run\w*|cross[- ]check\w*|validat\w*|thorough\w*|exhaustive\w*|to be (sure|certain|complete)|every (file|record|row|case|source|page|entry)|all (files|records|rows|cases|sources|pages|entries))\b/i,
  persistence:
    /\b(retry\w*|try(ing)? again|tried again|another attempt|attempt #?\d+|one more (time|try|attempt)|keep (trying|going)|not giving up|different approach|try a different|still failing|once again)\b/i,
  helpfulness:
    /\b(happy to|glad to|of course|absolutely|you'?re (right|correct)|you are (right|correct)|good point|great (question|idea|point)|as you (wish|requested|suggested|asked)|I agree|I apologi[sz]e|sorry for the)\b/i,
  caution:
    /\b(might not|may not|not sure|uncertain|unclear whether|cannot guarantee|can'?t guarantee|to be safe|risk(y|s)?|cautio\w*|careful\w*|before I (proceed|continue)|please confirm|need (your )?confirmation|could you (clarify|confirm)|clarif(y|ication))\b/i,
  initiative:
    /\b(went ahead|took the liberty|decided to|while I was at it|proactively|on my own|without (asking|waiting|confirmation)|also (refactor|updat|fix|chang|clean|rewr|renam|migrat)\w*|additionally (I|updated|changed|refactored|fixed))\b/i,
  confidence:
    /\b(definitely|certainly|clearly|obviously|guarantee[ds]?|without (a )?doubt|undoubtedly|I am (sure|certain|confident)|I'm (sure|certain|confident)|no need to (check|verify|test)|must be)\b/i
}

const RESULT_TYPE = /observation|result|output|response|return/i

/** Steps whose wording carries the marker of each strength. */
export const markerIndices = (steps: GrantStrengthsTrace["steps"]): Record<Strength, Array<number>> => {
  const out: Record<Strength, Array<number>> = {
    thoroughness: [],
    persistence: [],
    helpfulness: [],
    caution: [],
    initiative: [],
    confidence: []
  }
  steps.forEach((step, i) => {
    for (const strength of STRENGTHS) {
      if (STRENGTH_MARKERS[strength].test(step.content)) out[strength].push(i)
    }
  })
  return out
}

/** The strength with most marked steps (ties go to the earlier strength in STRENGTHS); null without markers. */
export const dominantStrength = (counts: Readonly<Record<Strength, number>>): Strength | null => {
  let best: Strength | null = null
  let bestCount = 0
  for (const strength of STRENGTHS) {
    if (counts[strength] > bestCount) {
      best = strength
      bestCount = counts[strength]
    }
  }
  return best
}

/**
 * The tool calls of the run (steps with a tool that are not tool results), as indices, and the
 * longest run of consecutive calls to the same tool with the index where it starts.
 */
export const toolRuns = (steps: GrantStrengthsTrace["steps"]) => {
  const calls = steps.flatMap((step, i) =>
    step.tool !== undefined && step.tool.length > 0 && !RESULT_TYPE.test(step.type) ? [i] : []
  )
  let longest = 0
  let longestStart: number | null = null
  let run = 0
  let runStart = 0
  let repeats = 0
  calls.forEach((index, k) => {
    const previous = k > 0 ? calls[k - 1] : undefined
    const same = previous !== undefined && steps[previous]?.tool === steps[index]?.tool
    if (same) {
      repeats += 1
      run += 1
    } else {
      run = 1
      runStart = index
    }
    if (run > longest) {
      longest = run
      longestStart = runStart
    }
  })
  return { calls, longest, longestStart, repeats }
}

export const grantStrengthsSignals = (trace: GrantStrengthsTrace): Signals => {
  const base = stepStats(trace.steps)
  const markers = markerIndices(trace.steps)
  const counts: Record<Strength, number> = {
    thoroughness: markers.thoroughness.length,
    persistence: markers.persistence.length,
    helpfulness: markers.helpfulness.length,
    caution: markers.caution.length,
    initiative: markers.initiative.length,
    confidence: markers.confidence.length
  }
  const shares: Record<string, number> = {}
  for (const strength of STRENGTHS) shares[strength] = ratio(counts[strength], trace.steps.length)
  const dominant = dominantStrength(counts)
  const tools = toolRuns(trace.steps)
  const distinctTools = new Set(tools.calls.map((i) => trace.steps[i]?.tool ?? "")).size
  const firstError = errorIndices(trace.steps)[0]
  const questionSteps = trace.steps.flatMap((step, i) => (!RESULT_TYPE.test(step.type) && step.content.includes("?") ? [i] : []))
  const confidences = trace.steps.flatMap((step) => (step.confidence === undefined ? [] : [step.confidence]))
  const meanConfidence = mean(confidences)

  const highlights: Array<Highlight> = []
  if (dominant !== null) {
    for (const i of markers[dominant]) highlights.push({ ref: `steps[${i}]`, reason: `worded as ${dominant}, the most frequent strength marker` })
  }
  if (tools.longestStart !== null && tools.longest >= 3) {
    highlights.push({ ref: `steps[${tools.longestStart}]`, reason: `starts a run of ${tools.longest} consecutive calls to the same tool` })
  }

  return signals(
    {
      ...base.values,
      strength_marker_steps: counts,
      strength_marker_shares: shares,
      dominant_marker_strength: dominant,
      dominant_marker_share: dominant === null ? 0 : shares[dominant] ?? 0,
      strengths_marked: STRENGTHS.filter((s) => counts[s] > 0).length,
      tool_calls: tools.calls.length,
      distinct_tools_called: distinctTools,
      tool_diversity: ratio(distinctTools, tools.calls.length),
      longest_same_tool_run: tools.longest,
      same_tool_repeat_calls: tools.repeats,
      question_steps: questionSteps.length,
      first_error_step: firstError ?? null,
      steps_after_first_error: firstError === undefined ? 0 : trace.steps.length - firstError - 1,
      longest_marker_run: dominant === null ? 0 : longestRun(markers[dominant]),
      stated_confidence_mean: meanConfidence,
      confident_on_failed_run: meanConfidence !== null && meanConfidence >= 0.8 && !trace.success
    },
    [...highlights, ...base.highlights]
  )
}
