/**
 * What spans say of model calls and tools beyond their messages (DECISIONS §23), in each
 * convention the span formats read: token usage (`gen_ai.usage.*`, OpenInference
 * `llm.token_count.*`, the Vercel AI SDK's `ai.usage.*`), finish reasons
 * (`gen_ai.response.finish_reasons`, `llm.finish_reason`, `ai.response.finishReason`), and the
 * declared tools (`gen_ai.tool.definitions`, OpenInference `llm.tools.N.tool.json_schema`, the
 * Vercel AI SDK's `ai.prompt.tools`, OpenLLMetry's `llm.request.functions.N.*`).
 */
import * as Predicate from "effect/Predicate"
import type { CallFacts } from "../../Builder.js"
import type { DeclaredTool, TokenUsage } from "../../Model.js"
import { countOf, declaredToolOf, declaredToolsOf, str } from "../Common.js"
import { parseJsonish, unflatten, type Attributes } from "./Attributes.js"
import { spanFacts } from "./Session.js"
import type { Span } from "./Shapes.js"

const firstCount = (attributes: Attributes, keys: ReadonlyArray<string>): number | undefined => {
  for (const key of keys) {
    const count = countOf(attributes[key])
    if (count !== undefined) return count
  }
  return undefined
}

const INPUT_TOKENS = ["gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens", "llm.token_count.prompt", "ai.usage.inputTokens", "ai.usage.promptTokens"]
const OUTPUT_TOKENS = ["gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens", "llm.token_count.completion", "ai.usage.outputTokens", "ai.usage.completionTokens"]

/** A span's token usage, when it reports one. */
export const tokensOf = (attributes: Attributes): TokenUsage | undefined => {
  const input = firstCount(attributes, INPUT_TOKENS)
  const output = firstCount(attributes, OUTPUT_TOKENS)
  return input === undefined && output === undefined ? undefined : { input, output }
}

/** The first finish reason of a list, a JSON list in text (or a Python list's repr), or a lone value. */
const firstReason = (value: unknown): string | undefined => {
  const parsed = parseJsonish(typeof value === "string" ? value.replace(/^\[\s*'([^']*)'/, "[\"$1\"") : value)
  if (Array.isArray(parsed)) return parsed.map(str).find((reason) => reason !== undefined)
  return str(parsed)
}

/** A span's finish reason, when it reports one. */
export const finishReasonOf = (attributes: Attributes): string | undefined =>
  firstReason(attributes["gen_ai.response.finish_reasons"]) ?? str(attributes["llm.finish_reason"]) ?? str(attributes["ai.response.finishReason"])

/** A model call span's facts: how it went and how long it took (`spanFacts`), its finish reason and tokens. */
export const modelCallFacts = (span: Span): CallFacts => ({ ...spanFacts(span), finish_reason: finishReasonOf(span.attributes), tokens: tokensOf(span.attributes) })

// ---------------------------------------------------------------------------------------------
// Declared tools

/**
 * The tools a span declares to its model, in any of the conventions above, and Pydantic AI's
 * `model_request_parameters.function_tools`.
 */
export const spanTools = (attributes: Attributes): ReadonlyArray<DeclaredTool> => {
  const parameters = parseJsonish(attributes["model_request_parameters"])
  const tools: Array<DeclaredTool> = [
    ...declaredToolsOf(attributes["gen_ai.tool.definitions"]),
    ...declaredToolsOf(attributes["ai.prompt.tools"]),
    ...(Predicate.isRecord(parameters) ? declaredToolsOf(parameters["function_tools"]) : [])
  ]
  let oi = false
  let functions = false
  for (const key in attributes) {
    if (key.startsWith("llm.tools.")) oi = true
    else if (key.startsWith("llm.request.functions.")) functions = true
  }
  if (oi) {
    for (const entry of unflatten(attributes, "llm.tools.")) {
      const tool = declaredToolOf(Predicate.isRecord(entry) && Predicate.isRecord(entry["tool"]) ? entry["tool"]["json_schema"] : undefined)
      if (tool !== undefined) tools.push(tool)
    }
  }
  if (functions) {
    for (const entry of unflatten(attributes, "llm.request.functions.")) {
      const tool = declaredToolOf(entry)
      if (tool !== undefined) tools.push(tool)
    }
  }
  return tools
}
