/**
 * Every page of the dashboard (DECISIONS §22) in a real headless Chromium, against the real
 * service with auth on:
 * - hostile content (markup, scripts, SVG, `javascript:` links and remote images in the trace,
 *   the findings' titles and quotes, labels and external ids) shows as text on every page, runs
 *   nothing, and no request leaves the origin (every request is recorded);
 * - the main flow with the keyboard alone, the focus visible at every step;
 * - axe-core finds no serious or critical violation on any page in any state: signed out, empty
 *   (a key of a scope with nothing), loaded, and an error.
 * The docs' screenshots are of a realistic fleet instead (test/ui/verdict.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { launchChromium, recordPage } from "../support/Browser.js"
import { useProviderDouble } from "../support/Harness.js"
import type { RecordedCall, Reply } from "../support/ProviderDouble.js"
import type { RunningService } from "../support/Service.js"
import { freshHome, quotingEvents, submitOne, waitForRun } from "../runs/support.js"

const harness = useProviderDouble()
const ADMIN_KEY = "admin-key-pages-0123456789"
const EMPTY_KEY = "empty-key-pages-0123456789"
const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8")

/** What a hostile trace holds: each would run, load or link if the page parsed it as markup. */
const SCRIPT = `<script>window.owned = "script"</script>`
const IMAGE = `<img src="https://evil.example/pixel.png" onerror="window.owned = 'img'">`
const SVG = `<svg onload="window.owned = 'svg'"><circle r="4"/></svg>`
const MARKDOWN_LINK = `[click me](javascript:window.owned='markdown')`
const LINK_AND_FRAME = `<a href="javascript:window.owned='link'">open</a><iframe src="https://evil.example/frame"></iframe>`
const HOSTILE = [SCRIPT, IMAGE, SVG, MARKDOWN_LINK, LINK_AND_FRAME]
const HOSTILE_TITLE = `<b onmouseover="window.owned='title'">Agent ignored</b> <img src=https://evil.example/t.png>`

const EXTERNAL_ID = `<script>window.owned='id'</script>`
const LABEL = `<b>bold</b><img src=https://evil.example/l.png>`
/** What each page shows of the hostile run, as text. */
const SHOWN: Readonly<Record<string, ReadonlyArray<string>>> = {
  runs: [EXTERNAL_ID, `note: ${LABEL}`],
  run: [...HOSTILE, HOSTILE_TITLE, EXTERNAL_ID, `note: ${LABEL}`],
  problems: [HOSTILE_TITLE],
  // an example's quotes: the double quotes the first 30 characters of the events
  problem: [HOSTILE_TITLE, `Summarize this page: ${SCRIPT}`.slice(0, 30), `Here it is: ${SVG}`.slice(0, 30), LABEL],
  compare: [HOSTILE_TITLE],
  digest: [HOSTILE_TITLE]
}

let service: RunningService
let browser: Browser
let runId = ""
let problemId = ""

const hostileTrace = {
  messages: [
    { role: "system", content: "You are a careful assistant." },
    { role: "user", content: `Summarize this page: ${SCRIPT} ${IMAGE}` },
    { role: "assistant", content: `Here it is: ${SVG} ${MARKDOWN_LINK}` },
    { role: "user", content: `That is wrong ${LINK_AND_FRAME}` },
    { role: "assistant", content: "Sorry, I cannot change it now." }
  ]
}

beforeAll(async () => {
  service = await harness.start({
    ANTHROPIC_API_KEY: "sk-ant-pages-0123456789",
    ANTHROPIC_BASE_URL: harness.double.url,
    SVC_WORKERS: "1",
    SVC_CACHE: "off",
    SVC_HOME: freshHome("pages"),
    SVC_API_REQUIRE_AUTH: "true",
    SVC_API_KEYS: `boss=${ADMIN_KEY},empty=${EMPTY_KEY}`,
    SVC_API_KEY_ROLES: "boss=admin,empty=read"
  })
  const quoting = quotingEvents(hostileTrace.messages.map((message) => message.content), [1, 2])
  harness.double.script = (recorded: RecordedCall): Reply | undefined => {
    const reply = quoting(recorded)
    if (reply === undefined || reply.kind !== "object" || typeof reply.value !== "object" || reply.value === null) return reply
    const value: Record<string, unknown> = { ...reply.value }
    const findings = Array.isArray(value["findings"]) ? value["findings"] : []
    value["findings"] = findings.map((finding: unknown) => (typeof finding === "object" && finding !== null ? { ...finding, title: HOSTILE_TITLE } : finding))
    return { ...reply, value }
  }
  runId = await submitOne(
    service,
    { trace: hostileTrace, mode: "quick", patterns: ["lewin"], labels: { note: LABEL, version: "1.4.0" }, external_id: EXTERNAL_ID },
    { key: ADMIN_KEY }
  )
  const run = await waitForRun(service, runId, { key: ADMIN_KEY })
  expect(run.status).toBe("done")
  problemId = run.problems?.[0]?.id ?? ""
  expect(problemId).not.toBe("")
  browser = await launchChromium()
})
afterAll(async () => {
  await browser?.close()
})

/** A tab signed in with `key` (or none), every request recorded and none let out of the origin. */
const tab = async (key: string | null, options: { readonly bypassCSP?: boolean } = {}) => {
  const context: BrowserContext = await browser.newContext({ bypassCSP: options.bypassCSP ?? false, viewport: { width: 1280, height: 900 } })
  if (key !== null) await context.addInitScript(`sessionStorage.setItem("svc.key", ${JSON.stringify(key)})`)
  const page = await context.newPage()
  const { external, errors } = await recordPage(page, service.url)
  const dialogs: Array<string> = []
  page.on("dialog", (dialog) => {
    dialogs.push(dialog.message())
    void dialog.dismiss()
  })
  return { context, page, external, dialogs, errors }
}

/** The pages with data, and what each shows once loaded. */
const LOADED = (): ReadonlyArray<{ readonly name: string; readonly path: string; readonly ready: string }> => [
  { name: "runs", path: "/ui/runs", ready: `tr[data-run="${runId}"]` },
  { name: "run", path: `/ui/runs/${runId}`, ready: "#event-4" },
  { name: "problems", path: "/ui/problems", ready: `tr[data-problem="${problemId}"]` },
  { name: "problem", path: `/ui/problems/${problemId}`, ready: "section[aria-labelledby=examples] blockquote" },
  { name: "compare", path: "/ui/compare?label=version&a=1.3.0&b=1.4.0", ready: "table.compare tbody tr" },
  { name: "digest", path: "/ui/digest", ready: "section[aria-labelledby=new] li" },
  { name: "submit", path: "/ui/submit", ready: ".dropzone" },
  { name: "connect", path: "/ui/connect", ready: "pre.code" }
]

const open = async (page: Page, path: string, ready: string) => {
  await page.goto(`${service.url}${path}`)
  await page.locator(ready).first().waitFor({ timeout: 15_000 })
}

describe("the dashboard's pages", () => {
  it("show hostile content as text on every page: nothing runs, loads or links out", async () => {
    const { context, page, external, dialogs, errors } = await tab(ADMIN_KEY)
    for (const { path, ready, name } of LOADED()) {
      await open(page, path, ready)
      const text = (await page.locator("main").textContent()) ?? ""
      for (const markup of SHOWN[name] ?? []) expect(text, `${name}: ${markup}`).toContain(markup)
      const counts: unknown = await page.evaluate(`({
        owned: window.owned ?? null,
        elements: document.querySelectorAll("main img, main iframe, main object, main embed, main script, main b, main svg:not(.trend), main svg:not(.trend) *").length,
        javascriptLinks: document.querySelectorAll("a[href^='javascript:' i]").length,
        scripts: document.querySelectorAll("script").length
      })`)
      expect(counts, name).toEqual({ owned: null, elements: 0, javascriptLinks: 0, scripts: 1 })
    }
    expect(external).toEqual([])
    expect(dialogs).toEqual([])
    expect(errors).toEqual([])
    await context.close()
  })

  it("runs the main flow with the keyboard alone, the focus visible at every step", async () => {
    const { context, page, external, errors } = await tab(null)
    await page.goto(`${service.url}/ui/runs/${runId}`)
    await page.waitForURL(/\/ui\/sign-in\?next=/)
    // the page drawn, its heading focused (as a page opens): the Tab presses start from there
    await page.locator("h1:focus").waitFor()
    /** Presses Tab (Shift+Tab: back) until the focused element matches, checking that each focused element shows its focus. */
    const tabTo = async (matches: string, back = false) => {
      for (let presses = 0; presses < 80; presses++) {
        await page.keyboard.press(back ? "Shift+Tab" : "Tab")
        const focused: unknown = await page.evaluate(`(() => {
          const element = document.activeElement
          if (element === null || element === document.body) return null
          const style = getComputedStyle(element)
          return { matches: element.matches(${JSON.stringify(matches)}), visible: style.outlineStyle !== "none" && style.outlineWidth !== "0px" }
        })()`)
        if (focused === null || typeof focused !== "object") continue
        expect(focused, `focus on the way to ${matches}`).toMatchObject({ visible: true })
        if ("matches" in focused && focused.matches === true) return
      }
      throw new Error(`Tab never reached ${matches}`)
    }
    await tabTo("input[name=key]")
    await page.keyboard.type(ADMIN_KEY)
    await page.keyboard.press("Enter")
    // back to the deep link asked for
    await page.waitForURL(`**/ui/runs/${runId}`)
    await page.locator("#event-4").waitFor()
    await page.locator("h1:focus").waitFor()
    await tabTo('a[href="#event-1"]')
    await page.keyboard.press("Enter")
    await page.waitForURL(/#event-1$/)
    await expect(page.evaluate("document.activeElement?.id")).resolves.toBe("event-1")
    await tabTo(`a[href="/ui/problems/${problemId}"]`, true)
    await page.keyboard.press("Enter")
    await page.waitForURL(`**/ui/problems/${problemId}`)
    await page.locator("section[aria-labelledby=examples] blockquote").first().waitFor()
    await page.locator("h1:focus").waitFor()
    await tabTo('nav a[href="/ui/runs"]', true)
    await page.keyboard.press("Enter")
    await page.locator(`tr[data-run="${runId}"]`).waitFor()
    expect(external).toEqual([])
    expect(errors).toEqual([])
    await context.close()
  })

  it("has no serious or critical accessibility violation on any page in any state (axe-core)", async () => {
    const states: Array<{ readonly state: string; readonly key: string | null; readonly path: string; readonly ready: string }> = [
      { state: "signed out", key: null, path: "/ui/sign-in?next=%2Fui%2Fruns", ready: "input[name=key]" },
      ...LOADED().map((page) => ({ state: `loaded ${page.name}`, key: ADMIN_KEY, path: page.path, ready: page.ready })),
      { state: "empty runs", key: EMPTY_KEY, path: "/ui/runs", ready: ".notice" },
      { state: "empty problems", key: EMPTY_KEY, path: "/ui/problems", ready: ".notice" },
      { state: "empty compare", key: EMPTY_KEY, path: "/ui/compare", ready: ".notice" },
      { state: "error run", key: ADMIN_KEY, path: "/ui/runs/run_missing", ready: ".notice-error" },
      { state: "error problem", key: ADMIN_KEY, path: "/ui/problems/prb_missing", ready: ".notice-error" },
      { state: "not found", key: ADMIN_KEY, path: "/ui/nowhere", ready: "h1" }
    ]
    const found: Array<string> = []
    for (const { state, key, path, ready } of states) {
      // axe reads the page with its own script: the page's policy is bypassed for it alone
      const { context, page } = await tab(key, { bypassCSP: true })
      await open(page, path, ready)
      await page.evaluate(AXE)
      const violations: unknown = await page.evaluate(`axe.run(document, { resultTypes: ["violations"] }).then((result) =>
        result.violations.filter((violation) => violation.impact === "serious" || violation.impact === "critical")
          .map((violation) => violation.id + ": " + violation.nodes.map((node) => node.target.join(" ")).join(", ")))`)
      if (Array.isArray(violations)) for (const violation of violations) found.push(`${state}: ${String(violation)}`)
      await context.close()
    }
    expect(found).toEqual([])
  })
})
