/**
 * One run of a tool failure the agent covers up (a tool answers an HTTP error, the agent says the
 * work is done), written by a format's kit into its first carrier fixture: the scenario the
 * problem tests and bench/explain.ts send in several formats (DECISIONS §24). The carrier's own
 * agent is renamed `assistant`, as the chat formats name it, so one failure is one agent in every
 * format; ids come from `key`, the rest of the wording from the caller.
 */
import { createHash } from "node:crypto"
import type { TraceFormat } from "../../src/Traces/Model.js"
import { normalizedOf } from "./Generate.js"
import type { Kit } from "./Kits/Kit.js"
import { rngOf } from "./Random.js"

export interface ToolFailureRun {
  readonly kit: Kit
  /** Names this run: its call id and the kit's random choices come from it. */
  readonly key: string
  readonly tool: string
  readonly order: string
  /** The tool's error message (an HTTPError with status 503). */
  readonly message: string
  /** The agent's final answer. */
  readonly claim: string
}

export const toolFailureRun = (run: ToolFailureRun) => {
  const carrier = run.kit.carriers[0]
  if (carrier === undefined) throw new Error(`kit ${run.kit.name} has no carrier`)
  const injected = run.kit.inject(carrier, {
    declare: [{ name: run.tool, description: `The ${run.tool} tool.`, parameters: { type: "object", properties: { order_id: { type: "string" } }, required: ["order_id"] } }],
    at: 1,
    steps: [{
      kind: "calls",
      text: null,
      calls: [{ id: `call_${createHash("sha256").update(run.key).digest("hex").slice(0, 20)}`, tool: run.tool, args: JSON.stringify({ order_id: run.order }), input: { order_id: run.order }, marker: run.order }],
      results: [{ ok: false, failure: { type: "HTTPError", message: run.message, status: 503 } }]
    }],
    ending: { kind: "answer", text: run.claim, finish: "stop" }
  }, rngOf(0, run.key))
  const agent = carrier.facts.agents[0] ?? "assistant"
  const body: unknown = JSON.parse(JSON.stringify(injected).replaceAll(JSON.stringify(agent), JSON.stringify("assistant")))
  const format: TraceFormat = run.kit.format
  const events = normalizedOf(body, format).events
  // the events a lens quotes: the tool's failing answer and the agent's last words
  const failed = events.findIndex((event) => event.kind !== "tool_call" && event.tool === run.tool)
  const answered = events.reduce((last, event, index) => (event.role === "agent" && event.kind === "message" && event.content.length > 0 ? index : last), -1)
  return { body, format, contents: events.map((event) => event.content), picks: [failed, answered] }
}
