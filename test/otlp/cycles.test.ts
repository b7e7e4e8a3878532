/**
 * Parent cycles (issue 47), over the real service on a loopback port: a span that is its own
 * parent, a 2-cycle and a 1,000-span cycle, each in an agent's trace (an `invoke_agent` span whose
 * parent is not in the trace, and tool spans on the cycle). The first span on the cycle is the
 * trace's first agent span and no span on the cycle names an agent: the assembly's walk for the
 * agent nearest the root starts on the cycle and finds no agent on it, so a walk without a visited
 * set never ends (the issue's blocked event loop, 2.3 GB, a dead process). Here every trace becomes
 * a run with its labels and every tool call of the cycle, /livez answers throughout, and the same
 * shapes as OTLP/JSON bodies are read by `POST /v1/runs` and `POST /v1/diagnose` (the importers'
 * span tree breaks each cycle at one span).
 */
import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { randomBytes } from "node:crypto"
import { RunExport, RunTrace } from "../../src/Contract/RunsContract.js"
import { DiagnoseResponse } from "../../src/Contract/DiagnoseReport.js"
import { call, decoded, freshHome, listRuns, sleep, submitOne } from "../runs/support.js"
import { startService } from "../support/Service.js"

const QUESTION = "Where is my order 4711? It was due last week."
const ANSWER = "I could not find order 4711 in any of the systems I checked."

const text = (key: string, value: string) => ({ key, value: { stringValue: value } })
const nanos = (ms: number) => (BigInt(ms) * 1_000_000n).toString()
const traceId = () => randomBytes(16).toString("hex")
const spanId = () => randomBytes(8).toString("hex")

/** A tool call of the agent (a span with GenAI tool attributes, no agent name), under `parent`. */
const toolSpan = (trace: string, id: string, parent: string, n: number, at: number) => ({
  traceId: trace,
  spanId: id,
  parentSpanId: parent,
  name: "execute_tool lookup_order",
  kind: 1,
  startTimeUnixNano: nanos(at + n),
  endTimeUnixNano: nanos(at + n + 1),
  attributes: [
    text("gen_ai.operation.name", "execute_tool"),
    text("gen_ai.tool.name", "lookup_order"),
    text("gen_ai.tool.call.id", `call_${n}`),
    text("gen_ai.tool.call.arguments", JSON.stringify({ order: "4711", system: `system-${n}` })),
    text("gen_ai.tool.call.result", JSON.stringify({ found: false, system: `system-${n}` }))
  ],
  events: [],
  links: [],
  status: { code: 0 }
})

/**
 * An agent's trace whose tool spans form a parent cycle of `size` (1: a span its own parent), then
 * the `invoke_agent` span (its parent, another service's, not in the trace) with the conversation.
 */
const cycleBody = (trace: string, size: number) => {
  const at = Date.now() - 10_000
  const ids = Array.from({ length: size }, () => spanId())
  const tools = ids.map((id, n) => toolSpan(trace, id, ids[(n + 1) % size] ?? id, n, at))
  const agent = {
    traceId: trace,
    spanId: spanId(),
    parentSpanId: spanId(),
    name: "invoke_agent support_agent",
    kind: 1,
    startTimeUnixNano: nanos(at - 1),
    endTimeUnixNano: nanos(at + size + 5),
    attributes: [
      text("gen_ai.operation.name", "invoke_agent"),
      text("gen_ai.agent.name", "support_agent"),
      text("gen_ai.input.messages", JSON.stringify([{ role: "user", parts: [{ type: "text", content: QUESTION }] }])),
      text("gen_ai.output.messages", JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: ANSWER }], finish_reason: "stop" }]))
    ],
    events: [],
    links: [],
    status: { code: 0 }
  }
  return {
    resourceSpans: [{ resource: { attributes: [text("service.name", "orders-svc")] }, scopeSpans: [{ scope: { name: "cycles-test", version: "1.0.0" }, spans: [...tools, agent] }] }]
  }
}

const SHAPES = [
  { name: "a span its own parent", size: 1 },
  { name: "a 2-cycle", size: 2 },
  { name: "a 1,000-span cycle", size: 1_000 }
] as const

/** The tool calls of a kept trace, and whether it holds the conversation. */
const readOf = (trace: typeof RunTrace.Type["trace"]) => ({
  toolCalls: trace.events.filter((event) => event.kind === "tool_call").length,
  conversation: trace.events.some((event) => event.content.includes(QUESTION)) && trace.events.some((event) => event.content.includes(ANSWER))
})

const livez = async (url: string) => {
  const response = await fetch(`${url}/livez`)
  await response.arrayBuffer()
  return response.status
}

describe("parent cycles in a trace (issue 47)", () => {
  it("OTLP: each cycle's trace becomes a run with its agent, every tool call read, and /livez answers throughout", async () => {
    const service = await startService({ SVC_HOME: freshHome("cycles"), SVC_OTLP_QUIET_SECONDS: "1", SVC_OTLP_MAX_AGE_SECONDS: "60", SVC_OTLP_DIAGNOSE: "all" })
    try {
      const sent = SHAPES.map((shape) => ({ ...shape, traceId: traceId() }))
      for (const shape of sent) {
        const response = await call(service, "POST", "/v1/traces", { body: cycleBody(shape.traceId, shape.size) })
        expect(response.status, await response.text()).toBe(200)
      }
      // the runs appear while the probe keeps answering (a walk that never ends blocks the event loop, and the probe with it)
      const deadline = Date.now() + 30_000
      for (;;) {
        expect(await livez(service.url)).toBe(200)
        const { runs } = await listRuns(service, "?limit=200")
        if (sent.every((shape) => runs.some((run) => run.trace_id === shape.traceId))) break
        if (Date.now() > deadline) throw new Error(`runs of the cycles' traces did not appear; runs: ${JSON.stringify(runs.map((run) => run.trace_id))}`)
        await sleep(100)
      }
      const exported = await call(service, "GET", "/v1/runs/export")
      const lines = (await exported.text()).split("\n").filter((line) => line.trim() !== "").map((line) => Schema.decodeUnknownSync(Schema.parseJson(RunExport))(line))
      for (const shape of sent) {
        const run = lines.find((line) => line.run.trace_id === shape.traceId)
        if (run === undefined) throw new Error(`no run of ${shape.name}`)
        expect(run.run, shape.name).toMatchObject({ source: "otlp", status: "queued", error: null, labels: { service: "orders-svc", agent: "support_agent" } })
        expect(readOf(run.trace), shape.name).toEqual({ toolCalls: shape.size, conversation: true })
      }
      expect(await livez(service.url)).toBe(200)
    } finally {
      await service.close()
    }
  })

  it("POST /v1/runs and POST /v1/diagnose read the same shapes as OTLP/JSON bodies", async () => {
    const service = await startService({ SVC_HOME: freshHome("cycles-api") })
    try {
      for (const shape of SHAPES) {
        const id = traceId()
        const body = cycleBody(id, shape.size)
        const runId = await submitOne(service, body)
        const kept = await decoded(await call(service, "GET", `/v1/runs/${runId}/trace`), 200, RunTrace)
        expect(kept.trace.id, shape.name).toBe(id)
        expect(readOf(kept.trace), shape.name).toEqual({ toolCalls: shape.size, conversation: true })
        // no provider configured: the report comes back with the triage, every lens llm_resolution_error
        const { report } = await decoded(await call(service, "POST", "/v1/diagnose", { body: { trace: body, mode: "quick", max_patterns: 1 } }), 200, DiagnoseResponse)
        expect(report.trace.id, shape.name).toBe(id)
        expect(report.trace.agents, shape.name).toContain("support_agent")
        expect(report.trace.events, shape.name).toBe(kept.trace.events.length)
        expect(await livez(service.url)).toBe(200)
      }
    } finally {
      await service.close()
    }
  })
})
