/**
 * Runs the checks of the registry over one normalized trace (DECISIONS §23): each enabled check in
 * registry order, its findings given their title, evidence (quoted where the event has text,
 * described where it has none), playbook and fingerprint. Pure: no model, no network, no clock.
 */
import { createHash } from "node:crypto"
import { bySeverityDescending } from "../Catalogue/Severity.js"
import type { CheckEvidence, CheckFinding } from "../Contract/ChecksContract.js"
import { Lru } from "../Lru.js"
import type { NormalizedTrace, TraceEvent } from "../Traces/Model.js"
import type { Check, CheckSettings, Cited, RawFinding } from "./Check.js"
import { describeEvent } from "./Errors.js"
import { CHECKS } from "./Registry.js"
import { hasText, viewOf } from "./View.js"

/** Longest quote a finding's evidence takes of one event (a verbatim stretch from its start). */
const QUOTE = 300

/** What SVC_CHECKS_FILE says for one scope, resolved: the checks that run, and their settings. */
export interface ScopeChecks {
  readonly enabled: (id: string) => boolean
  readonly settingsOf: (check: Check) => CheckSettings
}

/** A scope's settings of each check, made on first use and kept: the checks run per trace, the settings never change. */
export const settingsOnce = (make: (check: Check) => CheckSettings): ((check: Check) => CheckSettings) => {
  const made = new WeakMap<Check, CheckSettings>()
  return (check) => {
    const known = made.get(check)
    if (known !== undefined) return known
    const settings = make(check)
    made.set(check, settings)
    return settings
  }
}

/** Every check on, at its defaults, no expected errors. */
export const DEFAULT_CHECKS: ScopeChecks = {
  enabled: () => true,
  settingsOf: settingsOnce((check) => ({
    threshold: (name) => check.thresholds?.[name]?.default ?? 0,
    expected: () => false
  }))
}

/** Fingerprints recently made, by what they hash: the same check on the same tool and agent recurs across traces, and hashing was a measurable part of the checks' cost. */
const fingerprints = new Lru<string, string>(4_096)

/** The fingerprint of a check finding (DECISIONS §24): the check, then its parts, hashed. */
export const checkFingerprint = (check: Check, raw: RawFinding): string => {
  let text = `check:${check.id}`
  for (const part of check.fingerprint) {
    const value = part === "tool" ? raw.tool : part === "error_class" ? raw.errorClass : raw.agent
    text += `\n${part}:${value ?? ""}`
  }
  const known = fingerprints.get(text)
  if (known !== undefined) return known
  const made = createHash("sha256").update(text).digest("hex").slice(0, 16)
  fingerprints.set(text, made)
  return made
}

const evidenceOf = (event: TraceEvent, cited: Cited): CheckEvidence => {
  const base = { ref: `events[${cited.event}]`, source: event.source, event: cited.event, actor: event.actor }
  if (!hasText(event)) return { ...base, quote: null, describes: describeEvent(event) }
  const wanted = cited.quote !== undefined && cited.quote.length > 0 && event.content.includes(cited.quote) ? cited.quote : event.content
  return { ...base, quote: wanted.slice(0, QUOTE) }
}

/** One check's findings as the report shows them. */
export const findingsOf = (check: Check, trace: NormalizedTrace, raws: ReadonlyArray<RawFinding>): ReadonlyArray<CheckFinding> =>
  raws.flatMap((raw) => {
    const evidence = raw.cites.flatMap((cited) => {
      const event = trace.events[cited.event]
      return event === undefined ? [] : [evidenceOf(event, cited)]
    })
    const [first, ...rest] = evidence
    if (first === undefined) return []
    return [{
      check: check.id,
      title: check.title,
      severity: raw.severity ?? check.severity,
      explanation: raw.explanation,
      playbook: check.playbooks[0] ?? null,
      fingerprint: checkFingerprint(check, raw),
      evidence: [first, ...rest]
    }]
  })

const bySeverity = (a: CheckFinding, b: CheckFinding): number => bySeverityDescending(a.severity, b.severity)

/**
 * The checks' findings on a trace: registry order, then by severity (most severe first, stable).
 * `checks` defaults to the registry; tests pass one check to count its work.
 */
export const runChecks = (trace: NormalizedTrace, scope: ScopeChecks = DEFAULT_CHECKS, checks: ReadonlyArray<Check> = CHECKS): ReadonlyArray<CheckFinding> => {
  const view = viewOf(trace)
  const found: Array<CheckFinding> = []
  for (const check of checks) {
    if (!scope.enabled(check.id)) continue
    const raws = check.run(view, scope.settingsOf(check))
    // most checks find nothing on most traces: evidence and fingerprints are made for findings only
    if (raws.length > 0) found.push(...findingsOf(check, trace, raws))
  }
  return found.length > 1 ? found.sort(bySeverity) : found
}
