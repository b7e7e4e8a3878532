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

/** What SVC_CHECKS_FILE says for one scope, resolved: the checks that run, and their settings; fixed once made (the runner keeps its answers). */
export interface ScopeChecks {
  readonly enabled: (id: string) => boolean
  readonly settingsOf: (check: Check) => CheckSettings
}

/** Every check on, at its defaults, no expected errors. */
export const DEFAULT_CHECKS: ScopeChecks = {
  enabled: () => true,
  settingsOf: (check) => ({
    threshold: (name) => check.thresholds?.[name]?.default ?? 0,
    expected: () => false
  })
}

/** The checks a scope runs, each with its settings. */
type Plan = ReadonlyArray<{ readonly check: Check; readonly settings: CheckSettings }>

/**
 * Plans by scope and list of checks, made once: a scope's settings never change (SVC_CHECKS_FILE is
 * read at start-up), and asking each check whether it is on and for its settings on every trace was
 * a measurable part of the checks' cost.
 */
const plans = new WeakMap<ScopeChecks, WeakMap<ReadonlyArray<Check>, Plan>>()

const planOf = (scope: ScopeChecks, checks: ReadonlyArray<Check>): Plan => {
  let byChecks = plans.get(scope)
  if (byChecks === undefined) {
    byChecks = new WeakMap()
    plans.set(scope, byChecks)
  }
  let plan = byChecks.get(checks)
  if (plan === undefined) {
    plan = checks.filter((check) => scope.enabled(check.id)).map((check) => ({ check, settings: scope.settingsOf(check) }))
    byChecks.set(checks, plan)
  }
  return plan
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
  for (const { check, settings } of planOf(scope, checks)) {
    const raws = check.run(view, settings)
    // most checks find nothing on most traces: evidence and fingerprints are made for findings only
    if (raws.length > 0) found.push(...findingsOf(check, trace, raws))
  }
  return found.length > 1 ? found.sort(bySeverity) : found
}
