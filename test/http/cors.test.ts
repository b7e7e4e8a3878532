/**
 * Browsers on other origins (SVC_CORS_ORIGINS, src/Edge/Cors.ts): off by default, no CORS header
 * is ever sent; with origins listed, their preflights are answered at the edge before the guards
 * (a preflight carries no key), and every answer to them, refusals included, carries
 * Access-Control-Allow-Origin with Vary: Origin. Other origins get nothing: their preflight is an
 * ordinary request (here refused, as it carries no key). The browser's view of
 * it is in test/packaging/install.test.ts (the installed client in headless Chromium).
 */
import { describe, expect, it } from "@effect/vitest"
import { useProviderDouble } from "../support/Harness.js"
import { exampleTrace } from "../support/ProviderDouble.js"

const KEY = "cors-test-key-0123456789"
const APP = "https://app.example.com"
const harness = useProviderDouble()
const start = (env: Record<string, string> = {}) =>
  harness.start({
    ANTHROPIC_API_KEY: "sk-ant-cors-0123456789",
    ANTHROPIC_BASE_URL: harness.double.url,
    SVC_API_REQUIRE_AUTH: "true",
    SVC_API_KEYS: `browser=${KEY}`,
    ...env
  })
const preflight = (url: string, origin: string) =>
  fetch(`${url}/v1/analyze/lewin`, {
    method: "OPTIONS",
    headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "authorization, content-type, traceparent" }
  })

describe("CORS", () => {
  it("is off by default: no CORS header on any answer, and a preflight is an ordinary request (401: it carries no key)", async () => {
    const service = await start()
    const answered = await fetch(`${service.url}/v1/patterns`, { headers: { origin: APP, authorization: `Bearer ${KEY}` } })
    expect(answered.status).toBe(200)
    expect(answered.headers.get("access-control-allow-origin")).toBeNull()
    const refused = await preflight(service.url, APP)
    expect(refused.headers.get("access-control-allow-origin")).toBeNull()
    expect(refused.status).toBe(401)
    expect(await refused.json()).toEqual({ detail: { error: "unauthorized", message: expect.any(String) } })
  })

  it("answers a listed origin's preflight before the guards, and marks every answer to it", async () => {
    const service = await start({ SVC_CORS_ORIGINS: `${APP}, http://localhost:5173` })
    const allowed = await preflight(service.url, APP)
    expect(allowed.status).toBe(204)
    expect(allowed.headers.get("access-control-allow-origin")).toBe(APP)
    expect(allowed.headers.get("access-control-allow-methods")).toBe("GET, POST")
    expect(allowed.headers.get("access-control-allow-headers")).toBe("authorization, content-type, traceparent")
    expect(allowed.headers.get("vary")).toBe("Origin")
    expect(allowed.headers.get("x-request-id")).toMatch(/./)
    expect(allowed.headers.get("access-control-allow-credentials")).toBeNull()

    const analysis = await fetch(`${service.url}/v1/analyze/lewin`, {
      method: "POST",
      headers: { origin: APP, authorization: `Bearer ${KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ trace: exampleTrace("lewin"), mode: "quick" })
    })
    expect(analysis.status).toBe(200)
    expect(analysis.headers.get("access-control-allow-origin")).toBe(APP)
    expect(analysis.headers.get("access-control-expose-headers")).toContain("x-request-id")
    // A refusal too: the page must be able to read why.
    const refused = await fetch(`${service.url}/v1/patterns`, { headers: { origin: APP } })
    expect(refused.status).toBe(401)
    expect(refused.headers.get("access-control-allow-origin")).toBe(APP)

    // An origin not listed: nothing, and its preflight is an ordinary request (refused: no key).
    const other = await preflight(service.url, "https://evil.example.net")
    expect(other.status).toBe(401)
    expect(other.headers.get("access-control-allow-origin")).toBeNull()
    const otherGet = await fetch(`${service.url}/v1/patterns`, { headers: { origin: "https://evil.example.net", authorization: `Bearer ${KEY}` } })
    expect(otherGet.status).toBe(200)
    expect(otherGet.headers.get("access-control-allow-origin")).toBeNull()
  })

  it("`*` allows any origin, echoed back", async () => {
    const service = await start({ SVC_CORS_ORIGINS: "*" })
    const answered = await fetch(`${service.url}/healthz`, { headers: { origin: "http://127.0.0.1:3000" } })
    expect(answered.headers.get("access-control-allow-origin")).toBe("http://127.0.0.1:3000")
  })
})
