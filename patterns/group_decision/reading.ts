/**
 * Group decision from a raw trace: `title` is the run's task, verbatim, and `agents` are the run's
 * agents (with the tools each called as its role, as the trace shows it). The options on the table
 * and the stakes of a wrong choice are the operator's to state: they come from hints (`options`,
 * `stakes`), never from the trace.
 */
import { actorActivity, agentRoleText } from "../../src/Catalogue/Project.js"
import type { DeriveFromTrace } from "../../src/Traces/Reading.js"

export const deriveFromTrace: DeriveFromTrace = (trace, base) => {
  const sources = new Map<string, string>()
  const acting = trace.events.filter((event) => event.role === "agent").map((event) => event.actor)
  const names = Array.from(new Set([...trace.agents, ...acting])).filter((name) => name.trim().length > 0)
  // Each agent's events from one pass over the trace (a pass per agent was quadratic, issue 27).
  const activity = actorActivity(trace)
  const agents = (names.length > 0 ? names : ["agent"]).map((name, i) => {
    const own = activity.get(name)
    if (own !== undefined) sources.set(`agents[${i}]`, own.first.source)
    return { name, role: agentRoleText(own) }
  })
  const task = base.input["task"]
  const taskSource = base.sources.get("task")
  if (taskSource !== undefined) sources.set("title", taskSource)
  return { fields: { title: typeof task === "string" && task.trim().length > 0 ? task : "(the trace states no task)", agents }, sources }
}
