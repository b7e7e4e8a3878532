/**
 * Grouping quality (issue 35, DECISIONS §19), measured on the table committed before the code
 * (labelled.ts, generator.ts): 300 runs of 38 labelled failures, each a variation of its failure
 * over a real fixture (other ids, numbers, timestamps, agents, tools' arguments, quoted values),
 * clustered by the fingerprint (src/Problems/Fingerprint.ts): B-cubed precision and recall at
 * least 0.9; and no two of the labelled distinct failures that share pattern and playbook merged.
 */
import { describe, expect, it } from "@effect/vitest"
import type { ReportFinding } from "../../../src/Contract/DiagnoseReport.js"
import { problemFindingsOf } from "../../../src/Problems/Fingerprint.js"
import type { NormalizedTrace } from "../../../src/Traces/Model.js"
import { baseTrace, bcubed, type Finding, runsOfTable, variations } from "./generator.js"
import { DISTINCT_PAIRS, LABELLED } from "./labelled.js"

/** A generated finding as the diagnose report holds it: its evidence placed on the trace. */
const reportFinding = (finding: Finding, trace: NormalizedTrace): ReportFinding => ({
  pattern: finding.pattern,
  id: "f1",
  title: finding.title,
  severity: finding.severity,
  confidence: 0.8,
  explanation: "",
  playbook: finding.playbook,
  evidence: finding.evidence.map((item) => ({ ref: `events[${item.event}]`, quote: item.quote, event: item.event, actor: trace.events[item.event]?.actor ?? null })),
  corroborated_by: []
})

const fingerprintOf = (finding: Finding, trace: NormalizedTrace): string => {
  const [joined] = problemFindingsOf([reportFinding(finding, trace)], trace)
  if (joined === undefined) throw new Error(`a finding that should join did not: ${finding.title}`)
  return joined.fingerprint
}

describe("grouping quality (the labelled table)", () => {
  it("clusters 300 varied runs by label: B-cubed precision and recall >= 0.9", () => {
    const runs = runsOfTable(300, 1)
    expect(runs.length).toBeGreaterThanOrEqual(300)
    const scored = bcubed(runs.map((run) => ({ label: run.label, cluster: fingerprintOf(run.finding, run.trace) })))
    console.log(`grouping quality: B-cubed precision ${scored.precision.toFixed(3)}, recall ${scored.recall.toFixed(3)} over ${runs.length} runs`)
    expect(scored.precision).toBeGreaterThanOrEqual(0.9)
    expect(scored.recall).toBeGreaterThanOrEqual(0.9)
  })

  it("merges none of the labelled distinct failures that share pattern and playbook (each in several variations)", () => {
    expect(DISTINCT_PAIRS.length).toBeGreaterThanOrEqual(50)
    const fingerprints = new Map<string, Set<string>>()
    for (const base of LABELLED) {
      const trace = baseTrace(base)
      const seen = new Set([fingerprintOf({ pattern: base.pattern, playbook: base.playbook, severity: base.severity, title: base.title, evidence: [{ event: base.event, quote: base.quote }] }, trace)])
      for (const run of variations(base, trace, 8, 7)) seen.add(fingerprintOf(run.finding, run.trace))
      fingerprints.set(base.label, seen)
    }
    const merged = DISTINCT_PAIRS.filter(([a, b]) => {
      const left = fingerprints.get(a) ?? new Set()
      return [...(fingerprints.get(b) ?? [])].some((fingerprint) => left.has(fingerprint))
    })
    expect(merged).toEqual([])
  })
})
