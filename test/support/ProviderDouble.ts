/**
 * A loopback stand-in for the model providers, replacing them at the network boundary only. It
 * speaks the real wire formats:
 * - Anthropic Messages: POST /v1/messages → `message` with a `tool_use` block (structured output);
 * - OpenAI Responses: POST /v1/responses → `response` with an `output_text` message;
 * - Chat Completions (local hosts): POST /v1/chat/completions → `chat.completion`.
 * It records every request (headers, body, whether the client hung up) and is scripted per test.
 */
import { Predicate } from "effect"
import { readFileSync } from "node:fs"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import { definitions } from "../../patterns/index.js"
import { type CacheUsage, makePromptCache, staticPartOf } from "./PromptCache.js"

export type Wire = "anthropic" | "openai" | "chat"

export interface RecordedCall {
  readonly wire: Wire
  readonly path: string
  readonly headers: IncomingMessage["headers"]
  readonly body: Record<string, unknown>
  /** The structured object's name (tool name / json_schema name). */
  readonly objectName: string
  /** The JSON schema the client sent for the structured output. */
  readonly schema: unknown
  /** All text of the request (system + messages), for assertions on prompts. */
  readonly text: string
  /** What precedes the trace: the schema or tools and the system prompt (PromptCache.ts). */
  readonly staticPart: string
  /** Set when the client closed the connection before the double answered. */
  closedEarly: boolean
  /** With `promptCache`: the input tokens of the call, read from and written to the cache (set when answered). */
  cacheUsage?: CacheUsage
}

export type Reply =
  | { readonly kind: "object"; readonly value: unknown; readonly inputTokens?: number; readonly outputTokens?: number }
  | { readonly kind: "status"; readonly status: number; readonly body?: string; readonly headers?: Record<string, string> }
  | { readonly kind: "hang" }
  | { readonly kind: "delay"; readonly ms: number; readonly then: Reply }
  /** Answers `then` once `until` settles: held until the event the test waits for, not for a time. */
  | { readonly kind: "after"; readonly until: Promise<unknown>; readonly then: Reply }
  | { readonly kind: "raw"; readonly status: number; readonly body: string }
  /** Headers promise more than is sent, then the connection is cut. */
  | { readonly kind: "truncated" }
  /** A valid-looking body sent a few bytes at a time, slowly. */
  | { readonly kind: "drip"; readonly everyMs: number }
  /** A 200 whose body is `megabytes` MiB of JSON. */
  | { readonly kind: "huge"; readonly megabytes: number }

export type Script = (call: RecordedCall, index: number) => Reply | undefined

const patternsDir = join(import.meta.dirname, "..", "..", "patterns")
const slugByDetectionName = new Map(definitions.map((d) => [`${d.spec.name}Detection`, d.spec.slug]))

const outputTexts = new Map<string, string>()

/**
 * The pattern's example output (a valid, evidence-grounded detection for its example trace): the
 * file is read once, and every call gets its own parsed copy (tests edit what they get).
 */
export const exampleOutput = (slug: string): Record<string, unknown> => {
  let text = outputTexts.get(slug)
  if (text === undefined) {
    text = readFileSync(join(patternsDir, slug, "example.output.json"), "utf8")
    outputTexts.set(slug, text)
  }
  return JSON.parse(text)
}

export const exampleTrace = (slug: string): Record<string, unknown> =>
  JSON.parse(readFileSync(join(patternsDir, slug, "example.trace.json"), "utf8"))

/** Verdicts confirming every finding listed in a verification request. */
const confirmAll = (text: string) => {
  const match = /Findings to verify:\s*(\[[\s\S]*?\])\s*The cited trace elements:/.exec(text)
  const findings: unknown = match?.[1] === undefined ? [] : JSON.parse(match[1])
  const ids = Array.isArray(findings) ? findings.flatMap((f) => (Predicate.isRecord(f) && typeof f["id"] === "string" ? [f["id"]] : [])) : []
  return { verdicts: ids.map((id) => ({ finding_id: id, verdict: "confirmed", confidence: 0.8, reason: "The cited elements show it." })) }
}

/** The default answer: the pattern's example output, or confirmations for a verification pass. */
export const defaultReply = (call: RecordedCall): Reply => {
  if (call.objectName === "Verdicts") return { kind: "object", value: confirmAll(call.text) }
  const slug = slugByDetectionName.get(call.objectName)
  if (slug === undefined) return { kind: "status", status: 400, body: JSON.stringify({ error: `unknown object ${call.objectName}` }) }
  return { kind: "object", value: exampleOutput(slug) }
}

const textOf = (value: unknown): string => {
  if (typeof value === "string") return value
  if (Array.isArray(value)) return value.map(textOf).join("\n")
  if (Predicate.isRecord(value)) return Object.values(value).map(textOf).join("\n")
  return ""
}

const describeCall = (wire: Wire, path: string, headers: IncomingMessage["headers"], body: Record<string, unknown>): RecordedCall => {
  let objectName = ""
  let schema: unknown = undefined
  let textParts: () => Array<unknown>
  if (wire === "anthropic") {
    const tools = Array.isArray(body["tools"]) ? body["tools"] : []
    const tool = tools.find(Predicate.isRecord)
    objectName = tool !== undefined && typeof tool["name"] === "string" ? tool["name"] : ""
    schema = tool?.["input_schema"]
    textParts = () => [body["system"], body["messages"]]
  } else if (wire === "openai") {
    const format = Predicate.isRecord(body["text"]) && Predicate.isRecord(body["text"]["format"]) ? body["text"]["format"] : {}
    objectName = typeof format["name"] === "string" ? format["name"] : ""
    schema = format["schema"]
    textParts = () => [body["input"]]
  } else {
    const format = Predicate.isRecord(body["response_format"]) && Predicate.isRecord(body["response_format"]["json_schema"])
      ? body["response_format"]["json_schema"]
      : {}
    objectName = typeof format["name"] === "string" ? format["name"] : ""
    schema = format["schema"]
    textParts = () => [body["messages"]]
  }
  // The text and the static part are read on first use: most calls are only answered (the bench's
  // 10,000 at once share two cores with the double).
  let text: string | undefined
  let staticPart: string | undefined
  return {
    wire,
    path,
    headers,
    body,
    objectName,
    schema,
    get text() {
      text ??= textParts().map(textOf).join("\n")
      return text
    },
    get staticPart() {
      staticPart ??= staticPartOf(wire, body)
      return staticPart
    },
    closedEarly: false
  }
}

let counter = 0
const id = (prefix: string) => `${prefix}_${(++counter).toString(36).padStart(8, "0")}`

const successBody = (wire: Wire, call: RecordedCall, reply: Extract<Reply, { kind: "object" }>, cached?: CacheUsage): string => {
  const input = reply.inputTokens ?? cached?.total ?? 1200
  const output = reply.outputTokens ?? (cached === undefined ? 400 : Math.ceil(JSON.stringify(reply.value).length / 4))
  const read = cached?.read ?? 0
  const written = cached?.written ?? 0
  const model = typeof call.body["model"] === "string" ? call.body["model"] : "unknown"
  switch (wire) {
    case "anthropic":
      return JSON.stringify({
        id: id("msg"),
        type: "message",
        role: "assistant",
        model,
        content: [{ type: "tool_use", id: id("toolu"), name: call.objectName, input: reply.value }],
        stop_reason: "tool_use",
        stop_sequence: null,
        usage: cached === undefined
          ? { input_tokens: input, output_tokens: output }
          : { input_tokens: input - read - written, output_tokens: output, cache_creation_input_tokens: written, cache_read_input_tokens: read }
      })
    case "openai":
      return JSON.stringify({
        id: id("resp"),
        object: "response",
        created_at: Math.floor(Date.now() / 1000),
        status: "completed",
        error: null,
        incomplete_details: null,
        instructions: null,
        max_output_tokens: null,
        model,
        output: [
          {
            type: "message",
            id: id("msg"),
            status: "completed",
            role: "assistant",
            content: [{ type: "output_text", text: JSON.stringify(reply.value), annotations: [] }]
          }
        ],
        parallel_tool_calls: true,
        previous_response_id: null,
        reasoning: { effort: null, summary: null },
        store: false,
        temperature: 1,
        text: { format: { type: "json_schema", name: call.objectName, schema: call.schema, strict: true } },
        tool_choice: "auto",
        tools: [],
        top_p: 1,
        truncation: "disabled",
        usage: {
          input_tokens: input,
          input_tokens_details: { cached_tokens: read },
          output_tokens: output,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: input + output
        },
        user: null,
        metadata: {}
      })
    case "chat":
      return JSON.stringify({
        id: id("chatcmpl"),
        object: "chat.completion",
        created: Math.floor(Date.now() / 1000),
        model,
        choices: [{ index: 0, message: { role: "assistant", content: JSON.stringify(reply.value) }, finish_reason: "stop" }],
        usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output }
      })
  }
}

export interface ProviderDouble {
  readonly url: string
  readonly calls: Array<RecordedCall>
  /** Replaces the script (undefined from a script falls back to the default reply). */
  script: Script
  readonly reset: () => void
  readonly close: () => Promise<void>
  /** Currently open connections to the double. */
  readonly openConnections: () => number
}

const wireOf = (path: string): Wire | undefined =>
  path.endsWith("/messages") ? "anthropic" : path.endsWith("/responses") ? "openai" : path.endsWith("/chat/completions") ? "chat" : undefined

export interface DoubleOptions {
  /** Play the providers' prompt caches: usage counted from the request (characters / 4), cached prefixes reported (PromptCache.ts). */
  readonly promptCache?: boolean
}

export const startProviderDouble = async (options: DoubleOptions = {}): Promise<ProviderDouble> => {
  const calls: Array<RecordedCall> = []
  const cache = options.promptCache === true ? makePromptCache() : undefined
  let open = 0
  const double: { script: Script } = { script: () => undefined }

  const respond = (res: ServerResponse, call: RecordedCall, reply: Reply, wire: Wire) => {
    if (res.destroyed) return
    switch (reply.kind) {
      case "hang":
        return
      case "delay": {
        const timer = setTimeout(() => respond(res, call, reply.then, wire), reply.ms)
        res.on("close", () => clearTimeout(timer))
        return
      }
      case "after": {
        const answer = () => respond(res, call, reply.then, wire)
        void reply.until.then(answer, answer)
        return
      }
      case "status":
        res.writeHead(reply.status, { "content-type": "application/json", ...reply.headers })
        res.end(reply.body ?? JSON.stringify({ type: "error", error: { type: "api_error", message: "scripted failure" } }))
        return
      case "raw":
        res.writeHead(reply.status, { "content-type": "application/json" })
        res.end(reply.body)
        return
      case "object": {
        res.writeHead(200, { "content-type": "application/json" })
        const usage = cache?.usage(wire, call.body)
        if (usage !== undefined) call.cacheUsage = usage
        res.end(successBody(wire, call, reply, usage))
        return
      }
      case "truncated": {
        const body = successBody(wire, call, { kind: "object", value: { partial: true } })
        res.writeHead(200, { "content-type": "application/json", "content-length": String(body.length * 2) })
        res.write(body.slice(0, Math.floor(body.length / 2)))
        setTimeout(() => res.destroy(), 20)
        return
      }
      case "drip": {
        res.writeHead(200, { "content-type": "application/json" })
        const timer = setInterval(() => res.write(" "), reply.everyMs)
        res.on("close", () => clearInterval(timer))
        return
      }
      case "huge": {
        const chunk = `"${"x".repeat(1024 * 1024 - 4)}",`
        res.writeHead(200, { "content-type": "application/json", "content-length": String(2 + chunk.length * reply.megabytes) })
        res.write("[")
        for (let i = 0; i < reply.megabytes; i++) res.write(i === reply.megabytes - 1 ? chunk.slice(0, -1) + " " : chunk)
        res.end("]")
        return
      }
    }
  }

  const server: Server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      const path = (req.url ?? "/").split("?")[0] ?? "/"
      const wire = wireOf(path)
      if (req.method !== "POST" || wire === undefined) {
        res.writeHead(404, { "content-type": "application/json" })
        res.end(JSON.stringify({ error: "not found" }))
        return
      }
      let body: Record<string, unknown> = {}
      try {
        const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString("utf8"))
        if (Predicate.isRecord(parsed)) body = parsed
      } catch {
        res.writeHead(400, { "content-type": "application/json" })
        res.end(JSON.stringify({ error: "invalid json" }))
        return
      }
      const call = describeCall(wire, path, req.headers, body)
      const index = calls.length
      calls.push(call)
      res.on("close", () => {
        if (!res.writableFinished) call.closedEarly = true
      })
      respond(res, call, double.script(call, index) ?? defaultReply(call), wire)
    })
  })
  server.on("connection", (socket) => {
    open += 1
    socket.on("close", () => {
      open -= 1
    })
  })
  // A real provider accepts thousands of new connections at once: a deep accept queue (the
  // default 511 overflows under the bench's 10,000 concurrent calls and stalls handshakes for seconds).
  await new Promise<void>((resolve) => server.listen({ port: 0, host: "127.0.0.1", backlog: 4096 }, resolve))
  const address = server.address()
  const port = typeof address === "object" && address !== null ? (address satisfies AddressInfo).port : 0
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    get script() {
      return double.script
    },
    set script(next: Script) {
      double.script = next
    },
    reset: () => {
      calls.length = 0
      double.script = () => undefined
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
    openConnections: () => open
  }
}
