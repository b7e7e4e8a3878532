/**
 * Merging the lenses' detections into one report (DECISIONS §13): overall severity and
 * confidence, the decisive step, findings with corroboration across lenses (an event cited by
 * several patterns; events are distinct, since repeated history was de-duplicated at intake),
 * interventions de-duplicated and ranked, and a summary. Pure.
 */
import type { Detection, Signals } from "../Catalogue/Detection.js"
import { type Severity, severityAt, severityRank } from "../Catalogue/Severity.js"
import { normalise } from "../Catalogue/SignalKit.js"
import type { Mode } from "../Catalogue/Resources.js"
import type { NormalizedTrace, TraceFormat } from "../Traces/Model.js"
import type { CheckFinding } from "../Contract/ChecksContract.js"
import type { ChecksResponse } from "../Contract/DiagnoseContract.js"
import type { DecisiveStep, DiagnoseReport, PatternRun, RankedIntervention, ReportContent, ReportFinding, TriageEntry } from "../Contract/DiagnoseReport.js"
import { contentOf, settingSentence } from "./Content.js"
import { failuresOf, wireFailure } from "../Problems/Failures.js"

const LEVELS = ["low", "medium", "high"] as const
type Level = (typeof LEVELS)[number]
const levelRank = (level: Level) => LEVELS.indexOf(level)


/** One pattern's run as the merge sees it. */
export interface RunOutcome {
  readonly pattern: string
  readonly friendly: string
  readonly signals: Signals
  readonly playbookKeys: ReadonlyArray<string>
  readonly result:
    | {
      readonly _tag: "Done"
      readonly detection: Detection
      readonly cached: boolean
      /** The normalized event an evidence ref is (from the pattern's projection). */
      readonly eventOf: (ref: string) => number | undefined
    }
    | {
      readonly _tag: "Failed"
      readonly kind: string
      readonly message: string
      /** Whether another attempt later may succeed: the provider's overload or outage, a deadline. */
      readonly retryable: boolean
    }
}

export interface MergeInput {
  /** The catalogue's patterns in order (ties between lens anchors of failures, DECISIONS §24). */
  readonly catalogueOrder?: ReadonlyArray<string> | undefined
  readonly format: TraceFormat
  readonly trace: NormalizedTrace
  readonly mode: Mode
  readonly model: string | null
  readonly runs: ReadonlyArray<RunOutcome>
  /** The checks' findings (DECISIONS §23), most severe first. */
  readonly checks: ReadonlyArray<CheckFinding>
  readonly triage: ReadonlyArray<TriageEntry>
  readonly estimatedTokens: number
  readonly budgetTokens: number | null
  readonly elapsedMs: number
  readonly now: Date
  /** What redaction replaced in the trace and the hints, by kind (DECISIONS §20). */
  readonly redactions: Readonly<Record<string, number>>
}

const shorten = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max)} […]`)

/** The findings of every run that finished, placed on the trace's events. */
const findingsOf = (runs: ReadonlyArray<RunOutcome>, trace: NormalizedTrace): Array<ReportFinding> => {
  const placed = runs.flatMap((run) => {
    if (run.result._tag !== "Done") return []
    const { detection, eventOf } = run.result
    return detection.findings.map((finding): ReportFinding => ({
      pattern: run.pattern,
      id: finding.id,
      title: finding.title,
      severity: finding.severity,
      confidence: finding.confidence,
      explanation: finding.explanation,
      playbook: finding.playbook,
      evidence: finding.evidence.map(({ quote, ref, source }) => {
        const event = eventOf(ref)
        return {
          ref,
          quote,
          ...(source === undefined ? {} : { source }),
          event: event ?? null,
          actor: event === undefined ? null : trace.events[event]?.actor ?? null
        }
      }),
      corroborated_by: []
    }))
  })
  // Which patterns cite each event.
  const citing = new Map<number, Set<string>>()
  for (const finding of placed) {
    for (const item of finding.evidence) {
      if (item.event === null) continue
      const patterns = citing.get(item.event) ?? new Set<string>()
      patterns.add(finding.pattern)
      citing.set(item.event, patterns)
    }
  }
  return placed
    .map((finding) => {
      const others = new Set<string>()
      for (const item of finding.evidence) {
        if (item.event === null) continue
        for (const pattern of citing.get(item.event) ?? []) if (pattern !== finding.pattern) others.add(pattern)
      }
      return { ...finding, corroborated_by: Array.from(others).sort() }
    })
    .sort((a, b) =>
      severityRank(b.severity) - severityRank(a.severity) || b.corroborated_by.length - a.corroborated_by.length || b.confidence - a.confidence
    )
}

/**
 * The earliest event cited at the highest severity present among the checks' findings and the lenses'
 * verified findings (DECISIONS §23).
 */
export const decisiveStepOf = (findings: ReadonlyArray<ReportFinding>, trace: NormalizedTrace, checks: ReadonlyArray<CheckFinding> = []): DecisiveStep | null => {
  const cited = findings.filter((finding) => finding.evidence.some((item) => item.event !== null))
  if (cited.length === 0 && checks.length === 0) return null
  const top = Math.max(...cited.map((finding) => severityRank(finding.severity)), ...checks.map((check) => severityRank(check.severity)))
  const atTop = cited.filter((finding) => severityRank(finding.severity) === top)
  const checksAtTop = checks.filter((check) => severityRank(check.severity) === top)
  let earliest = Number.POSITIVE_INFINITY
  for (const finding of atTop) for (const item of finding.evidence) if (item.event !== null && item.event < earliest) earliest = item.event
  for (const check of checksAtTop) for (const item of check.evidence) if (item.event < earliest) earliest = item.event
  const event = trace.events[earliest]
  if (event === undefined) return null
  const citingFindings = atTop.filter((finding) => finding.evidence.some((item) => item.event === earliest))
  const citingChecks = checksAtTop.filter((check) => check.evidence.some((item) => item.event === earliest))
  return {
    event: earliest,
    source: event.source,
    actor: event.actor,
    kind: event.kind,
    timestamp: event.timestamp ?? null,
    content: shorten(event.content, 600),
    severity: severityAt(top),
    patterns: Array.from(new Set(citingFindings.map((finding) => finding.pattern))),
    findings: [...citingChecks.map((check) => check.title), ...citingFindings.map((finding) => finding.title)],
    checks: Array.from(new Set(citingChecks.map((check) => check.check)))
  }
}

/** Interventions of every run, the same change proposed twice merged, ranked by impact, severity, effort. */
const interventionsOf = (runs: ReadonlyArray<RunOutcome>): Array<RankedIntervention> => {
  const merged = new Map<string, { intervention: Omit<RankedIntervention, "rank">; severity: number }>()
  for (const run of runs) {
    if (run.result._tag !== "Done") continue
    const severity = severityRank(run.result.detection.severity)
    for (const { description, effort, impact, playbook, rationale, type } of run.result.detection.interventions) {
      const key = `${type}\u0000${normalise(description)}`
      const existing = merged.get(key)
      if (existing !== undefined) {
        if (existing.intervention.pattern !== run.pattern && !existing.intervention.also_from.includes(run.pattern)) {
          existing.intervention = { ...existing.intervention, also_from: [...existing.intervention.also_from, run.pattern] }
        }
        existing.severity = Math.max(existing.severity, severity)
        continue
      }
      merged.set(key, {
        intervention: {
          type,
          description,
          rationale,
          effort,
          impact,
          playbook,
          pattern: run.pattern,
          also_from: []
        },
        severity
      })
    }
  }
  return Array.from(merged.values())
    .sort((a, b) =>
      levelRank(b.intervention.impact) - levelRank(a.intervention.impact) ||
      b.intervention.also_from.length - a.intervention.also_from.length ||
      b.severity - a.severity ||
      levelRank(a.intervention.effort) - levelRank(b.intervention.effort)
    )
    .map(({ intervention }, i) => ({ rank: i + 1, ...intervention }))
}

const usageOf = (runs: ReadonlyArray<RunOutcome>) => {
  let calls = 0
  let input = 0
  let cached = 0
  let output = 0
  for (const run of runs) {
    if (run.result._tag !== "Done" || run.result.cached) continue
    const { usage } = run.result.detection
    calls += usage.llm_calls
    input += usage.input_tokens
    cached += usage.cached_input_tokens
    output += usage.output_tokens
  }
  return { calls, input, cached, output }
}

/** The report's `trace`: what was read, as the report and POST /v1/checks show it. */
export const traceSummaryOf = (format: TraceFormat, trace: NormalizedTrace, redactions: Readonly<Record<string, number>>): DiagnoseReport["trace"] => ({
  format,
  id: trace.id,
  task: trace.task,
  outcome: trace.outcome,
  success: trace.success,
  events: trace.events.length,
  agents: trace.agents,
  skipped: trace.skipped,
  redactions
})

/** The merge with no lens (POST /v1/checks, DECISIONS §23): the checks' severity and decisive step, as the report would have them. */
export const checksReportOf = (format: TraceFormat, trace: NormalizedTrace, redactions: Readonly<Record<string, number>>, checks: ReadonlyArray<CheckFinding>): ChecksResponse => ({
  trace: traceSummaryOf(format, trace, redactions),
  severity: severityAt(Math.max(0, ...checks.map((check) => severityRank(check.severity)))),
  checks,
  decisive_step: decisiveStepOf([], trace, checks)
})

export const mergeReport = (input: MergeInput): DiagnoseReport => {
  const { runs, trace } = input
  const findings = findingsOf(runs, trace)
  const done = runs.filter((run) => run.result._tag === "Done")
  const failed = runs.filter((run) => run.result._tag === "Failed")
  const detections = done.flatMap((run) => (run.result._tag === "Done" ? [run.result.detection] : []))
  const lensTop = detections.reduce((max, detection) => Math.max(max, severityRank(detection.severity)), 0)
  const confidences = detections.filter((detection) => severityRank(detection.severity) === lensTop).map((detection) => detection.confidence)
  // never lower than a finding or check the report shows (DECISIONS §23)
  const top = Math.max(0, ...findings.map((finding) => severityRank(finding.severity)), ...input.checks.map((check) => severityRank(check.severity)))
  const confidence = confidences.length === 0 ? 0 : Math.round((confidences.reduce((a, b) => a + b, 0) / confidences.length) * 100) / 100
  const decisive = decisiveStepOf(findings, trace, input.checks)
  const interventions = interventionsOf(runs)
  const failures = failuresOf(trace, input.checks, findings, input.catalogueOrder, decisive?.event ?? null).map((failure) => wireFailure(failure))
  const usage = usageOf(runs)
  const cited = new Set(findings.flatMap((finding) => finding.evidence.flatMap((item) => (item.event === null ? [] : [item.event]))))
  const patternRuns: Array<PatternRun> = runs.map((run) => {
    if (run.result._tag === "Failed") {
      return {
        pattern: run.pattern,
        friendly: run.friendly,
        status: run.result.kind,
        error: { kind: run.result.kind, message: run.result.message, retryable: run.result.retryable },
        cached: false,
        signals: run.signals,
        playbooks: run.playbookKeys,
        detection: null
      }
    }
    const pointed = new Set<string>()
    for (const { playbook } of [...run.result.detection.findings, ...run.result.detection.interventions]) {
      if (playbook !== null) pointed.add(playbook)
    }
    return {
      pattern: run.pattern,
      friendly: run.friendly,
      status: run.result.cached ? "cache_hit" : "ok",
      error: null,
      cached: run.result.cached,
      signals: run.signals,
      playbooks: Array.from(pointed),
      detection: run.result.detection
    }
  })
  const severity = severityAt(top)
  const content = contentOf(trace)
  const summary = summaryOf(input, findings, decisive, severity, failed, content)
  return {
    trace: traceSummaryOf(input.format, trace, input.redactions),
    mode: input.mode,
    model: input.model,
    severity,
    confidence,
    summary,
    decisive_step: decisive,
    checks: input.checks,
    ...(content === undefined ? {} : { content }),
    failures,
    findings,
    interventions,
    patterns: patternRuns,
    triage: input.triage,
    coverage: {
      patterns_run: done.length,
      patterns_failed: failed.length,
      patterns_skipped: input.triage.filter((entry) => entry.skipped !== null).length,
      events: trace.events.length,
      events_cited: cited.size
    },
    usage: {
      llm_calls: usage.calls,
      input_tokens: usage.input,
      cached_input_tokens: usage.cached,
      output_tokens: usage.output,
      elapsed_ms: input.elapsedMs,
      estimated_tokens: input.estimatedTokens,
      budget_tokens: input.budgetTokens
    },
    cached: done.length > 0 && done.every((run) => run.result._tag === "Done" && run.result.cached) && failed.length === 0,
    generated_at: input.now.toISOString()
  }
}

const summaryOf = (
  input: MergeInput,
  findings: ReadonlyArray<ReportFinding>,
  decisive: DecisiveStep | null,
  severity: Severity,
  failed: ReadonlyArray<RunOutcome>,
  content: ReportContent | undefined
): string => {
  const ran = input.runs.length
  const parts: Array<string> = []
  const strongestCheck = input.checks[0]
  if (strongestCheck !== undefined) {
    parts.push(
      `${input.checks.length} check${input.checks.length === 1 ? "" : "s"} fired; strongest: "${strongestCheck.title}" (${strongestCheck.check}, ${strongestCheck.severity}): ${strongestCheck.explanation}`
    )
  }
  if (ran === 0 && content !== undefined) {
    // the one case where no lens ran by rule, not by the triage: say how to make the trace readable
    parts.push(`The trace holds no message content, so no lens read it and no model was called: ${settingSentence(content)}.`)
    return parts.join(" ")
  }
  if (ran === 0) {
    parts.push(strongestCheck === undefined ? "No check fired, and no lens could read this trace: see the triage for what each pattern needs." : "No lens ran: see the triage for what each pattern needs.")
    return parts.join(" ")
  }
  const allUnresolved = failed.length === ran && failed.every((run) => run.result._tag === "Failed" && run.result.kind === "llm_resolution_error")
  if (allUnresolved) {
    parts.push(
      `No model provider is configured, so ${ran} lens${ran === 1 ? "" : "es"} were chosen but not run: the triage, each lens's deterministic signals and its playbooks are below. Set ANTHROPIC_API_KEY, OPENAI_API_KEY or LOCAL_MODEL_HOST for the analysis.`
    )
    return parts.join(" ")
  }
  const withFindings = new Set(findings.map((finding) => finding.pattern)).size
  parts.push(`${withFindings} of ${ran} lens${ran === 1 ? "" : "es"} found problems; overall severity ${severity}.`)
  const first = findings[0]
  if (first !== undefined) {
    parts.push(
      `Strongest: "${first.title}" (${first.pattern}, ${first.severity}${first.corroborated_by.length > 0 ? `, corroborated by ${first.corroborated_by.join(", ")}` : ""}).`
    )
  }
  if (decisive !== null) {
    parts.push(
      `Decisive step: events[${decisive.event}], a ${decisive.kind.replace("_", " ")} by ${decisive.actor}${decisive.timestamp === null ? "" : ` at ${decisive.timestamp}`} (${decisive.source}).`
    )
  }
  if (failed.length > 0) parts.push(`${failed.length} lens${failed.length === 1 ? "" : "es"} failed: ${failed.map((run) => run.pattern).join(", ")}.`)
  return parts.join(" ")
}
