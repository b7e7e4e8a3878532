/**
 * MCP over Streamable HTTP at /mcp (issue 16, DECISIONS §14), end to end: the real service on a
 * loopback port, the official `@modelcontextprotocol/sdk` client (and the inspector's CLI), the
 * provider double behind it. The MCP surface goes through the same edge and services as REST:
 * the same answers, errors, limits, rate limit, auth, request ids and metrics.
 */
import { Predicate } from "effect"
import { describe, expect, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { promisify } from "node:util"
import { useProviderDouble } from "../support/Harness.js"
import { exampleOutput, exampleTrace } from "../support/ProviderDouble.js"
import type { RunningService } from "../support/Service.js"
import { connectHttp, firstText, sample, waitFor } from "./support.js"

const harness = useProviderDouble()
const withProvider = (env: Record<string, string> = {}) =>
  harness.start({ ANTHROPIC_API_KEY: "sk-ant-mcp-0123456789abcdef", ANTHROPIC_BASE_URL: harness.double.url, ...env })

const FIXTURES = join(import.meta.dirname, "..", "fixtures", "traces")
const fixture = (path: string): unknown => JSON.parse(readFileSync(join(FIXTURES, path), "utf8"))
const rest = async (service: RunningService, path: string, body?: unknown) => {
  const response = await fetch(`${service.url}${path}`, body === undefined ? {} : {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body)
  })
  return { status: response.status, json: await response.json() }
}
const rpc = (service: RunningService, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${service.url}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body)
  })
const INITIALIZE = {
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } }
}

describe("MCP over Streamable HTTP", () => {
  it("initialize, then 43 tools (all read-only but svc_submit_run and svc_explain_run), a resource template per kind with 102 resources, and a prompt per pattern", async () => {
    const service = await withProvider()
    const { client, transport } = await connectHttp(service.url)
    expect(client.getServerVersion()?.name).toBe("pattern-analysis-service")
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/)
    const { tools } = await client.listTools()
    expect(tools).toHaveLength(43)
    const names = tools.map((tool) => tool.name)
    expect(names).toContain("svc_lewin")
    expect(names).toContain("svc_diagnose")
    expect(names).toContain("svc_check")
    expect(names).toContain("svc_list_patterns")
    for (const tool of tools) {
      expect(tool.annotations?.readOnlyHint, tool.name).toBe(tool.name !== "svc_submit_run" && tool.name !== "svc_explain_run")
      expect(tool.annotations?.destructiveHint, tool.name).toBe(false)
      expect(tool.inputSchema.type).toBe("object")
    }
    expect(tools.find((tool) => tool.name === "svc_lewin")?.inputSchema.required).toEqual(["trace"])
    const { resourceTemplates } = await client.listResourceTemplates()
    expect(resourceTemplates.map((template) => template.uriTemplate).sort()).toEqual([
      "svc://patterns/{name}/citations",
      "svc://patterns/{name}/composition",
      "svc://patterns/{name}/playbooks"
    ])
    expect((await client.listResources()).resources).toHaveLength(102)
    expect((await client.listPrompts()).prompts).toHaveLength(34)
    await client.close()
  })

  it("a pattern tool answers what REST answers, as structuredContent and a short summary, counted with surface=mcp", async () => {
    const service = await withProvider()
    harness.double.script = () => ({ kind: "object", value: exampleOutput("lewin") })
    const { client } = await connectHttp(service.url)
    const before = await sample(service.url, "svc_requests_total", { surface: "mcp", pattern: "lewin", mode: "quick", status: "ok" })
    const result = await client.callTool({ name: "svc_lewin", arguments: { trace: exampleTrace("lewin"), mode: "quick" } })
    expect(result.isError).toBeFalsy()
    const structured = result.structuredContent
    expect(Predicate.isRecord(structured)).toBe(true)
    if (!Predicate.isRecord(structured)) return
    expect(structured["pattern"]).toBe("lewin")
    expect(structured["mode"]).toBe("quick")
    expect(structured["cached"]).toBe(false)
    const detection = structured["detection"]
    expect(Predicate.isRecord(detection) && detection["severity"]).toBe(exampleOutput("lewin")["severity"])
    expect(firstText(result)).toContain("Lewin Attribution (lewin): severity")
    expect(harness.double.calls).toHaveLength(1)
    expect(await sample(service.url, "svc_requests_total", { surface: "mcp", pattern: "lewin", mode: "quick", status: "ok" })).toBe(before + 1)

    // The same request over REST gives the same detection (but for its timing and time stamp).
    const viaRest = await rest(service, "/v1/analyze/lewin", { trace: exampleTrace("lewin"), mode: "quick" })
    expect(viaRest.status).toBe(200)
    const timeless = (value: unknown) => {
      if (!Predicate.isRecord(value)) return value
      const { generated_at: _at, usage: _usage, ...rest } = value
      return rest
    }
    expect(timeless(Predicate.isRecord(viaRest.json) ? viaRest.json["detection"] : undefined)).toEqual(timeless(detection))
    await client.close()
  })

  it("a raw trace in any format, and a trace sent as a JSON string, are read as REST reads them", async () => {
    const service = await withProvider()
    harness.double.script = () => ({ kind: "object", value: exampleOutput("lewin") })
    const { client } = await connectHttp(service.url)
    const trace = fixture("openai/chat-tool-calls.json")
    const asValue = await client.callTool({ name: "svc_lewin", arguments: { trace, mode: "quick" } })
    expect(asValue.isError, firstText(asValue)).toBeFalsy()
    const asString = await client.callTool({ name: "svc_lewin", arguments: { trace: JSON.stringify(trace), mode: "quick" } })
    expect(asString.isError, firstText(asString)).toBeFalsy()
    const detectionOf = (result: unknown) => (Predicate.isRecord(result) && Predicate.isRecord(result["structuredContent"]) ? result["structuredContent"]["detection"] : undefined)
    const intake = (result: unknown) => {
      const detection = detectionOf(result)
      return Predicate.isRecord(detection) ? detection["intake"] : undefined
    }
    expect(intake(asValue)).toEqual(intake(asString))
    expect(Predicate.isRecord(intake(asValue)) && Reflect.get(intake(asValue) ?? {}, "format")).toBe("openai")
    await client.close()
  })

  it("svc_diagnose runs the lenses triage picks and answers the report", async () => {
    const service = await withProvider()
    const { client } = await connectHttp(service.url)
    const before = await sample(service.url, "svc_requests_total", { surface: "mcp", pattern: "diagnose", mode: "quick", status: "ok" })
    const result = await client.callTool({ name: "svc_diagnose", arguments: { trace: fixture("openai/chat-tool-calls.json"), mode: "quick", max_patterns: 2 } })
    expect(result.isError, firstText(result)).toBeFalsy()
    const report = Predicate.isRecord(result.structuredContent) ? result.structuredContent["report"] : undefined
    expect(Predicate.isRecord(report)).toBe(true)
    if (!Predicate.isRecord(report)) return
    expect(Array.isArray(report["patterns"]) && report["patterns"].length).toBe(2)
    expect(Array.isArray(report["triage"]) && report["triage"].length).toBe(34)
    expect(firstText(result)).toMatch(/^Diagnose of a openai trace/)
    expect(harness.double.calls).toHaveLength(2)
    expect(await sample(service.url, "svc_requests_total", { surface: "mcp", pattern: "diagnose", mode: "quick", status: "ok" })).toBe(before + 1)
    await client.close()
  })

  it("svc_check answers what POST /v1/checks answers, without a model call; its errors are REST's", async () => {
    const service = await withProvider()
    const { client } = await connectHttp(service.url)
    const { tools } = await client.listTools()
    const tool = tools.find((candidate) => candidate.name === "svc_check")
    expect(tool?.inputSchema.required).toEqual(["trace"])
    expect(Object.keys(tool?.inputSchema.properties ?? {}).sort()).toEqual(["format", "select", "trace"])
    expect(tool?.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: false })
    // A refund whose tool failed, and the agent said it was done; the trace sent as a JSON string.
    const trace = {
      messages: [
        { role: "user", content: "Refund order 1182 please" },
        { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "issue_refund", arguments: "{}" } }] },
        { role: "tool", tool_call_id: "call_1", content: "Error: 503 Service Unavailable: payments gateway down" },
        { role: "assistant", content: "Done! Your refund has been issued." }
      ]
    }
    const result = await client.callTool({ name: "svc_check", arguments: { trace: JSON.stringify(trace) } })
    expect(result.isError, firstText(result)).toBeFalsy()
    const viaRest = await rest(service, "/v1/checks", trace)
    expect(viaRest.status).toBe(200)
    expect(result.structuredContent).toEqual(viaRest.json)
    const structured = result.structuredContent
    const checks = Predicate.isRecord(structured) && Array.isArray(structured["checks"]) ? structured["checks"] : []
    expect(checks.map((check: unknown) => (Predicate.isRecord(check) ? check["check"] : undefined))).toEqual(["tool_error_unrecovered", "success_claim_after_error"])
    expect(firstText(result)).toMatch(/^Checks on a openai trace \(4 events\): severity high, 2 finding\(s\)\./)
    expect(firstText(result)).toContain("- tool_error_unrecovered (high): issue_refund failed at events[2]")
    expect(harness.double.calls).toHaveLength(0)

    const bad = await client.callTool({ name: "svc_check", arguments: { trace: { hello: "world" } } })
    const badRest = await rest(service, "/v1/checks", { trace: { hello: "world" } })
    expect(bad.isError).toBe(true)
    expect(bad.structuredContent).toEqual(badRest.json)
    expect(firstText(bad)).toMatch(/^unsupported_trace_format: /)
    await client.close()
  })

  it("svc_list_patterns, the resources and the prompts serve the catalogue as REST does", async () => {
    const service = await withProvider()
    const { client } = await connectHttp(service.url)
    const listed = await client.callTool({ name: "svc_list_patterns", arguments: {} })
    expect(listed.structuredContent).toEqual((await rest(service, "/v1/patterns")).json)
    expect(firstText(listed).split("\n")).toHaveLength(34)

    const playbooks = await client.readResource({ uri: "svc://patterns/lewin/playbooks" })
    const first = playbooks.contents[0]
    expect(first?.mimeType).toBe("application/json")
    expect(JSON.parse(first !== undefined && "text" in first && typeof first.text === "string" ? first.text : "null")).toEqual(
      (await rest(service, "/v1/patterns/lewin/playbooks")).json
    )
    const citations = await client.readResource({ uri: "svc://patterns/span_of_control/citations" })
    const citationsText = citations.contents[0]
    expect(citationsText !== undefined && "text" in citationsText ? citationsText.text : "").toBe(
      await (await fetch(`${service.url}/v1/patterns/span_of_control/citations`)).text()
    )
    await expect(client.readResource({ uri: "svc://patterns/nope/composition" })).rejects.toThrow(/no pattern named "nope"/)
    const completion = await client.complete({ ref: { type: "ref/resource", uri: "svc://patterns/{name}/playbooks" }, argument: { name: "name", value: "le" } })
    expect(completion.completion.values).toContain("lewin")

    const prompt = await client.getPrompt({ name: "lewin", arguments: { trace: "[{\"role\":\"user\",\"content\":\"hi\"}]" } })
    const message = prompt.messages[0]
    const text = message !== undefined && message.content.type === "text" ? message.content.text : ""
    expect(text).toContain("`svc_lewin`")
    expect(text).toContain("svc://patterns/lewin/playbooks")
    expect(text).toContain("[{\"role\":\"user\",\"content\":\"hi\"}]")
    await expect(client.getPrompt({ name: "lewin", arguments: {} })).rejects.toThrow(/needs the argument trace/)
    await client.close()
  })

  it("errors inside a call are tool errors with the kind and message HTTP gives the same body", async () => {
    const service = await withProvider({ SVC_API_REQUEST_TIMEOUT: "1s" })
    const { client } = await connectHttp(service.url)
    const cases: ReadonlyArray<Record<string, unknown>> = [
      { trace: exampleTrace("lewin"), mode: "bogus" },
      { trace: { task: 42 } },
      { trace: { spans: "nope" }, format: "otel" },
      { trace: exampleTrace("lewin"), format: "yaml" }
    ]
    for (const args of cases) {
      const result = await client.callTool({ name: "svc_lewin", arguments: args })
      const viaRest = await rest(service, "/v1/analyze/lewin", args)
      expect(result.isError, JSON.stringify(args)).toBe(true)
      expect(result.structuredContent).toEqual(viaRest.json)
      const detail = Predicate.isRecord(viaRest.json) && Predicate.isRecord(viaRest.json["detail"]) ? viaRest.json["detail"] : {}
      expect(firstText(result)).toBe(`${String(detail["error"])}: ${String(detail["message"])}`)
    }
    const missing = await client.callTool({ name: "svc_lewin", arguments: {} })
    expect(missing.structuredContent).toEqual({ detail: { error: "validation_error", message: expect.stringContaining("`trace` is required") } })
    const unknownLens = await client.callTool({ name: "svc_diagnose", arguments: { trace: exampleTrace("lewin"), patterns: ["nope"] } })
    expect(unknownLens.isError).toBe(true)
    expect(firstText(unknownLens)).toMatch(/^validation_error: patterns names no pattern called "nope"/)
    // An unknown tool is a protocol error (MCP: the tool could not be found).
    await expect(client.callTool({ name: "svc_nope", arguments: {} })).rejects.toThrow(/Tool 'svc_nope' not found/)

    // Provider failure, then the deadline.
    harness.double.script = () => ({ kind: "status", status: 400, body: JSON.stringify({ type: "error", error: { type: "invalid_request_error", message: "bad" } }) })
    const failed = await client.callTool({ name: "svc_lewin", arguments: { trace: exampleTrace("lewin"), mode: "quick" } })
    expect(failed.isError).toBe(true)
    expect(firstText(failed)).toMatch(/^(analyzer_error|llm_resolution_error): /)
    harness.double.script = () => ({ kind: "hang" })
    const timedOut = await client.callTool({ name: "svc_lewin", arguments: { trace: exampleTrace("lewin"), mode: "standard" } })
    expect(timedOut.isError).toBe(true)
    expect(firstText(timedOut)).toMatch(/^timeout: the analysis exceeded the server-side deadline of 1 s/)
    expect(await sample(service.url, "svc_requests_total", { surface: "mcp", pattern: "lewin", mode: "standard", status: "timeout" })).toBeGreaterThanOrEqual(1)
    // The deadline aborted the hanging upstream request.
    await waitFor(() => harness.double.calls.at(-1)?.closedEarly === true, 30_000)
    await client.close()
  })

  it("behind the same edge: API keys, the rate limit, the body and trace limits at the HTTP level, request ids", async () => {
    const key = "mcp-key-0123456789abcdef0123"
    const guarded = await withProvider({ SVC_API_REQUIRE_AUTH: "true", SVC_API_KEYS: `alice=${key}`, SVC_API_MAX_TRACE_STEPS: "3" })
    await expect(connectHttp(guarded.url)).rejects.toThrow(/"error":"unauthorized","message":"an API key is required/)
    await expect(connectHttp(guarded.url, { authorization: "Bearer wrong-key-0123456789" })).rejects.toThrow(/the API key is not valid/)
    const { client } = await connectHttp(guarded.url, { authorization: `Bearer ${key}` })
    expect((await client.listTools()).tools).toHaveLength(43)
    // The trace limits are answered at the HTTP level, before the call runs.
    const steps = Array.from({ length: 5 }, (_, i) => ({ id: `s${i}`, actor: "agent", action: `step ${i}`, outcome: "ok" }))
    await expect(client.callTool({ name: "svc_lewin", arguments: { trace: { ...exampleTrace("lewin"), steps } } })).rejects.toThrow(/"error":"request_too_large","message":"steps has 5 elements, more than the limit of 3/)
    expect(harness.double.calls).toHaveLength(0)
    await client.close()

    const limited = await withProvider({ SVC_API_RATE_LIMIT: "3/60", SVC_API_MAX_BODY_BYTES: "2048" })
    const statuses: Array<number> = []
    for (let i = 0; i < 4; i++) statuses.push((await rpc(limited, { jsonrpc: "2.0", id: i, method: "ping" })).status)
    expect(statuses).toEqual([200, 200, 200, 429])
    const other = await withProvider({ SVC_API_MAX_BODY_BYTES: "2048" })
    const big = await rpc(other, { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "svc_lewin", arguments: { trace: { task: "x".repeat(4000) } } } })
    expect(big.status).toBe(413)
    expect(await big.json()).toEqual({ detail: { error: "request_too_large", message: expect.any(String) } })
    const traced = await rpc(other, { jsonrpc: "2.0", id: 7, method: "ping" }, { "x-request-id": "mcp-trace-42" })
    expect(traced.headers.get("x-request-id")).toBe("mcp-trace-42")
    expect(await traced.json()).toEqual({ jsonrpc: "2.0", id: 7, result: {} })
  })

  it("speaks the transport's edges: 202 for notifications, 405 for GET, sessions ended by DELETE, clear errors for bad bodies", async () => {
    const service = await withProvider()
    const init = await rpc(service, INITIALIZE)
    const session = init.headers.get("mcp-session-id") ?? ""
    expect(session).not.toBe("")
    expect((await rpc(service, { jsonrpc: "2.0", method: "notifications/initialized" }, { "mcp-session-id": session })).status).toBe(202)
    const get = await fetch(`${service.url}/mcp`)
    expect(get.status).toBe(405)
    expect(get.headers.get("allow")).toBe("POST, DELETE")
    expect(await get.json()).toEqual({ detail: { error: "method_not_allowed", message: expect.any(String) } })
    const notJson = await rpc(service, "{nope")
    expect(notJson.status).toBe(400)
    expect(await notJson.json()).toEqual({ detail: { error: "validation_error", message: expect.stringContaining("JSON-RPC") } })
    const textBody = await fetch(`${service.url}/mcp`, { method: "POST", headers: { "content-type": "text/plain" }, body: "{}" })
    expect(textBody.status).toBe(415)
    const version = await rpc(service, { jsonrpc: "2.0", id: 1, method: "ping" }, { "mcp-protocol-version": "1999-01-01" })
    expect(version.status).toBe(400)
    const batch = await rpc(service, [{ jsonrpc: "2.0", id: "a", method: "ping" }, { jsonrpc: "2.0", id: 2, method: "nope" }, { id: 3 }])
    expect(await batch.json()).toEqual([
      { jsonrpc: "2.0", id: "a", result: {} },
      { jsonrpc: "2.0", id: 2, error: { code: -32601, message: "Method not found: nope" } },
      { jsonrpc: "2.0", id: 3, error: { code: -32600, message: expect.stringContaining("Invalid Request") } }
    ])
    const ended = await fetch(`${service.url}/mcp`, { method: "DELETE", headers: { "mcp-session-id": session } })
    expect(ended.status).toBe(204)
    const after = await rpc(service, { jsonrpc: "2.0", id: 9, method: "ping" }, { "mcp-session-id": session })
    expect(after.status).toBe(404)
    // A session this replica does not know is served (replicas share no sessions).
    expect((await rpc(service, { jsonrpc: "2.0", id: 10, method: "ping" }, { "mcp-session-id": "from-another-replica" })).status).toBe(200)
  })

  it("a cancelled call (notifications/cancelled) and a closed request both abort the upstream model request", async () => {
    const service = await withProvider()
    harness.double.script = () => ({ kind: "hang" })
    const { client } = await connectHttp(service.url)
    const controller = new AbortController()
    const call = client.callTool({ name: "svc_lewin", arguments: { trace: exampleTrace("lewin"), mode: "quick" } }, undefined, { signal: controller.signal })
    await waitFor(() => harness.double.calls.length >= 1, 30_000)
    controller.abort("changed my mind")
    await expect(call).rejects.toThrow()
    await waitFor(() => harness.double.calls[0]?.closedEarly === true, 30_000)

    const before = await sample(service.url, "svc_requests_total", { surface: "mcp", pattern: "lewin", mode: "quick", status: "client_closed" })
    const second = await connectHttp(service.url)
    const pending = second.client.callTool({ name: "svc_lewin", arguments: { trace: { ...exampleTrace("lewin"), task: "another task" }, mode: "quick" } })
    await waitFor(() => harness.double.calls.length >= 2, 30_000)
    await second.transport.close()
    await expect(pending).rejects.toThrow()
    await waitFor(() => harness.double.calls[1]?.closedEarly === true, 30_000)
    expect(await sample(service.url, "svc_requests_total", { surface: "mcp", pattern: "lewin", mode: "quick", status: "client_closed" })).toBe(before + 1)
    await client.close()
  })

  it("the MCP inspector's CLI lists the tools, reads a resource and calls a tool", async () => {
    const service = await withProvider()
    harness.double.script = () => ({ kind: "object", value: exampleOutput("lewin") })
    const cli = join(import.meta.dirname, "..", "..", "node_modules", "@modelcontextprotocol", "inspector-cli", "build", "index.js")
    const run = async (...args: Array<string>) => {
      // Its build reads its own package.json by a path relative to the working directory.
      const { stdout } = await promisify(execFile)(process.execPath, [cli, `${service.url}/mcp`, ...args], { timeout: 30_000, cwd: dirname(cli) })
      const parsed: unknown = JSON.parse(stdout)
      return parsed
    }
    const listed = await run("--method", "tools/list")
    expect(Predicate.isRecord(listed) && Array.isArray(listed["tools"]) && listed["tools"].length).toBe(43)
    const resource = await run("--method", "resources/read", "--uri", "svc://patterns/lewin/composition")
    expect(JSON.stringify(resource)).toContain("svc://patterns/lewin/composition")
    const called = await run("--method", "tools/call", "--tool-name", "svc_lewin", "--tool-arg", `trace=${JSON.stringify(exampleTrace("lewin"))}`, "mode=quick")
    expect(Predicate.isRecord(called) && called["isError"]).toBeFalsy()
    expect(Predicate.isRecord(called) && Predicate.isRecord(called["structuredContent"]) && called["structuredContent"]["pattern"]).toBe("lewin")
  }, 60_000)
})
