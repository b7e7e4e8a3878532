/**
 * The injectors (issue 48, DECISIONS §23): one per (check, format kit), each a check's plan
 * (Plans.ts) written by a kit that can express it with its format's real fields. At least two
 * formats per check, at least six formats across the set.
 */
import { agentsSdkKit } from "./Kits/AgentsSdk.js"
import { anthropicKit } from "./Kits/Anthropic.js"
import { autoGenKit } from "./Kits/AutoGen.js"
import type { Kit } from "./Kits/Kit.js"
import { langSmithKit } from "./Kits/LangSmith.js"
import { openAiChatKit } from "./Kits/OpenAiChat.js"
import { otelKit } from "./Kits/Otel.js"
import { smolagentsKit } from "./Kits/Smolagents.js"
import type { CheckId } from "./Scenario.js"

export interface Injector {
  readonly check: CheckId
  readonly kit: Kit
}

const pairs = (check: CheckId, kits: ReadonlyArray<Kit>): ReadonlyArray<Injector> => kits.map((kit) => ({ check, kit }))

export const INJECTORS: ReadonlyArray<Injector> = [
  ...pairs("tool_error_unrecovered", [openAiChatKit, anthropicKit, otelKit, langSmithKit, smolagentsKit]),
  ...pairs("success_claim_after_error", [openAiChatKit, anthropicKit, otelKit, langSmithKit]),
  ...pairs("repeated_call_loop", [openAiChatKit, anthropicKit, otelKit, langSmithKit, smolagentsKit]),
  ...pairs("unanswered_tool_call", [openAiChatKit, anthropicKit, otelKit, langSmithKit]),
  // the declared tools: formats whose traces carry them
  ...pairs("unknown_tool", [openAiChatKit, anthropicKit, otelKit]),
  ...pairs("invalid_tool_arguments", [openAiChatKit, anthropicKit, otelKit]),
  ...pairs("truncated_output", [openAiChatKit, anthropicKit, otelKit, langSmithKit]),
  ...pairs("empty_final_answer", [openAiChatKit, anthropicKit, otelKit, langSmithKit]),
  // the frameworks that have a turn or step limit of their own
  ...pairs("turn_limit_reached", [agentsSdkKit, langSmithKit, smolagentsKit, autoGenKit]),
  ...pairs("context_overflow", [openAiChatKit, anthropicKit, otelKit, langSmithKit]),
  ...pairs("provider_error", [openAiChatKit, anthropicKit, otelKit, langSmithKit, smolagentsKit]),
  // multi-agent formats that record handoffs
  ...pairs("handoff_unanswered", [agentsSdkKit, autoGenKit]),
  ...pairs("handoff_ping_pong", [agentsSdkKit, autoGenKit])
]
