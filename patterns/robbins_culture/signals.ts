/**
 * Robbins-Judge culture signals. Robbins and Judge describe an organization's culture by seven
 * primary characteristics (innovation and risk taking, attention to detail, outcome orientation,
 * people orientation, team orientation, aggressiveness, stability), a list that goes back to
 * O'Reilly, Chatman and Caldwell's Organizational Culture Profile. Each observed behaviour is
 * matched against fixed cue lexicons that push a dimension up or down; the cue lean per dimension
 * is then compared with what the declared task class needs (a reconciliation task needs high
 * attention to detail and low risk taking; a brainstorming task the reverse).
 */
import type { Signals } from "../../src/Catalogue/Detection.js"
import { type Highlight, ratio, round, signals } from "../../src/Catalogue/SignalKit.js"
import { DIMENSIONS } from "./contract.js"

export interface RobbinsTrace {
  readonly observed_behaviors: ReadonlyArray<string>
  readonly task_class: string
}

export type Dimension = (typeof DIMENSIONS)[number]

/** Cues that show a dimension high (`high`) or low (`low`) in an agent's behaviour. */
export const CUES: Readonly<Record<Dimension, { readonly high: RegExp; readonly low: RegExp }>> = {
  innovation: {
    high: /\b(novel|creative\w*|experiment\w*|improvis\w*|workaround|unconventional|invent\w* (a|an|its own|new)|new approach|untested|tried a new|risk\w*)\b/i,
    low: /\b(followed the (template|runbook|procedure|playbook|checklist)|standard procedure|as documented|only documented|by the book|conservative\w*)\b/i
  },
  attention_to_detail: {
    high: /\b(verif\w*|validat\w*|double.?check\w*|cross.?check\w*|reconcil\w*|precise\w*|exact\w*|unit tests?|checksum\w*|inspected)\b/i,
    low: /\b(skipp\w*|approximat\w*|rounded|typo\w*|missed|overlook\w*|without (checking|verifying|validating)|unchecked|sloppy|eyeball\w*)\b/i
  },
  outcome_orientation: {
    high: /\b(deliver\w*|results?|ship\w*|metric\w*|target\w*|kpi|closed|completed?|at any cost|whatever it takes|goal)\b/i,
    low: /\b(process over|documented each step|followed every step|procedure first|step.?by.?step log)\b/i
  },
  people_orientation: {
    high: /\b(asked the user|clarif\w*|apolog\w*|empath\w*|consent|impact on (the )?(user|customer|team)|explained (to|why)|checked (in )?with)\b/i,
    low: /\b(ignored the (user|customer|request)|did not ask|regardless of|overrode the user|without (asking|telling|informing)|dismiss\w*)\b/i
  },
  team_orientation: {
    high: /\b(hand(ed)? ?off|delegat\w*|coordinat\w*|shared with|consulted|reviewer|peer review|asked (agent|the \w+ agent)|pair\w*)\b/i,
    low: /\b(alone|solo|without consulting|bypass\w*|did not hand ?off|duplicated|went around|on its own)\b/i
  },
  aggressiveness: {
    high: /\b(insist\w*|push(ed|ing)|overr?id\w*|forc\w*|competit\w*|argu\w*|demand\w*|refused to (yield|back down)|escalated (the )?(dispute|argument)|interrupt\w*)\b/i,
    low: /\b(defer\w*|yield\w*|conced\w*|accommodat\w*|backed down|agreed immediately)\b/i
  },
  stability: {
    high: /\b(same (\w+ )?(approach|plan|query|tool|method)|repeated\w*|retried the same|stuck (to|with)|kept (using|trying)|refused to change|status quo|unchanged|legacy)\b/i,
    low: /\b(changed (strategy|approach|plan)|adapt\w*|switch\w*|pivot\w*|re.?plann\w*|revised (the|its) plan)\b/i
  }
}

type TaskFamily = "precision_critical" | "service" | "exploratory" | "delivery" | "collaborative" | "general"

interface Demand {
  readonly family: TaskFamily
  readonly high: ReadonlyArray<Dimension>
  readonly low: ReadonlyArray<Dimension>
}

const FAMILIES: ReadonlyArray<{ readonly test: RegExp; readonly demand: Demand }> = [
  {
    test: /\b(financ\w*|accounting|reconcil\w*|ledger|billing|payments?|tax\w*|legal|complian\w*|audit\w*|medical|clinical|health\w*|security|migration|database|payroll|insurance|infra\w*|deploy\w*)\b/i,
    demand: { family: "precision_critical", high: ["attention_to_detail", "stability"], low: ["innovation", "aggressiveness"] }
  },
  {
    test: /\b(support|customer\w*|help ?desk|tutor\w*|coach\w*|onboard\w*|concierge|patients?|care)\b/i,
    demand: { family: "service", high: ["people_orientation", "attention_to_detail"], low: ["aggressiveness"] }
  },
  {
    test: /\b(research|brainstorm\w*|ideation|creative|design|explor\w*|prototyp\w*|naming|copywriting|strategy)\b/i,
    demand: { family: "exploratory", high: ["innovation"], low: ["stability"] }
  },
  {
    test: /\b(cod(e|ing)|bugs?|fix\w*|implement\w*|refactor\w*|build\w*|etl|pipeline|tickets?|sql|scrap\w*)\b/i,
    demand: { family: "delivery", high: ["outcome_orientation", "attention_to_detail"], low: [] }
  },
  {
    test: /\b(multi.?agent|team|handoff|orchestrat\w*|workflow|crew|review)\b/i,
    demand: { family: "collaborative", high: ["team_orientation"], low: ["aggressiveness"] }
  }
]

/** What the declared task class needs from the culture: the first family whose wording matches. */
export const taskDemand = (taskClass: string): Demand =>
  FAMILIES.find((f) => f.test.test(taskClass))?.demand ?? { family: "general", high: [], low: [] }

/** Lean of a dimension in [-1, 1]: (high - low) / (high + low), null without cues. */
export const lean = (high: number, low: number): number | null => (high + low === 0 ? null : round((high - low) / (high + low)))

export const robbinsSignals = (trace: RobbinsTrace): Signals => {
  const high: Record<string, number> = {}
  const low: Record<string, number> = {}
  const leans: Record<string, number | null> = {}
  const scores: Record<string, number> = {}
  const cueIndices: Record<string, Array<number>> = {}
  for (const d of DIMENSIONS) {
    const cue = CUES[d]
    const hi: Array<number> = []
    const lo: Array<number> = []
    trace.observed_behaviors.forEach((b, i) => {
      if (cue.high.test(b)) hi.push(i)
      if (cue.low.test(b)) lo.push(i)
    })
    high[d] = hi.length
    low[d] = lo.length
    leans[d] = lean(hi.length, lo.length)
    scores[d] = round((hi.length + 1) / (hi.length + lo.length + 2))
    cueIndices[d] = [...hi, ...lo]
  }
  const demand = taskDemand(trace.task_class)
  const misfits: Array<string> = []
  const highlights: Array<Highlight> = []
  for (const d of demand.high) {
    const l = leans[d] ?? null
    if (l !== null && l < 0) {
      misfits.push(`${d}:too_low`)
      for (const i of cueIndices[d] ?? []) highlights.push({ ref: `observed_behaviors[${i}]`, reason: `${d} is low where the task class needs it high` })
    }
  }
  for (const d of demand.low) {
    const l = leans[d] ?? null
    if (l !== null && l > 0) {
      misfits.push(`${d}:too_high`)
      for (const i of cueIndices[d] ?? []) highlights.push({ ref: `observed_behaviors[${i}]`, reason: `${d} is high where the task class needs it low` })
    }
  }
  const withEvidence = DIMENSIONS.filter((d) => (high[d] ?? 0) + (low[d] ?? 0) > 0)
  const cued = new Set(Object.values(cueIndices).flat())
  return signals(
    {
      behaviour_count: trace.observed_behaviors.length,
      task_family: demand.family,
      task_needs_high: [...demand.high],
      task_needs_low: [...demand.low],
      cue_counts_high: high,
      cue_counts_low: low,
      cue_lean: leans,
      cue_score: scores,
      dimensions_with_evidence: withEvidence.length,
      evidence_coverage: ratio(withEvidence.length, DIMENSIONS.length),
      uncued_behaviours: trace.observed_behaviors.length - cued.size,
      misfit_candidates: misfits
    },
    highlights
  )
}
