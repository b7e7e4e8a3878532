/**
 * The fixtures a person read and found to be runs that succeeded (issue 48, DECISIONS §23): the
 * task was done and the answer is right, whatever went wrong on the way and was handled. They are
 * the set's `successful` split: no check should flag them at medium or above. Each with why, in
 * one line. Files of several runs name the record (`record`, the JSON Lines line); fixtures left
 * out are runs that failed, were cut off, or are fragments (a single response, a pending approval).
 */
import type { TraceFormat } from "../../src/Traces/Model.js"

export interface SuccessfulFixture {
  /** Relative to test/fixtures/traces. */
  readonly path: string
  readonly format: TraceFormat
  /** The record of a JSON Lines file holding several runs. */
  readonly record?: number
  readonly why: string
}

export const SUCCESSFUL: ReadonlyArray<SuccessfulFixture> = [
  { path: "anthropic/request-tool-use.json", format: "anthropic", why: "the gateway metric is missing (is_error), the agent says so, reads the runbook and answers the question" },
  { path: "anthropic/managed-builtin-tools.jsonl", format: "anthropic", why: "runs `date` with bash and reports the date it printed" },
  { path: "anthropic/managed-custom-tools.jsonl", format: "anthropic", why: "calls get_weather for Prague and answers with its result" },
  { path: "anthropic/managed-mcp-tools.jsonl", format: "anthropic", why: "the Exa search finds the repository and the answer gives its star count" },
  { path: "anthropic/managed-mcp-tools-reject.jsonl", format: "anthropic", why: "the user denies the MCP search; the agent fetches the GitHub page instead and answers" },
  { path: "autogen/ag2-chat-result.json", format: "autogen", why: "the distance script fails (geopy missing); the planner says so, estimates from the map and gives the three-stop tour" },
  { path: "autogen/core-llm-history.json", format: "autogen", why: "triage transfers to the loans desk, which asks for the book and clears the overdue flag" },
  { path: "autogen/agentchat-task-result.json", format: "autogen", why: "the backup log shows the full disk; the storage agent gives the cause and the fix (the refused disk_usage call goes unmentioned, but was not needed)" },
  { path: "claude_code/sidechain_integrated.jsonl", format: "claude_code", why: "the sub-agent researches data-border-color and the main agent summarises its findings (the export's Grep result id does not match its call)" },
  { path: "codex/codex-0.169-exec-json.jsonl", format: "codex", why: "lists the directory and names its two files (the model-metadata warning is a fallback, not a failure)" },
  { path: "codex/codex-0.169-rollout-exec-command.jsonl", format: "codex", why: "runs ls and names the two files" },
  { path: "codex/exec-json-sample.jsonl", format: "codex", why: "lists the repository root and confirms the README is there" },
  { path: "codex/rollout-tools.jsonl", format: "codex", why: "finds the files, adds gamma.txt with apply_patch, queries the MCP tool, reports" },
  { path: "gemini_cli/gemini-cli-0.61-session.jsonl", format: "gemini_cli", why: "lists the directory and names its files" },
  { path: "gemini_cli/memory-persistence.session.json", format: "gemini_cli", why: "a conversation that ends with the user's problem solved" },
  { path: "inspect/browser.json", format: "inspect", why: "browses the AISI site and answers what the institute is" },
  { path: "langfuse/langgraph-2025-08-22.json", format: "langfuse", why: "searches and answers from the result" },
  { path: "langfuse/openai-agents-2025-09-30.json", format: "langfuse", why: "hands to the weather agent, which calls get_weather and answers" },
  { path: "langfuse/pydantic-ai-tools-2025-12-04.json", format: "langfuse", why: "gathers three joke ideas, tells the joke, the evaluator rates it good" },
  { path: "langsmith/traceable-batch.json", format: "langsmith", why: "the search finds release 2.4; the changelog fetch fails (503) and the answer rests on the search, which says so" },
  { path: "openai/agents-sdk-chat-completions.json", format: "openai", why: "a typo'd invoice id fails, the billing agent retries with the right id and explains the duplicate charge" },
  { path: "openai/agents-sdk-responses.json", format: "openai", why: "the same run through the Responses API, recorded without content (trace_include_sensitive_data off)" },
  { path: "openai/chat-tool-calls.json", format: "openai", why: "Berlin's weather times out; the assistant says so, checks the forecast instead and answers" },
  { path: "openai/chat-request.json", format: "openai", why: "asked to identify a person in a photo, the model declines, as its instructions require" },
  { path: "openai/responses-items.json", format: "openai", why: "searches the price, converts it to euros and answers" },
  { path: "openai/responses-tool-calls.json", format: "openai", why: "the same run as request/response pairs" },
  { path: "openinference/claude-agent-sdk-live.spans.json", format: "openinference", why: "two sub-agents fetch the temperatures, a third computes the difference; the answer is right" },
  { path: "openinference/smolagents-live.spans.json", format: "openinference", why: "searches Tokyo's population and answers with final_answer" },
  { path: "openinference/openinference_client_span_tool_calls.attributes.json", format: "openinference", why: "calls get_weather for Paris and answers with it" },
  { path: "otel/adk-live.spans.json", format: "otel", why: "the calculator gives 555 and the agent answers 15 × 37 = 555" },
  { path: "otel/legacy-prompt-attributes.spans.json", format: "otel", why: "converts 72 °F with the tool and answers 22.2 °C" },
  { path: "otel/openai-responses-agent.otlp.json", format: "otel", why: "gets Rome's weather and answers" },
  { path: "otel/otel_genai_client_span_tool_calls.attributes.json", format: "otel", why: "calls get_weather for Paris and answers with it" },
  { path: "otel/openai-chat-agent-no-content.otlp.json", format: "otel", why: "the weather agent's run, recorded without content: two tool calls and a final answer, status OK" },
  { path: "smolagents/gpt-4o__code__math__2025-07-24.head2.jsonl", format: "smolagents", record: 0, why: "computes tan A = 2, the true answer" },
  { path: "smolagents/gpt-4o__code__math__2025-07-24.head2.jsonl", format: "smolagents", record: 1, why: "counts 4 common factors, the true answer" },
  { path: "smolagents/gpt-4o__tool-calling__math__2025-07-24.head2.jsonl", format: "smolagents", record: 0, why: "the octagon's side is 12 cm, the true answer" },
  { path: "smolagents/gpt-4o__tool-calling__math__2025-07-24.head2.jsonl", format: "smolagents", record: 1, why: "a first interpreter call fails, the retry gives 2, the true answer" },
  { path: "trajectory/openhands-events.json", format: "trajectory", why: "fixes the date format, updates the test after a failed edit, and the tests pass" }
]
