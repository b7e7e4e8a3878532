/**
 * The diagnose report as Markdown (DECISIONS §13, `?output=markdown`): readable as plain text in
 * a terminal and rendered on GitHub (issue, pull-request comment, job summary). Every string that
 * comes from the trace or the model is escaped: it can neither open a heading, list, quote, link,
 * image, table cell or HTML tag, nor mention anyone.
 */
import type { CheckEvidence, CheckFinding } from "../../Contract/ChecksContract.js"
import type { ChecksResponse } from "../../Contract/DiagnoseContract.js"
import type { DecisiveStep, DiagnoseReport, RankedIntervention, ReportContext, ReportFinding } from "../../Contract/DiagnoseReport.js"
import {
  budgetText,
  capitalize,
  checkEvidenceText,
  decimal,
  decisiveTitles,
  duration,
  eventOf,
  type FindingEvidence,
  friendlyName,
  integer,
  noFindingsText,
  oneLine,
  orderedFindings,
  percent,
  SEVERITIES_DESCENDING,
  SERVICE_NAME,
  shorten,
  statusText,
  redactionsText,
  successText
} from "./Common.js"
import { verdictOf } from "../../Problems/Verdict.js"

const QUOTE_MAX = 280
const CONTENT_MAX = 600
const TEXT_MAX = 2000
const CELL_MAX = 240

const isWordChar = (c: string | undefined): boolean => c !== undefined && /[\p{L}\p{N}]/u.test(c)

/**
 * What GitHub's Markdown turns into a link without any markup (GFM's extended autolinks: URLs with
 * a scheme, `www.` names, e-mail addresses; trailing punctuation and brackets are not part of
 * them, as GitHub reads them); inside a code span it stays text. An address is only
 * tried from the start of its run of characters, so a long run without `@` costs one pass.
 */
const AUTOLINK = /(?:(?:https?|ftp):\/\/|(?:mailto|xmpp):|www\.)[^\s|<>`()[\]"']*[^\s|<>`()[\]"'.,:;!?*_~]|(?<![\p{L}\p{N}._%+-])[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+/giu

/** Escapes `line[from, to)`, looking at the characters around each one in the whole line. */
const escapeRun = (line: string, from: number, to: number): string => {
  let out = ""
  for (let i = from; i < to; i++) {
    const c = line.charAt(i)
    if ("\\`*[]<>|~".includes(c)) out += `\\${c}`
    else if (c === "_") out += isWordChar(line[i - 1]) && isWordChar(line[i + 1]) ? "_" : "\\_"
    else if (c === "&" && /^&#?[A-Za-z0-9]+;/.test(line.slice(i, i + 34))) out += "\\&"
    else if (c === "@" && isWordChar(line[i + 1]) && !isWordChar(line[i - 1])) out += "\\@"
    else out += c
  }
  return out
}

/**
 * One line of user text, safe inline anywhere (paragraphs, list items, table cells): Markdown
 * punctuation backslash-escaped (`_` only where it could emphasise, so `get_weather` stays
 * legible in a terminal), entities and mentions neutralised, bare URLs and e-mail addresses put
 * in code spans (a trace's link is shown, never made clickable), a leading block marker escaped.
 */
export const escapeMarkdown = (text: string): string => {
  const line = oneLine(text)
  let out = ""
  let from = 0
  for (const match of line.matchAll(AUTOLINK)) {
    out += escapeRun(line, from, match.index) + codeSpan(match[0], true)
    from = match.index + match[0].length
  }
  out += escapeRun(line, from, line.length)
  return out
    .replace(/^(#{1,6}|[-+=])(?=\s|$)/, "\\$1")
    .replace(/^(\d{1,9})([.)])(?=\s|$)/, "$1\\$2")
}

/** User text shortened, then escaped. */
const text = (value: string, max = TEXT_MAX): string => escapeMarkdown(shorten(oneLine(value), max))

/** A table cell: escaped (pipes included), shortened, never empty. */
const cell = (value: string, max = CELL_MAX): string => {
  const escaped = text(value, max)
  return escaped.length === 0 ? "—" : escaped
}

/**
 * A code span that holds any text: fenced by more backticks than the text has in a row, padded
 * when the text starts or ends with a backtick or space. In a table, pipes are escaped (GFM
 * reads `\|` as a pipe inside code spans in tables).
 */
export const codeSpan = (value: string, inTable = false): string => {
  const line = oneLine(value)
  const longest = Math.max(0, ...Array.from(line.matchAll(/`+/g), (match) => match[0].length))
  const fence = "`".repeat(longest + 1)
  const padded = /^[` ]|[` ]$/.test(line) || line.length === 0 ? ` ${line} ` : line
  return `${fence}${inTable ? padded.replace(/\|/g, "\\|") : padded}${fence}`
}

const quoted = (value: string): string => `“${text(value, QUOTE_MAX)}”`

const table = (head: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>): Array<string> => [
  `| ${head.join(" | ")} |`,
  `|${head.map(() => "---").join("|")}|`,
  ...rows.map((row) => `| ${row.join(" | ")} |`)
]

const list = (values: ReadonlyArray<string>): string => (values.length === 0 ? "—" : values.map((value) => codeSpan(value)).join(", "))

const severityLabel = (severity: string): string => severity.toUpperCase()

/** What was read: the trace's facts (the report's and the checks' `trace`). */
const traceLines = (trace: DiagnoseReport["trace"]): Array<string> => [
  `- **Trace:** ${trace.format}${trace.id === null ? "" : `, id ${codeSpan(trace.id)}`}, ${integer(trace.events)} events${
    trace.skipped > 0 ? ` (${integer(trace.skipped)} records skipped)` : ""
  }${trace.agents.length > 0 ? `, agents: ${trace.agents.map((agent) => text(agent, 80)).join(", ")}` : ""}`,
  `- **Task:** ${text(trace.task, CONTENT_MAX) || "—"}`,
  `- **Outcome:** ${text(trace.outcome, CONTENT_MAX) || "—"}`,
  `- **Success:** ${successText(trace.success)}`,
  ...(redactionsText(trace.redactions) === "" ? [] : [`- **Redacted before analysis:** ${redactionsText(trace.redactions)}`])
]

const header = (report: DiagnoseReport): Array<string> => [
  `# Diagnose: ${severityLabel(report.severity)} — ${text(report.trace.task, 120) || "untitled run"}`,
  "",
  // the page's verdict, first (DECISIONS §25): one function writes it for the dashboard and both reports
  `**Verdict:** ${text(verdictOf(report).line, 400)}`,
  "",
  `**Severity:** ${report.severity} · **Confidence:** ${percent(report.confidence)} · **Checks:** ${report.checks.length} · **Findings:** ${report.findings.length} · **Mode:** ${report.mode}${
    report.model === null ? "" : ` · **Model:** ${codeSpan(report.model)}`
  }`,
  "",
  ...traceLines(report.trace),
  `- **Generated:** ${text(report.generated_at, 40)} by ${SERVICE_NAME}${report.cached ? " (every run from the cache)" : ""}`
]

const summary = (report: DiagnoseReport): Array<string> => ["## Summary", "", text(report.summary) || "No summary."]

const decisive = (step: DecisiveStep | null, checks: ReadonlyArray<CheckFinding>): Array<string> => {
  if (step === null) return ["## Decisive step", "", "None: no check finding or verified lens finding cites an element of the trace."]
  const titles = decisiveTitles(step, checks)
  const cited = (names: ReadonlyArray<string>, found: ReadonlyArray<string>) =>
    `${list(names)}${found.length > 0 ? ` — ${found.map((title) => text(title, 160)).join("; ")}` : ""}`
  return [
    "## Decisive step",
    "",
    `The earliest element cited at the highest severity present (${step.severity})${checks.length === 0 ? " by a verified lens finding" : ""}.`,
    "",
    `- **Who:** ${text(step.actor, 120)}`,
    `- **When:** ${step.timestamp === null ? "not stated" : text(step.timestamp, 60)}`,
    `- **What:** ${step.kind.replace(/_/g, " ")} — ${step.content.length === 0 ? "(no content)" : quoted(step.content)}`,
    `- **Where:** ${codeSpan(step.source)} (event ${step.event})`,
    ...(step.checks.length === 0 ? [] : [`- **Checks:** ${cited(step.checks, titles.checks)}`]),
    ...(step.patterns.length === 0 && step.checks.length > 0 ? [] : [`- **Lenses:** ${cited(step.patterns, titles.lenses)}`])
  ]
}

/** One item of a check's evidence: the quote, or what a content-free event is, and where it is. */
const checkEvidenceLine = (evidence: CheckEvidence): string => {
  const where = [
    codeSpan(evidence.ref),
    ...(evidence.source === evidence.ref ? [] : [`at ${codeSpan(evidence.source)}`]),
    `event ${evidence.event}`,
    `by ${text(evidence.actor, 80)}`
  ]
  const what = evidence.quote === null ? `${text(checkEvidenceText(evidence), QUOTE_MAX)} (no content)` : quoted(evidence.quote)
  return `  - ${what} — ${where.join(", ")}`
}

const checkBlock = (check: CheckFinding, number: number): Array<string> => [
  `### ${number}. ${text(check.title, 200)}`,
  "",
  `${codeSpan(check.check)} · severity ${check.severity}${check.playbook === null ? "" : ` · playbook ${codeSpan(check.playbook)}`}`,
  "",
  text(check.explanation) || "No explanation.",
  "",
  "- Evidence:",
  ...check.evidence.map(checkEvidenceLine),
  ""
]

/** The checks' findings (DECISIONS §23), most severe first, as they come; before the lenses' findings in the report. */
const checksSection = (checks: ReadonlyArray<CheckFinding>): Array<string> =>
  checks.length === 0
    ? ["## Checks", "", "No check fired: the deterministic checks found nothing in this trace."]
    : [`## Checks (${checks.length})`, "", ...checks.flatMap((check, index) => checkBlock(check, index + 1))]

const evidenceLine = (context: ReportContext, evidence: FindingEvidence): string => {
  const event = eventOf(context, evidence.event)
  const where = [
    codeSpan(evidence.ref),
    ...(evidence.source === undefined || evidence.source === evidence.ref ? [] : [`at ${codeSpan(evidence.source)}`]),
    ...(evidence.event === null ? [] : [`event ${evidence.event}`]),
    ...(evidence.actor !== null ? [`by ${text(evidence.actor, 80)}`] : event !== undefined ? [`by ${text(event.actor, 80)}`] : [])
  ]
  return `  - ${quoted(evidence.quote)} — ${where.join(", ")}`
}

const findingBlock = (report: DiagnoseReport, context: ReportContext, finding: ReportFinding, number: number): Array<string> => [
  `#### ${number}. ${text(finding.title, 200)}`,
  "",
  `${codeSpan(finding.pattern)} (${text(friendlyName(report, finding.pattern), 80)}) · severity ${finding.severity} · confidence ${
    percent(finding.confidence)
  }${finding.playbook === null ? "" : ` · playbook ${codeSpan(finding.playbook)}`}`,
  "",
  text(finding.explanation) || "No explanation.",
  "",
  ...(finding.evidence.length === 0
    ? ["- Evidence: none kept after the evidence check."]
    : ["- Evidence:", ...finding.evidence.map((evidence) => evidenceLine(context, evidence))]),
  `- Corroborated by: ${finding.corroborated_by.length === 0 ? "no other lens" : list(finding.corroborated_by)}`,
  ""
]

const findings = (report: DiagnoseReport, context: ReportContext): Array<string> => {
  if (report.findings.length === 0) return ["## Findings", "", noFindingsText(report)]
  const ordered = orderedFindings(report)
  const lines = [`## Findings (${report.findings.length})`, ""]
  let number = 0
  for (const severity of SEVERITIES_DESCENDING) {
    const group = ordered.filter(({ finding }) => finding.severity === severity)
    if (group.length === 0) continue
    lines.push(`### ${capitalize(severity)} (${group.length})`, "")
    for (const { finding } of group) {
      number += 1
      lines.push(...findingBlock(report, context, finding, number))
    }
  }
  return lines
}

const interventionLine = (intervention: RankedIntervention): Array<string> => [
  `${intervention.rank}. **${text(intervention.type, 40)}** — ${text(intervention.description, 800)}`,
  `   - Effort ${intervention.effort}, impact ${intervention.impact}${
    intervention.playbook === null ? "" : ` · playbook ${codeSpan(intervention.playbook)}`
  } · from ${codeSpan(intervention.pattern)}${intervention.also_from.length === 0 ? "" : ` · also from ${list(intervention.also_from)}`}`,
  ...(oneLine(intervention.rationale).length === 0 ? [] : [`   - Why: ${text(intervention.rationale, 800)}`])
]

const interventions = (report: DiagnoseReport): Array<string> =>
  report.interventions.length === 0
    ? ["## Interventions", "", "None proposed."]
    : [
      `## Interventions (${report.interventions.length}, ranked)`,
      "",
      ...[...report.interventions].sort((a, b) => a.rank - b.rank).flatMap(interventionLine)
    ]

const patterns = (report: DiagnoseReport): Array<string> => {
  if (report.patterns.length === 0) return ["## Patterns run", "", "No pattern ran."]
  return [
    "## Patterns run",
    "",
    ...table(
      ["Pattern", "Status", "Cached", "Findings", "Playbooks", "Error"],
      report.patterns.map((run) => [
        `${codeSpan(run.pattern, true)} ${cell(run.friendly, 80)}`,
        run.error === null ? cell(statusText(run.status), 40) : `failed (${cell(run.status, 40)})`,
        run.cached ? "yes" : "no",
        String(report.findings.filter((finding) => finding.pattern === run.pattern).length),
        run.playbooks.length === 0 ? "—" : run.playbooks.map((key) => codeSpan(key, true)).join(", "),
        run.error === null ? "—" : `${cell(run.error.kind, 40)}: ${cell(run.error.message)}`
      ])
    )
  ]
}

const triage = (report: DiagnoseReport): Array<string> => {
  if (report.triage.length === 0) return ["## Triage", "", "No triage entries."]
  return [
    "## Triage",
    "",
    ...table(
      ["Pattern", "Score", "Chosen", "Reasons", "Skipped because"],
      [...report.triage]
        .sort((a, b) => Number(b.chosen) - Number(a.chosen) || b.score - a.score)
        .map((entry) => [
          `${codeSpan(entry.pattern, true)} ${cell(entry.friendly, 80)}`,
          decimal(entry.score),
          entry.chosen ? "yes" : "no",
          entry.reasons.length === 0 ? "—" : cell(entry.reasons.join("; "), 400),
          entry.skipped === null ? "—" : cell(entry.skipped)
        ])
    )
  ]
}

const coverage = (report: DiagnoseReport): Array<string> => {
  const { coverage: c, usage } = report
  return [
    "## Coverage and usage",
    "",
    `- **Patterns:** ${c.patterns_run} run, ${c.patterns_failed} failed, ${c.patterns_skipped} skipped`,
    `- **Events:** ${integer(c.events)} in the trace, ${integer(c.events_cited)} cited by a finding`,
    `- **Model calls:** ${integer(usage.llm_calls)} · **tokens:** ${integer(usage.input_tokens)} in${
      usage.cached_input_tokens > 0 ? ` (${integer(usage.cached_input_tokens)} from the provider's prompt cache)` : ""
    } / ${integer(usage.output_tokens)} out`,
    `- **Elapsed:** ${duration(usage.elapsed_ms)}`,
    `- **Estimated tokens:** ${budgetText(usage)}`
  ]
}

/** The whole report as one Markdown document. */
export const renderMarkdown = (report: DiagnoseReport, context: ReportContext): string =>
  [
    ...header(report),
    "",
    ...summary(report),
    "",
    ...decisive(report.decisive_step, report.checks),
    "",
    ...checksSection(report.checks),
    "",
    ...findings(report, context),
    "",
    ...interventions(report),
    "",
    ...patterns(report),
    "",
    ...triage(report),
    "",
    ...coverage(report),
    ""
  ].join("\n").replace(/\n{3,}/g, "\n\n")

/** The checks alone on a trace (`svc check`, POST /v1/checks' answer) as one Markdown document; `context.artifact` names the file. */
export const renderChecksMarkdown = (result: ChecksResponse, context: ReportContext): string =>
  [
    `# Checks: ${severityLabel(result.severity)} — ${text(result.trace.task, 120) || "untitled run"}`,
    "",
    `**Severity:** ${result.severity} · **Checks fired:** ${result.checks.length}`,
    "",
    ...(context.artifact === undefined ? [] : [`- **File:** ${codeSpan(context.artifact)}`]),
    ...traceLines(result.trace),
    "",
    ...decisive(result.decisive_step, result.checks),
    "",
    ...checksSection(result.checks),
    "",
    `Deterministic checks by ${SERVICE_NAME}: no lens ran and no model was called (\`svc diagnose\` adds the lenses).`,
    ""
  ].join("\n").replace(/\n{3,}/g, "\n\n")
