/**
 * The `openai` importer (DECISIONS §12). Three families of bodies:
 *
 * - Chat Completions: a list of messages, a request body `{model?, messages, tools?, response?}`,
 *   a pair `{request, response}`, a `chat.completion` response (`choices[].message`), or a list of
 *   such calls. Roles system/developer/user/assistant/tool (and the legacy `function`); content a
 *   string or parts (`text` read, images / audio / files skipped and counted); assistant
 *   `tool_calls` (tool call events, content the `arguments` string verbatim), `refusal`, `name`;
 *   `tool` messages resolved to the tool's name through `tool_call_id`; an error response
 *   (`{error: {message}}`) is an error event.
 * - Responses API: a `response` object (`output`, `status`, `error`, `instructions`), a request
 *   (`input` a string or items), `{input, output}`, or a plain item list: `message` items,
 *   `function_call` / `function_call_output`, `reasoning` (summary → thought), the hosted tools'
 *   `*_call` items (web / file search, computer, code interpreter, MCP, shell ...) → tool calls;
 *   `status: "failed" | "incomplete" | "cancelled"` or `error` → an error event and success=false.
 * - OpenAI Agents SDK trace exports: the objects its tracing exporter posts to the traces ingest
 *   endpoint (`{object: "trace" | "trace.span", id, trace_id, parent_id, started_at, ended_at,
 *   span_data, error}`), as a list or as the batch `{data: [...]}`; one trace per trace id. Agent
 *   spans name the actors, function spans are tool calls and results, handoff spans handoffs,
 *   generation spans (and response spans that carry their input / response) go through
 *   `addHistory`; span errors are error events. And a paused run's `RunState` JSON
 *   (`OpenAI/RunState`): its input, then its generated items by agent.
 *
 * A body holding several model calls (each carrying the conversation so far) is read through
 * `addHistory`: N messages become about N events. Sources: `messages[3]`,
 * `messages[2].tool_calls[0]`, `choices[0].message`, `output[2]`, `input[0]`, `[1].request.input[3]`,
 * `span:<id>`, `span:<id>/input[2]`.
 *
 * Modules: `OpenAI/Detect` (detection), `OpenAI/Reader` (shared reading helpers), `OpenAI/Chat`
 * (Chat Completions messages), `OpenAI/Responses` (Responses items), `OpenAI/Calls` (request and
 * response bodies), `OpenAI/Agents` (Agents SDK exports).
 */
import * as Predicate from "effect/Predicate"
import type { Importer } from "../Importer.js"
import { detectSafely } from "./Common.js"
import { readAgents, spanList } from "./OpenAI/Agents.js"
import { readConversation } from "./OpenAI/Calls.js"
import { detectBody } from "./OpenAI/Detect.js"
import { fail } from "./OpenAI/Reader.js"
import { isRunState, readRunState } from "./OpenAI/RunState.js"

export const openAiImporter: Importer = {
  format: "openai",
  detect: detectSafely(detectBody),
  read: (body) => {
    if (!Array.isArray(body) && !Predicate.isRecord(body)) return fail("expected Chat Completions messages, a Responses API response or items, or an Agents SDK trace export")
    if (Array.isArray(body) && body.length === 0) return fail("the body is an empty list: no messages, items or spans to read")
    const spans = spanList(body)
    if (spans !== undefined) return readAgents(spans)
    if (Predicate.isRecord(body) && isRunState(body)) return readRunState(body)
    return readConversation(body)
  }
}
