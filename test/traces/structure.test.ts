/**
 * The trace model carries structure (DECISIONS §23, issue 48 item 1): on the real producers'
 * fixtures of each format that has them, a tool call and its result share a `call_id`; failures
 * carry `status: "error"` with the source's code and message; a model call's answer carries its
 * `finish_reason`, `tokens` and `duration_ms`; the trace carries the `tools` it declares; a model
 * call that recorded no content is kept as an empty message with its facts; instrumentations'
 * placeholders are no content. Expected values are read from the fixtures. Also: the cache key
 * covers the model's version, and normalize answers the fields over HTTP.
 */
import { describe, expect, it } from "@effect/vitest"
import { Predicate, Schema } from "effect"
import { createHash } from "node:crypto"
import { CACHE_KEY_VERSION, cacheKey, canonicalJson } from "../../src/Cache/CacheKey.js"
import { anthropicImporter } from "../../src/Traces/Formats/Anthropic.js"
import { claudeCodeImporter } from "../../src/Traces/Formats/ClaudeCode.js"
import { codexImporter } from "../../src/Traces/Formats/Codex.js"
import { geminiCliImporter } from "../../src/Traces/Formats/GeminiCli.js"
import { langfuseImporter } from "../../src/Traces/Formats/Langfuse.js"
import { langSmithImporter } from "../../src/Traces/Formats/LangSmith.js"
import { openAiImporter } from "../../src/Traces/Formats/OpenAI.js"
import { openInferenceImporter } from "../../src/Traces/Formats/OpenInference.js"
import { otelImporter } from "../../src/Traces/Formats/Otel.js"
import type { Importer } from "../../src/Traces/Importer.js"
import { CONTENT_PLACEHOLDERS, NormalizedTrace, type TraceEvent } from "../../src/Traces/Model.js"
import { useProviderDouble } from "../support/Harness.js"
import { fixture, list, readersOf, sub, text, type Rec } from "./support.js"

// ---------------------------------------------------------------------------------------------
// Reading the fixtures

/** The value of an OTLP KeyValue list's key, as a plain value (strings, ints, arrays of strings). */
const otlpAttribute = (record: Rec, key: string): unknown => {
  const value = sub(list(record["attributes"]).find((entry) => entry["key"] === key), "value")
  if (value === undefined) return undefined
  if ("intValue" in value) return Number(value["intValue"])
  const array = sub(value, "arrayValue")
  if (array !== undefined) return list(array["values"]).map((item) => item["stringValue"])
  return value["stringValue"]
}
/** The first item of a list value. */
const firstOf = (value: unknown): unknown => (Array.isArray(value) ? value[0] : expect.fail(`not a list: ${String(value)}`))
const otlpSpans = (body: unknown): ReadonlyArray<Rec> =>
  list(Predicate.isRecord(body) ? body["resourceSpans"] : undefined).flatMap((group) => list(group["scopeSpans"]).flatMap((scope) => list(scope["spans"])))
/** A span's duration in ms from OTLP `*UnixNano` strings, to the microsecond as the model keeps it. */
const otlpDuration = (span: Rec): number => Math.round(Number(BigInt(text(span["endTimeUnixNano"])) - BigInt(text(span["startTimeUnixNano"]))) / 1000) / 1000
/** A span's duration in ms from the JS SDK's hrtime `[seconds, nanos]`. */
const hrDuration = (span: Rec): number => {
  const nanos = (time: unknown) => (Array.isArray(time) && typeof time[0] === "number" && typeof time[1] === "number" ? BigInt(time[0]) * 1_000_000_000n + BigInt(time[1]) : 0n)
  return Math.round(Number(nanos(span["endTime"]) - nanos(span["startTime"])) / 1000) / 1000
}
const isoDuration = (record: Rec, start: string, end: string): number => Date.parse(text(record[end])) - Date.parse(text(record[start]))
const json = (value: unknown): Rec => {
  const parsed: unknown = typeof value === "string" ? JSON.parse(value) : value
  return Predicate.isRecord(parsed) ? parsed : expect.fail(`not an object: ${String(value)}`)
}
const readOne = (importer: Importer, body: unknown) => readersOf(importer).readOne(body)
const readAll = (importer: Importer, body: unknown) => readersOf(importer).readAll(body)

/** The events of a trace by kind. */
const ofKind = (events: ReadonlyArray<TraceEvent>, kind: TraceEvent["kind"]) => events.filter((event) => event.kind === kind)
/** The event at a source, or the test fails. */
const at = (events: ReadonlyArray<TraceEvent>, source: string): TraceEvent => events.find((event) => event.source === source) ?? expect.fail(`no event at ${source}`)

/** Every tool result and tool error with an id answers a call with that id, earlier in the trace. */
const expectLinked = (events: ReadonlyArray<TraceEvent>) => {
  const calls = new Set<string>()
  let answers = 0
  for (const event of events) {
    if (event.kind === "tool_call" && event.call_id !== undefined) calls.add(event.call_id)
    if ((event.kind === "tool_result" || (event.kind === "error" && event.role === "tool")) && event.call_id !== undefined) {
      expect([event.source, calls.has(event.call_id)]).toEqual([event.source, true])
      answers++
    }
  }
  expect(answers).toBeGreaterThan(0)
}

// ---------------------------------------------------------------------------------------------
// otel: @opentelemetry/instrumentation-openai, recorded

describe("otel (OpenTelemetry GenAI spans and log records, recorded)", () => {
  const combined = fixture("otel/openai-chat-agent.otlp.json")
  const spans = otlpSpans(combined)
  const chats = spans.filter((span) => span["name"] === "chat gpt-4o-mini")
  const [firstChat, , lastChat] = chats
  const failed = spans.find((span) => span["name"] === "chat gpt-4o-mini-typo") ?? expect.fail("no failed call")
  const toolParis = spans.find((span) => otlpAttribute(span, "gen_ai.tool.call.id") === "call_paris") ?? expect.fail("no Paris tool span")

  it("links a call and its result by call id, and puts the call's finish reason, tokens and duration on its answer", () => {
    const [trace] = readAll(otelImporter, combined)
    const events = trace?.events ?? []
    expectLinked(events)
    const [call] = ofKind(events, "tool_call")
    const result = at(events, `span:${text(toolParis["spanId"])}`)
    expect(call?.call_id).toBe(otlpAttribute(toolParis, "gen_ai.tool.call.id"))
    expect(result.call_id).toBe(call?.call_id)
    expect(result.duration_ms).toBe(otlpDuration(toolParis))
    if (firstChat === undefined || lastChat === undefined) return expect.fail("no chat spans")
    expect(call).toMatchObject({
      finish_reason: firstOf(otlpAttribute(firstChat, "gen_ai.response.finish_reasons")),
      tokens: { input: otlpAttribute(firstChat, "gen_ai.usage.input_tokens"), output: otlpAttribute(firstChat, "gen_ai.usage.output_tokens") },
      duration_ms: otlpDuration(firstChat)
    })
    const answer = events.at(-1)
    expect(answer?.kind).toBe("message")
    expect(answer?.finish_reason).toBe("stop")
    expect(answer?.duration_ms).toBe(otlpDuration(lastChat))
  })

  it("gives a failed call status error with the span's error type and status message", () => {
    const [, trace] = readAll(otelImporter, combined)
    const error = ofKind(trace?.events ?? [], "error")[0]
    const status = sub(failed, "status")
    expect(error).toMatchObject({
      status: "error",
      status_code: otlpAttribute(failed, "error.type"),
      status_message: status?.["message"],
      duration_ms: otlpDuration(failed)
    })
  })

  it("keeps the chat spans that carry no content as empty messages with their facts (traces alone)", () => {
    const [trace] = readAll(otelImporter, fixture("otel/openai-chat-agent.otlp-traces.json"))
    const kept = chats.map((span) => at(trace?.events ?? [], `span:${text(span["spanId"])}`))
    expect(kept.map((event) => [event.kind, event.role, event.content])).toEqual(chats.map(() => ["message", "agent", ""]))
    expect(kept.map((event) => event.finish_reason)).toEqual(["tool_calls", "tool_calls", "stop"])
    expect(kept.every((event) => event.tokens?.input === 120 && event.tokens.output === 24)).toBe(true)
  })

  it("keeps a content-free model call (content capture off) and still reads the trace as content: absent", () => {
    const body = fixture("otel/openai-chat-agent-no-content.otlp.json")
    const [trace] = readAll(otelImporter, body)
    const lastCall = otlpSpans(body).filter((span) => String(span["name"]).startsWith("chat ")).at(-1) ?? expect.fail("no chat span")
    expect(trace?.content).toBe("absent")
    expect(at(trace?.events ?? [], `span:${text(lastCall["spanId"])}`)).toMatchObject({
      kind: "message",
      content: "",
      finish_reason: firstOf(otlpAttribute(lastCall, "gen_ai.response.finish_reasons")),
      tokens: { input: otlpAttribute(lastCall, "gen_ai.usage.input_tokens"), output: otlpAttribute(lastCall, "gen_ai.usage.output_tokens") }
    })
  })
})

// ---------------------------------------------------------------------------------------------
// openinference: @arizeai/openinference-instrumentation-openai, recorded

describe("openinference (recorded)", () => {
  const body = fixture("openinference/openai-chat-agent.spans.json")
  const spans = list(body)
  const llms = spans.filter((span) => sub(span, "attributes")?.["openinference.span.kind"] === "LLM")
  const attributes = (span: Rec | undefined): Rec => sub(span, "attributes") ?? expect.fail("no attributes")
  const id = (span: Rec | undefined) => text(sub(span, "spanContext")?.["spanId"])

  it("declares the tools of llm.tools with their schemas, and puts finish reason, tokens, status and duration on each call's answer", () => {
    const [trace] = readAll(openInferenceImporter, body)
    const declared = json(json(attributes(llms[0])["llm.tools.0.tool.json_schema"])["function"])
    expect(trace?.tools).toEqual([{ name: declared["name"], description: declared["description"], parameters: declared["parameters"] }])
    const events = trace?.events ?? []
    expectLinked(events)
    llms.forEach((span) => {
      const answer = at(events, `span:${id(span)}/output[0]`)
      expect(answer).toMatchObject({
        status: "ok",
        finish_reason: attributes(span)["llm.finish_reason"],
        tokens: { input: attributes(span)["llm.token_count.prompt"], output: attributes(span)["llm.token_count.completion"] },
        duration_ms: hrDuration(span)
      })
    })
    // the TOOL spans name no call id: their results are linked to the call the model asked for
    expect(ofKind(events, "tool_result").map((event) => event.call_id)).toEqual(["call_paris", "call_london"])
  })

  it("gives the failed run's exception status error with its type and the span's status message", () => {
    const [, trace] = readAll(openInferenceImporter, body)
    const agent = spans.find((span) => sub(span, "status")?.["code"] === 2) ?? expect.fail("no failed span")
    const exception = list(agent["events"]).find((event) => event["name"] === "exception")
    expect(ofKind(trace?.events ?? [], "error")[0]).toMatchObject({
      status: "error",
      status_code: sub(exception, "attributes")?.["exception.type"],
      status_message: sub(agent, "status")?.["message"]
    })
  })

  it("reads OPENINFERENCE_HIDE_INPUTS / _OUTPUTS' placeholder as no content: the calls and their facts are kept, the trace is content: absent", () => {
    expect(CONTENT_PLACEHOLDERS.map((entry) => entry.placeholder)).toContain("__REDACTED__")
    // what the instrumentation writes with inputs and outputs hidden: every text is its REDACTED_VALUE
    const hidden = spans.map((span) => ({
      ...span,
      attributes: Object.fromEntries(
        Object.entries(attributes(span)).map(([key, value]) => [key, /(^(input|output)\.value$)|message\.content$|tool_call\.function\.arguments$/.test(key) ? "__REDACTED__" : value])
      )
    }))
    const [trace] = readAll(openInferenceImporter, hidden)
    expect(trace?.content).toBe("absent")
    expect(trace?.task).toBe("")
    const events = trace?.events ?? []
    expect(events.every((event) => event.content === "")).toBe(true)
    expect(ofKind(events, "tool_call").map((event) => event.call_id)).toEqual(["call_paris", "call_london"])
    expect(at(events, `span:${id(llms.at(-1))}/output[0]`).finish_reason).toBe("stop")
  })
})

// ---------------------------------------------------------------------------------------------
// openai: Chat Completions, Responses, Agents SDK exports

describe("openai", () => {
  it("Chat Completions: the request's tools, call ids from tool_calls to tool messages, each response's finish reason and usage", () => {
    const body = fixture("openai/chat-tool-calls.json")
    const calls = list(body)
    const trace = readOne(openAiImporter, body)
    const tools = list(sub(calls[0], "request")?.["tools"]).map((tool) => sub(tool, "function") ?? expect.fail("no function"))
    expect(trace.tools).toEqual(tools.map((tool) => ({ name: tool["name"], description: tool["description"], parameters: tool["parameters"] })))
    expectLinked(trace.events)
    const response = sub(calls[0], "response")
    const choice = list(response?.["choices"])[0]
    const usage = sub(response, "usage")
    expect(at(trace.events, "[0].response.choices[0].message.tool_calls[0]")).toMatchObject({
      call_id: list(sub(choice, "message")?.["tool_calls"])[0]?.["id"],
      finish_reason: choice?.["finish_reason"],
      tokens: { input: usage?.["prompt_tokens"], output: usage?.["completion_tokens"] }
    })
  })

  it("Responses: a failed response's error is status error with the API's code and message; its output carries the usage", () => {
    const body = json(fixture("openai/responses-failed.json"))
    const trace = readOne(openAiImporter, body)
    const error = sub(body, "error")
    expect(at(trace.events, "error")).toMatchObject({ status: "error", status_code: error?.["code"], status_message: error?.["message"] })
    expect(at(trace.events, "output[0]").tokens).toEqual({ input: sub(body, "usage")?.["input_tokens"], output: sub(body, "usage")?.["output_tokens"] })
  })

  it("Agents SDK: response spans (ids only in the export) kept as model calls with their duration; the agent's tools declared", () => {
    const body = fixture("openai/agents-sdk-responses.json")
    const records = list(Predicate.isRecord(body) ? body["data"] : body)
    const responses = records.filter((record) => sub(record, "span_data")?.["type"] === "response")
    const trace = readOne(openAiImporter, body)
    expect(responses.length).toBeGreaterThan(0)
    for (const span of responses) {
      expect(at(trace.events, `span:${text(span["id"])}`)).toMatchObject({ kind: "message", role: "agent", content: "", duration_ms: isoDuration(span, "started_at", "ended_at") })
    }
    expect(trace.tools).toEqual([{ name: "lookup_invoice" }])
    const failing = records.find((record) => sub(record, "span_data")?.["type"] === "function" && record["error"] !== null) ?? expect.fail("no failing tool")
    const result = trace.events.find((event) => event.source === `span:${text(failing["id"])}` && event.kind === "tool_result")
    expect(result).toMatchObject({ status: "error", status_message: sub(failing, "error")?.["message"] })
  })
})

// ---------------------------------------------------------------------------------------------
// anthropic: Messages API

describe("anthropic", () => {
  it("the request's tools, tool_use ids to tool_result ids, is_error as status error, the response's stop reason and usage", () => {
    const body = json(fixture("anthropic/request-tool-use.json"))
    const trace = readOne(anthropicImporter, body)
    expect(trace.tools).toEqual(list(body["tools"]).map((tool) => ({ name: tool["name"], description: tool["description"], parameters: tool["input_schema"] })))
    expectLinked(trace.events)
    const failed = list(list(body["messages"]).flatMap((message) => list(message["content"]))).find((block) => block["is_error"] === true) ?? expect.fail("no failed result")
    const error = trace.events.find((event) => event.kind === "error")
    expect(error).toMatchObject({ status: "error", call_id: failed["tool_use_id"] })
    const response = sub(body, "response")
    expect(at(trace.events, "response.content[0]")).toMatchObject({
      finish_reason: response?.["stop_reason"],
      tokens: { input: sub(response, "usage")?.["input_tokens"], output: sub(response, "usage")?.["output_tokens"] }
    })
  })

  it("an error response is status error with the error's type and message", () => {
    const body = json(fixture("anthropic/exchange-error.json"))
    const error = sub(sub(body, "response"), "error")
    expect(at(readOne(anthropicImporter, body).events, "response.error")).toMatchObject({ status: "error", status_code: error?.["type"], status_message: error?.["message"] })
  })
})

// ---------------------------------------------------------------------------------------------
// langsmith, langfuse, claude_code, codex, gemini_cli

describe("langsmith (the SDK's batch payload)", () => {
  it("tool calls linked to the llm's tool_calls ids, the llm's finish reason, a failed tool run's status and message", () => {
    const body = json(fixture("langsmith/traceable-batch.json"))
    const runs = list(body["post"])
    const trace = readOne(langSmithImporter, body)
    const failedRun = runs.find((run) => typeof run["error"] === "string") ?? expect.fail("no failed run")
    expect(at(trace.events, `run:${text(failedRun["id"])}`)).toMatchObject({ kind: "error", status: "error", status_message: failedRun["error"] })
    const llm = runs.find((run) => run["run_type"] === "llm") ?? expect.fail("no llm run")
    const choice = list(sub(llm, "outputs")?.["choices"])[0]
    const call = list(sub(choice, "message")?.["tool_calls"])[0]
    expect(at(trace.events, `run:${text(llm["id"])}/outputs.choices[0]`)).toMatchObject({ call_id: call?.["id"], finish_reason: choice?.["finish_reason"] })
  })

  it("a run's error names its exception class as the status code", () => {
    const trace = readOne(langSmithImporter, fixture("langsmith/runtree.json"))
    expect(trace.events.filter((event) => event.kind === "error").map((event) => event.status_code)).toEqual(["RateLimitError", "GraphRecursionError"])
  })
})

describe("langfuse (framework exports)", () => {
  it("OpenAI Agents through OpenInference: the declared tools, each generation's usageDetails and duration, call ids linked", () => {
    const body = json(fixture("langfuse/openai-agents-2025-09-30.json"))
    const observations = list(body["observations"])
    const trace = readOne(langfuseImporter, body)
    expect(trace.tools?.map((tool) => tool.name)).toEqual(["get_weather"])
    expect(trace.tools?.[0]?.parameters).toBeDefined()
    expectLinked(trace.events)
    for (const generation of observations.filter((observation) => observation["type"] === "GENERATION")) {
      const usage = sub(generation, "usageDetails")
      const answer = trace.events.find((event) => event.source.startsWith(`observation:${text(generation["id"])}/output`) && event.tokens !== undefined)
      expect(answer).toMatchObject({ role: "agent", tokens: { input: usage?.["input"], output: usage?.["output"] }, duration_ms: isoDuration(generation, "startTime", "endTime") })
    }
  })

  it("Pydantic AI: model_request_parameters' function tools declared with their schemas; finish reasons from the raw attributes", () => {
    const body = json(fixture("langfuse/pydantic-ai-tools-2025-12-04.json"))
    const offered = new Set(
      list(body["observations"]).flatMap((observation) => {
        const parameters = json(sub(json(sub(observation, "metadata")?.["attributes"] ?? {}), "model_request_parameters") ?? {})
        return list(parameters["function_tools"]).map((tool) => text(tool["name"]))
      })
    )
    const trace = readOne(langfuseImporter, body)
    expect(offered.size).toBeGreaterThan(2)
    expect(trace.tools?.map((tool) => tool.name).sort()).toEqual([...offered].sort())
    expect(trace.tools?.every((tool) => tool.description !== undefined && tool.parameters?.["type"] === "object")).toBe(true)
    expect(trace.events.flatMap((event) => (event.finish_reason === undefined ? [] : [event.finish_reason]))).toContain("tool_call")
    expectLinked(trace.events)
  })
})

describe("claude_code, codex, gemini_cli (session logs)", () => {
  it("Claude Code: the Task tool_use and its tool_result share the id; stop reason and usage once per API response", () => {
    const body = list(fixture("claude_code/sidechain_integrated.jsonl"))
    const trace = readOne(claudeCodeImporter, body)
    const first = sub(body[0], "message")
    const taskId = list(first?.["content"])[0]?.["id"]
    expect(list(sub(body[1], "message")?.["content"])[0]?.["tool_use_id"]).toBe(taskId)
    expect(at(trace.events, "lines[1].message.content[0]")).toMatchObject({ kind: "tool_result", call_id: taskId })
    expect(at(trace.events, "lines[0].message.content[0]")).toMatchObject({
      call_id: taskId,
      finish_reason: first?.["stop_reason"],
      tokens: { input: sub(first, "usage")?.["input_tokens"], output: sub(first, "usage")?.["output_tokens"] }
    })
    // lines 2 and 3 are one response written as two records: its usage is counted once
    expect(sub(body[2], "message")?.["id"]).toBe(sub(body[3], "message")?.["id"])
    expect(at(trace.events, "lines[3].message.content[0]").tokens).toBeUndefined()
  })

  it("Codex exec --json: the item id links a command to its result, completed is status ok", () => {
    const trace = readOne(codexImporter, fixture("codex/codex-0.169-exec-json.jsonl"))
    expectLinked(trace.events)
    expect(ofKind(trace.events, "tool_result")[0]?.status).toBe("ok")
  })

  it("Gemini CLI: a tool call and its result share the call's id, success is status ok, the model's tokens on its record", () => {
    const records = list(fixture("gemini_cli/gemini-cli-0.61-session.jsonl"))
    const trace = readOne(geminiCliImporter, records)
    expectLinked(trace.events)
    const withCalls = records.find((record) => list(record["toolCalls"]).length > 0) ?? expect.fail("no tool call record")
    const call = list(withCalls["toolCalls"])[0]
    expect(ofKind(trace.events, "tool_result")[0]).toMatchObject({ call_id: call?.["id"], status: "ok" })
    expect(trace.events.some((event) => event.tokens?.input === sub(withCalls, "tokens")?.["input"])).toBe(true)
  })
})

// ---------------------------------------------------------------------------------------------
// Outputs that have no such data are unchanged; the cache key; normalize over HTTP

describe("the model's version", () => {
  it("a source without structure gives events without the new fields", () => {
    const trace = readOne(openAiImporter, [{ role: "user", content: "Hi" }, { role: "assistant", content: "Hello." }])
    expect(trace.events.map((event) => Object.keys(event))).toEqual([["actor", "role", "kind", "content", "source"], ["actor", "role", "kind", "content", "source"]])
    expect("tools" in trace).toBe(false)
  })

  it("is covered by the cache key: no answer cached from a trace read the old way is served", () => {
    const parts = { pattern: "lewin", mode: "quick", model: null, trace: { task: "t", steps: [] } }
    expect(CACHE_KEY_VERSION).toBeGreaterThanOrEqual(2)
    expect(cacheKey(parts)).toBe(createHash("sha256").update(canonicalJson({ ...parts, version: CACHE_KEY_VERSION })).digest("hex"))
    expect(cacheKey(parts)).not.toBe(createHash("sha256").update(canonicalJson(parts)).digest("hex"))
  })
})

describe("POST /v1/traces/normalize", () => {
  const harness = useProviderDouble()
  it("answers the structure on the wire, decoded by the contract's schema", async () => {
    const service = await harness.start({ ANTHROPIC_API_KEY: "sk-ant-structure-0123456789", ANTHROPIC_BASE_URL: harness.double.url })
    const response = await fetch(`${service.url}/v1/traces/normalize`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ trace: fixture("openinference/openai-chat-agent.spans.json"), select: 0 })
    })
    expect(response.status).toBe(200)
    const { trace } = Schema.decodeUnknownSync(Schema.Struct({ trace: NormalizedTrace }))(await response.json())
    expect(trace.tools?.map((tool) => tool.name)).toEqual(["get_weather"])
    expect(trace.events.filter((event) => event.kind === "tool_call").map((event) => event.call_id)).toEqual(["call_paris", "call_london"])
    expect(trace.events.at(-1)).toMatchObject({ finish_reason: "stop", status: "ok", tokens: { input: 120, output: 24 } })
    expect(trace.events.every((event) => event.duration_ms === undefined || event.duration_ms >= 0)).toBe(true)
  })
})
