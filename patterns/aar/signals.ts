/**
 * After-action review signals (US Army TC 25-20, 1993). An AAR asks what was supposed to happen,
 * what happened, why there was a difference, and what to sustain and improve. The signals measure
 * what the trace itself can tell without a model: whether an intent (a plan) was stated before the
 * first action, where the first error sits, whether the plan and the actions verified the work,
 * whether the agent leaned on assumptions, whether it claimed completion on a run that failed,
 * and how much of the task's wording the outcome covers.
 */
import type { Signals } from "../../src/Catalogue/Detection.js"
import { type Highlight, errorIndices, ratio, round, signals, stepStats } from "../../src/Catalogue/SignalKit.js"

export interface AarStep {
  readonly type: string
  readonly content: string
  readonly tool?: string | undefined
  readonly timestamp?: string | undefined
}

export interface AarTrace {
  readonly task: string
  readonly steps: ReadonlyArray<AarStep>
  readonly outcome: string
  readonly success: boolean
}

const PLAN_TYPE = /plan/i
const PLAN_CONTENT = /^\s*(plan\b|my plan|the plan|step 1\b|1[.)]\s|first,? i (will|'ll)|i (will|'ll) first)/i
const ACTION_TYPE = /action|tool|call|command|exec/i
const OBSERVATION_TYPE = /observation|result|output|response/i
const VERIFY = /\b(verif\w*|validat\w*|double.?check\w*|assert\w*|confirm(ed|ing|s)?|check(ed|ing)? (that|whether|the (result|output))|run(ning|s)? (the )?(full )?(test|tests|test suite|suite)|tests? pass(ed|es)?)\b/i
const TEST_COMMAND = /\b(npm (run )?test\S*|pnpm test|yarn test|pytest|go test|cargo test|mvn test|make test|jest|vitest|tsc|eslint|lint)\b/i
const ASSUMPTION = /\b(assum\w*|probably|presumably|likely|i guess|guess\w*|should be fine|must be|i think it is)\b/i
const COMPLETION = /\b(done|completed?|finished|all set|resolved|fixed|succeeded|successfully|ready to merge|task complete)\b/i

const STOPWORDS = new Set([
  "this", "that", "with", "from", "into", "have", "will", "your", "their", "they", "them", "then", "than", "when",
  "what", "which", "while", "where", "there", "these", "those", "about", "after", "before", "should", "would",
  "could", "must", "also", "only", "each", "every", "over", "under", "make", "sure", "keep", "were", "been", "being"
])

/** Content words of a text: lower-case alphanumeric tokens of 4+ characters, stopwords removed. */
export const contentWords = (text: string): Set<string> =>
  new Set(
    text
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter((word) => word.length >= 4 && !STOPWORDS.has(word))
  )

/** Share of the task's content words that the outcome mentions (0 when the task has none). */
export const termCoverage = (task: string, outcome: string): number => {
  const wanted = contentWords(task)
  const got = contentWords(outcome)
  let hit = 0
  for (const word of wanted) if (got.has(word)) hit += 1
  return ratio(hit, wanted.size)
}

/** Seconds between the earliest and latest parseable timestamps, or null with fewer than two. */
export const durationSeconds = (steps: ReadonlyArray<AarStep>): number | null => {
  const times = steps.flatMap((step) => {
    if (step.timestamp === undefined) return []
    const t = Date.parse(step.timestamp)
    return Number.isFinite(t) ? [t] : []
  })
  if (times.length < 2) return null
  return round((Math.max(...times) - Math.min(...times)) / 1000)
}

const indicesWhere = (steps: ReadonlyArray<AarStep>, test: (step: AarStep) => boolean): Array<number> =>
  steps.flatMap((step, i) => (test(step) ? [i] : []))

export const isPlan = (step: AarStep): boolean => PLAN_TYPE.test(step.type) || PLAN_CONTENT.test(step.content)
export const isAction = (step: AarStep): boolean => ACTION_TYPE.test(step.type) || (step.tool !== undefined && !OBSERVATION_TYPE.test(step.type))
const isObservation = (step: AarStep): boolean => OBSERVATION_TYPE.test(step.type)

export const aarSignals = (trace: AarTrace): Signals => {
  const { steps } = trace
  const base = stepStats(steps)
  const plans = indicesWhere(steps, isPlan)
  const actions = indicesWhere(steps, isAction)
  const firstAction = actions[0] ?? null
  const firstPlan = plans[0] ?? null
  const planBeforeAction = firstPlan !== null && (firstAction === null || firstPlan < firstAction)
  const replans = firstAction === null ? 0 : plans.filter((i) => i > firstAction).length
  const errors = errorIndices(steps)
  const firstError = errors[0] ?? null
  const afterError = firstError === null ? [] : actions.filter((i) => i > firstError)
  const claims = indicesWhere(steps, (step) => !isObservation(step) && COMPLETION.test(step.content))
  const verifications = actions.filter((i) => {
    const content = steps[i]?.content ?? ""
    return !claims.includes(i) && (VERIFY.test(content) || TEST_COMMAND.test(content))
  })
  const plannedVerification = plans.some((i) => VERIFY.test(steps[i]?.content ?? ""))
  const assumptions = indicesWhere(steps, (step) => !isObservation(step) && ASSUMPTION.test(step.content))
  const claimedOnFailure = !trace.success && claims.length > 0
  const lastStep = steps[steps.length - 1]
  const highlights: Array<Highlight> = [
    ...(firstPlan === null ? [] : [{ ref: `steps[${firstPlan}]`, reason: "stated intent: what was supposed to happen" }]),
    ...(firstError === null ? [] : [{ ref: `steps[${firstError}]`, reason: "first error: earliest candidate for where actual departed from intended" }]),
    ...(claimedOnFailure ? claims.map((i) => ({ ref: `steps[${i}]`, reason: "claims completion on a run that failed" })) : []),
    ...assumptions.map((i) => ({ ref: `steps[${i}]`, reason: "acts on an assumption rather than a checked fact" })),
    ...verifications.map((i) => ({ ref: `steps[${i}]`, reason: "action that verifies the work" })),
    ...base.highlights
  ]
  return signals(
    {
      ...base.values,
      success: trace.success,
      plan_steps: plans.length,
      plan_before_first_action: planBeforeAction,
      replans_after_first_action: replans,
      action_steps: actions.length,
      first_error_step: firstError,
      first_error_position: firstError === null ? null : ratio(firstError + 1, steps.length),
      actions_after_first_error: afterError.length,
      plan_includes_verification: plannedVerification,
      verification_actions: verifications.length,
      assumption_steps: assumptions.length,
      completion_claims: claims.length,
      claimed_completion_on_failed_run: claimedOnFailure,
      ends_on_error: lastStep !== undefined && errors.includes(steps.length - 1),
      task_terms_covered_by_outcome: termCoverage(trace.task, trace.outcome),
      duration_seconds: durationSeconds(steps)
    },
    highlights
  )
}
