/**
 * Metrics for operators: a real Prometheus (Debian package) scrapes the service on loopback and
 * its own query API shows the target up and the expected counts; label values stay bounded;
 * model calls, tokens, in-flight analyses and the drain state are exposed.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { exampleTrace, type ProviderDouble, startProviderDouble } from "../support/ProviderDouble.js"
import { type RunningService, startService } from "../support/Service.js"
import { requireTool } from "../support/Tools.js"
import { freePort } from "../support/Net.js"

let double: ProviderDouble
let service: RunningService
let prometheus: ChildProcess | undefined
beforeAll(async () => {
  double = await startProviderDouble()
  service = await startService({ ANTHROPIC_API_KEY: "sk-ant-prom-0123456789", ANTHROPIC_BASE_URL: double.url })
})
afterAll(async () => {
  prometheus?.kill("SIGKILL")
  await service.close()
  await double.close()
})

const post = (path: string, body: unknown) =>
  fetch(`${service.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })

const queryValue = async (base: string, query: string): Promise<number | undefined> => {
  const response = await fetch(`${base}/api/v1/query?query=${encodeURIComponent(query)}`).catch(() => undefined)
  if (response === undefined || response.status !== 200) return undefined
  const body: unknown = await response.json()
  const data: unknown = typeof body === "object" && body !== null ? Reflect.get(body, "data") : undefined
  const result: unknown = typeof data === "object" && data !== null ? Reflect.get(data, "result") : undefined
  if (!Array.isArray(result) || result.length === 0) return undefined
  const value: unknown = Reflect.get(result[0], "value")
  return Array.isArray(value) ? Number(value[1]) : undefined
}

const eventually = async (check: () => Promise<boolean>, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) return false
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  return true
}

describe("a real Prometheus scraping the service", () => {
  it("sees the target up and svc_requests_total with the expected values", async () => {
    const binary = requireTool("prometheus", "prometheus")
    const dir = mkdtempSync(join(tmpdir(), "svc-prom-"))
    const webPort = await freePort()
    writeFileSync(
      join(dir, "prometheus.yml"),
      [
        "global:",
        "  scrape_interval: 1s",
        "  evaluation_interval: 1s",
        "scrape_configs:",
        "  - job_name: svc",
        "    static_configs:",
        `      - targets: ["127.0.0.1:${service.port}"]`,
        ""
      ].join("\n")
    )
    prometheus = spawn(binary, [
      `--config.file=${join(dir, "prometheus.yml")}`,
      `--storage.tsdb.path=${join(dir, "data")}`,
      `--web.listen-address=127.0.0.1:${webPort}`
    ], { stdio: "ignore" })
    const base = `http://127.0.0.1:${webPort}`

    // A known sequence: 3 schema failures, 2 unknown names, 1 successful quick analysis.
    for (let i = 0; i < 3; i++) await post("/v1/analyze/lewin", { task: "t", mode: "quick" })
    for (let i = 0; i < 2; i++) await post(`/v1/analyze/nope_${i}`, {})
    expect((await post("/v1/analyze/lewin", { ...exampleTrace("lewin"), mode: "quick" })).status).toBe(200)

    expect(await eventually(async () => (await queryValue(base, 'up{job="svc"}')) === 1, 30_000)).toBe(true)
    const expectations: ReadonlyArray<readonly [string, number]> = [
      ['sum(svc_requests_total{pattern="lewin",mode="quick",status="validation_error"})', 3],
      ['sum(svc_requests_total{pattern="unknown",status="unknown_pattern"})', 2],
      ['sum(svc_requests_total{pattern="lewin",mode="quick",status="ok"})', 1],
      ['sum(svc_model_calls_total{provider="anthropic",outcome="ok"})', 1],
      ['sum(svc_request_duration_seconds_count{pattern="lewin"})', 4]
    ]
    for (const [query, expected] of expectations) {
      expect(await eventually(async () => (await queryValue(base, query)) === expected, 15_000), query).toBe(true)
    }
  }, 90_000)
})

describe("metrics for operators", () => {
  it("exposes model calls and tokens by provider and model, analyses in flight and the drain state", async () => {
    await post("/v1/analyze/lewin", { ...exampleTrace("lewin"), mode: "standard", model: "claude-haiku-4" })
    const text = await (await fetch(`${service.url}/metrics`)).text()
    const sample = (name: string, labels: ReadonlyArray<string>) =>
      text.split("\n").find((line) => line.startsWith(`${name}{`) && labels.every((label) => line.includes(label)))?.split(" ").at(-1)
    expect(sample("svc_model_calls_total", ['provider="anthropic"', 'model="claude-haiku-4"', 'outcome="ok"'])).toBe("2")
    expect(sample("svc_model_tokens_total", ['model="claude-haiku-4"', 'direction="input"'])).toBe("2400")
    expect(sample("svc_model_tokens_total", ['model="claude-haiku-4"', 'direction="output"'])).toBe("800")
    expect(text).toContain("# TYPE svc_model_call_duration_seconds histogram")
    expect(text).toMatch(/^svc_analyses_in_flight(\{[^}]*\})? 0$/m)
    expect(text).toContain("# TYPE svc_http_requests_total counter")
  })

  it("keeps label values bounded: 10,000 distinct unknown names add no series", async () => {
    const series = async () => (await (await fetch(`${service.url}/metrics`)).text()).split("\n").filter((line) => line.startsWith("svc_")).length
    await post("/v1/analyze/warm_up_unknown", {})
    const before = await series()
    const names = Array.from({ length: 10_000 }, (_, i) => `random_name_${i}_${Math.random().toString(36).slice(2)}`)
    let next = 0
    await Promise.all(Array.from({ length: 32 }, async () => {
      while (next < names.length) {
        const name = names[next++]
        const response = await post(`/v1/analyze/${name}`, {})
        await response.arrayBuffer()
      }
    }))
    expect(await series()).toBe(before)
  }, 120_000)
})
