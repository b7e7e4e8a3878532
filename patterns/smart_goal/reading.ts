/**
 * SMART goal from a raw trace: the run's task is the goal to sharpen. `vague_goal` is the task,
 * verbatim; `context` is the system prompt, verbatim, when the trace has one, else what the run
 * shows of the system (its agents and the tools they called); `constraints` are the system
 * prompt's sentences that state a limit (as grpi reads them); `deadline_hint` is a time phrase in
 * the task ("by Friday", "before the Q3 review", "within 2 days"), verbatim, when there is one.
 */
import type { DeriveFromTrace } from "../../src/Traces/Reading.js"
import { constraintSentences } from "../grpi/reading.js"

export const DEADLINE_HINT =
  /\b(by (?:the )?(?:end of (?:the )?)?(?:mon|tues|wednes|thurs|fri|satur|sun)day|by (?:the )?end of (?:the )?(?:day|week|month|quarter|year|sprint)|by (?:eod|eow|eom)|by \d{4}-\d{2}-\d{2}|before (?:the )?[\w-]+(?: [\w-]+){0,3} (?:review|release|launch|deadline|meeting|demo)|within \d+ (?:minutes?|hours?|days?|weeks?|months?)|next (?:week|sprint|month|quarter)|this (?:week|sprint|month|quarter)|tomorrow|today|asap)\b/i

export const deriveFromTrace: DeriveFromTrace = (trace, base) => {
  const sources = new Map<string, string>()
  const task = base.input["task"]
  const goal = typeof task === "string" && task.trim().length > 0 ? task : "(the trace states no task)"
  const taskSource = base.sources.get("task")
  if (taskSource !== undefined) sources.set("vague_goal", taskSource)
  const system = trace.events.find((event) => event.role === "system" && event.content.trim().length > 0)
  if (system !== undefined) sources.set("context", system.source)
  const tools = Array.from(new Set(trace.events.flatMap((event) => (event.kind === "tool_call" && event.tool !== undefined ? [event.tool] : []))))
  const agents = trace.agents.length > 0 ? trace.agents.join(", ") : "one agent"
  const context = system?.content ??
    `From the trace (no system prompt): agents ${agents}; tools called: ${tools.length > 0 ? tools.join(", ") : "none"}.`
  const constraints = constraintSentences(trace)
  constraints.forEach((c, i) => sources.set(`constraints[${i}]`, c.event.source))
  const deadline = goal.match(DEADLINE_HINT)?.[0]
  return {
    fields: {
      vague_goal: goal,
      context,
      ...(constraints.length === 0 ? {} : { constraints: constraints.map((c) => c.text) }),
      ...(deadline === undefined ? {} : { deadline_hint: deadline })
    },
    sources
  }
}
