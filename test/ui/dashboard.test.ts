/**
 * The dashboard (DECISIONS §22) in a real headless Chromium (Debian's, driven by playwright-core),
 * against the real service with auth on, its workers diagnosing through the provider double:
 * sign in, submit trace files, watch a run go queued → running → done without a reload, open its
 * report, follow its evidence into the timeline, open its problem and resolve it, and open a deep
 * link in a fresh context (sign-in first, then the page asked for). Every request the pages make
 * is recorded: none leaves the origin, and the key is in no URL.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { launchChromium, recordPage } from "../support/Browser.js"
import { useProviderDouble } from "../support/Harness.js"
import type { RecordedCall, Reply } from "../support/ProviderDouble.js"
import type { RunningService } from "../support/Service.js"
import { chatTrace, freshHome, quotingEvents, submitOne, waitForRun } from "../runs/support.js"

const harness = useProviderDouble()
const ADMIN_KEY = "admin-key-dashboard-0123456789"

let service: RunningService
let browser: Browser
const files = mkdtempSync(join(tmpdir(), "svc-ui-"))

beforeAll(async () => {
  // one worker: the second run of a submission waits in the queue while the first is diagnosed
  service = await harness.start({
    ANTHROPIC_API_KEY: "sk-ant-dashboard-0123456789",
    ANTHROPIC_BASE_URL: harness.double.url,
    SVC_WORKERS: "1",
    SVC_CACHE: "off",
    SVC_HOME: freshHome("ui"),
    SVC_API_REQUIRE_AUTH: "true",
    SVC_API_KEYS: `boss=${ADMIN_KEY}`,
    SVC_API_KEY_ROLES: "boss=admin"
  })
  browser = await launchChromium()
})
afterAll(async () => {
  await browser?.close()
})

/** A page of `context`, its requests recorded (none let out of the service's origin). */
const watch = async (context: BrowserContext) => {
  const page = await context.newPage()
  const { external, urls, errors } = await recordPage(page, service.url)
  return { page, external, urls, problems: errors }
}

const signIn = async (page: Page) => {
  await page.waitForURL(/\/ui\/sign-in\?next=/)
  await page.getByLabel("API key").fill(ADMIN_KEY)
  await page.getByRole("button", { name: "Sign in" }).click()
}

/** A trace file as a person would drop it: the diagnose's body, one lens. */
const traceFile = (marker: string): string => {
  const path = join(files, `${marker}.json`)
  writeFileSync(path, JSON.stringify({ trace: chatTrace(marker), mode: "quick", patterns: ["lewin"], labels: { version: "1.4.0" } }))
  return path
}

describe("the dashboard in a browser", () => {
  it("signs in, submits, watches a run finish live, follows evidence, resolves its problem; a deep link signs in first", async () => {
    const contents = chatTrace("ui-b").messages.map((message) => message.content)
    const quoting = quotingEvents(contents, [2, 4])
    // the lenses answer after a while: the first run holds the one worker for 6 s (the second waits
    // queued meanwhile, even on a loaded machine), the second runs for 2 s (it is seen running)
    harness.double.script = (recorded: RecordedCall): Reply | undefined => {
      const reply = quoting(recorded)
      return reply === undefined ? undefined : { kind: "delay", ms: recorded.text.includes("ui-a") ? 6_000 : 2_000, then: reply }
    }
    const context = await browser.newContext()
    const { page, external, urls, problems } = await watch(context)
    await page.goto(`${service.url}/ui`)
    await signIn(page)
    await page.waitForURL(/\/ui(\/runs)?$/)
    await expect(page.getByRole("heading", { level: 1, name: "Runs" }).isVisible()).resolves.toBe(true)

    // Submit: two files, two runs (one picked, then another)
    await page.getByRole("link", { name: "Submit", exact: true }).click()
    // one after the other: the first run is the first in the queue
    await page.locator("input[type=file]").setInputFiles([traceFile("ui-a")])
    await page.locator('.uploads li[data-state="done"]').first().waitFor()
    await page.locator("input[type=file]").setInputFiles([traceFile("ui-b")])
    await page.locator('.uploads li[data-state="done"]').nth(1).waitFor()
    const second = page.locator(".uploads > li").nth(1).getByRole("link")
    const runPath = await second.getAttribute("href")
    expect(runPath).toMatch(/^\/ui\/runs\/run_/)

    // the second run, live: queued, then running, then done, in one page load
    const loads: Array<string> = []
    page.on("load", () => loads.push(page.url()))
    await second.click()
    await page.waitForURL(`**${runPath ?? ""}`)
    // the statuses the page shows, as they change (a script in the page: the test's own code, not the app's)
    await page.evaluate(`(() => {
      const seen = []
      window.seenStatuses = seen
      const record = () => {
        const status = document.querySelector("[data-status]")?.getAttribute("data-status")
        if (status && seen[seen.length - 1] !== status) seen.push(status)
      }
      record()
      new MutationObserver(record).observe(document.body, { subtree: true, childList: true, attributes: true })
    })()`)
    await page.locator('[data-status="done"]').waitFor({ timeout: 30_000 })
    const statuses: unknown = await page.evaluate("window.seenStatuses")
    expect(statuses).toEqual(["queued", "running", "done"])
    expect(loads).toEqual([])

    // the report, and its evidence followed into the timeline
    await page.getByRole("heading", { name: /Findings \(1\)/ }).waitFor()
    await page.locator("#event-2").waitFor()
    await page.getByRole("link", { name: "event 2" }).first().click()
    await page.waitForURL(/#event-2$/)
    await expect(page.evaluate("document.activeElement?.id")).resolves.toBe("event-2")
    await expect(page.locator("#event-2 .event-text").textContent()).resolves.toBe(contents[2])

    // its problem, resolved
    await page.locator('section[aria-labelledby=summary] a[href^="/ui/problems/"]').click()
    await page.waitForURL(/\/ui\/problems\/prb_/)
    const problemUrl = page.url()
    await page.getByRole("button", { name: "Resolve" }).click()
    await page.locator('[data-status="resolved"]').waitFor()

    // a deep link in a fresh context: the sign-in, then the problem
    const fresh = await watch(await browser.newContext())
    await fresh.page.goto(problemUrl)
    await signIn(fresh.page)
    await fresh.page.waitForURL(problemUrl)
    await fresh.page.locator('[data-status="resolved"]').waitFor()

    // signing out forgets the key: the next page asks for it again
    await fresh.page.getByRole("button", { name: "Sign out" }).click()
    await fresh.page.waitForURL(/\/ui\/sign-in$/)
    await expect(fresh.page.evaluate("sessionStorage.length")).resolves.toBe(0)
    await fresh.page.goto(`${service.url}/ui/runs?status=done`)
    await fresh.page.waitForURL(/\/ui\/sign-in\?next=%2Fui%2Fruns%3Fstatus%3Ddone$/)

    expect(external).toEqual([])
    expect(fresh.external).toEqual([])
    expect([...urls, ...fresh.urls].filter((url) => url.includes(ADMIN_KEY))).toEqual([])
    expect([...problems, ...fresh.problems]).toEqual([])
    await context.close()
  })

  it("with auth off: a banner says so, no sign-in; a report downloads as Markdown, SARIF, HTML and OTLP", async () => {
    const open = await harness.start({
      ANTHROPIC_API_KEY: "sk-ant-dashboard-0123456789",
      ANTHROPIC_BASE_URL: harness.double.url,
      SVC_WORKERS: "1",
      SVC_CACHE: "off",
      SVC_HOME: freshHome("ui-open")
    })
    const contents = chatTrace("ui-open").messages.map((message) => message.content)
    harness.double.script = quotingEvents(contents, [2])
    const id = await submitOne(open, { trace: chatTrace("ui-open"), mode: "quick", patterns: ["lewin"] })
    await waitForRun(open, id)
    const context = await browser.newContext()
    const page = await context.newPage()
    await page.goto(`${open.url}/ui/runs/${id}`)
    await page.getByRole("note").filter({ hasText: "Authentication is off" }).waitFor()
    await page.locator('[data-status="done"]').waitFor()
    expect(page.url()).toBe(`${open.url}/ui/runs/${id}`)
    const expected: ReadonlyArray<readonly [label: string, check: (text: string) => boolean]> = [
      ["Markdown", (text) => text.startsWith("#")],
      ["SARIF", (text) => text.includes('"version": "2.1.0"') || text.includes('"version":"2.1.0"')],
      ["HTML", (text) => text.startsWith("<!doctype html>")],
      ["OTLP", (text) => text.includes("resourceLogs") || text.includes("resourceSpans")]
    ]
    for (const [label, check] of expected) {
      const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: label, exact: true }).click()])
      expect(download.suggestedFilename()).toMatch(new RegExp(`^run-${id}\\.`))
      const path = await download.path()
      expect(check(readFileSync(path, "utf8")), label).toBe(true)
    }
    await context.close()
  })

  it("a key the service refuses (revoked meanwhile) leads to the sign-in, and back to the page", async () => {
    const context = await browser.newContext()
    await context.addInitScript(`sessionStorage.setItem("svc.key", "revoked-key-0123456789")`)
    const { page, urls } = await watch(context)
    await page.goto(`${service.url}/ui/problems?status=open`)
    await page.waitForURL(/\/ui\/sign-in\?next=%2Fui%2Fproblems%3Fstatus%3Dopen$/)
    await expect(page.evaluate("sessionStorage.length")).resolves.toBe(0)
    await signIn(page)
    await page.waitForURL(/\/ui\/problems\?status=open$/)
    await page.getByRole("heading", { level: 1, name: "Problems" }).waitFor()
    expect(urls.filter((url) => url.includes("revoked-key") || url.includes(ADMIN_KEY))).toEqual([])
    await context.close()
  })
})
