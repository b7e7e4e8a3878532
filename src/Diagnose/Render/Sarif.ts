/**
 * The diagnose report as SARIF 2.1.0 (DECISIONS §13, `?output=sarif`), for GitHub code scanning
 * and any SARIF viewer. One run; one rule per pattern that has findings; one result per finding,
 * located in the trace file the client holds (`?artifact=PATH`, `trace.json` by default) at the
 * line of the cited element when the request body (the trace file's text) shows where it is,
 * line 1 otherwise (GitHub requires a physical location). It follows GitHub's subset: rules with
 * short and full descriptions and help, results with a relative artifact URI, a start line and
 * `partialFingerprints` that stay the same across runs (pattern, finding title and cited source),
 * so re-uploads update alerts instead of duplicating them.
 */
import { createHash } from "node:crypto"
import packageJson from "../../../package.json" with { type: "json" }
import type { Severity } from "../../Catalogue/Severity.js"
import type { DiagnoseReport, ReportContext, ReportFinding } from "../../Contract/DiagnoseReport.js"
import { friendlyName, maxSeverity, oneLine, SERVICE_NAME, shorten } from "./Common.js"
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
export interface SarifResult {
  readonly ruleId: string
  readonly ruleIndex: number
  readonly level: SarifLevel
  readonly rank: number
  readonly message: SarifText
  readonly locations: ReadonlyArray<SarifLocation>
  readonly relatedLocations?: ReadonlyArray<SarifLocation>
  readonly partialFingerprints: Readonly<Record<string, string>>
  readonly properties: {
    readonly pattern: string
    readonly finding: string
    readonly severity: Severity
    readonly confidence: number
    readonly corroborated_by: ReadonlyArray<string>
    readonly playbook: string | null
    readonly decisive: boolean
  }
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
    readonly mode: string
    readonly model: string | null
    readonly severity: Severity
    readonly confidence: number
    readonly summary: string
    readonly decisive_step: DiagnoseReport["decisive_step"]
    readonly coverage: DiagnoseReport["coverage"]
    readonly usage: DiagnoseReport["usage"]
    readonly generated_at: string
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

/** The SARIF log of a diagnose report. */
export const renderSarif = (report: DiagnoseReport, context: ReportContext, options: SarifOptions = {}): SarifLog => {
  const version = options.version ?? packageJson.version
  const uri = artifactUri(context.artifact)
  const sources = report.findings.flatMap((finding) => finding.evidence.map((evidence) => evidence.source ?? evidence.ref))
  const lines = context.lines ?? (context.body === undefined ? new Map<string, number>() : locateLines(context.body, sources))

  const patterns: Array<string> = []
  for (const run of report.patterns) if (report.findings.some((finding) => finding.pattern === run.pattern)) patterns.push(run.pattern)
  for (const finding of report.findings) if (!patterns.includes(finding.pattern)) patterns.push(finding.pattern)
  const rules = patterns.map((pattern) => rule(report, pattern, report.findings.filter((finding) => finding.pattern === pattern)))

  const element = (name: string): SarifLogicalLocation => ({ name, fullyQualifiedName: name, kind: "element" })
  const location = (ref: string, source: string | undefined, id?: number, message?: string): SarifLocation => ({
    ...(id === undefined ? {} : { id }),
    physicalLocation: { artifactLocation: { uri, index: 0 }, region: { startLine: lines.get(source ?? ref) ?? 1 } },
    logicalLocations: source === undefined || source === ref ? [element(ref)] : [element(ref), element(source)],
    ...(message === undefined ? {} : { message: { text: message } })
  })

  const decisive = report.decisive_step
  const results = report.findings.map((finding): SarifResult => {
    const ruleIndex = patterns.indexOf(finding.pattern)
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
      tool: {
        driver: {
          name: SERVICE_NAME,
          version,
          semanticVersion: version,
          informationUri: options.informationUri ?? `urn:${SERVICE_NAME}`,
          rules
        }
      },
      automationDetails: { id: `${SERVICE_NAME}/diagnose/${uri}/` },
      artifacts: [{ location: { uri }, mimeType: "application/json" }],
      invocations: [{ executionSuccessful: true, toolExecutionNotifications: notifications }],
      results,
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
