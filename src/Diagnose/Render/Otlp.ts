/**
 * The diagnose report as OpenTelemetry logs (DECISIONS §13, `?output=otlp`): an OTLP/JSON
 * `ExportLogsServiceRequest` with one `gen_ai.evaluation.result` event per check finding (DECISIONS
 * §23: `gen_ai.evaluation.name` the check's `svc/check/<id>`, score 1, first) and per lens finding, as the GenAI
 * semantic conventions define it (semantic-conventions-genai, docs/gen-ai/gen-ai-events.md):
 * `gen_ai.evaluation.name` (required: the pattern), `gen_ai.evaluation.score.value` (the
 * finding's confidence), `gen_ai.evaluation.score.label` (its severity: none, low, medium, high,
 * critical) and `gen_ai.evaluation.explanation`. The event "SHOULD be parented to the GenAI
 * operation span being evaluated": when the trace was OpenTelemetry or OpenInference and a
 * finding cites a span (`span:<spanId>…`), the record carries that trace's `traceId` and the span's
 * `spanId` (hex, as OTLP/JSON writes them), so a backend shows the verdict on the cited span.
 * OTLP/JSON encodings: 64-bit integers and nanosecond times as decimal strings, ids as hex.
 */
import packageJson from "../../../package.json" with { type: "json" }
import type { Severity } from "../../Catalogue/Severity.js"
import type { CheckFinding } from "../../Contract/ChecksContract.js"
import type { ChecksResponse } from "../../Contract/DiagnoseContract.js"
import type { DiagnoseReport, ReportContext, ReportFinding } from "../../Contract/DiagnoseReport.js"
import {
  type AnyValue,
  arrayValue,
  boolValue,
  doubleValue,
  type InstrumentationScope,
  intValue,
  type KeyValue,
  type LogRecord,
  type Resource,
  stringValue
} from "../../Otlp/Wire/Model.js"
import { spanIdOfSource } from "../../Traces/Formats/Spans/Session.js"
import { checkEvidenceText, checkRuleId, friendlyName, oneLine, SERVICE_NAME } from "./Common.js"

/**
 * A record as this renderer writes it: OTLP's log record (Otlp/Wire/Model.ts) with every field it
 * fills present, and the trace context only on a record that cites a span (absent, not empty).
 */
export type EvaluationRecord =
  & Required<Pick<LogRecord, "timeUnixNano" | "observedTimeUnixNano" | "severityNumber" | "severityText" | "eventName" | "body" | "attributes">>
  & Partial<Pick<LogRecord, "traceId" | "spanId">>

/** The `ExportLogsServiceRequest` this renderer writes: one resource, one instrumentation scope. */
export interface EvaluationLogs {
  readonly resourceLogs: ReadonlyArray<{
    readonly resource: Resource
    readonly scopeLogs: ReadonlyArray<{ readonly scope: InstrumentationScope; readonly logRecords: ReadonlyArray<EvaluationRecord> }>
  }>
}

export const EVALUATION_EVENT = "gen_ai.evaluation.result"

const attribute = (key: string, value: AnyValue): KeyValue => ({ key, value })

/**
 * The log data model's severity numbers: none INFO (9), low WARN (13), medium WARN3 (15), high
 * ERROR (17), critical ERROR3 (19). The text is the severity as the report states it, the
 * "original string representation" the data model asks for.
 */
export const severityNumber = (severity: Severity): number => {
  switch (severity) {
    case "none":
      return 9
    case "low":
      return 13
    case "medium":
      return 15
    case "high":
      return 17
    case "critical":
      return 19
  }
}

/** An ISO-8601 time as Unix nanoseconds, a decimal string; "0" (unknown, per OTLP) when unreadable. */
export const unixNanos = (iso: string): string => {
  const ms = Date.parse(iso)
  return Number.isFinite(ms) && ms >= 0 ? (BigInt(ms) * 1_000_000n).toString() : "0"
}

const hexId = (value: string, length: number): string | undefined => {
  const hex = value.trim().replace(/^0x/i, "").toLowerCase()
  return hex.length === length && /^[0-9a-f]+$/.test(hex) && !/^0+$/.test(hex) ? hex : undefined
}

/** The trace and span a finding (a lens's or a check's) cites, when the trace was OpenTelemetry or OpenInference and both ids are valid. */
export const citedSpan = (
  trace: DiagnoseReport["trace"],
  finding: { readonly evidence: ReadonlyArray<{ readonly source?: string | undefined }> }
): { readonly traceId: string; readonly spanId: string } | undefined => {
  if (trace.format !== "otel" && trace.format !== "openinference") return undefined
  const traceId = trace.id === null ? undefined : hexId(trace.id, 32)
  if (traceId === undefined) return undefined
  for (const evidence of finding.evidence) {
    const cited = spanIdOfSource(evidence.source ?? "")
    const spanId = cited === undefined ? undefined : hexId(cited, 16)
    if (spanId !== undefined) return { traceId, spanId }
  }
  return undefined
}

const record = (report: DiagnoseReport, finding: ReportFinding, time: string): EvaluationRecord => {
  const title = oneLine(finding.title)
  const explanation = oneLine(finding.explanation)
  const span = citedSpan(report.trace, finding)
  const sources = finding.evidence.flatMap((evidence) => (evidence.source === undefined ? [] : [evidence.source]))
  const decisive = report.decisive_step
  return {
    timeUnixNano: time,
    observedTimeUnixNano: time,
    severityNumber: severityNumber(finding.severity),
    severityText: finding.severity,
    eventName: EVALUATION_EVENT,
    body: stringValue(title),
    attributes: [
      attribute("event.name", stringValue(EVALUATION_EVENT)),
      attribute("gen_ai.evaluation.name", stringValue(finding.pattern)),
      attribute("gen_ai.evaluation.score.value", doubleValue(finding.confidence)),
      attribute("gen_ai.evaluation.score.label", stringValue(finding.severity)),
      attribute("gen_ai.evaluation.explanation", stringValue(explanation.length === 0 ? title : `${title}: ${explanation}`)),
      attribute("pattern_analysis.pattern.friendly", stringValue(friendlyName(report, finding.pattern))),
      attribute("pattern_analysis.finding.id", stringValue(finding.id)),
      ...(finding.playbook === null ? [] : [attribute("pattern_analysis.playbook", stringValue(finding.playbook))]),
      attribute("pattern_analysis.corroborated_by", arrayValue(finding.corroborated_by.map(stringValue))),
      attribute("pattern_analysis.evidence.refs", arrayValue(finding.evidence.map((evidence) => stringValue(evidence.ref)))),
      ...(sources.length === 0 ? [] : [attribute("pattern_analysis.evidence.sources", arrayValue(sources.map(stringValue)))]),
      ...(finding.evidence.some((evidence) => evidence.event !== null)
        ? [attribute("pattern_analysis.evidence.events", arrayValue(finding.evidence.flatMap((evidence) => (evidence.event === null ? [] : [intValue(evidence.event)]))))]
        : []),
      ...traceAttributes(report.trace),
      attribute(
        "pattern_analysis.decisive",
        boolValue(decisive !== null && decisive.patterns.includes(finding.pattern) && finding.evidence.some((evidence) => evidence.event === decisive.event))
      )
    ],
    ...(span === undefined ? {} : { traceId: span.traceId, spanId: span.spanId })
  }
}

/** The trace's own attributes on every record: its format and id. */
const traceAttributes = (trace: DiagnoseReport["trace"]): Array<KeyValue> => [
  attribute("pattern_analysis.trace.format", stringValue(trace.format)),
  ...(trace.id === null ? [] : [attribute("pattern_analysis.trace.id", stringValue(trace.id))])
]

/** A check finding's record (DECISIONS §23): named by its SARIF rule id, score 1 (a deterministic check is certain of what it read). */
const checkRecord = (trace: DiagnoseReport["trace"], decisive: DiagnoseReport["decisive_step"], check: CheckFinding, time: string): EvaluationRecord => {
  const title = oneLine(check.title)
  const explanation = oneLine(check.explanation)
  const span = citedSpan(trace, check)
  const described = check.evidence.flatMap((evidence) => (evidence.quote === null ? [stringValue(checkEvidenceText(evidence))] : []))
  return {
    timeUnixNano: time,
    observedTimeUnixNano: time,
    severityNumber: severityNumber(check.severity),
    severityText: check.severity,
    eventName: EVALUATION_EVENT,
    body: stringValue(title),
    attributes: [
      attribute("event.name", stringValue(EVALUATION_EVENT)),
      attribute("gen_ai.evaluation.name", stringValue(checkRuleId(check.check))),
      attribute("gen_ai.evaluation.score.value", doubleValue(1)),
      attribute("gen_ai.evaluation.score.label", stringValue(check.severity)),
      attribute("gen_ai.evaluation.explanation", stringValue(explanation.length === 0 ? title : `${title}: ${explanation}`)),
      attribute("pattern_analysis.check", stringValue(check.check)),
      attribute("pattern_analysis.check.fingerprint", stringValue(check.fingerprint)),
      ...(check.playbook === null ? [] : [attribute("pattern_analysis.playbook", stringValue(check.playbook))]),
      attribute("pattern_analysis.evidence.refs", arrayValue(check.evidence.map((evidence) => stringValue(evidence.ref)))),
      attribute("pattern_analysis.evidence.sources", arrayValue(check.evidence.map((evidence) => stringValue(evidence.source)))),
      attribute("pattern_analysis.evidence.events", arrayValue(check.evidence.map((evidence) => intValue(evidence.event)))),
      ...(described.length === 0 ? [] : [attribute("pattern_analysis.evidence.described", arrayValue(described))]),
      ...traceAttributes(trace),
      attribute(
        "pattern_analysis.decisive",
        boolValue(decisive !== null && decisive.checks.includes(check.check) && check.evidence.some((evidence) => evidence.event === decisive.event))
      )
    ],
    ...(span === undefined ? {} : { traceId: span.traceId, spanId: span.spanId })
  }
}

/** Records in one request, under `service.name`. */
const exportOf = (serviceName: string, logRecords: ReadonlyArray<EvaluationRecord>): EvaluationLogs => ({
  resourceLogs: [{
    resource: {
      attributes: [
        attribute("service.name", stringValue(serviceName)),
        attribute("service.version", stringValue(packageJson.version))
      ]
    },
    scopeLogs: [{ scope: { name: `${SERVICE_NAME}/diagnose`, version: packageJson.version }, logRecords }]
  }]
})

/** The check findings, then the lens findings, as `gen_ai.evaluation.result` log records in one ExportLogsServiceRequest. */
export const renderOtlp = (report: DiagnoseReport, _context: ReportContext): EvaluationLogs => evaluationLogs(report, SERVICE_NAME)

/**
 * The checks alone on traces (`svc check`, one or several files) as their records, in one
 * ExportLogsServiceRequest, stamped `at` (an ISO time: a checks answer carries none of its own).
 */
export const renderChecksOtlp = (results: ReadonlyArray<ChecksResponse>, at: string): EvaluationLogs => {
  const time = unixNanos(at)
  return exportOf(SERVICE_NAME, results.flatMap((result) => result.checks.map((check) => checkRecord(result.trace, result.decisive_step, check, time))))
}

/**
 * The same records under the `service.name` given: what a run that came over OTLP sends to
 * SVC_EVALUATION_ENDPOINT (DECISIONS §21), named as the service's own spans are (OTEL_SERVICE_NAME),
 * so a receiver that is this service drops them as its own.
 */
export const evaluationLogs = (report: DiagnoseReport, serviceName: string): EvaluationLogs => {
  const time = unixNanos(report.generated_at)
  return exportOf(serviceName, [
    ...report.checks.map((check) => checkRecord(report.trace, report.decisive_step, check, time)),
    ...report.findings.map((finding) => record(report, finding, time))
  ])
}
