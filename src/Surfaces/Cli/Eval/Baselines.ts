/**
 * `svc eval --baseline`: predictions that need no model, over the trace's normalized events, to
 * read diagnose's numbers against (issue 38, docs/eval.md):
 * - `random`: a step drawn uniformly among the trace's steps, reported as its expected value
 *   (step: 1 / steps when the labelled step is one of them; agent: the share of steps by the
 *   labelled agent; span: the share of spans that are a labelled location), never sampled;
 * - `first-error`: the first event that is an error, or whose text says one (error, exception,
 *   traceback, failed); none: an abstention;
 * - `triage`: the first event that the most relevant pattern's signals point at, as diagnose's
 *   triage ranks the patterns without a model call; none: an abstention.
 */
import * as Either from "effect/Either"
import type { CatalogueEntry } from "../../../Catalogue/Catalogue.js"
import { validateAdmitted } from "../../../Analysis/RawTraces.js"
import { rankCandidates, shapeOf, triageOne } from "../../../Diagnose/Triage.js"
import type { NormalizedTrace, TraceFormat } from "../../../Traces/Model.js"
import type { Baseline, Label } from "./Dataset.js"
import { normalizeAgent, type Prediction, type Scores, score, spanOfSource, stepOfSource } from "./Score.js"


const ERROR_TEXT = /\b(error|exception|traceback|failed|failure)\b/i

const predictionAt = (trace: NormalizedTrace, index: number | undefined): Prediction | null => {
  const event = index === undefined ? undefined : trace.events[index]
  return event === undefined ? null : { agent: event.actor, step: stepOfSource(event.source), span: spanOfSource(event.source) }
}

/** The expected scores of a uniformly random step (or span). */
export const randomExpectation = (trace: NormalizedTrace, label: Label): Scores => {
  const steps = new Map<number, string>()
  const spans = new Set<string>()
  for (const event of trace.events) {
    const step = stepOfSource(event.source)
    if (step !== null && !steps.has(step)) steps.set(step, event.actor)
    const span = spanOfSource(event.source)
    if (span !== null) spans.add(span)
  }
  const agents = Array.from(steps.values())
  const byAgent = (agent: string) => agents.filter((actor) => normalizeAgent(actor) === normalizeAgent(agent)).length
  return {
    agent: label.agent === null ? null : steps.size === 0 ? 0 : byAgent(label.agent) / steps.size,
    step: label.step === null ? null : steps.has(label.step) ? 1 / steps.size : 0,
    span: label.spans.length === 0 ? null : spans.size === 0 ? 0 : Array.from(spans).filter((span) => label.spans.includes(span)).length / spans.size
  }
}

export const firstError = (trace: NormalizedTrace): Prediction | null =>
  predictionAt(trace, trace.events.findIndex((event) => event.kind === "error" || (event.role !== "user" && ERROR_TEXT.test(event.content))))

/** The first event the top-ranked pattern's signals point at (diagnose's triage, no model). */
export const triagePick = (entries: ReadonlyArray<CatalogueEntry>, format: TraceFormat, trace: NormalizedTrace): Prediction | null => {
  const shape = shapeOf(trace)
  for (const candidate of rankCandidates(entries.map((entry) => triageOne(entry, format, trace, {}, shape)))) {
    if (candidate.cannot !== undefined || candidate.score <= 0) continue
    const validated = validateAdmitted(candidate.entry.pattern.code, { _tag: "Raw", format, trace }, {})
    if (Either.isLeft(validated) || validated.right.origin === undefined) continue
    const origin = validated.right.origin
    for (const highlight of candidate.signals?.highlights ?? []) {
      const index = origin.eventOf(highlight.ref)
      if (index !== undefined) return predictionAt(trace, index)
    }
  }
  return null
}

/** A baseline's prediction and scores for one item. */
export const baselineOf = (
  baseline: Baseline,
  entries: ReadonlyArray<CatalogueEntry>,
  format: TraceFormat,
  trace: NormalizedTrace,
  label: Label
): { readonly predicted: Prediction | null; readonly scores: Scores } => {
  switch (baseline) {
    case "random":
      return { predicted: { agent: null, step: null, span: null }, scores: randomExpectation(trace, label) }
    case "first-error": {
      const predicted = firstError(trace)
      return { predicted, scores: score(label, predicted) }
    }
    case "triage": {
      const predicted = triagePick(entries, format, trace)
      return { predicted, scores: score(label, predicted) }
    }
  }
}
