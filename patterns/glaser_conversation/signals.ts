/**
 * Glaser (2014) signals. Each party turn gets a heuristic conversation level from its moves:
 * Level III when it asks a discovery question or proposes building something together (share and
 * discover), Level II when it advocates, defends, pushes back or asks the other to agree (advocate
 * and inquire), Level I otherwise (tell and ask). Around the levels: the agent's questions (open
 * or closed) against its statements, restated positions, the counterpart's pushback and
 * impatience and what the agent did next, and the balance of "we" against "I" and "you".
 */
import type { Signals } from "../../src/Catalogue/Detection.js"
import { type Highlight, ratio, signals, wordCount } from "../../src/Catalogue/SignalKit.js"

export interface GlaserTrace {
  readonly turns: ReadonlyArray<{ readonly role: string; readonly content: string }>
}

export type ConversationLevel = "I" | "II" | "III"

const USER_ROLE = /^(user|human|customer|client|operator|requester)$/
const NON_PARTY = /^(system|tool|function|developer)$/

export const DISCOVERY =
  /(\bwhat (matters|would (success|good|help)|are you (trying|hoping)|problem are|decision|outcome)\b|\bwhat do you mean by\b|\bhelp me understand\b|\btell me more\b|\bhow do you see\b|\bwhat['’]?s (behind|driving)\b|\bwhat if we\b|\blet['’]?s (explore|figure|work out|map)\b|\bwe could\b|\btogether\b|\bbuild on\b)/i
export const ADVOCACY =
  /(\bi recommend\b|\bi suggest\b|\byou should\b|\byou need to\b|\bthe (best|right|correct|standard) (way|approach|answer|practice)\b|\bi insist\b|\bclearly\b|\bobviously\b|\btrust me\b|\bthe answer is\b|\bbest practice\b)/i
const POSITION_INQUIRY = /(\bdo you agree\b|\bwhat do you think\b|\bdon['’]?t you think\b|\bwouldn['’]?t you agree\b|\bdoes that make sense\b)/i
export const POSITIONAL =
  /(\bi disagree\b|\bthat['’]?s not (right|true|how|what)\b|\b(isn['’]?t|is not) (really )?what\b|\byou['’]?re wrong\b|\bas i (said|mentioned)\b|\bi already (said|told)\b|\bi don['’]?t think\b|\bdoesn['’]?t (settle|answer|address|solve|help)\b|\bno,)/i
const IMPATIENCE =
  /(\bjust (tell|give|answer|do)\b|\bsimple question\b|\bstop asking\b|\bi just (want|need)\b|\bget to the point\b|\btoo many questions\b|\byes or no\b)/i
const RESTATEMENT = /(\bas i (said|mentioned|explained)\b|\bagain,|\bto reiterate\b|\bi already (said|told|explained)\b)/i
const OPEN_QUESTION =
  /^(what|how|why|which|who|where|when|tell me|could you (describe|walk|explain)|can you (describe|walk|explain)|help me understand)\b/i
const WE = /\b(we|us|our|ours|let['’]?s)\b/gi
const I_WORDS = /\b(i|me|my|mine)\b/gi
const YOU = /\b(you|your|yours)\b/gi

const roleKey = (role: string): string => role.trim().toLowerCase()

/** The heuristic conversation level of one turn. */
export const turnLevel = (content: string): ConversationLevel =>
  DISCOVERY.test(content)
    ? "III"
    : ADVOCACY.test(content) || POSITION_INQUIRY.test(content) || POSITIONAL.test(content)
    ? "II"
    : "I"

/** Sentences of a turn, split after terminal punctuation. */
const sentences = (content: string): Array<string> =>
  content
    .split(/(?<=[.!?])\s+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0)

const LEVELS: ReadonlyArray<ConversationLevel> = ["I", "II", "III"]

/** Most frequent level; ties go to the lower level. Null for an empty list. */
export const dominantLevel = (levels: ReadonlyArray<ConversationLevel>): ConversationLevel | null => {
  let best: ConversationLevel | null = null
  let bestCount = 0
  for (const level of LEVELS) {
    const n = levels.filter((l) => l === level).length
    if (n > bestCount) {
      best = level
      bestCount = n
    }
  }
  return best
}

/** The dominant level of each third of the list (one entry per item when there are fewer than 3). */
export const levelPath = (levels: ReadonlyArray<ConversationLevel>): Array<ConversationLevel> => {
  if (levels.length <= 3) return [...levels]
  const size = levels.length / 3
  return [0, 1, 2].flatMap((k) => {
    const part = levels.slice(Math.round(k * size), Math.round((k + 1) * size))
    const level = dominantLevel(part)
    return level === null ? [] : [level]
  })
}

const countLevels = (levels: ReadonlyArray<ConversationLevel>): Record<string, number> => ({
  I: levels.filter((l) => l === "I").length,
  II: levels.filter((l) => l === "II").length,
  III: levels.filter((l) => l === "III").length
})

export const glaserSignals = (trace: GlaserTrace): Signals => {
  const turns = trace.turns.map((turn, i) => ({ ...turn, i, key: roleKey(turn.role) }))
  const parties = turns.filter((t) => !NON_PARTY.test(t.key))
  const counterpart = parties.find((t) => USER_ROLE.test(t.key))?.key ?? parties[0]?.key ?? null
  const counterpartRole = parties.find((t) => t.key === counterpart)?.role ?? null
  const agentTurns = parties.filter((t) => t.key !== counterpart)
  const counterpartTurns = parties.filter((t) => t.key === counterpart)

  const agentSentences = agentTurns.map((t) => sentences(t.content))
  const agentQuestionSentences = agentSentences.flat().filter((s) => s.endsWith("?"))
  const agentStatements = agentSentences.flat().length - agentQuestionSentences.length
  const openQuestions = agentQuestionSentences.filter((s) => OPEN_QUESTION.test(s)).length
  const askingTurns = agentTurns.filter((t) => t.content.includes("?"))

  const agentLevels = agentTurns.map((t) => turnLevel(t.content))
  const counterpartLevels = counterpartTurns.map((t) => turnLevel(t.content))
  const which = (list: typeof turns, re: RegExp) => list.filter((t) => re.test(t.content)).map((t) => t.i)
  const advocacy = which(agentTurns, ADVOCACY)
  const discovery = which(agentTurns, DISCOVERY)
  const restatements = which(agentTurns, RESTATEMENT)
  const pushback = which(counterpartTurns, POSITIONAL)
  const impatience = which(counterpartTurns, IMPATIENCE)

  /** The first agent turn after turn i, by binary search (a scan per pushback was quadratic, issue 27). */
  const nextAgentTurn = (i: number) => {
    let low = 0
    let high = agentTurns.length
    while (low < high) {
      const mid = (low + high) >> 1
      if ((agentTurns[mid]?.i ?? 0) <= i) low = mid + 1
      else high = mid
    }
    return agentTurns[low]
  }
  const pushbackWithQuestion = pushback.filter((i) => nextAgentTurn(i)?.content.includes("?") === true)
  const pushbackWithAdvocacy = pushback.flatMap((i) => {
    const next = nextAgentTurn(i)
    return next !== undefined && !next.content.includes("?") && (ADVOCACY.test(next.content) || RESTATEMENT.test(next.content))
      ? [next.i]
      : []
  })

  let longestWithoutQuestion = 0
  let run = 0
  for (const t of agentTurns) {
    run = t.content.includes("?") ? 0 : run + 1
    longestWithoutQuestion = Math.max(longestWithoutQuestion, run)
  }

  const agentText = agentTurns.map((t) => t.content).join(" ")
  const we = (agentText.match(WE) ?? []).length
  const iWords = (agentText.match(I_WORDS) ?? []).length
  const you = (agentText.match(YOU) ?? []).length
  const agentWords = agentTurns.reduce((n, t) => n + wordCount(t.content), 0)
  const partyWords = parties.reduce((n, t) => n + wordCount(t.content), 0)

  const ref = (i: number) => `turns[${i}]`
  const highlights: Array<Highlight> = [
    ...pushbackWithAdvocacy.map((i) => ({ ref: ref(i), reason: "agent advocates or restates after pushback without inquiring" })),
    ...pushback.map((i) => ({ ref: ref(i), reason: "counterpart pushes back: a signal to change level" })),
    ...impatience.map((i) => ({ ref: ref(i), reason: "counterpart asks for a direct answer: level may be too high" })),
    ...restatements.map((i) => ({ ref: ref(i), reason: "agent restates its position" })),
    ...discovery.map((i) => ({ ref: ref(i), reason: "agent asks a discovery question or proposes co-creation (Level III move)" }))
  ]

  return signals(
    {
      turn_count: trace.turns.length,
      counterpart_role: counterpartRole,
      agent_turns: agentTurns.length,
      counterpart_turns: counterpartTurns.length,
      agent_questions: agentQuestionSentences.length,
      agent_open_questions: openQuestions,
      agent_closed_questions: agentQuestionSentences.length - openQuestions,
      agent_question_turn_share: ratio(askingTurns.length, agentTurns.length),
      ask_tell_ratio: ratio(agentQuestionSentences.length, agentStatements),
      first_agent_question_turn: askingTurns[0]?.i ?? null,
      longest_agent_run_without_question: longestWithoutQuestion,
      counterpart_questions: counterpartTurns.filter((t) => t.content.includes("?")).length,
      agent_level_counts: countLevels(agentLevels),
      counterpart_level_counts: countLevels(counterpartLevels),
      dominant_agent_level: dominantLevel(agentLevels),
      level_path: levelPath(agentLevels),
      advocacy_turns: advocacy.length,
      discovery_turns: discovery.length,
      restatement_turns: restatements.length,
      counterpart_pushback_turns: pushback.length,
      counterpart_impatience_turns: impatience.length,
      pushback_met_with_question: pushbackWithQuestion.length,
      pushback_met_with_advocacy: pushbackWithAdvocacy.length,
      agent_word_share: ratio(agentWords, partyWords),
      agent_we_share: ratio(we, we + iWords + you)
    },
    highlights
  )
}
