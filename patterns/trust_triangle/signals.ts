/**
 * Trust triangle signals (Frei & Morriss 2020). Trust rests on three drivers: authenticity (people
 * believe they deal with the real you), logic (they trust your judgement and competence, and can
 * follow your reasoning) and empathy (they believe you care about them). Trust is lost through the
 * driver that "wobbles". In a user-agent conversation each driver leaves traces: claims of actions
 * with no tool call behind them, capitulation when the user pushes back and scripted boilerplate
 * (authenticity); user corrections, unexplained answers and over-certainty (logic); low uptake of
 * what the user said, repeated requests and frustration (empathy). The user's own turns show the
 * trajectory of trust over the conversation.
 */
import type { Signals } from "../../src/Catalogue/Detection.js"
import { countBy, type Highlight, mean, ratio, round, signals, similarToEarlier, wordCount } from "../../src/Catalogue/SignalKit.js"

export interface TrustTriangleTrace {
  readonly turns: ReadonlyArray<{ readonly role: string; readonly content: string }>
}

export type Speaker = "user" | "agent" | "tool" | "system"

/** Who a turn's role names: the user, the agent (assistant or a named agent), a tool, or the system. */
export const speaker = (role: string): Speaker => {
  const r = role.trim().toLowerCase()
  if (/^(user|human|customer|client|end[_ -]?user)$/.test(r)) return "user"
  if (/^(tool|function|observation|tool_result)$/.test(r)) return "tool"
  if (r === "system" || r === "developer") return "system"
  return "agent"
}

const STOPWORDS = new Set([
  "the", "and", "for", "with", "from", "that", "this", "you", "your", "are", "was", "were", "will", "have",
  "has", "had", "can", "not", "but", "what", "which", "when", "there", "here", "any", "all", "our", "its"
])
const tokens = (text: string): Set<string> =>
  new Set(
    text
      .toLowerCase()
      .split(/[^a-z0-9#$]+/)
      .filter((word) => word.length >= 3 && !STOPWORDS.has(word))
      .map((word) => word.slice(0, 6))
  )
const overlap = (a: ReadonlySet<string>, b: ReadonlySet<string>): number => {
  if (a.size === 0 && b.size === 0) return 0
  let shared = 0
  for (const token of a) if (b.has(token)) shared += 1
  return shared / (a.size + b.size - shared)
}

const DONE = "(processed|issued|updated|sent|fixed|cancell?ed|refunded|escalated|scheduled|booked|created|submitted|reset|applied|changed|initiated|transferred|deleted)"

export const CUES = {
  correction: /(\b(that'?s (wrong|incorrect|not (right|true|what i (asked|said|meant)))|not what i asked|you said|i (already|just) (told|said|asked)|you didn'?t|still (not|no|shows|hasn'?t|doesn'?t|haven'?t)|didn'?t (work|happen|arrive|answer)|hasn'?t (arrived|happened|changed)|did you actually)\b|^no[,.!])/i,
  frustration: /(\b(frustrat\w*|annoy\w*|ridiculous|useless|unacceptable|waste of time|for the (second|third|fourth|\w+th) time|(second|third|fourth) time i|speak to a (human|person|manager|real person)|cancel my)\b|!!)/i,
  apology: /\b(sorry|apologi[sz]e|apologies)\b/i,
  action_claim: new RegExp(
    `\\b(i('ve| have) (just |already )?${DONE}|(has|have) (definitely |already |now |just )?been ${DONE}|is (now )?(done|fixed|resolved|complete))\\b`,
    "i"
  ),
  reason: /\b(because|since|so that|therefore|which means|the reason|due to)\b/i,
  hedge: /\b(might|may|possibly|perhaps|i think|not sure|it seems|likely|probably)\b/i,
  certainty: /\b(definitely|certainly|guarantee\w*|100%|absolutely|rest assured|i assure you|for sure)\b/i,
  boilerplate: /\b(as an ai|i('m| am) (just )?an? (ai|language model|virtual assistant)|per our policy|according to our polic(y|ies)|we value your|thank you for (your patience|reaching out)|i understand your frustration|is there anything else i can help)\b/i,
  capitulation: /\b(you('re| are) (absolutely )?(right|correct)|i stand corrected|good catch|my mistake|you('re| are) right,? i)\b/i
} as const

export const trustTriangleSignals = (trace: TrustTriangleTrace): Signals => {
  const turns = trace.turns
  const who = turns.map((t) => speaker(t.role))
  const indices = (s: Speaker) => who.flatMap((w, i) => (w === s ? [i] : []))
  const user = indices("user")
  const agent = indices("agent")
  const tool = indices("tool")
  const cue = (name: keyof typeof CUES, among: ReadonlyArray<number>) =>
    among.filter((i) => CUES[name].test(turns[i]?.content ?? ""))

  const corrections = cue("correction", user)
  const frustration = cue("frustration", user)
  const tokenSets = turns.map((t) => tokens(t.content))
  const userSets = user.map((i) => tokenSets[i] ?? new Set<string>())
  const repeated = similarToEarlier(userSets, 0.5, overlap, { probe: (k) => (userSets[k]?.size ?? 0) >= 4 })
  const userRepeats = user.filter((_, k) => repeated[k] === true)

  // The user turn before each turn, and the tool turns before each, in one pass: looking back
  // from every agent turn was quadratic in a run with few user turns (issue 27).
  const previousUsers: Array<number> = []
  const toolsBefore: Array<number> = []
  let lastUser = -1
  let tools = 0
  who.forEach((w, i) => {
    previousUsers.push(lastUser)
    toolsBefore.push(tools)
    if (w === "user") lastUser = i
    if (w === "tool") tools += 1
  })
  const previousUser = (i: number): number => previousUsers[i] ?? -1
  /** Tool turns strictly between turns `from` and `to`. */
  const toolsBetween = (from: number, to: number): number => (toolsBefore[to] ?? 0) - (toolsBefore[from + 1] ?? 0)
  const claims = cue("action_claim", agent)
  const unbackedClaims = claims.filter((i) => toolsBetween(previousUser(i), i) === 0)
  const pushedBack = new Set([...corrections, ...frustration])
  const capitulations = cue("capitulation", agent).filter((i) => pushedBack.has(previousUser(i)))
  const uptake = agent.flatMap((i) => {
    const u = previousUser(i)
    return u < 0 ? [] : [overlap(tokenSets[i] ?? new Set(), tokenSets[u] ?? new Set())]
  })
  const agentWords = agent.map((i) => wordCount(turns[i]?.content ?? ""))
  const half = Math.ceil(turns.length / 2)
  const negative = [...pushedBack]

  const highlights: Array<Highlight> = [
    ...unbackedClaims.map((i) => ({ ref: `turns[${i}]`, reason: "claims an action with no tool turn since the user's request (authenticity)" })),
    ...capitulations.map((i) => ({ ref: `turns[${i}]`, reason: "agrees with the user right after pushback (authenticity)" })),
    ...corrections.map((i) => ({ ref: `turns[${i}]`, reason: "user pushes back: corrects, contradicts or re-asks" })),
    ...userRepeats.map((i) => ({ ref: `turns[${i}]`, reason: "user repeats an earlier request (empathy)" })),
    ...frustration.map((i) => ({ ref: `turns[${i}]`, reason: "user frustration" })),
    ...cue("boilerplate", agent).map((i) => ({ ref: `turns[${i}]`, reason: "scripted boilerplate" }))
  ]

  return signals(
    {
      turn_count: turns.length,
      turns_per_role: countBy(turns, (t) => t.role),
      user_turns: user.length,
      agent_turns: agent.length,
      tool_turns: tool.length,
      mean_agent_words: mean(agentWords) ?? 0,
      long_agent_turn_share: ratio(agentWords.filter((w) => w > 150).length, agent.length),
      user_corrections: corrections.length,
      user_frustration_turns: frustration.length,
      user_repeats: userRepeats.length,
      user_negative_first_half: negative.filter((i) => i < half).length,
      user_negative_second_half: negative.filter((i) => i >= half).length,
      agent_action_claims: claims.length,
      action_claims_without_tool: unbackedClaims.length,
      capitulations: capitulations.length,
      apology_turns: cue("apology", agent).length,
      boilerplate_turns: cue("boilerplate", agent).length,
      certainty_turns: cue("certainty", agent).length,
      hedge_rate: ratio(cue("hedge", agent).length, agent.length),
      reason_giving_rate: ratio(cue("reason", agent).length, agent.length),
      agent_questions: agent.filter((i) => (turns[i]?.content ?? "").includes("?")).length,
      mean_user_uptake: uptake.length === 0 ? 0 : round(uptake.reduce((a, b) => a + b, 0) / uptake.length)
    },
    highlights
  )
}
