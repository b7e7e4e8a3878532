/**
 * Clark & Saxberg signals. Each of the four motivation traps leaves its own wording in the
 * observed behaviours and in the abandonment itself: value statements (not my role, not worth it),
 * inability claims (I can't, beyond my capabilities), affect (apologies, distress, hostility) and
 * causal claims (the tests are flaky, the API is broken). Weiner's attribution dimensions are
 * approximated by counting stable-cause wording and external versus internal-controllable causes.
 */
import type { Signals } from "../../src/Catalogue/Detection.js"
import { type Highlight, ratio, repeatedIndices, signals } from "../../src/Catalogue/SignalKit.js"

export interface MotivationTrapsTrace {
  readonly observed_behaviors: ReadonlyArray<string>
  readonly abandonment_signal: string
  readonly prior_failures?: ReadonlyArray<string> | undefined
}

export const TRAPS = ["values_mismatch", "lack_of_self_efficacy", "disruptive_emotions", "attribution_errors"] as const
export type Trap = (typeof TRAPS)[number]

/** Wording that marks a behaviour as a symptom of each trap. */
export const TRAP_MARKERS: Readonly<Record<Trap, RegExp>> = {
  values_mismatch:
    /\b(not (my|part of my) (job|role|responsibilit\w*|task)|out of (my )?scope|not (important|worth\w*|relevant|a priority|necessary|required|needed)|low[- ]priority|doesn'?t matter|irrelevant|skip(ped|ping)? (this|it|the)|instead (focus|work)\w*|more (interesting|important|useful)|minimal effort|good enough|not (graded|evaluated|checked|tested))\b/i,
  lack_of_self_efficacy:
    /\b(can'?t|cannot|unable to|not able to|beyond (my|the) (capabilit\w*|abilit\w*)|too (hard|difficult|complex)|I don'?t know how|not capable|as an AI|I lack|impossible for me|I'?m not (able|equipped)|you (should|could|will need to|need to) (do|handle|run|fix) (this|it))\b/i,
  disruptive_emotions:
    /\b(sorry|apolog\w*|frustrat\w*|overwhelm\w*|anxious|panic\w*|upset|angry|hostile|yell\w*|insult\w*|I'?m afraid|deeply regret|embarrass\w*|distress\w*|agitat\w*|ashamed|terrible mistake)\b/i,
  attribution_errors:
    /\b(flaky|buggy|must be (a )?bug|bug in (the )?\w+|(the )?(api|tool|tests?|environment|server|library|framework|sandbox|database|data|ci) (is|are|was|were|must be|seems?) (broken|wrong|flaky|buggy|down|corrupt\w*|bad|faulty|incorrect|unreliable)|not my fault|out of my control|bad luck|random(ly)? fail\w*|impossible|always fails|will never work)\b/i
}

const STABLE = /\b(always|never|impossible|fundamental(ly)?|inherent(ly)?|every time|no way|permanent(ly)?|cannot ever)\b/gi
const EXTERNAL =
  /\b((the )?(api|tool|tests?|environment|server|library|framework|sandbox|database|data|ci|infrastructure|network|user) (is|are|was|were|must be|seems?) (broken|wrong|flaky|buggy|down|corrupt\w*|bad|faulty|incorrect|unreliable)|flaky|bug in (the )?\w+|out of my control|not my fault)\b/gi
const INTERNAL_CONTROLLABLE =
  /\b(my (mistake|error|approach|fix|code|query|assumption)|I (misread|forgot|missed|overlooked|used the wrong|passed the wrong|did not (check|start|run|read))|I should have)\b/gi
const APOLOGY = /\b(sorry|apolog\w*)\b/gi
const CAUSE_WORDS = /\b(because|due to|since|caused by|the reason)\b/i

const NUMBER_WORDS: Readonly<Record<string, number>> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  twelve: 12,
  twenty: 20
}

const ATTEMPTS =
  /\b(\d+|one|two|three|four|five|six|seven|eight|nine|ten|twelve|twenty)\s+(?:failed\s+|unsuccessful\s+)?(attempts?|tries|retries|runs|iterations|failures|rounds)\b/i

/** The number of attempts the abandonment mentions ("after 3 failed attempts"), or null. */
export const attemptsBeforeAbandonment = (text: string): number | null => {
  const match = ATTEMPTS.exec(text)
  const raw = match?.[1]?.toLowerCase()
  if (raw === undefined) return null
  const word = NUMBER_WORDS[raw]
  return word ?? Number.parseInt(raw, 10)
}

const occurrences = (pattern: RegExp, texts: ReadonlyArray<string>): number =>
  texts.reduce((total, text) => total + (text.match(pattern)?.length ?? 0), 0)

/** The trap with most marked elements (ties go to the earlier trap in TRAPS); null without markers. */
export const dominantTrap = (counts: Readonly<Record<Trap, number>>): Trap | null => {
  let best: Trap | null = null
  let bestCount = 0
  for (const trap of TRAPS) {
    if (counts[trap] > bestCount) {
      best = trap
      bestCount = counts[trap]
    }
  }
  return best
}

export const motivationTrapsSignals = (trace: MotivationTrapsTrace): Signals => {
  const behaviors = trace.observed_behaviors
  const priors = trace.prior_failures ?? []
  // the elements read for markers: every behaviour plus the abandonment signal
  const elements: ReadonlyArray<{ readonly ref: string; readonly text: string }> = [
    ...behaviors.map((text, i) => ({ ref: `observed_behaviors[${i}]`, text })),
    { ref: "abandonment_signal", text: trace.abandonment_signal }
  ]
  const marked: Record<Trap, Array<string>> = {
    values_mismatch: [],
    lack_of_self_efficacy: [],
    disruptive_emotions: [],
    attribution_errors: []
  }
  for (const element of elements) {
    for (const trap of TRAPS) if (TRAP_MARKERS[trap].test(element.text)) marked[trap].push(element.ref)
  }
  const counts: Record<Trap, number> = {
    values_mismatch: marked.values_mismatch.length,
    lack_of_self_efficacy: marked.lack_of_self_efficacy.length,
    disruptive_emotions: marked.disruptive_emotions.length,
    attribution_errors: marked.attribution_errors.length
  }
  const dominant = dominantTrap(counts)
  const texts = elements.map((e) => e.text)
  const external = occurrences(EXTERNAL, texts)
  const internal = occurrences(INTERNAL_CONTROLLABLE, texts)
  const repeatedPriors = repeatedIndices(priors)
  const abandonmentTraps = TRAPS.filter((trap) => TRAP_MARKERS[trap].test(trace.abandonment_signal))

  const highlights: Array<Highlight> = [
    {
      ref: "abandonment_signal",
      reason: abandonmentTraps.length === 0 ? "the abandonment itself" : `the abandonment, worded as ${abandonmentTraps.join(", ")}`
    }
  ]
  if (dominant !== null) {
    for (const ref of marked[dominant]) highlights.push({ ref, reason: `worded as ${dominant}, the most frequent trap marker` })
  }
  for (const i of repeatedPriors) highlights.push({ ref: `prior_failures[${i}]`, reason: "repeats an earlier failure" })

  return signals(
    {
      behavior_count: behaviors.length,
      prior_failure_count: priors.length,
      repeated_prior_failures: repeatedPriors.length,
      trap_marker_elements: counts,
      trap_marker_shares: {
        values_mismatch: ratio(counts.values_mismatch, elements.length),
        lack_of_self_efficacy: ratio(counts.lack_of_self_efficacy, elements.length),
        disruptive_emotions: ratio(counts.disruptive_emotions, elements.length),
        attribution_errors: ratio(counts.attribution_errors, elements.length)
      },
      dominant_marker_trap: dominant,
      traps_marked: TRAPS.filter((trap) => counts[trap] > 0).length,
      abandonment_marker_traps: abandonmentTraps,
      abandonment_states_cause: CAUSE_WORDS.test(trace.abandonment_signal),
      attempts_before_abandonment: attemptsBeforeAbandonment(trace.abandonment_signal),
      apology_count: occurrences(APOLOGY, texts),
      stable_cause_words: occurrences(STABLE, texts),
      external_cause_mentions: external,
      internal_controllable_mentions: internal,
      external_attribution_share: external + internal === 0 ? null : ratio(external, external + internal)
    },
    highlights
  )
}
