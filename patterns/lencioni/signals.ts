/**
 * Lencioni signals. The five dysfunctions form a pyramid: absence of trust (no admitted mistakes or
 * requests for help, problems glossed over), fear of conflict (agreement without challenge:
 * artificial harmony), lack of commitment (hedged plans, no decision), avoidance of accountability
 * (nobody checks a peer's delivery against what was agreed), inattention to results (members report
 * their own part done while the team result is unmet). Each level leaves lexical traces in a
 * message log; the signals count them per level so the model can weigh them against the content.
 */
import type { Signals } from "../../src/Catalogue/Detection.js"
import {
  countBy,
  errorIndices,
  gini,
  type Highlight,
  ratio,
  repeatedIndices,
  shares,
  signals
} from "../../src/Catalogue/SignalKit.js"

export interface LencioniTrace {
  readonly agents: ReadonlyArray<string>
  readonly messages: ReadonlyArray<{
    readonly from: string
    readonly content: string
    readonly to?: string | undefined
    readonly type?: string | undefined
  }>
}

export const MARKERS = {
  vulnerability: /\b(i was wrong|my (mistake|bad|error)|i made (a|an) (mistake|error)|i('m| am) not sure|i don'?t know|i need help|can (you|someone|anyone) (check|help|review)|correction:|i missed|i got (this|that|it) wrong)\b/i,
  concealment: /\b(minor (issue|warning|error|glitch)s?|a few (minor )?(warning|error|issue)s?|nothing (serious|major|to worry about)|should be fine|probably (fine|nothing|just)|ignore (the|that|those) (warning|error)s?|not (a|an) (real )?(problem|issue|concern)|no need to (mention|flag|worry))\b/i,
  challenge: /\b(i disagree|that('s| is) (wrong|incorrect|not right)|are you sure|why (did|do|would) (you|we)|what about|counter[- ]?example|objection|this (fails|breaks|won'?t work)|does(n'?| no)t (work|hold|pass|match)|i('d| would) push back|doesn'?t add up)\b/i,
  agreement: /(\b(agree[ds]?|sounds (good|great)|lgtm|looks good|great (idea|work|job)|perfect|love it|makes sense|nice work)\b|(^|\s)\+1\b)/i,
  commitment: /\b(we will|i will (do|deliver|own|fix|handle|have|ship)|decided|decision:|final:|let'?s go with|we('re| are) going with|agreed:|owner:|i('ll| will) own|by (eod|tomorrow|monday|tuesday|wednesday|thursday|friday))\b/i,
  hedge: /\b(maybe|perhaps|we could|might|possibly|tbd|let'?s see|at some point|we'?ll see|circle back|revisit (it |this |that )?later|not sure yet)\b/i,
  accountability: /\b(you (said|agreed|committed)|as agreed|still (missing|not done|failing|open)|you didn'?t|following up|follow up on|where (is|are) (the|your)|missed (the|your)|not done yet|overdue|against the (target|goal|criteria))\b/i,
  self_focus: /\b(my (part|task|piece|step|work|side) is (done|complete|finished)|(task|part|step) (is )?(done|complete|finished) (from|on) my side|i did my (part|job)|not my (problem|job|area|responsibility)|out of (my )?scope|that'?s on \w+|(finished|done|complete) on my side)\b/i,
  results: /\b(tests? (pass|fail)\w*|passing|failing|accuracy|latency|error rate|metric|kpi|goal|target|deadline|customer|user impact|revenue|sla|row counts?|\d+(\.\d+)?\s?%)\b/i
} as const

export type MarkerName = keyof typeof MARKERS

/** Indices of messages whose content carries the given marker. */
export const markerIndices = (messages: LencioniTrace["messages"], name: MarkerName): Array<number> =>
  messages.flatMap((m, i) => (MARKERS[name].test(m.content) ? [i] : []))

export const lencioniSignals = (trace: LencioniTrace): Signals => {
  const messages = trace.messages
  const found = {
    vulnerability: markerIndices(messages, "vulnerability"),
    concealment: markerIndices(messages, "concealment"),
    challenge: markerIndices(messages, "challenge"),
    agreement: markerIndices(messages, "agreement"),
    commitment: markerIndices(messages, "commitment"),
    hedge: markerIndices(messages, "hedge"),
    accountability: markerIndices(messages, "accountability"),
    self_focus: markerIndices(messages, "self_focus"),
    results: markerIndices(messages, "results")
  }
  const errors = errorIndices(messages)
  const repeats = repeatedIndices(messages.map((m) => m.content))
  const perAgent = countBy(messages, (m) => m.from)
  const participation = trace.agents.map((agent) => perAgent[agent] ?? 0)

  const questions = messages.flatMap((m, i) => (m.content.includes("?") ? [i] : []))
  const team = new Set(trace.agents)
  // Each sender's last message: a question is answered when its addressee speaks after it (a
  // search of the rest of the log per question was questions × messages, issue 27).
  const lastFrom = new Map<string, number>()
  messages.forEach((m, i) => lastFrom.set(m.from, i))
  const unanswered = questions.filter((i) => {
    const to = messages[i]?.to
    if (to === undefined || !team.has(to)) return false
    return (lastFrom.get(to) ?? -1) <= i
  })
  const tail = messages.slice(-2)
  const harmonyBase = found.agreement.length + found.challenge.length
  const commitmentBase = found.commitment.length + found.hedge.length

  const highlights: Array<Highlight> = [
    ...found.concealment.map((i) => ({ ref: `messages[${i}]`, reason: "glosses over a problem (trust)" })),
    ...(found.challenge.length === 0
      ? found.agreement.map((i) => ({ ref: `messages[${i}]`, reason: "agreement with no challenge anywhere in the log (conflict)" }))
      : []),
    ...found.hedge.map((i) => ({ ref: `messages[${i}]`, reason: "hedged plan or deferred decision (commitment)" })),
    ...unanswered.map((i) => ({ ref: `messages[${i}]`, reason: "question its addressee never answered (accountability)" })),
    ...found.self_focus.map((i) => ({ ref: `messages[${i}]`, reason: "reports own part done, not the team result (results)" })),
    ...errors.map((i) => ({ ref: `messages[${i}]`, reason: "reads as an error" }))
  ]

  return signals(
    {
      message_count: messages.length,
      agent_count: trace.agents.length,
      messages_per_agent: perAgent,
      message_share: shares(perAgent),
      silent_agents: trace.agents.filter((agent) => (perAgent[agent] ?? 0) === 0),
      participation_gini: gini(participation),
      vulnerability_messages: found.vulnerability.length,
      concealment_messages: found.concealment.length,
      challenge_messages: found.challenge.length,
      agreement_messages: found.agreement.length,
      harmony_ratio: harmonyBase === 0 ? null : ratio(found.agreement.length, harmonyBase),
      commitment_messages: found.commitment.length,
      hedge_messages: found.hedge.length,
      commitment_ratio: commitmentBase === 0 ? null : ratio(found.commitment.length, commitmentBase),
      ends_with_decision: tail.some((m) => MARKERS.commitment.test(m.content)),
      accountability_messages: found.accountability.length,
      questions: questions.length,
      unanswered_questions: unanswered.length,
      self_focus_messages: found.self_focus.length,
      results_messages: found.results.length,
      results_share: ratio(found.results.length, messages.length),
      error_messages: errors.length,
      repeated_messages: repeats.length
    },
    highlights
  )
}
