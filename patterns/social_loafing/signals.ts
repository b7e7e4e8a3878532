/**
 * Social loafing signals (Latané, Williams & Harkins 1979; Karau & Williams 1993). Loafing is
 * reduced individual effort in collective work, strongest when individual contributions are pooled
 * and not identifiable. In a message log it shows as members far below an even share of the
 * substantive work, approvals without content (rubber stamps), restatements of others' messages
 * (echoes), deferrals ("I'll leave that to ..."), and members whose effort falls over the run
 * after others coast (Kerr's sucker effect). Shares are computed over the listed team members;
 * senders outside the list (orchestrator, user) are reported separately.
 */
import type { Signals } from "../../src/Catalogue/Detection.js"
import { gini, type Highlight, ratio, round, signals, similarToEarlier, wordCount } from "../../src/Catalogue/SignalKit.js"

export interface SocialLoafingTrace {
  readonly agents: ReadonlyArray<string>
  readonly messages: ReadonlyArray<{ readonly from: string; readonly content: string }>
}

const STOPWORDS = new Set([
  "the", "and", "for", "with", "from", "that", "this", "into", "our", "your", "its", "are", "was", "were",
  "will", "has", "have", "had", "any", "all", "than", "then", "them", "they", "their", "who", "what",
  "when", "which", "also", "not", "but", "can", "may", "should", "must", "just", "you", "now"
])

const tokens = (text: string): Set<string> =>
  new Set(
    text
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter((word) => word.length >= 3 && !STOPWORDS.has(word))
      .map((word) => word.slice(0, 5))
  )

const overlap = (a: ReadonlySet<string>, b: ReadonlySet<string>): number => {
  if (a.size === 0 && b.size === 0) return 0
  let shared = 0
  for (const token of a) if (b.has(token)) shared += 1
  return shared / (a.size + b.size - shared)
}

const AGREE = /(\b(lgtm|looks (good|fine|great|ok)|sounds (good|great|fine)|agree[ds]?|approved?|ship it|same here|nothing to add|no objections?|fine by me|works for me|go ahead|all good)\b|(^|\s)\+1\b)/i
const DEFER = /\b(as \w+ (said|mentioned|noted|wrote)|i('ll| will) leave (that|it|this) to|someone else|whoever|i defer|up to you|your call|over to you|not my (area|job|part|call)|i('ll| will) let \w+ (handle|decide|check))\b/i

const BARE_ACK = /^(ok(ay)?|k|yes|yep|sure|done|noted|thanks?( you)?|ack(nowledged)?|👍)[.!]*$/i

/** A short message whose only content is approval or agreement. */
export const isAgreementOnly = (content: string): boolean =>
  BARE_ACK.test(content.trim()) || (wordCount(content) <= 12 && AGREE.test(content))

/** A message that defers the work to someone else. */
export const isDeferral = (content: string): boolean => DEFER.test(content)

export const socialLoafingSignals = (trace: SocialLoafingTrace): Signals => {
  const team = [...new Set(trace.agents)]
  const members = new Set(team)
  const messages = trace.messages

  const agreementOnly: Array<number> = []
  const deferrals: Array<number> = []
  const echoes: Array<number> = []
  const substantive = new Set<number>()
  const tokenSets = messages.map((m) => tokens(m.content))
  const messageWords = messages.map((m) => wordCount(m.content))
  // An echo restates an earlier message of another sender (found by prefix filtering, SignalKit).
  const echoed = similarToEarlier(tokenSets, 0.6, overlap, {
    probe: (i) => (tokenSets[i]?.size ?? 0) >= 4,
    owner: (i) => messages[i]?.from ?? ""
  })
  messages.forEach((message, i) => {
    const words = messageWords[i] ?? 0
    const echo = echoed[i] === true
    const agree = isAgreementOnly(message.content)
    const defer = isDeferral(message.content)
    if (agree) agreementOnly.push(i)
    if (defer) deferrals.push(i)
    if (echo) echoes.push(i)
    if (!agree && !echo && !(defer && words <= 20) && words > 0) substantive.add(i)
  })

  const counts = (predicate: (i: number) => boolean, weight: (i: number) => number) => {
    const out: Record<string, number> = {}
    for (const agent of team) out[agent] = 0
    messages.forEach((m, i) => {
      if (members.has(m.from) && predicate(i)) out[m.from] = (out[m.from] ?? 0) + weight(i)
    })
    return out
  }
  const words = (i: number) => messageWords[i] ?? 0
  const messageCounts = counts(() => true, () => 1)
  const wordCounts = counts(() => true, words)
  const substantiveWords = counts((i) => substantive.has(i), words)
  const share = (table: Record<string, number>) => {
    const total = Object.values(table).reduce((a, b) => a + b, 0)
    const out: Record<string, number> = {}
    for (const agent of team) out[agent] = ratio(table[agent] ?? 0, total)
    return out
  }
  const messageShare = share(messageCounts)
  const wordShare = share(wordCounts)
  const substantiveShare = share(substantiveWords)

  const expected = team.length === 0 ? 0 : round(1 / team.length)
  const loafers = team.length < 2 ? [] : team.filter((agent) => (substantiveShare[agent] ?? 0) < 0.5 * expected)
  const silent = team.filter((agent) => (messageCounts[agent] ?? 0) === 0)
  // Per sender in one pass (a pass per member was members × messages): whether any message of
  // theirs has content of its own.
  const stamped = new Set([...agreementOnly, ...deferrals])
  const ownContent = new Set<string>()
  messages.forEach((m, i) => {
    if (!stamped.has(i)) ownContent.add(m.from)
  })
  const rubberStampers = team.filter((agent) => (messageCounts[agent] ?? 0) > 0 && !ownContent.has(agent))
  const ranked = [...team].sort((a, b) => (substantiveShare[b] ?? 0) - (substantiveShare[a] ?? 0))
  const top = ranked[0] ?? null

  // Effort over the run: words in the second half of the log against the first half, per member.
  const half = Math.ceil(messages.length / 2)
  const halves = new Map<string, { first: number; second: number }>()
  messages.forEach((m, i) => {
    if (!members.has(m.from)) return
    const sums = halves.get(m.from) ?? { first: 0, second: 0 }
    halves.set(m.from, sums)
    if (i < half) sums.first += messageWords[i] ?? 0
    else sums.second += messageWords[i] ?? 0
  })
  const trend: Record<string, number | null> = {}
  for (const agent of team) {
    const { first, second } = halves.get(agent) ?? { first: 0, second: 0 }
    trend[agent] = first === 0 ? null : ratio(second, first)
  }

  const outside = [...new Set(messages.map((m) => m.from).filter((from) => !members.has(from)))]
  const highlights: Array<Highlight> = [
    ...agreementOnly.map((i) => ({ ref: `messages[${i}]`, reason: "approval or agreement with no content of its own" })),
    ...deferrals.map((i) => ({ ref: `messages[${i}]`, reason: "defers the work to another member" })),
    ...echoes.map((i) => ({ ref: `messages[${i}]`, reason: "restates an earlier message by another member" }))
  ]

  return signals(
    {
      team_size: team.length,
      message_count: messages.length,
      team_messages: messages.filter((m) => members.has(m.from)).length,
      outside_senders: outside,
      messages_per_agent: messageCounts,
      words_per_agent: wordCounts,
      message_share: messageShare,
      word_share: wordShare,
      substantive_share: substantiveShare,
      expected_share: expected,
      loafing_agents: loafers,
      silent_agents: silent,
      rubber_stamp_agents: rubberStampers,
      agreement_only_messages: agreementOnly.length,
      deferral_messages: deferrals.length,
      echo_messages: echoes.length,
      substantive_messages: substantive.size,
      contribution_gini: gini(team.map((agent) => substantiveWords[agent] ?? 0)),
      top_contributor: top,
      top_contributor_share: top === null ? 0 : (substantiveShare[top] ?? 0),
      effort_trend: trend
    },
    highlights
  )
}
