/**
 * One analysis (`POST /v1/analyze/{name}`, `svc analyze --format markdown`) as Markdown: the
 * detection's severity, summary, findings with their verified quotes, interventions and handoff,
 * with the same escaping as the diagnose report (every string from the trace or the model is
 * inert text).
 */
import type { Detection } from "../../Catalogue/Detection.js"
import { decimal, integer, oneLine, percent, shorten } from "./Common.js"
import { codeSpan, escapeMarkdown } from "./Markdown.js"

export interface AnalysisView {
  readonly pattern: string
  readonly mode: string
  readonly model: string
  readonly detection: Detection
  readonly cached: boolean
}

type Finding = Detection["findings"][number]
type Intervention = Detection["interventions"][number]

const TEXT_MAX = 2000
const QUOTE_MAX = 280

const text = (value: string, max = TEXT_MAX): string => escapeMarkdown(shorten(oneLine(value), max))
const confidence = (value: number): string => `, confidence ${decimal(value)}`

const finding = (item: Finding, number: number): Array<string> => [
  `### ${number}. ${text(item.title, 200)} (${item.severity.toUpperCase()}${confidence(item.confidence)})`,
  "",
  ...(item.explanation.length > 0 ? [text(item.explanation), ""] : []),
  ...item.evidence.map(({ quote, ref, source }) =>
    `- ${codeSpan(ref)} “${text(quote, QUOTE_MAX)}”${source !== undefined && source.length > 0 ? ` (source ${codeSpan(source)})` : ""}`
  ),
  ...(item.playbook !== null && item.playbook.length > 0 ? ["", `Playbook: ${codeSpan(item.playbook)}`] : []),
  ""
]

const intervention = (item: Intervention, number: number): string =>
  `${number}. **${text(item.type, 60)}**: ${text(item.description)} (impact ${text(item.impact, 10)}, effort ${text(item.effort, 10)}${
    item.playbook !== null && item.playbook.length > 0 ? `, playbook ${codeSpan(item.playbook)}` : ""
  }${item.compose_pattern !== null && item.compose_pattern.length > 0 ? `, then run ${codeSpan(item.compose_pattern)}` : ""})  \n   ${text(item.rationale)}`

export const renderAnalysisMarkdown = (view: AnalysisView): string => {
  const { coverage, evidence_check: check, findings, handoff, interventions, usage } = view.detection
  const detection = view.detection
  const seen = coverage.elements_seen
  const total = coverage.elements_total
  const lines = [
    `# ${codeSpan(view.pattern)}: ${detection.severity.toUpperCase()}${confidence(detection.confidence)}`,
    "",
    `Mode ${view.mode}, model ${codeSpan(view.model)}${view.cached ? " (from the cache)" : ""}. Profile: ${codeSpan(detection.profile || "indeterminate")}.`,
    "",
    "## Summary",
    "",
    text(detection.summary) || "No summary.",
    "",
    `## Findings (${findings.length})`,
    "",
    ...(findings.length === 0 ? ["No finding was verified against the trace.", ""] : findings.flatMap((item, index) => finding(item, index + 1))),
    `## Interventions (${interventions.length})`,
    "",
    ...(interventions.length === 0 ? ["None proposed."] : interventions.map((item, index) => intervention(item, index + 1))),
    "",
    "## Handoff",
    "",
    `Before: ${handoff.upstream.map((slug) => codeSpan(slug)).join(", ") || "—"}. After: ${
      handoff.downstream.map((slug) => codeSpan(slug)).join(", ") || "—"
    }.`,
    ...(handoff.rationale.length > 0 ? ["", text(handoff.rationale)] : []),
    "",
    "## Checks",
    "",
    `- Evidence: ${integer(check.verified)} of ${integer(check.cited)} quotes verified, ${integer(check.dropped)} dropped.`,
    `- Coverage: ${integer(seen)} of ${integer(total)} trace elements seen in full${total > 0 ? ` (${percent(seen / total)})` : ""}${
      coverage.condensed ? ", the rest condensed" : ""
    }.`,
    `- Usage: ${integer(usage.llm_calls)} model calls, ${integer(usage.input_tokens)} input (${
      integer(usage.cached_input_tokens)
    } from the provider's prompt cache) and ${integer(usage.output_tokens)} output tokens, ${decimal(usage.elapsed_ms / 1000, 1)} s.`,
    ""
  ]
  return lines.join("\n")
}
