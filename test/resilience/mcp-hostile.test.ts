/**
 * Hostile input to /mcp (issue 27), each inside every documented limit, against the real service
 * and the provider double: a batch that used to build a reply past V8's string limit (and end the
 * process), batches that went around the rate limit, one key evicting another key's sessions,
 * number ids past 2^53, `id: null`, unknown resource URIs.
 */
import { Predicate } from "effect"
import { describe, expect, it } from "@effect/vitest"
import { useProviderDouble } from "../support/Harness.js"
import { exampleOutput, exampleTrace } from "../support/ProviderDouble.js"
import type { RunningService } from "../support/Service.js"
import { connectHttp, firstText, waitFor } from "../mcp/support.js"

const harness = useProviderDouble()
const withProvider = (env: Record<string, string> = {}) =>
  harness.start({ ANTHROPIC_API_KEY: "sk-ant-mcp-0123456789abcdef", ANTHROPIC_BASE_URL: harness.double.url, ...env })

const post = (service: RunningService, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${service.url}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body)
  })
const initialize = (version: string) => ({
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: version, capabilities: {}, clientInfo: { name: "hostile", version: "1" } }
})
const toolsList = (count: number) => Array.from({ length: count }, (_, id) => ({ jsonrpc: "2.0", id, method: "tools/list" }))
const OLD_VERSION = { "mcp-protocol-version": "2025-03-26" }

describe("MCP over HTTP, hostile input", () => {
  it("a batch of 7,000 tools/list calls is refused whole (400), and the service still answers", async () => {
    const service = await withProvider()
    const body = JSON.stringify(toolsList(7000))
    expect(body.length).toBeGreaterThan(300_000)
    const refused = await post(service, body)
    expect(refused.status).toBe(400)
    expect(await refused.json()).toEqual({
      detail: { error: "validation_error", message: "a batch of 7000 messages is over the limit of 32 (SVC_MCP_MAX_BATCH): send fewer at once" }
    })
    expect((await fetch(`${service.url}/healthz`)).status).toBe(200)
    // A batch at the cap is served.
    const served = await post(service, toolsList(32), OLD_VERSION)
    const answers: unknown = await served.json()
    expect(served.status).toBe(200)
    expect(Array.isArray(answers) && answers.length).toBe(32)
  })

  it("a batch whose answers pass the reply limit (64 MiB) is answered, what does not fit as -32603 errors", async () => {
    const service = await withProvider({ SVC_MCP_MAX_BATCH: "1000" })
    const one = await (await post(service, { jsonrpc: "2.0", id: 1, method: "tools/list" })).text()
    // About 80 KB each: 1,000 of them pass 64 MiB (7,000 passed V8's string limit).
    const count = 1000
    expect(one.length * count).toBeGreaterThan(64 * 1024 * 1024)
    const response = await post(service, toolsList(count), OLD_VERSION)
    expect(response.status).toBe(200)
    const text = await response.text()
    expect(Buffer.byteLength(text)).toBeLessThan(64 * 1024 * 1024 + count * 300)
    const answers: unknown = JSON.parse(text)
    const list = Array.isArray(answers) ? answers : []
    expect(list).toHaveLength(count)
    const tooLarge = list.filter((answer: unknown) => Predicate.isRecord(answer) && Predicate.isRecord(answer["error"]) && answer["error"]["code"] === -32603)
    expect(tooLarge.length).toBeGreaterThan(0)
    expect(tooLarge.length).toBeLessThan(count)
    expect(JSON.stringify(tooLarge[0])).toContain("over the reply limit of 67108864 bytes")
    expect((await fetch(`${service.url}/healthz`)).status).toBe(200)
  }, 120_000)

  it("batches are refused under MCP 2025-06-18 (announced in the header, or negotiated by the session), served under 2025-03-26", async () => {
    const service = await withProvider()
    const pings = [{ jsonrpc: "2.0", id: 1, method: "ping" }, { jsonrpc: "2.0", id: 2, method: "ping" }]
    const announced = await post(service, pings, { "mcp-protocol-version": "2025-06-18" })
    expect(announced.status).toBe(400)
    expect(await announced.json()).toEqual({ detail: { error: "validation_error", message: expect.stringContaining("JSON-RPC batches are not part of MCP 2025-06-18") } })

    const opened = await post(service, initialize("2025-06-18"))
    const session = opened.headers.get("mcp-session-id") ?? ""
    expect(await opened.json()).toMatchObject({ result: { protocolVersion: "2025-06-18" } })
    expect((await post(service, pings, { "mcp-session-id": session })).status).toBe(400)

    const older = await post(service, initialize("2025-03-26"))
    const olderSession = older.headers.get("mcp-session-id") ?? ""
    const served = await post(service, pings, { "mcp-session-id": olderSession })
    expect(served.status).toBe(200)
    expect(await served.json()).toEqual([{ jsonrpc: "2.0", id: 1, result: {} }, { jsonrpc: "2.0", id: 2, result: {} }])
  })

  it("each tool call of a batch counts against the rate limit: 500 svc_lewin calls under 3/60 make 3 model calls, the rest are rate_limited tool errors", async () => {
    const service = await withProvider({ SVC_API_RATE_LIMIT: "3/60", SVC_MCP_MAX_BATCH: "500" })
    harness.double.script = () => ({ kind: "object", value: exampleOutput("lewin") })
    // Each trace differs, so neither the cache nor single flight could share a model call.
    const calls = Array.from({ length: 500 }, (_, id) => ({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "svc_lewin", arguments: { trace: { ...exampleTrace("lewin"), task: `task number ${id}` }, mode: "quick" } }
    }))
    const response = await post(service, calls, OLD_VERSION)
    expect(response.status).toBe(200)
    const answers: unknown = await response.json()
    const results = Array.isArray(answers) ? answers.map((answer: unknown) => (Predicate.isRecord(answer) ? answer["result"] : undefined)) : []
    expect(results).toHaveLength(500)
    const limited = results.filter((result) => Predicate.isRecord(result) && result["isError"] === true && /^rate_limited: rate limit of 3 requests exceeded; retry after \d+ s/.test(firstText(result)))
    const ran = results.filter((result) => Predicate.isRecord(result) && result["isError"] !== true)
    expect(limited).toHaveLength(497)
    expect(ran).toHaveLength(3)
    expect(limited[0]).toMatchObject({ structuredContent: { detail: { error: "rate_limited" } } })
    expect(harness.double.calls).toHaveLength(3)
    // The limit holds for the next POST too.
    expect((await post(service, { jsonrpc: "2.0", id: 1, method: "ping" })).status).toBe(429)
  }, 120_000)

  it("svc_diagnose in a batch: calls past the rate limit start no lens", async () => {
    const service = await withProvider({ SVC_API_RATE_LIMIT: "2/60", SVC_MCP_MAX_BATCH: "100" })
    const calls = Array.from({ length: 100 }, (_, id) => ({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "svc_diagnose", arguments: { trace: { ...exampleTrace("lewin"), task: `task ${id}` }, mode: "quick", patterns: ["lewin", "span_of_control"] } }
    }))
    const answers: unknown = await (await post(service, calls, OLD_VERSION)).json()
    const ran = Array.isArray(answers) ? answers.filter((answer: unknown) => Predicate.isRecord(answer) && Predicate.isRecord(answer["result"]) && answer["result"]["isError"] !== true) : []
    // The POST and one more call: two diagnoses of two quick lenses each.
    expect(ran).toHaveLength(2)
    expect(harness.double.calls).toHaveLength(4)
  }, 120_000)

  it("number ids past 2^53 come back with their digits, and cancel by them; id null is answered with -32600", async () => {
    const service = await withProvider()
    const big = await post(service, '{"jsonrpc":"2.0","id":12345678901234567890,"method":"ping"}')
    expect(await big.text()).toBe('{"jsonrpc":"2.0","id":12345678901234567890,"result":{}}')
    const batch = await post(service, '[{"jsonrpc":"2.0","id":12345678901234567890,"method":"ping"},{"jsonrpc":"2.0","id":12345678901234567891,"method":"ping"}]', OLD_VERSION)
    const text = await batch.text()
    expect(text).toContain('"id":12345678901234567890,')
    expect(text).toContain('"id":12345678901234567891,')

    const nullId = await post(service, { jsonrpc: "2.0", id: null, method: "tools/list" })
    expect(nullId.status).toBe(200)
    expect(await nullId.json()).toEqual({ jsonrpc: "2.0", id: null, error: { code: -32600, message: expect.stringContaining("null is not one") } })
  })

  it("resources/read of an unknown URI is -32602 naming it", async () => {
    const service = await withProvider()
    const unknown = await post(service, { jsonrpc: "2.0", id: 1, method: "resources/read", params: { uri: "file:///etc/passwd" } })
    expect(await unknown.json()).toEqual({
      jsonrpc: "2.0",
      id: 1,
      error: { code: -32602, message: expect.stringContaining('resource not found: "file:///etc/passwd"') }
    })
    const { client } = await connectHttp(service.url)
    await expect(client.readResource({ uri: "svc://patterns/lewin/nope" })).rejects.toThrow(/resource not found: "svc:\/\/patterns\/lewin\/nope"/)
    expect((await client.readResource({ uri: "svc://patterns/lewin/playbooks" })).contents).toHaveLength(1)
    await client.close()
  })

  it("sessions are counted per key: key B opening more than its 100 drops its own oldest; key A's session and its cancel still work", async () => {
    const alice = "alice-key-0123456789abcdef"
    const bob = "bob-key-0123456789abcdef0"
    const service = await withProvider({ SVC_API_REQUIRE_AUTH: "true", SVC_API_KEYS: `alice=${alice},bob=${bob}` })
    const asAlice = { authorization: `Bearer ${alice}` }
    const asBob = { authorization: `Bearer ${bob}` }
    const opened = await post(service, initialize("2025-06-18"), asAlice)
    const session = opened.headers.get("mcp-session-id") ?? ""
    expect(session).not.toBe("")
    harness.double.script = () => ({ kind: "hang" })
    const call = post(
      service,
      `{"jsonrpc":"2.0","id":12345678901234567890,"method":"tools/call","params":{"name":"svc_lewin","arguments":{"trace":${JSON.stringify(exampleTrace("lewin"))},"mode":"quick"}}}`,
      { ...asAlice, "mcp-session-id": session }
    )
    await waitFor(() => harness.double.calls.length >= 1, 10_000)

    const bobs: Array<string> = []
    for (let i = 0; i < 150; i++) bobs.push((await post(service, initialize("2025-06-18"), asBob)).headers.get("mcp-session-id") ?? "")
    // Bob's first sessions were dropped (DELETE of an unknown session: 404), his last one is there.
    expect((await fetch(`${service.url}/mcp`, { method: "DELETE", headers: { ...asBob, "mcp-session-id": bobs[0] ?? "" } })).status).toBe(404)
    expect((await fetch(`${service.url}/mcp`, { method: "DELETE", headers: { ...asBob, "mcp-session-id": bobs[149] ?? "" } })).status).toBe(204)

    const cancel = await post(service, '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":12345678901234567890,"reason":"no"}}', {
      ...asAlice,
      "mcp-session-id": session
    })
    expect(cancel.status).toBe(202)
    await waitFor(() => harness.double.calls[0]?.closedEarly === true, 10_000)
    // The cancelled call gets no answer.
    expect((await call).status).toBe(202)
  }, 120_000)
})
