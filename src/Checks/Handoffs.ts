/**
 * Handoffs as the checks read them: agents' names compared loosely (`Billing agent`,
 * `billing_agent` and `billing-agent` are one agent; `Codebase Navigator` is answered by
 * `Navigator`), and the tool calls a handoff answers (a
 * `transfer_to_…` tool whose effect is the handoff, with no result of its own).
 */
import type { TraceView } from "./View.js"

/** An agent's name in one spelling: lower case, runs of anything but letters and digits as one `_`. */
export const agentKey = (name: string): string =>
  name
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, "_")
    .replace(/^_|_$/g, "")

/** Last words that name no agent on their own (`billing_agent` is not `agent`). */
const GENERIC: ReadonlySet<string> = new Set(["agent", "assistant", "ai", "bot", "model", "llm", "expert", "team"])

/**
 * An agent's key and its shorter forms, dropping words from the left (`codebase_navigator`,
 * `navigator`), generic words alone left out: a handoff to `Codebase Navigator` is answered by
 * `Navigator`, as MAST's HyperAgent traces name them.
 */
export const agentKeysOf = (key: string): ReadonlyArray<string> => {
  const words = key.split("_")
  const keys: Array<string> = [key]
  // a name is a few words: past six, only its last six make shorter forms
  for (let start = Math.max(1, words.length - 6); start < words.length; start++) {
    const shorter = words.slice(start).join("_")
    if (shorter.length > 0 && !GENERIC.has(shorter)) keys.push(shorter)
  }
  return keys
}

const NONE: ReadonlySet<number> = new Set()

/** The tool calls of an agent that a handoff of the same agent follows with no message of that agent between: the handoff is their answer. */
export const callsHandedOff = (view: TraceView): ReadonlySet<number> => {
  // without handoffs (most traces) no call is handed off, and nothing is read
  if (view.countOf("handoff") === 0) return NONE
  const handedOff = new Set<number>()
  const lastCall = new Map<string, number>()
  view.scan((event, index) => {
    if (event.role !== "agent") return
    if (event.kind === "tool_call") lastCall.set(event.actor, index)
    else if (event.kind === "message") lastCall.delete(event.actor)
    else if (event.kind === "handoff") {
      const call = lastCall.get(event.actor)
      if (call !== undefined) handedOff.add(call)
      lastCall.delete(event.actor)
    }
  })
  return handedOff
}
