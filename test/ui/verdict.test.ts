/**
 * The dashboard answers "what failed, and why" (DECISIONS §25), in a real headless Chromium against
 * the real built service with auth on, its workers reading a realistic fleet (test/support/Fleet.ts:
 * real fixtures, a check and lens findings, a content-free OTLP run, a problem with exemplars).
 * Each answer is read from the page alone and compared with the API's: the run's task, its top
 * failure, the quote at the decisive step and the explanation; the no-content run's setting for
 * its instrumentation; a problem's interventions. The pages keep §22's rules: the keyboard reaches
 * the verdict's evidence, axe-core finds no serious or critical violation, no request leaves the
 * origin and the console stays clean (the tab's icon included).
 * With SVC_UI_SCREENSHOTS=1 it writes the pages' screenshots of this fleet to docs/images/ (docs/ui.md).
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { mkdirSync, readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { join } from "node:path"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { Schema } from "effect"
import { ProblemDetail } from "../../src/Contract/ProblemsContract.js"
import { verdictOf } from "../../src/Problems/Verdict.js"
import { launchChromium, recordPage } from "../support/Browser.js"
import { buildFleet, type Fleet, FLEET_ENV } from "../support/Fleet.js"
import { useProviderDouble } from "../support/Harness.js"
import type { RunningService } from "../support/Service.js"
import { call, decoded, freshHome } from "../runs/support.js"

const harness = useProviderDouble()
const KEY = "admin-key-verdict-0123456789"
const SCREENSHOTS = process.env["SVC_UI_SCREENSHOTS"] === "1" ? join(import.meta.dirname, "..", "..", "docs", "images") : undefined
const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8")

let service: RunningService
let browser: Browser
let fleet: Fleet

beforeAll(async () => {
  service = await harness.start({
    ...FLEET_ENV,
    ANTHROPIC_API_KEY: "sk-ant-verdict-0123456789",
    ANTHROPIC_BASE_URL: harness.double.url,
    SVC_WORKERS: "1",
    SVC_CACHE: "off",
    SVC_HOME: freshHome("verdict"),
    SVC_API_REQUIRE_AUTH: "true",
    SVC_API_KEYS: `boss=${KEY}`,
    SVC_API_KEY_ROLES: "boss=admin"
  })
  fleet = await buildFleet(service, harness.double, KEY)
  browser = await launchChromium()
}, 180_000)
afterAll(async () => {
  await browser?.close()
})

/** A signed-in tab, every request recorded and none let out of the origin. */
const tab = async (options: { readonly bypassCSP?: boolean } = {}) => {
  const context: BrowserContext = await browser.newContext({ bypassCSP: options.bypassCSP ?? false, viewport: { width: 1280, height: 900 } })
  await context.addInitScript(`sessionStorage.setItem("svc.key", ${JSON.stringify(KEY)})`)
  const page = await context.newPage()
  const { external, errors } = await recordPage(page, service.url)
  return { context, page, external, errors }
}

const open = async (page: Page, path: string, ready: string) => {
  await page.goto(`${service.url}${path}`)
  await page.locator(ready).first().waitFor({ timeout: 15_000 })
}

const textOf = async (page: Page, selector: string): Promise<string> => ((await page.locator(selector).first().textContent()) ?? "").trim()

/** The first failing run: an exemplar, read by its lenses. */
const exemplar = () => {
  const run = fleet.failing[0]
  if (run?.report === undefined) throw new Error("the fleet's first run has no report")
  return { run, report: run.report }
}

/** The pages of the fleet, and what each shows once loaded. */
const PAGES = (): ReadonlyArray<{ readonly name: string; readonly path: string; readonly ready: string }> => [
  { name: "runs", path: "/ui/runs", ready: `tr[data-run="${exemplar().run.id}"]` },
  { name: "run", path: `/ui/runs/${exemplar().run.id}`, ready: "#event-0" },
  { name: "run-no-content", path: `/ui/runs/${fleet.contentFree.id}`, ready: "[data-content-setting]" },
  { name: "problems", path: "/ui/problems", ready: `tr[data-problem="${fleet.problemId}"]` },
  { name: "problem", path: `/ui/problems/${fleet.problemId}`, ready: "ol.interventions li" },
  { name: "compare", path: "/ui/compare?label=version&a=1.3.0&b=1.4.0", ready: "table.compare tbody tr" },
  { name: "digest", path: "/ui/digest", ready: "section[aria-labelledby=new] li" },
  { name: "submit", path: "/ui/submit", ready: ".dropzone" },
  { name: "connect", path: "/ui/connect", ready: "[data-instrumentation]" }
]

describe("the dashboard says what failed, and why (DECISIONS §25)", () => {
  it("a run's page, from the page alone: its task, its top failure, the quote at the decisive step, the explanation; error events marked", async () => {
    const { run, report } = exemplar()
    const verdict = verdictOf(report)
    // what the fleet's failure is, independently of the verdict function
    expect(report.failures[0]?.anchor).toMatchObject({ kind: "check", check: "tool_error_unrecovered" })
    expect(verdict.task.length).toBeGreaterThan(0)
    const { context, page, external, errors } = await tab()
    await open(page, `/ui/runs/${run.id}`, "[data-failure]")
    const heading = await textOf(page, "h1")
    expect(heading).toBe(verdict.task)
    expect(heading).not.toMatch(/^Run /)
    expect(report.trace.task.startsWith(heading.replace(/…$/, ""))).toBe(true)
    const failure = await textOf(page, "[data-failure] h3")
    expect(failure).toContain(report.failures[0]?.anchor.title ?? "-")
    expect(await textOf(page, "[data-failure] .muted")).toContain("tool_error_unrecovered")
    const quote = await textOf(page, "[data-failure] blockquote.decisive-quote")
    // the decisive step: the earliest event the failure cites at its severity (the failing call), quoted verbatim
    const check = report.checks.find((each) => each.check === "tool_error_unrecovered")
    const step = report.decisive_step
    expect(step).not.toBeNull()
    expect(quote).toBe(check?.evidence.find((item) => item.event === step?.event)?.quote)
    expect(quote).toContain("A-4711")
    expect(await textOf(page, "[data-failure] .muted")).toContain(`event ${String(step?.event)}`)
    // and the error it answered, among the check's evidence
    expect(await textOf(page, "section[aria-labelledby=checks]")).toContain("503 Service Unavailable")
    const explanation = await textOf(page, "[data-failure] .explanation")
    expect(explanation).toBe(check?.explanation)
    expect(explanation).toContain("issue_refund")
    // corroborated by the lenses that read it, and the line the reports lead with
    const corroboration = await textOf(page, "[data-failure] dl")
    for (const lens of ["lewin", "mcgregor", "aar"]) expect(corroboration).toContain(lens)
    // a check's verdict is a rule's, not a model's: no confidence percentage for it
    expect(corroboration).toContain("deterministic: a check's rule, no model")
    expect(corroboration).not.toMatch(/Confidence\s*\d+%/)
    expect(await textOf(page, "[data-verdict]")).toBe(verdict.line)
    // the verdict comes before the timeline, the interventions in it
    const order: unknown = await page.evaluate(`(() => {
      const verdict = document.querySelector("[data-verdict]"), timeline = document.getElementById("timeline")
      return verdict !== null && timeline !== null && Boolean(verdict.compareDocumentPosition(timeline) & Node.DOCUMENT_POSITION_FOLLOWING)
    })()`)
    expect(order).toBe(true)
    expect(await page.locator(".verdict-box ol.interventions li").count()).toBe(report.interventions.length)
    // the list names it by its task, with its top failure and counts
    await open(page, "/ui/runs", `tr[data-run="${run.id}"]`)
    const row = await textOf(page, `tr[data-run="${run.id}"]`)
    expect(row).toContain(verdict.task)
    expect(row).toContain(report.failures[0]?.anchor.title ?? "-")
    expect(row).not.toContain(run.id)
    // the content-free run's timeline marks its failed span
    await open(page, `/ui/runs/${fleet.contentFree.id}`, "#event-0")
    const trace = await decoded(await call(service, "GET", `/v1/runs/${fleet.contentFree.id}/trace`, { key: KEY }), 200, Schema.Unknown)
    const failed = JSON.stringify(trace).split('"status":"error"').length - 1
    expect(failed).toBeGreaterThan(0)
    expect(await page.locator(".timeline > li[data-error]").count()).toBe(failed)
    expect(external).toEqual([])
    expect(errors).toEqual([])
    await context.close()
  })

  it("a content-free OTLP run names the setting that turns content on for its instrumentation", async () => {
    const report = fleet.contentFree.report
    expect(fleet.contentFree.source).toBe("otlp")
    expect(report?.content?.instrumentation).toBe("opentelemetry_genai")
    const { context, page, external, errors } = await tab()
    await open(page, `/ui/runs/${fleet.contentFree.id}`, "[data-content-setting]")
    expect(await textOf(page, "[data-content-setting] pre")).toBe("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true")
    expect(await textOf(page, "[data-content-setting]")).toContain("OpenTelemetry GenAI instrumentations")
    // why no lens read it, per lens
    const triage = await textOf(page, "ul.triage")
    expect(triage).toContain("no_content")
    // Connect lists every instrumentation's switch, the key's header and OpenLLMetry's base URL
    await open(page, "/ui/connect", "[data-instrumentation]")
    const connect = await textOf(page, "main")
    for (const setting of ["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true", "TRACELOOP_TRACE_CONTENT=true", "recordInputs", "OPENINFERENCE_HIDE_INPUTS"]) {
      expect(connect).toContain(setting)
    }
    expect(connect).toContain(`TRACELOOP_BASE_URL=${service.url}`)
    expect(connect).toContain("OTEL_EXPORTER_OTLP_HEADERS=authorization=Bearer%20<your-ingest-key>")
    expect(connect).toContain("TRACELOOP_API_KEY=<your-ingest-key>")
    expect(connect).not.toContain("TRACELOOP_HEADERS=authorization=Bearer%20")
    expect(external).toEqual([])
    expect(errors).toEqual([])
    await context.close()
  })

  it("a problem's page shows its explanation and interventions from its exemplars, and links to all its runs", async () => {
    const detail = await decoded(await call(service, "GET", `/v1/problems/${fleet.problemId}`, { key: KEY }), 200, ProblemDetail)
    expect(detail.explanation.exemplars.length).toBeGreaterThanOrEqual(3)
    expect(detail.explanation.interventions.length).toBeGreaterThan(0)
    const { context, page, external, errors } = await tab()
    await open(page, `/ui/problems/${fleet.problemId}`, "ol.interventions li")
    expect(await textOf(page, "p.verdict")).toBe(detail.explanation.verdict)
    const shown = await page.locator("ol.interventions li").allTextContents()
    expect(shown.length).toBe(detail.explanation.interventions.length)
    detail.explanation.interventions.forEach((intervention, index) => expect(shown[index]).toContain(intervention.description))
    await page.getByRole("link", { name: `all ${detail.run_count} runs` }).click()
    await page.waitForURL(`**/ui/runs?problem=${fleet.problemId}`)
    await page.locator("tr[data-run]").first().waitFor()
    expect((await page.locator("tr[data-run]").evaluateAll((rows) => rows.map((row) => row.getAttribute("data-run")))).sort()).toEqual(
      fleet.failing.map((run) => run.id).sort()
    )
    expect(external).toEqual([])
    expect(errors).toEqual([])
    await context.close()
  })

  it("reaches the verdict's evidence with the keyboard alone, the focus visible", async () => {
    const { run } = exemplar()
    const event = verdictOf(exemplar().report).failure?.event
    expect(event).not.toBeNull()
    const { context, page, external, errors } = await tab()
    await open(page, `/ui/runs/${run.id}`, "#event-0")
    await page.locator("h1:focus").waitFor()
    for (let presses = 0; ; presses++) {
      expect(presses, "Tab never reached the decisive step's link").toBeLessThan(40)
      await page.keyboard.press("Tab")
      const focused: unknown = await page.evaluate(`(() => {
        const element = document.activeElement
        const style = element === null ? null : getComputedStyle(element)
        return { href: element?.getAttribute("href") ?? null, visible: style !== null && style.outlineStyle !== "none" && style.outlineWidth !== "0px" }
      })()`)
      expect(focused).toMatchObject({ visible: true })
      if (typeof focused === "object" && focused !== null && "href" in focused && focused.href === `#event-${String(event)}`) break
    }
    await page.keyboard.press("Enter")
    await expect(page.evaluate("document.activeElement?.id")).resolves.toBe(`event-${String(event)}`)
    expect(external).toEqual([])
    expect(errors).toEqual([])
    await context.close()
  })

  it("has no serious or critical accessibility violation on the fleet's pages (axe-core)", async () => {
    const found: Array<string> = []
    for (const { name, path, ready } of PAGES()) {
      // axe reads the page with its own script: the page's policy is bypassed for it alone
      const { context, page } = await tab({ bypassCSP: true })
      await open(page, path, ready)
      await page.evaluate(AXE)
      const violations: unknown = await page.evaluate(`axe.run(document, { resultTypes: ["violations"] }).then((result) =>
        result.violations.filter((violation) => violation.impact === "serious" || violation.impact === "critical")
          .map((violation) => violation.id + ": " + violation.nodes.map((node) => node.target.join(" ")).join(", ")))`)
      if (Array.isArray(violations)) for (const violation of violations) found.push(`${name}: ${String(violation)}`)
      if (SCREENSHOTS !== undefined) {
        mkdirSync(SCREENSHOTS, { recursive: true })
        await page.screenshot({ path: join(SCREENSHOTS, `ui-${name}.png`), fullPage: false })
      }
      await context.close()
    }
    expect(found).toEqual([])
  })
})
