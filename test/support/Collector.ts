/**
 * A loopback OTLP/HTTP collector double: it accepts `POST /v1/traces` and `POST /v1/logs` in
 * protobuf and JSON (gzip too), decodes them with the receiver's decoders (which the OTLP intake
 * tests check against the official SDK's exporters) and keeps what arrived: the spans and log
 * records flattened with their resource, the requests' headers and encodings. `failNext` answers
 * the next requests with an error status (a collector that is down).
 */
import { Either } from "effect"
import { createServer, type IncomingHttpHeaders } from "node:http"
import { gunzipSync } from "node:zlib"
import { readLogsJson, readTracesJson } from "../../src/Otlp/Wire/Json.js"
import type { AnyValue, KeyValue, LogRecord, Span } from "../../src/Otlp/Wire/Model.js"
import { decodeLogs, decodeTraces } from "../../src/Otlp/Wire/Proto.js"
import { listenLoopback } from "./Net.js"

export interface CollectedSpan extends Span {
  readonly resource: Readonly<Record<string, unknown>>
  readonly attrs: Readonly<Record<string, unknown>>
  readonly scopeName: string | undefined
}

export interface CollectedLog extends LogRecord {
  readonly resource: Readonly<Record<string, unknown>>
  readonly attrs: Readonly<Record<string, unknown>>
}

export interface CollectedRequest {
  readonly path: string
  readonly encoding: "protobuf" | "json"
  readonly headers: IncomingHttpHeaders
}

export interface Collector {
  readonly url: string
  readonly spans: Array<CollectedSpan>
  readonly logs: Array<CollectedLog>
  readonly requests: Array<CollectedRequest>
  /** Answers the next `count` requests with `status` (and keeps nothing of them). */
  readonly failNext: (count: number, status: number) => void
  /** Waits until `check` holds of what arrived (polled), or fails after `timeoutMs`. */
  readonly until: (check: () => boolean, timeoutMs?: number) => Promise<void>
  readonly close: () => Promise<void>
}

const valueOf = (value: AnyValue | undefined): unknown => {
  if (value === undefined) return undefined
  if ("stringValue" in value) return value.stringValue
  if ("boolValue" in value) return value.boolValue
  if ("intValue" in value) return Number(value.intValue)
  if ("doubleValue" in value) return value.doubleValue
  if ("arrayValue" in value) return (value.arrayValue.values ?? []).map(valueOf)
  if ("kvlistValue" in value) return attributesOf(value.kvlistValue.values ?? [])
  if ("bytesValue" in value) return value.bytesValue
  return undefined
}

export const attributesOf = (attributes: ReadonlyArray<KeyValue> | undefined): Record<string, unknown> =>
  Object.fromEntries((attributes ?? []).map((attribute) => [attribute.key, valueOf(attribute.value)]))

export const startCollector = async (): Promise<Collector> => {
  const spans: Array<CollectedSpan> = []
  const logs: Array<CollectedLog> = []
  const requests: Array<CollectedRequest> = []
  let failing = { count: 0, status: 503 }
  const server = createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      const raw = Buffer.concat(chunks)
      const bytes = request.headers["content-encoding"] === "gzip" ? gunzipSync(raw) : raw
      const encoding = (request.headers["content-type"] ?? "").includes("json") ? "json" as const : "protobuf" as const
      const path = request.url ?? "/"
      if (failing.count > 0) {
        failing = { ...failing, count: failing.count - 1 }
        response.writeHead(failing.status, { "content-type": "application/json" }).end("{}")
        return
      }
      requests.push({ path, encoding, headers: request.headers })
      const json = (): unknown => JSON.parse(bytes.toString("utf8"))
      if (path === "/v1/traces") {
        const decoded = encoding === "json" ? readTracesJson(json()) : decodeTraces(bytes)
        if (Either.isLeft(decoded)) return void response.writeHead(400).end(decoded.left)
        for (const group of decoded.right.resourceSpans) {
          const resource = attributesOf(group.resource?.attributes)
          for (const scoped of group.scopeSpans) {
            for (const span of scoped.spans) spans.push({ ...span, resource, attrs: attributesOf(span.attributes), scopeName: scoped.scope?.name })
          }
        }
      } else if (path === "/v1/logs") {
        const decoded = encoding === "json" ? readLogsJson(json()) : decodeLogs(bytes)
        if (Either.isLeft(decoded)) return void response.writeHead(400).end(decoded.left)
        for (const group of decoded.right.resourceLogs) {
          const resource = attributesOf(group.resource?.attributes)
          for (const scoped of group.scopeLogs) for (const record of scoped.logRecords) logs.push({ ...record, resource, attrs: attributesOf(record.attributes) })
        }
      } else {
        return void response.writeHead(404).end()
      }
      response.writeHead(200, { "content-type": encoding === "json" ? "application/json" : "application/x-protobuf" }).end(encoding === "json" ? "{}" : "")
    })
  })
  const url = await listenLoopback(server)
  return {
    url,
    spans,
    logs,
    requests,
    failNext: (count, status) => {
      failing = { count, status }
    },
    until: async (check, timeoutMs = 15_000) => {
      const deadline = Date.now() + timeoutMs
      while (!check()) {
        if (Date.now() > deadline) throw new Error("the collector double did not receive what was expected in time")
        await new Promise((resolve) => setTimeout(resolve, 25))
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
