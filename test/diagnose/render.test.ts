/**
 * The four non-JSON renderings of the diagnose report (DECISIONS §13) on two hand-written reports
 * (test/diagnose/sample-report.ts): Markdown (sections, escaping), SARIF 2.1.0 (Microsoft's
 * validator with its GitHub rules, lines of the cited elements, stable fingerprints), HTML (in
 * headless Chromium with JavaScript off: timeline, decisive step, finding pins, no request, no
 * injected markup; the screenshot in docs/images) and OTLP/JSON logs (gen_ai.evaluation.result
 * records, AnyValue shapes, span linking). The checks' findings (DECISIONS §23) in each, before
 * the lenses', quoted or described (a content-free event); and `svc check`'s renderings of the
 * checks alone (Markdown, SARIF, OTLP).
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type Browser, chromium } from "playwright-core"
import type { Severity } from "../../src/Catalogue/Severity.js"
import { CHECKS } from "../../src/Checks/Registry.js"
import type { CheckFinding } from "../../src/Contract/ChecksContract.js"
import type { ChecksResponse } from "../../src/Contract/DiagnoseContract.js"
import type { DiagnoseReport } from "../../src/Contract/DiagnoseReport.js"
import { escapeHtml, MAX_EVENTS, renderHtml, shownEvents } from "../../src/Diagnose/Render/Html.js"
import { locateLines, parseSource } from "../../src/Diagnose/Render/JsonLines.js"
import { codeSpan, escapeMarkdown, renderChecksMarkdown, renderMarkdown } from "../../src/Diagnose/Render/Markdown.js"
import { renderChecksOtlp, renderOtlp, severityNumber } from "../../src/Diagnose/Render/Otlp.js"
import type { AnyValue } from "../../src/Otlp/Wire/Model.js"
import { artifactUri, FINGERPRINT_KEY, renderChecksSarif, renderSarif } from "../../src/Diagnose/Render/Sarif.js"
import { verdictOf } from "../../src/Problems/Verdict.js"
import { validateSarif } from "../support/Sarif.js"
import { requireTool } from "../support/Tools.js"
import { quantizePng } from "./png.js"
import { chatBody, chatSample, chatWithFinding, HOSTILE, OTEL_TRACE_ID, otelBody, otelSample, type Sample, SPANS } from "./sample-report.js"

const root = join(import.meta.dirname, "..", "..")

/** The 1-based line of the first line of `text` that contains `needle`. */
const lineOf = (text: string, needle: string): number => {
  const index = text.split("\n").findIndex((line) => line.includes(needle))
  if (index < 0) throw new Error(`${needle} is not in the text`)
  return index + 1
}

/** The otel sample with hostile strings wherever a model or a trace writes text. */
const MD_HOSTILE = "# Owned | col `tick` [link](http://evil.example) ![img](http://evil.example/x.png) @octocat **bold** &amp; _em_ <b>b</b>"
const hostileSample = (): Sample => {
  const { report, context } = otelSample
  const [first, ...rest] = report.findings
  if (first === undefined) throw new Error("the otel sample has findings")
  return {
    report: {
      ...report,
      summary: `${MD_HOSTILE} ${HOSTILE}`,
      findings: [
        {
          ...first,
          title: `${MD_HOSTILE} ${HOSTILE}`,
          explanation: `1. ${MD_HOSTILE}\n\n- ${HOSTILE}`,
          evidence: first.evidence.map((evidence) => ({ ...evidence, actor: HOSTILE }))
        },
        ...rest
      ],
      triage: report.triage.map((entry, i) => (i === 0 ? { ...entry, reasons: [MD_HOSTILE], skipped: `a | b ${HOSTILE}` } : entry)),
      patterns: report.patterns.map((run) => (run.error === null ? run : { ...run, error: { kind: "timeout", message: `${MD_HOSTILE} ${HOSTILE}` } }))
    },
    context: {
      ...context,
      events: context.events.map((event, i) => (i === 0 ? { ...event, actor: HOSTILE, content: `${HOSTILE}\n${MD_HOSTILE}` } : event))
    }
  }
}

/** The otel sample's check finding (tool_error_unrecovered on verify_counts). */
const sampleCheck = (): CheckFinding => {
  const [check] = otelSample.report.checks
  if (check === undefined) throw new Error("the otel sample has a check finding")
  return check
}

/** A check finding on an event without content, as the checks write it for a content-free trace. */
const CONTENT_FREE_CHECK: CheckFinding = {
  check: "tool_error_unrecovered",
  title: "A tool failed and the run carried on as if it had not",
  severity: "medium",
  explanation: "get_weather failed at events[2] (status error 503); it was not called again successfully, and the run has no answer that mentions the failure.",
  playbook: "lewin/environmental.tool_failure_unhandled",
  fingerprint: "88fd0e69aeb9174a",
  evidence: [{ ref: "events[2]", quote: null, describes: "tool_result get_weather, status error 503", source: `span:${SPANS.verify}`, event: 7, actor: "get_weather" }]
}

/** The checks alone on the otel sample, as POST /v1/checks answers: the check's earliest event (the verify_counts call) decisive. */
const checksAnswer = (): ChecksResponse => {
  const { report, context } = otelSample
  const call = context.events[6]
  if (call === undefined) throw new Error("the otel sample has event 6")
  return {
    trace: report.trace,
    severity: "high",
    checks: report.checks,
    decisive_step: {
      event: 6,
      source: call.source,
      actor: call.actor,
      kind: "tool_call",
      timestamp: call.timestamp ?? null,
      content: call.content,
      severity: "high",
      patterns: [],
      findings: [sampleCheck().title],
      checks: ["tool_error_unrecovered"]
    }
  }
}

// ---------------------------------------------------------------------------------------------

describe("Markdown", () => {
  const markdown = renderMarkdown(otelSample.report, otelSample.context)

  it("has the title, the trace, the summary and every section", () => {
    expect(markdown.startsWith("# Diagnose: CRITICAL — Migrate the orders table to the v2 schema")).toBe(true)
    expect(markdown).toContain(`- **Trace:** otel, id \`${OTEL_TRACE_ID}\`, 13 events, agents: orchestrator, migrator, reviewer`)
    expect(markdown).toContain("- **Success:** not stated")
    expect(markdown).toContain("- **Outcome:** Migration finished and reviewed: orders_v2 is ready for cut-over.")
    const headings = markdown.split("\n").filter((line) => line.startsWith("#"))
    expect(headings).toEqual([
      "# Diagnose: CRITICAL — Migrate the orders table to the v2 schema and confirm the row counts match before cut-over.",
      "## Summary",
      "## Decisive step",
      "## Checks (1)",
      "### 1. A tool failed and the run carried on as if it had not",
      "## Findings (3)",
      "### Critical (1)",
      "#### 1. Migrator reported a clean migration after a tool warning",
      "### High (1)",
      "#### 2. A failed verification was left out of the report",
      "### Medium (1)",
      "#### 3. Cut-over approved without evidence",
      "## Interventions (3, ranked)",
      "## Patterns run",
      "## Triage",
      "## Coverage and usage"
    ])
    expect(markdown).not.toMatch(/\n\n\n/)
  })

  it("tells the decisive step: who, when, what, where, which lenses", () => {
    expect(markdown).toContain("- **Who:** run_sql")
    expect(markdown).toContain("- **When:** 2026-11-23T18:31:17.500Z")
    expect(markdown).toMatch(/- \*\*What:\*\* tool result — “INSERT 0 43106 WARNING: 1204 rows skipped/)
    expect(markdown).toContain(`- **Where:** \`span:${SPANS.runSql}\` (event 5)`)
    expect(markdown).toContain("- **Lenses:** `lencioni` — Migrator reported a clean migration after a tool warning")
  })

  it("lists findings with evidence, sources and corroboration, then interventions, patterns, triage and usage", () => {
    expect(markdown).toContain("`lencioni` (Lencioni Five Dysfunctions) · severity critical · confidence 92% · playbook `absence_of_trust.hidden_errors`")
    expect(markdown).toContain(`  - “Migration complete: all 44,310 rows converted.” — \`steps[8]\`, at \`span:${SPANS.migrator}/output[0]\`, event 8, by migrator`)
    expect(markdown).toContain("- Corroborated by: `psych_safety`")
    expect(markdown).toContain("- Corroborated by: no other lens")
    expect(markdown).toContain("1. **scaffold** — Give every agent report a structured status block")
    expect(markdown).toContain("   - Effort low, impact high · playbook `absence_of_trust.hidden_errors` · from `lencioni` · also from `psych_safety`")
    expect(markdown).toContain("| `psych_safety` Edmondson Psychological Safety | cache hit | yes | 1 | `silence.unreported_failure` | — |")
    expect(markdown).toContain(
      "| `social_loafing` Social Loafing Detector | failed (timeout) | no | 0 | `free_riding.unchecked_delegation` | timeout: the model did not answer within 60 s (SVC_LLM_TIMEOUT_MS) |"
    )
    expect(markdown).toContain("| `span_of_control` Span of Control | 0.41 | no | one coordinator, two reports | max_patterns (4) reached |")
    expect(markdown).toContain("- **Model calls:** 3 · **tokens:** 18,420 in (12,800 from the provider's prompt cache) / 2,310 out")
    expect(markdown).toContain("- **Elapsed:** 14.3 s")
    expect(markdown).toContain("- **Estimated tokens:** 24,000 of a 40,000 budget")
    expect(markdown).toContain("- **Events:** 13 in the trace, 4 cited by a finding")
  })

  it("shows the checks before the lenses' findings: title, id, severity, explanation, the quoted evidence and where it is", () => {
    expect(markdown).toContain("**Checks:** 1 · **Findings:** 3")
    const checks = markdown.slice(markdown.indexOf("## Checks (1)"), markdown.indexOf("## Findings (3)"))
    expect(checks).toContain("`tool_error_unrecovered` · severity high · playbook `lewin/environmental.tool_failure_unhandled`")
    expect(checks).toContain("verify_counts failed at events\\[7\\] (verify_counts timed out after 30 s); it was not called again successfully")
    expect(checks).toContain(`  - “verify_counts timed out after 30 s” — \`events[7]\`, at \`span:${SPANS.verify}\`, event 7, by verify_counts`)
    expect(checks).toContain(`  - “Migration finished and reviewed: orders_v2 is ready for cut-over.” — \`events[12]\`, at \`span:${SPANS.orchestrator}/output[0]\`, event 12, by orchestrator`)
    // A content-free event is described, not quoted.
    const bare = renderMarkdown({ ...otelSample.report, checks: [CONTENT_FREE_CHECK] }, otelSample.context)
    expect(bare).toContain(`  - tool_result get_weather, status error 503 (no content) — \`events[2]\`, at \`span:${SPANS.verify}\`, event 7, by get_weather`)
    expect(bare).not.toContain("“tool_result get_weather")
  })

  it("names the checks citing the decisive step, and renders the checks alone (svc check)", () => {
    const answer = checksAnswer()
    const out = renderChecksMarkdown(answer, { events: [], artifact: "traces/orders-migration.otlp.json", body: undefined })
    expect(out.split("\n").filter((line) => line.startsWith("#"))).toEqual([
      "# Checks: HIGH — Migrate the orders table to the v2 schema and confirm the row counts match before cut-over.",
      "## Decisive step",
      "## Checks (1)",
      "### 1. A tool failed and the run carried on as if it had not"
    ])
    expect(out).toContain("**Severity:** high · **Checks fired:** 1")
    expect(out).toContain("- **File:** `traces/orders-migration.otlp.json`")
    expect(out).toContain("- **Checks:** `tool_error_unrecovered` — A tool failed and the run carried on as if it had not")
    expect(out).not.toContain("- **Lenses:**")
    expect(out).toContain(`- **Where:** \`span:${SPANS.verify}\` (event 6)`)
    expect(out).toContain("no lens ran and no model was called")
    const none = renderChecksMarkdown({ ...answer, severity: "none", checks: [], decisive_step: null }, { events: [], artifact: undefined, body: undefined })
    expect(none).toContain("No check fired: the deterministic checks found nothing in this trace.")
    expect(none).toContain("None: no check finding or verified lens finding cites an element of the trace.")
  })

  it("shortens long quotes", () => {
    const { report, context } = otelSample
    const long = "x".repeat(2000)
    const step = report.decisive_step
    if (step === null) return expect.fail("the otel sample has a decisive step")
    const out = renderMarkdown({ ...report, decisive_step: { ...step, content: long } }, context)
    const what = out.split("\n").find((line) => line.startsWith("- **What:**")) ?? ""
    expect(what.length).toBeLessThan(400)
    expect(what).toContain("…”")
  })

  it("escapes user content: no heading, HTML, link, image, mention or extra table cell comes through", () => {
    const { report, context } = hostileSample()
    const out = renderMarkdown(report, context)
    expect(out).not.toMatch(/(^|[^\\])<(script|img|b)\b/)
    expect(out).not.toMatch(/(^|[^\\])\[link\]\(/)
    expect(out).not.toMatch(/(^|[^\\])!\[img\]/)
    expect(out).not.toMatch(/(^|[^\\])@octocat/)
    // No bare URL GitHub would make a link of: each sits in a code span.
    expect(out).not.toMatch(/(^|[^`])https?:\/\//)
    expect(out).not.toMatch(/^#+ Owned/m)
    expect(out).not.toMatch(/^1\. # Owned/m)
    expect(out).toContain("\\<script\\>alert(1)\\</script\\>\"\\>\\<img src=x onerror=alert(1)\\>")
    expect(out).toContain("\\# Owned \\| col \\`tick\\` \\[link\\](`http://evil.example`) !\\[img\\](`http://evil.example/x.png`) \\@octocat \\*\\*bold\\*\\* \\&amp; \\_em\\_ \\<b\\>b\\</b\\>")
    // Every table row keeps its header's column count: no pipe but the separators is unescaped.
    const cells = (line: string) => line.replace(/\\\|/g, "").split("|").length
    const lines = out.split("\n")
    let tables = 0
    lines.forEach((line, i) => {
      if (!line.startsWith("|") || lines[i - 1]?.startsWith("|")) return
      tables += 1
      const rows = lines.slice(i, lines.findIndex((candidate, j) => j > i && !candidate.startsWith("|")))
      expect(rows.length).toBeGreaterThan(2)
      for (const row of rows) expect(cells(row), row).toBe(cells(line))
    })
    expect(tables).toBe(2)
    // The explanation's "1." and "-" cannot start a list.
    expect(out).toContain("1\\. # Owned")
  })

  it("escapes inline text and builds code spans that hold any text", () => {
    expect(escapeMarkdown("## title")).toBe("\\## title")
    expect(escapeMarkdown("- item")).toBe("\\- item")
    expect(escapeMarkdown("12. item")).toBe("12\\. item")
    expect(escapeMarkdown("get_weather and _em_")).toBe("get_weather and \\_em\\_")
    expect(escapeMarkdown("a\n\n# b")).toBe("a # b")
    // GitHub's extended autolinks: a trace's URLs and addresses are shown, never made links.
    expect(escapeMarkdown("see https://evil.example/x?a=1 now")).toBe("see `https://evil.example/x?a=1` now")
    expect(escapeMarkdown("go to www.evil.example.")).toBe("go to `www.evil.example`.")
    expect(escapeMarkdown("mail alice@example.com or mailto:bob@example.org")).toBe("mail `alice@example.com` or `mailto:bob@example.org`")
    expect(escapeMarkdown("ftp://files.example/a|b")).toBe("`ftp://files.example/a`\\|b")
    expect(escapeMarkdown("ping @octocat")).toBe("ping \\@octocat")
    const long = "a".repeat(200_000)
    expect(escapeMarkdown(long)).toBe(long)
    expect(codeSpan("a`b")).toBe("``a`b``")
    expect(codeSpan("`x`")).toBe("`` `x` ``")
    expect(codeSpan("a|b", true)).toBe("`a\\|b`")
  })

  it("renders a report without findings or decisive step", () => {
    const out = renderMarkdown(chatSample.report, chatSample.context)
    expect(out).toContain("# Diagnose: NONE — Where is my order #5521? It was due yesterday.")
    expect(out).toContain("None: no check finding or verified lens finding cites an element of the trace.")
    expect(out).toContain("## Checks\n\nNo check fired")
    expect(out).toContain("No findings: none of the lenses that ran found a failure mode in this trace.")
    expect(out).toContain("## Interventions\n\nNone proposed.")
    expect(out).toContain("- **Estimated tokens:** 4,000 (no budget set)")
  })
})

// ---------------------------------------------------------------------------------------------


/** Microsoft's SARIF multitool `validate`, with the SARIF rules and GitHub's (rule kind Gh). */

describe("SARIF", () => {
  const log = renderSarif(otelSample.report, otelSample.context)
  const run = log.runs[0]

  it("passes Microsoft's SARIF validator, GitHub rules included, for both samples", async () => {
    for (const [name, sample] of [["otel", otelSample], ["chat", chatSample], ["chat-finding", chatWithFinding()]] as const) {
      const validation = await validateSarif(renderSarif(sample.report, sample.context), name)
      if (validation.warnings.length > 0) console.info(`sarif-multitool warnings (${name}):\n${validation.warnings.join("\n")}`)
      expect(validation.errors, validation.output).toEqual([])
    }
  })

  it("the validator check is not vacuous: a rule without the descriptions GitHub requires fails it", async () => {
    const broken = JSON.stringify(log).replace(/"shortDescription"/g, "\"summary\"")
    const validation = await validateSarif(broken, "broken")
    expect(validation.errors.some((error) => error.includes("GH2012"))).toBe(true)
  })

  it("svc check's SARIF (a run per file, a content-free check among them) passes the validator too", async () => {
    const answer = checksAnswer()
    const log = renderChecksSarif([
      { result: answer, context: otelSample.context },
      { result: { ...answer, severity: "medium", checks: [CONTENT_FREE_CHECK], decisive_step: null }, context: { ...otelSample.context, artifact: "traces/no-content.otlp.json" } }
    ])
    const validation = await validateSarif(log, "checks")
    expect(validation.errors, validation.output).toEqual([])
    expect(log.runs.map((each) => each.automationDetails.id)).toEqual([
      "pattern-analysis-service/check/traces/orders-migration.otlp.json/",
      "pattern-analysis-service/check/traces/no-content.otlp.json/"
    ])
    expect(log.runs.map((each) => each.results.map((result) => [result.ruleId, result.level]))).toEqual([
      [["svc/check/tool_error_unrecovered", "error"]],
      [["svc/check/tool_error_unrecovered", "warning"]]
    ])
    expect(log.runs[0]?.results[0]?.properties).toMatchObject({ check: "tool_error_unrecovered", decisive: true })
    expect(log.runs[1]?.results[0]?.message.text).toContain("Evidence: tool_result get_weather, status error 503 (span:")
  })

  it("one rule per check that fired, svc/check/<id>, its title and rule from the registry; a result per check finding at its cited span", () => {
    if (run === undefined) return expect.fail("no run")
    const [rule] = run.tool.driver.rules
    const registered = CHECKS.find((check) => check.id === "tool_error_unrecovered")
    if (registered === undefined) return expect.fail("tool_error_unrecovered is in the registry")
    expect(rule).toMatchObject({
      id: "svc/check/tool_error_unrecovered",
      name: "ToolErrorUnrecovered",
      shortDescription: { text: `${registered.title}.` },
      defaultConfiguration: { level: "error" },
      properties: { tags: ["agent-trace", "check", "tool_error_unrecovered"], playbooks: registered.playbooks }
    })
    expect(rule?.fullDescription.text).toBe(registered.rule)
    expect(rule?.help.text).toContain(`Rule: ${registered.rule}`)
    expect(rule?.help.markdown).toContain("`lewin/environmental.tool_failure_unhandled`")
    const [check] = run.results
    expect(check).toMatchObject({ ruleId: "svc/check/tool_error_unrecovered", ruleIndex: 0, level: "error", rank: 100 })
    expect(check?.locations[0]?.physicalLocation.region.startLine).toBe(lineOf(otelBody, `"spanId": "${SPANS.verify}"`))
    expect(check?.relatedLocations?.map((location) => location.physicalLocation.region.startLine)).toEqual([
      lineOf(otelBody, `"spanId": "${SPANS.verify}"`),
      lineOf(otelBody, `"spanId": "${SPANS.orchestrator}"`)
    ])
    expect(check?.message.text).toMatch(/^A tool failed and the run carried on as if it had not\. verify_counts failed at events\\\[7\\\]/)
    expect(check?.message.text).toContain("Evidence: “verify_counts timed out after 30 s”")
    // Not decisive: the lencioni finding at critical is.
    expect(check?.properties).toMatchObject({ check: "tool_error_unrecovered", severity: "high", fingerprint: "3ddf5ca677ebdb43", decisive: false })
  })

  it("describes the tool and one rule per pattern with findings", () => {
    expect(log.$schema).toBe("https://json.schemastore.org/sarif-2.1.0.json")
    expect(log.version).toBe("2.1.0")
    expect(log.runs).toHaveLength(1)
    if (run === undefined) return expect.fail("no run")
    const version: unknown = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).version
    expect(run.tool.driver).toMatchObject({ name: "pattern-analysis-service", version, semanticVersion: version })
    expect(run.tool.driver.rules.map((rule) => rule.id)).toEqual(["svc/check/tool_error_unrecovered", "lencioni", "psych_safety", "group_decision"])
    const [, lencioni, psych, group] = run.tool.driver.rules
    expect(lencioni?.name).toBe("LencioniFiveDysfunctions")
    expect(lencioni?.defaultConfiguration.level).toBe("error")
    expect(group?.defaultConfiguration.level).toBe("warning")
    expect(lencioni?.help.text).toContain("absence_of_trust.hidden_errors, fear_of_conflict.artificial_harmony")
    expect(lencioni?.help.text).toContain("1. [scaffold] Give every agent report a structured status block")
    // The intervention lencioni proposed with psych_safety shows in both rules' help.
    expect(psych?.help.markdown).toContain("**scaffold**")
    expect(psych?.help.markdown).toContain("`silence.unreported_failure`")
    expect(run.invocations[0]?.toolExecutionNotifications).toEqual([
      expect.objectContaining({ level: "warning", properties: { pattern: "social_loafing", kind: "timeout" } })
    ])
  })

  it("has one result per finding, at the line of the cited span in the trace file", () => {
    if (run === undefined) return expect.fail("no run")
    expect(run.results.map((result) => [result.ruleId, result.ruleIndex, result.level])).toEqual([
      ["svc/check/tool_error_unrecovered", 0, "error"],
      ["lencioni", 1, "error"],
      ["psych_safety", 2, "error"],
      ["group_decision", 3, "warning"]
    ])
    const spanLine = (id: string) => lineOf(otelBody, `"spanId": "${id}"`)
    const lensResults = run.results.slice(1)
    const primary = lensResults.map((result) => result.locations[0]?.physicalLocation.region.startLine)
    expect(primary).toEqual([spanLine(SPANS.runSql), spanLine(SPANS.verify), spanLine(SPANS.reviewer)])
    expect(new Set(primary).size).toBe(3)
    expect(primary.every((line) => line !== undefined && line > 1)).toBe(true)
    const [lencioni] = lensResults
    expect(lencioni?.locations[0]?.physicalLocation.artifactLocation.uri).toBe("traces/orders-migration.otlp.json")
    expect(lencioni?.locations[0]?.logicalLocations).toEqual([
      { name: "steps[5]", fullyQualifiedName: "steps[5]", kind: "element" },
      { name: `span:${SPANS.runSql}`, fullyQualifiedName: `span:${SPANS.runSql}`, kind: "element" }
    ])
    expect(lencioni?.relatedLocations?.map((location) => [location.id, location.physicalLocation.region.startLine])).toEqual([[1, spanLine(SPANS.migrator)]])
    expect(lencioni?.message.text).toContain(`Also cited: [span:${SPANS.migrator}/output\\[0\\]](1).`)
    expect(lencioni?.properties).toMatchObject({ pattern: "lencioni", confidence: 0.92, corroborated_by: ["psych_safety"], decisive: true })
    expect(run.results.every((result) => result.message.text.endsWith("."))).toBe(true)
  })

  it("keeps fingerprints stable across runs and distinct across findings", () => {
    if (run === undefined) return expect.fail("no run")
    const prints = run.results.map((result) => result.partialFingerprints[FINGERPRINT_KEY])
    expect(prints.every((print) => print !== undefined && /^[0-9a-f]{32}$/.test(print))).toBe(true)
    expect(new Set(prints).size).toBe(prints.length)
    // Another run: another time, other usage, the trace file reformatted (the lines move).
    const again = renderSarif(
      { ...otelSample.report, generated_at: "2027-01-01T00:00:00.000Z", usage: { ...otelSample.report.usage, llm_calls: 9 } },
      { ...otelSample.context, body: `\n\n\n${otelBody}` }
    )
    const results = again.runs[0]?.results ?? []
    expect(results.map((result) => result.partialFingerprints[FINGERPRINT_KEY])).toEqual(prints)
    expect(results[1]?.locations[0]?.physicalLocation.region.startLine).toBe((run.results[1]?.locations[0]?.physicalLocation.region.startLine ?? 0) + 3)
  })

  it("chat traces: no results when nothing was found, `messages[i]` lines when something was, trace.json by default", () => {
    const empty = renderSarif(chatSample.report, chatSample.context).runs[0]
    expect(empty?.results).toEqual([])
    expect(empty?.tool.driver.rules).toEqual([])
    expect(empty?.artifacts).toEqual([{ location: { uri: "trace.json" }, mimeType: "application/json" }])
    const sample = chatWithFinding()
    const result = renderSarif(sample.report, sample.context).runs[0]?.results[0]
    const messageStarts = chatBody.split("\n").flatMap((line, i) => (line === "    {" ? [i + 1] : []))
    expect(messageStarts).toHaveLength(6)
    expect(result?.locations[0]?.physicalLocation).toEqual({ artifactLocation: { uri: "trace.json", index: 0 }, region: { startLine: messageStarts[4] } })
    expect(result?.level).toBe("note")
  })

  it("falls back to line 1 when the element cannot be found or there is no body", () => {
    const noBody = renderSarif(otelSample.report, { ...otelSample.context, body: undefined }).runs[0]
    expect(noBody?.results.map((result) => result.locations[0]?.physicalLocation.region.startLine)).toEqual([1, 1, 1, 1])
    const garbled = renderSarif(otelSample.report, { ...otelSample.context, body: "not json {" }).runs[0]
    expect(garbled?.results.map((result) => result.locations[0]?.physicalLocation.region.startLine)).toEqual([1, 1, 1, 1])
  })

  it("makes the artifact a relative URI", () => {
    expect(artifactUri(undefined)).toBe("trace.json")
    expect(artifactUri("")).toBe("trace.json")
    expect(artifactUri("./traces/run 1.json")).toBe("traces/run%201.json")
    expect(artifactUri("/abs/trace.json")).toBe("abs/trace.json")
    expect(artifactUri("C:\\runs\\t.json")).toBe("C%3A/runs/t.json")
  })
})

describe("JSON line locator", () => {
  const text = [
    "{",
    "  \"note\": \"a string with ] [ { } and \\\"quotes\\\" and spanId\",",
    "  \"trace\": {",
    "    \"messages\": [",
    "      {\"role\": \"user\", \"content\": \"hi\"},",
    "      {",
    "        \"role\": \"assistant\",",
    "        \"tool_calls\": [",
    "          {\"id\": \"call_1\"}",
    "        ]",
    "      }",
    "    ],",
    "    \"spans\": [",
    "      {\"parentSpanId\": \"aaaaaaaaaaaaaaaa\", \"spanId\": \"bbbbbbbbbbbbbbbb\"},",
    "      {\"span_id\": \"0xaaaaaaaaaaaaaaaa\"}",
    "    ],",
    "    \"runs\": [{\"id\": 42}],",
    "    \"history\": [[1, 2], {\"error\": \"boom\"}]",
    "  }",
    "}"
  ].join("\n")

  it("finds paths (with or without an envelope), ids under their keys, and the longest present prefix", () => {
    const lines = locateLines(text, [
      "messages[0]",
      "messages[1]",
      "messages[1].tool_calls[0]",
      "messages[1].tool_calls[5]",
      "span:bbbbbbbbbbbbbbbb",
      "span:aaaaaaaaaaaaaaaa/input[0]",
      "run:42",
      "history[1].error",
      "history[0]",
      "derived:turns",
      "log:3",
      "span:#2",
      "event:missing"
    ])
    expect(Object.fromEntries(lines)).toEqual({
      "messages[0]": 5,
      "messages[1]": 6,
      "messages[1].tool_calls[0]": 9,
      "messages[1].tool_calls[5]": 8,
      "span:bbbbbbbbbbbbbbbb": 14,
      "span:aaaaaaaaaaaaaaaa/input[0]": 15,
      "run:42": 17,
      "history[1].error": 18,
      "history[0]": 18
    })
  })

  it("reads sources", () => {
    expect(parseSource("span:abc/input[2]")).toEqual({ _tag: "id", scheme: "span", id: "abc" })
    expect(parseSource("messages[3].tool_calls[0]")).toEqual({ _tag: "path", segments: ["messages", 3, "tool_calls", 0] })
    expect(parseSource("[4]")).toEqual({ _tag: "path", segments: [4] })
    expect(parseSource("derived:turns")).toBeUndefined()
  })

  it("finds the records of a JSON Lines body: `lines[i]` and `[i]` by record (blank lines are none), ids record by record", () => {
    const jsonl = [
      JSON.stringify({ type: "session_meta", payload: { id: "s-1" } }),
      "",
      JSON.stringify({ type: "response_item", payload: { role: "user" } }),
      JSON.stringify({ span_id: "cccccccccccccccc", name: "tool" }),
      JSON.stringify({ instance_id: "django-1", history: [{ role: "assistant" }] })
    ].join("\n")
    const lines = locateLines(jsonl, ["lines[0]", "lines[1].payload", "[3].history[0]", "span:cccccccccccccccc", "lines[9]"])
    expect(Object.fromEntries(lines)).toEqual({ "lines[0]": 1, "lines[1].payload": 3, "[3].history[0]": 5, "span:cccccccccccccccc": 4 })
  })

  it("survives deep nesting and truncated text", () => {
    expect(locateLines(`${"[".repeat(100_000)}`, ["messages[0]"]).size).toBe(0)
    expect(locateLines(text.slice(0, 200), ["messages[1]", "span:bbbbbbbbbbbbbbbb"]).get("messages[1]")).toBe(6)
  })
})

// ---------------------------------------------------------------------------------------------

describe("HTML", () => {
  let browser: Browser

  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: requireTool("chromium", "chromium"),
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-quic", "--no-first-run"]
    })
  })
  afterAll(async () => {
    await browser?.close()
  })

  /** The page in a fresh context (JavaScript off unless asked), every request recorded and none let through. */
  const open = async (html: string, javaScriptEnabled = false) => {
    const context = await browser.newContext({ javaScriptEnabled, viewport: { width: 1280, height: 900 } })
    const page = await context.newPage()
    const requests: Array<string> = []
    const dialogs: Array<string> = []
    page.on("request", (request) => requests.push(request.url()))
    page.on("dialog", (dialog) => {
      dialogs.push(dialog.message())
      void dialog.dismiss()
    })
    await page.route("**/*", (route) => route.abort())
    await page.setContent(html, { waitUntil: "load" })
    return { context, page, requests, dialogs }
  }

  it("shows the timeline, the decisive step and the findings pinned to their events, with scripts off and no request", async () => {
    const html = renderHtml(otelSample.report, otelSample.context)
    const { context, page, requests } = await open(html)
    const events = page.locator("ol.timeline > li.event")
    expect(await events.count()).toBe(13)
    expect(await events.first().isVisible()).toBe(true)
    expect(await events.last().isVisible()).toBe(true)
    expect(await page.locator("ol.timeline > li.gap").count()).toBe(0)

    // The decisive step: summarised at the top, marked on the timeline.
    const decisive = page.locator("li.event.decisive")
    expect(await decisive.count()).toBe(1)
    expect(await decisive.getAttribute("id")).toBe("event-5")
    expect(await decisive.locator(".decisive-mark").isVisible()).toBe(true)
    expect(await decisive.locator(".decisive-mark").innerText()).toBe("Decisive step")
    const box = page.locator(".decisive-box")
    expect(await box.isVisible()).toBe(true)
    expect(await box.innerText()).toContain("Who: run_sql")
    expect(await box.locator("a[href='#event-5']").isVisible()).toBe(true)

    // The checks' cards come first, then the lenses' findings; both link to the events they cite.
    expect(await page.locator("main section").evaluateAll((sections) => sections.map((section) => section.id).slice(0, 2))).toEqual(["checks", "findings"])
    const check = page.locator("#check-0")
    expect(await check.isVisible()).toBe(true)
    expect(await check.locator("h3").innerText()).toBe("A tool failed and the run carried on as if it had not")
    expect(await check.locator(".meta").innerText()).toContain("tool_error_unrecovered")
    expect(await check.locator("blockquote").first().innerText()).toBe("verify_counts timed out after 30 s")
    expect(await check.locator("a[href='#event-7']").isVisible()).toBe(true)
    expect(await page.locator("#event-7 a.pin.check").getAttribute("href")).toBe("#check-0")
    expect(await page.locator("#event-7 a.pin.check").innerText()).toContain("C1 High")
    // Finding cards link to the events they cite; events carry the badges of the findings citing them.
    const cards = page.locator("article.finding:not(.check)")
    expect(await cards.count()).toBe(3)
    expect(await page.locator("#finding-0 a[href='#event-5']").isVisible()).toBe(true)
    expect(await page.locator("#finding-0 a[href='#event-8']").isVisible()).toBe(true)
    expect(await page.locator("#event-8 .pins a.pin").evaluateAll((pins) => pins.map((pin) => pin.getAttribute("href")))).toEqual(["#finding-0", "#finding-1"])
    expect(await page.locator("#event-5 a.pin").innerText()).toContain("F1 Critical")
    expect(await page.locator("#event-5 a.pin").isVisible()).toBe(true)
    expect(await page.locator("#event-11 a.pin[href='#finding-2']").isVisible()).toBe(true)
    expect(await page.locator("li.event.cited").evaluateAll((items) => items.map((item) => item.id))).toEqual(["event-5", "event-6", "event-7", "event-8", "event-11", "event-12"])
    expect(await page.locator("#event-0 .pins").count()).toBe(0)

    // The rest of the report.
    expect(await page.locator("ol.interventions > li").count()).toBe(3)
    expect(await page.locator("#patterns td.failed").innerText()).toBe("failed (timeout)")
    expect(await page.locator("#triage tbody tr").count()).toBe(6)
    expect(await page.locator("#usage").innerText()).toContain("18,420 in / 2,310 out")

    // The screenshot, before any link is followed (a followed link is highlighted). It goes to a
    // temporary folder; SVC_UPDATE_SCREENSHOTS=1 writes the one docs/diagnose.md shows instead.
    const images = process.env["SVC_UPDATE_SCREENSHOTS"] === "1" ? join(root, "docs", "images") : mkdtempSync(join(tmpdir(), "svc-shot-"))
    mkdirSync(images, { recursive: true })
    const path = join(images, "diagnose-report.png")
    const png = quantizePng(await page.screenshot({ fullPage: true }))
    writeFileSync(path, png)
    expect(png.readUInt32BE(16)).toBe(1280)
    expect(statSync(path).size).toBeLessThan(400 * 1024)
    // A pin is an in-page link that works without scripts.
    await page.locator("#event-5 a.pin").click()
    expect(page.url()).toMatch(/#finding-0$/)

    // Nothing loaded, nothing ran: no request but the document's own, no script or image element.
    expect(requests.filter((url) => url !== "about:blank" && !url.startsWith("about:blank#"))).toEqual([])
    expect(await page.locator("script, img, iframe, object, embed, link[rel=stylesheet], base").count()).toBe(0)

    await context.close()
  })

  it("is one self-contained page: charset, viewport, inline CSS only, no script", () => {
    const html = renderHtml(otelSample.report, otelSample.context)
    expect(html.startsWith("<!doctype html>")).toBe(true)
    expect(html).toContain("<meta charset=\"utf-8\">")
    expect(html).toContain("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")
    expect(html).not.toMatch(/<(script|link|img|iframe|object|embed|base|svg|video|audio|source)\b|@import|url\(|https?:\/\//i)
  })

  it("escapes every hostile string: nothing runs, nothing loads, the text reads as written", async () => {
    const { report, context: reportContext } = hostileSample()
    const html = renderHtml(report, reportContext)
    expect(html).not.toContain("<script>")
    expect(html).not.toContain("<img")
    expect(html).not.toContain("<b>")
    expect(html).toContain(escapeHtml(HOSTILE))
    // With JavaScript on, to show the payload would have had its chance.
    const { context, page, requests, dialogs } = await open(html, true)
    expect(await page.locator("script, img, b").count()).toBe(0)
    expect(await page.locator("#event-0 .actor").innerText()).toBe(HOSTILE)
    expect(await page.locator("#event-0 .content").innerText()).toContain(`${HOSTILE}\n# Owned`)
    expect(await page.locator("#finding-0 h3").innerText()).toBe(`${MD_HOSTILE} ${HOSTILE}`)
    expect(await page.locator(".summary").innerText()).toBe(`${MD_HOSTILE} ${HOSTILE}`)
    expect(dialogs).toEqual([])
    expect(requests.filter((url) => url !== "about:blank")).toEqual([])
    await context.close()
  })

  it("renders a trace without findings", async () => {
    const { context, page } = await open(renderHtml(chatSample.report, chatSample.context))
    expect(await page.locator("ol.timeline > li.event").count()).toBe(6)
    expect(await page.locator("li.event.cited, li.event.decisive, a.pin").count()).toBe(0)
    expect(await page.locator("#checks").innerText()).toContain("No check fired")
    expect(await page.locator("#findings").innerText()).toContain("No findings")
    expect(await page.locator(".decisive-box").innerText()).toContain("None: no check finding or verified lens finding cites an element")
    await context.close()
  })

  it("describes a content-free event a check cites, and names the checks of a decisive step", async () => {
    const step = checksAnswer().decisive_step
    if (step === null) return expect.fail("the checks answer has a decisive step")
    const report: DiagnoseReport = { ...otelSample.report, checks: [CONTENT_FREE_CHECK], findings: [], decisive_step: { ...step, event: 7, kind: "error", severity: "medium" } }
    const { context, page } = await open(renderHtml(report, otelSample.context))
    expect(await page.locator("#check-0 .described").innerText()).toBe("tool_result get_weather, status error 503 (no content)")
    expect(await page.locator("#check-0 blockquote").count()).toBe(0)
    const box = await page.locator(".decisive-box").innerText()
    expect(box).toContain("Checks: tool_error_unrecovered — A tool failed and the run carried on as if it had not")
    expect(box).not.toContain("Lenses:")
    await context.close()
  })

  it("bounds a long trace: cited events, their neighbours, the ends, and markers for what is left out", () => {
    const total = 5000
    const events = Array.from({ length: total }, (_, i) => ({ actor: `agent${i % 3}`, kind: "message", content: `step ${i}`, source: `steps[${i}]` }))
    const base = otelSample.report
    const cite = (index: number) => ({ ref: `steps[${index}]`, quote: `step ${index}`, source: `steps[${index}]`, event: index, actor: "agent0" })
    const report: DiagnoseReport = {
      ...base,
      trace: { ...base.trace, events: total },
      checks: base.checks.map((check) => ({ ...check, evidence: [cite(4000)] })),
      findings: base.findings.map((finding, i) => ({ ...finding, evidence: [cite(1000 + i * 1000)] })),
      decisive_step: base.decisive_step === null ? null : { ...base.decisive_step, event: 1000 }
    }
    const html = renderHtml(report, { events, artifact: undefined, body: undefined })
    const ids = Array.from(html.matchAll(/<li id="event-(\d+)"/g), (match) => Number(match[1]))
    // The event a check cites is kept with its neighbours, as a lens finding's.
    expect(ids).toEqual([
      0, 1, 2, 998, 999, 1000, 1001, 1002, 1998, 1999, 2000, 2001, 2002, 2998, 2999, 3000, 3001, 3002, 3998, 3999, 4000, 4001, 4002, 4997, 4998, 4999
    ])
    expect(html).toContain("… 995 events not shown …")
    expect(html).toContain("… 994 events not shown …")
    expect(html).toContain("26 of 5,000 events shown")

    // Cited everywhere: still at most MAX_EVENTS.
    const everywhere = shownEvents(total, Array.from({ length: 1000 }, (_, i) => i * 5), 7)
    expect(everywhere.length).toBe(MAX_EVENTS)
    expect(everywhere).toContain(0)
    expect(everywhere).toContain(total - 1)
    expect(everywhere).toContain(7)
    expect(shownEvents(12, [3], 3)).toEqual(Array.from({ length: 12 }, (_, i) => i))
  })
})

// ---------------------------------------------------------------------------------------------

const valueKinds = (value: AnyValue): Array<string> => Object.keys(value)

/** Every AnyValue has exactly one of the OTLP/JSON shapes, with the JSON type that shape requires. */
const checkAnyValue = (value: AnyValue): void => {
  expect(valueKinds(value)).toHaveLength(1)
  if ("stringValue" in value) expect(typeof value.stringValue).toBe("string")
  else if ("doubleValue" in value) expect(typeof value.doubleValue).toBe("number")
  else if ("intValue" in value) expect(value.intValue).toMatch(/^-?\d+$/)
  else if ("boolValue" in value) expect(typeof value.boolValue).toBe("boolean")
  else if ("arrayValue" in value) value.arrayValue.values.forEach(checkAnyValue)
  else if ("kvlistValue" in value) value.kvlistValue.values.forEach((entry) => checkAnyValue(entry.value))
  else expect.fail(`not an AnyValue: ${JSON.stringify(value)}`)
}

describe("OTLP logs", () => {
  const request = renderOtlp(otelSample.report, otelSample.context)
  const records = request.resourceLogs[0]?.scopeLogs[0]?.logRecords ?? []
  const attributes = (index: number) => Object.fromEntries((records[index]?.attributes ?? []).map((entry) => [entry.key, entry.value]))

  it("is one resource, one scope, one gen_ai.evaluation.result record per check finding and per finding", () => {
    expect(request.resourceLogs).toHaveLength(1)
    expect(request.resourceLogs[0]?.resource.attributes).toContainEqual({ key: "service.name", value: { stringValue: "pattern-analysis-service" } })
    expect(request.resourceLogs[0]?.scopeLogs).toHaveLength(1)
    expect(records).toHaveLength(4)
    for (const record of records) {
      expect(record.eventName).toBe("gen_ai.evaluation.result")
      expect(record.attributes).toContainEqual({ key: "event.name", value: { stringValue: "gen_ai.evaluation.result" } })
      expect(record.timeUnixNano).toBe((BigInt(Date.parse(otelSample.report.generated_at)) * 1_000_000n).toString())
      expect(record.timeUnixNano).toBe("1795458725123000000")
      expect(new Set(record.attributes.map((entry) => entry.key)).size).toBe(record.attributes.length)
    }
  })

  it("carries a check finding first: named svc/check/<id>, score 1, its fingerprint, the events it cites", () => {
    expect(attributes(0)).toMatchObject({
      "gen_ai.evaluation.name": { stringValue: "svc/check/tool_error_unrecovered" },
      "gen_ai.evaluation.score.value": { doubleValue: 1 },
      "gen_ai.evaluation.score.label": { stringValue: "high" },
      "gen_ai.evaluation.explanation": { stringValue: expect.stringMatching(/^A tool failed and the run carried on as if it had not: verify_counts failed at events\[7\]/) },
      "pattern_analysis.check": { stringValue: "tool_error_unrecovered" },
      "pattern_analysis.check.fingerprint": { stringValue: "3ddf5ca677ebdb43" },
      "pattern_analysis.playbook": { stringValue: "lewin/environmental.tool_failure_unhandled" },
      "pattern_analysis.evidence.events": { arrayValue: { values: [{ intValue: "7" }, { intValue: "6" }, { intValue: "12" }] } },
      "pattern_analysis.decisive": { boolValue: false }
    })
    expect(attributes(0)).not.toHaveProperty("pattern_analysis.evidence.described")
    // A content-free event's evidence is described; svc check's request holds the check records alone.
    const alone = renderChecksOtlp([{ ...checksAnswer(), checks: [CONTENT_FREE_CHECK] }], "2026-11-23T18:32:05.123Z")
    const [record] = alone.resourceLogs[0]?.scopeLogs[0]?.logRecords ?? []
    expect(alone.resourceLogs[0]?.scopeLogs[0]?.logRecords).toHaveLength(1)
    expect(record?.timeUnixNano).toBe("1795458725123000000")
    expect(record?.attributes).toContainEqual({ key: "pattern_analysis.evidence.described", value: { arrayValue: { values: [{ stringValue: "tool_result get_weather, status error 503" }] } } })
    expect([record?.traceId, record?.spanId]).toEqual([OTEL_TRACE_ID, SPANS.verify])
  })

  it("carries the GenAI evaluation attributes and the severity", () => {
    expect(attributes(1)).toMatchObject({
      "gen_ai.evaluation.name": { stringValue: "lencioni" },
      "gen_ai.evaluation.score.value": { doubleValue: 0.92 },
      "gen_ai.evaluation.score.label": { stringValue: "critical" },
      "gen_ai.evaluation.explanation": {
        stringValue: expect.stringMatching(/^Migrator reported a clean migration after a tool warning: Absence of trust shows as hidden errors/)
      },
      "pattern_analysis.corroborated_by": { arrayValue: { values: [{ stringValue: "psych_safety" }] } },
      "pattern_analysis.evidence.events": { arrayValue: { values: [{ intValue: "5" }, { intValue: "8" }] } },
      "pattern_analysis.decisive": { boolValue: true }
    })
    expect(records.map((record) => [record.severityNumber, record.severityText])).toEqual([[17, "high"], [19, "critical"], [17, "high"], [15, "medium"]])
    expect(records[1]?.body).toEqual({ stringValue: "Migrator reported a clean migration after a tool warning" })
    const severities: ReadonlyArray<Severity> = ["none", "low", "medium", "high", "critical"]
    expect(severities.map(severityNumber)).toEqual([9, 13, 15, 17, 19])
  })

  it("encodes every value as OTLP/JSON requires", () => {
    for (const record of [...records, ...(renderOtlp(chatWithFinding().report, chatSample.context).resourceLogs[0]?.scopeLogs[0]?.logRecords ?? [])]) {
      checkAnyValue(record.body)
      record.attributes.forEach((entry) => checkAnyValue(entry.value))
      expect(record.timeUnixNano).toMatch(/^\d+$/)
      expect(Number.isInteger(record.severityNumber)).toBe(true)
    }
    // Serialized, the request keeps these shapes (no bigint, no undefined).
    expect(JSON.parse(JSON.stringify(request))).toEqual(request)
  })

  it("links each verdict to the span it cites (otel), and to nothing for a chat trace", () => {
    expect(records.map((record) => [record.traceId, record.spanId])).toEqual([
      [OTEL_TRACE_ID, SPANS.verify],
      [OTEL_TRACE_ID, SPANS.runSql],
      [OTEL_TRACE_ID, SPANS.verify],
      [OTEL_TRACE_ID, SPANS.reviewer]
    ])
    expect(records.every((record) => /^[0-9a-f]{32}$/.test(record.traceId ?? "") && /^[0-9a-f]{16}$/.test(record.spanId ?? ""))).toBe(true)
    const chat = renderOtlp(chatSample.report, chatSample.context).resourceLogs[0]?.scopeLogs[0]?.logRecords
    expect(chat).toEqual([])
    const withFinding = renderOtlp(chatWithFinding().report, chatSample.context).resourceLogs[0]?.scopeLogs[0]?.logRecords ?? []
    expect(withFinding).toHaveLength(1)
    expect(withFinding[0]).not.toHaveProperty("traceId")
    expect(withFinding[0]).not.toHaveProperty("spanId")
    // An otel trace whose id is not a valid trace id links nothing.
    const badId = renderOtlp({ ...otelSample.report, trace: { ...otelSample.report.trace, id: "not-hex" } }, otelSample.context)
    expect(badId.resourceLogs[0]?.scopeLogs[0]?.logRecords.some((record) => "traceId" in record)).toBe(false)
  })
})

describe("the verdict (DECISIONS §25)", () => {
  it("leads the Markdown and the HTML report with the line the dashboard's run page leads with", () => {
    for (const { report, context } of [chatSample, otelSample, hostileSample()]) {
      const { line } = verdictOf(report)
      expect(line.length).toBeGreaterThan(0)
      const markdown = renderMarkdown(report, context).split("\n")
      // the heading, a blank line, then the verdict, before anything else
      expect(markdown[2]).toBe(`**Verdict:** ${escapeMarkdown(line)}`)
      const html = renderHtml(report, context)
      const verdictAt = html.indexOf(`<p class="verdict"><strong>Verdict:</strong> ${escapeHtml(line)}</p>`)
      expect(verdictAt).toBeGreaterThan(html.indexOf("</h1>"))
      expect(verdictAt).toBeLessThan(html.indexOf("<dl class=\"facts\">"))
    }
  })

  it("names the failure holding the decisive step, with the quote there; or, with none, that nothing failed", () => {
    const failed = verdictOf(otelSample.report)
    const anchor = otelSample.report.failures[0]?.anchor
    expect(anchor).toBeDefined()
    expect(failed.failure?.title).toBe(anchor?.title)
    expect(failed.line).toMatch(/^Failed: /)
    expect(failed.line).toContain(anchor?.title ?? "-")
    const clean = verdictOf({ ...chatSample.report, failures: [], content: undefined })
    expect(clean.failure).toBeNull()
    expect(clean.line).toMatch(/^No failure found/)
    const noContent = verdictOf({ ...chatSample.report, failures: [], content: { absent: true, instrumentation: "openllmetry", setting: "TRACELOOP_TRACE_CONTENT=true" } })
    expect(noContent.contentSetting).toBe("TRACELOOP_TRACE_CONTENT=true")
    expect(noContent.line).toContain("TRACELOOP_TRACE_CONTENT=true")
  })
})
