/**
 * What the OTLP heavy tests (kill.test.ts, replicas.test.ts) share: bounded polling, the runs a
 * service exports (`GET /v1/runs/export`, the run with its normalized trace), and small GenAI
 * traces as OTLP/JSON objects (src/Otlp/Wire/Model.ts) whose every span makes events of its own: an
 * `invoke_agent` root with its messages and `execute_tool` spans with distinct arguments.
 */
import { expect } from "@effect/vitest"
import { Schema } from "effect"
import { RunExport } from "../../src/Contract/RunsContract.js"
import type { KeyValue, Span, TracesRequest } from "../../src/Otlp/Wire/Model.js"

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Polls `check` every 50 ms until it holds; fails after `ms`. */
export const until = async (what: string, check: () => Promise<boolean> | boolean, ms: number): Promise<void> => {
  const deadline = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`)
    await sleep(50)
  }
}

const decodeExport = Schema.decodeUnknownSync(Schema.parseJson(RunExport))

/** Every run a service at `url` holds, with its trace (no key: auth off). */
export const exportedRuns = async (url: string): Promise<Array<RunExport>> => {
  const response = await fetch(`${url}/v1/runs/export`)
  const text = await response.text()
  expect(response.status, text.slice(0, 400)).toBe(200)
  return text.split("\n").filter((line) => line.trim() !== "").map((line) => decodeExport(line))
}

/** The span ids a run's trace has events of (`span:<id>`, `span:<id>/input[2]`, ...). */
export const spanIdsOf = (run: RunExport): ReadonlySet<string> =>
  new Set(run.trace.events.flatMap((event) => {
    const match = /^span:([0-9a-f]{16})/.exec(event.source)
    return match?.[1] === undefined ? [] : [match[1]]
  }))

/** A metric's samples with these labels, summed over the lines of a /metrics text. */
export const metricTotal = (text: string, name: string, labels: Readonly<Record<string, string>> = {}): number =>
  text
    .split("\n")
    .filter((line) => (line.startsWith(`${name}{`) || line.startsWith(`${name} `)) && Object.entries(labels).every(([key, value]) => line.includes(`${key}="${value}"`)))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(" ") + 1)), 0)

const str = (key: string, value: string): KeyValue => ({ key, value: { stringValue: value } })
const hex = (n: number, digits: number): string => n.toString(16).padStart(digits, "0")

export interface BuiltTrace {
  readonly traceId: string
  readonly root: Span
  readonly tools: ReadonlyArray<Span>
  /** Every span: the root and its tools. */
  readonly spans: ReadonlyArray<Span>
}

/** Trace `n` (ids from `n`, distinct per test by `salt`): an agent root and `tools` tool spans under it, ended. */
export const buildTrace = (salt: number, n: number, tools: number): BuiltTrace => {
  const traceId = `${hex(salt, 8)}${hex(n, 8)}${"ab".repeat(8)}`
  const spanId = (i: number) => `${hex(n, 8)}${hex(i + 1, 8)}`
  const at = (ms: number) => (BigInt(Date.UTC(2026, 0, 1)) * 1_000_000n + BigInt(ms) * 1_000_000n).toString()
  const question = `Trace ${salt}-${n}: what is the weather in ${tools} cities?`
  const rootId = spanId(0)
  const toolSpans = Array.from({ length: tools }, (_, i): Span => ({
    traceId,
    spanId: spanId(i + 1),
    parentSpanId: rootId,
    name: "execute_tool get_weather",
    kind: 1,
    startTimeUnixNano: at(100 + i * 10),
    endTimeUnixNano: at(105 + i * 10),
    attributes: [
      str("gen_ai.operation.name", "execute_tool"),
      str("gen_ai.tool.name", "get_weather"),
      str("gen_ai.tool.call.id", `call_${n}_${i}`),
      str("gen_ai.tool.call.arguments", JSON.stringify({ city: `city-${salt}-${n}-${i}` })),
      str("gen_ai.tool.call.result", JSON.stringify({ city: `city-${salt}-${n}-${i}`, temperature_c: i }))
    ],
    events: [],
    links: [],
    status: { code: 1 }
  }))
  const root: Span = {
    traceId,
    spanId: rootId,
    name: "invoke_agent weather_agent",
    kind: 1,
    startTimeUnixNano: at(0),
    endTimeUnixNano: at(200 + tools * 10),
    attributes: [
      str("gen_ai.operation.name", "invoke_agent"),
      str("gen_ai.agent.name", "weather_agent"),
      str("gen_ai.input.messages", JSON.stringify([{ role: "user", parts: [{ type: "text", content: question }] }])),
      str("gen_ai.output.messages", JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: `Done with trace ${salt}-${n}.` }], finish_reason: "stop" }]))
    ],
    events: [],
    links: [],
    status: { code: 1 }
  }
  return { traceId, root, tools: toolSpans, spans: [root, ...toolSpans] }
}

/** An `ExportTraceServiceRequest` of these spans, one resource and instrumentation scope. */
export const tracesRequest = (spans: ReadonlyArray<Span>, service = "weather-agent"): TracesRequest => ({
  resourceSpans: [{ resource: { attributes: [str("service.name", service)] }, scopeSpans: [{ scope: { name: "weather-agent", version: "1.0.0" }, spans }] }]
})
