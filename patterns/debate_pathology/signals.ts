/**
 * Debate pathology signals: how positions move round by round (Janis's premature concurrence,
 * Stoner's choice shift, Sunstein's polarization) and how tones spread between agents (contagion).
 *
 * Position drift is defined on each agent's *standing position*: the last position it stated in
 * that round or any earlier one (carried forward, so an agent that skips a round keeps its view).
 * - changed_share_by_round[r]: share of agents with a standing position in round r-1 whose
 *   position in round r differs (0 for the first round).
 * - modal_share_by_round[r]: share of agents with a standing position holding the most common one.
 * - convergence: modal share in the last round minus modal share in the first.
 * - numeric positions (estimates, scores): choice_shift = final decision (or last-round mean) minus
 *   the first-round mean (Stoner's measure), and whether the result lies outside the first-round range.
 */
import type { Signals } from "../../src/Catalogue/Detection.js"
import { countBy, type Highlight, mean, normalise, ratio, round, signals } from "../../src/Catalogue/SignalKit.js"

export interface DebateMessage {
  readonly from: string
  readonly content: string
  readonly round: number
  readonly position?: string | undefined
  readonly tone?: string | undefined
}

export interface DebateTrace {
  readonly agents: ReadonlyArray<string>
  readonly messages: ReadonlyArray<DebateMessage>
  readonly final_decision: string
}

const NEUTRAL_TONES = new Set(["", "neutral", "calm", "factual", "informative", "measured"])
const CERTAINTY = /\b(definitely|certainly|clearly|obviously|absolutely|undoubtedly|must|never|always|guaranteed|no question|no doubt|without doubt|100%|critical|essential)\b/gi
const HEDGE = /\b(maybe|perhaps|might|could|possibly|unsure|not sure|uncertain|likely|probably|it depends|i think)\b/gi
const DISSENT = /\b(disagree|object|objection|concern|concerned|however|but i|counter|risk|wrong|not convinced|push back|doubt|caveat)\b/i
const AGREEMENT = /\b(agree|agreed|concur|\+1|good point|well said|exactly|same here|as \w+ said|i'm aligned|aligned with|fully support|seconded)\b/i

const count = (text: string, pattern: RegExp): number => (text.match(pattern) ?? []).length

/** Parses a numeric position ("0.7", "12%", "-3 days"); null when the text is not a number. */
export const numericValue = (text: string): number | null => {
  const match = /^\s*(-?\d+(?:\.\d+)?)\s*%?/.exec(text)
  return match?.[1] === undefined ? null : Number(match[1])
}

/** Most common value (ties broken by first occurrence in the given order); null when empty. */
const modal = (values: ReadonlyArray<string>): { value: string; count: number } | null => {
  const counts = countBy(values, (v) => v)
  let best: { value: string; count: number } | null = null
  for (const [value, n] of Object.entries(counts)) if (best === null || n > best.count) best = { value, count: n }
  return best
}

export const debateSignals = (trace: DebateTrace): Signals => {
  const messages = trace.messages
  const rounds = [...new Set(messages.map((m) => m.round))].sort((a, b) => a - b)
  // Each round's messages, in order, from one pass: a pass over every message per round was
  // rounds × messages, and a trace's turn-order rounds grow with its length (issue 27).
  const byRound = new Map<number, Array<number>>()
  messages.forEach((m, i) => {
    const list = byRound.get(m.round)
    if (list === undefined) byRound.set(m.round, [i])
    else list.push(i)
  })
  const inRound = (r: number): ReadonlyArray<number> => byRound.get(r) ?? []
  const highlights: Array<Highlight> = []

  // Standing positions per round (carried forward), in first-speaker order.
  const standing = new Map<string, string>()
  const original = new Map<string, string>()
  const snapshots: Array<Map<string, string>> = []
  const changes: Array<number> = []
  let previous = new Map<string, string>()
  let totalChanges = 0
  for (const r of rounds) {
    for (const i of inRound(r)) {
      const m = messages[i]
      if (m === undefined || m.position === undefined || m.position.trim() === "") continue
      const p = normalise(m.position)
      const before = standing.get(m.from)
      if (before !== undefined && before !== p) highlights.push({ ref: `messages[${i}]`, reason: `position changes from "${before}" to "${p}"` })
      standing.set(m.from, p)
      if (!original.has(m.from)) original.set(m.from, p)
    }
    const snapshot = new Map(standing)
    const comparable = [...previous.keys()]
    const changed = comparable.filter((agent) => snapshot.get(agent) !== previous.get(agent)).length
    totalChanges += changed
    changes.push(snapshots.length === 0 ? 0 : ratio(changed, comparable.length))
    snapshots.push(snapshot)
    previous = snapshot
  }

  const modes = snapshots.map((s) => modal([...s.values()]))
  const modalShares = snapshots.map((s, i) => ratio(modes[i]?.count ?? 0, s.size))
  const first = snapshots[0] ?? new Map<string, string>()
  const last = snapshots[snapshots.length - 1] ?? new Map<string, string>()
  const firstMode = modes[0]?.value ?? null
  const lastMode = modes[modes.length - 1]?.value ?? null
  const positioned = last.size
  const agentsChanged = [...last.entries()].filter(([agent, p]) => original.get(agent) !== p).length
  // Agents that opened in the first round against its majority and ended on the final majority.
  const minorityConverted = [...first.entries()].filter(
    ([agent, p]) => p !== firstMode && last.get(agent) === lastMode
  ).length

  // Numeric positions: Stoner's choice shift and the initial range.
  const numericFirst = [...first.values()].map(numericValue)
  const allNumeric =
    numericFirst.length > 0 && [...original.values(), ...last.values()].every((p) => numericValue(p) !== null)
  const firstValues = allNumeric ? numericFirst.flatMap((x) => (x === null ? [] : [x])) : []
  const firstMean = mean(firstValues)
  const lastMean = allNumeric ? mean([...last.values()].flatMap((p) => { const x = numericValue(p); return x === null ? [] : [x] })) : null
  const finalValue = allNumeric ? (numericValue(trace.final_decision) ?? lastMean) : null
  const choiceShift = firstMean === null || finalValue === null ? null : round(finalValue - firstMean)
  const outsideRange =
    finalValue === null || firstValues.length === 0
      ? null
      : finalValue < Math.min(...firstValues) || finalValue > Math.max(...firstValues)

  // Wording per round: certainty and hedging per message, dissent and agreement counts.
  const perRound = (f: (m: DebateMessage) => number) =>
    rounds.map((r) => mean(inRound(r).flatMap((i) => { const m = messages[i]; return m === undefined ? [] : [f(m)] })) ?? 0)
  const certainty = perRound((m) => count(m.content, CERTAINTY))
  const hedging = perRound((m) => count(m.content, HEDGE))
  const dissentIdx = messages.flatMap((m, i) => (DISSENT.test(m.content) ? [i] : []))
  const agreementIdx = messages.flatMap((m, i) => (AGREEMENT.test(m.content) ? [i] : []))
  dissentIdx.forEach((i) => highlights.push({ ref: `messages[${i}]`, reason: "voices dissent or a concern" }))

  // Tones: share of non-neutral tones per round, and adoption of a tone first used by another agent.
  const tones = messages.map((m) => normalise(m.tone ?? ""))
  const toneLabelled = tones.filter((t) => t.length > 0)
  const nonNeutralByRound = rounds.map((r) => {
    const toned = inRound(r).flatMap((i) => ((tones[i] ?? "").length > 0 ? [tones[i] ?? ""] : []))
    return ratio(toned.filter((t) => !NEUTRAL_TONES.has(t)).length, toned.length)
  })
  const origin = new Map<string, { agent: string; index: number; adopters: Set<string> }>()
  messages.forEach((m, i) => {
    const t = tones[i] ?? ""
    if (NEUTRAL_TONES.has(t)) return
    const seen = origin.get(t)
    if (seen === undefined) origin.set(t, { agent: m.from, index: i, adopters: new Set() })
    else if (m.from !== seen.agent) seen.adopters.add(m.from)
  })
  let source: { tone: string; agent: string; index: number; adopters: number } | null = null
  for (const [tone, o] of origin) {
    if (o.adopters.size > 0 && (source === null || o.adopters.size > source.adopters)) {
      source = { tone, agent: o.agent, index: o.index, adopters: o.adopters.size }
    }
  }
  if (source !== null) highlights.push({ ref: `messages[${source.index}]`, reason: `first "${source.tone}" tone, later taken up by ${source.adopters} other agent(s)` })
  const toneAdopters = [...origin.values()].reduce((n, o) => n + o.adopters.size, 0)

  const speakers = new Set(messages.map((m) => m.from))
  trace.agents.forEach((agent, i) => {
    if (!speakers.has(agent)) highlights.push({ ref: `agents[${i}]`, reason: "never speaks in the debate" })
  })
  const decision = normalise(trace.final_decision)

  return signals(
    {
      message_count: messages.length,
      round_count: rounds.length,
      rounds: rounds,
      messages_per_agent: countBy(messages, (m) => m.from),
      silent_agents: trace.agents.filter((a) => !speakers.has(a)).length,
      agents_with_positions: original.size,
      distinct_positions_by_round: snapshots.map((s) => new Set(s.values()).size),
      modal_position_by_round: modes.map((m) => m?.value ?? ""),
      modal_share_by_round: modalShares,
      changed_share_by_round: changes,
      total_position_changes: totalChanges,
      agents_changed: agentsChanged,
      convergence: round((modalShares[modalShares.length - 1] ?? 0) - (modalShares[0] ?? 0)),
      initial_unanimous: first.size >= 2 && modalShares[0] === 1,
      final_unanimous: positioned >= 2 && modalShares[modalShares.length - 1] === 1,
      majority_held: firstMode !== null && firstMode === lastMode,
      minority_converted: minorityConverted,
      final_decision_matches_majority: lastMode === null ? null : lastMode.length > 0 && decision.includes(lastMode),
      mean_position_by_round: allNumeric
        ? snapshots.map((s) => mean([...s.values()].flatMap((p) => { const x = numericValue(p); return x === null ? [] : [x] })) ?? 0)
        : [],
      choice_shift: choiceShift,
      final_outside_initial_range: outsideRange,
      certainty_by_round: certainty,
      hedging_by_round: hedging,
      certainty_shift: round((certainty[certainty.length - 1] ?? 0) - (certainty[0] ?? 0)),
      dissent_messages: dissentIdx.length,
      dissent_by_round: rounds.map((r) => dissentIdx.filter((i) => messages[i]?.round === r).length),
      agreement_messages: agreementIdx.length,
      agreement_share: ratio(agreementIdx.length, messages.length),
      tone_counts: countBy(toneLabelled, (t) => t),
      non_neutral_tone_share_by_round: nonNeutralByRound,
      tone_adopters: toneAdopters,
      contagion_source: source === null ? null : `${source.agent}:${source.tone}`
    },
    highlights
  )
}
