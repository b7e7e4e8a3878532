/**
 * The diagnose report as one self-contained HTML page (DECISIONS §13, `?output=html`): inline CSS
 * and nothing else: no script, font, image, stylesheet or frame that would load anything, so it
 * works with scripts disabled, under the service's CSP, and saved to disk. Its own
 * `Content-Security-Policy` meta tag forbids scripts and loads even where the page is opened from
 * a file. Every string from the trace or the model is HTML-escaped; ids and links are built from
 * numbers only.
 *
 * The run is a timeline of its events (`#event-N` anchors); the checks' findings (DECISIONS §23)
 * come first, then the lenses'; each card links to the events it cites and each cited event carries
 * the badges of the checks and findings citing it. The decisive step is summarised at the top and
 * marked on the timeline. A long trace shows its cited events and
 * their neighbours, the decisive step and the first and last events, at most MAX_EVENTS of them,
 * with a marker for each run of events left out.
 */
import type { Severity } from "../../Catalogue/Severity.js"
import type { CheckEvidence, CheckFinding } from "../../Contract/ChecksContract.js"
import type { DiagnoseReport, RankedIntervention, ReportContext, ReportFinding } from "../../Contract/DiagnoseReport.js"
import { verdictOf } from "../../Problems/Verdict.js"
import { HTML_REPORT_CSP } from "../../Registry/Outputs.js"
import {
  budgetText,
  capitalize,
  checkEvidenceText,
  checksByEvent,
  type ContextEvent,
  decimal,
  decisiveTitles,
  duration,
  eventOf,
  type FindingEvidence,
  findingsByEvent,
  friendlyName,
  integer,
  noFindingsText,
  oneLine,
  orderedFindings,
  percent,
  SERVICE_NAME,
  severityRank,
  shorten,
  statusText,
  redactionsText,
  successText
} from "./Common.js"

/** The most events the timeline shows. */
export const MAX_EVENTS = 400
/** Events always shown at each end of a long trace. */
const ENDS = 3
const CONTENT_MAX = 700
const QUOTE_MAX = 400

const KINDS = new Set(["message", "thought", "tool_call", "tool_result", "error", "handoff"])

/** HTML-escapes text for element content and double-quoted attribute values. */
export const escapeHtml = (value: string): string =>
  value.replace(/[&<>"']/g, (c) => (c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : c === "\"" ? "&quot;" : "&#39;"))

const esc = (value: string, max?: number): string => escapeHtml(max === undefined ? value : shorten(value, max))
const line = (value: string, max?: number): string => esc(oneLine(value), max)

const sevBadge = (severity: Severity): string => `<span class="sev sev-${severity}">${capitalize(severity)}</span>`

const kindLabel = (kind: string): string => `<span class="kind ${KINDS.has(kind) ? `kind-${kind}` : "kind-other"}">${line(kind.replace(/_/g, " "), 40)}</span>`

/**
 * Which events the timeline shows, in order: all of them up to MAX_EVENTS; otherwise the first
 * and last ENDS, the decisive step, the cited events, then their neighbours (one away, then two),
 * until MAX_EVENTS.
 */
export const shownEvents = (total: number, cited: Iterable<number>, decisive: number | undefined): ReadonlyArray<number> => {
  if (total <= MAX_EVENTS) return Array.from({ length: total }, (_, i) => i)
  const keep = new Set<number>()
  const add = (index: number) => {
    if (keep.size < MAX_EVENTS && index >= 0 && index < total) keep.add(index)
  }
  for (let i = 0; i < ENDS; i++) {
    add(i)
    add(total - 1 - i)
  }
  const anchors = [...(decisive === undefined ? [] : [decisive]), ...Array.from(cited).sort((a, b) => a - b)]
  for (const index of anchors) add(index)
  for (const distance of [1, 2]) {
    for (const index of anchors) {
      add(index - distance)
      add(index + distance)
    }
  }
  return Array.from(keep).sort((a, b) => a - b)
}

const CSS = `
:root{color-scheme:light;--fg:#1f2328;--muted:#57606a;--line:#d0d7de;--bg:#f6f8fa;--card:#fff;--link:#0550ae;
--critical:#7d1416;--high:#b42318;--medium:#8a4600;--low:#1f4fbf;--none:#4b5563}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
a{color:var(--link)}
a:focus-visible{outline:3px solid #0969da;outline-offset:2px}
code,pre,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace;font-size:.86em}
code{background:#eef1f4;border-radius:4px;padding:.05em .35em;overflow-wrap:anywhere}
.wrap{max-width:1240px;margin:0 auto;padding:20px 24px}
.columns{display:grid;grid-template-columns:minmax(0,1fr);gap:0 28px;align-items:start}
@media (min-width:1000px){.columns{grid-template-columns:minmax(0,1fr) minmax(0,1fr)}}
header.top{background:var(--card);border-bottom:1px solid var(--line)}
.eyebrow{margin:0 0 4px;color:var(--muted);font-size:.85em;letter-spacing:.02em}
h1{font-size:1.6em;line-height:1.25;margin:.1em 0 .5em;display:flex;gap:.5em;align-items:baseline;flex-wrap:wrap}
h2{font-size:1.25em;margin:1.6em 0 .6em;padding-bottom:.25em;border-bottom:1px solid var(--line)}
h3{font-size:1.05em;margin:0}
.sev{display:inline-block;color:#fff;border-radius:999px;padding:.05em .65em;font-size:.78em;font-weight:600;letter-spacing:.02em;white-space:nowrap;vertical-align:middle}
.sev-critical{background:var(--critical)}.sev-high{background:var(--high)}.sev-medium{background:var(--medium)}.sev-low{background:var(--low)}.sev-none{background:var(--none)}
.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 16px;margin:0 0 12px}
.facts dt{color:var(--muted)}.facts dd{margin:0;overflow-wrap:anywhere}
.summary{font-size:1.05em;max-width:80ch}
.verdict{font-size:1.1em;max-width:90ch;margin:.25em 0 1em}
.decisive-box{border:2px solid var(--fg);border-radius:8px;background:#fffbea;padding:12px 16px;margin:0 0 4px}
.decisive-box h2{border:0;margin:0 0 6px;padding:0;font-size:1.1em}
.decisive-box blockquote{margin:6px 0;padding:4px 12px;border-left:4px solid var(--fg);background:#fff;white-space:pre-wrap;overflow-wrap:anywhere}
.toc{display:flex;gap:16px;flex-wrap:wrap;margin-top:12px;font-size:.92em}
.stats{display:flex;gap:12px;flex-wrap:wrap;margin:12px 0 0;padding:0;list-style:none}
.stats li{background:var(--bg);border:1px solid var(--line);border-radius:6px;padding:4px 10px;font-size:.9em}
.finding{background:var(--card);border:1px solid var(--line);border-left:6px solid var(--none);border-radius:8px;padding:12px 16px;margin:0 0 12px}
.finding.sev-critical{border-left-color:var(--critical)}.finding.sev-high{border-left-color:var(--high)}.finding.sev-medium{border-left-color:var(--medium)}.finding.sev-low{border-left-color:var(--low)}
.finding:target,.event:target{box-shadow:0 0 0 3px #0969da}
.finding .head{display:flex;gap:.6em;align-items:baseline;flex-wrap:wrap}
.fid{font-weight:700;color:var(--muted)}
.meta{color:var(--muted);font-size:.9em;margin:.3em 0}
.evidence{list-style:none;padding:0;margin:.5em 0}
.evidence li{margin:.4em 0}
.evidence blockquote{margin:0;padding:2px 10px;border-left:3px solid var(--line);white-space:pre-wrap;overflow-wrap:anywhere}
.evidence .where{font-size:.88em;color:var(--muted);margin-left:13px}
.evidence .described{margin:0;padding:2px 10px;border-left:3px dashed var(--line);color:var(--muted);font-style:italic;overflow-wrap:anywhere}
.timeline{list-style:none;margin:0;padding:0 0 0 22px;border-left:3px solid var(--line)}
.event{position:relative;background:var(--card);border:1px solid var(--line);border-radius:8px;padding:8px 12px;margin:0 0 10px}
.event::before{content:"";position:absolute;left:-31px;top:14px;width:13px;height:13px;border-radius:50%;background:var(--card);border:3px solid var(--line)}
.event.cited::before{border-color:var(--medium)}
.event.cited.sev-critical::before{background:var(--critical);border-color:var(--critical)}.event.cited.sev-high::before{background:var(--high);border-color:var(--high)}
.event.cited.sev-medium::before{background:var(--medium);border-color:var(--medium)}.event.cited.sev-low::before{background:var(--low);border-color:var(--low)}
.event.decisive{border:2px solid var(--fg);background:#fffbea}
.event.decisive::before{width:17px;height:17px;left:-33px;top:12px;background:var(--fg);border-color:var(--fg)}
.event-head{display:flex;gap:10px;flex-wrap:wrap;align-items:baseline;font-size:.9em}
.idx{font-weight:700}
.actor{font-weight:600}
.kind{border:1px solid var(--line);border-radius:4px;padding:0 6px;color:var(--muted)}
.kind-error{color:var(--high);border-color:var(--high)}
.when,.src{color:var(--muted)}
.decisive-mark{display:inline-block;margin:6px 0 0;background:var(--fg);color:#fff;border-radius:4px;padding:1px 8px;font-weight:700;font-size:.85em}
.pins{display:flex;gap:6px;flex-wrap:wrap;margin:6px 0 0}
.pin{display:inline-block;color:#fff;text-decoration:none;border-radius:4px;padding:1px 8px;font-size:.82em;font-weight:600}
.pin:hover{text-decoration:underline}
.pin.check{outline:2px solid var(--fg);outline-offset:-2px}
.pin.sev-critical{background:var(--critical)}.pin.sev-high{background:var(--high)}.pin.sev-medium{background:var(--medium)}.pin.sev-low{background:var(--low)}.pin.sev-none{background:var(--none)}
.content{margin:6px 0 0;white-space:pre-wrap;overflow-wrap:anywhere;font-size:.84em;max-height:16em;overflow:auto}
.gap{list-style:none;color:var(--muted);font-style:italic;margin:0 0 10px;padding:4px 12px;border:1px dashed var(--line);border-radius:8px;background:transparent}
.interventions{padding-left:1.6em}
.interventions li{margin:0 0 10px}
table{border-collapse:collapse;width:100%;background:var(--card);font-size:.9em}
th,td{border:1px solid var(--line);padding:6px 8px;text-align:left;vertical-align:top;overflow-wrap:anywhere}
th{background:var(--bg);white-space:nowrap}
.failed{color:var(--high);font-weight:600}
.bar{display:inline-block;width:60px;height:8px;background:var(--line);border-radius:4px;margin-right:6px;vertical-align:middle;overflow:hidden}
.bar span{display:block;height:100%;background:var(--low)}
footer{color:var(--muted);font-size:.85em;padding:24px 0}
@media (max-width:700px){.wrap{padding:14px}.facts{grid-template-columns:1fr}}
@media print{.event,.finding{break-inside:avoid}.content{max-height:none}}
`

interface Numbered {
  readonly finding: ReportFinding
  readonly index: number
  readonly number: number
}

/** A badge on a cited event: a check (`C1`, `#check-0`) or a lens finding (`F1`, `#finding-0`). */
interface Pin {
  readonly href: string
  readonly label: string
  readonly title: string
  readonly severity: Severity
  readonly check: boolean
}

const eventLink = (index: number | null, shown: ReadonlySet<number>): string =>
  index === null ? "" : shown.has(index) ? `<a href="#event-${index}">event #${index}</a>` : `event #${index} (not shown)`

const header = (report: DiagnoseReport, shown: ReadonlySet<number>): string => {
  const { trace } = report
  const step = report.decisive_step
  const facts: Array<[string, string]> = [
    ["Trace", `${esc(trace.format)}${trace.id === null ? "" : ` · <code>${line(trace.id, 120)}</code>`} · ${integer(trace.events)} events${
      trace.skipped > 0 ? ` (${integer(trace.skipped)} records skipped)` : ""
    }`],
    ["Task", line(trace.task, 600) || "—"],
    ["Outcome", line(trace.outcome, 600) || "—"],
    ["Success", successText(trace.success)],
    ...(redactionsText(trace.redactions) === "" ? [] : [["Redacted before analysis", esc(redactionsText(trace.redactions))] satisfies [string, string]]),
    ["Agents", trace.agents.length === 0 ? "—" : trace.agents.map((agent) => line(agent, 80)).join(", ")],
    ["Mode", `${esc(report.mode)}${report.model === null ? "" : ` · <code>${line(report.model, 80)}</code>`}`],
    ["Confidence", percent(report.confidence)],
    ["Generated", `${line(report.generated_at, 40)}${report.cached ? " (every run from the cache)" : ""}`]
  ]
  const titles = step === null ? { checks: [], lenses: [] } : decisiveTitles(step, report.checks)
  const titled = (found: ReadonlyArray<string>) => (found.length === 0 ? "" : ` — ${found.map((title) => line(title, 160)).join("; ")}`)
  const decisive = step === null
    ? `<section class="decisive-box" aria-labelledby="decisive-title"><h2 id="decisive-title">Decisive step</h2><p>None: no check finding or verified lens finding cites an element of the trace.</p></section>`
    : `<section class="decisive-box" aria-labelledby="decisive-title">
<h2 id="decisive-title">Decisive step ${sevBadge(step.severity)}</h2>
<p><strong>Who:</strong> ${line(step.actor, 120)} · <strong>When:</strong> ${step.timestamp === null ? "not stated" : line(step.timestamp, 60)} · <strong>What:</strong> ${
      esc(step.kind.replace(/_/g, " "))
    } · <strong>Where:</strong> <code>${line(step.source, 200)}</code> (${eventLink(step.event, shown)})</p>
<blockquote>${step.content.length === 0 ? "(no content)" : esc(step.content, CONTENT_MAX)}</blockquote>
${
      step.checks.length === 0
        ? ""
        : `<p><strong>Checks:</strong> ${step.checks.map((check) => `<code>${line(check, 60)}</code>`).join(", ")}${titled(titles.checks)}</p>\n`
    }${
      step.patterns.length === 0 && step.checks.length > 0
        ? ""
        : `<p><strong>Lenses:</strong> ${step.patterns.map((pattern) => `<code>${line(pattern, 60)}</code>`).join(", ") || "—"}${titled(titles.lenses)}</p>\n`
    }</section>`
  return `<header class="top"><div class="wrap">
<p class="eyebrow">${SERVICE_NAME} · diagnose report</p>
<h1>${sevBadge(report.severity)} <span>${line(trace.task, 160) || "Untitled run"}</span></h1>
<p class="verdict"><strong>Verdict:</strong> ${line(verdictOf(report).line, 400)}</p>
<div class="columns">
<div>
<dl class="facts">${facts.map(([term, value]) => `<dt>${term}</dt><dd>${value}</dd>`).join("")}</dl>
<p class="summary">${esc(report.summary) || "No summary."}</p>
</div>
<div>
${decisive}
<ul class="stats">
<li>${report.checks.length} check${report.checks.length === 1 ? "" : "s"} fired</li>
<li>${report.findings.length} finding${report.findings.length === 1 ? "" : "s"}</li>
<li>${report.coverage.patterns_run} pattern${report.coverage.patterns_run === 1 ? "" : "s"} run, ${report.coverage.patterns_failed} failed</li>
<li>${integer(report.coverage.events_cited)} of ${integer(report.coverage.events)} events cited</li>
<li>${integer(report.usage.input_tokens + report.usage.output_tokens)} tokens · ${duration(report.usage.elapsed_ms)}</li>
</ul>
</div>
</div>
<nav class="toc" aria-label="Sections"><a href="#checks">Checks</a><a href="#findings">Findings</a><a href="#timeline">Timeline</a><a href="#interventions">Interventions</a><a href="#usage">Usage</a><a href="#patterns">Patterns</a><a href="#triage">Triage</a></nav>
</div></header>`
}

const evidenceItem = (context: ReportContext, evidence: FindingEvidence, shown: ReadonlySet<number>): string => {
  const actor = evidence.actor ?? eventOf(context, evidence.event)?.actor
  const where = [
    eventLink(evidence.event, shown),
    ...(actor === undefined ? [] : [line(actor, 80)]),
    `<code>${line(evidence.ref, 120)}</code>`,
    ...(evidence.source === undefined || evidence.source === evidence.ref ? [] : [`<code>${line(evidence.source, 200)}</code>`])
  ].filter((part) => part.length > 0)
  return `<li><blockquote>${esc(evidence.quote, QUOTE_MAX)}</blockquote><div class="where">${where.join(" · ")}</div></li>`
}

const findingCard = (report: DiagnoseReport, context: ReportContext, { finding, index, number }: Numbered, shown: ReadonlySet<number>): string =>
  `<article class="finding sev-${finding.severity}" id="finding-${index}">
<div class="head"><span class="fid">F${number}</span>${sevBadge(finding.severity)}<h3>${line(finding.title, 300)}</h3></div>
<p class="meta"><code>${line(finding.pattern, 60)}</code> ${line(friendlyName(report, finding.pattern), 80)} · confidence ${percent(finding.confidence)}${
    finding.playbook === null ? "" : ` · playbook <code>${line(finding.playbook, 120)}</code>`
  }</p>
<p>${esc(finding.explanation, 3000)}</p>
${
    finding.evidence.length === 0
      ? `<p class="meta">No evidence kept after the evidence check.</p>`
      : `<ul class="evidence">${finding.evidence.map((evidence) => evidenceItem(context, evidence, shown)).join("")}</ul>`
  }
<p class="meta">Corroborated by: ${finding.corroborated_by.length === 0 ? "no other lens" : finding.corroborated_by.map((pattern) => `<code>${line(pattern, 60)}</code>`).join(", ")}</p>
</article>`

const checkEvidenceItem = (evidence: CheckEvidence, shown: ReadonlySet<number>): string => {
  const where = [
    eventLink(evidence.event, shown),
    line(evidence.actor, 80),
    `<code>${line(evidence.ref, 120)}</code>`,
    ...(evidence.source === evidence.ref ? [] : [`<code>${line(evidence.source, 200)}</code>`])
  ].filter((part) => part.length > 0)
  const what = evidence.quote === null
    ? `<p class="described">${line(checkEvidenceText(evidence), QUOTE_MAX)} (no content)</p>`
    : `<blockquote>${esc(evidence.quote, QUOTE_MAX)}</blockquote>`
  return `<li>${what}<div class="where">${where.join(" · ")}</div></li>`
}

const checkCard = (check: CheckFinding, index: number, shown: ReadonlySet<number>): string =>
  `<article class="finding check sev-${check.severity}" id="check-${index}">
<div class="head"><span class="fid">C${index + 1}</span>${sevBadge(check.severity)}<h3>${line(check.title, 300)}</h3></div>
<p class="meta"><code>${line(check.check, 80)}</code> deterministic check${check.playbook === null ? "" : ` · playbook <code>${line(check.playbook, 120)}</code>`}</p>
<p>${esc(check.explanation, 3000)}</p>
<ul class="evidence">${check.evidence.map((evidence) => checkEvidenceItem(evidence, shown)).join("")}</ul>
</article>`

const eventItem = (
  event: ContextEvent,
  index: number,
  pins: ReadonlyArray<Pin>,
  decisive: boolean
): string => {
  const top = pins.reduce<Severity | undefined>(
    (max, pin) => (max === undefined || severityRank(pin.severity) > severityRank(max) ? pin.severity : max),
    undefined
  )
  const classes = ["event", ...(top === undefined ? [] : ["cited", `sev-${top}`]), ...(decisive ? ["decisive"] : [])]
  const long = event.content.length > CONTENT_MAX ? ` <span class="when">(${integer(event.content.length)} characters)</span>` : ""
  return `<li id="event-${index}" class="${classes.join(" ")}">
<div class="event-head"><span class="idx">#${index}</span><span class="actor">${line(event.actor, 80)}</span>${kindLabel(event.kind)}${
    event.timestamp === undefined ? "" : `<span class="when">${line(event.timestamp, 60)}</span>`
  }<code class="src">${line(event.source, 200)}</code>${long}</div>
${decisive ? `<p class="decisive-mark">Decisive step</p>` : ""}${
    pins.length === 0
      ? ""
      : `<div class="pins">${
        pins.map((pin) =>
          `<a class="pin${pin.check ? " check" : ""} sev-${pin.severity}" href="${pin.href}" title="${line(pin.title, 200)}">${pin.label} ${capitalize(pin.severity)} · ${
            line(pin.title, 60)
          }</a>`
        ).join("")
      }</div>`
  }
<pre class="content">${esc(event.content, CONTENT_MAX)}</pre>
</li>`
}

const timeline = (
  report: DiagnoseReport,
  context: ReportContext,
  shown: ReadonlyArray<number>,
  numbered: ReadonlyArray<Numbered>
): string => {
  const total = context.events.length
  if (total === 0) return `<p>The trace's events are not available.</p>`
  const byEvent = findingsByEvent(report)
  const checksAt = checksByEvent(report.checks)
  const byIndex = new Map(numbered.map((entry) => [entry.index, entry]))
  const decisive = report.decisive_step?.event
  const items: Array<string> = []
  let next = 0
  const gap = (count: number) => `<li class="gap">… ${integer(count)} event${count === 1 ? "" : "s"} not shown …</li>`
  for (const index of shown) {
    const event = context.events[index]
    if (event === undefined) continue
    if (index > next) items.push(gap(index - next))
    const checkPins = (checksAt.get(index) ?? []).flatMap((checkIndex): Array<Pin> => {
      const check = report.checks[checkIndex]
      return check === undefined ? [] : [{ href: `#check-${checkIndex}`, label: `C${checkIndex + 1}`, title: check.title, severity: check.severity, check: true }]
    })
    const findingPins = (byEvent.get(index) ?? []).flatMap((findingIndex): Array<Pin> => {
      const entry = byIndex.get(findingIndex)
      return entry === undefined
        ? []
        : [{ href: `#finding-${entry.index}`, label: `F${entry.number}`, title: entry.finding.title, severity: entry.finding.severity, check: false }]
    })
    const pins = [...checkPins, ...findingPins]
    items.push(eventItem(event, index, pins, index === decisive))
    next = index + 1
  }
  if (next < total) items.push(gap(total - next))
  const note = shown.length < total ? `<p class="meta">${integer(shown.length)} of ${integer(total)} events shown: the cited ones and their neighbours, the first and the last.</p>` : ""
  return `${note}<ol class="timeline">\n${items.join("\n")}\n</ol>`
}

const interventionItem = (intervention: RankedIntervention): string =>
  `<li value="${intervention.rank}"><strong>${line(intervention.type, 40)}</strong> — ${esc(intervention.description, 1500)}
<div class="meta">Effort ${esc(intervention.effort)} · impact ${esc(intervention.impact)}${
    intervention.playbook === null ? "" : ` · playbook <code>${line(intervention.playbook, 120)}</code>`
  } · from <code>${line(intervention.pattern, 60)}</code>${
    intervention.also_from.length === 0 ? "" : ` · also from ${intervention.also_from.map((pattern) => `<code>${line(pattern, 60)}</code>`).join(", ")}`
  }</div>${oneLine(intervention.rationale).length === 0 ? "" : `<div class="meta">Why: ${esc(intervention.rationale, 1500)}</div>`}</li>`

const patternsTable = (report: DiagnoseReport): string =>
  report.patterns.length === 0
    ? "<p>No pattern ran.</p>"
    : `<table><thead><tr><th>Pattern</th><th>Status</th><th>Cached</th><th>Findings</th><th>Playbooks</th><th>Error</th></tr></thead><tbody>${
      report.patterns.map((run) =>
        `<tr><td><code>${line(run.pattern, 60)}</code> ${line(run.friendly, 80)}</td><td${run.error === null ? "" : ` class="failed"`}>${
          run.error === null ? line(statusText(run.status), 40) : `failed (${line(run.status, 40)})`
        }</td><td>${run.cached ? "yes" : "no"}</td><td>${report.findings.filter((finding) => finding.pattern === run.pattern).length}</td><td>${
          run.playbooks.length === 0 ? "—" : run.playbooks.map((key) => `<code>${line(key, 120)}</code>`).join(" ")
        }</td><td>${run.error === null ? "—" : `<strong>${line(run.error.kind, 40)}</strong>: ${esc(run.error.message, 600)}`}</td></tr>`
      ).join("")
    }</tbody></table>`

const triageTable = (report: DiagnoseReport): string =>
  report.triage.length === 0
    ? "<p>No triage entries.</p>"
    : `<table><thead><tr><th>Pattern</th><th>Score</th><th>Chosen</th><th>Reasons</th><th>Skipped because</th></tr></thead><tbody>${
      [...report.triage]
        .sort((a, b) => Number(b.chosen) - Number(a.chosen) || b.score - a.score)
        .map((entry) =>
          `<tr><td><code>${line(entry.pattern, 60)}</code> ${line(entry.friendly, 80)}</td><td><span class="bar"><span style="width:${
            Math.round(Math.min(1, Math.max(0, entry.score)) * 100)
          }%"></span></span>${decimal(entry.score)}</td><td>${entry.chosen ? "yes" : "no"}</td><td>${
            entry.reasons.length === 0 ? "—" : entry.reasons.map((reason) => line(reason, 300)).join("<br>")
          }</td><td>${entry.skipped === null ? "—" : line(entry.skipped, 300)}</td></tr>`
        ).join("")
    }</tbody></table>`

const usageList = (report: DiagnoseReport): string => {
  const { coverage: c, usage } = report
  const rows: Array<[string, string]> = [
    ["Patterns", `${c.patterns_run} run, ${c.patterns_failed} failed, ${c.patterns_skipped} skipped`],
    ["Events", `${integer(c.events)} in the trace, ${integer(c.events_cited)} cited by a finding`],
    ["Model calls", integer(usage.llm_calls)],
    ["Tokens", `${integer(usage.input_tokens)} in / ${integer(usage.output_tokens)} out`],
    ["Elapsed", duration(usage.elapsed_ms)],
    ["Estimated tokens", budgetText(usage)]
  ]
  return `<dl class="facts">${rows.map(([term, value]) => `<dt>${term}</dt><dd>${value}</dd>`).join("")}</dl>`
}

/** The whole report as one HTML page. */
export const renderHtml = (report: DiagnoseReport, context: ReportContext): string => {
  const numbered: Array<Numbered> = orderedFindings(report).map(({ finding, index }, position) => ({ finding, index, number: position + 1 }))
  const cited = [...findingsByEvent(report).keys(), ...checksByEvent(report.checks).keys()]
  const decisiveEvent = report.decisive_step?.event
  const shownList = shownEvents(context.events.length, cited, decisiveEvent)
  const shown = new Set(shownList)
  const title = `Diagnose: ${capitalize(report.severity)} — ${oneLine(report.trace.task) || "untitled run"}`
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${HTML_REPORT_CSP}">
<meta name="referrer" content="no-referrer">
<title>${esc(title, 120)}</title>
<style>${CSS}</style>
</head>
<body>
${header(report, shown)}
<main class="wrap">
<div class="columns">
<div>
<section id="checks" aria-labelledby="checks-title">
<h2 id="checks-title">Checks (${report.checks.length})</h2>
${
    report.checks.length === 0
      ? "<p>No check fired: the deterministic checks found nothing in this trace.</p>"
      : report.checks.map((check, index) => checkCard(check, index, shown)).join("\n")
  }
</section>
<section id="findings" aria-labelledby="findings-title">
<h2 id="findings-title">Findings (${report.findings.length})</h2>
${
    numbered.length === 0
      ? `<p>${escapeHtml(noFindingsText(report))}</p>`
      : numbered.map((entry) => findingCard(report, context, entry, shown)).join("\n")
  }
</section>
</div>
<section id="timeline" aria-labelledby="timeline-title">
<h2 id="timeline-title">Timeline (${integer(context.events.length)} events)</h2>
${timeline(report, context, shownList, numbered)}
</section>
</div>
<div class="columns">
<section id="interventions" aria-labelledby="interventions-title">
<h2 id="interventions-title">Interventions</h2>
${
    report.interventions.length === 0
      ? "<p>None proposed.</p>"
      : `<ol class="interventions">${[...report.interventions].sort((a, b) => a.rank - b.rank).map(interventionItem).join("\n")}</ol>`
  }
</section>
<section id="usage" aria-labelledby="usage-title">
<h2 id="usage-title">Coverage and usage</h2>
${usageList(report)}
</section>
</div>
<section id="patterns" aria-labelledby="patterns-title">
<h2 id="patterns-title">Patterns run</h2>
${patternsTable(report)}
</section>
<section id="triage" aria-labelledby="triage-title">
<h2 id="triage-title">Triage</h2>
${triageTable(report)}
</section>
<footer>Generated by ${SERVICE_NAME} at ${line(report.generated_at, 40)}. This page loads nothing and runs no script.</footer>
</main>
</body>
</html>
`
}
