/**
 * Deterministic many-agent traces (issue 27), shared by bench/agents.ts and
 * test/diagnose/linear.test.ts: the same number of events per agent at any agent count, so the
 * diagnose path's cost on 5,000 agents against 250 shows whether it grows with events or with
 * events × agents. Each fits the default limits (5,000 events, 1,000,000 characters, 5 MiB).
 */

/** A word per agent and message, so messages differ as real ones do (no two are echoes). */
const WORDS = ["ledger", "invoice", "refund", "audit", "schema", "deploy", "rollback", "metric", "budget", "review", "release", "quota"]
const wordOf = (n: number) => `${WORDS[n % WORDS.length] ?? "note"}${Math.floor(n / WORDS.length)}`

/**
 * An AutoGen 0.4 AgentChat group chat: `agents` speakers (agent_0 … agent_{n-1}), each speaking
 * `perAgent` TextMessages in rounds (the first states the task). Events: agents × perAgent.
 * `salt` ends the first message, so repeated requests are not identical bodies.
 */
export const autogenGroupChat = (agents: number, perAgent = 1, salt = "") => {
  const messages: Array<Record<string, string>> = []
  for (let round = 0; round < perAgent; round++) {
    for (let i = 0; i < agents; i++) {
      const n = round * agents + i
      messages.push({
        source: `agent_${i}`,
        type: "TextMessage",
        content: `Checked ${wordOf(n)} ${wordOf(n + 7)} ${wordOf(n + 13)} for team ${i}: ${n % 9 === 0 ? "needs review" : "matches"}${n === 0 ? salt : ""}`
      })
    }
  }
  return { messages }
}

/**
 * An OTLP/JSON export of `agents` nested agent spans (`invoke_agent agent_i`, each the child of
 * the one before, as a chain of sub-agents records): each span under a different agent is a
 * handoff, one event per agent. `salt` ends the service name.
 */
export const otelAgentChain = (agents: number, salt = "") => {
  const traceId = "7a1c0e5b2f9d4e8a9b3c6d0e1f2a3b4c"
  const hex = (n: number) => n.toString(16).padStart(16, "0")
  const at = (n: number) => String(1_700_000_000_000_000_000n + BigInt(n) * 1_000_000n)
  const spans = Array.from({ length: agents }, (_, i) => ({
    traceId,
    spanId: hex(i + 1),
    ...(i === 0 ? {} : { parentSpanId: hex(i) }),
    name: `invoke_agent agent_${i}`,
    kind: 1,
    startTimeUnixNano: at(i),
    endTimeUnixNano: at(2 * agents - i),
    attributes: [
      { key: "gen_ai.operation.name", value: { stringValue: "invoke_agent" } },
      { key: "gen_ai.agent.name", value: { stringValue: `agent_${i}` } }
    ],
    status: { code: 0 }
  }))
  return {
    resourceSpans: [{ resource: { attributes: [{ key: "service.name", value: { stringValue: `agent-chain${salt}` } }] }, scopeSpans: [{ scope: { name: "bench" }, spans }] }]
  }
}

const PHRASES = [
  "Checked the ledger rows for this team; two invoices do not match, see the attached totals?",
  "That's wrong, please fix the totals before you send them on.",
  "Looks good to me.",
  "I disagree: the refund was issued twice, because the retry ran after the timeout.",
  "I'll leave that to the next agent.",
  "Error 503 from ledger API on invoice lookup",
  "Sorry, my mistake, I have fixed it now and the refund has been processed.",
  "Can you clarify which quarter we are reconciling? I am not sure about the assumption.",
  "As agent_1 said, the invoice matches the ledger.",
  "I suggest we verify the schema with a test before we deploy and merge.",
  "ok",
  "We decided to approve the rollback; the review found three issues with the release."
]

/**
 * A normalized trace with every kind of event, many cues at once (questions, feedback, pushback,
 * errors, deferrals, handoffs, tool calls and results, user turns, system prompts) over `agents`
 * agents, `perAgent` events each: the texts the patterns' signals look for, at any scale.
 */
export const mixedRun = (agents: number, perAgent = 2) => {
  const events: Array<{
    actor: string
    role: "user" | "agent" | "system" | "tool"
    kind: "message" | "thought" | "tool_call" | "tool_result" | "error" | "handoff"
    content: string
    tool?: string
    to?: string
    timestamp: string
    source: string
  }> = []
  const total = agents * perAgent
  for (let n = 0; n < total; n++) {
    const actor = `agent_${n % agents}`
    const next = `agent_${(n * 7 + 1) % agents}`
    const phrase = `${PHRASES[n % PHRASES.length] ?? ""} (${wordOf(n)})`
    const base = { timestamp: new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString(), source: `events[${n}]` }
    switch (n % 16) {
      case 0:
        events.push({ ...base, actor: "user", role: "user", kind: "message", content: phrase })
        break
      case 5:
        events.push({ ...base, actor: "system", role: "system", kind: "message", content: `You are ${actor}. You must not exceed the budget; never delete records. ${phrase}` })
        break
      case 3:
        events.push({ ...base, actor, role: "agent", kind: "tool_call", content: `{"invoice": ${n}}`, tool: n % 32 === 3 ? "delete_record" : "ledger_lookup" })
        break
      case 4:
        events.push({ ...base, actor: "ledger_lookup", role: "tool", kind: n % 3 === 0 ? "error" : "tool_result", content: phrase, tool: "ledger_lookup" })
        break
      case 7:
        events.push({ ...base, actor, role: "agent", kind: "handoff", content: `transfer to ${next}`, to: next })
        break
      case 9:
        events.push({ ...base, actor, role: "agent", kind: "thought", content: phrase })
        break
      case 11:
        events.push({ ...base, actor, role: "agent", kind: "error", content: phrase })
        break
      default:
        events.push({ ...base, actor, role: "agent", kind: "message", content: phrase, ...(n % 5 === 0 ? { to: next } : {}) })
    }
  }
  const seen = new Set<string>()
  const names = events.flatMap((event) => (event.role === "agent" && !seen.has(event.actor) && seen.add(event.actor) ? [event.actor] : []))
  return {
    id: null,
    task: events[0]?.content ?? "",
    outcome: events.at(-1)?.content ?? "",
    success: false,
    agents: names,
    events,
    skipped: 0
  }
}
