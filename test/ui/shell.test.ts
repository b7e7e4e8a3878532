/**
 * What the service does for the dashboard (DECISIONS §22), over HTTP: the shell for every /ui path
 * without a key, under its strict policy and never cached; the hashed assets cached immutable; the
 * first load within 250 KB gzip; a run and the list answered with ETags and 304; a run's kept
 * trace; the trace id search; HTML reports served sandboxed.
 */
import { beforeAll, describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { gzipSync } from "node:zlib"
import { RunList, RunTrace } from "../../src/Contract/RunsContract.js"
import { DASHBOARD_CSP } from "../../src/Ui/Shell.js"
import { useProviderDouble } from "../support/Harness.js"
import type { RunningService } from "../support/Service.js"
import { agentsTrace, agentsTraceId, call, chatTrace, decoded, freshHome, quotingEvents, submitOne, waitForRun } from "../runs/support.js"

const harness = useProviderDouble()
const KEY = "read-admin-key-shell-0123456789"
let service: RunningService

beforeAll(async () => {
  service = await harness.start({
    ANTHROPIC_API_KEY: "sk-ant-shell-0123456789",
    ANTHROPIC_BASE_URL: harness.double.url,
    SVC_WORKERS: "1",
    SVC_CACHE: "off",
    SVC_HOME: freshHome("shell"),
    SVC_API_REQUIRE_AUTH: "true",
    SVC_API_KEYS: `boss=${KEY}`,
    SVC_API_KEY_ROLES: "boss=admin"
  })
})

const manifest = (): { readonly script: string; readonly style: string } => JSON.parse(readFileSync(join(import.meta.dirname, "..", "..", "dist", "ui", "manifest.json"), "utf8"))

describe("the dashboard's shell", () => {
  it("answers every /ui path with the shell, without a key, under the dashboard's policy, never cached", async () => {
    for (const path of ["/ui", "/ui/runs", "/ui/runs/run_x", "/ui/problems/prb_x", "/ui/compare", "/ui/digest", "/ui/submit", "/ui/connect", "/ui/sign-in", "/ui/nowhere"]) {
      const response = await fetch(`${service.url}${path}`)
      expect(response.status, path).toBe(200)
      expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8")
      expect(response.headers.get("content-security-policy")).toBe(DASHBOARD_CSP)
      expect(response.headers.get("cache-control")).toBe("no-cache")
      const html = await response.text()
      expect(html).toContain(`<script type="module" src="/ui/assets/${manifest().script}"></script>`)
      expect(html).toContain('<meta name="svc-auth" content="required">')
    }
    expect(DASHBOARD_CSP).toContain("require-trusted-types-for 'script'")
    expect(DASHBOARD_CSP).not.toContain("unsafe-inline")
    // the API itself still asks for the key
    expect((await fetch(`${service.url}/v1/runs`)).status).toBe(401)
  })

  it("serves the hashed assets immutable, and nothing else from /ui/assets/", async () => {
    const { script, style } = manifest()
    const js = await fetch(`${service.url}/ui/assets/${script}`)
    expect(js.status).toBe(200)
    expect(js.headers.get("content-type")).toBe("text/javascript; charset=utf-8")
    expect(js.headers.get("cache-control")).toBe("public, max-age=31536000, immutable")
    const css = await fetch(`${service.url}/ui/assets/${style}`)
    expect(css.headers.get("content-type")).toBe("text/css; charset=utf-8")
    // only the files the manifest names: a lookup, never a path read from disk
    for (const path of ["/ui/assets/app-missing.js", "/ui/assets/manifest.json", "/ui/assets/app.js"]) {
      const missing = await fetch(`${service.url}${path}`)
      expect(missing.status, path).toBe(404)
      expect(await missing.json()).toEqual({ detail: { error: "not_found", message: "no such dashboard asset" } })
    }
    const posted = await fetch(`${service.url}/ui/runs`, { method: "POST" })
    expect(posted.status).toBe(405)
    expect(posted.headers.get("allow")).toBe("GET, HEAD")
    // HEAD: the same headers, no body
    const head = await fetch(`${service.url}/ui/assets/${script}`, { method: "HEAD" })
    expect(head.status).toBe(200)
    expect(head.headers.get("cache-control")).toBe("public, max-age=31536000, immutable")
    expect(head.headers.get("content-length")).toBe(js.headers.get("content-length"))
    expect(await head.text()).toBe("")
  })

  it("loads in at most 250 KB gzip: the shell, the script and the stylesheet", async () => {
    const { script, style } = manifest()
    const bytes = await Promise.all(["/ui", `/ui/assets/${script}`, `/ui/assets/${style}`].map(async (path) => new Uint8Array(await (await fetch(`${service.url}${path}`)).arrayBuffer())))
    const gzipped = bytes.reduce((sum, body) => sum + gzipSync(body, { level: 9 }).byteLength, 0)
    expect(gzipped).toBeLessThanOrEqual(250 * 1024)
  })
})

describe("the API the dashboard polls", () => {
  const contents = chatTrace("shell").messages.map((message) => message.content)
  let runId = ""
  beforeAll(async () => {
    harness.double.script = quotingEvents(contents, [2])
    const trace = chatTrace("shell")
    // a secret in the trace: kept redacted
    const withSecret = { messages: [...trace.messages, { role: "user", content: "my key is AKIAIOSFODNN7EXAMPLE, use it" }] }
    runId = await submitOne(service, { trace: withSecret, mode: "quick", patterns: ["lewin"] }, { key: KEY })
    await waitForRun(service, runId, { key: KEY })
  })

  it("answers a run and the list with an ETag, and 304 to If-None-Match until they change", async () => {
    for (const path of [`/v1/runs/${runId}`, "/v1/runs"]) {
      const first = await call(service, "GET", path, { key: KEY })
      expect(first.status).toBe(200)
      const etag = first.headers.get("etag")
      expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/)
      const again = await fetch(`${service.url}${path}`, { headers: { authorization: `Bearer ${KEY}`, "if-none-match": etag ?? "" } })
      expect(again.status, path).toBe(304)
      expect(again.headers.get("etag")).toBe(etag)
      expect(await again.text()).toBe("")
      const other = await fetch(`${service.url}${path}`, { headers: { authorization: `Bearer ${KEY}`, "if-none-match": '"something-else"' } })
      expect(other.status).toBe(200)
    }
    // the list changes with a new run: a new ETag
    const before = (await call(service, "GET", "/v1/runs", { key: KEY })).headers.get("etag")
    harness.double.script = quotingEvents(contents, [2])
    await submitOne(service, { trace: chatTrace("shell-2"), mode: "quick", patterns: ["lewin"] }, { key: KEY })
    const after = await fetch(`${service.url}/v1/runs`, { headers: { authorization: `Bearer ${KEY}`, "if-none-match": before ?? "" } })
    expect(after.status).toBe(200)
    expect(after.headers.get("etag")).not.toBe(before)
  })

  it("serves a run's trace as kept: its events, redacted", async () => {
    const kept = await decoded(await call(service, "GET", `/v1/runs/${runId}/trace`, { key: KEY }), 200, RunTrace)
    expect(kept.trace.events.map((event) => event.content).slice(0, 5)).toEqual(contents)
    expect(JSON.stringify(kept)).not.toContain("AKIAIOSFODNN7EXAMPLE")
    expect(Object.values(kept.redactions).reduce((sum, count) => sum + count, 0)).toBeGreaterThan(0)
    expect((await call(service, "GET", "/v1/runs/run_nope/trace", { key: KEY })).status).toBe(404)
    expect((await fetch(`${service.url}/v1/runs/${runId}/trace`)).status).toBe(401)
  })

  it("finds runs by trace id", async () => {
    const id = await submitOne(service, { trace: agentsTrace(42), mode: "quick", patterns: ["lewin"] }, { key: KEY })
    const found = await decoded(await call(service, "GET", `/v1/runs?trace_id=${agentsTraceId(42)}`, { key: KEY }), 200, RunList)
    expect(found.runs.map((each) => each.id)).toEqual([id])
    const none = await decoded(await call(service, "GET", "/v1/runs?trace_id=nothing-like-it", { key: KEY }), 200, RunList)
    expect(none.runs).toEqual([])
  })

  it("answers an HTML report sandboxed", async () => {
    const response = await call(service, "GET", `/v1/runs/${runId}/report?output=html`, { key: KEY })
    expect(response.status).toBe(200)
    expect(response.headers.get("content-security-policy")).toMatch(/^sandbox; default-src 'none'/)
    const markdown = await call(service, "GET", `/v1/runs/${runId}/report?output=markdown`, { key: KEY })
    expect(markdown.headers.get("content-security-policy")).not.toContain("sandbox")
  })
})
