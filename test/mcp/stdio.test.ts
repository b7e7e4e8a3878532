/**
 * MCP over stdio (issue 16, DECISIONS §14): `svc mcp` (bin/svc, the built dist/cli.mjs) as a
 * child process, driven by the official `@modelcontextprotocol/sdk` client and by hand, against
 * the provider double. stdout carries the protocol and nothing else; the guards, limits and
 * cancellation hold as over HTTP.
 */
import { Predicate } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { existsSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { exampleOutput, exampleTrace, type ProviderDouble, startProviderDouble } from "../support/ProviderDouble.js"
import { connectStdio, firstText, MCP_ENTRY, waitFor } from "./support.js"

let double: ProviderDouble
beforeAll(async () => {
  double = await startProviderDouble()
})
afterAll(async () => {
  await double.close()
})

const providerEnv = () => ({
  ANTHROPIC_API_KEY: "sk-ant-stdio-0123456789abcdef",
  ANTHROPIC_BASE_URL: double.url,
  SVC_HOME: mkdtempSync(join(tmpdir(), "svc-mcp-home-"))
})

describe("MCP over stdio", () => {
  it("initialize, 43 tools, a pattern call and a diagnose against the provider double, a resource and a prompt", async () => {
    double.reset()
    double.script = () => ({ kind: "object", value: exampleOutput("lewin") })
    const { client, stderr } = await connectStdio(providerEnv())
    expect((await client.listTools()).tools).toHaveLength(43)
    const result = await client.callTool({ name: "svc_lewin", arguments: { trace: exampleTrace("lewin"), mode: "quick" } })
    expect(result.isError, firstText(result)).toBeFalsy()
    expect(Predicate.isRecord(result.structuredContent) && result.structuredContent["pattern"]).toBe("lewin")
    expect(double.calls).toHaveLength(1)

    double.script = () => undefined
    const diagnosed = await client.callTool({ name: "svc_diagnose", arguments: { trace: exampleTrace("lewin"), mode: "quick", patterns: ["lewin", "span_of_control"] } })
    expect(diagnosed.isError, firstText(diagnosed)).toBeFalsy()
    const report = Predicate.isRecord(diagnosed.structuredContent) ? diagnosed.structuredContent["report"] : undefined
    expect(Predicate.isRecord(report) && Array.isArray(report["patterns"]) && report["patterns"].map((run: unknown) => (Predicate.isRecord(run) ? run["pattern"] : ""))).toEqual([
      "lewin",
      "span_of_control"
    ])

    const resource = await client.readResource({ uri: "svc://patterns/lewin/citations" })
    expect(resource.contents[0]?.mimeType).toBe("text/markdown")
    const prompt = await client.getPrompt({ name: "span_of_control", arguments: { trace: "{}" } })
    expect(prompt.messages).toHaveLength(1)

    const invalid = await client.callTool({ name: "svc_lewin", arguments: { trace: exampleTrace("lewin"), mode: "bogus" } })
    expect(invalid.isError).toBe(true)
    expect(invalid.structuredContent).toEqual({ detail: { error: "invalid_mode", message: "mode must be one of quick, standard, forensic (got \"bogus\")" } })
    await client.close()
    // Logs went to stderr, as JSON lines.
    expect(stderr.join("").split("\n").filter((line) => line.startsWith("{")).length).toBeGreaterThan(0)
  }, 60_000)

  it("the same guards: an API key from SVC_API_KEY (its name picks the data scope), the rate limit per call, the trace limits", async () => {
    const key = "stdio-key-0123456789abcdef01"
    const env = { ...providerEnv(), SVC_API_REQUIRE_AUTH: "true", SVC_API_KEYS: `alice=${key}`, SVC_API_MAX_TRACE_STEPS: "20", SVC_API_RATE_LIMIT: "2/60" }
    double.reset()
    const without = await connectStdio(env)
    const refused = await without.client.callTool({ name: "svc_lewin", arguments: { trace: exampleTrace("lewin") } })
    expect(refused.structuredContent).toEqual({ detail: { error: "unauthorized", message: "an API key is required: set SVC_API_KEY in the environment of `svc mcp`" } })
    await without.client.close()

    const withKey = await connectStdio({ ...env, SVC_API_KEY: key })
    const steps = Array.from({ length: 25 }, (_, i) => ({ id: `s${i}`, actor: "agent", action: `step ${i}`, outcome: "ok" }))
    const tooLarge = await withKey.client.callTool({ name: "svc_lewin", arguments: { trace: { ...exampleTrace("lewin"), steps } } })
    expect(tooLarge.structuredContent).toEqual({ detail: { error: "request_too_large", message: expect.stringContaining("steps has 25 elements") } })
    double.script = () => ({ kind: "object", value: exampleOutput("lewin") })
    const allowed = await withKey.client.callTool({ name: "svc_lewin", arguments: { trace: exampleTrace("lewin"), mode: "quick", baseline: "nightly" } })
    expect(allowed.isError, firstText(allowed)).toBeFalsy()
    // The baseline went to alice's scope.
    expect(existsSync(join(env.SVC_HOME, "scopes", "alice", "baselines"))).toBe(true)
    const limited = await withKey.client.callTool({ name: "svc_lewin", arguments: { trace: exampleTrace("lewin") } })
    expect(limited.structuredContent).toEqual({ detail: { error: "rate_limited", message: expect.stringContaining("rate limit of 2 requests exceeded") } })
    expect(double.calls).toHaveLength(1)
    await withKey.client.close()
    // The key itself never appears in what the process writes.
    expect(withKey.stderr.join("")).not.toContain(key)
  }, 60_000)

  it("notifications/cancelled interrupts the call and aborts its upstream model request", async () => {
    double.reset()
    double.script = () => ({ kind: "hang" })
    const { client } = await connectStdio(providerEnv())
    const controller = new AbortController()
    const call = client.callTool({ name: "svc_lewin", arguments: { trace: exampleTrace("lewin"), mode: "quick" } }, undefined, { signal: controller.signal })
    await waitFor(() => double.calls.length >= 1, 30_000)
    controller.abort("no longer needed")
    await expect(call).rejects.toThrow()
    await waitFor(() => double.calls[0]?.closedEarly === true, 30_000)
    // The server is still there for the next call.
    double.script = () => ({ kind: "object", value: exampleOutput("lewin") })
    const next = await client.callTool({ name: "svc_lewin", arguments: { trace: exampleTrace("lewin"), mode: "quick" } })
    expect(next.isError, firstText(next)).toBeFalsy()
    await client.close()
  }, 60_000)

  it("stdout is the protocol only: bad lines get JSON-RPC errors, string ids are kept, and the calls in flight finish when stdin ends", async () => {
    double.reset()
    double.script = () => ({ kind: "delay", ms: 300, then: { kind: "object", value: exampleOutput("lewin") } })
    const child = spawn(process.execPath, [MCP_ENTRY, "mcp"], { env: { PATH: process.env["PATH"] ?? "", SVC_LOG_LEVEL: "debug", ...providerEnv() }, stdio: ["pipe", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8")
    })
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8")
    })
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve))
    const lines = [
      { jsonrpc: "2.0", id: "init-1", method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      "this is not json",
      { jsonrpc: "2.0", id: 2, method: "no/such/method" },
      { jsonrpc: "2.0", id: "call-3", method: "tools/call", params: { name: "svc_lewin", arguments: { trace: exampleTrace("lewin"), mode: "quick" } } }
    ]
    child.stdin.write(lines.map((line) => (typeof line === "string" ? line : JSON.stringify(line))).join("\n") + "\n")
    await waitFor(() => double.calls.length >= 1, 30_000)
    child.stdin.end()
    expect(await exited).toBe(0)
    const messages: Array<unknown> = stdout.trim().split("\n").map((line) => JSON.parse(line))
    expect(messages).toHaveLength(4)
    const byId = new Map(messages.flatMap((message) => (Predicate.isRecord(message) ? [[message["id"], message] as const] : [])))
    expect(byId.get("init-1")).toMatchObject({ result: { serverInfo: { name: "pattern-analysis-service" } } })
    expect(byId.get(null)).toEqual({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error: the message is not JSON" } })
    expect(byId.get(2)).toEqual({ jsonrpc: "2.0", id: 2, error: { code: -32601, message: "Method not found: no/such/method" } })
    expect(byId.get("call-3")).toMatchObject({ result: { structuredContent: { pattern: "lewin" } } })
    expect(stderr.split("\n").some((line) => line.startsWith("{") && line.includes("\"logLevel\""))).toBe(true)
  }, 60_000)
  it("a line over the body limit is dropped as it streams and answered with -32600, the stream goes on; ids past 2^53 keep their digits; batches follow the negotiated version", async () => {
    const child = spawn(process.execPath, [MCP_ENTRY, "mcp"], {
      env: { PATH: process.env["PATH"] ?? "", SVC_LOG_LEVEL: "none", SVC_API_MAX_BODY_BYTES: "1024", SVC_MCP_MAX_BATCH: "2", ...providerEnv() },
      stdio: ["pipe", "pipe", "pipe"]
    })
    let stdout = ""
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8")
    })
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve))
    const lines = () => stdout.split("\n").filter((line) => line.length > 0)
    const send = async (text: string, answers: number) => {
      const before = lines().length
      child.stdin.write(text)
      await waitFor(() => lines().length >= before + answers, 20_000)
      return lines().slice(before)
    }
    const pings = (count: number) => JSON.stringify(Array.from({ length: count }, (_, i) => ({ jsonrpc: "2.0", id: i, method: "ping" })))

    // 4 MiB on one line, written in pieces, then a ping on the next line.
    child.stdin.write(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"`)
    for (let i = 0; i < 64; i++) child.stdin.write("x".repeat(64 * 1024))
    const afterLong = await send(`"}}\n{"jsonrpc":"2.0","id":12345678901234567890,"method":"ping"}\n`, 2)
    expect(afterLong).toEqual([
      JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32600, message: "Invalid Request: a line over 1024 bytes (SVC_API_MAX_BODY_BYTES) was dropped unread" } }),
      '{"jsonrpc":"2.0","id":12345678901234567890,"result":{}}'
    ])
    // Before initialize (no version yet): batches up to SVC_MCP_MAX_BATCH.
    expect(await send(`${pings(2)}\n`, 2)).toHaveLength(2)
    expect(await send(`${pings(3)}\n`, 1)).toEqual([
      JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32600, message: "Invalid Request: a batch of 3 messages is over the limit of 2 (SVC_MCP_MAX_BATCH): send fewer at once" } })
    ])
    const init = { jsonrpc: "2.0", id: "init", method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } }
    await send(`${JSON.stringify(init)}\n`, 1)
    const [refused] = await send(`${pings(2)}\n`, 1)
    expect(JSON.parse(refused ?? "null")).toEqual({ jsonrpc: "2.0", id: null, error: { code: -32600, message: expect.stringContaining("JSON-RPC batches are not part of MCP 2025-06-18") } })
    expect(await send('{"jsonrpc":"2.0","id":null,"method":"ping"}\n', 1)).toEqual([
      expect.stringMatching(/^\{"jsonrpc":"2\.0","id":null,"error":\{"code":-32600,"message":"Invalid Request: MCP requires a string or number id/)
    ])
    child.stdin.end()
    expect(await exited).toBe(0)
  }, 60_000)
})
