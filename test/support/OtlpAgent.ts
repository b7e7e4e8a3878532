/**
 * Runs test/support/otlp-agent.mjs — a small agent loop instrumented with the real OpenTelemetry JS
 * SDK, @opentelemetry/instrumentation-openai and the real OTLP/HTTP exporters — as a child process
 * configured the way users configure the exporters: through OTEL_EXPORTER_OTLP_* environment
 * variables. Resolves with the program's one-line report (trace ids, spans and log records produced,
 * each exporter call's outcome), decoded with effect Schema; rejects with its stderr when it fails
 * or outlives `timeoutMs`.
 */
import { spawn } from "node:child_process"
import { join } from "node:path"
import { Schema } from "effect"

const program = join(import.meta.dirname, "otlp-agent.mjs")

export const AgentExport = Schema.Struct({
  signal: Schema.Literal("traces", "logs"),
  items: Schema.Int,
  ok: Schema.Boolean,
  error: Schema.NullOr(Schema.String)
})
export type AgentExport = typeof AgentExport.Type

export const AgentOutcome = Schema.Struct({
  traceIds: Schema.Array(Schema.String.pipe(Schema.pattern(/^[0-9a-f]{32}$/))),
  spans: Schema.Int,
  logs: Schema.Int,
  exports: Schema.Array(AgentExport)
})
export type AgentOutcome = typeof AgentOutcome.Type

export interface AgentOptions {
  /** OTEL_EXPORTER_OTLP_ENDPOINT: the receiver's base URL; the exporters append /v1/traces, /v1/logs. */
  readonly endpoint: string
  /** Sent as `authorization: Bearer <key>` through OTEL_EXPORTER_OTLP_HEADERS. */
  readonly key?: string
  readonly protocol?: "http/protobuf" | "http/json"
  readonly scenario?: "ok" | "failing"
  /** Independent agent runs, one trace each (default 1). */
  readonly traces?: number
  /** maxExportBatchSize of both batch processors (default 512). */
  readonly batchSize?: number
  /** A second receiver's base URL: export batches alternate between the two. */
  readonly secondEndpoint?: string
  /** Put into the user's question (redaction checks). */
  readonly secret?: string
  /** An HTTP SERVER span at the root and database CLIENT spans in the tools. */
  readonly contextSpans?: boolean
  /** Message content capture (default true; false is the instrumentation's default). */
  readonly content?: boolean
  /** OTEL_SERVICE_NAME (default "weather-agent"). */
  readonly serviceName?: string
  readonly version?: string
  readonly environment?: string
  /** Kill the program after this long (default 30 s). */
  readonly timeoutMs?: number
  /** More environment, over the rest (e.g. OTEL_EXPORTER_OTLP_TIMEOUT). */
  readonly env?: Record<string, string>
}

/** The program's environment: PATH, the OTEL_* a user would set, the program's own AGENT_*. */
const environment = (options: AgentOptions): Record<string, string> => {
  const env: Record<string, string> = {
    PATH: process.env["PATH"] ?? "",
    OTEL_EXPORTER_OTLP_ENDPOINT: options.endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: options.protocol ?? "http/protobuf",
    OTEL_SERVICE_NAME: options.serviceName ?? "weather-agent",
    AGENT_SCENARIO: options.scenario ?? "ok",
    AGENT_TRACES: String(options.traces ?? 1),
    AGENT_BATCH_SIZE: String(options.batchSize ?? 512),
    AGENT_CONTEXT_SPANS: options.contextSpans === true ? "1" : "0",
    AGENT_CONTENT: options.content === false ? "0" : "1"
  }
  // The spec's header list: key=value pairs, values percent-encoded.
  if (options.key !== undefined) env["OTEL_EXPORTER_OTLP_HEADERS"] = `authorization=${encodeURIComponent(`Bearer ${options.key}`)}`
  if (options.secondEndpoint !== undefined) env["AGENT_SECOND_ENDPOINT"] = options.secondEndpoint
  if (options.secret !== undefined) env["AGENT_SECRET"] = options.secret
  if (options.version !== undefined) env["AGENT_VERSION"] = options.version
  if (options.environment !== undefined) env["AGENT_ENVIRONMENT"] = options.environment
  return { ...env, ...options.env }
}

/** Runs the agent once; resolves with its report. */
export const runAgent = (options: AgentOptions): Promise<AgentOutcome> =>
  new Promise<AgentOutcome>((resolve, reject) => {
    const child = spawn(process.execPath, [program], { env: environment(options), stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8")
    child.stderr.setEncoding("utf8")
    child.stdout.on("data", (chunk: string) => {
      stdout += chunk
    })
    child.stderr.on("data", (chunk: string) => {
      stderr += chunk
    })
    const timeoutMs = options.timeoutMs ?? 30_000
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      child.kill("SIGKILL")
    }, timeoutMs)
    const fail = (why: string) => reject(new Error(`otlp-agent ${why}\n--- stdout\n${stdout}\n--- stderr\n${stderr}`))
    child.on("error", (error) => {
      clearTimeout(timer)
      fail(`did not start: ${error.message}`)
    })
    child.on("close", (code, signal) => {
      clearTimeout(timer)
      if (timedOut) return fail(`killed after ${timeoutMs} ms`)
      if (code !== 0) return fail(`exited with ${code ?? signal}`)
      const lines = stdout.split("\n").filter((line) => line.trim() !== "")
      const line = lines[0]
      if (lines.length !== 1 || line === undefined) return fail(`printed ${lines.length} lines, expected exactly one`)
      try {
        resolve(Schema.decodeUnknownSync(Schema.parseJson(AgentOutcome))(line))
      } catch (error) {
        fail(`printed a report that does not decode: ${error instanceof Error ? error.message : String(error)}`)
      }
    })
  })
