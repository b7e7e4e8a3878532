/**
 * A conversation in Chat Completions messages with an injection written in (issue 48): the
 * carrier's messages, the injected calls and results at the chosen turn, and the ending; cut into
 * model calls, each with the messages it was sent and what it answered. The Chat Completions kit
 * writes these as `{request, response}` pairs, the LangSmith kit as llm and tool runs.
 */
import type { Rec } from "../Json.js"
import type { Rng } from "../Random.js"
import type { Call, Injection, ModelFailure, ToolFailure } from "../Scenario.js"
import { resultText } from "../Wording.js"

export type ChatOutput = { readonly message: Rec; readonly finish: string } | { readonly failure: ModelFailure }

/** One model call: what it was sent and what it answered. */
export interface ChatCall {
  readonly input: ReadonlyArray<Rec>
  readonly output: ChatOutput
}

/** A tool run: the call, and its result or failure (undefined: none came). */
export interface ToolRun {
  readonly id: string
  readonly tool: string
  readonly args: string
  readonly result: { readonly content: string; readonly failure: ToolFailure | undefined } | undefined
}

export interface ChatRun {
  readonly calls: ReadonlyArray<ChatCall>
  readonly tools: ReadonlyArray<ToolRun>
}

const assistantCalls = (calls: ReadonlyArray<Call>) =>
  calls.map((call) => ({ id: call.id, type: "function", function: { name: call.tool, arguments: call.args } }))

/**
 * The carrier's messages before its final answer (`history`), its final answer message, and the
 * injection: the steps go before the assistant message at the turn `at` points to.
 */
export const chatRun = (history: ReadonlyArray<Rec>, final: Rec, injection: Injection, rng: Rng): ChatRun => {
  // the turns where the model speaks: before an assistant message, or at the end of the history
  const turns = [...history.flatMap((message, index) => (message["role"] === "assistant" && index > 0 ? [index] : [])), history.length]
  const where = turns[Math.min(turns.length - 1, Math.round(injection.at * (turns.length - 1)))] ?? history.length
  const failures = new Map<string, ToolFailure>()
  const injected: Array<Rec> = []
  for (const step of injection.steps) {
    if (step.kind !== "calls") continue
    injected.push({ role: "assistant", content: step.text, tool_calls: assistantCalls(step.calls) })
    step.calls.forEach((call, index) => {
      const result = step.results[index]
      if (result === undefined) return
      if (!result.ok) failures.set(call.id, result.failure)
      injected.push({ role: "tool", tool_call_id: call.id, content: result.ok ? result.content : resultText(result.failure, call.tool, rng) })
    })
  }
  const messages = [...history.slice(0, where), ...injected, ...history.slice(where)]
  const ending = injection.ending
  const finalOutput: ChatOutput | undefined = ending.kind === "keep"
    ? { message: final, finish: "stop" }
    : ending.kind === "answer"
    ? { message: { role: "assistant", content: ending.text, refusal: null }, finish: ending.finish }
    : ending.kind === "empty"
    ? { message: { role: "assistant", content: rng.pick(["", null]), refusal: null }, finish: "stop" }
    : ending.kind === "model_error"
    ? { failure: ending.failure }
    : undefined
  // cut into model calls: each assistant message is one call's answer
  const calls: Array<ChatCall> = []
  messages.forEach((message, index) => {
    if (message["role"] !== "assistant") return
    calls.push({ input: messages.slice(0, index), output: { message, finish: Array.isArray(message["tool_calls"]) ? "tool_calls" : "stop" } })
  })
  if (finalOutput !== undefined) calls.push({ input: messages, output: finalOutput })
  const all = finalOutput !== undefined && "message" in finalOutput ? [...messages, finalOutput.message] : messages
  const results = new Map(all.flatMap((message) => (message["role"] === "tool" && typeof message["tool_call_id"] === "string" ? [[message["tool_call_id"], message] as const] : [])))
  const tools: Array<ToolRun> = all.flatMap((message) =>
    Array.isArray(message["tool_calls"])
      ? message["tool_calls"].flatMap((raw: unknown): Array<ToolRun> => {
        if (typeof raw !== "object" || raw === null || !("id" in raw) || typeof raw.id !== "string" || !("function" in raw) || typeof raw.function !== "object" || raw.function === null) return []
        const fn = raw.function
        const name = "name" in fn && typeof fn.name === "string" ? fn.name : "tool"
        const args = "arguments" in fn && typeof fn.arguments === "string" ? fn.arguments : "{}"
        const answer = results.get(raw.id)
        const content = answer === undefined ? undefined : answer["content"]
        return [{ id: raw.id, tool: name, args, result: answer === undefined ? undefined : { content: typeof content === "string" ? content : JSON.stringify(content), failure: failures.get(raw.id) } }]
      })
      : []
  )
  return { calls, tools }
}

/** A model failure as the OpenAI API's error body. */
export const openAiError = (failure: ModelFailure) => ({ message: failure.message, type: failure.type, param: failure.code === "context_length_exceeded" ? "messages" : null, code: failure.code })

/** The Python SDK's exception text for a failed call, as frameworks record it (`Error code: 429 - {...}`). */
export const sdkErrorText = (failure: ModelFailure): string => {
  const body = failure.provider === "openai"
    ? `{'error': {'message': ${JSON.stringify(failure.message)}, 'type': '${failure.type}', 'param': ${failure.code === "context_length_exceeded" ? "'messages'" : "None"}, 'code': ${failure.code === null ? "None" : `'${failure.code}'`}}}`
    : `{'type': 'error', 'error': {'type': '${failure.type}', 'message': ${JSON.stringify(failure.message)}}}`
  return `Error code: ${failure.status} - ${body}`
}
