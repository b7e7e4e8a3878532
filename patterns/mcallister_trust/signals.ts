/**
 * McAllister (1995) signals. The trustor is the party that relies on the other (the user, or the
 * first speaking agent when no user is present); everyone else except system and tool turns is
 * the trustee. Cognition-based trust shows in what the trustor does with the agent's output
 * (acts on it, or checks, corrects and finally takes the work back); affect-based trust shows in
 * disclosure, thanks and frustration, and in whether the agent attends to the trustor's needs.
 * Apologies and confident assurances are measured against what the trustor did next.
 */
import type { Signals } from "../../src/Catalogue/Detection.js"
import {
  countBy,
  type Highlight,
  looksLikeError,
  ratio,
  repeatedIndices,
  round,
  signals
} from "../../src/Catalogue/SignalKit.js"

export interface McAllisterTrace {
  readonly turns: ReadonlyArray<{ readonly role: string; readonly content: string }>
}

const USER_ROLE = /^(user|human|customer|client|operator|requester)$/
const NON_PARTY = /^(system|tool|function|developer)$/

// Trustor behaviour (cognition-based trust under test, reliance withdrawn, affect shown).
export const MONITORING =
  /(\bare you (sure|certain)\b|\bdouble[- ]?check|\bverify\b|\bsources?\b|\bcite\b|\bcitation|\bproof\b|\bshow me\b|\bhow do you know\b|\bcheck again\b)/i
export const CORRECTION =
  /(\bthat['’]?s (wrong|incorrect|not (right|true|correct|what))|\bthat is (wrong|incorrect|not)\b|\bwrong\b|\bincorrect\b|\bnot what (i|you)\b|\byou said\b|\bstill (wrong|broken|not|failing)\b|\bdoesn['’]?t (work|match)\b|\bmistake\b)/i
export const WITHDRAWAL =
  /(\bforget it\b|\bnever ?mind\b|\bi give up\b|\bi['’]?ll (just )?(do|check|read|handle|fix|find|look|write)\b[^.!?]*\bmyself\b|\bdo it myself\b)/i
const APPRECIATION = /\b(thanks|thank you|perfect|helpful|appreciate\w*|awesome|exactly what i)\b/i
const FRUSTRATION =
  /(!{2,}|\b(again|frustrat\w*|annoy\w*|useless|ridiculous|not listening|waste of (my )?time|seriously|come on|ugh)\b)/i
const DISCLOSURE =
  /(\bi['’]?m (a bit |really |so |very )?(worried|stressed|anxious|nervous|scared|under pressure)\b|\bmy (boss|manager|job|team|client|finance \w+)\b|\bdeadline\b|\burgent\b|\bby \d{1,2} ?(am|pm)\b)/i

// Trustee behaviour.
const CARE =
  /(\bi (completely |totally |really |fully )?understand\b|\bi hear you\b|\bthat sounds\b|\bi can see why\b|\bthat must be\b|\bi['’]?m here to help\b)/i
const APOLOGY = /\b(sorry|apologi[sz]e\w*|apologies)\b/i
const COMMITMENT = /\b(i will|i['’]?ll|let me|i['’]?m going to)\b/i
const ASSURANCE =
  /(\bdefinitely\b|\bcertainly\b|\bguarantee\w*|\b100 ?%|\bi['’]?m (sure|confident|certain)\b|\bno doubt\b|\bcompletely accurate\b)/i
const DEFERENCE = /\b(you['’]?re (absolutely |totally |completely |so )?right|great (question|point|catch)|good (catch|point))\b/i
const HEDGE = /\b(might|may|perhaps|possibly|not sure|i think|likely|unclear|i don['’]?t know|uncertain)\b/i
const GROUNDING = /(https?:\/\/|\bsource:|\[\d+\]|\baccording to\b|\bbased on the\b|\bper the\b)/i
const FIGURE = /\$?\d[\d,.]*%?/g

const roleKey = (role: string): string => role.trim().toLowerCase()

/** The trustor's role: the first user-like role, else the first speaking party, else null. */
export const trustorRole = (turns: McAllisterTrace["turns"]): string | null => {
  const parties = turns.filter((turn) => !NON_PARTY.test(roleKey(turn.role)))
  const user = parties.find((turn) => USER_ROLE.test(roleKey(turn.role)))
  return user?.role ?? parties[0]?.role ?? null
}

/** Figures (amounts, counts, percentages) that the trustee states in two or more of its turns. */
const repeatedFigures = (contents: ReadonlyArray<string>): Array<string> => {
  const seenIn = new Map<string, number>()
  for (const content of contents) {
    const figures = new Set((content.match(FIGURE) ?? []).map((f) => f.replace(/[.,]+$/, "")))
    for (const figure of figures) if (figure.length > 0) seenIn.set(figure, (seenIn.get(figure) ?? 0) + 1)
  }
  return [...seenIn.entries()].filter(([, n]) => n >= 2).map(([figure]) => figure)
}

export const mcallisterSignals = (trace: McAllisterTrace): Signals => {
  const turns = trace.turns
  const trustor = trustorRole(turns)
  const trustorKey = trustor === null ? null : roleKey(trustor)
  const indexed = turns.map((turn, i) => ({ ...turn, i, key: roleKey(turn.role) }))
  const trustorTurns = indexed.filter((t) => t.key === trustorKey)
  const trusteeTurns = indexed.filter((t) => t.key !== trustorKey && !NON_PARTY.test(t.key))
  const toolTurns = indexed.filter((t) => NON_PARTY.test(t.key))

  const which = (list: typeof indexed, re: RegExp) => list.filter((t) => re.test(t.content)).map((t) => t.i)
  const monitoring = which(trustorTurns, MONITORING)
  const corrections = which(trustorTurns, CORRECTION)
  const withdrawals = which(trustorTurns, WITHDRAWAL)
  const challengeSet = new Set([...monitoring, ...corrections, ...withdrawals])
  const challenges = trustorTurns.filter((t) => challengeSet.has(t.i)).map((t) => t.i)
  const frustration = which(trustorTurns, FRUSTRATION)
  const appreciation = which(trustorTurns, APPRECIATION)
  const disclosure = which(trustorTurns, DISCLOSURE)

  const care = which(trusteeTurns, CARE)
  const apologies = which(trusteeTurns, APOLOGY)
  const assurances = which(trusteeTurns, ASSURANCE)
  const deference = which(trusteeTurns, DEFERENCE)
  const commitments = which(trusteeTurns, COMMITMENT)
  const hedges = which(trusteeTurns, HEDGE)
  const grounded = which(trusteeTurns, GROUNDING)
  const agentErrors = [...trusteeTurns, ...toolTurns]
    .filter((t) => looksLikeError(undefined, t.content))
    .map((t) => t.i)
    .sort((a, b) => a - b)

  /** The trustor's next turn after index i, if any. */
  const nextTrustorTurn = (i: number) => trustorTurns.find((t) => t.i > i)
  const followedByChallenge = (indices: ReadonlyArray<number>) =>
    indices.filter((i) => {
      const next = nextTrustorTurn(i)
      return next !== undefined && challengeSet.has(next.i)
    })
  const apologyThenChallenge = followedByChallenge(apologies)
  const assuranceThenChallenge = followedByChallenge(assurances)

  const half = Math.ceil(trustorTurns.length / 2)
  const firstHalf = trustorTurns.slice(0, half)
  const secondHalf = trustorTurns.slice(half)
  const challengeShare = (list: typeof trustorTurns) => ratio(list.filter((t) => challengeSet.has(t.i)).length, list.length)
  const challengeTrend = secondHalf.length === 0 ? 0 : round(challengeShare(secondHalf) - challengeShare(firstHalf))

  const trusteeContents = trusteeTurns.map((t) => t.content)
  const repeatedTrustee = repeatedIndices(trusteeContents).map((k) => trusteeTurns[k]?.i ?? -1).filter((i) => i >= 0)

  const ref = (i: number) => `turns[${i}]`
  const highlights: Array<Highlight> = [
    ...withdrawals.map((i) => ({ ref: ref(i), reason: "trustor takes the work back: reliance withdrawn" })),
    ...corrections.map((i) => ({ ref: ref(i), reason: "trustor corrects the agent: cognition-based trust breached" })),
    ...monitoring.map((i) => ({ ref: ref(i), reason: "trustor checks the agent's work: cognition-based trust under test" })),
    ...assuranceThenChallenge.map((i) => ({ ref: ref(i), reason: "confident assurance that the trustor then challenged" })),
    ...apologyThenChallenge.map((i) => ({ ref: ref(i), reason: "apology followed by another challenge: affective repair of a cognitive breach" })),
    ...repeatedTrustee.map((i) => ({ ref: ref(i), reason: "agent repeats an earlier turn verbatim" })),
    ...disclosure.map((i) => ({ ref: ref(i), reason: "trustor discloses stakes or pressure: an opening for affect-based trust" })),
    ...frustration.map((i) => ({ ref: ref(i), reason: "trustor expresses frustration" })),
    ...agentErrors.map((i) => ({ ref: ref(i), reason: "agent or tool turn reads as an error" }))
  ]

  return signals(
    {
      turn_count: turns.length,
      role_counts: countBy(turns, (t) => t.role),
      trustor_role: trustor,
      trustor_turns: trustorTurns.length,
      trustee_turns: trusteeTurns.length,
      tool_turns: toolTurns.length,
      monitoring_turns: monitoring.length,
      correction_turns: corrections.length,
      withdrawal_turns: withdrawals.length,
      challenge_share: ratio(challenges.length, trustorTurns.length),
      challenge_trend: challengeTrend,
      first_challenge_turn: challenges[0] ?? null,
      frustration_turns: frustration.length,
      appreciation_turns: appreciation.length,
      disclosure_turns: disclosure.length,
      affect_balance:
        appreciation.length + frustration.length === 0 ? null : ratio(appreciation.length, appreciation.length + frustration.length),
      care_turns: care.length,
      care_share: ratio(care.length, trusteeTurns.length),
      apology_turns: apologies.length,
      apology_then_challenge: apologyThenChallenge.length,
      assurance_turns: assurances.length,
      assurance_then_challenge: assuranceThenChallenge.length,
      deference_turns: deference.length,
      commitment_turns: commitments.length,
      hedge_turns: hedges.length,
      grounded_turns: grounded.length,
      repeated_trustee_turns: repeatedTrustee.length,
      repeated_trustee_figures: repeatedFigures(trusteeContents),
      agent_error_turns: agentErrors.length
    },
    highlights
  )
}
