/**
 * McGregor from a raw trace. `sub_agents` are the run's agents, the first one (the orchestrator)
 * left out when there are several; a single agent is its own sub-agent and whoever directs it
 * (the user, the system prompt) stands in the orchestrator's place. `steps` are the events, one
 * per event as in the step family, with two attributions made by code: a tool's events (results,
 * errors) count as steps of the agent that called the tool, and each step names the sub-agent it
 * concerns (its own actor, or a handoff's receiver). `task_properties` are estimates from what the
 * run did: irreversible actions (delete, pay, send, deploy, merge, push, ...) in the tools called
 * or their arguments make reversibility low and risk high; writes make both medium; a read-only
 * run is reversible and low-risk. Complexity grows with the agents, distinct tools and events.
 */
import type { NormalizedTrace, TraceEvent } from "../../src/Traces/Model.js"
import { actorActivity, agentRoleText } from "../../src/Catalogue/Project.js"
import type { DeriveFromTrace } from "../../src/Traces/Reading.js"

type Level = "low" | "medium" | "high"

export const IRREVERSIBLE =
  /\b(delet(e|es|ed|ing)|remov(e|es|ed|ing)|drop(s|ped|ping)?|rm|destroy\w*|truncat\w*|pay(s|ment|ments|ing|out)?|charg(e|es|ed|ing)|refund\w*|wire|purchas\w*|buy|send(s|ing)?|e-?mail\w*|post_message|publish\w*|deploy\w*|releas(e|es|ed|ing)|merg(e|es|ed|ing)|push(es|ed|ing)?|terminat\w*|shutdown|revok\w*|cancel\w*)\b|\btransfer(s|red|ring)?\b(?!\s+to\s)/i
export const WRITES =
  /\b(writ(e|es|ing)|edit(s|ed|ing)?|updat(e|es|ed|ing)|creat(e|es|ed|ing)|insert\w*|modif\w*|patch(es|ed|ing)?|commit\w*|sav(e|es|ed|ing)|upload\w*|append\w*|replac(e|es|ed|ing)|renam\w*|mov(e|es|ed|ing)|install\w*|execut\w*|run_command|shell|bash)\b/i

/** Tool names and arguments as words (`delete_file` → `delete file`). */
const words = (text: string): string => text.replace(/[_\-./]+/g, " ")

export const taskProperties = (trace: NormalizedTrace): { risk: Level; complexity: Level; reversibility: Level } => {
  const calls = trace.events.filter((event) => event.kind === "tool_call")
  const actions = calls.map((event) => words(`${event.tool ?? ""} ${event.content}`))
  const irreversible = actions.some((text) => IRREVERSIBLE.test(text))
  const writes = actions.some((text) => WRITES.test(text))
  const agents = new Set(trace.events.filter((event) => event.role === "agent").map((event) => event.actor)).size
  const tools = new Set(calls.map((event) => event.tool ?? event.actor)).size
  const complexity: Level = agents >= 3 || tools >= 5 || trace.events.length > 40
    ? "high"
    : agents >= 2 || tools >= 2 || trace.events.length > 12
    ? "medium"
    : "low"
  return irreversible
    ? { risk: "high", complexity, reversibility: "low" }
    : writes
    ? { risk: "medium", complexity, reversibility: "medium" }
    : { risk: "low", complexity, reversibility: "high" }
}

const agentNames = (trace: NormalizedTrace): Array<string> => {
  const acting = trace.events.filter((event) => event.role === "agent").map((event) => event.actor)
  const names = Array.from(new Set([...trace.agents, ...acting])).filter((name) => name.trim().length > 0)
  return names.length > 0 ? names : ["agent"]
}

/** The actor a step is attributed to: a tool's events go to the agent that called the tool. */
const attribute = (events: ReadonlyArray<TraceEvent>): Array<string> => {
  const caller = new Map<string, string>()
  let lastCaller: string | undefined
  return events.map((event) => {
    if (event.kind === "tool_call" && event.role === "agent") {
      caller.set(event.tool ?? event.actor, event.actor)
      lastCaller = event.actor
    }
    const tool = event.tool ?? event.actor
    const actor = event.role === "tool" ? caller.get(tool) ?? lastCaller ?? event.actor : event.actor
    return actor.trim().length > 0 ? actor : event.role
  })
}

export const deriveFromTrace: DeriveFromTrace = (trace) => {
  const agents = agentNames(trace)
  const subAgents = agents.length > 1 ? agents.slice(1) : agents
  const subSet = new Set(subAgents)
  const actors = attribute(trace.events)
  const steps = trace.events.map((event, i) => {
    const actor = actors[i] ?? event.actor
    const concerns = event.kind === "handoff" && event.to !== undefined && subSet.has(event.to)
      ? event.to
      : subSet.has(actor)
      ? actor
      : event.to !== undefined && subSet.has(event.to)
      ? event.to
      : undefined
    return {
      type: event.kind,
      content: event.content,
      actor,
      ...(concerns === undefined ? {} : { sub_agent: concerns }),
      ...(event.tool === undefined || event.tool.length === 0 ? {} : { tool: event.tool }),
      ...(event.timestamp === undefined || event.timestamp.length === 0 ? {} : { timestamp: event.timestamp })
    }
  })
  const sources = new Map<string, string>()
  // Each agent's events from one pass over the trace (a pass per agent was quadratic, issue 27).
  const activity = actorActivity(trace)
  const subAgentList = subAgents.map((name, i) => {
    const own = activity.get(name)
    if (own !== undefined) sources.set(`sub_agents[${i}]`, own.first.source)
    return { name, role: agentRoleText(own) }
  })
  return { fields: { steps, sub_agents: subAgentList, task_properties: taskProperties(trace) }, sources }
}
