/**
 * Debian's Chromium driven by playwright-core, as the browser tests run it (the test setup
 * installs it): headless, and without the background connections a closed network refuses. A
 * page's requests can be recorded, with every one to another origin aborted.
 */
import { type Browser, chromium, type Page } from "playwright-core"
import { requireTool } from "./Tools.js"

export const launchChromium = (): Promise<Browser> =>
  chromium.launch({
    executablePath: requireTool("chromium", "chromium"),
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-quic", "--no-first-run", "--disable-component-update", "--disable-sync"]
  })

export interface Recorded {
  /** Every URL the page asked for. */
  readonly urls: Array<string>
  /** Those to anywhere but the origin (aborted). */
  readonly external: Array<string>
  /** Console errors and uncaught page errors. */
  readonly errors: Array<string>
}

/** Records what `page` asks for and reports; lets through `origin`'s requests (and data: and blob:) only. */
export const recordPage = async (page: Page, origin: string): Promise<Recorded> => {
  const recorded: Recorded = { urls: [], external: [], errors: [] }
  await page.route("**/*", (route) => {
    const url = route.request().url()
    recorded.urls.push(url)
    if (url.startsWith(origin) || url.startsWith("data:") || url.startsWith("blob:")) return route.continue()
    recorded.external.push(url)
    return route.abort()
  })
  page.on("console", (message) => {
    if (message.type() === "error") recorded.errors.push(message.text())
  })
  page.on("pageerror", (error) => recorded.errors.push(error.message))
  return recorded
}
