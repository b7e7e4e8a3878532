/**
 * Failures, not lens views (DECISIONS §24): within one run, the check findings and verified lens
 * findings that cite a common event (the system prompt, the user's task and de-duplicated history
 * do not count) or events of one tool call (the same `call_id`: the call, its result, its error)
 * are one failure. Its anchor is its most severe check finding (then registry order), or, without
 * a check, its most severe lens finding (then catalogue order); the others are its perspectives.
 * A failure's fingerprint is its anchor's: the check's (Checks/Run.ts: the check, the tool, the
 * error's class, the acting agent), or §19's without the pattern for a lens anchor. Pure and
 * deterministic; one pass over the findings' evidence with a union-find, so linear in the cited
 * events. docs/problems.md shows the rule with examples.
 */
import { severityRank } from "../Catalogue/Severity.js"
import type { CheckFinding } from "../Contract/ChecksContract.js"
import type { DiagnoseReport, ReportFailure, ReportFinding } from "../Contract/DiagnoseReport.js"
import type { NormalizedTrace } from "../Traces/Model.js"
import { citesOfEvent, type ExampleEvidence, exampleEvidenceOf, type FingerprintTrace, fingerprintOf, joinsProblem, namesOf, normalizeTitle, type ProblemFinding } from "./Fingerprint.js"

/** One failure of a run: its anchor, the fingerprint that groups it across runs, and its perspectives. */
export interface Failure {
  readonly anchor:
    | { readonly kind: "check"; readonly finding: CheckFinding }
    | { readonly kind: "finding"; readonly finding: ReportFinding }
  readonly fingerprint: string
  /** The other check findings of the failure, in registry order. */
  readonly checks: ReadonlyArray<CheckFinding>
  /** The lens findings of the failure other than the anchor, most severe first. */
  readonly perspectives: ReadonlyArray<ReportFinding>
  /** The events its findings cite, in order. */
  readonly events: ReadonlyArray<number>
}

/** A check finding that makes or joins a failure: at least `low` (info is a note, not a failure). */
const countsAsFailure = (check: CheckFinding): boolean => severityRank(check.severity) >= severityRank("low")

/**
 * The events that do not tie two findings together: system prompts, and the user's first message
 * (the task every finding of a run may quote).
 */
const sharedByAll = (trace: NormalizedTrace): ReadonlySet<number> => {
  const skipped = new Set<number>()
  let sawUser = false
  trace.events.forEach((event, index) => {
    if (event.role === "system") skipped.add(index)
    else if (!sawUser && event.role === "user" && event.kind === "message") {
      sawUser = true
      skipped.add(index)
    }
  })
  return skipped
}

/** The keys an event ties findings by: its tool call when it has a call id, else the event itself. */
const keyOf = (trace: NormalizedTrace, index: number): string => {
  const callId = trace.events[index]?.call_id
  return callId === undefined ? `event:${index}` : `call:${callId}`
}

/** The fingerprint of a lens anchor: §19's without the pattern (the playbook, the normalized title, what its first evidence cites). */
export const lensFingerprintOf = (finding: ReportFinding, trace: NormalizedTrace, names: ReadonlyArray<string> = namesOf(trace)): string => {
  const cites = citesOfEvent(trace, finding.evidence.find((item) => item.event !== null)?.event)
  return fingerprintOf({ pattern: "", playbook: finding.playbook, normalizedTitle: normalizeTitle(finding.title, names), cites })
}

/** Most severe first; a stable sort keeps the runner's registry order among equals (Checks/Run.ts lists them so). */
const byCheckAnchor = (a: CheckFinding, b: CheckFinding): number => severityRank(b.severity) - severityRank(a.severity)

/**
 * The run's failures: every check finding of at least `low` (in the runner's order: registry order
 * within a severity) and every lens finding that joins
 * problems (§19: a placed verified evidence, at least `low`), grouped. `patternOrder` is the
 * catalogue's order of the patterns (ties between lens anchors); `decisive` the decisive step's
 * event, whose failure comes first; the others by their anchor's severity, then first event.
 */
export const failuresOf = (
  trace: NormalizedTrace,
  checks: ReadonlyArray<CheckFinding>,
  findings: ReadonlyArray<ReportFinding>,
  patternOrder: ReadonlyArray<string> = [],
  decisive: number | null = null
): ReadonlyArray<Failure> => {
  const checked = checks.filter(countsAsFailure)
  const lensed = findings.filter(joinsProblem)
  const total = checked.length + lensed.length
  if (total === 0) return []
  // union-find over the findings (checks first, then lens findings), tied by the keys of the events they cite
  const parent = Array.from({ length: total }, (_, index) => index)
  const root = (index: number): number => {
    let at = index
    while (parent[at] !== at) {
      const up = parent[at] ?? at
      parent[at] = parent[up] ?? up
      at = up
    }
    return at
  }
  const skipped = sharedByAll(trace)
  const owner = new Map<string, number>()
  const eventsOf: Array<ReadonlyArray<number>> = [
    ...checked.map((check) => check.evidence.map((item) => item.event)),
    ...lensed.map((finding) => finding.evidence.flatMap((item) => (item.event === null ? [] : [item.event])))
  ]
  eventsOf.forEach((events, index) => {
    for (const event of events) {
      if (skipped.has(event)) continue
      const key = keyOf(trace, event)
      const held = owner.get(key)
      if (held === undefined) owner.set(key, index)
      else {
        const a = root(held)
        const b = root(index)
        if (a !== b) parent[Math.max(a, b)] = Math.min(a, b)
      }
    }
  })
  const groups = new Map<number, Array<number>>()
  for (let index = 0; index < total; index++) {
    const at = root(index)
    const group = groups.get(at)
    if (group === undefined) groups.set(at, [index])
    else group.push(index)
  }
  const rank = new Map(patternOrder.map((slug, index) => [slug, index]))
  const lensOrder = (a: ReportFinding, b: ReportFinding): number =>
    severityRank(b.severity) - severityRank(a.severity) || (rank.get(a.pattern) ?? patternOrder.length) - (rank.get(b.pattern) ?? patternOrder.length) ||
    a.pattern.localeCompare(b.pattern)
  const names = namesOf(trace)
  const failures = Array.from(groups.values()).flatMap((members): ReadonlyArray<Failure> => {
    const groupChecks = members.flatMap((index) => (index < checked.length ? [checked[index]] : [])).filter((check) => check !== undefined).sort(byCheckAnchor)
    const groupLens = members.flatMap((index) => (index >= checked.length ? [lensed[index - checked.length]] : [])).filter((finding) => finding !== undefined).sort(lensOrder)
    const events = Array.from(new Set(members.flatMap((index) => eventsOf[index] ?? []))).sort((a, b) => a - b)
    const [anchorCheck, ...otherChecks] = groupChecks
    if (anchorCheck !== undefined) {
      return [{ anchor: { kind: "check", finding: anchorCheck }, fingerprint: anchorCheck.fingerprint, checks: otherChecks, perspectives: groupLens, events }]
    }
    const [anchorLens, ...others] = groupLens
    // a group has a member: a lens finding when no check is in it
    return anchorLens === undefined
      ? []
      : [{ anchor: { kind: "finding", finding: anchorLens }, fingerprint: lensFingerprintOf(anchorLens, trace, names), checks: [], perspectives: others, events }]
  })
  const severityOf = (failure: Failure): number => severityRank(failure.anchor.finding.severity)
  return failures.sort((a, b) =>
    Number(decisive !== null && b.events.includes(decisive)) - Number(decisive !== null && a.events.includes(decisive)) ||
    severityOf(b) - severityOf(a) || (a.events[0] ?? 0) - (b.events[0] ?? 0)
  )
}

/** A failure as the report shows it; `problem` once the run's finish joined it to one. */
export const wireFailure = (failure: Failure, problem: string | null = null): ReportFailure => ({
  anchor: failure.anchor.kind === "check"
    ? { kind: "check", check: failure.anchor.finding.check, pattern: null, title: failure.anchor.finding.title, severity: failure.anchor.finding.severity }
    : { kind: "finding", check: null, pattern: failure.anchor.finding.pattern, title: failure.anchor.finding.title, severity: failure.anchor.finding.severity },
  fingerprint: failure.fingerprint,
  problem,
  perspectives: [
    ...failure.checks.map((check) => ({ pattern: null, check: check.check, title: check.title })),
    ...failure.perspectives.map((finding) => ({ pattern: finding.pattern, check: null, title: finding.title }))
  ],
  events: failure.events
})

/** A check's evidence as an example keeps it: its quote, or what the content-free event is. */
const checkEvidenceOf = (check: CheckFinding): ReadonlyArray<ExampleEvidence> =>
  exampleEvidenceOf(check.evidence.map((item) => ({ ref: item.ref, quote: item.quote ?? item.describes ?? "", event: item.event, actor: item.actor })))

/**
 * A run's failures as problems keep them (DECISIONS §24), from its report's `failures`: each
 * anchored by its check or lens finding, with its perspectives (pattern, title, explanation,
 * evidence) and the report's interventions its lenses or its check's playbook propose. Its
 * severity is the highest of its findings: the problem is never less severe than what it shows.
 */
export const problemFailuresOf = (report: DiagnoseReport, trace: FingerprintTrace): ReadonlyArray<ProblemFinding> => {
  const names = namesOf(trace)
  return report.failures.flatMap((failure): ReadonlyArray<ProblemFinding> => {
    const lens = (pattern: string | null, title: string) => report.findings.find((finding) => finding.pattern === pattern && finding.title === title)
    type Perspective = NonNullable<ProblemFinding["perspectives"]>[number]
    const perspectives = failure.perspectives.flatMap((perspective): ReadonlyArray<Perspective> => {
      if (perspective.check !== null) {
        const check = report.checks.find((each) => each.check === perspective.check)
        return check === undefined ? [] : [{ pattern: null, check: check.check, title: check.title, severity: check.severity, explanation: check.explanation, playbook: check.playbook, evidence: checkEvidenceOf(check) }]
      }
      const finding = lens(perspective.pattern, perspective.title)
      return finding === undefined
        ? []
        : [{ pattern: finding.pattern, check: null, title: finding.title, severity: finding.severity, explanation: finding.explanation, playbook: finding.playbook, evidence: exampleEvidenceOf(finding.evidence) }]
    })
    const lensPatterns = new Set(perspectives.flatMap((perspective) => (perspective.pattern === null ? [] : [perspective.pattern])))
    const anchor = failure.anchor
    const checkPlaybooks = new Set<string>()
    let base: Omit<ProblemFinding, "severity" | "perspectives" | "interventions" | "fingerprint">
    if (anchor.kind === "check") {
      const check = report.checks.find((each) => each.check === anchor.check && each.fingerprint === failure.fingerprint)
      if (check === undefined) return []
      if (check.playbook !== null) checkPlaybooks.add(check.playbook)
      base = {
        pattern: perspectives.find((perspective) => perspective.pattern !== null)?.pattern ?? "",
        playbook: check.playbook,
        title: check.title,
        normalizedTitle: normalizeTitle(check.title, names),
        cites: citesOfEvent(trace, check.evidence[0]?.event),
        evidence: checkEvidenceOf(check),
        check: check.check,
        explanation: check.explanation
      }
    } else {
      const finding = lens(anchor.pattern, anchor.title)
      if (finding === undefined) return []
      lensPatterns.add(finding.pattern)
      base = {
        pattern: finding.pattern,
        playbook: finding.playbook,
        title: finding.title,
        normalizedTitle: normalizeTitle(finding.title, names),
        cites: citesOfEvent(trace, finding.evidence.find((item) => item.event !== null)?.event),
        evidence: exampleEvidenceOf(finding.evidence),
        check: null,
        explanation: finding.explanation
      }
    }
    const severities = [anchor.severity, ...perspectives.map((perspective) => perspective.severity)]
    const severity = severities.reduce((top, each) => (severityRank(each) > severityRank(top) ? each : top), anchor.severity)
    const interventions = report.interventions.filter((intervention) =>
      lensPatterns.has(intervention.pattern) || intervention.also_from.some((pattern) => lensPatterns.has(pattern)) ||
      (intervention.playbook !== null && checkPlaybooks.has(`${intervention.pattern}/${intervention.playbook}`))
    )
    return [{ ...base, fingerprint: failure.fingerprint, severity, perspectives, interventions }]
  })
}
