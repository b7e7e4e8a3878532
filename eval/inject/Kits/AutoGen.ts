/**
 * AutoGen 0.4 AgentChat (`autogen`): a team's `TaskResult` `{messages, stop_reason}`. The carrier
 * is an ops agent that reads a backup log and hands over to a storage agent who answers (the
 * fixture's failed `disk_usage` call is left out). Injected: `HandoffMessage`s `{source, target}`
 * as a Swarm writes them, tool turns (`ToolCallRequestEvent`, `ToolCallExecutionEvent` with
 * `is_error`, `ToolCallSummaryMessage`), and the team's turn limit, which ends the run with
 * `stop_reason: "Maximum number of turns N reached."` (the group chat manager's StopMessage text).
 */
import { copy, rec, records, str, type Rec } from "../Json.js"
import type { Rng } from "../Random.js"
import type { Injection } from "../Scenario.js"
import { resultText } from "../Wording.js"
import { type Carrier, type Kit, readFixture } from "./Kit.js"

const load = (path: string): Carrier => {
  const body = rec(readFixture(path))
  // the successful path: the log read, without the disk_usage call that was refused
  const messages = records(body["messages"]).map((message) => {
    if (message["type"] === "ToolCallRequestEvent") return { ...message, content: records(message["content"]).filter((call) => call["name"] !== "disk_usage") }
    if (message["type"] === "ToolCallExecutionEvent") return { ...message, content: records(message["content"]).filter((result) => result["name"] !== "disk_usage") }
    if (message["type"] === "ToolCallSummaryMessage") return { ...message, content: (str(message["content"]) ?? "").split("\n").filter((line) => !line.startsWith("PermissionError")).join("\n") }
    return message
  })
  const final = messages[messages.length - 1] ?? {}
  const agents = Array.from(new Set(messages.flatMap((message) => (message["source"] === "user" ? [] : str(message["source"]) ?? []))))
  return { path, facts: { tools: ["read_job_log"], agents, answer: str(final["content"]) ?? "" }, body: { ...body, messages } }
}

const uuid = (rng: Rng) => `${rng.token(8, "0123456789abcdef")}-${rng.token(4, "0123456789abcdef")}-4${rng.token(3, "0123456789abcdef")}-a${rng.token(3, "0123456789abcdef")}-${rng.token(12, "0123456789abcdef")}`

const inject = (carrier: Carrier, injection: Injection, rng: Rng): unknown => {
  const body = rec(copy(carrier.body))
  const messages = records(body["messages"])
  const final = messages[messages.length - 1] ?? {}
  const speaker = str(final["source"]) ?? "assistant"
  let clock = Date.parse(str(final["created_at"]) ?? "2025-06-02T09:14:11.000Z")
  const at = () => {
    clock += rng.int(300, 4000)
    return new Date(clock).toISOString().replace("Z", `${rng.int(100, 999)}Z`)
  }
  const message = (source: string, type: string, content: unknown, usage: boolean, extra: Rec = {}): Rec => ({
    id: uuid(rng),
    source,
    models_usage: usage ? { prompt_tokens: rng.int(300, 3000), completion_tokens: rng.int(10, 200) } : null,
    metadata: {},
    created_at: at(),
    content,
    type,
    ...extra
  })
  const added: Array<Rec> = []
  for (const step of injection.steps) {
    if (step.kind === "handoff") {
      added.push(message(step.from, "HandoffMessage", `Transferred to ${step.to}, adopting the role of ${step.to} immediately.`, true, { target: step.to, context: [] }))
      if (step.reply !== undefined) added.push(message(step.to, "TextMessage", step.reply, true))
      continue
    }
    if (step.text !== null) added.push(message(speaker, "ThoughtEvent", step.text, true))
    added.push(message(speaker, "ToolCallRequestEvent", step.calls.map((call) => ({ id: call.id, arguments: call.args, name: call.tool })), true))
    const results = step.calls.flatMap((call, index) => {
      const result = step.results[index]
      if (result === undefined) return []
      return [{ content: result.ok ? result.content : resultText(result.failure, call.tool, rng), name: call.tool, call_id: call.id, is_error: !result.ok }]
    })
    if (results.length > 0) {
      added.push(message(speaker, "ToolCallExecutionEvent", results, false))
      added.push(message(speaker, "ToolCallSummaryMessage", results.map((result) => result.content).join("\n"), false))
    }
  }
  const ending = injection.ending
  const before = messages.slice(0, -1)
  const { stop_reason: _stop, ...rest } = body
  switch (ending.kind) {
    case "keep":
      return { ...body, messages: [...before, ...added, { ...final, created_at: at() }] }
    case "answer":
      return { ...body, messages: [...before, ...added, { ...final, created_at: at(), content: ending.text }] }
    case "turn_limit":
      return { ...rest, messages: [...before, ...added], stop_reason: `Maximum number of turns ${ending.limit} reached.` }
    default:
      // the run was stopped from outside (cancelled): no stop reason, nothing after the last message
      return { ...rest, messages: [...before, ...added] }
  }
}

export const autoGenKit: Kit = {
  name: "autogen",
  format: "autogen",
  provider: "openai",
  carriers: ["autogen/agentchat-task-result.json"].map(load),
  inject,
  turnLimitText: (limit) => `Maximum number of turns ${limit} reached.`
}
