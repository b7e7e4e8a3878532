/**
 * `unknown_tool` (DECISIONS §23): the agent called a tool the trace does not declare. Only on traces
 * that declare their tools (`tools`); names compare case-insensitively, an MCP client's
 * `mcp__<server>__<tool>` as `<tool>`, a hosted tool's `_preview` or version suffix dropped. The tools frameworks add beside the declared ones are not
 * judged: a handoff's tool (`transfer_to_…`, or any call a handoff answers), pydantic-ai's output
 * tool `final_result` and smolagents' `final_answer`.
 */
import type { Check, Cited, RawFinding } from "./Check.js"
import { listEvents } from "./Errors.js"
import { callsHandedOff } from "./Handoffs.js"

/**
 * A tool's name as names are compared: lower case, an MCP client's `mcp__<server>__` prefix dropped,
 * and a hosted tool's version or preview suffix too (declared `web_search_preview` or
 * `web_search_20250305`, called `web_search`).
 */
const toolKey = (name: string): string => {
  const lower = name.trim().toLowerCase()
  const bare = lower.startsWith("mcp__") && lower.lastIndexOf("__") > 3 ? lower.slice(lower.lastIndexOf("__") + 2) : lower
  return bare.replace(/_(?:preview|\d{6,8})$/, "")
}

const DECLARED_SHOWN = 8

/** Tools a framework offers the model itself, often missing from the declared list: handoffs and structured-output tools. */
const FRAMEWORK_TOOL = /^(?:transfer_to_\w+|final_result(?:_\w+)?|final_answer)$/

export const unknownTool: Check = {
  id: "unknown_tool",
  title: "The agent called a tool it was not given",
  severity: "medium",
  rule:
    "A tool call names a tool that is not among the tools the trace declares (case-insensitive); only on traces that declare their tools, and never for the tools frameworks add themselves (handoffs, final_result, final_answer).",
  reads: "structure",
  playbooks: ["lewin/interactional.tool_contract_mismatch", "lewin/internal.fabricated_content", "hexaco/honesty_humility_risk.authority_overreach"],
  fingerprint: ["tool", "agent"],
  run: (view) => {
    // no call (a chat, a content-free run), nothing to judge
    if (view.countOf("tool_call") === 0) return []
    const declared = view.declaredTools
    if (declared === undefined) return []
    const known = new Set([...declared].map(toolKey))
    const handedOff = callsHandedOff(view)
    const byTool = new Map<string, { calls: Array<number>; answer: number | undefined; agent: string | undefined }>()
    view.eachCall((call) => {
      if (call.call === undefined || handedOff.has(call.call)) return
      const event = view.at(call.call)
      // a call event without a tool's name has nothing to compare
      if (event?.tool === undefined || known.has(toolKey(event.tool)) || FRAMEWORK_TOOL.test(event.tool)) return
      const same = byTool.get(event.tool)
      if (same === undefined) byTool.set(event.tool, { calls: [call.call], answer: call.answers[0], agent: event.role === "agent" ? event.actor : undefined })
      else same.calls.push(call.call)
    })
    const names = [...declared]
    const shown = `${names.slice(0, DECLARED_SHOWN).join(", ")}${names.length > DECLARED_SHOWN ? `, and ${names.length - DECLARED_SHOWN} more` : ""}`
    const findings: Array<RawFinding> = []
    for (const [tool, { calls, answer, agent }] of byTool) {
      const [first, ...rest] = calls
      if (first === undefined) continue
      const cites: Array<Cited> = [{ event: first }, ...(answer === undefined ? [] : [{ event: answer }]), ...rest.map((event) => ({ event }))]
      findings.push({
        cites,
        explanation: `${tool} was called at ${listEvents(calls)}${calls.length > 1 ? ` (${calls.length} times)` : ""}, but the trace declares only ${shown}.`,
        tool,
        agent
      })
    }
    return findings
  }
}
