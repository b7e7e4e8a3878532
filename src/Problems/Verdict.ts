/**
 * A run's verdict (DECISIONS §25): what failed, and why, read from its report alone. The failure
 * holding the decisive step (the report's first failure, named by its anchor), the quote at the
 * decisive step, the anchor's explanation, confidence and corroboration; or, when nothing failed,
 * that nothing did, and for a content-free trace the setting that turns content on (§23). One
 * function for every reader: the dashboard's run page and runs list, and the Markdown and HTML
 * reports, which lead with the same line. Pure, and small enough for the dashboard's bundle.
 */
import type { DiagnoseReport, ReportFinding } from "../Contract/DiagnoseReport.js"

/** How many words of the task name a run. */
const TASK_WORDS = 12

export interface VerdictFailure {
  readonly title: string
  /** What anchors it: the check's id, or the lens's pattern (DECISIONS §24). */
  readonly anchor: string
  readonly kind: "check" | "finding"
  readonly severity: DiagnoseReport["severity"]
  /** The anchor's explanation: the check's particulars, or the lens's reading. */
  readonly explanation: string
  /** The quote at the decisive step (or what its content-free event is); null when the report names no step. */
  readonly quote: string | null
  readonly event: number | null
  readonly actor: string | null
  /** The anchor lens finding's confidence; null for a check anchor (a deterministic rule, no model's confidence). */
  readonly confidence: number | null
  /** The other lenses and checks that saw the same failure. */
  readonly corroboratedBy: ReadonlyArray<string>
  /** The problem it joined, once the run finished. */
  readonly problem: string | null
}

export interface Verdict {
  /** The task's first words: the run's name. */
  readonly task: string
  readonly outcome: string
  readonly failure: VerdictFailure | null
  /** The setting that turns content on for the trace's instrumentation, when it held none. */
  readonly contentSetting: string | null
  /** The verdict in one line (the page's lead, the reports' first line). */
  readonly line: string
}

const oneLine = (text: string): string => text.replace(/\s+/g, " ").trim()

const clip = (text: string, at: number): string => (text.length > at ? `${text.slice(0, at - 1).trimEnd()}…` : text)

/** A task's first words, as a run's name: "Please refund order 4711, it arrived…". */
export const taskName = (task: string): string => {
  const words = oneLine(task).split(" ").filter((word) => word.length > 0)
  if (words.length === 0) return ""
  return clip(words.length > TASK_WORDS ? `${words.slice(0, TASK_WORDS).join(" ")}…` : words.join(" "), 120)
}

const lensFinding = (report: DiagnoseReport, pattern: string | null, title: string): ReportFinding | undefined =>
  report.findings.find((finding) => finding.pattern === pattern && finding.title === title)

/** The report's top failure as the verdict shows it, or null when nothing failed. */
const failureOf = (report: DiagnoseReport): VerdictFailure | null => {
  const failure = report.failures[0]
  const step = report.decisive_step
  const stepQuote = step === null ? null : step.content.length > 0 ? step.content : null
  if (failure === undefined) return null
  const { anchor } = failure
  const corroboratedBy = failure.perspectives.map((perspective) => perspective.pattern ?? perspective.check ?? perspective.title)
  // the anchor's own record, where it says what it says and the evidence at the decisive step
  const read = anchor.kind === "check"
    ? (() => {
      const check = report.checks.find((each) => each.check === anchor.check && each.fingerprint === failure.fingerprint) ??
        report.checks.find((each) => each.check === anchor.check)
      const atStep = check?.evidence.find((item) => item.event === step?.event) ?? check?.evidence[0]
      return { name: anchor.check, explanation: check?.explanation, atStep, quote: atStep?.quote ?? stepQuote ?? atStep?.describes ?? null, confidence: null, also: undefined }
    })()
    : (() => {
      const finding = lensFinding(report, anchor.pattern, anchor.title)
      const atStep = finding?.evidence.find((item) => item.event !== null && item.event === step?.event) ?? finding?.evidence[0]
      return {
        name: anchor.pattern,
        explanation: finding?.explanation,
        atStep,
        quote: atStep?.quote ?? stepQuote,
        confidence: finding?.confidence ?? report.confidence,
        also: finding?.corroborated_by ?? []
      }
    })()
  return {
    title: anchor.title,
    anchor: read.name ?? "",
    kind: anchor.kind,
    severity: anchor.severity,
    explanation: read.explanation ?? "",
    quote: read.quote,
    event: read.atStep?.event ?? step?.event ?? null,
    actor: read.atStep?.actor ?? step?.actor ?? null,
    confidence: read.confidence,
    corroboratedBy: read.also === undefined ? corroboratedBy : Array.from(new Set([...corroboratedBy, ...read.also])),
    problem: failure.problem
  }
}

/** The one line: what failed, where, and the quote; or that nothing did, and why no lens read it. */
const lineOf = (failure: VerdictFailure | null, contentSetting: string | null, report: DiagnoseReport): string => {
  if (failure !== null) {
    const where = failure.event === null ? "" : ` at event ${failure.event}${failure.actor === null ? "" : ` (${failure.actor})`}`
    const quote = failure.quote === null ? "" : `: “${clip(oneLine(failure.quote), 160)}”`
    return `Failed: ${failure.title} [${failure.anchor}, ${failure.severity}]${where}${quote}`
  }
  if (contentSetting !== null) return `No failure found by the checks; no lens read it, the trace holds no content (turn it on: ${contentSetting})`
  const lensesRan = report.patterns.length > 0
  return lensesRan ? "No failure found by the checks or the lenses" : "No failure found by the checks"
}

/** The verdict of a report (DECISIONS §25). */
export const verdictOf = (report: DiagnoseReport): Verdict => {
  const failure = failureOf(report)
  const contentSetting = report.content?.setting ?? null
  return { task: taskName(report.trace.task), outcome: oneLine(report.trace.outcome), failure, contentSetting, line: lineOf(failure, contentSetting, report) }
}
