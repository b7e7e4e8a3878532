/**
 * The grouping and alerting policy (DECISIONS §19, §24), pure: what a run's failure does to the
 * problem its fingerprint names, and which alerts that makes. The store's finish reads the problems
 * under their locks, asks this what to write, and writes it in the same transaction
 * (Store/Problems.ts `joinRun`): the rule lives here, the SQL there.
 *
 * - A problem's severity is the most severe of its runs'; its patterns, every lens that saw it.
 * - A resolved problem seen again regresses; resolved in a version, only on a version it was not
 *   seen on before it was resolved.
 * - Alerts (none for an ignored problem, none when the join is silent, as a regroup's replay is):
 *   `problem.new` when its first run is at or above the alert severity, `problem.severity` when a
 *   run lifts it across that severity, `problem.regressed` at most once a UTC day.
 */
import { maxSeverity, type Severity, severityRank } from "../Catalogue/Severity.js"
import type { ProblemFinding } from "./Fingerprint.js"
import { DAY_MS, type ProblemRecord, type WebhookEvent } from "./Model.js"

/** The alerts a join can make (a failed run's is the finish's, not the grouping's). */
export type ProblemAlert = Exclude<WebhookEvent, "run.failed">

/** What a run's failure does to its problem. */
export interface JoinPlan {
  /** The problem after the run joined it. */
  readonly updated: ProblemRecord
  /** Whether its regression alert is written now (the store notes when, for the once-a-day rule). */
  readonly regressionAlerted: boolean
  /** The alerts to write, in order. */
  readonly alerts: ReadonlyArray<ProblemAlert>
}

/** The lenses a failure was seen through: its lens anchor's and its perspectives' (a check anchor has none of its own). */
export const patternsOf = (finding: ProblemFinding): ReadonlyArray<string> =>
  Array.from(new Set([finding.pattern, ...(finding.perspectives ?? []).flatMap((perspective) => (perspective.pattern === null ? [] : [perspective.pattern]))]))
    .filter((pattern) => pattern.length > 0)

/** Per key, the most severe finding (the first of equals). */
export const mostSevereBy = <K>(findings: Iterable<ProblemFinding>, keyOf: (finding: ProblemFinding) => K | undefined): Map<K, ProblemFinding> => {
  const held = new Map<K, ProblemFinding>()
  for (const finding of findings) {
    const key = keyOf(finding)
    if (key === undefined) continue
    const before = held.get(key)
    if (before === undefined || severityRank(finding.severity) > severityRank(before.severity)) held.set(key, finding)
  }
  return held
}

/**
 * What joining `problem` (read under its lock) does: `finding` is the run's most severe finding of
 * it, `version` the run's `version` label, `minSeverity` SVC_ALERT_MIN_SEVERITY.
 */
export const planJoin = (
  problem: ProblemRecord,
  finding: ProblemFinding,
  run: { readonly now: number; readonly version: string | undefined; readonly silent: boolean },
  minSeverity: Severity
): JoinPlan => {
  const severity = maxSeverity([problem.severity, finding.severity])
  const regresses = problem.status === "resolved" &&
    (problem.resolvedInVersion === null || (run.version !== undefined && !problem.versionsBefore.includes(run.version)))
  const updated: ProblemRecord = {
    ...problem,
    severity,
    status: regresses ? "regressed" : problem.status,
    runCount: problem.runCount + 1,
    lastSeen: Math.max(problem.lastSeen, run.now),
    patterns: Array.from(new Set([...problem.patterns, ...patternsOf(finding)])).sort(),
    regressedAt: regresses ? run.now : problem.regressedAt
  }
  const regressionAlerted = regresses && (problem.regressionAlertedAt === null || problem.regressionAlertedAt <= run.now - DAY_MS)
  if (run.silent || updated.status === "ignored") return { updated, regressionAlerted, alerts: [] }
  const minRank = severityRank(minSeverity)
  const alerts: Array<ProblemAlert> = []
  if (problem.runCount === 0) {
    if (severityRank(severity) >= minRank) alerts.push("problem.new")
  } else if (severityRank(problem.severity) < minRank && severityRank(severity) >= minRank) {
    alerts.push("problem.severity")
  }
  if (regressionAlerted) alerts.push("problem.regressed")
  return { updated, regressionAlerted, alerts }
}
