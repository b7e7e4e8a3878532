/**
 * Edmondson (1999) signals. Psychological safety is read through voice and its reception: errors
 * and concerns reported openly, questions and requests for help (learning behaviour), how the
 * next agent answered them (inquiry, blame, nothing), success claims that follow an error nobody
 * repaired (the trace of a hidden error), and how much voice there was before and after the first
 * punitive message.
 */
import type { Signals } from "../../src/Catalogue/Detection.js"
import { countBy, gini, type Highlight, looksLikeError, ratio, round, signals, shares } from "../../src/Catalogue/SignalKit.js"

export interface PsychSafetyMessage {
  readonly from: string
  readonly content: string
  readonly to?: string | undefined
  readonly type?: string | undefined
}

export interface PsychSafetyTrace {
  readonly agents: ReadonlyArray<string>
  readonly messages: ReadonlyArray<PsychSafetyMessage>
}

export const SUCCESS_CLAIM =
  /\b(done|complete(d)?|success(ful(ly)?)?|all (tests )?pass(ed|ing)?|tests? pass(ed|ing)?|(suite|build|ci) is green|no issues|looks good|lgtm|ready (to|for) (ship|merge|deploy|production))\b/i
export const REPAIR = /\b(fix(ed|ing)?|retr(y|ied|ying)|workaround|re-?ran|rerun|resolv(ed|ing)|patch(ed|ing)?|rolled back|revert(ed)?)\b/i
export const HELP_SEEKING =
  /(\bcan (you|someone|anyone) help\b|\bneed help\b|\bnot sure how\b|\bhow (do|should) (i|we)\b|\bcould you clarify\b|\bclarif(y|ication)\b|\bwhich (one|version|option) should\b|\bany (ideas|suggestions)\b)/i
export const UNCERTAINTY =
  /(\bi['’]?m not (sure|certain)\b|\bnot sure\b|\buncertain\b|\bmight be wrong\b|\blow confidence\b|\bunsure\b|\bunclear\b|\bi (may|might) have\b)/i
export const CONCERN =
  /(\bi disagree\b|\bconcern(s|ed)?\b|\bworried\b|\brisk(s|y)?\b|\bi don['’]?t think\b|\bthis (could|might|will) break\b|\bpush(ing)? back\b|\bobject(ion)?\b|\bbut i think\b|\bare we sure\b|\bnote:)/i
export const BLAME =
  /(\bunacceptable\b|\byou failed\b|\byour fault\b|\bnot good enough\b|\bno excuses\b|\bstop making excuses\b|\bjust (do|deliver|make|fix) it\b|\bjust make it work\b|\bi told you\b|\bwhy can['’]?t you\b|\bdo it properly\b|\bdon['’]?t (bother|bug) me\b|\bonly (want|report) (green|success)|\bfailure is not an option\b)/i
export const INQUIRY =
  /(\bwhat happened\b|\bwhy did\b|\broot cause\b|\blet['’]?s look\b|\bthanks for (flagging|raising|reporting|catching)\b|\bgood catch\b|\bwhat do you need\b|\bwhat would help\b)/i
export const MASKING =
  /(\bxfail(ed)?\b|\bskip(ped|ping)? (the |these |those |\d+ )?(tests?|checks?|failures?)\b|@skip\b|\bsuppress(ed|ing)? (the )?(error|warning|exception)s?\b|\bdisabl(e|ed|ing) (the )?(check|test|lint|validation)s?\b|\bcommented out\b|\bexcept\s*(exception)?\s*:\s*pass\b|--no-verify\b|\bignor(e|ed|ing) (the )?(error|failure|warning)s?\b)/i
const DEFERENCE =
  /(\bas you (said|wish|instructed)\b|\bunderstood, (will|i['’]?ll) (proceed|comply|do)\b|\byou['’]?re right\b|\bwhatever you (think|prefer)\b|\bi['’]?ll defer\b|\bif you say so\b)/i

const isQuestion = (content: string): boolean => content.includes("?")

export const psychSafetySignals = (trace: PsychSafetyTrace): Signals => {
  const messages = trace.messages
  const errorIdx = messages.flatMap((m, i) => (looksLikeError(m.type, m.content) ? [i] : []))
  const errorSet = new Set(errorIdx)
  const matching = (re: RegExp) => messages.flatMap((m, i) => (re.test(m.content) ? [i] : []))
  const questions = messages.flatMap((m, i) => (isQuestion(m.content) ? [i] : []))
  const helpSeeking = matching(HELP_SEEKING)
  const uncertainty = matching(UNCERTAINTY)
  const concerns = matching(CONCERN)
  const blame = matching(BLAME)
  const deference = matching(DEFERENCE)
  const successClaims = matching(SUCCESS_CLAIM).filter((i) => !errorSet.has(i))
  const masking = matching(MASKING)

  // Voice: a message that reports an error, raises a concern, admits uncertainty or asks for help.
  const voiceSet = new Set([...errorIdx, ...concerns, ...uncertainty, ...helpSeeking])
  const voice = [...voiceSet].sort((a, b) => a - b)

  // The next message from another sender after each message, from one backward pass (a search
  // forward from every act of voice was voice × messages, issue 27).
  const nextOther: Array<number> = new Array<number>(messages.length).fill(-1)
  for (let k = messages.length - 2; k >= 0; k--) {
    nextOther[k] = messages[k + 1]?.from !== messages[k]?.from ? k + 1 : nextOther[k + 1] ?? -1
  }

  // How the next message from another agent answered each act of voice.
  const responses = { inquiry: 0, blame: 0, ignored: 0, engaged: 0 }
  const blameResponses: Array<number> = []
  const ignoredVoice: Array<number> = []
  for (const i of voice) {
    const j = nextOther[i] ?? -1
    const reply = j >= 0 ? messages[j] : undefined
    if (reply === undefined) continue
    if (BLAME.test(reply.content)) {
      responses.blame += 1
      blameResponses.push(j)
    } else if (INQUIRY.test(reply.content) || isQuestion(reply.content)) responses.inquiry += 1
    else if (looksLikeError(reply.type, reply.content) || REPAIR.test(reply.content) || CONCERN.test(reply.content)) {
      responses.engaged += 1
    } else {
      responses.ignored += 1
      ignoredVoice.push(i)
    }
  }

  // Success claims over an unrepaired error sent by, or addressed to, the claimant: in one pass,
  // each sender's last error (sent, addressed, or addressed to all) and last repair so far (a
  // search back from every claim was claims × messages, issue 27).
  const claims = new Set(successClaims)
  const lastErrorFor = new Map<string, number>()
  const lastRepairBy = new Map<string, number>()
  let lastErrorToAll = -1
  const claimsOverError: Array<number> = []
  messages.forEach((m, j) => {
    if (claims.has(j) && !REPAIR.test(m.content)) {
      const lastError = Math.max(lastErrorFor.get(m.from) ?? -1, lastErrorToAll)
      if (lastError >= 0 && (lastRepairBy.get(m.from) ?? -1) <= lastError) claimsOverError.push(j)
    }
    if (errorSet.has(j)) {
      lastErrorFor.set(m.from, j)
      if (m.to !== undefined) lastErrorFor.set(m.to, j)
      if (m.to === "all") lastErrorToAll = j
    }
    if (REPAIR.test(m.content)) lastRepairBy.set(m.from, j)
  })

  // Voice before and after the first punitive reply to voice (else the first punitive message).
  const firstBlame = blame[0]
  const pivot = blameResponses[0] ?? firstBlame
  const voiceRate = (from: number, to: number) => {
    const total = Math.max(0, to - from)
    return ratio(voice.filter((i) => i >= from && i < to).length, total)
  }
  const voiceBefore = pivot === undefined ? null : voiceRate(0, pivot)
  const voiceAfter = pivot === undefined ? null : voiceRate(pivot + 1, messages.length)

  const counts: Record<string, number> = {}
  for (const agent of trace.agents) counts[agent] = 0
  for (const [agent, n] of Object.entries(countBy(messages, (m) => m.from))) counts[agent] = n
  const silent = trace.agents.filter((agent) => (counts[agent] ?? 0) === 0)
  const voiceByAgent = countBy(
    voice.flatMap((i) => (messages[i] === undefined ? [] : [messages[i]])),
    (m) => m.from
  )

  const ref = (i: number) => `messages[${i}]`
  const highlights: Array<Highlight> = [
    ...masking.map((i) => ({ ref: ref(i), reason: "failure masked: tests skipped or marked expected-to-fail, errors suppressed" })),
    ...claimsOverError.map((i) => ({ ref: ref(i), reason: "success claimed after an unrepaired error: possible hidden error" })),
    ...blameResponses.map((i) => ({ ref: ref(i), reason: "blame or pressure in answer to a reported error or concern" })),
    ...blame.map((i) => ({ ref: ref(i), reason: "punitive or success-only framing" })),
    ...ignoredVoice.map((i) => ({ ref: ref(i), reason: "error or concern that the next agent did not take up" })),
    ...errorIdx.map((i) => ({ ref: ref(i), reason: "error surfaced in the log" })),
    ...concerns.map((i) => ({ ref: ref(i), reason: "concern or dissent voiced" })),
    ...uncertainty.map((i) => ({ ref: ref(i), reason: "uncertainty admitted" })),
    ...deference.map((i) => ({ ref: ref(i), reason: "deference to another agent" }))
  ]

  return signals(
    {
      message_count: messages.length,
      agent_count: trace.agents.length,
      messages_per_agent: counts,
      contribution_shares: shares(counts),
      contribution_gini: gini(Object.values(counts)),
      silent_agents: silent,
      error_messages: errorIdx.length,
      question_messages: questions.length,
      help_seeking_messages: helpSeeking.length,
      uncertainty_messages: uncertainty.length,
      concern_messages: concerns.length,
      voice_messages: voice.length,
      voice_share: ratio(voice.length, messages.length),
      voice_by_agent: voiceByAgent,
      blame_messages: blame.length,
      deference_messages: deference.length,
      responses_inquiry: responses.inquiry,
      responses_engaged: responses.engaged,
      responses_blame: responses.blame,
      responses_ignored: responses.ignored,
      success_claims: successClaims.length,
      success_claims_over_error: claimsOverError.length,
      masking_messages: masking.length,
      first_blame_message: firstBlame ?? null,
      first_punitive_reply: blameResponses[0] ?? null,
      voice_rate_before_blame: voiceBefore,
      voice_rate_after_blame: voiceAfter,
      voice_drop_after_blame: voiceBefore === null || voiceAfter === null ? null : round(voiceBefore - voiceAfter)
    },
    highlights
  )
}
