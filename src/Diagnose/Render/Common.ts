/**
 * What the diagnose renderings (Markdown, SARIF, HTML, OTLP) share: the severity order, the
 * wording of the trace's facts, shortening, and finding-to-event lookups. Pure functions of the
 * report and its context (DECISIONS §13).
 */
import { maxSeverity, SEVERITIES_DESCENDING, severityRank } from "../../Catalogue/Severity.js"
import type { CheckEvidence, CheckFinding } from "../../Contract/ChecksContract.js"
import type { DecisiveStep, DiagnoseReport, ReportContext, ReportFinding } from "../../Contract/DiagnoseReport.js"

export type ContextEvent = ReportContext["events"][number]
export type FindingEvidence = ReportFinding["evidence"][number]

export const SERVICE_NAME = "pattern-analysis-service"

/** The order of severities, from src/Catalogue/Severity.ts. */
export { maxSeverity, SEVERITIES_DESCENDING, severityRank }

export const capitalize = (text: string): string => (text.length === 0 ? text : `${text.charAt(0).toUpperCase()}${text.slice(1)}`)

export { oneLine } from "../../Text.js"

/**
 * At most `max` characters (code points: a surrogate pair is never split), with an ellipsis when
 * something was cut.
 */
export const shorten = (text: string, max: number): string => {
  if (text.length <= max) return text
  const points = Array.from(text)
  if (points.length <= max) return text
  return `${points.slice(0, Math.max(1, max - 1)).join("").trimEnd()}…`
}

/** What redaction replaced, by kind (`2 email, 1 aws_key`); empty when nothing was. */
export const redactionsText = (redactions: Readonly<Record<string, number>>): string =>
  Object.entries(redactions)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([kind, count]) => `${integer(count)} ${kind}`)
    .join(", ")

export const successText = (success: boolean | null): string => (success === null ? "not stated" : success ? "yes" : "no")

export const percent = (value: number): string => `${Math.round(value * 100)}%`

export const decimal = (value: number, digits = 2): string => value.toFixed(digits)

export const integer = (value: number): string => Math.round(value).toLocaleString("en-US")

export const duration = (ms: number): string =>
  ms < 1000 ? `${Math.round(ms)} ms` : ms < 60_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`

/** "12,000 of a 20,000 budget" or "12,000 (no budget)". */
export const budgetText = (usage: DiagnoseReport["usage"]): string =>
  usage.budget_tokens === null
    ? `${integer(usage.estimated_tokens)} (no budget set)`
    : `${integer(usage.estimated_tokens)} of a ${integer(usage.budget_tokens)} budget`

/** The event an evidence item is, when it is placed on the timeline and the context has it. */
export const eventOf = (context: ReportContext, index: number | null): ContextEvent | undefined =>
  index === null || index < 0 ? undefined : context.events[index]

/** Indices of `report.findings` citing each event (distinct, in report order). */
export const findingsByEvent = (report: DiagnoseReport): ReadonlyMap<number, ReadonlyArray<number>> => {
  const byEvent = new Map<number, Array<number>>()
  report.findings.forEach((finding, index) => {
    for (const evidence of finding.evidence) {
      if (evidence.event === null) continue
      const list = byEvent.get(evidence.event) ?? []
      if (!list.includes(index)) list.push(index)
      byEvent.set(evidence.event, list)
    }
  })
  return byEvent
}

/** Indices of `checks` citing each event (distinct, in order). */
export const checksByEvent = (checks: ReadonlyArray<CheckFinding>): ReadonlyMap<number, ReadonlyArray<number>> => {
  const byEvent = new Map<number, Array<number>>()
  checks.forEach((check, index) => {
    for (const evidence of check.evidence) {
      const list = byEvent.get(evidence.event) ?? []
      if (!list.includes(index)) list.push(index)
      byEvent.set(evidence.event, list)
    }
  })
  return byEvent
}

/** What a check's evidence shows: its quote, or what a content-free event is (`describes`). */
export const checkEvidenceText = (evidence: CheckEvidence): string =>
  evidence.quote ?? evidence.describes ?? "an event without content"

/** The SARIF rule id of a check (DECISIONS §23), and its OTLP evaluation name. */
export const checkRuleId = (check: string): string => `svc/check/${check}`

/**
 * The decisive step's finding titles split by who cites it: the checks' (first in `step.findings`,
 * as many as the checks at its severity citing its event) and the lenses'.
 */
export const decisiveTitles = (step: DecisiveStep, checks: ReadonlyArray<CheckFinding>) => {
  const citing = checks.filter((check) => check.severity === step.severity && check.evidence.some((evidence) => evidence.event === step.event)).length
  return { checks: step.findings.slice(0, citing), lenses: step.findings.slice(citing) }
}

/** Findings most severe first, then most confident, keeping report order among equals. */
export const orderedFindings = (report: DiagnoseReport): ReadonlyArray<{ readonly finding: ReportFinding; readonly index: number }> =>
  report.findings
    .map((finding, index) => ({ finding, index }))
    .sort((a, b) =>
      severityRank(b.finding.severity) - severityRank(a.finding.severity) || b.finding.confidence - a.finding.confidence || a.index - b.index
    )

/** The friendly name of a pattern, from its run or its triage entry; the slug otherwise. */
export const friendlyName = (report: DiagnoseReport, pattern: string): string =>
  report.patterns.find((run) => run.pattern === pattern)?.friendly ??
    report.triage.find((entry) => entry.pattern === pattern)?.friendly ??
    pattern

/** The run's status as words: ok, cache hit, or the error kind. */
export const statusText = (status: string): string => (status === "cache_hit" ? "cache hit" : status)

/** Why a report has no findings: no lens ran (each says why), or the lenses that ran found none. */
export const noFindingsText = (report: DiagnoseReport): string => {
  const ran = report.patterns.filter((run) => run.error === null).length
  if (report.patterns.length === 0) return "No findings: no lens could run on this trace (see the triage for what each needs)."
  if (ran === 0) return "No findings: no lens ran to the end (see each lens's error below; without a model provider only the triage and signals are computed)."
  return "No findings: none of the lenses that ran found a failure mode in this trace."
}
