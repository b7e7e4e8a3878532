/**
 * Stone & Heen (2014) signals. Feedback messages are the ones marked `is_feedback: true` (or, when
 * no message carries the flag, those whose `type` reads as review, critique or feedback). Each is
 * followed to its receiver's next message, which is read for the reactions the three triggers
 * produce: rejecting the content (truth), turning to the giver (relationship), capitulating or
 * over-correcting (identity); against them, accepting, asking to understand, and changing the work.
 */
import type { Signals } from "../../src/Catalogue/Detection.js"
import { countBy, type Highlight, ratio, signals } from "../../src/Catalogue/SignalKit.js"

export interface FeedbackMessageLike {
  readonly from: string
  readonly content: string
  readonly to?: string | undefined
  readonly type?: string | undefined
  readonly is_feedback?: boolean | undefined
}

export interface FeedbackTrace {
  readonly agents: ReadonlyArray<string>
  readonly messages: ReadonlyArray<FeedbackMessageLike>
  readonly feedback_incorporated?: boolean | undefined
}

const FEEDBACK_TYPE = /feedback|critique|critic|review|comment|evaluation/i

// Receiver reactions.
export const REJECTING =
  /(\bthat['’]?s (not|in)correct\b|\bis correct( as is)?\b|\bworks (fine|as intended)\b|\bnot (a|an) (bug|issue|problem)\b|\bi disagree\b|\bthe (test|reviewer|check|critic) (is|must be) wrong\b|\bno changes? (needed|required)\b|\balready (handled|correct)\b|\bfalse positives?\b|\bwon['’]?t fix\b)/i
export const DEFLECTING =
  /(\byou (don['’]?t|do not) (have|understand|know)\b|\b(lacks?|without) (the )?(codebase |full |enough )?(context|access)\b|\bnot your (role|job|call|area)\b|\bout of (your )?scope\b|\bi['’]?m the (lead|owner|senior)\b|\bas the (lead|owner|senior|architect)\b|\bwho (asked|are you)\b|\byour (last|previous) (review|feedback)\b|\byou (always|never)\b|\b(that['’]?s|it['’]?s) (for|up to) (me|the lead)\b)/i
export const CAPITULATING =
  /(\bi['’]?m (so |really |very |truly )?sorry\b|\bi apologi[sz]e\b|\byou['’]?re (absolutely |completely |totally )?right\b|\bmy (mistake|fault|bad)\b|\bi (failed|messed up)\b|\bi should not have\b)/i
export const OVERREACTING =
  /(\bstart(ing)? (over|again)( from scratch)?\b|\bfrom scratch\b|\bscrap(ping)? (it|everything|the|my)\b|\bthrow (it|everything) away\b|\bdelet(e|ing) (it|everything|all)\b|\bi['’]?m not (good|capable|able to do)\b)/i
export const ACCEPTING =
  /(\bgood catch\b|\bthanks\b|\bthank you\b|\bfixed\b|\bupdated\b|\baddressed\b|\bapplied\b|\bchanged\b|\bwill (fix|update|change|address|apply)\b|\bmakes sense\b)/i
export const CLARIFYING =
  /(\bcan you (clarify|explain|show)\b|\bwhat do you mean\b|\bwhich (line|case|part|input)\b|\bcould you (point|give an example)\b|\btell me more\b)/i
const CHANGE = /\b(fixed|updated|changed|applied|addressed|refactored|switched|replaced|patched|added)\b/i

// Kinds of feedback.
const APPRECIATION = /\b(great|nice|well done|good (job|work)|thanks|love|excellent)\b/i
const COACHING = /\b(should|could|consider|try|instead|suggest|recommend|next time|use a|use the|prefer|replace)\b/i
const EVALUATION =
  /(\b(score[ds]?|rating|grade[ds]?|verdict|approved|rejected|blocking|not acceptable|meets (the )?(bar|standard|criteria)|below (the )?(bar|standard)|lgtm)\b|\b\d+\s*\/\s*\d+\b)/i

export type Reaction = "rejecting" | "deflecting" | "capitulating" | "overreacting" | "clarifying" | "accepting" | "other"

/** The first reaction a response shows, triggered reactions before healthy ones. */
export const reactionOf = (content: string): Reaction =>
  DEFLECTING.test(content)
    ? "deflecting"
    : REJECTING.test(content)
    ? "rejecting"
    : OVERREACTING.test(content)
    ? "overreacting"
    : CAPITULATING.test(content)
    ? "capitulating"
    : CLARIFYING.test(content) || content.includes("?")
    ? "clarifying"
    : ACCEPTING.test(content)
    ? "accepting"
    : "other"

/** Indices of feedback messages and how they were identified. */
export const feedbackIndices = (
  messages: ReadonlyArray<FeedbackMessageLike>
): { readonly indices: Array<number>; readonly source: "is_feedback" | "type" | "none" } => {
  if (messages.some((m) => m.is_feedback !== undefined)) {
    return { indices: messages.flatMap((m, i) => (m.is_feedback === true ? [i] : [])), source: "is_feedback" }
  }
  const byType = messages.flatMap((m, i) => (m.type !== undefined && FEEDBACK_TYPE.test(m.type) ? [i] : []))
  return { indices: byType, source: byType.length > 0 ? "type" : "none" }
}

export const feedbackTriggerSignals = (trace: FeedbackTrace): Signals => {
  const messages = trace.messages
  const { indices: feedback, source } = feedbackIndices(messages)

  // One pass over the log for what each feedback message looks up: scanning the log from every
  // feedback message was feedback × messages (issue 27). `beforeRun[k]`: the sender just before
  // the run of one sender's consecutive messages that message k ends; `bySender`: each sender's
  // message indices, ascending; `lastChange`: each sender's last message that reports a change.
  const beforeRun: Array<string | null> = []
  const bySender = new Map<string, Array<number>>()
  const lastChange = new Map<string, number>()
  messages.forEach((m, k) => {
    const previous = messages[k - 1]
    beforeRun.push(previous === undefined ? null : previous.from === m.from ? beforeRun[k - 1] ?? null : previous.from)
    const own = bySender.get(m.from)
    if (own === undefined) bySender.set(m.from, [k])
    else own.push(k)
    if (CHANGE.test(m.content)) lastChange.set(m.from, k)
  })
  /** The receiver's first message after message i, -1 when none. */
  const nextFrom = (receiver: string, i: number): number => {
    const own = bySender.get(receiver) ?? []
    let low = 0
    let high = own.length
    while (low < high) {
      const mid = (low + high) >> 1
      if ((own[mid] ?? 0) <= i) low = mid + 1
      else high = mid
    }
    return own[low] ?? -1
  }

  /** The receiver: the addressee, else the last other sender before the feedback. */
  const receiverOf = (i: number): string | null => {
    const m = messages[i]
    if (m === undefined) return null
    if (m.to !== undefined && m.to !== "all" && m.to !== m.from) return m.to
    const previous = messages[i - 1]
    if (previous === undefined) return null
    return previous.from !== m.from ? previous.from : beforeRun[i - 1] ?? null
  }

  const counts: Record<Reaction, number> = {
    rejecting: 0,
    deflecting: 0,
    capitulating: 0,
    overreacting: 0,
    clarifying: 0,
    accepting: 0,
    other: 0
  }
  let missing = 0
  let followedByChange = 0
  const triggered: Array<{ readonly i: number; readonly reaction: Reaction; readonly receiver: string }> = []
  const unanswered: Array<number> = []
  const pairs: Record<string, number> = {}
  for (const i of feedback) {
    const giver = messages[i]?.from ?? ""
    const receiver = receiverOf(i)
    pairs[`${giver}->${receiver ?? "?"}`] = (pairs[`${giver}->${receiver ?? "?"}`] ?? 0) + 1
    const j = receiver === null ? -1 : nextFrom(receiver, i)
    const response = j >= 0 ? messages[j] : undefined
    if (receiver === null || response === undefined) {
      missing += 1
      unanswered.push(i)
      continue
    }
    const reaction = reactionOf(response.content)
    counts[reaction] += 1
    if (reaction === "rejecting" || reaction === "deflecting" || reaction === "capitulating" || reaction === "overreacting") {
      triggered.push({ i: j, reaction, receiver })
    }
    if ((lastChange.get(receiver) ?? -1) >= j) followedByChange += 1
  }
  const repeated = Object.values(pairs).reduce((n, c) => n + Math.max(0, c - 1), 0)

  const truth = counts.rejecting
  const relationship = counts.deflecting
  const identity = counts.capitulating + counts.overreacting
  const triggerTotal = truth + relationship + identity
  const triggerHint: string | null =
    feedback.length === 0 || feedback.length === missing
      ? null
      : triggerTotal === 0
      ? "none"
      : relationship >= truth && relationship >= identity
      ? "relationship"
      : truth >= identity
      ? "truth"
      : "identity"

  const feedbackMessages = feedback.flatMap((i) => (messages[i] === undefined ? [] : [messages[i]]))
  const reasons: Record<Reaction, string> = {
    rejecting: "receiver rejects the content: truth trigger",
    deflecting: "receiver turns to the giver: relationship trigger",
    capitulating: "receiver capitulates: identity trigger",
    overreacting: "receiver over-corrects: identity trigger",
    clarifying: "receiver asks to understand",
    accepting: "receiver accepts",
    other: "receiver responds"
  }
  const ref = (i: number) => `messages[${i}]`
  const highlights: Array<Highlight> = [
    ...triggered.map((t) => ({ ref: ref(t.i), reason: reasons[t.reaction] })),
    ...unanswered.map((i) => ({ ref: ref(i), reason: "feedback with no response from its receiver" })),
    ...feedback.map((i) => ({ ref: ref(i), reason: "feedback given" }))
  ]

  return signals(
    {
      message_count: messages.length,
      feedback_source: source,
      feedback_messages: feedback.length,
      feedback_share: ratio(feedback.length, messages.length),
      feedback_by_giver: countBy(feedbackMessages, (m) => m.from),
      responses_rejecting: counts.rejecting,
      responses_deflecting: counts.deflecting,
      responses_capitulating: counts.capitulating,
      responses_overreacting: counts.overreacting,
      responses_clarifying: counts.clarifying,
      responses_accepting: counts.accepting,
      responses_other: counts.other,
      responses_missing: missing,
      triggered_response_share: ratio(triggerTotal, feedback.length - missing),
      feedback_followed_by_change: followedByChange,
      repeated_feedback: repeated,
      feedback_kinds: {
        appreciation: feedbackMessages.filter((m) => APPRECIATION.test(m.content)).length,
        coaching: feedbackMessages.filter((m) => COACHING.test(m.content)).length,
        evaluation: feedbackMessages.filter((m) => EVALUATION.test(m.content)).length
      },
      triggered_agents: [...new Set(triggered.map((t) => t.receiver))],
      first_triggered_response: triggered[0] === undefined ? null : ref(triggered[0].i),
      trigger_hint: triggerHint,
      feedback_incorporated: trace.feedback_incorporated ?? null
    },
    highlights
  )
}
