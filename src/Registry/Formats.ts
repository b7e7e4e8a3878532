/**
 * The trace formats (DECISIONS §12), one entry each, **in detection order**: with `format: auto`
 * each imported format is asked in this order whether it recognises a body, and the first that
 * does reads it. So the most specific shapes come first (OTLP and span lists before LangSmith's
 * runs, trajectories before plain message lists), and `openai`, which takes a bare list of
 * `{role, content}`, is asked last; `native` (a pattern's own input shape) is the fallback after
 * them all.
 *
 * Everything that names the formats derives from this list: the `TraceFormat` and `FormatOption`
 * schemas (src/Traces/Model.ts; so OpenAPI, the typed client and the MCP tools' input schemas),
 * the messages that list them, `svc --from` with its help and completions, and the generated
 * sections of docs/traces.md and docs/cli.md (src/Registry/Docs.ts). Adding a format: an entry
 * here, its importer in src/Traces/Formats/, and the importer's line in src/Traces/Normalize.ts
 * (`IMPORTER_OF`, which the compiler then asks for).
 *
 * Contract-safe: names and words only (the typed client bundles it).
 */
import type { NonEmpty } from "./Entries.js"

export interface FormatEntry {
  readonly name: string
  /** `imported`: read by an importer (src/Traces/Formats/); `native`: a pattern's own input shape. */
  readonly kind: "imported" | "native"
  /** What it reads, in a few words (schema descriptions, docs). */
  readonly reads: string
}

export const TRACE_FORMATS = [
  { name: "otel", kind: "imported", reads: "OpenTelemetry GenAI as OTLP/JSON traces or logs, or span lists" },
  { name: "openinference", kind: "imported", reads: "OpenInference (Arize Phoenix) spans" },
  { name: "langsmith", kind: "imported", reads: "LangSmith run trees, run lists, {post, patch}" },
  { name: "trajectory", kind: "imported", reads: "SWE-agent, mini-SWE-agent and OpenHands trajectories" },
  { name: "claude_code", kind: "imported", reads: "Claude Code session transcripts (JSON Lines)" },
  { name: "codex", kind: "imported", reads: "OpenAI Codex CLI rollouts and codex exec --json streams" },
  { name: "langfuse", kind: "imported", reads: "Langfuse trace exports and API traces with observations" },
  { name: "smolagents", kind: "imported", reads: "smolagents benchmark records and agent memory steps" },
  { name: "mast", kind: "imported", reads: "MAST (MAD) multi-agent failure dataset records" },
  { name: "inspect", kind: "imported", reads: "Inspect AI eval logs (JSON), one trace per sample" },
  { name: "tau_bench", kind: "imported", reads: "tau-bench and tau2-bench trajectories and simulations" },
  { name: "gemini_cli", kind: "imported", reads: "Gemini CLI session recordings and saved chats" },
  { name: "autogen", kind: "imported", reads: "AutoGen / AG2 / Magentic-One histories" },
  { name: "anthropic", kind: "imported", reads: "Anthropic Messages and Managed Agents sessions" },
  { name: "openai", kind: "imported", reads: "OpenAI Chat Completions messages, Responses items, Agents SDK exports and RunStates" },
  { name: "native", kind: "native", reads: "the pattern's own input shape" }
] as const satisfies NonEmpty<FormatEntry>

export type TraceFormatEntry = (typeof TRACE_FORMATS)[number]
export type TraceFormatName = TraceFormatEntry["name"]
export type ImportedFormat = Extract<TraceFormatEntry, { readonly kind: "imported" }>["name"]
