/**
 * The dashboard's static shell (DECISIONS §22, docs/ui.md): one HTML page for every `/ui` path
 * (the app routes by history), and the app's assets under hashed names, read on first use from
 * the build (dist/ui/, made by scripts/build.mjs, whose manifest names them). They hold no data,
 * so the edge serves them without a key; every datum the app shows comes through the API with
 * the key the person signed in with.
 *
 * The shell is never cached (a new build names new assets); the assets are `immutable`. The
 * shell's policy allows the app's own script and style and nothing else: no inline script or
 * style, no other origin, and Trusted Types required with no policy allowed, so no string can
 * reach an HTML or script sink (the app writes text only; a lint rule forbids `innerHTML`).
 */
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"

export interface DashboardResponse {
  readonly contentType: string
  readonly body: Uint8Array
  /** In place of the edge's defaults of the same names (cache-control, content-security-policy). */
  readonly headers: Readonly<Record<string, string>>
}

export const DASHBOARD_ASSETS = "/ui/assets/"

export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
  "trusted-types 'none'"
].join("; ")

const IMMUTABLE = "public, max-age=31536000, immutable"

const TYPES: Readonly<Record<string, string>> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8"
}

/** dist/ui/ beside the built server (dist/chunks/), or the checkout's build when running from source. */
const builtDirectory = (): string | undefined =>
  [join(import.meta.dirname, "..", "ui"), join(import.meta.dirname, "..", "..", "dist", "ui")].find((dir) => existsSync(join(dir, "manifest.json")))

const encoder = new TextEncoder()

const manifestOf = (dir: string): { readonly script: string; readonly style: string } | undefined => {
  const parsed: unknown = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"))
  if (typeof parsed !== "object" || parsed === null || !("script" in parsed) || !("style" in parsed)) return undefined
  const { script, style } = parsed
  return typeof script === "string" && typeof style === "string" ? { script, style } : undefined
}

/**
 * The tab's icon, inline (a data: URL, which the policy's img-src allows): a browser that finds no
 * icon asks for /favicon.ico, and its 404 is an error in every page's console.
 */
const ICON = `data:image/svg+xml,${encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#0550ae"/><path d="M4 8.5l2.5 2.5L12 5" fill="none" stroke="#fff" stroke-width="2"/></svg>'
)}`

/** The shell: the app's assets, and whether the service asks for a key (so the app needs no request to know). */
const shellOf = (script: string, style: string, authRequired: boolean): string => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="svc-auth" content="${authRequired ? "required" : "off"}">
<title>pattern-analysis-service</title>
<link rel="icon" type="image/svg+xml" href="${ICON}">
<link rel="stylesheet" href="${DASHBOARD_ASSETS}${style}">
<script type="module" src="${DASHBOARD_ASSETS}${script}"></script>
</head>
<body>
<div id="app"></div>
<noscript>The dashboard needs JavaScript; the API is at <a href="/docs">/docs</a>.</noscript>
</body>
</html>
`

interface Built {
  readonly shell: DashboardResponse
  readonly assets: ReadonlyMap<string, DashboardResponse>
}

/**
 * The dashboard's answer to a GET of a `/ui` path: the shell, an asset, or undefined (no such
 * asset, or no build: the edge answers 404).
 */
export const makeDashboard = (options: { readonly authRequired: boolean }): ((path: string) => DashboardResponse | undefined) => {
  let built: Built | null | undefined
  const load = (): Built | null => {
    const dir = builtDirectory()
    const manifest = dir === undefined ? undefined : manifestOf(dir)
    if (dir === undefined || manifest === undefined) return null
    const assets = new Map<string, DashboardResponse>()
    for (const file of [manifest.script, manifest.style]) {
      const type = TYPES[file.slice(file.lastIndexOf("."))]
      if (type === undefined) continue
      assets.set(`${DASHBOARD_ASSETS}${file}`, { contentType: type, body: new Uint8Array(readFileSync(join(dir, file))), headers: { "cache-control": IMMUTABLE } })
    }
    return {
      shell: {
        contentType: "text/html; charset=utf-8",
        body: encoder.encode(shellOf(manifest.script, manifest.style, options.authRequired)),
        headers: { "cache-control": "no-cache", "content-security-policy": DASHBOARD_CSP }
      },
      assets
    }
  }
  return (path) => {
    if (built === undefined) built = load()
    if (built === null) return undefined
    return path.startsWith(DASHBOARD_ASSETS) ? built.assets.get(path) : built.shell
  }
}
