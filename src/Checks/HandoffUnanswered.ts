/**
 * `handoff_unanswered` (DECISIONS §23): an agent handed the run to another (a `handoff` event with
 * `to`) that never acted afterwards: no event of the receiver follows (names compared loosely:
 * Handoffs.ts), and no result came back from outside the trace's own calls before the sender acted
 * again (a delegate recorded as one observation, as OpenHands records its delegates). Medium when
 * the run went on without the receiver, or ended (its status known); low when the handoff is the
 * trace's last event and the trace does not say it ended (a run that stopped there, or a recording
 * cut short: the trace cannot tell). Silent when only events of no agent follow it (a spawned
 * sub-agent's acknowledgement, its work in a trace of its own). A sub-agent recorded in a trace of
 * its own still looks unanswered when its sender goes on (docs/checks.md).
 */
import type { Check, RawFinding } from "./Check.js"
import { firstWordsOf, listEvents } from "./Errors.js"
import { agentKey, agentKeysOf } from "./Handoffs.js"
import { hasText } from "./View.js"

interface Handoff {
  readonly index: number
  readonly from: string
  readonly to: string
  readonly toKey: string
  answered: boolean
}

export const handoffUnanswered: Check = {
  id: "handoff_unanswered",
  title: "A handoff went to an agent that never acted",
  severity: "medium",
  rule:
    "A handoff names a receiving agent that has no event after it, no result came back to the sender from outside its own calls, and the run went on without the receiver or ended; low when the trace ends on the handoff without saying the run ended.",
  reads: "structure",
  playbooks: ["span_of_control/broken_lines.missing_manager", "grpi/process_gap.no_handoff_contract", "goleman_ei/relationship_management_gap.missing_handoff"],
  fingerprint: ["agent", "error_class"],
  run: (view) => {
    // a trace without handoffs (most) has nothing to read
    if (view.countOf("handoff") === 0) return []
    // results whose call the trace does not hold: what a delegate sends back, recorded as an observation
    const orphans = new Set<number>()
    view.eachCall((call) => {
      if (call.call === undefined) for (const answer of call.answers) orphans.add(answer)
    })
    const lastActed = new Map<string, number>()
    const handoffs: Array<Handoff> = []
    // handoffs whose sender has not acted since, by sender
    const waiting = new Map<string, Array<Handoff>>()
    let lastAgent = -1
    // an actor's keys, worked out once per name (the names are few, the events many)
    const keysOf = new Map<string, { readonly key: string; readonly all: ReadonlyArray<string> }>()
    const keyed = (actor: string) => {
      const known = keysOf.get(actor)
      if (known !== undefined) return known
      const key = agentKey(actor)
      const made = { key, all: agentKeysOf(key) }
      keysOf.set(actor, made)
      return made
    }
    view.scan((event, index) => {
      if (orphans.has(index) && !view.failed(index)) {
        for (const pending of waiting.values()) for (const handoff of pending) handoff.answered = true
        waiting.clear()
      }
      if (event.role === "agent" || event.role === "user") {
        const { key, all } = keyed(event.actor)
        for (const each of all) lastActed.set(each, index)
        if (event.role === "agent") lastAgent = index
        waiting.delete(key)
      }
      if (event.kind !== "handoff" || event.role !== "agent" || event.to === undefined) return
      const toKey = agentKey(event.to)
      if (toKey.length === 0 || toKey === agentKey(event.actor)) return
      const handoff: Handoff = { index, from: event.actor, to: event.to, toKey, answered: false }
      handoffs.push(handoff)
      const fromKey = agentKey(event.actor)
      const pending = waiting.get(fromKey)
      if (pending === undefined) waiting.set(fromKey, [handoff])
      else pending.push(handoff)
    })
    const ended = view.trace.success !== null
    const byReceiver = new Map<string, Array<Handoff>>()
    for (const handoff of handoffs) {
      if (handoff.answered || agentKeysOf(handoff.toKey).some((key) => (lastActed.get(key) ?? -1) > handoff.index)) continue
      // events after it, and none of an agent: the run went on in a place this trace does not record (a sub-agent's own trace)
      if (lastAgent <= handoff.index && !ended && handoff.index < view.length - 1) continue
      const same = byReceiver.get(handoff.toKey)
      if (same === undefined) byReceiver.set(handoff.toKey, [handoff])
      else same.push(handoff)
    }
    const findings: Array<RawFinding> = []
    for (const [toKey, unanswered] of byReceiver) {
      const [first] = unanswered
      if (first === undefined) continue
      const event = view.at(first.index)
      const said = event !== undefined && hasText(event) ? ` ("${firstWordsOf(event.content, 80)}")` : ""
      const wentOn = lastAgent > first.index
      const after = wentOn
        ? `the run went on to events[${lastAgent}] without it`
        : ended
          ? "the run ended there"
          : "the trace ends there and does not say whether the run ended or its recording was cut short"
      findings.push({
        cites: unanswered.slice(0, 12).map((handoff) => ({ event: handoff.index })),
        explanation: `${first.from} handed off to ${first.to} at ${listEvents(unanswered.map((handoff) => handoff.index))}${said}, and ${first.to} never acted afterwards (no event of it, no result back); ${after}.`,
        // the trace cannot tell a run that stopped on the handoff from a recording cut short
        severity: wentOn || ended ? undefined : "low",
        errorClass: toKey,
        agent: first.from
      })
    }
    return findings
  }
}
