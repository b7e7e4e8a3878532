/**
 * /docs (Swagger UI) and /redoc (Redoc) render the operations in a real headless Chromium with
 * no internet (every non-loopback request is blocked and recorded), and the OpenAPI document
 * passes Spectral (spectral:oas) and Redocly lint with no errors.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Browser } from "playwright-core"
import { launchChromium } from "../support/Browser.js"
import { type RunningService, startService } from "../support/Service.js"

const root = join(import.meta.dirname, "..", "..")
let service: RunningService
let browser: Browser

beforeAll(async () => {
  service = await startService()
  browser = await launchChromium()
})
afterAll(async () => {
  await browser?.close()
  await service?.close()
})

const isLoopback = (url: string) => /^(https?:\/\/(127\.0\.0\.1|localhost)(:\d+)?\/|data:|blob:|about:)/.test(url)

const openPage = async (path: string) => {
  const page = await browser.newPage()
  const external: Array<string> = []
  const problems: Array<string> = []
  await page.route("**/*", (route) => {
    const url = route.request().url()
    if (isLoopback(url)) return route.continue()
    external.push(url)
    return route.abort()
  })
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(message.text())
  })
  page.on("pageerror", (error) => problems.push(error.message))
  await page.goto(`${service.url}${path}`, { waitUntil: "networkidle" })
  return { page, external, problems }
}

describe("documentation pages", () => {
  it("Swagger UI at /docs renders every operation, offline", async () => {
    const { page, external, problems } = await openPage("/docs")
    await page.waitForSelector(".opblock", { timeout: 30_000 })
    const operations = await page.locator(".opblock").count()
    // 34 analyze endpoints + the fallback + 5 catalogue + 4 probes + 3 docs.
    expect(operations).toBeGreaterThanOrEqual(45)
    expect(await page.locator(".opblock-summary-path", { hasText: "/v1/analyze/lencioni" }).count()).toBe(1)
    expect(await page.locator(".info .title").innerText()).toContain("pattern-analysis-service")
    expect(external).toEqual([])
    expect(problems).toEqual([])
    await page.close()
  })

  it("Redoc at /redoc renders every operation, offline", async () => {
    const { page, external, problems } = await openPage("/redoc")
    await page.waitForSelector("[data-section-id^='operation/']", { timeout: 30_000 })
    const operations = await page.locator("[data-section-id^='operation/']").count()
    expect(operations).toBeGreaterThanOrEqual(45)
    expect(await page.locator("h1").first().innerText()).toContain("pattern-analysis-service")
    expect(external).toEqual([])
    expect(problems).toEqual([])
    await page.close()
  })
})

describe("OpenAPI linters", () => {
  const saveDocument = async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-openapi-"))
    const file = join(dir, "openapi.json")
    writeFileSync(file, await (await fetch(`${service.url}/openapi.json`)).text())
    return file
  }

  it("passes @stoplight/spectral-cli with spectral:oas and no errors", async () => {
    const file = await saveDocument()
    const result = spawnSync(
      join(root, "node_modules", ".bin", "spectral"),
      ["lint", file, "--ruleset", join(root, ".spectral.yaml"), "--fail-severity", "error", "--format", "text"],
      { encoding: "utf8", cwd: root }
    )
    expect(result.stdout + result.stderr).not.toMatch(/\berror\b/)
    expect(result.status).toBe(0)
  })

  it("passes @redocly/cli lint with no errors", async () => {
    const file = await saveDocument()
    const result = spawnSync(join(root, "node_modules", ".bin", "redocly"), ["lint", file, "--format", "stylish"], {
      encoding: "utf8",
      cwd: root,
      env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" }
    })
    expect(result.stdout + result.stderr).not.toMatch(/[1-9]\d* errors?\b/)
    expect(result.status).toBe(0)
  })
})
