/**
 * The diagnose report as SARIF 2.1.0 (DECISIONS §13, `?output=sarif`), for GitHub code scanning
 * and any SARIF viewer. One run; one rule per check that fired (`svc/check/<id>`, DECISIONS §23,
 * its title and rule from the checks' registry) and per pattern that has findings; one result per
 * check finding and per lens finding, located in the trace file the client holds
 * (`?artifact=PATH`, `trace.json` by default) at the line of the cited element when the request
 * body (the trace file's text) shows where it is, line 1 otherwise (GitHub requires a physical
 * location). It follows GitHub's subset: rules with short and full descriptions and help, results
 * with a relative artifact URI, a start line and `partialFingerprints` that stay the same across
 * runs (pattern, finding title and cited source; a check's own fingerprint and cited source), so
 * re-uploads update alerts instead of duplicating them. `svc check` renders the checks alone the
 * same way (`renderChecksSarif`).
 */
import { createHash } from "node:crypto"
import packageJson from "../../../package.json" with { type: "json" }
import type { Severity } from "../../Catalogue/Severity.js"
import { CHECKS } from "../../Checks/Registry.js"
import type { CheckFinding } from "../../Contract/ChecksContract.js"
import type { ChecksResponse } from "../../Contract/DiagnoseContract.js"
import type { DiagnoseReport, ReportContext, ReportFinding } from "../../Contract/DiagnoseReport.js"
import { checkEvidenceText, checkRuleId, friendlyName, maxSeverity, oneLine, SERVICE_NAME, shorten } from "./Common.js"
import { locateLines } from "./JsonLines.js"
import { codeSpan, escapeMarkdown } from "./Markdown.js"

export const SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
export const DEFAULT_ARTIFACT = "trace.json"
/** The key of the stable fingerprint (its algorithm's version in the name, as SARIF §3.27.17 suggests). */
export const FINGERPRINT_KEY = "patternAnalysisFinding/v1"

export type SarifLevel = "error" | "warning" | "note"

export interface SarifText {
  readonly text: string
}
export interface SarifMultiformatText {
  readonly text: string
  readonly markdown: string
}
export interface SarifArtifactLocation {
  readonly uri: string
  readonly index: number
}
export interface SarifPhysicalLocation {
  readonly artifactLocation: SarifArtifactLocation
  readonly region: { readonly startLine: number }
}
export interface SarifLogicalLocation {
  readonly name: string
  readonly fullyQualifiedName: string
  readonly kind: "element"
}
export interface SarifLocation {
  readonly id?: number
  readonly physicalLocation: SarifPhysicalLocation
  readonly logicalLocations: ReadonlyArray<SarifLogicalLocation>
  readonly message?: SarifText
}
export interface SarifRule {
  readonly id: string
  readonly name: string
  readonly shortDescription: SarifText
  readonly fullDescription: SarifText
  readonly help: SarifMultiformatText
  readonly defaultConfiguration: { readonly level: SarifLevel }
  readonly properties: {
    readonly tags: ReadonlyArray<string>
    readonly precision: "very-high" | "high" | "medium" | "low"
    readonly "problem.severity": "error" | "warning" | "recommendation"
    readonly playbooks: ReadonlyArray<string>
  }
}
/** A lens finding's result's properties. */
export interface SarifLensProperties {
  readonly pattern: string
  readonly finding: string
  readonly severity: Severity
  readonly confidence: number
  readonly corroborated_by: ReadonlyArray<string>
  readonly playbook: string | null
  readonly decisive: boolean
}
/** A check finding's result's properties: the check, and its fingerprint across runs (DECISIONS §24). */
export interface SarifCheckProperties {
  readonly check: string
  readonly severity: Severity
  readonly fingerprint: string
  readonly playbook: string | null
  readonly decisive: boolean
}
export interface SarifResult {
  readonly ruleId: string
  readonly ruleIndex: number
  readonly level: SarifLevel
  readonly rank: number
  readonly message: SarifText
  readonly locations: ReadonlyArray<SarifLocation>
  readonly relatedLocations?: ReadonlyArray<SarifLocation>
  readonly partialFingerprints: Readonly<Record<string, string>>
  readonly properties: SarifLensProperties | SarifCheckProperties
}
export interface SarifNotification {
  readonly level: SarifLevel
  readonly message: SarifText
  readonly properties: { readonly pattern: string; readonly kind: string }
}
export interface SarifRun {
  readonly tool: {
    readonly driver: {
      readonly name: string
      readonly version: string
      readonly semanticVersion: string
      readonly informationUri: string
      readonly rules: ReadonlyArray<SarifRule>
    }
  }
  readonly automationDetails: { readonly id: string }
  readonly artifacts: ReadonlyArray<{ readonly location: { readonly uri: string }; readonly mimeType: string }>
  readonly invocations: ReadonlyArray<{
    readonly executionSuccessful: boolean
    readonly toolExecutionNotifications: ReadonlyArray<SarifNotification>
  }>
  readonly results: ReadonlyArray<SarifResult>
  readonly properties: {
    readonly trace: DiagnoseReport["trace"]
    readonly severity: Severity
    readonly decisive_step: DiagnoseReport["decisive_step"]
    readonly mode?: string
    readonly model?: string | null
    readonly confidence?: number
    readonly summary?: string
    readonly coverage?: DiagnoseReport["coverage"]
    readonly usage?: DiagnoseReport["usage"]
    readonly generated_at?: string
  }
}
export interface SarifLog {
  readonly $schema: string
  readonly version: "2.1.0"
  readonly runs: ReadonlyArray<SarifRun>
}

export interface SarifOptions {
  /** The tool's version; package.json's by default. */
  readonly version?: string
  /** An absolute URI where the tool is documented (the service's /docs, say); a URN naming the service by default. */
  readonly informationUri?: string
}

/** critical and high are errors, medium a warning, low and none notes (a new severity needs its level here). */
const SARIF_LEVELS: { readonly [Step in Severity]: SarifLevel } = { none: "note", low: "note", medium: "warning", high: "error", critical: "error" }
export const sarifLevel = (severity: Severity): SarifLevel => SARIF_LEVELS[severity]

const problemSeverity = (level: SarifLevel): "error" | "warning" | "recommendation" => (level === "note" ? "recommendation" : level)

/**
 * The artifact as a relative URI reference: backslashes as slashes, no leading `./` or `/`, each
 * segment percent-encoded (so a drive letter or a space cannot break the URI).
 */
export const artifactUri = (artifact: string | undefined): string => {
  const path = (artifact ?? "").trim().replace(/\\/g, "/").replace(/^(?:\.\/|\/)+/, "")
  return (path.length === 0 ? DEFAULT_ARTIFACT : path).split("/").map((segment) => encodeURIComponent(segment)).join("/")
}

/** Plain SARIF message text: brackets and backslashes escaped (they would read as embedded links, SARIF §3.11.6). */
const plain = (value: string, max: number): string => shorten(oneLine(value), max).replace(/[\\[\]]/g, (c) => `\\${c}`)

/** A sentence ends with a period (SARIF2001). */
const sentence = (value: string): string => (/[.!?…]$/.test(value) ? value : `${value}.`)

export const fingerprint = (finding: ReportFinding): string => {
  const first = finding.evidence[0]
  const source = first === undefined ? "" : first.source ?? first.ref
  return createHash("sha256").update(`${finding.pattern}\n${oneLine(finding.title)}\n${source}`).digest("hex").slice(0, 32)
}

/** A check finding's: its own fingerprint across runs (the check, tool, error class, agent) and the source it cites first. */
export const checkFingerprint = (check: CheckFinding): string => {
  return createHash("sha256").update(`${checkRuleId(check.check)}\n${check.fingerprint}\n${check.evidence[0]?.source ?? ""}`).digest("hex").slice(0, 32)
}

const pascal = (slug: string): string =>
  slug.split(/[^A-Za-z0-9]+/).filter((part) => part.length > 0).map((part) => `${part.charAt(0).toUpperCase()}${part.slice(1)}`).join("")

/** A name a person reads (SARIF §3.49.7), never the id itself: the friendly name in PascalCase. */
const ruleName = (pattern: string, friendly: string): string => {
  const name = pascal(friendly) || pascal(pattern) || "Pattern"
  return name.toLowerCase() === pattern.toLowerCase() ? `${name}Lens` : name
}

const rule = (report: DiagnoseReport, pattern: string, findings: ReadonlyArray<ReportFinding>): SarifRule => {
  const friendly = oneLine(friendlyName(report, pattern))
  const playbooks = report.patterns.find((run) => run.pattern === pattern)?.playbooks ?? []
  const interventions = report.interventions.filter((intervention) => intervention.pattern === pattern || intervention.also_from.includes(pattern))
  const level = sarifLevel(maxSeverity(findings.map((finding) => finding.severity)))
  const intro = `The ${friendly} lens reads an AI-agent trace through its framework and reports the failure modes it finds, each with verbatim evidence from the trace elements it rests on.`
  const playbookText = playbooks.length === 0
    ? "No playbook applies."
    : `Playbooks (GET /v1/patterns/${pattern}/playbooks): ${playbooks.join(", ")}.`
  const interventionText = interventions.map((intervention) =>
    `${intervention.rank}. [${intervention.type}] ${sentence(oneLine(intervention.description))} Effort ${intervention.effort}, impact ${intervention.impact}${
      intervention.playbook === null ? "" : `, playbook ${intervention.playbook}`
    }.`
  )
  const interventionMarkdown = interventions.map((intervention) =>
    `${intervention.rank}. **${escapeMarkdown(intervention.type)}** ${escapeMarkdown(intervention.description)} (effort ${intervention.effort}, impact ${intervention.impact}${
      intervention.playbook === null ? "" : `, playbook ${codeSpan(intervention.playbook)}`
    })`
  )
  return {
    id: pattern,
    name: ruleName(pattern, friendly),
    shortDescription: { text: shorten(`${friendly}: failure modes found in an agent trace.`, 1000) },
    fullDescription: { text: shorten(intro, 1000) },
    help: {
      text: [intro, playbookText, ...(interventionText.length === 0 ? [] : ["Interventions in this report:", ...interventionText])].join("\n"),
      markdown: [
        `**${escapeMarkdown(friendly)}** (${codeSpan(pattern)}) reads an AI-agent trace through its framework and reports the failure modes it finds, each with verbatim evidence from the trace elements it rests on.`,
        "",
        playbooks.length === 0
          ? "No playbook applies."
          : `**Playbooks** (\`GET /v1/patterns/${pattern}/playbooks\`): ${playbooks.map((key) => codeSpan(key)).join(", ")}`,
        ...(interventionMarkdown.length === 0 ? [] : ["", "**Interventions in this report:**", "", ...interventionMarkdown])
      ].join("\n")
    },
    defaultConfiguration: { level },
    properties: {
      tags: ["agent-trace", "pattern-analysis", pattern],
      precision: "medium",
      "problem.severity": problemSeverity(level),
      playbooks
    }
  }
}

/**
 * A check's rule (DECISIONS §23): `svc/check/<id>`, its title and rule text from the checks' registry
 * (a check the registry no longer holds: its findings' title), its default severity's level.
 */
const checkRule = (id: string, findings: ReadonlyArray<CheckFinding>): SarifRule => {
  const check = CHECKS.find((entry) => entry.id === id)
  const title = oneLine(check?.title ?? findings[0]?.title ?? id)
  const ruleText = oneLine(check?.rule ?? "")
  const playbooks = check?.playbooks ?? Array.from(new Set(findings.flatMap((finding) => (finding.playbook === null ? [] : [finding.playbook]))))
  const level = sarifLevel(check?.severity ?? maxSeverity(findings.map((finding) => finding.severity)))
  const intro = `A deterministic check over the normalized trace, no model call: ${sentence(title)}`
  const playbookText = playbooks.length === 0
    ? "No playbook applies."
    : `Playbooks (GET /v1/patterns/{pattern}/playbooks): ${playbooks.join(", ")}.`
  return {
    id: checkRuleId(id),
    name: pascal(id) || "Check",
    shortDescription: { text: shorten(sentence(title), 1000) },
    fullDescription: { text: shorten(ruleText.length === 0 ? intro : sentence(ruleText), 1000) },
    help: {
      text: [intro, ...(ruleText.length === 0 ? [] : [`Rule: ${sentence(ruleText)}`]), playbookText].join("\n"),
      markdown: [
        `**${escapeMarkdown(title)}** (${codeSpan(id)}): a deterministic check over the normalized trace, no model call.`,
        ...(ruleText.length === 0 ? [] : ["", `**Rule:** ${escapeMarkdown(ruleText)}`]),
        "",
        playbooks.length === 0 ? "No playbook applies." : `**Playbooks:** ${playbooks.map((key) => codeSpan(key)).join(", ")}`
      ].join("\n")
    },
    defaultConfiguration: { level },
    properties: {
      tags: ["agent-trace", "check", id],
      precision: "high",
      "problem.severity": problemSeverity(level),
      playbooks
    }
  }
}

/** Locations in one artifact: at the line of each cited source the trace file's text shows, line 1 otherwise. */
const locator = (uri: string, lines: ReadonlyMap<string, number>) => {
  const element = (name: string): SarifLogicalLocation => ({ name, fullyQualifiedName: name, kind: "element" })
  return (ref: string, source: string | undefined, id?: number, message?: string): SarifLocation => ({
    ...(id === undefined ? {} : { id }),
    physicalLocation: { artifactLocation: { uri, index: 0 }, region: { startLine: lines.get(source ?? ref) ?? 1 } },
    logicalLocations: source === undefined || source === ref ? [element(ref)] : [element(ref), element(source)],
    ...(message === undefined ? {} : { message: { text: message } })
  })
}

/** The checks' rules, in the order their findings come (first in the run), and one result per finding. */
const checkRulesAndResults = (
  checks: ReadonlyArray<CheckFinding>,
  decisive: DiagnoseReport["decisive_step"],
  location: ReturnType<typeof locator>,
  lines: ReadonlyMap<string, number>
): { readonly rules: ReadonlyArray<SarifRule>; readonly results: ReadonlyArray<SarifResult> } => {
  const ids: Array<string> = []
  for (const check of checks) if (!ids.includes(check.check)) ids.push(check.check)
  const rules = ids.map((id) => checkRule(id, checks.filter((check) => check.check === id)))
  const results = checks.map((check): SarifResult => {
    const located = check.evidence.findIndex((evidence) => lines.has(evidence.source))
    const primaryIndex = located >= 0 ? located : 0
    const primary = check.evidence[primaryIndex]
    const others = check.evidence.filter((_, index) => index !== primaryIndex).slice(0, 9)
    const shown = (evidence: CheckFinding["evidence"][number]) =>
      evidence.quote === null ? plain(checkEvidenceText(evidence), 300) : `“${plain(evidence.quote, 300)}”`
    const related = others.map((evidence, index) => location(evidence.ref, evidence.source, index + 1, sentence(shown(evidence))))
    const alsoText = related.length === 0
      ? ""
      : ` Also cited: ${others.map((evidence, index) => `[${plain(evidence.source, 120)}](${index + 1})`).join(", ")}.`
    const hash = checkFingerprint(check)
    return {
      ruleId: checkRuleId(check.check),
      ruleIndex: ids.indexOf(check.check),
      level: sarifLevel(check.severity),
      // deterministic: a check that fires is certain of what it read
      rank: 100,
      message: {
        text: `${sentence(plain(check.title, 300))} ${sentence(plain(check.explanation, 1500))}${
          primary === undefined ? "" : ` Evidence: ${shown(primary)} (${plain(primary.source, 200)}).`
        }${alsoText}`
      },
      locations: [primary === undefined ? location("trace", undefined) : location(primary.ref, primary.source)],
      ...(related.length === 0 ? {} : { relatedLocations: related }),
      partialFingerprints: { [FINGERPRINT_KEY]: hash, primaryLocationLineHash: hash },
      properties: {
        check: check.check,
        severity: check.severity,
        fingerprint: check.fingerprint,
        playbook: check.playbook,
        decisive: decisive !== null && decisive.checks.includes(check.check) && check.evidence.some((evidence) => evidence.event === decisive.event)
      }
    }
  })
  return { rules, results }
}

/** The trace file's line of each source cited, from its text (or the lines a stored run kept). */
const linesOf = (context: ReportContext, sources: ReadonlyArray<string>): ReadonlyMap<string, number> =>
  context.lines ?? (context.body === undefined ? new Map<string, number>() : locateLines(context.body, sources))

const driverOf = (rules: ReadonlyArray<SarifRule>, options: SarifOptions): SarifRun["tool"] => {
  const version = options.version ?? packageJson.version
  return {
    driver: {
      name: SERVICE_NAME,
      version,
      semanticVersion: version,
      informationUri: options.informationUri ?? `urn:${SERVICE_NAME}`,
      rules
    }
  }
}

/**
 * The SARIF log of the checks alone (`svc check`): one run per trace file, each with a rule per
 * check that fired and a result per finding, its category (`automationDetails`) named by the file.
 */
export const renderChecksSarif = (
  files: ReadonlyArray<{ readonly result: ChecksResponse; readonly context: ReportContext }>,
  options: SarifOptions = {}
): SarifLog => ({
  $schema: SARIF_SCHEMA,
  version: "2.1.0",
  runs: files.map(({ context, result }): SarifRun => {
    const uri = artifactUri(context.artifact)
    const lines = linesOf(context, result.checks.flatMap((check) => check.evidence.map((evidence) => evidence.source)))
    const checked = checkRulesAndResults(result.checks, result.decisive_step, locator(uri, lines), lines)
    return {
      tool: driverOf(checked.rules, options),
      automationDetails: { id: `${SERVICE_NAME}/check/${uri}/` },
      artifacts: [{ location: { uri }, mimeType: "application/json" }],
      invocations: [{ executionSuccessful: true, toolExecutionNotifications: [] }],
      results: checked.results,
      properties: { trace: result.trace, severity: result.severity, decisive_step: result.decisive_step }
    }
  })
})

/** The SARIF log of a diagnose report: the checks' rules and results first, then the lenses'. */
export const renderSarif = (report: DiagnoseReport, context: ReportContext, options: SarifOptions = {}): SarifLog => {
  const uri = artifactUri(context.artifact)
  const sources = [
    ...report.checks.flatMap((check) => check.evidence.map((evidence) => evidence.source)),
    ...report.findings.flatMap((finding) => finding.evidence.map((evidence) => evidence.source ?? evidence.ref))
  ]
  const lines = linesOf(context, sources)
  const location = locator(uri, lines)
  const decisive = report.decisive_step
  const checked = checkRulesAndResults(report.checks, decisive, location, lines)

  const patterns: Array<string> = []
  for (const run of report.patterns) if (report.findings.some((finding) => finding.pattern === run.pattern)) patterns.push(run.pattern)
  for (const finding of report.findings) if (!patterns.includes(finding.pattern)) patterns.push(finding.pattern)
  const rules = [...checked.rules, ...patterns.map((pattern) => rule(report, pattern, report.findings.filter((finding) => finding.pattern === pattern)))]

  const lensResults = report.findings.map((finding): SarifResult => {
    const ruleIndex = checked.rules.length + patterns.indexOf(finding.pattern)
    const located = finding.evidence.findIndex((evidence) => lines.has(evidence.source ?? evidence.ref))
    const primaryIndex = located >= 0 ? located : 0
    const primary = finding.evidence[primaryIndex]
    const others = finding.evidence.filter((_, index) => index !== primaryIndex).slice(0, 9)
    const related = others.map((evidence, index) =>
      location(evidence.ref, evidence.source, index + 1, sentence(`“${plain(evidence.quote, 300)}”`))
    )
    const evidenceText = primary === undefined ? "" : ` Evidence: “${plain(primary.quote, 300)}” (${plain(primary.source ?? primary.ref, 200)}).`
    const alsoText = related.length === 0
      ? ""
      : ` Also cited: ${others.map((evidence, index) => `[${plain(evidence.source ?? evidence.ref, 120)}](${index + 1})`).join(", ")}.`
    const corroborated = finding.corroborated_by.length === 0 ? "" : ` Corroborated by ${finding.corroborated_by.join(", ")}.`
    const hash = fingerprint(finding)
    return {
      ruleId: finding.pattern,
      ruleIndex,
      level: sarifLevel(finding.severity),
      rank: Math.round(finding.confidence * 1000) / 10,
      message: {
        text: `${sentence(plain(finding.title, 300))} ${sentence(plain(finding.explanation, 1500))}${evidenceText}${alsoText}${corroborated}`
      },
      locations: [
        primary === undefined
          ? location("trace", undefined)
          : location(primary.ref, primary.source)
      ],
      ...(related.length === 0 ? {} : { relatedLocations: related }),
      // Our own line hash too: the upload-sarif action computes one from the file's text only when
      // it is missing, and a text-based hash would change whenever the trace file does.
      partialFingerprints: { [FINGERPRINT_KEY]: hash, primaryLocationLineHash: hash },
      properties: {
        pattern: finding.pattern,
        finding: finding.id,
        severity: finding.severity,
        confidence: finding.confidence,
        corroborated_by: finding.corroborated_by,
        playbook: finding.playbook,
        decisive: decisive !== null && finding.evidence.some((evidence) => evidence.event === decisive.event) &&
          decisive.patterns.includes(finding.pattern)
      }
    }
  })

  const notifications = report.patterns.flatMap((run): Array<SarifNotification> =>
    run.error === null
      ? []
      : [{
        level: "warning",
        message: { text: sentence(plain(`The ${run.pattern} lens did not run to the end (${run.error.kind}): ${run.error.message}`, 1000)) },
        properties: { pattern: run.pattern, kind: run.error.kind }
      }]
  )

  return {
    $schema: SARIF_SCHEMA,
    version: "2.1.0",
    runs: [{
      tool: driverOf(rules, options),
      automationDetails: { id: `${SERVICE_NAME}/diagnose/${uri}/` },
      artifacts: [{ location: { uri }, mimeType: "application/json" }],
      invocations: [{ executionSuccessful: true, toolExecutionNotifications: notifications }],
      results: [...checked.results, ...lensResults],
      properties: {
        trace: report.trace,
        mode: report.mode,
        model: report.model,
        severity: report.severity,
        confidence: report.confidence,
        summary: report.summary,
        decisive_step: report.decisive_step,
        coverage: report.coverage,
        usage: report.usage,
        generated_at: report.generated_at
      }
    }]
  }
}
