/**
 * Bias stack signals. Markers for the four biases in the agent's own steps, plus the confidence
 * measurements that separate a bias from honest uncertainty:
 * - confidence_trend: least-squares slope of stated confidence over step index (per step).
 * - contradiction steps: observations or tool results that report an error or contradict what was
 *   expected; for each, the confidence stated last before it and first after it.
 * - anchoring: the first salient number of the first reasoning step and how often it recurs.
 * - escalation: calls to a tool after it has already failed, and the share of tool calls after the
 *   first contradiction that stay in a tool family (namespace) chosen before it.
 */
import type { Signals } from "../../src/Catalogue/Detection.js"
import { type Highlight, looksLikeError, mean, ratio, round, signals, stepStats } from "../../src/Catalogue/SignalKit.js"

export interface BiasStep {
  readonly type: string
  readonly content: string
  readonly tool?: string | undefined
  readonly confidence?: number | undefined
}

export interface BiasTrace {
  readonly steps: ReadonlyArray<BiasStep>
}

const REASONING = /thought|reason|plan|think|reflect|decision|answer|final/i
const EVIDENCE = /observ|result|output|response|feedback|error|tool_result|return/i
const CONTRADICTION = /\b(contradict\w*|does not match|doesn't match|mismatch|inconsistent|unexpected(ly)?|no results?|0 results|not found|differs? from|conflict\w*|disprov\w*|but (the|it|this) (shows|returned|says))\b/i
const AVAILABILITY = /\b(usually|typically|normally|last time|recently|i remember|commonly|often|as before|like (the )?(last|previous)|in my experience|this always|every time|most of the time|the usual)\b/i
const CONFIRMATION = /\b(confirms?|confirmed|as expected|consistent with|supports? (my|the|our)|proves?|validates?|in line with|just as i thought|exactly what i)\b/i
const DISCONFIRMING = /\b(rule out|ruled out|disprove|falsif\w*|alternative (explanation|hypothesis|cause)|what if (i'?m|i am|it'?s) wrong|check (whether|if) (it|this) is not|counter-?example|other possibilit\w*)\b/i
const ESCALATION = /\b(try again|retry(ing)?|one more (time|attempt|try)|keep (going|trying)|continue with|already (spent|invested|done|tried)|so far|almost there|too late to|can'?t give up|sunk|double down|push (on|through))\b/i
const SALIENT_NUMBER = /(?<![\w.])(\d+(?:[.,]\d+)?%?|\d*\.\d+)(?![\w.])/g

/** Least-squares slope of ys over xs; null with fewer than two distinct xs. */
export const slope = (xs: ReadonlyArray<number>, ys: ReadonlyArray<number>): number | null => {
  const n = Math.min(xs.length, ys.length)
  if (n < 2) return null
  const mx = xs.slice(0, n).reduce((a, b) => a + b, 0) / n
  const my = ys.slice(0, n).reduce((a, b) => a + b, 0) / n
  let num = 0
  let den = 0
  for (let i = 0; i < n; i++) {
    const dx = (xs[i] ?? 0) - mx
    num += dx * ((ys[i] ?? 0) - my)
    den += dx * dx
  }
  return den === 0 ? null : round(num / den)
}

/** Numbers that can anchor: anything but a lone single digit. */
const salientNumbers = (text: string): Array<string> =>
  [...text.matchAll(SALIENT_NUMBER)].map((m) => m[1] ?? "").filter((n) => n.replace(/[^\d]/g, "").length >= 2)

/** A tool's family: its namespace before the first `.`, `:` or `/` (`cdn.stats` → `cdn`). */
export const toolFamily = (tool: string): string => tool.split(/[.:/]/)[0] ?? tool

const isEvidence = (step: BiasStep): boolean => !REASONING.test(step.type) && (EVIDENCE.test(step.type) || step.tool !== undefined)
const isCall = (step: BiasStep): boolean => step.tool !== undefined && !EVIDENCE.test(step.type)

export const biasSignals = (trace: BiasTrace): Signals => {
  const steps = trace.steps
  const base = stepStats(steps)
  const highlights: Array<Highlight> = []
  const indicesWhere = (predicate: (s: BiasStep) => boolean) => steps.flatMap((s, i) => (predicate(s) ? [i] : []))

  // Confidence.
  const withConfidence = steps.flatMap((s, i) => (s.confidence === undefined ? [] : [{ i, c: s.confidence }]))
  const contradictions = indicesWhere(
    (s) => isEvidence(s) && (looksLikeError(s.type, s.content) || CONTRADICTION.test(s.content))
  )
  const deltas: Array<number> = []
  const afterValues: Array<number> = []
  let held = 0
  // Both lists ascend: one pointer walks the confidences (a search per contradiction was quadratic).
  let firstAtOrAfter = 0
  for (const c of contradictions) {
    while ((withConfidence[firstAtOrAfter]?.i ?? Number.POSITIVE_INFINITY) < c) firstAtOrAfter += 1
    const before = withConfidence[firstAtOrAfter - 1]
    const at = withConfidence[firstAtOrAfter]
    const after = at !== undefined && at.i === c ? withConfidence[firstAtOrAfter + 1] : at
    if (after !== undefined) afterValues.push(after.c)
    if (before === undefined || after === undefined) continue
    const delta = round(after.c - before.c)
    deltas.push(delta)
    if (delta >= 0) {
      held += 1
      highlights.push({ ref: `steps[${after.i}]`, reason: `confidence did not drop after the contradiction in steps[${c}]` })
    }
  }
  contradictions.forEach((i) => highlights.push({ ref: `steps[${i}]`, reason: "evidence that contradicts or fails" }))

  // Anchoring: first salient number of the first reasoning step.
  const firstReasoning = steps.findIndex((s) => REASONING.test(s.type))
  const anchorIndex = firstReasoning === -1 ? 0 : firstReasoning
  const anchor = salientNumbers(steps[anchorIndex]?.content ?? "")[0] ?? null
  const anchorRepeats =
    anchor === null ? [] : steps.flatMap((s, i) => (i > anchorIndex && salientNumbers(s.content).includes(anchor) ? [i] : []))
  if (anchor !== null) highlights.push({ ref: `steps[${anchorIndex}]`, reason: `first figure stated: ${anchor}` })
  anchorRepeats.forEach((i) => highlights.push({ ref: `steps[${i}]`, reason: `repeats the anchor ${anchor ?? ""}` }))

  // Marker wording in the agent's own reasoning and actions (not in tool output).
  const own = (s: BiasStep) => !isEvidence(s)
  const availability = indicesWhere((s) => own(s) && AVAILABILITY.test(s.content))
  const confirmation = indicesWhere((s) => own(s) && CONFIRMATION.test(s.content))
  const disconfirming = indicesWhere((s) => own(s) && DISCONFIRMING.test(s.content))
  const escalation = indicesWhere((s) => own(s) && ESCALATION.test(s.content))
  availability.forEach((i) => highlights.push({ ref: `steps[${i}]`, reason: "reasons from a recent or familiar case" }))
  confirmation.forEach((i) => highlights.push({ ref: `steps[${i}]`, reason: "reads evidence as confirming" }))
  escalation.forEach((i) => highlights.push({ ref: `steps[${i}]`, reason: "commitment language" }))

  // Escalation of commitment: calls to tools that already failed; persistence after the first contradiction.
  const failedTools = new Set<string>()
  let repeatAfterFailure = 0
  steps.forEach((s, i) => {
    if (isCall(s) && s.tool !== undefined && failedTools.has(s.tool)) {
      repeatAfterFailure += 1
      highlights.push({ ref: `steps[${i}]`, reason: `calls ${s.tool} again after it failed` })
    }
    if (s.tool !== undefined && isEvidence(s) && (looksLikeError(s.type, s.content) || CONTRADICTION.test(s.content))) {
      failedTools.add(s.tool)
    }
  })
  const firstContradiction = contradictions[0]
  const familiesBefore = new Set(
    steps.slice(0, firstContradiction ?? 0).flatMap((s) => (isCall(s) && s.tool !== undefined ? [toolFamily(s.tool)] : []))
  )
  const callsAfter = firstContradiction === undefined ? [] : steps.slice(firstContradiction + 1).filter(isCall)
  const persisted = callsAfter.filter((s) => s.tool !== undefined && familiesBefore.has(toolFamily(s.tool))).length

  return signals(
    {
      ...base.values,
      confidence_steps: withConfidence.length,
      confidence_series: withConfidence.map((x) => x.c),
      confidence_first: withConfidence[0]?.c ?? null,
      confidence_last: withConfidence[withConfidence.length - 1]?.c ?? null,
      confidence_max: withConfidence.length === 0 ? null : Math.max(...withConfidence.map((x) => x.c)),
      confidence_trend: slope(withConfidence.map((x) => x.i), withConfidence.map((x) => x.c)),
      contradiction_steps: contradictions.length,
      confidence_after_contradiction: mean(afterValues),
      confidence_change_after_contradiction: mean(deltas),
      contradictions_without_confidence_drop: held,
      anchor_value: anchor,
      anchor_step: anchor === null ? null : anchorIndex,
      anchor_repeats: anchorRepeats.length,
      final_step_repeats_anchor: anchor !== null && anchorRepeats.includes(steps.length - 1),
      availability_markers: availability.length,
      confirmation_markers: confirmation.length,
      disconfirming_checks: disconfirming.length,
      confirmation_ratio: ratio(confirmation.length, confirmation.length + disconfirming.length),
      escalation_markers: escalation.length,
      calls_after_failure_same_tool: repeatAfterFailure,
      persistence_after_first_contradiction: ratio(persisted, callsAfter.length)
    },
    [...highlights, ...base.highlights]
  )
}
