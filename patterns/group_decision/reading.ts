/**
 * Group decision from a raw trace: `title` is the run's task, verbatim, and `agents` are the run's
 * agents (with the tools each called as its role, as the trace shows it). The options on the table
 * and the stakes of a wrong choice are the operator's to state: they come from hints (`options`,
 * `stakes`), never from the trace.
 */
import type { DeriveFromTrace } from "../../src/Traces/Reading.js"

export const deriveFromTrace: DeriveFromTrace = (trace, base) => {
  const sources = new Map<string, string>()
  const acting = trace.events.filter((event) => event.role === "agent").map((event) => event.actor)
  const names = Array.from(new Set([...trace.agents, ...acting])).filter((name) => name.trim().length > 0)
  const agents = (names.length > 0 ? names : ["agent"]).map((name, i) => {
    const own = trace.events.filter((event) => event.actor === name)
    const first = own[0]
    if (first !== undefined) sources.set(`agents[${i}]`, first.source)
    const tools = Array.from(new Set(own.flatMap((event) => (event.kind === "tool_call" && event.tool !== undefined ? [event.tool] : []))))
    return { name, role: `agent in the run (${own.length} event${own.length === 1 ? "" : "s"}${tools.length > 0 ? `; tools: ${tools.join(", ")}` : ""})` }
  })
  const task = base.input["task"]
  const taskSource = base.sources.get("task")
  if (taskSource !== undefined) sources.set("title", taskSource)
  return { fields: { title: typeof task === "string" && task.trim().length > 0 ? task : "(the trace states no task)", agents }, sources }
}
