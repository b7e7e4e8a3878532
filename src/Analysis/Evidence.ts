/**
 * Server-side grounding of a model's output: every evidence item must point at an existing trace
 * element and quote it (whitespace- and case-normalised); unverified evidence is dropped and
 * counted, a finding left without evidence is dropped, and playbook / pattern references that do
 * not exist are cleared. Pure.
 */
import type { ModelOutput } from "../Catalogue/Detection.js"
import { quoteOccurs } from "./TraceRefs.js"

export interface EvidenceCheck {
  readonly cited: number
  readonly verified: number
  readonly dropped: number
}

export interface GroundedOutput {
  readonly output: ModelOutput
  readonly check: EvidenceCheck
  readonly droppedFindings: ReadonlyArray<string>
}

export const groundOutput = (
  output: ModelOutput,
  trace: unknown,
  playbookKeys: ReadonlySet<string>,
  slugs: ReadonlySet<string>,
  self: string
): GroundedOutput => {
  let cited = 0
  let verified = 0
  const droppedFindings: Array<string> = []
  const findings = output.findings.flatMap((finding) => {
    const evidence = finding.evidence.filter((item) => {
      cited += 1
      const ok = quoteOccurs(trace, item.ref, item.quote)
      if (ok) verified += 1
      return ok
    })
    if (evidence.length === 0) {
      droppedFindings.push(finding.id)
      return []
    }
    return [{ ...finding, evidence, playbook: finding.playbook !== null && playbookKeys.has(finding.playbook) ? finding.playbook : null }]
  })
  const interventions = output.interventions.map((intervention) => ({
    ...intervention,
    playbook: intervention.playbook !== null && playbookKeys.has(intervention.playbook) ? intervention.playbook : null,
    compose_pattern: intervention.compose_pattern !== null && slugs.has(intervention.compose_pattern) &&
        intervention.compose_pattern !== self
      ? intervention.compose_pattern
      : null
  }))
  return {
    output: { ...output, findings, interventions },
    check: { cited, verified, dropped: cited - verified },
    droppedFindings
  }
}
