/**
 * OTLP/JSON traces for the content rule and the checks on runs (DECISIONS §23): an agent span
 * around model-call and tool spans, with or without message content, written as the GenAI
 * instrumentations write them (`gen_ai.*` attributes, the instrumentation scope of
 * `opentelemetry-instrumentation-openai-v2`). Span times are recent, so OTLP assembly completes the
 * trace after its quiet window.
 */
import { randomBytes } from "node:crypto"

type Attribute = string | number
const kv = (key: string, value: Attribute) => ({ key, value: typeof value === "string" ? { stringValue: value } : { intValue: String(value) } })
const nanos = (ms: number) => (BigInt(Math.round(ms)) * 1_000_000n).toString()

export const newTraceId = (): string => randomBytes(16).toString("hex")
const newSpanId = (): string => randomBytes(8).toString("hex")

export interface ToolSpec {
  readonly name: string
  /** The arguments, recorded only with content. */
  readonly args?: string
  /** The result, recorded only with content. */
  readonly result?: string
  /** An error status with this message (and `error.type`). */
  readonly error?: string
  /** An `exception` event with this message. */
  readonly exception?: string
}

export interface AgentSpec {
  readonly agent: string
  readonly tools: ReadonlyArray<ToolSpec>
  /** The user's question and the agent's final answer; absent: a trace without message content. */
  readonly content?: { readonly question: string; readonly answer: string }
  /** An error status on the agent span, with this message. */
  readonly agentError?: string
  /** An `exception` event on the last model call, with this message. */
  readonly callException?: string
  readonly scope?: string
}

/** One agent run as an OTLP/JSON `ExportTraceServiceRequest`: the agent span, a model call before each tool and one after the last. */
export const agentTrace = (spec: AgentSpec, traceId = newTraceId()) => {
  const start = Date.now() - 5_000
  const root = newSpanId()
  let at = start + 10
  const span = (name: string, attributes: ReadonlyArray<ReturnType<typeof kv>>, extra: { readonly events?: ReadonlyArray<unknown>; readonly status?: unknown } = {}) => {
    const begin = at
    at += 20
    return {
      traceId,
      spanId: newSpanId(),
      parentSpanId: root,
      name,
      kind: 1,
      startTimeUnixNano: nanos(begin),
      endTimeUnixNano: nanos(begin + 15),
      attributes,
      events: extra.events ?? [],
      links: [],
      status: extra.status ?? { code: 0 }
    }
  }
  const call = (finish: string, exception?: string) =>
    span("chat gpt-4o", [kv("gen_ai.operation.name", "chat"), kv("gen_ai.request.model", "gpt-4o"), kv("gen_ai.response.finish_reasons", finish), kv("gen_ai.usage.input_tokens", 120), kv("gen_ai.usage.output_tokens", 20)], exception === undefined ? {} : {
      events: [{ timeUnixNano: nanos(at), name: "exception", attributes: [kv("exception.type", "APIConnectionError"), kv("exception.message", exception)] }],
      status: { code: 2, message: exception }
    })
  const spans: Array<unknown> = []
  spec.tools.forEach((tool, i) => {
    spans.push(call("tool_calls"))
    spans.push(span(`execute_tool ${tool.name}`, [
      kv("gen_ai.operation.name", "execute_tool"),
      kv("gen_ai.tool.name", tool.name),
      kv("gen_ai.tool.call.id", `call_${i}`),
      ...(tool.args === undefined ? [] : [kv("gen_ai.tool.call.arguments", tool.args)]),
      ...(tool.result === undefined ? [] : [kv("gen_ai.tool.call.result", tool.result)]),
      ...(tool.error === undefined ? [] : [kv("error.type", "503")])
    ], {
      events: tool.exception === undefined ? [] : [{ timeUnixNano: nanos(at), name: "exception", attributes: [kv("exception.type", "HTTPError"), kv("exception.message", tool.exception)] }],
      status: tool.error === undefined ? { code: 0 } : { code: 2, message: tool.error }
    }))
  })
  spans.push(call("stop", spec.callException))
  const content = spec.content
  const agentSpan = {
    traceId,
    spanId: root,
    name: `invoke_agent ${spec.agent}`,
    kind: 1,
    startTimeUnixNano: nanos(start),
    endTimeUnixNano: nanos(at + 10),
    attributes: [
      kv("gen_ai.operation.name", "invoke_agent"),
      kv("gen_ai.agent.name", spec.agent),
      ...(content === undefined ? [] : [
        kv("gen_ai.input.messages", JSON.stringify([{ role: "user", parts: [{ type: "text", content: content.question }] }])),
        kv("gen_ai.output.messages", JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: content.answer }], finish_reason: "stop" }]))
      ])
    ],
    events: [],
    links: [],
    status: spec.agentError === undefined ? { code: 0 } : { code: 2, message: spec.agentError }
  }
  return {
    traceId,
    body: {
      resourceSpans: [{
        resource: { attributes: [kv("service.name", "refund-desk")] },
        scopeSpans: [{ scope: { name: spec.scope ?? "opentelemetry.instrumentation.openai_v2", version: "2.1b0" }, spans: [agentSpan, ...spans] }]
      }]
    }
  }
}

/** Content off: a refund tool fails (status error, no exception) and the agent's last model call ends `stop`, as if done. */
export const silentToolFailure = (traceId?: string) =>
  agentTrace({ agent: "refund_agent", tools: [{ name: "issue_refund", error: "Refund service unavailable" }] }, traceId)

/** Content off: the only texts are an exception event (on the last model call) and the agent span's status message. */
export const exceptionOnly = (traceId?: string) =>
  agentTrace({
    agent: "refund_agent",
    tools: [],
    callException: "Connection to the model endpoint was reset by peer",
    agentError: "Agent run aborted: model endpoint unreachable"
  }, traceId)
