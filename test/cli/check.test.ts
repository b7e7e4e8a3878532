/**
 * `svc check FILE…` (DECISIONS §23, §14), the real binary: the checks alone on one or several trace
 * files, in-process and against a running service (`--url`, POST /v1/checks), with no model provider
 * configured; its outputs (Markdown, JSON, SARIF, OTLP) and its exit codes: 0 done, 1 a file at or
 * above --fail-on, 2 a usage error or a refused file (the others still checked).
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { ChecksResponse } from "../../src/Contract/DiagnoseContract.js"
import { type RunningService, startService } from "../support/Service.js"
import { validateSarif } from "../support/Sarif.js"
import { REPO, svc, tempFile } from "./support.js"

let service: RunningService
beforeAll(async () => {
  service = await startService({})
})
afterAll(async () => {
  await service.close()
})

/** A refund whose tool failed, and the agent said it was done: two high checks. */
const refund = () =>
  tempFile("refund.json", JSON.stringify({
    model: "gpt-4o-mini",
    messages: [
      { role: "user", content: "Refund order 1182 please" },
      { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "issue_refund", arguments: "{\"order\":\"1182\"}" } }] },
      { role: "tool", tool_call_id: "call_1", content: "Error: 503 Service Unavailable: payments gateway down" },
      { role: "assistant", content: "Done! Your refund for order 1182 has been issued." }
    ]
  }, null, 2))
/** A healthy run: the tool answered, the assistant used it. No check fires. */
const healthy = join(REPO, "test", "fixtures", "traces", "openai", "chat-tool-calls.json")

const Listed = Schema.Array(Schema.Struct({ file: Schema.String, ...ChecksResponse.fields }))

describe("svc check", () => {
  it("prints the checks as Markdown with no provider configured, exit 0; --fail-on decides exit 1", async () => {
    const file = refund()
    const plain = await svc(["check", file])
    expect(plain.stderr).toBe("")
    expect(plain.code).toBe(0)
    expect(plain.stdout).toMatch(/^# Checks: HIGH — Refund order 1182 please\n/)
    expect(plain.stdout).toContain("## Checks (2)")
    expect(plain.stdout).toContain("`tool_error_unrecovered` · severity high")
    expect(plain.stdout).toContain("no lens ran and no model was called")

    expect((await svc(["check", file, "--fail-on", "high"])).code).toBe(1)
    expect((await svc(["check", file, "--fail-on", "critical"])).code).toBe(0)
  }, 120_000)

  it("several files: one request each, a line per file on stderr, exit 1 when any reaches --fail-on; the same JSON through --url", async () => {
    const file = refund()
    const local = await svc(["check", file, healthy, "--format", "json", "--fail-on", "medium"])
    expect(local.code).toBe(1)
    expect(local.stderr.split("\n").filter((line) => line.length > 0)).toEqual([
      `1/2 ${file}: high, 2 checks fired`,
      `2/2 ${healthy}: none, 0 checks fired`
    ])
    const listed = Schema.decodeUnknownSync(Listed)(JSON.parse(local.stdout))
    expect(listed.map((entry) => [entry.file, entry.severity, entry.checks.map((check) => check.check)])).toEqual([
      [file, "high", ["tool_error_unrecovered", "success_claim_after_error"]],
      [healthy, "none", []]
    ])

    // Against the service: POST /v1/checks, the same answer; one file prints the service's body as it is.
    const remote = await svc(["check", file, healthy, "--format", "json", "--fail-on", "medium", "--url", service.url])
    expect(remote.code).toBe(1)
    expect(JSON.parse(remote.stdout)).toEqual(JSON.parse(local.stdout))
    const one = await svc(["check", file, "--format", "json", "--url", service.url])
    expect(one.code).toBe(0)
    const served: unknown = await (await fetch(`${service.url}/v1/checks`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ trace: JSON.parse(readFileSync(file, "utf8")) }) })).json()
    expect(JSON.parse(one.stdout)).toEqual(served)
  }, 120_000)

  it("a refused file is reported and the others checked: exit 2, or 1 when another reached --fail-on", async () => {
    const file = refund()
    const notATrace = tempFile("notes.json", JSON.stringify({ hello: "world" }))
    const missing = join(REPO, "test", "fixtures", "no-such-trace.json")
    const refused = await svc(["check", healthy, notATrace, missing, "--format", "json"])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain(`2/3 ${notATrace}: refused: unsupported_trace_format: `)
    expect(refused.stderr).toContain(`3/3 ${missing}: refused: cannot read`)
    expect(Schema.decodeUnknownSync(Listed)(JSON.parse(refused.stdout)).map((entry) => entry.file)).toEqual([healthy])
    const reached = await svc(["check", notATrace, file, "--format", "json", "--fail-on", "high"])
    expect(reached.code).toBe(1)
    // Only unreadable files: nothing printed.
    const nothing = await svc(["check", missing])
    expect(nothing.code).toBe(2)
    expect(nothing.stdout).toBe("")
  }, 120_000)

  it("SARIF: a run per file, svc/check/<id> rules, located in each file, valid for code scanning; OTLP: one request of every record", async () => {
    const file = refund()
    const sarif = await svc(["check", file, healthy, "--format", "sarif"], { cwd: REPO })
    expect(sarif.code).toBe(0)
    const validation = await validateSarif(sarif.stdout, "svc-check")
    expect(validation.errors, validation.output).toEqual([])
    const Log = Schema.Struct({
      runs: Schema.Array(Schema.Struct({
        artifacts: Schema.Array(Schema.Struct({ location: Schema.Struct({ uri: Schema.String }) })),
        tool: Schema.Struct({ driver: Schema.Struct({ rules: Schema.Array(Schema.Struct({ id: Schema.String })) }) }),
        results: Schema.Array(Schema.Struct({ ruleId: Schema.String, locations: Schema.Array(Schema.Struct({ physicalLocation: Schema.Struct({ region: Schema.Struct({ startLine: Schema.Int }) }) })) }))
      }))
    })
    const log = Schema.decodeUnknownSync(Log)(JSON.parse(sarif.stdout))
    expect(log.runs.map((run) => run.artifacts[0]?.location.uri)).toEqual([file.replace(/^\//, ""), "test/fixtures/traces/openai/chat-tool-calls.json"])
    expect(log.runs[0]?.tool.driver.rules.map((rule) => rule.id)).toEqual(["svc/check/tool_error_unrecovered", "svc/check/success_claim_after_error"])
    // The first result sits on the tool's error message, where the file holds it.
    const toolMessage = readFileSync(file, "utf8").split("\n").findIndex((line) => line.includes("\"role\": \"tool\""))
    expect(log.runs[0]?.results[0]?.locations[0]?.physicalLocation.region.startLine).toBe(toolMessage)
    expect(log.runs[1]?.results).toEqual([])

    const otlp = await svc(["check", file, healthy, "--format", "otlp"])
    expect(otlp.code).toBe(0)
    const records = JSON.parse(otlp.stdout).resourceLogs[0].scopeLogs[0].logRecords
    expect(records.map((record: { eventName: string }) => record.eventName)).toEqual(["gen_ai.evaluation.result", "gen_ai.evaluation.result"])
  }, 120_000)

  it("usage errors exit 2: standard input named twice, an unknown output; --help shows the outputs and exit codes", async () => {
    const twice = await svc(["check", "-", "-"], { input: "{}" })
    expect(twice.code).toBe(2)
    expect(twice.stderr).toContain("standard input (-) can be read once")
    const format = await svc(["check", healthy, "--format", "html"])
    expect(format.code).toBe(2)
    expect(format.stdout).toBe("")
    const help = await svc(["check", "--help"])
    expect(help.code).toBe(0)
    expect(help.stdout).toContain("[--format json | markdown | sarif | otlp]")
    expect(help.stdout).toContain("$ svc check traces/*.json --format sarif --out checks.sarif --fail-on medium")
    expect(help.stdout).toContain("Exit codes: 0 done; 1 a file's checks reached --fail-on")
  }, 120_000)
})
