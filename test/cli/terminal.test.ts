/**
 * `svc` progress in a real terminal (issue 17): the binary runs inside tmux, and the test reads
 * the screen with `capture-pane`, while the provider double holds each model call for a moment.
 * In-process: one live line per pattern (calling the model → done, with elapsed time, calls and
 * tokens); against a service: the request's elapsed time. Colour unless NO_COLOR; stdout (sent
 * to a file here) holds only the result.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { defaultReply, exampleTrace, type ProviderDouble, startProviderDouble } from "../support/ProviderDouble.js"
import { type RunningService, startService } from "../support/Service.js"
import { requireTool } from "../support/Tools.js"
import { REPO, SVC } from "./support.js"

let double: ProviderDouble
let service: RunningService
let tmux: string
const socket = `svc-test-${process.pid}`
beforeAll(async () => {
  tmux = requireTool("tmux", "tmux")
  double = await startProviderDouble()
  service = await startService({ OPENAI_API_KEY: "sk-test-tmux-0123456789", OPENAI_BASE_URL: `${double.url}/v1` })
})
afterAll(async () => {
  try {
    execFileSync(tmux, ["-L", socket, "kill-server"], { stdio: "ignore" })
  } catch {
    // No session left.
  }
  await service.close()
  await double.close()
})

const trace = join(REPO, "test", "fixtures", "traces", "openai", "responses-failed.json")
const quote = (value: string) => `'${value.replace(/'/g, "'\\''")}'`

/** Runs `svc <args>` in a new tmux window (150 × 30); stdout goes to `out`, the exit code is shown on screen. */
const runInTerminal = (name: string, args: ReadonlyArray<string>, env: Record<string, string>, out: string) => {
  const assignments = Object.entries({ PATH: process.env["PATH"] ?? "", TERM: "tmux-256color", SVC_HOME: mkdtempSync(join(tmpdir(), "svc-tmux-home-")), ...env })
    .map(([key, value]) => `${key}=${quote(value)}`)
    .join(" ")
  const command = `env -i ${assignments} ${SVC} ${args.map(quote).join(" ")} > ${quote(out)}; echo EXIT=$?; sleep 600`
  execFileSync(tmux, ["-L", socket, "new-session", "-d", "-s", name, "-x", "150", "-y", "30", command])
}

const screen = (name: string, escapes = false) =>
  execFileSync(tmux, ["-L", socket, "capture-pane", "-p", ...(escapes ? ["-e"] : []), "-t", name], { encoding: "utf8" })

const waitForScreen = async (name: string, test: (text: string) => boolean, timeoutMs = 30_000): Promise<string> => {
  const started = Date.now()
  for (;;) {
    const text = screen(name)
    if (test(text)) return text
    if (Date.now() - started > timeoutMs) throw new Error(`the screen never showed what was expected:\n${text}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

const ESC = "\u001b["

describe("svc progress in a terminal (tmux)", () => {
  it("in-process: a live line per pattern, calling the model then done with elapsed time, calls and tokens, in colour", async () => {
    double.script = (call) => ({ kind: "delay", ms: 1500, then: defaultReply(call) })
    try {
      const out = join(mkdtempSync(join(tmpdir(), "svc-tmux-")), "report.json")
      const env = { OPENAI_API_KEY: "sk-test-tmux-0123456789", OPENAI_BASE_URL: `${double.url}/v1` }
      runInTerminal("live", ["diagnose", trace, "--mode", "quick", "--patterns", "lewin,psych_safety", "--format", "json"], env, out)

      const during = await waitForScreen("live", (text) => /lewin +calling the model/.test(text) && /psych_safety +calling the model/.test(text))
      expect(during).toMatch(/^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] lewin +calling the model +\d+\.\ds/m)
      const after = await waitForScreen("live", (text) => text.includes("EXIT="))
      expect(after).toMatch(/^✓ lewin +done +\d+\.\ds +1 call +1\.2k in \/ 400 out tokens$/m)
      expect(after).toMatch(/^✓ psych_safety +done +\d+\.\ds +1 call +1\.2k in \/ 400 out tokens$/m)
      expect(after).toContain("EXIT=0")
      // Each line was redrawn in place: one line per pattern, not one per frame.
      expect(after.match(/lewin/g)).toHaveLength(1)
      // The result went to stdout alone: valid JSON, no progress in it.
      const report: unknown = JSON.parse(readFileSync(out, "utf8"))
      expect(JSON.stringify(report)).toContain("\"psych_safety\"")
      expect(readFileSync(out, "utf8")).not.toContain(ESC)
      // In colour: the done marks are green.
      expect(screen("live", true)).toContain(`${ESC}32m✓`)
    } finally {
      double.reset()
    }
  })

  it("svc eval: one line for the whole run, its items done, calls and tokens, beside the lenses' lines", async () => {
    double.script = (call) => ({ kind: "delay", ms: 1200, then: defaultReply(call) })
    try {
      const dir = mkdtempSync(join(tmpdir(), "svc-tmux-eval-"))
      for (const name of ["a.json", "b.json", "c.json"]) {
        writeFileSync(join(dir, name), readFileSync(join(REPO, "test", "fixtures", "traces", "autogen", "who-and-when-hand-crafted-43.json")))
      }
      const out = join(mkdtempSync(join(tmpdir(), "svc-tmux-")), "eval.txt")
      const env = { OPENAI_API_KEY: "sk-test-tmux-0123456789", OPENAI_BASE_URL: `${double.url}/v1` }
      runInTerminal("eval", ["eval", dir, "--mode", "quick", "--patterns", "lewin", "--concurrency", "1"], env, out)
      await waitForScreen("eval", (text) => /svc eval +calling the model \(1\/3 items\)/.test(text))
      const after = await waitForScreen("eval", (text) => text.includes("EXIT="))
      expect(after).toMatch(/^✓ svc eval +done \(3\/3 items\) +\d+\.\ds +3 calls +3\.6k in \/ 1\.2k out tokens$/m)
      expect(after.match(/svc eval/g)).toHaveLength(1)
      expect(after).toMatch(/^✓ lewin +done/m)
      expect(after).toContain("EXIT=0")
      expect(readFileSync(out, "utf8")).toContain("svc eval: 3 items, diagnose")
    } finally {
      double.reset()
    }
  })

  it("queued while the 4 slots are taken; verifying during forensic mode's verification pass", async () => {
    double.script = (call) => ({ kind: "delay", ms: 1500, then: defaultReply(call) })
    try {
      const out = join(mkdtempSync(join(tmpdir(), "svc-tmux-")), "report.md")
      const env = { OPENAI_API_KEY: "sk-test-tmux-0123456789", OPENAI_BASE_URL: `${double.url}/v1` }
      const five = "lewin,goleman_ei,grant_strengths,motivation_traps,sdt_reward"
      runInTerminal("queued", ["diagnose", trace, "--mode", "quick", "--patterns", five], env, out)
      const during = await waitForScreen("queued", (text) => (text.match(/calling the model/g) ?? []).length === 4)
      expect(during).toMatch(/^· sdt_reward +queued$/m)
      const after = await waitForScreen("queued", (text) => text.includes("EXIT="))
      expect(after.match(/^✓ .* done /gm)).toHaveLength(5)
    } finally {
      double.reset()
    }
    // Forensic: the verification call is held; the line says verifying meanwhile.
    double.script = (call) => (call.objectName === "Verdicts" ? { kind: "delay", ms: 1500, then: defaultReply(call) } : undefined)
    try {
      const native = join(mkdtempSync(join(tmpdir(), "svc-tmux-")), "lewin.json")
      writeFileSync(native, JSON.stringify(exampleTrace("lewin")))
      const out = join(mkdtempSync(join(tmpdir(), "svc-tmux-")), "detection.json")
      runInTerminal("verifying", ["analyze", "lewin", native, "--mode", "forensic"], { OPENAI_API_KEY: "sk-test-tmux-0123456789", OPENAI_BASE_URL: `${double.url}/v1` }, out)
      const during = await waitForScreen("verifying", (text) => text.includes("verifying"))
      expect(during).toMatch(/^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] lewin +verifying +\d+\.\ds +1 call +1\.2k in \/ 400 out tokens$/m)
      const after = await waitForScreen("verifying", (text) => text.includes("EXIT="))
      expect(after).toMatch(/^✓ lewin +done +\d+\.\ds +4 calls +4\.8k in \/ 1\.6k out tokens$/m)
    } finally {
      double.reset()
    }
  })

  it("NO_COLOR: the same lines without colour", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "svc-tmux-")), "report.md")
    runInTerminal("plain", ["diagnose", trace, "--mode", "quick", "--patterns", "lewin"], { NO_COLOR: "1", OPENAI_API_KEY: "sk-test-tmux-0123456789", OPENAI_BASE_URL: `${double.url}/v1` }, out)
    const after = await waitForScreen("plain", (text) => text.includes("EXIT="))
    expect(after).toMatch(/^✓ lewin +done/m)
    expect(screen("plain", true)).not.toMatch(new RegExp(`${ESC.replace("[", "\\[")}3[0-7]m`))
    expect(readFileSync(out, "utf8")).toContain("# Diagnose:")
  })

  it("against a service (--url): one line with the request's elapsed time; a failure is marked and explained", async () => {
    double.script = (call) => ({ kind: "delay", ms: 1500, then: defaultReply(call) })
    try {
      const out = join(mkdtempSync(join(tmpdir(), "svc-tmux-")), "detection.json")
      runInTerminal("remote", ["analyze", "lewin", trace, "--mode", "quick", "--url", service.url], {}, out)
      const during = await waitForScreen("remote", (text) => text.includes("waiting for the service"))
      expect(during).toMatch(new RegExp(`lewin → ${service.url.replace(/[.]/g, "\\.")} +waiting for the service +\\d+\\.\\ds`))
      const after = await waitForScreen("remote", (text) => text.includes("EXIT="))
      expect(after).toMatch(/^✓ lewin → \S+ +done +\d+\.\ds$/m)
      expect(after).toContain("EXIT=0")
      expect(JSON.parse(readFileSync(out, "utf8"))).toMatchObject({ pattern: "lewin", mode: "quick" })
    } finally {
      double.reset()
    }
    const out = join(mkdtempSync(join(tmpdir(), "svc-tmux-")), "nothing.json")
    runInTerminal("refused", ["analyze", "no_such_pattern", trace, "--url", service.url], {}, out)
    const refused = await waitForScreen("refused", (text) => text.includes("EXIT="))
    expect(refused).toMatch(/^✗ no_such_pattern → \S+ +failed/m)
    expect(refused).toContain("svc analyze: unknown_pattern: ")
    expect(refused).toContain("EXIT=2")
  })
})
