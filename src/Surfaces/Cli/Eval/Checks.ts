/**
 * `svc eval --method checks` (issue 48, DECISIONS §23 "Measured, not asserted", docs/eval.md
 * "Checks"): every item through the checks alone (`POST /v1/checks`, in this process or at
 * --url), no model. Scored:
 * - per check, on the items that say which checks they must raise (`expect.checks`): precision
 *   (its findings on items that expect it, of all its findings; items that tolerate it left out),
 *   recall (items that expect it where it fired) and localisation (of those, items where one of
 *   its findings cites an event the label names);
 * - the `successful` split: the share flagged, a finding at medium or above;
 * - real runs labelled failed or successful (`expect.outcome`, Who&When: failed): the share of
 *   each flagged;
 * - labelled decisive steps (Who&When's agent and step, TRAIL's span): the checks' decisive step
 *   (the earliest event cited at the highest severity) scored as `svc eval` scores diagnose's,
 *   beside the baselines that need no model (random, first-error) on the same items.
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { asSeverity, type Severity, severityRank } from "../../../Catalogue/Severity.js"
import { NormalizedOne } from "../../../Contract/TracesContract.js"
import { type Backend, CliFailure } from "../Backend.js"
import { printable } from "../Printable.js"
import { baselineOf } from "./Baselines.js"
import type { EvalItem, ExpectedCheck } from "./Dataset.js"
import { type Accuracy, type ItemResult, type Prediction, score, type Scores, spanOfSource, stepOfSource, summarize } from "./Score.js"

/** A finding counts as flagging its run at this severity or above. */
const FLAGGED_AT = severityRank("medium")

/** One check's findings on an item: its highest severity and every source its evidence cites. */
export interface FiredCheck {
  readonly check: string
  readonly severity: string
  readonly findings: number
  readonly sources: ReadonlyArray<string>
}

/** One item's result, as `--out` keeps it: an ItemResult (the decisive step scored) with what the checks found. */
export interface CheckItemResult extends ItemResult {
  readonly id: string | null
  readonly expect: {
    readonly checks: ReadonlyArray<ExpectedCheck> | null
    readonly tolerated: ReadonlyArray<string>
    readonly outcome: "failed" | "successful" | null
  }
  readonly fired: ReadonlyArray<FiredCheck>
  /** The highest severity among the findings, `none` when no check fired. */
  readonly severity: string
  /** The baselines' picks and scores on the same trace, when the item labels a decisive step. */
  readonly baselines: Readonly<Record<string, { readonly predicted: Prediction | null; readonly scores: Scores }>>
}

export const isCheckItemResult = (value: ItemResult): value is CheckItemResult => "fired" in value && Array.isArray(value.fired) && "expect" in value

const decodeNormalized = Schema.decodeUnknownEither(NormalizedOne)

/** The item labels a decisive step (Who&When's agent and step, TRAIL's span). */
const labelsStep = (item: EvalItem) => item.label.agent !== null || item.label.step !== null || item.label.spans.length > 0

/** One item through the checks; the failure that stops the command (no service, no key) fails it. */
export const checkItem = (backend: Backend, item: EvalItem, fatal: ReadonlySet<string>): Effect.Effect<CheckItemResult, CliFailure> =>
  Effect.gen(function*() {
    const started = performance.now()
    const envelope = { trace: item.trace, ...(item.format === undefined ? {} : { format: item.format }), select: 0 }
    const base = {
      file: item.file,
      split: item.split,
      setting: "without" as const,
      method: "checks",
      label: { agent: item.label.agent, step: item.label.step, spans: item.label.spans },
      lenses: [],
      tokens: { input: 0, output: 0, llm_calls: 0 },
      id: item.id ?? null,
      expect: { checks: item.label.checks ?? null, tolerated: item.label.tolerated ?? [], outcome: item.label.outcome ?? null }
    }
    const answer = yield* Effect.either(backend.check(envelope))
    if (Either.isLeft(answer)) {
      if (fatal.has(answer.left.kind)) return yield* answer.left
      return {
        ...base,
        predicted: null,
        scores: score(item.label, null),
        fired: [],
        severity: "none",
        baselines: {},
        elapsed_ms: Math.round(performance.now() - started),
        error: `${answer.left.kind}: ${answer.left.message.slice(0, 300)}`
      } satisfies CheckItemResult
    }
    const response = answer.right.value
    const byCheck = new Map<string, { severity: Severity; findings: number; sources: Set<string> }>()
    for (const finding of response.checks) {
      const into = byCheck.get(finding.check) ?? { severity: finding.severity, findings: 0, sources: new Set<string>() }
      if (severityRank(finding.severity) > severityRank(into.severity)) into.severity = finding.severity
      into.findings += 1
      for (const evidence of finding.evidence) into.sources.add(evidence.source)
      byCheck.set(finding.check, into)
    }
    const step = response.decisive_step
    const predicted: Prediction | null = step === null ? null : { agent: step.actor, step: stepOfSource(step.source), span: spanOfSource(step.source), patterns: step.checks }
    // the baselines on the same trace, normalized once more (no model either)
    const baselines: Record<string, { readonly predicted: Prediction | null; readonly scores: Scores }> = {}
    if (labelsStep(item)) {
      const normalized = yield* Effect.either(backend.normalize(envelope))
      const read = Either.flatMap(normalized, (value) => Either.mapLeft(decodeNormalized(value), () => new CliFailure({ kind: "unexpected", message: "the normalized trace could not be read" })))
      if (Either.isRight(read)) {
        for (const baseline of ["random", "first-error"] as const) baselines[baseline] = baselineOf(baseline, [], read.right.format, read.right.trace, item.label)
      }
    }
    return {
      ...base,
      predicted,
      scores: score(item.label, predicted),
      fired: Array.from(byCheck, ([check, each]) => ({ check, severity: each.severity, findings: each.findings, sources: Array.from(each.sources) })),
      severity: response.severity,
      baselines,
      elapsed_ms: Math.round(performance.now() - started),
      error: null
    } satisfies CheckItemResult
  })

const fraction = (sum: number, of: number): number | null => (of === 0 ? null : Math.round((sum / of) * 10_000) / 10_000)

/** An item that expected a check and did not get it where it should: what fired instead. */
export interface Miss {
  readonly item: string
  readonly expected: string
  readonly fired: ReadonlyArray<string>
}

export interface CheckScore {
  /** Items that expect the check. */
  readonly expected: number
  /** Of those, items where it fired. */
  readonly detected: number
  /** Of those, items where a finding of it cites a labelled event. */
  readonly localised: number
  /** Its findings on items that label checks (tolerating items aside), and those on items that expect it. */
  readonly findings: number
  readonly true_findings: number
  readonly precision: number | null
  readonly recall: number | null
  readonly localisation: number | null
  /** Items that expected it where it did not fire, or fired elsewhere. */
  readonly missed: ReadonlyArray<Miss>
  /** Items that did not expect it where it fired. */
  readonly false_alarms: ReadonlyArray<Miss>
}

export interface Flagged {
  readonly n: number
  readonly flagged: number
  readonly share: number | null
}

export interface ChecksSummary extends Accuracy {
  readonly method: "checks"
  readonly errors: number
  readonly checks: Readonly<Record<string, CheckScore>>
  /** The `successful` split: items flagged at medium or above. */
  readonly successful: Flagged | null
  /** Real runs by their outcome label: the share of each flagged. */
  readonly outcomes: { readonly failed: Flagged; readonly successful: Flagged }
  /** Labelled decisive steps: the baselines' accuracies on the same items. */
  readonly baselines: Readonly<Record<string, Accuracy>>
  readonly time: { readonly elapsed_ms: number; readonly mean_ms: number | null }
  readonly items: ReadonlyArray<CheckItemResult>
}

const nameOf = (item: CheckItemResult) => item.id ?? item.file
const flaggedIn = (items: ReadonlyArray<CheckItemResult>): Flagged => {
  const flagged = items.filter((item) => item.error === null && severityOf(item) >= FLAGGED_AT).length
  return { n: items.length, flagged, share: fraction(flagged, items.length) }
}
/** The rank of the item's most severe finding (-1: none); severities read back from --out are checked. */
const severityOf = (item: CheckItemResult) => Math.max(-1, ...item.fired.map((fired) => severityRank(asSeverity(fired.severity) ?? "none")))

export const summarizeChecks = (items: ReadonlyArray<CheckItemResult>): ChecksSummary => {
  const labelled = items.filter((item) => item.expect.checks !== null)
  const ids = Array.from(new Set(labelled.flatMap((item) => [...(item.expect.checks ?? []).map((each) => each.check), ...item.fired.map((each) => each.check)]))).sort()
  const checks: Record<string, CheckScore> = {}
  for (const id of ids) {
    let expected = 0
    let detected = 0
    let localised = 0
    let findings = 0
    let trueFindings = 0
    const missed: Array<Miss> = []
    const falseAlarms: Array<Miss> = []
    for (const item of labelled) {
      const wanted = (item.expect.checks ?? []).filter((each) => each.check === id)
      const fired = item.fired.find((each) => each.check === id)
      const firedNames = item.fired.map((each) => `${each.check} (${each.severity})`)
      if (wanted.length > 0) {
        expected += 1
        if (fired !== undefined) {
          detected += 1
          const sources = new Set(wanted.flatMap((each) => each.sources))
          if (fired.sources.some((source) => sources.has(source))) localised += 1
          else missed.push({ item: nameOf(item), expected: `${id} at ${wanted.map((each) => each.source).join(" or ")}`, fired: [`${id} at ${fired.sources.join(", ")}`] })
        } else missed.push({ item: nameOf(item), expected: `${id} at ${wanted.map((each) => each.source).join(" or ")}`, fired: firedNames })
      }
      if (fired === undefined || item.expect.tolerated.includes(id)) continue
      findings += fired.findings
      if (wanted.length > 0) trueFindings += fired.findings
      else falseAlarms.push({ item: nameOf(item), expected: (item.expect.checks ?? []).map((each) => each.check).join(", ") || "no check", fired: firedNames })
    }
    checks[id] = {
      expected,
      detected,
      localised,
      findings,
      true_findings: trueFindings,
      precision: fraction(trueFindings, findings),
      recall: fraction(detected, expected),
      localisation: fraction(localised, detected),
      missed,
      false_alarms: falseAlarms
    }
  }
  const successfulSplit = items.filter((item) => item.split === "successful")
  const stepLabelled = items.filter((item) => item.label.agent !== null || item.label.step !== null || item.label.spans.length > 0)
  const decisive = summarize(stepLabelled)
  const baselineNames = Array.from(new Set(stepLabelled.flatMap((item) => Object.keys(item.baselines))))
  const baselines = Object.fromEntries(baselineNames.map((name) => [
    name,
    summarize(stepLabelled.map((item) => ({ ...item, method: `baseline:${name}`, predicted: item.baselines[name]?.predicted ?? null, scores: item.baselines[name]?.scores ?? score({ ...item.label, categories: [] }, null) })))
  ]))
  const elapsed = items.reduce((sum, item) => sum + item.elapsed_ms, 0)
  return {
    method: "checks",
    n: items.length,
    coverage: decisive.coverage,
    agent_accuracy: decisive.agent_accuracy,
    step_accuracy: decisive.step_accuracy,
    span_accuracy: decisive.span_accuracy,
    category_accuracy: decisive.category_accuracy,
    errors: items.filter((item) => item.error !== null).length,
    checks,
    successful: successfulSplit.length === 0 ? null : flaggedIn(successfulSplit),
    outcomes: { failed: flaggedIn(items.filter((item) => item.expect.outcome === "failed")), successful: flaggedIn(items.filter((item) => item.expect.outcome === "successful")) },
    baselines: Object.fromEntries(Object.entries(baselines).map(([name, summary]) => [name, { n: summary.n, coverage: summary.coverage, agent_accuracy: summary.agent_accuracy, step_accuracy: summary.step_accuracy, span_accuracy: summary.span_accuracy, category_accuracy: summary.category_accuracy }])),
    time: { elapsed_ms: Math.round(elapsed), mean_ms: items.length === 0 ? null : Math.round(elapsed / items.length) },
    items
  }
}

const percent = (value: number | null) => (value === null ? "–" : `${(value * 100).toFixed(1)}%`)

/** The summary for a terminal: the per-check table, the flagged shares, the decisive step beside the baselines, the misses. */
export const checksTable = (summary: ChecksSummary, misses = 5): string => {
  const ids = Object.keys(summary.checks)
  const width = Math.max(26, ...ids.map((id) => id.length))
  const line = (cells: ReadonlyArray<string>) => cells.map((cell, index) => (index === 0 ? cell.padEnd(width) : cell.padStart(12))).join("  ")
  const out = [`svc eval: ${summary.n} items, checks${summary.errors > 0 ? `, ${summary.errors} without an answer` : ""}`]
  if (ids.length > 0) {
    out.push(line(["check", "expected", "precision", "recall", "localisation"]))
    for (const id of ids) {
      const each = summary.checks[id]
      if (each !== undefined) out.push(line([printable(id), String(each.expected), percent(each.precision), percent(each.recall), percent(each.localisation)]))
    }
  }
  const shares: Array<string> = []
  if (summary.successful !== null) shares.push(`successful split: ${summary.successful.flagged} of ${summary.successful.n} flagged at medium or above (${percent(summary.successful.share)})`)
  const { failed, successful } = summary.outcomes
  if (failed.n > 0 || successful.n > 0) {
    shares.push(`runs labelled failed: ${failed.flagged} of ${failed.n} flagged (${percent(failed.share)}); labelled successful: ${successful.flagged} of ${successful.n} flagged (${percent(successful.share)})`)
  }
  if (shares.length > 0) out.push("", ...shares)
  const decisive = summary.agent_accuracy !== null || summary.step_accuracy !== null || summary.span_accuracy !== null
  if (decisive) {
    const rows: Array<readonly [string, Accuracy]> = [["checks", summary], ...Object.entries(summary.baselines).map(([name, accuracy]) => [`baseline:${name}`, accuracy] as const)]
    out.push("", line(["decisive step", "coverage", "agent", "step", "span"]))
    for (const [name, accuracy] of rows) out.push(line([name, percent(accuracy.coverage), percent(accuracy.agent_accuracy), percent(accuracy.step_accuracy), percent(accuracy.span_accuracy)]))
  }
  const wrong = ids.flatMap((id) => {
    const each = summary.checks[id]
    return each === undefined ? [] : [...each.missed.map((miss) => ({ id, kind: "missed", miss })), ...each.false_alarms.map((miss) => ({ id, kind: "false alarm", miss }))]
  })
  if (wrong.length > 0 && misses > 0) {
    out.push("", `misses and false alarms (${wrong.length}; --format json lists them all):`)
    for (const { id, kind, miss } of wrong.slice(0, misses)) out.push(`  ${printable(id)} ${kind}: ${printable(miss.item)}: expected ${printable(miss.expected)}; fired ${miss.fired.length === 0 ? "nothing" : printable(miss.fired.join(", "))}`)
  }
  out.push("", `time: ${(summary.time.elapsed_ms / 1000).toFixed(1)} s in all, ${summary.time.mean_ms === null ? "–" : `${summary.time.mean_ms} ms`} per item`)
  return `${out.join("\n")}\n`
}
