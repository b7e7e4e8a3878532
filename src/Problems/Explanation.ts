/**
 * A problem's explanation (DECISIONS §24), read from its exemplars: the runs whose lenses explained
 * the failure. The verdict is the latest exemplar's anchor explanation; the perspectives are the
 * lenses' views (and further checks) across exemplars, each once with how many exemplars hold it;
 * the interventions are the exemplars' own for this failure, the same change merged, ranked by how
 * many exemplars propose it, then impact, then effort. Pure: the store reads the exemplars.
 */
import type { RankedIntervention } from "../Contract/DiagnoseReport.js"
import type { ExampleEvidence, ProblemFinding } from "./Fingerprint.js"

export interface Exemplar {
  readonly runId: string
  readonly finding: ProblemFinding
}

export interface Explanation {
  readonly verdict: string
  readonly exemplars: ReadonlyArray<string>
  readonly perspectives: ReadonlyArray<{
    readonly pattern: string | null
    readonly check: string | null
    readonly title: string
    readonly severity: ProblemFinding["severity"]
    readonly explanation: string
    readonly evidence: ReadonlyArray<ExampleEvidence>
    readonly runs: number
  }>
  readonly interventions: ReadonlyArray<RankedIntervention>
}

const LEVEL = { low: 0, medium: 1, high: 2 } as const

/** The explanation of a problem from its exemplars, newest first. */
export const explanationOf = (exemplars: ReadonlyArray<Exemplar>): Explanation => {
  const latest = exemplars[0]?.finding
  const perspectives = new Map<string, { value: Explanation["perspectives"][number]; runs: number }>()
  const interventions = new Map<string, { value: RankedIntervention; runs: number }>()
  for (const { finding } of exemplars) {
    const seenHere = new Set<string>()
    for (const perspective of finding.perspectives ?? []) {
      const key = `${perspective.pattern ?? ""}\u0000${perspective.check ?? ""}\u0000${perspective.title}`
      if (seenHere.has(key)) continue
      seenHere.add(key)
      const held = perspectives.get(key)
      // the newest exemplar's words are kept; the count is of exemplars
      if (held === undefined) perspectives.set(key, { value: { ...perspective, runs: 0 }, runs: 1 })
      else held.runs += 1
    }
    const proposedHere = new Set<string>()
    for (const intervention of finding.interventions ?? []) {
      const key = intervention.playbook === null ? `${intervention.type}\u0000${intervention.description}` : `${intervention.pattern}\u0000${intervention.playbook}`
      if (proposedHere.has(key)) continue
      proposedHere.add(key)
      const held = interventions.get(key)
      if (held === undefined) interventions.set(key, { value: intervention, runs: 1 })
      else held.runs += 1
    }
  }
  const ranked = Array.from(interventions.values())
    .sort((a, b) => b.runs - a.runs || LEVEL[b.value.impact] - LEVEL[a.value.impact] || LEVEL[a.value.effort] - LEVEL[b.value.effort] || a.value.rank - b.value.rank)
    .map((entry, index) => ({ ...entry.value, rank: index + 1 }))
  return {
    verdict: latest === undefined ? "" : latest.explanation ?? latest.title,
    exemplars: exemplars.map((exemplar) => exemplar.runId),
    perspectives: Array.from(perspectives.values()).map((entry) => ({ ...entry.value, runs: entry.runs })),
    interventions: ranked
  }
}
