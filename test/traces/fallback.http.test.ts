/**
 * Bodies no reader takes, and JSON Lines with query options, over HTTP against the real service
 * (DECISIONS §12, §16): a foreign body with a `messages` list is never read as a pattern's own
 * shape nor accepted empty (400 unsupported_trace_format naming the keys seen and the nearest
 * formats), on normalize and on analyze; the pattern's own shape stays native; a body a reader
 * recognises but reads nothing from is 400; a two-record OpenHands output analysed with
 * `?select=1` on normalize and diagnose uses the second record.
 */
import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { DiagnoseResponse } from "../../src/Contract/DiagnoseReport.js"
import { NormalizedTrace } from "../../src/Traces/Model.js"
import { useProviderDouble } from "../support/Harness.js"
import type { RunningService } from "../support/Service.js"
import { fixture, fixtureText } from "./support.js"

const harness = useProviderDouble()
const start = () => harness.start({ ANTHROPIC_API_KEY: "sk-ant-fallback-0123456789", ANTHROPIC_BASE_URL: harness.double.url })

const post = (service: RunningService, path: string, body: unknown, contentType = "application/json") =>
  fetch(`${service.url}${path}`, { method: "POST", headers: { "content-type": contentType }, body: typeof body === "string" ? body : JSON.stringify(body) })

const ErrorBody = Schema.Struct({ detail: Schema.Struct({ error: Schema.String, message: Schema.String }) })
const errorOf = async (response: Response) => ({ status: response.status, ...Schema.decodeUnknownSync(ErrorBody)(await response.json()).detail })
const One = Schema.Struct({ format: Schema.String, events: Schema.Int, trace: NormalizedTrace })
const Many = Schema.Struct({ format: Schema.String, traces: Schema.Array(NormalizedTrace) })

/** A chat export of no supported format: a `messages` list whose records have no `from`. */
const foreign = {
  conversation_id: "c-7781",
  exported_at: "2025-06-02T10:00:00Z",
  messages: [
    { id: "m1", author: { kind: "person", handle: "dana" }, body: "Can you check the nightly build?", posted: "2025-06-02T09:58:00Z" },
    { id: "m2", author: { kind: "bot", handle: "ci-helper" }, body: "The nightly build failed at the lint step.", posted: "2025-06-02T09:58:30Z" },
    { id: "m3", author: { kind: "person", handle: "dana" }, body: "Thanks.", posted: "2025-06-02T09:59:00Z" }
  ]
}

/** A Gemini CLI session file (`~/.gemini/tmp/<hash>/chats/session-*.json`). */
const geminiSession = {
  sessionId: "5e1c0f9a-3b1d-4c1e-9d47-0a3f6f1b2c3d",
  projectHash: "9f2c6d1e",
  startTime: "2025-09-01T08:00:00.000Z",
  lastUpdated: "2025-09-01T08:02:00.000Z",
  messages: [
    { id: "a1", timestamp: "2025-09-01T08:00:00.000Z", type: "user", content: "List the TODOs in src/." },
    { id: "a2", timestamp: "2025-09-01T08:00:05.000Z", type: "gemini", content: "I'll search for TODO comments.", thoughts: [], tokens: { input: 812, output: 12 }, model: "gemini-2.5-pro" },
    { id: "a3", timestamp: "2025-09-01T08:00:09.000Z", type: "gemini", content: "There are 3 TODOs, all in src/cache.ts.", model: "gemini-2.5-pro" }
  ]
}

/** A Claude Agent SDK message dump (`query()`'s messages collected). */
const agentSdkDump = {
  messages: [
    { type: "system", subtype: "init", session_id: "s-1", tools: ["Bash", "Read"], model: "claude-sonnet-4-5" },
    { type: "assistant", session_id: "s-1", message: { id: "msg_1", role: "assistant", content: [{ type: "text", text: "Reading the config." }] } },
    { type: "user", session_id: "s-1", message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "port: 8080" }] } },
    { type: "result", subtype: "success", session_id: "s-1", result: "The service listens on 8080.", is_error: false }
  ]
}

describe("a body that fits no reader", () => {
  it("is 400 unsupported_trace_format on normalize, naming the keys seen and the nearest formats, never read as the native shape", async () => {
    const service = await start()
    const error = await errorOf(await post(service, "/v1/traces/normalize", foreign))
    expect(error).toMatchObject({ status: 400, error: "unsupported_trace_format" })
    expect(error.message).toContain("keys conversation_id, exported_at, messages")
    expect(error.message).toContain("messages[] with keys id, author, body, posted")
    expect(error.message).toMatch(/nearest formats: [a-z]+/)
    expect(error.message).toContain("messages[i] with from and content")
    const named = await errorOf(await post(service, "/v1/traces/normalize", { trace: foreign, format: "native" }))
    expect(named).toMatchObject({ status: 400, error: "unsupported_trace_format" })
  })

  it("is never accepted as empty or all-`agent` native events (Gemini CLI session, Claude Agent SDK dump)", async () => {
    const service = await start()
    for (const body of [geminiSession, agentSdkDump]) {
      const response = await post(service, "/v1/traces/normalize", body)
      const json: unknown = await response.json()
      if (response.status === 200) {
        // A reader of that format (when one exists) may take it; the native fallback never does.
        const read = Schema.decodeUnknownSync(One)(json)
        expect(read.format).not.toBe("native")
        expect(read.trace.events.some((event) => event.content.length > 0)).toBe(true)
      } else {
        expect(response.status).toBe(400)
        expect(Schema.decodeUnknownSync(ErrorBody)(json).detail.error).toBe("unsupported_trace_format")
      }
    }
  })

  it("is 400 unsupported_trace_format on analyze, for a pattern that has `messages` and for one that has not", async () => {
    const service = await start()
    for (const slug of ["psych_safety", "lewin"]) {
      const error = await errorOf(await post(service, `/v1/analyze/${slug}`, foreign))
      expect(error, slug).toMatchObject({ status: 400, error: "unsupported_trace_format" })
      expect(error.message, slug).toContain("nearest formats")
    }
    expect(harness.double.calls).toHaveLength(0)
  })

  it("keeps the pattern's own shape native: its messages carry `from`, and a malformed one is a validation_error naming fields", async () => {
    const service = await start()
    const malformed = await errorOf(await post(service, "/v1/analyze/psych_safety", { task: "t", agents: ["a"], messages: [{ from: "a" }] }))
    expect(malformed).toMatchObject({ status: 400, error: "validation_error" })
    expect(malformed.message).toContain("messages")
    const native = Schema.decodeUnknownSync(One)(await (await post(service, "/v1/traces/normalize", {
      task: "Ship the release notes.",
      messages: [{ from: "writer", content: "Draft is up." }, { from: "editor", content: "Two typos fixed." }, { id: 3, text: "stray record" }]
    })).json())
    expect(native.format).toBe("native")
    expect(native.trace.events.map((event) => event.actor)).toEqual(["writer", "editor"])
    // The record that is not a message is counted, not read.
    expect(native.trace.skipped).toBe(1)
  })

  it("is 400 when a reader recognises the body but can read no event from it, saying why", async () => {
    const service = await start()
    const error = await errorOf(await post(service, "/v1/traces/normalize", { history: [{ name: "planner", role: "assistant", content: null }] }))
    expect(error.status).toBe(400)
    expect(error.message).toContain("none of the 1 messages could be read")
  })
})

describe("Who&When Magentic-One logs over HTTP", () => {
  it("normalizes a log as autogen (detected, and with `format: autogen`) and analyses it, its labels never shown", async () => {
    const service = await start()
    const log = fixture("autogen/who-and-when-hand-crafted-43.json")
    for (const body of [log, { trace: log, format: "autogen" }]) {
      const read = Schema.decodeUnknownSync(One)(await (await post(service, "/v1/traces/normalize", body)).json())
      expect(read).toMatchObject({ format: "autogen", events: 16, trace: { id: "db4fd70a-2d37-40ea-873f-9433dc5e301f" } })
      expect(read.trace.agents).toEqual(["Orchestrator", "WebSurfer", "Assistant"])
    }
    const response = await post(service, "/v1/analyze/psych_safety", { trace: log, mode: "quick" })
    expect(response.status).toBe(200)
    expect(harness.double.calls.length).toBeGreaterThan(0)
    for (const call of harness.double.calls) {
      expect(call.text).toContain("Orchestrator")
      expect(call.text).not.toContain("The caculation is wrong.")
    }
  })
})

describe("JSON Lines with query options", () => {
  const jsonl = fixtureText("trajectory/openhands-output.jsonl")

  it("normalizes a two-record OpenHands output, and `?select=1` picks the second record", async () => {
    const service = await start()
    const many = Schema.decodeUnknownSync(Many)(await (await post(service, "/v1/traces/normalize", jsonl, "application/x-ndjson")).json())
    expect(many.traces.map((trace) => trace.id)).toEqual(["acme__reports-212", "acme__reports-219"])
    const second = Schema.decodeUnknownSync(One)(await (await post(service, "/v1/traces/normalize?select=1", jsonl, "application/x-ndjson")).json())
    expect(second).toMatchObject({ format: "trajectory", trace: { id: "acme__reports-219" } })
  })

  it("diagnoses the second record with /v1/diagnose?select=1, and refuses the body without select", async () => {
    const service = await start()
    const refused = await errorOf(await post(service, "/v1/diagnose", jsonl, "application/x-ndjson"))
    expect(refused).toMatchObject({ status: 400, error: "validation_error" })
    expect(refused.message).toContain("acme__reports-219")
    const second = Schema.decodeUnknownSync(One)(await (await post(service, "/v1/traces/normalize?select=1", jsonl, "application/x-ndjson")).json()).trace
    const response = await post(service, "/v1/diagnose?select=1&mode=quick&max_patterns=2", jsonl, "application/x-ndjson")
    const json: unknown = await response.json()
    expect(response.status, JSON.stringify(json).slice(0, 400)).toBe(200)
    const { report } = Schema.decodeUnknownSync(DiagnoseResponse)(json)
    expect(report.trace).toMatchObject({ format: "trajectory", id: "acme__reports-219", task: second.task, events: second.events.length })
    expect(report.trace.success).toBe(false)
    // The lenses were shown the second record's issue, never the first's.
    expect(second.task).toContain("report titles longer than 80 characters overflow the header")
    expect(harness.double.calls.length).toBeGreaterThan(0)
    expect(harness.double.calls.every((call) => call.text.includes("report titles longer than 80 characters overflow the header"))).toBe(true)
    expect(harness.double.calls.some((call) => call.text.includes("totals row in the PDF report is missing"))).toBe(false)
  })
})
