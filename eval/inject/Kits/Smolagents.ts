/**
 * smolagents (`smolagents`): a benchmark answer record (`{model_id, agent_action_type, question,
 * answer, intermediate_steps, …}`, one JSON Lines record), its `intermediate_steps` the agent's
 * memory as ChatMessage dicts. The carrier is a ToolCallingAgent solving a geometry question.
 * Injected as the agent's memory writes them: the assistant's "Tool call <id>: calling '<tool>'
 * with arguments: …", the "Calling tools:\n[…]" message (a Python literal), the "Observation:"
 * or "Call id: …\nError:\n…\nNow let's retry: …" response; the step limit as the final step's
 * `AgentMaxStepsError("Reached max steps.")`; a model call that raised as the runner records it:
 * no steps, the exception's text as the answer.
 */
import { copy, list, rec, records, str, type Rec } from "../Json.js"
import type { Rng } from "../Random.js"
import type { Call, Injection } from "../Scenario.js"
import { type Carrier, type Kit, readFixture } from "./Kit.js"

/** A value as Python's repr writes it (smolagents prints its tool calls so). */
const py = (value: unknown): string => {
  if (value === null || value === undefined) return "None"
  if (value === true) return "True"
  if (value === false) return "False"
  if (typeof value === "number") return String(value)
  if (typeof value === "string") return value.includes("'") && !value.includes('"') ? JSON.stringify(value) : `'${value.replace(/\\/g, "\\\\").replace(/'/g, "\\'").replace(/\n/g, "\\n")}'`
  if (Array.isArray(value)) return `[${value.map(py).join(", ")}]`
  return `{${Object.entries(rec(value)).map(([key, each]) => `${py(key)}: ${py(each)}`).join(", ")}}`
}

const load = (path: string): Carrier => {
  const records0 = list(readFixture(path))
  const record = rec(records0[0])
  return { path, facts: { tools: ["python_interpreter", "final_answer"], agents: ["agent"], answer: str(record["answer"]) ?? "" }, body: record }
}

const text = (role: string, value: string): Rec => ({ role, content: [{ type: "text", text: value }], tool_calls: null, raw: null, token_usage: null })
const RETRY = "\nNow let's retry: take care not to repeat previous errors! If you have retried several times, try a completely different approach.\n"

const callMessages = (call: Call): Array<Rec> => {
  const args = call.input ?? call.args
  return [
    text("assistant", `Tool call ${call.id}: calling '${call.tool}' with arguments: ${py(args)}`),
    text("tool-call", `Calling tools:\n[{'id': '${call.id}', 'type': 'function', 'function': {'name': '${call.tool}', 'arguments': ${py(args)}}}]`)
  ]
}

const inject = (carrier: Carrier, injection: Injection, rng: Rng): unknown => {
  const record = rec(copy(carrier.body))
  const steps = records(record["intermediate_steps"])
  // the final_answer call: its assistant message, its tool-call message, its observation
  const finalAt = steps.findIndex((step) => JSON.stringify(step["content"]).includes("calling 'final_answer'"))
  const tail = finalAt < 0 ? steps.length : finalAt
  const turns = [...steps.flatMap((step, index) => (step["role"] === "assistant" && index < tail ? [index] : [])), tail]
  const where = turns[Math.min(turns.length - 1, Math.round(injection.at * (turns.length - 1)))] ?? tail
  const added: Array<Rec> = []
  for (const step of injection.steps) {
    if (step.kind !== "calls") continue
    step.calls.forEach((call, index) => {
      added.push(...callMessages(call))
      const result = step.results[index]
      if (result === undefined) return
      added.push(
        result.ok
          ? text("tool-response", `Observation:\n${result.content}`)
          : text("tool-response", `Call id: ${call.id}\nError:\nError executing tool '${call.tool}' with arguments ${py(call.input ?? call.args)}: ${result.failure.type}: ${result.failure.message}\nPlease try again or use another tool${RETRY}`)
      )
    })
  }
  const ending = injection.ending
  const started = typeof record["start_time"] === "number" ? record["start_time"] : 1753384542
  if (ending.kind === "model_error") {
    const failure = ending.failure
    const exception = failure.status === 401 ? "AuthenticationError" : failure.status === 429 ? "RateLimitError" : failure.code === "context_length_exceeded" ? "ContextWindowExceededError" : failure.status >= 500 ? "InternalServerError" : "BadRequestError"
    const vendor = failure.provider === "openai" ? "OpenAIException" : "AnthropicException"
    // the runner caught the exception: the memory is lost, the answer is its text
    return [{ ...record, answer: `Error in generating model output:\nlitellm.${exception}: ${exception}: ${vendor} - ${failure.message}`, intermediate_steps: [], token_counts: { input: 0, output: 0 } }]
  }
  const before = [...steps.slice(0, where), ...added, ...steps.slice(where, tail)]
  if (ending.kind === "turn_limit") {
    const answer = rng.pick(["I was not able to find a definitive answer within the allowed steps.", `Based on the work so far, the answer is most likely ${str(record["answer"]) ?? "unknown"}.`])
    return [{ ...record, answer, intermediate_steps: [...before, text("tool-response", `Error:\nReached max steps.${RETRY}`)], end_time: new Date((started + rng.int(60, 600)) * 1000).toISOString().replace("T", " ").slice(0, 19) }]
  }
  return [{ ...record, intermediate_steps: [...before, ...steps.slice(tail)] }]
}

export const smolagentsKit: Kit = {
  name: "smolagents",
  format: "smolagents",
  provider: "openai",
  carriers: ["smolagents/gpt-4o__tool-calling__math__2025-07-24.head2.jsonl"].map(load),
  inject,
  turnLimitText: () => "Reached max steps."
}
