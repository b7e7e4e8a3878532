/**
 * `handoff_ping_pong` (DECISIONS §23): two agents hand the run back and forth (A→B, B→A, A→B, ...)
 * at least `min_exchanges` times with nothing new between two handoffs: no tool result, and no
 * message, whose text was not already in the trace. Agents' names compare loosely (Handoffs.ts).
 * The result of a call a handoff answers (a `transfer_to_…` tool's `{"assistant": "Billing agent"}`)
 * is the handoff itself, not news. A result or message without text (a content-free trace) counts
 * as new: what cannot be compared never makes a loop.
 */
import type { Check, RawFinding } from "./Check.js"
import { listEvents, textKey } from "./Errors.js"
import { agentKey, callsHandedOff } from "./Handoffs.js"

interface Chain {
  readonly indices: Array<number>
  readonly first: string
  readonly second: string
  from: string
  to: string
}

export const handoffPingPong: Check = {
  id: "handoff_ping_pong",
  title: "Two agents handed the run back and forth",
  severity: "medium",
  rule:
    "The same two agents handed off to each other in alternation at least `min_exchanges` times in a row with no new tool result (a transfer tool's own result is the handoff's) or new message text between two handoffs.",
  reads: "structure",
  playbooks: ["span_of_control/broken_lines.reporting_cycle", "org_structure/adhocracy.no_decider", "grpi/roles_gap.overlapping_roles"],
  fingerprint: ["agent", "error_class"],
  thresholds: {
    min_exchanges: { default: 4, minimum: 3, description: "Handoffs back and forth between the same two agents, with nothing new between them, that make a ping-pong." }
  },
  run: (view, settings) => {
    const minExchanges = Math.max(3, settings.threshold("min_exchanges"))
    // fewer handoffs than a ping-pong needs: nothing to read (most traces have none)
    if (view.countOf("handoff") < minExchanges) return []
    // the results of the calls a handoff answers (the Agents SDK's transfer_to_… returning `{"assistant": …}`) are the handoff's own echo, not news
    const handedOff = view.countOf("tool_call") === 0 ? new Set<number>() : callsHandedOff(view)
    const echoes = new Set<number>()
    if (handedOff.size > 0) {
      view.eachCall((call) => {
        if (call.call !== undefined && handedOff.has(call.call)) for (const answer of call.answers) echoes.add(answer)
      })
    }
    const seen = new Set<string>()
    const findings: Array<RawFinding> = []
    let chain: Chain | undefined
    const close = () => {
      if (chain !== undefined && chain.indices.length >= minExchanges) findings.push(findingOf(chain))
      chain = undefined
    }
    view.scan((event, index) => {
      if (event.kind === "handoff" && event.role === "agent" && event.to !== undefined) {
        const from = agentKey(event.actor)
        const to = agentKey(event.to)
        if (chain !== undefined && from === chain.to && to === chain.from) {
          chain.indices.push(index)
          chain.from = from
          chain.to = to
          return
        }
        close()
        chain = { indices: [index], first: event.actor, second: event.to, from, to }
        return
      }
      if (echoes.has(index)) return
      const text = event.content.trim()
      const isResult = event.kind === "tool_result" && !view.failed(index)
      // a system prompt coming back with its agent is not a result
      if (!isResult && !(event.kind === "message" && (event.role === "agent" || event.role === "user"))) return
      const key = `${isResult ? `result:${event.tool ?? event.actor}` : "message"}\u0000${textKey(text)}`
      // new text is progress; a result or message without text cannot be compared, so it counts as new
      if (text.length === 0 || !seen.has(key)) {
        if (text.length > 0) seen.add(key)
        close()
      }
    })
    close()
    return findings
  }
}

const findingOf = (chain: Chain): RawFinding => {
  const [first, second, ...rest] = chain.indices
  const order = second === undefined ? chain.indices : [second, ...(first === undefined ? [] : [first]), ...rest]
  return {
    cites: order.slice(0, 12).map((event) => ({ event })),
    explanation: `${chain.first} and ${chain.second} handed the run to each other ${chain.indices.length} times in a row (${listEvents(chain.indices)}) with no new result or message in between.`,
    errorClass: [agentKey(chain.first), agentKey(chain.second)].sort().join("<->"),
    agent: chain.first
  }
}
