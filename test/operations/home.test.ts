/**
 * SVC_HOME (DECISIONS §9): telemetry per model call, learnings per new detection, baselines with
 * drift, ids that cannot escape, rotation, torn lines, an unwritable home, and no trace content
 * or keys in any file.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "@effect/vitest"
import { Effect, Exit, Schema, Scope } from "effect"
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, relative } from "node:path"
import { driftBetween, makeHome, parseJsonLines } from "../../src/Home/Home.js"
import { exampleOutput, exampleTrace, type ProviderDouble, startProviderDouble } from "../support/ProviderDouble.js"
import { type RunningService, startService } from "../support/Service.js"

const KEY = "sk-ant-home-0123456789abcdef"
const MARKER = "ZEBRA-7731 confidential ledger note"
let double: ProviderDouble
const services: Array<RunningService> = []
beforeAll(async () => {
  double = await startProviderDouble()
})
afterAll(async () => {
  await Promise.all(services.map((service) => service.close()))
  await double.close()
})
const start = async (env: Record<string, string>) => {
  const service = await startService({ ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: double.url, ...env })
  services.push(service)
  return service
}
const analyze = (service: RunningService, body: unknown) =>
  fetch(`${service.url}/v1/analyze/lewin`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })
const traceWithMarker = () => {
  const trace = exampleTrace("lewin")
  const steps = Array.isArray(trace["steps"]) ? trace["steps"] : []
  return { ...trace, steps: [...steps, { type: "observation", content: MARKER }] }
}
const WithDrift = Schema.Struct({ detection: Schema.Struct({ drift: Schema.Unknown }) })
const lines = (path: string) => (existsSync(path) ? parseJsonLines(readFileSync(path, "utf8")) : [])
const allFiles = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? allFiles(join(dir, entry.name)) : [join(dir, entry.name)]
  )
const allDirs = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? [join(dir, entry.name), ...allDirs(join(dir, entry.name))] : []))
/** A path's permission bits, in octal. */
const modeOf = (path: string): string => (statSync(path).mode & 0o777).toString(8)

describe("records", () => {
  it("writes one telemetry line per model call and one learnings line per new detection; no trace content, no keys", async () => {
    const home = mkdtempSync(join(tmpdir(), "svc-home-"))
    const service = await start({ SVC_HOME: home, SVC_CACHE: "memory" })
    expect((await analyze(service, { trace: traceWithMarker(), mode: "standard" })).status).toBe(200)
    expect((await analyze(service, { trace: traceWithMarker(), mode: "standard" })).status).toBe(200)
    await vi.waitFor(() => expect(lines(join(home, "telemetry.jsonl"))).toHaveLength(2), { timeout: 3000 })
    await vi.waitFor(() => expect(lines(join(home, "learnings.jsonl"))).toHaveLength(1), { timeout: 3000 })
    expect(lines(join(home, "telemetry.jsonl"))[0]).toEqual({
      time: expect.any(String),
      request_id: expect.any(String),
      pattern: "lewin",
      mode: "standard",
      provider: "anthropic",
      model: "claude-sonnet-4-6",
      input_tokens: 1200,
      cached_input_tokens: 0,
      output_tokens: 400,
      elapsed_ms: expect.any(Number),
      outcome: "ok"
    })
    expect(lines(join(home, "learnings.jsonl"))[0]).toEqual({
      time: expect.any(String),
      pattern: "lewin",
      mode: "standard",
      severity: "high",
      profile: "interactional",
      findings: ["Tool outage not surfaced as a failure", "Gap filled with an assumed value"],
      interventions: ["prompt", "guardrail"]
    })
    for (const file of allFiles(home)) {
      const text = readFileSync(file, "utf8")
      expect(text, file).not.toContain(MARKER)
      expect(text, file).not.toContain(KEY)
      expect(text, file).not.toContain("Error 503: analytics service unavailable")
    }
  })
})

describe("baselines", () => {
  it("records the first detection under an id, then reports drift against it", async () => {
    const home = mkdtempSync(join(tmpdir(), "svc-home-"))
    const service = await start({ SVC_HOME: home })
    const first = Schema.decodeUnknownSync(WithDrift)(await (await analyze(service, { trace: traceWithMarker(), mode: "quick", baseline: "release-1" })).json())
    expect(first.detection.drift).toEqual({
      baseline: "release-1",
      recorded: true,
      severity_change: null,
      profile_change: null,
      findings_new: [],
      findings_resolved: []
    })
    const stored = readFileSync(join(home, "baselines", "lewin", "release-1.json"), "utf8")
    expect(stored).not.toContain(MARKER)
    expect(stored).not.toContain("analytics service unavailable")

    const changed = exampleOutput("lewin")
    const findings = Array.isArray(changed["findings"]) ? changed["findings"] : []
    double.script = () => ({
      kind: "object",
      value: { ...changed, severity: "medium", profile: "environmental", findings: [findings[0], { ...findings[1], title: "A different failure" }] }
    })
    const second = Schema.decodeUnknownSync(WithDrift)(await (await analyze(service, { trace: traceWithMarker(), mode: "quick", baseline: "release-1" })).json())
    double.reset()
    expect(second.detection.drift).toEqual({
      baseline: "release-1",
      recorded: false,
      severity_change: { from: "high", to: "medium" },
      profile_change: { from: "interactional", to: "environmental" },
      findings_new: ["A different failure"],
      findings_resolved: ["Gap filled with an assumed value"]
    })
  })

  it.each(["../escape", "..", "/etc/passwd", "a/b", "a%2Fb", "a\\\\b", "", "x".repeat(65), "name with space"])(
    "refuses baseline id %j with 400 validation_error",
    async (id) => {
      const home = mkdtempSync(join(tmpdir(), "svc-home-"))
      const service = await start({ SVC_HOME: home })
      const response = await analyze(service, { trace: traceWithMarker(), mode: "quick", baseline: id })
      expect(response.status).toBe(400)
      expect(await response.json()).toEqual({ detail: { error: "validation_error", message: expect.stringContaining("baseline") } })
      expect(existsSync(join(home, "baselines", "lewin"))).toBe(false)
    }
  )

  it("drift compares severity, profile and findings by title", () => {
    const drift = driftBetween(
      "b",
      { severity: "low", profile: "a", findings: [{ title: "Same  Thing" }, { title: "Old" }] },
      { severity: "low", profile: "a", findings: [{ title: "same thing" }, { title: "New" }] }
    )
    expect(drift).toEqual({ baseline: "b", recorded: false, severity_change: null, profile_change: null, findings_new: ["New"], findings_resolved: ["Old"] })
  })
})

describe("files", () => {
  it("skips a torn last line", () => {
    expect(parseJsonLines('{"a":1}\n{"b":2}\n{"c":')).toEqual([{ a: 1 }, { b: 2 }])
  })

  it("rotates by size and keeps whole lines", async () => {
    const home = mkdtempSync(join(tmpdir(), "svc-home-"))
    await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const store = yield* makeHome(home, 2000)
      for (let round = 0; round < 5; round++) {
        for (let i = 0; i < 20; i++) {
          yield* store.telemetry({
            time: "t", request_id: `r${round}-${i}`, pattern: "p", mode: "quick", provider: "local", model: "m",
            input_tokens: 1, cached_input_tokens: 0, output_tokens: 1, elapsed_ms: 1, outcome: "ok"
          })
        }
        yield* store.flush
      }
    })))
    const files = readdirSync(home).filter((name) => name.startsWith("telemetry.jsonl")).sort()
    expect(files).toEqual(["telemetry.jsonl", "telemetry.jsonl.1", "telemetry.jsonl.2", "telemetry.jsonl.3"])
    for (const file of files) {
      const text = readFileSync(join(home, file), "utf8")
      expect(text.endsWith("\n")).toBe(true)
      expect(parseJsonLines(text).length).toBe(text.trim().split("\n").length)
    }
  })

  it("an unwritable home logs one warning and serving continues", async () => {
    const blocker = join(mkdtempSync(join(tmpdir(), "svc-home-")), "a-file")
    writeFileSync(blocker, "not a directory")
    const logged: Array<string> = []
    const spy = vi.spyOn(console, "log").mockImplementation((...args: Array<unknown>) => {
      logged.push(args.map(String).join(" "))
    })
    try {
      const service = await start({ SVC_HOME: join(blocker, "home"), SVC_LOG_LEVEL: "warning" })
      for (let i = 0; i < 3; i++) {
        expect((await analyze(service, { trace: traceWithMarker(), mode: "quick", baseline: `b${i}` })).status).toBe(200)
      }
      // No pause for a second warning: the home's creation failed at start-up (the one warning), each
      // request's baseline write was tried before its 200, and the periodic flush does nothing for a
      // home that was never made (src/Home/Home.ts), so nothing is left that could warn again.
      expect(logged.filter((line) => line.includes("SVC_HOME is not writable"))).toHaveLength(1)
    } finally {
      spy.mockRestore()
    }
  })

  it("a new SVC_HOME is its user's alone: folders 0700, every file the service writes 0600 (records, baselines, the store with its -wal and -shm, the redaction key)", async () => {
    const home = join(mkdtempSync(join(tmpdir(), "svc-home-")), "new", "home")
    const service = await start({ SVC_HOME: home, SVC_CACHE: "memory" })
    expect((await analyze(service, { trace: traceWithMarker(), mode: "quick", baseline: "modes-1" })).status).toBe(200)
    // a run opens the store (SVC_HOME/svc.db)
    const submitted = await fetch(`${service.url}/v1/runs`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ trace: traceWithMarker(), mode: "quick" }) })
    expect(submitted.status).toBe(202)
    await vi.waitFor(() => expect(lines(join(home, "telemetry.jsonl")).length).toBeGreaterThan(0), { timeout: 3000 })
    await vi.waitFor(() => expect(lines(join(home, "learnings.jsonl")).length).toBeGreaterThan(0), { timeout: 3000 })
    const files = allFiles(home).map((file) => relative(home, file)).sort()
    for (const expected of ["baselines/lewin/modes-1.json", "learnings.jsonl", "redact.key", "svc.db", "svc.db-shm", "svc.db-wal", "telemetry.jsonl"]) expect(files).toContain(expected)
    for (const file of files) expect(modeOf(join(home, file)), file).toBe("600")
    for (const dir of [home, join(home, ".."), ...allDirs(home)]) expect(modeOf(dir), dir).toBe("700")
  })

  it("an existing SVC_HOME others may read keeps its mode, with a warning at start naming it; a private one starts without", async () => {
    const logged: Array<string> = []
    const spy = vi.spyOn(console, "log").mockImplementation((...args: Array<unknown>) => {
      logged.push(args.map(String).join(" "))
    })
    try {
      const open = mkdtempSync(join(tmpdir(), "svc-home-"))
      chmodSync(open, 0o755)
      await start({ SVC_HOME: open, SVC_LOG_LEVEL: "warning" })
      const warnings = logged.filter((line) => line.includes("SVC_HOME can be read by other users"))
      expect(warnings).toHaveLength(1)
      expect(warnings[0]).toContain("0755")
      expect(warnings[0]).toContain(open)
      expect(modeOf(open)).toBe("755")
      logged.length = 0
      // mkdtemp makes it 0700; the warning is written while the service starts, before it answers
      await start({ SVC_HOME: mkdtempSync(join(tmpdir(), "svc-home-")), SVC_LOG_LEVEL: "warning" })
      expect(logged.filter((line) => line.includes("SVC_HOME"))).toEqual([])
    } finally {
      spy.mockRestore()
    }
  })

  it("flushes buffered records when the service stops", async () => {
    const home = mkdtempSync(join(tmpdir(), "svc-home-"))
    const scope = Effect.runSync(Scope.make())
    const store = await Effect.runPromise(Scope.extend(makeHome(home), scope))
    await Effect.runPromise(store.learning({ time: "t", pattern: "p", mode: "quick", severity: "low", profile: "x", findings: [], interventions: [] }))
    await Effect.runPromise(Scope.close(scope, Exit.void))
    expect(lines(join(home, "learnings.jsonl"))).toHaveLength(1)
  })
})
