/**
 * `svc eval`'s scorer (issue 38, docs/eval.md): what diagnose (or a baseline) predicted for an
 * item, scored against its label by exact match, and the results summed up.
 * - The prediction is the report's decisive step: its actor, and its dataset step read back from
 *   the event's source (`history[12]` → 12, `messages[3]` → 3, `[7]` → 7; `span:<id>` → the span).
 *   No decisive step: an abstention, scored wrong (coverage says how often it happens).
 * - Agents are compared by `normalizeAgent`: the name before a trailing parenthesis, spaces
 *   collapsed, case ignored (`Orchestrator (thought)`, `Orchestrator (-> WebSurfer)` →
 *   `orchestrator`).
 * - Steps are compared as integers: `10` never matches `1` (Who&When's own scorer tests a
 *   substring, which counts it).
 * - A span matches when it is any of the annotated errors' locations (TRAIL).
 */
import type { DiagnoseReport } from "../../../Contract/DiagnoseReport.js"
import { spanIdOfSource } from "../../../Traces/Formats/Spans/Session.js"
import type { Label } from "./Dataset.js"
import { TRAIL_CATEGORIES } from "./TrailCategories.js"

/** The rule every agent name goes through before two are compared. */
export const normalizeAgent = (name: string): string =>
  name.replace(/\s*\([^()]*\)\s*$/, "").replace(/\s+/g, " ").trim().toLowerCase()

/** The dataset's own step index of an event source (`history[12]`, `messages[3]`, `[7]`, `steps[2]/…`); null for a span or another kind. */
export const stepOfSource = (source: string): number | null => {
  const match = /^(?:[A-Za-z_][A-Za-z0-9_]*)?\[(\d+)\]/.exec(source)
  return match?.[1] === undefined ? null : Number(match[1])
}

/** The span id of an event source (`span:<id>`, `span:<id>/input[2]`). */
export const spanOfSource = (source: string): string | null => spanIdOfSource(source) ?? null

export interface Prediction {
  readonly agent: string | null
  readonly step: number | null
  readonly span: string | null
  /** The patterns whose findings cite it (diagnose's decisive step). */
  readonly patterns?: ReadonlyArray<string> | undefined
}

/** The decisive step as a prediction; null when diagnose named none (an abstention). */
export const predictionOf = (report: DiagnoseReport): Prediction | null => {
  const step = report.decisive_step
  return step === null ? null : { agent: step.actor, step: stepOfSource(step.source), span: spanOfSource(step.source), patterns: step.patterns }
}

/** Scores of one item, each 0..1 (a baseline's expected value may lie between), null when the label has nothing to score. */
export interface Scores {
  readonly agent: number | null
  readonly step: number | null
  readonly span: number | null
  /** TRAIL: the right span, and a pattern mapped to its annotated category (TrailCategories.ts); null when no category of the item is mapped. */
  readonly category?: number | null
}

export const score = (label: Label, predicted: Prediction | null): Scores => {
  const mapped = label.categories.filter((each) => Object.hasOwn(TRAIL_CATEGORIES, each.category))
  return {
    agent: label.agent === null ? null : predicted?.agent != null && normalizeAgent(predicted.agent) === normalizeAgent(label.agent) ? 1 : 0,
    step: label.step === null ? null : predicted?.step === label.step ? 1 : 0,
    span: label.spans.length === 0 ? null : predicted?.span != null && label.spans.includes(predicted.span) ? 1 : 0,
    category: mapped.length === 0
      ? null
      : mapped.some((each) => each.span === predicted?.span && (predicted.patterns ?? []).some((pattern) => (TRAIL_CATEGORIES[each.category] ?? []).includes(pattern)))
      ? 1
      : 0
  }
}

/** Whether one lens's findings point where the label does: its cited events' agents and steps. */
export interface LensAgreement {
  readonly pattern: string
  readonly agent: number | null
  readonly step: number | null
}

/** Per lens that ran: does any of its findings cite an event by the labelled agent, at the labelled step? */
export const lensAgreement = (report: DiagnoseReport, label: Label): ReadonlyArray<LensAgreement> =>
  report.patterns.filter((run) => run.error === null).map((run) => {
    const cited = report.findings.filter((finding) => finding.pattern === run.pattern).flatMap((finding) => finding.evidence)
    return {
      pattern: run.pattern,
      agent: label.agent === null ? null : cited.some((item) => item.actor !== null && normalizeAgent(item.actor) === normalizeAgent(label.agent ?? "")) ? 1 : 0,
      step: label.step === null ? null : cited.some((item) => item.source !== undefined && stepOfSource(item.source) === label.step) ? 1 : 0
    }
  })

/** One scored item, as `--out` keeps it and `--format json` lists it. */
export interface ItemResult {
  readonly file: string
  readonly split: string
  /** `without` or `with` the ground truth given to the model. */
  readonly setting: "without" | "with"
  /** `diagnose`, or the baseline's name. */
  readonly method: string
  readonly label: { readonly agent: string | null; readonly step: number | null; readonly spans: ReadonlyArray<string> }
  readonly predicted: Prediction | null
  readonly scores: Scores
  readonly lenses: ReadonlyArray<LensAgreement>
  readonly tokens: { readonly input: number; readonly output: number; readonly llm_calls: number }
  readonly elapsed_ms: number
  /** Why diagnose gave nothing to score (the service's error kind and message); the item counts as wrong. */
  readonly error: string | null
}

interface Tally {
  n: number
  answered: number
  agent: { sum: number; of: number }
  step: { sum: number; of: number }
  span: { sum: number; of: number }
  category: { sum: number; of: number }
}

const tally = (): Tally => ({ n: 0, answered: 0, agent: { sum: 0, of: 0 }, step: { sum: 0, of: 0 }, span: { sum: 0, of: 0 }, category: { sum: 0, of: 0 } })

const add = (into: Tally, item: ItemResult) => {
  into.n += 1
  if (item.predicted !== null) into.answered += 1
  for (const key of ["agent", "step", "span", "category"] as const) {
    const value = item.scores[key] ?? null
    if (value !== null) {
      into[key].sum += value
      into[key].of += 1
    }
  }
}

const fraction = (sum: number, of: number): number | null => (of === 0 ? null : Math.round((sum / of) * 10_000) / 10_000)

export interface Accuracy {
  readonly n: number
  /** Items with a prediction (not an abstention, not an error), as a fraction of n. */
  readonly coverage: number | null
  readonly agent_accuracy: number | null
  readonly step_accuracy: number | null
  readonly span_accuracy: number | null
  readonly category_accuracy: number | null
}

const accuracyOf = (t: Tally): Accuracy => ({
  n: t.n,
  coverage: fraction(t.answered, t.n),
  agent_accuracy: fraction(t.agent.sum, t.agent.of),
  step_accuracy: fraction(t.step.sum, t.step.of),
  span_accuracy: fraction(t.span.sum, t.span.of),
  category_accuracy: fraction(t.category.sum, t.category.of)
})

export interface Summary extends Accuracy {
  readonly method: string
  readonly settings: Readonly<Record<string, Accuracy>>
  readonly splits: Readonly<Record<string, Accuracy>>
  readonly lenses: Readonly<Record<string, { readonly n: number; readonly agent_agreement: number | null; readonly step_agreement: number | null }>>
  readonly cost: { readonly input_tokens: number; readonly output_tokens: number; readonly llm_calls: number }
  readonly time: { readonly elapsed_ms: number; readonly mean_ms: number | null }
  readonly errors: number
  readonly items: ReadonlyArray<ItemResult>
}

/** The results summed up: overall, per ground-truth setting, per split (`<setting>/<split>` when both settings are present), per lens. */
export const summarize = (items: ReadonlyArray<ItemResult>): Summary => {
  const all = tally()
  const settings = new Map<string, Tally>()
  const splits = new Map<string, Tally>()
  const lenses = new Map<string, { n: number; agent: { sum: number; of: number }; step: { sum: number; of: number } }>()
  const bothSettings = new Set(items.map((item) => item.setting)).size > 1
  let input = 0
  let output = 0
  let calls = 0
  let elapsed = 0
  for (const item of items) {
    add(all, item)
    const setting = settings.get(item.setting) ?? tally()
    settings.set(item.setting, setting)
    add(setting, item)
    const splitName = bothSettings ? `${item.setting}/${item.split}` : item.split
    const split = splits.get(splitName) ?? tally()
    splits.set(splitName, split)
    add(split, item)
    for (const lens of item.lenses) {
      const into = lenses.get(lens.pattern) ?? { n: 0, agent: { sum: 0, of: 0 }, step: { sum: 0, of: 0 } }
      lenses.set(lens.pattern, into)
      into.n += 1
      if (lens.agent !== null) {
        into.agent.sum += lens.agent
        into.agent.of += 1
      }
      if (lens.step !== null) {
        into.step.sum += lens.step
        into.step.of += 1
      }
    }
    input += item.tokens.input
    output += item.tokens.output
    calls += item.tokens.llm_calls
    elapsed += item.elapsed_ms
  }
  return {
    method: Array.from(new Set(items.map((item) => item.method))).join(",") || "diagnose",
    ...accuracyOf(all),
    settings: Object.fromEntries(Array.from(settings, ([name, t]) => [name, accuracyOf(t)])),
    splits: Object.fromEntries(Array.from(splits.keys()).sort().map((name) => [name, accuracyOf(splits.get(name) ?? tally())])),
    lenses: Object.fromEntries(Array.from(lenses.keys()).sort().map((pattern) => {
      const t = lenses.get(pattern) ?? { n: 0, agent: { sum: 0, of: 0 }, step: { sum: 0, of: 0 } }
      return [pattern, { n: t.n, agent_agreement: fraction(t.agent.sum, t.agent.of), step_agreement: fraction(t.step.sum, t.step.of) }]
    })),
    cost: { input_tokens: input, output_tokens: output, llm_calls: calls },
    time: { elapsed_ms: Math.round(elapsed), mean_ms: items.length === 0 ? null : Math.round(elapsed / items.length) },
    errors: items.filter((item) => item.error !== null).length,
    items
  }
}
