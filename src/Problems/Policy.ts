/**
 * Whether a run's lenses explain its failure, or its problem's explanation stands for it
 * (DECISIONS §24). Pure: the store says what the scope knows of each failure (FailureState), the
 * settings how much to spend. The lenses run when a failure is unknown (no check fired, or its
 * fingerprint has no problem yet), when its problem has fewer than SVC_EXPLAIN_EXEMPLARS explained
 * runs, regressed, was never explained on the run's `version`, or the run is sampled
 * (SVC_EXPLAIN_SAMPLE, by a hash of the run's id, so a retry decides the same) — each of the last
 * four within SVC_EXPLAIN_MAX_PER_DAY explained runs of the problem a UTC day — or when asked.
 */
import { createHash } from "node:crypto"
import type { ExplainSettings } from "../Config.js"

/** What a scope knows of a failure's fingerprint before its run is explained (DECISIONS §24). */
export interface FailureState {
  readonly problemId: string
  readonly status: "open" | "resolved" | "ignored" | "regressed"
  /** Its runs whose lenses explained it, in all. */
  readonly explained: number
  /** Of those, since the UTC day began. */
  readonly explainedToday: number
  /** Whether a run on the version asked about was explained. */
  readonly versionExplained: boolean
}

export type ExplainDecision =
  | { readonly _tag: "Explain"; readonly why: string }
  | { readonly _tag: "Known"; readonly problemId: string; readonly why: string }

/** A stable draw in [0, 1) from the run's id. */
export const sampleDraw = (runId: string): number => createHash("sha256").update(runId).digest().readUInt32BE(0) / 2 ** 32

/**
 * The decision for a run whose check-anchored failures have these fingerprints (the decisive one
 * first). `asked`: an explicit request (`POST /v1/runs/{id}/explain`).
 */
export const decideExplain = (
  fingerprints: ReadonlyArray<string>,
  states: ReadonlyMap<string, FailureState>,
  settings: ExplainSettings,
  run: { readonly id: string; readonly asked: boolean; readonly version: string | undefined }
): ExplainDecision => {
  if (run.asked) return { _tag: "Explain", why: "asked" }
  if (fingerprints.length === 0) return { _tag: "Explain", why: "no check named the failure" }
  let known: { readonly problemId: string; readonly why: string } | undefined
  const sampled = sampleDraw(run.id) < settings.sample
  for (const fingerprint of fingerprints) {
    const state = states.get(fingerprint)
    if (state === undefined) return { _tag: "Explain", why: "a new failure" }
    const why = state.explained < settings.exemplars
      ? `an exemplar (${state.explained + 1} of ${settings.exemplars})`
      : state.status === "regressed"
      ? "its problem regressed"
      : !state.versionExplained
      ? `version ${run.version ?? ""} not explained yet`
      : sampled
      ? "sampled"
      : undefined
    if (why !== undefined && state.explainedToday < settings.maxPerDay) return { _tag: "Explain", why }
    known ??= {
      problemId: state.problemId,
      why: why === undefined
        ? `a known failure: problem ${state.problemId} explains it (${state.explained} explained runs)`
        : `a known failure: problem ${state.problemId} was explained ${state.explainedToday} times today (SVC_EXPLAIN_MAX_PER_DAY)`
    }
  }
  return known === undefined ? { _tag: "Explain", why: "no check named the failure" } : { _tag: "Known", ...known }
}
