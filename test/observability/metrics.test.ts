/**
 * /metrics: served on the main port from the OpenTelemetry Prometheus exporter, with the right
 * metric types and labels, and accepted by a real tool (`promtool check metrics`).
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import { type RunningService, startService } from "../support/Service.js"
import { requireTool } from "../support/Tools.js"

let service: RunningService
beforeAll(async () => {
  service = await startService()
})
afterAll(async () => {
  await service.close()
})

const post = (path: string, body: unknown) =>
  fetch(`${service.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })

/** The value of one sample line, or undefined. */
const sample = (text: string, name: string, labels: Record<string, string>): number | undefined => {
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`)) continue
    const ok = Object.entries(labels).every(([key, value]) => line.includes(`${key}="${value}"`))
    if (ok) return Number(line.slice(line.lastIndexOf(" ") + 1))
  }
  return undefined
}

describe("/metrics", () => {
  it("exposes svc_requests_total (counter) and svc_request_duration_seconds (histogram) with their labels", async () => {
    await post("/v1/analyze/lewin", { task: "t" })
    await post("/v1/analyze/lewin", { task: "t", steps: [{ type: "a", content: "b" }], outcome: "o", mode: "standard" })
    await post("/v1/analyze/no_such_pattern", {})
    // An option refused after the mode is known is labelled with that mode; before it, "unknown".
    await post("/v1/analyze/lewin", { task: "t", steps: [{ type: "a", content: "b" }], outcome: "o", mode: "forensic", model: 7 })
    await post("/v1/analyze/lewin", { task: "t", steps: [{ type: "a", content: "b" }], outcome: "o", mode: "slow" })
    const response = await fetch(`${service.url}/metrics`)
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8")
    const text = await response.text()
    expect(text).toContain("# TYPE svc_requests_total counter")
    expect(text).toContain("# TYPE svc_request_duration_seconds histogram")
    expect(sample(text, "svc_requests_total", { surface: "rest", pattern: "lewin", mode: "standard", status: "validation_error" })).toBeGreaterThanOrEqual(1)
    expect(sample(text, "svc_requests_total", { pattern: "lewin", mode: "standard", status: "llm_resolution_error" })).toBeGreaterThanOrEqual(1)
    expect(sample(text, "svc_requests_total", { pattern: "unknown", status: "unknown_pattern" })).toBeGreaterThanOrEqual(1)
    expect(sample(text, "svc_requests_total", { pattern: "lewin", mode: "forensic", status: "validation_error" })).toBe(1)
    expect(sample(text, "svc_requests_total", { pattern: "lewin", mode: "unknown", status: "invalid_mode" })).toBe(1)
    expect(sample(text, "svc_request_duration_seconds_bucket", { pattern: "lewin", mode: "standard", le: "120" })).toBeGreaterThanOrEqual(2)
    expect(sample(text, "svc_request_duration_seconds_count", { pattern: "lewin", mode: "standard" })).toBeGreaterThanOrEqual(2)
    const histogramLine = text.split("\n").find((line) => line.startsWith("svc_request_duration_seconds_count{"))
    expect(histogramLine).not.toContain("status=")
  })

  it("passes promtool check metrics", async () => {
    const promtool = requireTool("promtool", "prometheus")
    await post("/v1/analyze/lewin", { task: "t" })
    const text = await (await fetch(`${service.url}/metrics`)).text()
    const result = spawnSync(promtool, ["check", "metrics"], { input: text, encoding: "utf8" })
    expect(`${result.stdout}${result.stderr}`.trim()).toBe("")
    expect(result.status).toBe(0)
  })
})
