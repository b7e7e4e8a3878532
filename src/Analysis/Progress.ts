/**
 * Where an analysis is, for a surface that shows it live (the CLI's progress lines on a terminal).
 * The engine, AnalyzeService and DiagnoseService tell the current `AnalysisProgress` what each
 * pattern is doing; by default nobody listens and each report is a call to a function that does
 * nothing. A surface that wants the reports provides its own listener around the service call
 * (a reference: reading it adds no requirement, and a run forked by the cache's single flight
 * inherits it). Reports carry counts only, never trace content.
 */
import * as Context from "effect/Context"
import type { Detection } from "../Catalogue/Detection.js"

/** queued (chosen, waiting for a slot), calling (a model call in flight), verifying (checking the
 * evidence, and in forensic mode the verification pass), done, failed. */
export type ProgressState = "queued" | "calling" | "verifying" | "done" | "failed"

export interface ProgressReport {
  readonly state: ProgressState
  /** Model calls answered so far. */
  readonly calls: number
  readonly inputTokens: number
  readonly outputTokens: number
  /** done: the detection came from the cache; failed: the error kind. */
  readonly note?: string
}

export interface AnalysisProgressShape {
  readonly report: (pattern: string, report: ProgressReport) => void
}

const NOBODY: AnalysisProgressShape = { report: () => undefined }

export class AnalysisProgress extends Context.Reference<AnalysisProgress>()("AnalysisProgress", {
  defaultValue: () => NOBODY
}) {}

/** The counts of a detection's `usage`, for the final report of a run. */
export const usageCounts = ({ usage }: Detection): Omit<ProgressReport, "state"> => ({
  calls: usage.llm_calls,
  inputTokens: usage.input_tokens,
  outputTokens: usage.output_tokens
})
