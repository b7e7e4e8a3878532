/**
 * Devil's advocate signals. Finds the dissent role by actor name, classifies each of its steps as
 * objecting, conceding, mixed or neutral, and follows each objection: was it answered (a response
 * or revision by another actor), dismissed, or left alone, and did the advocate later concede
 * with nothing answering the objection in between (no tool observation, no revision), the
 * signature of collapse.
 */
import type { Signals } from "../../src/Catalogue/Detection.js"
import { countBy, type Highlight, ratio, signals, stepStats, wordCount } from "../../src/Catalogue/SignalKit.js"

export interface ActorStep {
  readonly type: string
  readonly content: string
  readonly actor: string
  readonly tool?: string | undefined
}

export interface DevilsAdvocateTrace {
  readonly steps: ReadonlyArray<ActorStep>
}

export const ADVOCATE_NAME = /devil|advocate|critic|red.?team|skeptic|sceptic|challenger|contrarian|adversar|dissent|review|verif/i
const CONCESSION = /\b(agree|agreed|looks good|lgtm|no (further |more |other )?(concerns?|objections?|issues?)|fair point|you'?re right|i withdraw|withdrawn|approved?|fine by me|sounds good|makes sense|i'?m convinced|ship it)\b/gi
const OBJECTION = /\b(risk|risky|concern|however|but|what if|fails?|failure|counter|disagree|object|objection|assum\w*|edge case|missing|wrong|flaw\w*|problem|issue|doesn'?t hold|not convinced|reject|irreversible|rollback)\b/i
const RESPONSE = /\b(addressed|mitigat\w*|good catch|revised|updated|changed|fixed|added (a|an|the)|to handle|accounted for|taking (that|this) into account|in response|because of (the|your) (concern|objection))\b/i
const DISMISSAL = /\b(not (a|an) (real )?(issue|concern|problem)|unlikely|ignore|out of scope|we can skip|moving on|proceed(ing)? anyway|overrul\w*|not needed|probably unused|not relevant)\b/i
const EVIDENCE = /observ|result|output|response|error|tool_result|return/i

export type Stance = "objecting" | "conceding" | "mixed" | "neutral"

/** Stance of a step: concession phrases are removed before looking for objection words. */
export const stanceOf = (content: string): Stance => {
  const conceding = content.match(CONCESSION) !== null
  const objecting = OBJECTION.test(content.replace(CONCESSION, " "))
  return conceding && objecting ? "mixed" : conceding ? "conceding" : objecting ? "objecting" : "neutral"
}

const isEvidence = (step: ActorStep): boolean => EVIDENCE.test(step.type) || (step.tool !== undefined && /observ|result/i.test(step.type))

export const devilsAdvocateSignals = (trace: DevilsAdvocateTrace): Signals => {
  const steps = trace.steps
  const base = stepStats(steps)
  const actors = countBy(steps, (s) => s.actor)
  const advocates = Object.keys(actors).filter((a) => ADVOCATE_NAME.test(a))
  const advocateSet = new Set(advocates)
  const isAdvocate = (s: ActorStep) => advocateSet.has(s.actor)
  const stances = steps.map((s) => (isAdvocate(s) ? stanceOf(s.content) : null))
  const objecting = stances.flatMap((st, i) => (st === "objecting" || st === "mixed" ? [i] : []))
  const conceding = stances.flatMap((st, i) => (st === "conceding" ? [i] : []))
  const highlights: Array<Highlight> = []

  // The next advocate step after each step, from one backward pass (a search from the start per
  // objection was objections × steps, issue 27); the windows between advocate steps do not overlap.
  const nextAdvocateAfter: Array<number> = new Array<number>(steps.length).fill(-1)
  for (let i = steps.length - 2; i >= 0; i--) {
    const following = steps[i + 1]
    nextAdvocateAfter[i] = following !== undefined && isAdvocate(following) ? i + 1 : nextAdvocateAfter[i + 1] ?? -1
  }
  let answered = 0
  let dismissed = 0
  for (const o of objecting) {
    highlights.push({ ref: `steps[${o}]`, reason: "the dissent role objects" })
    const nextAdvocate = nextAdvocateAfter[o] ?? -1
    const window = steps.slice(o + 1, nextAdvocate === -1 ? steps.length : nextAdvocate)
    const offset = o + 1
    const response = window.findIndex((s) => !isAdvocate(s) && RESPONSE.test(s.content))
    const dismissal = window.findIndex((s) => !isAdvocate(s) && DISMISSAL.test(s.content))
    if (response !== -1) answered += 1
    else if (dismissal !== -1) {
      dismissed += 1
      highlights.push({ ref: `steps[${offset + dismissal}]`, reason: `dismisses the objection in steps[${o}]` })
    }
  }

  // Collapse: a concession after an objection, and whether anything answered the objection in
  // between (a tool observation, or a revision or response by another actor).
  const firstObjection = objecting[0] ?? null
  const reversal = firstObjection === null ? undefined : conceding.find((c) => c > firstObjection)
  const newEvidence =
    reversal === undefined || firstObjection === null
      ? null
      : steps.slice(firstObjection + 1, reversal).some((s) => !isAdvocate(s) && (isEvidence(s) || RESPONSE.test(s.content)))
  if (reversal !== undefined) {
    highlights.push({
      ref: `steps[${reversal}]`,
      reason: newEvidence === true ? "the dissent role concedes after an answer" : "the dissent role concedes with nothing answering it"
    })
  }
  const advocateStances = stances.filter((st): st is Stance => st !== null)
  const selfCritique = steps.flatMap((s, i) =>
    !isAdvocate(s) && /thought|reflect|review|critique|plan/i.test(s.type) && OBJECTION.test(s.content) ? [i] : []
  )
  const last = steps[steps.length - 1]
  const advocateWords = steps.filter(isAdvocate).reduce((n, s) => n + wordCount(s.content), 0)
  const allWords = steps.reduce((n, s) => n + wordCount(s.content), 0)

  return signals(
    {
      ...base.values,
      actor_count: Object.keys(actors).length,
      steps_per_actor: actors,
      advocate_actors: advocates,
      advocate_present: advocates.length > 0,
      advocate_steps: steps.filter(isAdvocate).length,
      advocate_share: ratio(steps.filter(isAdvocate).length, steps.length),
      advocate_word_share: ratio(advocateWords, allWords),
      advocate_objections: objecting.length,
      advocate_concessions: conceding.length,
      first_objection_step: firstObjection,
      advocate_final_stance: advocateStances[advocateStances.length - 1] ?? null,
      advocate_reversed: reversal !== undefined,
      concession_after_answer: newEvidence,
      objections_answered: answered,
      objections_dismissed: dismissed,
      objections_unanswered: objecting.length - answered - dismissed,
      proposer_self_critique_steps: selfCritique.length,
      decider: last?.actor ?? null,
      advocate_is_decider: last !== undefined && isAdvocate(last)
    },
    [...highlights, ...base.highlights]
  )
}
