/**
 * Issue 27's attacks on the edge, each inside every documented limit, against the real server on
 * a loopback port: DNS rebinding (Host and Origin by parsed hostname), bodies held at once, an
 * encoding the service does not read, JSON nested deep or with many keys, X-Forwarded-For from a
 * peer that is no proxy, idle and surplus connections, the cache-hit path's Content-Type, and a
 * defect at the edge. Every answer is the documented `{detail:{error,message}}`; the process
 * serves on.
 */
import { afterAll, describe, expect, it, vi } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import { createServer, request as httpRequest } from "node:http"
import { connect, type Socket } from "node:net"
import { ResourcesLive } from "../../src/Resources.js"
import { appConfig } from "../../src/Config.js"
import { makeEdge } from "../../src/Edge/Edge.js"
import { EdgeIncomingMessage } from "../../src/Edge/RequestContext.js"
import { useProviderDouble } from "../support/Harness.js"
import { exampleOutput, exampleTrace } from "../support/ProviderDouble.js"
import { type RunningService, startService } from "../support/Service.js"

interface Answer {
  readonly status: number
  readonly headers: Readonly<Record<string, string | Array<string> | undefined>>
  readonly body: string
}

/** One request with headers fetch() will not send (Host) or send as given (Content-Encoding). */
const send = (
  port: number,
  options: { readonly method?: string; readonly path: string; readonly headers?: Record<string, string>; readonly body?: string | Buffer }
) =>
  new Promise<Answer>((resolve, reject) => {
    const body = options.body === undefined ? undefined : Buffer.from(options.body)
    const req = httpRequest({
      host: "127.0.0.1",
      port,
      method: options.method ?? (body === undefined ? "GET" : "POST"),
      path: options.path,
      headers: { ...(body === undefined ? {} : { "content-length": String(body.length) }), ...options.headers }
    }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (chunk: Buffer) => chunks.push(chunk))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }))
    })
    req.on("error", reject)
    req.end(body)
  })

const kindOf = (answer: Answer): unknown => {
  const parsed: unknown = JSON.parse(answer.body)
  return typeof parsed === "object" && parsed !== null && "detail" in parsed && typeof parsed.detail === "object" && parsed.detail !== null &&
      "error" in parsed.detail
    ? parsed.detail.error
    : undefined
}

const messageOf = (answer: Answer): string => {
  const parsed: unknown = JSON.parse(answer.body)
  return typeof parsed === "object" && parsed !== null && "detail" in parsed && typeof parsed.detail === "object" && parsed.detail !== null &&
      "message" in parsed.detail && typeof parsed.detail.message === "string"
    ? parsed.detail.message
    : ""
}

const double = useProviderDouble()
const services: Array<RunningService> = []
const sockets: Array<Socket> = []
const start = async (env: Record<string, string> = {}) => {
  const service = await startService(env)
  services.push(service)
  return service
}
afterAll(async () => {
  for (const socket of sockets) socket.destroy()
  for (const service of services) await service.close()
})

const json = { "content-type": "application/json" }
const lewin = JSON.stringify(exampleTrace("lewin"))

describe("DNS rebinding: Host and Origin by parsed hostname", () => {
  it("with auth off, serves loopback names and listed hosts, refuses any other Host with 403 except on probes, metrics and docs", async () => {
    const service = await start({ SVC_ALLOWED_HOSTS: "svc.example.com" })
    for (const host of ["127.0.0.1:8000", "localhost", "LOCALHOST:1", "[::1]:8000", "127.0.0.2", "svc.example.com", "svc.example.com.:443"]) {
      expect((await send(service.port, { path: "/v1/patterns", headers: { host } })).status, host).toBe(200)
    }
    for (const host of ["evil.example", "127.0.0.1.evil.example", "localhost.evil.example:8000", "svc.example.com.evil.example", "10.0.0.5"]) {
      const answer = await send(service.port, { path: "/v1/patterns/lewin", headers: { host } })
      expect(answer.status, host).toBe(403)
      expect(kindOf(answer)).toBe("forbidden")
      expect(messageOf(answer)).toContain("SVC_ALLOWED_HOSTS")
      const analyze = await send(service.port, { path: "/v1/analyze/lewin", headers: { host, ...json }, body: lewin })
      expect(analyze.status).toBe(403)
    }
    for (const path of ["/healthz", "/livez", "/readyz", "/metrics", "/openapi.json", "/docs", "/redoc"]) {
      expect((await send(service.port, { path, headers: { host: "evil.example" } })).status, path).toBe(200)
    }
  })

  it("refuses a browser Origin that is not this machine's (a prefix is not enough), on /mcp and on the API with auth off", async () => {
    const service = await start()
    const initialize = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "t", version: "1" } } })
    for (const origin of ["http://127.0.0.1.evil.example", "http://evil.example", "null", "http://localhost.evil.example:3000"]) {
      const mcp = await send(service.port, { path: "/mcp", headers: { origin, ...json, accept: "application/json, text/event-stream" }, body: initialize })
      expect(mcp.status, origin).toBe(403)
      expect(kindOf(mcp)).toBe("forbidden")
      expect((await send(service.port, { path: "/v1/patterns", headers: { origin } })).status).toBe(403)
    }
    for (const origin of ["http://localhost:3000", "http://127.0.0.1:8000", "http://[::1]"]) {
      const mcp = await send(service.port, { path: "/mcp", headers: { origin, ...json, accept: "application/json, text/event-stream" }, body: initialize })
      expect(mcp.status, origin).toBe(200)
    }
  })

  it("with auth on, checks /mcp still, and serves the keyed API under any Host (the key is the guard)", async () => {
    const key = "rebind-key-0123456789abcdef"
    const service = await start({ SVC_API_REQUIRE_AUTH: "true", SVC_API_KEYS: `ops=${key}`, SVC_CORS_ORIGINS: "https://app.example.com" })
    const auth = { authorization: `Bearer ${key}` }
    expect((await send(service.port, { path: "/v1/patterns", headers: { host: "svc.internal", ...auth } })).status).toBe(200)
    const mcp = await send(service.port, { path: "/mcp", headers: { host: "evil.example", ...auth, ...json }, body: "{}" })
    expect(mcp.status).toBe(403)
    // A CORS origin the operator allowed may call /mcp from its pages.
    const allowed = await send(service.port, {
      path: "/mcp",
      headers: { origin: "https://app.example.com", ...auth, ...json, accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" })
    })
    expect(allowed.status).toBe(200)
  })
})

describe("no form posts (DECISIONS §16, against CSRF with auth off)", () => {
  it("every state-changing route refuses the media types a plain HTML form or a no-cors fetch can send, with 415", async () => {
    const service = await start()
    for (const path of ["/v1/analyze/lewin", "/v1/diagnose", "/v1/traces/normalize", "/mcp"]) {
      for (const contentType of ["application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "text/plain"]) {
        const answer = await send(service.port, { path, headers: { "content-type": contentType }, body: lewin })
        expect(answer.status, `${path} ${contentType}`).toBe(415)
        expect(kindOf(answer)).toBe("unsupported_media_type")
      }
    }
  })
})

describe("bodies", () => {
  it("refuses an unsupported Content-Encoding with 415 before reading (gzip was read as bytes and failed as 'not UTF-8')", async () => {
    const service = await start()
    for (const encoding of ["gzip", "br", "deflate, gzip"]) {
      const answer = await send(service.port, { path: "/v1/analyze/lewin", headers: { ...json, "content-encoding": encoding }, body: lewin })
      expect(answer.status).toBe(415)
      expect(kindOf(answer)).toBe("unsupported_media_type")
      expect(messageOf(answer)).toContain("Content-Encoding")
    }
    const identity = await send(service.port, { path: "/v1/traces/normalize", headers: { ...json, "content-encoding": "identity" }, body: lewin })
    expect(identity.status).toBe(200)
  })

  it("bounds the bytes of bodies held at once: past SVC_API_MAX_INFLIGHT_BYTES, 503 overloaded with Retry-After, and room again once they finish", async () => {
    const service = await start({ SVC_API_MAX_INFLIGHT_BYTES: String(2 * 1024 * 1024), SVC_API_MAX_BODY_BYTES: String(1024 * 1024) })
    const declared = 900 * 1024
    // Three clients announce 900 KiB each and send half: two fit in 2 MiB, the third does not.
    const holders = await Promise.all(Array.from({ length: 3 }, () =>
      new Promise<Socket>((resolve, reject) => {
        const socket = connect(service.port, "127.0.0.1", () => resolve(socket))
        socket.on("error", reject)
        sockets.push(socket)
      })
    ))
    const replies = holders.map((socket) => {
      let text = ""
      socket.setEncoding("utf8")
      socket.on("data", (chunk: string) => {
        text += chunk
      })
      socket.write(`POST /v1/traces/normalize HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n`)
      socket.write(" ".repeat(declared / 2))
      return () => text
    })
    await vi.waitFor(() => expect(replies.filter((text) => text().startsWith("HTTP/1.1 503")).length).toBe(1), { timeout: 5000 })
    const refused = replies.map((text) => text()).find((text) => text.startsWith("HTTP/1.1 503")) ?? ""
    expect(refused.toLowerCase()).toContain("retry-after: 1")
    expect(refused).toContain('"error":"overloaded"')
    expect(refused).toContain("SVC_API_MAX_INFLIGHT_BYTES")
    // The probes are not held up, and a small body still fits beside the two held.
    expect((await fetch(`${service.url}/livez`)).status).toBe(200)
    // A chunked body (no declared length) is counted as it arrives: it passes the total and is cut.
    const chunked = await new Promise<string>((resolve, reject) => {
      const socket = connect(service.port, "127.0.0.1")
      sockets.push(socket)
      let text = ""
      socket.setEncoding("utf8")
      socket.on("data", (chunk: string) => {
        text += chunk
      })
      socket.on("close", () => resolve(text))
      socket.on("error", reject)
      socket.write("POST /v1/traces/normalize HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
      const piece = " ".repeat(64 * 1024)
      for (let i = 0; i < 8; i++) socket.write(`${piece.length.toString(16)}\r\n${piece}\r\n`)
    })
    expect(chunked.startsWith("HTTP/1.1 503")).toBe(true)
    // The holders go away: their bytes are given back, and a body of the same size is read.
    for (const socket of holders) socket.destroy()
    await vi.waitFor(async () => {
      const answer = await send(service.port, { path: "/v1/traces/normalize", headers: json, body: `${lewin}${" ".repeat(declared - lewin.length)}` })
      expect(answer.status).toBe(200)
    }, { timeout: 5000 })
  })

  it("checks depth and key count before any walk: 400 validation_error naming the variable, never a 500", async () => {
    const service = await start({ SVC_API_MAX_KEYS: "1000" })
    const nested = (depth: number, inner: string) => `${"[".repeat(depth)}${inner}${"]".repeat(depth)}`
    const cases: Array<{ readonly path: string; readonly body: string; readonly variable: string }> = [
      // Content nested 5,000 deep (it was a stack overflow, 500, in normalize and diagnose).
      { path: "/v1/traces/normalize", body: JSON.stringify({ messages: [{ role: "user", content: "x" }] }).replace('"x"', nested(5000, '"x"')), variable: "SVC_API_MAX_DEPTH" },
      { path: "/v1/diagnose", body: `{"trace":{"messages":[{"role":"user","content":${nested(5000, "1")}}]}}`, variable: "SVC_API_MAX_DEPTH" },
      // hints 100,000 deep (canonicalized for the cache key).
      { path: "/v1/analyze/lewin", body: `{"trace":${lewin},"hints":{"pressure":${nested(100_000, "1")}}}`, variable: "SVC_API_MAX_DEPTH" },
      // 65 deep is one past the default.
      { path: "/v1/traces/normalize", body: `{"steps":${nested(64, "0")}}`, variable: "SVC_API_MAX_DEPTH" },
      { path: "/v1/analyze/lewin", body: JSON.stringify({ ...exampleTrace("lewin"), extra: Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`k${i}`, i])) }), variable: "SVC_API_MAX_KEYS" }
    ]
    for (const { body, path, variable } of cases) {
      const answer = await send(service.port, { path, headers: json, body })
      expect(answer.status, `${path} ${variable}`).toBe(400)
      expect(kindOf(answer)).toBe("validation_error")
      expect(messageOf(answer)).toContain(variable)
    }
    // MCP bodies too, before their JSON-RPC is read.
    const mcp = await send(service.port, {
      path: "/mcp",
      headers: { ...json, accept: "application/json, text/event-stream" },
      body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"svc_lewin","arguments":${nested(10_000, "1")}}}`
    })
    expect(mcp.status).toBe(400)
    expect(messageOf(mcp)).toContain("SVC_API_MAX_DEPTH")
    // Exactly at the bounds is fine; brackets and colons inside strings are not structure.
    const atDepth = `{"task":"a","steps":[{"type":"x","content":"[[[[:::{{{\\"]]]"}],"outcome":"b","pad":${nested(62, "0")}}`
    expect((await send(service.port, { path: "/v1/traces/normalize", headers: json, body: atDepth })).status).not.toBe(400)
    expect((await fetch(`${service.url}/healthz`)).status).toBe(200)
  })

  it("400,000 object keys under the default bound cost no more than a normal body of that size: the answer comes, the probes answer", async () => {
    const service = await start()
    const body = JSON.stringify({ ...exampleTrace("lewin"), extra: Object.fromEntries(Array.from({ length: 400_000 }, (_, i) => [`${i}`, 0])) })
    const answer = await send(service.port, { path: "/v1/analyze/lewin", headers: json, body })
    // No provider is configured: a body that passes every check ends at 502 llm_resolution_error.
    expect(answer.status).toBe(502)
    expect(kindOf(answer)).toBe("llm_resolution_error")
  })
})

describe("who is asking", () => {
  it("honours X-Forwarded-For only from a trusted proxy peer: a client cannot pick a fresh rate-limit bucket per request", async () => {
    // Loopback is not a proxy here, so the header of these requests is the client's own word.
    const direct = await start({ SVC_API_RATE_LIMIT: "3/60", SVC_TRUSTED_PROXY_ADDRESSES: "10.0.0.0/8" })
    const statuses: Array<number> = []
    for (let i = 0; i < 6; i++) statuses.push((await send(direct.port, { path: "/v1/patterns", headers: { "x-forwarded-for": `198.51.100.${i}` } })).status)
    expect(statuses).toEqual([200, 200, 200, 429, 429, 429])
    // Behind a proxy on loopback (the default ranges), each forwarded client has its own bucket.
    const proxied = await start({ SVC_API_RATE_LIMIT: "3/60" })
    const forwarded: Array<number> = []
    for (let i = 0; i < 6; i++) forwarded.push((await send(proxied.port, { path: "/v1/patterns", headers: { "x-forwarded-for": `198.51.100.${i}` } })).status)
    expect(forwarded).toEqual([200, 200, 200, 200, 200, 200])
  })
})

describe("connections", () => {
  it("closes connections that send nothing after SVC_HTTP_IDLE_TIMEOUT, answers the probes with 1,000 of them open, and never cuts a request in progress", async () => {
    const harness = double
    harness.double.script = () => ({ kind: "delay", ms: 2500, then: { kind: "object", value: exampleOutput("lewin") } })
    const service = await harness.start({
      ANTHROPIC_API_KEY: "sk-ant-idle-0123456789",
      ANTHROPIC_BASE_URL: harness.double.url,
      SVC_HTTP_IDLE_TIMEOUT: "1s"
    })
    const idle = await Promise.all(Array.from({ length: 1000 }, () =>
      new Promise<Socket>((resolve, reject) => {
        const socket = connect(service.port, "127.0.0.1", () => resolve(socket))
        socket.on("error", reject)
        sockets.push(socket)
      })
    ))
    expect((await fetch(`${service.url}/livez`)).status).toBe(200)
    expect((await fetch(`${service.url}/healthz`)).status).toBe(200)
    // A request that outlasts the idle timeout (the model answers after 2.5 s) is not cut.
    const slow = await send(service.port, { path: "/v1/analyze/lewin", headers: json, body: JSON.stringify({ trace: exampleTrace("lewin"), mode: "quick" }) })
    expect(slow.status).toBe(200)
    await vi.waitFor(() => expect(idle.filter((socket) => socket.destroyed || socket.readableEnded).length).toBe(1000), { timeout: 10_000 })
  })

  it("holds at most SVC_HTTP_MAX_CONNECTIONS sockets: the ones past it are closed", async () => {
    const service = await start({ SVC_HTTP_MAX_CONNECTIONS: "50" })
    const opened = await Promise.all(Array.from({ length: 60 }, () =>
      new Promise<Socket>((resolve, reject) => {
        const socket = connect(service.port, "127.0.0.1", () => resolve(socket))
        socket.on("error", () => undefined)
        socket.on("connect", () => undefined)
        sockets.push(socket)
        setTimeout(() => reject(new Error("no connection")), 5000).unref()
      })
    ))
    await vi.waitFor(() => expect(opened.filter((socket) => socket.destroyed || socket.readableEnded).length).toBe(10), { timeout: 5000 })
    for (const socket of opened) socket.destroy()
    await vi.waitFor(async () => expect((await fetch(`${service.url}/livez`)).status).toBe(200), { timeout: 5000 })
  })
})

describe("the cache-hit path", () => {
  it("checks Content-Type like the handler: the bytes of a cached body sent as text/plain get 415, not a hit", async () => {
    double.double.script = () => ({ kind: "object", value: exampleOutput("lewin") })
    const service = await double.start({ ANTHROPIC_API_KEY: "sk-ant-hit-0123456789", ANTHROPIC_BASE_URL: double.double.url, SVC_CACHE: "memory" })
    const body = JSON.stringify({ trace: exampleTrace("lewin"), mode: "quick" })
    expect((await send(service.port, { path: "/v1/analyze/lewin", headers: json, body })).status).toBe(200)
    const hit = await send(service.port, { path: "/v1/analyze/lewin", headers: json, body })
    expect(hit.headers["x-cache"]).toBe("hit")
    const plain = await send(service.port, { path: "/v1/analyze/lewin", headers: { "content-type": "text/plain" }, body })
    expect(plain.status).toBe(415)
    expect(kindOf(plain)).toBe("unsupported_media_type")
  })
})

describe("query parameters", () => {
  it("a bad ?output= is the documented 400 validation_error naming the outputs, not the platform's decode error", async () => {
    const service = await start()
    const answer = await send(service.port, { path: "/v1/diagnose?output=pdf", headers: json, body: lewin })
    expect(answer.status).toBe(400)
    expect(JSON.parse(answer.body)).toEqual({ detail: { error: "validation_error", message: expect.stringContaining("json, markdown, sarif, html, otlp") } })
  })
})

describe("the last resort", () => {
  it("a defect while the edge handles a request fails that request alone with a 500, logged once; the process serves on", async () => {
    const config = await Effect.runPromise(appConfig.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["SVC_LOG_LEVEL", "none"]])))))
    const defect = () => {
      throw new RangeError("Invalid string length")
    }
    const edge = await Effect.runPromise(
      makeEdge(defect, new Set(["lewin"]), defect, defect).pipe(Effect.provide(ResourcesLive(config).pipe(Layer.orDie)), Effect.scoped)
    )
    const server = createServer<typeof EdgeIncomingMessage>({ IncomingMessage: EdgeIncomingMessage }, edge)
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    try {
      for (const path of ["/v1/patterns/nope/x", "/mcp"]) {
        const answer = await send(port, { path, method: "POST", headers: json, body: "{}" })
        expect(answer.status, path).toBe(500)
        expect(kindOf(answer)).toBe("internal_error")
        expect(answer.body).not.toContain("Invalid string length")
      }
      const analyze = await send(port, { path: "/v1/analyze/lewin", headers: json, body: lewin })
      expect(analyze.status).toBe(500)
      // Prepared answers still come from the same edge.
      expect((await send(port, { path: "/livez" })).status).toBe(200)
    } finally {
      server.closeAllConnections()
      server.close()
    }
  })
})

describe("the order of refusals (DECISIONS §16): of two refusals a request earns, the earlier answers", () => {
  const holdBody = async (port: number, declared: number) => {
    const socket = await new Promise<Socket>((resolve, reject) => {
      const opened = connect(port, "127.0.0.1", () => resolve(opened))
      opened.on("error", reject)
      sockets.push(opened)
    })
    socket.write(`POST /v1/traces/normalize HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n{`)
    return socket
  }

  it("Host 403 → auth 401 → rate limit 429", async () => {
    const key = "order-key-0123456789abcdef"
    const service = await start({ SVC_API_REQUIRE_AUTH: "true", SVC_API_KEYS: `ops=${key}`, SVC_API_RATE_LIMIT: "1/60" })
    // A rebinding host without a key: 403, not 401.
    expect((await send(service.port, { path: "/mcp", headers: { host: "evil.example", ...json }, body: "{}" })).status).toBe(403)
    // Wrong keys are refused before they are counted: 401 every time, never 429.
    const wrong: Array<number> = []
    for (let i = 0; i < 3; i++) wrong.push((await send(service.port, { path: "/v1/patterns", headers: { authorization: "Bearer wrong-0123456789abcdef" } })).status)
    expect(wrong).toEqual([401, 401, 401])
    const keyed: Array<number> = []
    for (let i = 0; i < 2; i++) keyed.push((await send(service.port, { path: "/v1/patterns", headers: { authorization: `Bearer ${key}` } })).status)
    expect(keyed).toEqual([200, 429])
  })

  it("rate limit 429 → bodies in flight 503 → encoding 415 → body size 413", async () => {
    const mib = 1024 * 1024
    const service = await start({ SVC_API_RATE_LIMIT: "3/60", SVC_API_MAX_INFLIGHT_BYTES: String(mib), SVC_API_MAX_BODY_BYTES: String(mib) })
    const held = await holdBody(service.port, mib - 10)
    await new Promise((resolve) => setTimeout(resolve, 200))
    const big = { ...json, "content-encoding": "gzip" }
    // The held body fills the budget: encoding and size would also be refused, 503 comes first.
    const overloaded = await send(service.port, { path: "/v1/traces/normalize", headers: big, body: "x".repeat(2 * 1024) })
    expect(overloaded.status).toBe(503)
    held.destroy()
    await new Promise((resolve) => setTimeout(resolve, 200))
    // Room again: a gzip body over the size limit is 415 (encoding before size).
    const encoding = await send(service.port, { path: "/v1/traces/normalize", headers: { ...big, "content-length": String(2 * mib) }, body: "x" })
    expect(encoding.status).toBe(415)
    // Past the rate limit, everything else waits: 429.
    const limited = await send(service.port, { path: "/v1/traces/normalize", headers: big, body: "x" })
    expect(limited.status).toBe(429)
  })

  it("body size 413 → JSON depth 400 → trace limits 413 → mode 400", async () => {
    const service = await start({ SVC_API_MAX_BODY_BYTES: "4096", SVC_API_MAX_TRACE_STEPS: "2" })
    const deep = `${"[".repeat(70)}0${"]".repeat(70)}`
    const steps = [1, 2, 3].map((i) => ({ type: "action", content: `step ${i}` }))
    const tooBig = await send(service.port, { path: "/v1/analyze/lewin", headers: json, body: `{"pad":"${"x".repeat(5000)}","deep":${deep}}` })
    expect(tooBig.status).toBe(413)
    const deepAndLong = await send(service.port, { path: "/v1/analyze/lewin", headers: json, body: JSON.stringify({ task: "t", steps, outcome: "o" }).replace('"o"', `"o","deep":${deep}`) })
    expect(deepAndLong.status).toBe(400)
    expect(messageOf(deepAndLong)).toContain("SVC_API_MAX_DEPTH")
    const longAndBadMode = await send(service.port, { path: "/v1/analyze/lewin", headers: json, body: JSON.stringify({ task: "t", steps, outcome: "o", mode: "thorough" }) })
    expect(longAndBadMode.status).toBe(413)
  })
})
