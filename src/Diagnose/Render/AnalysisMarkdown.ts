/**
 * One analysis (`POST /v1/analyze/{name}`, `svc analyze --format markdown`) as Markdown: the
 * detection's severity, summary, findings with their verified quotes, interventions and handoff,
 * with the same escaping as the diagnose report (every string from the trace or the model is
 * inert text).
 */
import { decimal, integer, oneLine, percent, shorten } from "./Common.js"
import { codeSpan, escapeMarkdown } from "./Markdown.js"
import { isRecord as isObject } from "../../Traces/Importer.js"

export interface AnalysisView {
  readonly pattern: string
  readonly mode: string
  readonly model: string
  readonly detection: Readonly<Record<string, unknown>>
  readonly cached: boolean
}

const TEXT_MAX = 2000
const QUOTE_MAX = 280

const str = (value: unknown): string => (typeof value === "string" ? value : "")
const num = (value: unknown): number | undefined => (typeof value === "number" ? value : undefined)
const records = (value: unknown): ReadonlyArray<Readonly<Record<string, unknown>>> => (Array.isArray(value) ? value.filter(isObject) : [])
const strings = (value: unknown): ReadonlyArray<string> => (Array.isArray(value) ? value.filter((item) => typeof item === "string") : [])
const text = (value: unknown, max = TEXT_MAX): string => escapeMarkdown(shorten(oneLine(str(value)), max))
const confidence = (value: unknown): string => {
  const n = num(value)
  return n === undefined ? "" : `, confidence ${decimal(n)}`
}

const finding = (item: Readonly<Record<string, unknown>>, number: number): Array<string> => [
  `### ${number}. ${text(item["title"], 200)} (${str(item["severity"]).toUpperCase()}${confidence(item["confidence"])})`,
  "",
  ...(str(item["explanation"]).length > 0 ? [text(item["explanation"]), ""] : []),
  ...records(item["evidence"]).map((evidence) => {
    const source = str(evidence["source"])
    return `- ${codeSpan(str(evidence["ref"]))} “${text(evidence["quote"], QUOTE_MAX)}”${source.length > 0 ? ` (source ${codeSpan(source)})` : ""}`
  }),
  ...(str(item["playbook"]).length > 0 ? ["", `Playbook: ${codeSpan(str(item["playbook"]))}`] : []),
  ""
]

const intervention = (item: Readonly<Record<string, unknown>>, number: number): string => {
  const playbook = str(item["playbook"])
  const compose = str(item["compose_pattern"])
  return `${number}. **${text(item["type"], 60)}**: ${text(item["description"])} (impact ${text(item["impact"], 10)}, effort ${text(item["effort"], 10)}${
    playbook.length > 0 ? `, playbook ${codeSpan(playbook)}` : ""
  }${compose.length > 0 ? `, then run ${codeSpan(compose)}` : ""})  \n   ${text(item["rationale"])}`
}

export const renderAnalysisMarkdown = (view: AnalysisView): string => {
  const detection = view.detection
  const findings = records(detection["findings"])
  const interventions = records(detection["interventions"])
  const handoff = isObject(detection["handoff"]) ? detection["handoff"] : {}
  const check = isObject(detection["evidence_check"]) ? detection["evidence_check"] : {}
  const coverage = isObject(detection["coverage"]) ? detection["coverage"] : {}
  const usage = isObject(detection["usage"]) ? detection["usage"] : {}
  const seen = num(coverage["elements_seen"]) ?? 0
  const total = num(coverage["elements_total"]) ?? 0
  const lines = [
    `# ${codeSpan(view.pattern)}: ${str(detection["severity"]).toUpperCase() || "NONE"}${confidence(detection["confidence"])}`,
    "",
    `Mode ${view.mode}, model ${codeSpan(view.model)}${view.cached ? " (from the cache)" : ""}. Profile: ${codeSpan(str(detection["profile"]) || "indeterminate")}.`,
    "",
    "## Summary",
    "",
    text(detection["summary"]) || "No summary.",
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
    `Before: ${strings(handoff["upstream"]).map((slug) => codeSpan(slug)).join(", ") || "—"}. After: ${
      strings(handoff["downstream"]).map((slug) => codeSpan(slug)).join(", ") || "—"
    }.`,
    ...(str(handoff["rationale"]).length > 0 ? ["", text(handoff["rationale"])] : []),
    "",
    "## Checks",
    "",
    `- Evidence: ${integer(num(check["verified"]) ?? 0)} of ${integer(num(check["cited"]) ?? 0)} quotes verified, ${integer(num(check["dropped"]) ?? 0)} dropped.`,
    `- Coverage: ${integer(seen)} of ${integer(total)} trace elements seen in full${total > 0 ? ` (${percent(seen / total)})` : ""}${
      coverage["condensed"] === true ? ", the rest condensed" : ""
    }.`,
    `- Usage: ${integer(num(usage["llm_calls"]) ?? 0)} model calls, ${integer(num(usage["input_tokens"]) ?? 0)} input (${
      integer(num(usage["cached_input_tokens"]) ?? 0)
    } from the provider's prompt cache) and ${integer(num(usage["output_tokens"]) ?? 0)} output tokens, ${decimal((num(usage["elapsed_ms"]) ?? 0) / 1000, 1)} s.`,
    ""
  ]
  return lines.join("\n")
}
