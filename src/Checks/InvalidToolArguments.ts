/**
 * `invalid_tool_arguments` (DECISIONS §23): a call's arguments are not the JSON its tool's declared
 * schema asks for: not JSON at all, or missing a required property, a value of the wrong type, a
 * property the schema closes out (`additionalProperties: false`), a value outside an `enum`
 * (Arguments.ts checks that subset). Arguments are content: a call without them is not judged, and
 * neither is a call to a tool declared without a schema.
 */
import type { Check, RawFinding } from "./Check.js"
import { argumentViolations } from "./Arguments.js"
import { firstWordsOf } from "./Errors.js"

export const invalidToolArguments: Check = {
  id: "invalid_tool_arguments",
  title: "A tool was called with arguments its schema does not accept",
  severity: "medium",
  rule:
    "A call's arguments are not JSON, or break the declared parameters' schema (type, required, properties, enum, additionalProperties, items); only for tools declared with a schema, and only when the trace holds the arguments.",
  reads: "content",
  playbooks: ["lewin/interactional.tool_contract_mismatch", "lewin/internal.misread_observation"],
  fingerprint: ["tool", "error_class", "agent"],
  run: (view) => {
    // no call, nothing to judge
    if (view.countOf("tool_call") === 0) return []
    const schemas = new Map<string, Readonly<Record<string, unknown>>>()
    for (const tool of view.trace.tools ?? []) {
      if (tool.parameters !== undefined && !schemas.has(tool.name)) schemas.set(tool.name, tool.parameters)
    }
    if (schemas.size === 0) return []
    const findings: Array<RawFinding> = []
    view.eachCall((call) => {
      if (call.call === undefined) return
      const event = view.at(call.call)
      const schema = event?.tool === undefined ? undefined : schemas.get(event.tool)
      if (event === undefined || schema === undefined || event.content.trim().length === 0) return
      const violations = argumentViolations(event.content, schema)
      const [first] = violations
      if (first === undefined) return
      const answer = call.answers[0]
      findings.push({
        cites: [{ event: call.call }, ...(answer === undefined ? [] : [{ event: answer }])],
        explanation: `${event.tool ?? call.tool}'s arguments at events[${call.call}] do not fit its declared schema: ${violations.slice(0, 3).map((each) => each.detail).join("; ")}${violations.length > 3 ? `; and ${violations.length - 3} more` : ""} (arguments: ${firstWordsOf(event.content, 80)}).`,
        tool: event.tool,
        errorClass: first.kind,
        agent: event.role === "agent" ? event.actor : undefined
      })
    })
    return findings
  }
}
