/**
 * The MCP tools' names and the short text summaries of their results (Tools.ts): the first
 * content block of each, a few lines for the model, while `structuredContent` carries the whole
 * REST body.
 */
import type { Problem, ProblemDetail } from "../../Contract/ProblemsContract.js"
import type { CatalogueEntry } from "../../Catalogue/Catalogue.js"
import type { Detection } from "../../Catalogue/Detection.js"
import type { ChecksResponse } from "../../Contract/DiagnoseContract.js"
import type { DiagnoseReport } from "../../Contract/DiagnoseReport.js"
import type { Run, SubmitRunsResponse } from "../../Contract/RunsContract.js"

export const toolName = (slug: string) => `svc_${slug}`
export const DIAGNOSE_TOOL = "svc_diagnose"
export const CHECK_TOOL = "svc_check"
export const LIST_TOOL = "svc_list_patterns"
export const SUBMIT_RUN_TOOL = "svc_submit_run"
export const LIST_RUNS_TOOL = "svc_list_runs"
export const GET_RUN_TOOL = "svc_get_run"
export const EXPLAIN_RUN_TOOL = "svc_explain_run"
export const LIST_PROBLEMS_TOOL = "svc_list_problems"
export const GET_PROBLEM_TOOL = "svc_get_problem"

/** A detection in a few lines: headline, findings, the interventions to make. */
export const detectionSummary = (entry: CatalogueEntry, detection: Detection, cached: boolean): string => {
  const code = entry.pattern.code
  const lines = [
    `${code.friendly} (${code.slug}): severity ${detection.severity}, confidence ${detection.confidence.toFixed(2)}, profile ${detection.profile}${cached ? " (cached)" : ""}.`
  ]
  if (detection.summary.length > 0) lines.push(detection.summary)
  if (detection.findings.length > 0) {
    lines.push("Findings:")
    for (const finding of detection.findings.slice(0, 5)) {
      lines.push(`- ${finding.title} (${finding.severity}, ${finding.evidence.length} evidence quotes)`)
    }
  }
  if (detection.interventions.length > 0) {
    lines.push("Interventions:")
    for (const intervention of detection.interventions.slice(0, 3)) lines.push(`- ${intervention.type}: ${intervention.description}`)
  }
  lines.push("structuredContent holds the full detection, with the evidence quoted from the trace.")
  return lines.join("\n")
}

/** A diagnose in a few lines: verdict, decisive step, the first interventions. */
export const reportSummary = (report: DiagnoseReport): string => {
  const ran = report.patterns.filter((run) => run.error === null).length
  const lines = [
    `Diagnose of a ${report.trace.format} trace (${report.trace.events} events): severity ${report.severity}, confidence ${report.confidence.toFixed(2)}; ${ran} of ${report.patterns.length} lenses ran (${report.patterns.map((run) => `${run.pattern} ${run.status}`).join(", ")}).`,
    report.summary
  ]
  const step = report.decisive_step
  if (step !== null) lines.push(`Decisive step: event ${step.event} (${step.source}) by ${step.actor}, cited by ${step.patterns.join(", ")}.`)
  if (report.interventions.length > 0) {
    lines.push("Interventions, most valuable first:")
    for (const intervention of report.interventions.slice(0, 3)) lines.push(`${intervention.rank}. ${intervention.type}: ${intervention.description}`)
  }
  lines.push("structuredContent holds the whole report: findings with evidence, triage, usage.")
  return lines.join("\n")
}

/** The checks' answer in a few lines: the verdict, each finding with the events it cites, the decisive step. */
export const checksSummary = (result: ChecksResponse): string => {
  const lines = [
    result.checks.length === 0
      ? `Checks on a ${result.trace.format} trace (${result.trace.events} events): none fired.`
      : `Checks on a ${result.trace.format} trace (${result.trace.events} events): severity ${result.severity}, ${result.checks.length} finding(s).`
  ]
  for (const check of result.checks.slice(0, 8)) {
    lines.push(`- ${check.check} (${check.severity}): ${check.explanation} [${check.evidence.map((evidence) => evidence.ref).join(", ")}]`)
  }
  const step = result.decisive_step
  if (step !== null) lines.push(`Decisive step: event ${step.event} (${step.source}) by ${step.actor}.`)
  lines.push(`No model was called. structuredContent holds the findings with their evidence; ${DIAGNOSE_TOOL} adds the lenses.`)
  return lines.join("\n")
}

/** A submission in a few lines: the runs made or found, the traces refused. */
export const submittedSummary = (submitted: typeof SubmitRunsResponse.Type): string => {
  const lines = [`${submitted.runs.length} run(s) submitted, diagnosed in the background:`]
  for (const run of submitted.runs) lines.push(`- ${run.id}: ${run.status}${run.trace_id === null ? "" : ` (trace ${run.trace_id})`}`)
  if (submitted.rejected.length > 0) {
    lines.push(`${submitted.rejected.length} trace(s) refused:`)
    for (const refused of submitted.rejected.slice(0, 5)) lines.push(`- #${refused.index}: ${refused.error}: ${refused.message}`)
  }
  lines.push(`Follow a run with ${GET_RUN_TOOL} (its report once it is done).`)
  return lines.join("\n")
}

/** A run in one line: id, state and why, severity, when. */
const runLine = (run: Run): string => {
  const state = run.reason !== null ? `${run.status} (${run.reason})` : run.error !== null ? `${run.status} (${run.error.error}: ${run.error.message})` : run.status
  const named = run.external_id === null ? "" : `, external_id ${run.external_id}`
  return `${run.id}: ${state}${run.severity === null ? "" : `, severity ${run.severity}`}, submitted ${run.submitted_at}${named}`
}

/** A page of runs, one line each, and how to get the next. */
export const runListSummary = (list: { readonly runs: ReadonlyArray<Run>; readonly next_cursor: string | null }): string => {
  const lines = list.runs.length === 0 ? ["No runs match."] : [`${list.runs.length} run(s), newest first:`, ...list.runs.map((run) => `- ${runLine(run)}`)]
  if (list.next_cursor !== null) lines.push(`More: call ${LIST_RUNS_TOOL} again with cursor ${JSON.stringify(list.next_cursor)}.`)
  return lines.join("\n")
}

/** A run and, once done, its report in a few lines. */
export const runSummary = (run: Run & { readonly report?: DiagnoseReport }): string => {
  const lines = [`Run ${runLine(run)}; ${run.attempts} attempt(s).`]
  if (run.report !== undefined) lines.push(reportSummary(run.report))
  else if (run.status === "queued" || run.status === "running") lines.push(`Not done yet: call ${GET_RUN_TOOL} again later.`)
  return lines.join("\n")
}

/** A problem in one line: id, severity, status, runs, title. */
const problemLine = (problem: Problem): string =>
  `${problem.id}: ${problem.severity}, ${problem.status}, ${problem.run_count} run(s), last seen ${problem.last_seen}: ${problem.title}`

export const problemListSummary = (list: { readonly problems: ReadonlyArray<Problem>; readonly next_cursor: string | null }): string => {
  const lines = list.problems.length === 0
    ? ["No problems match."]
    : [`${list.problems.length} problem(s), most recently seen first:`, ...list.problems.map((problem) => `- ${problemLine(problem)}`)]
  if (list.next_cursor !== null) lines.push(`More: call ${LIST_PROBLEMS_TOOL} again with cursor ${JSON.stringify(list.next_cursor)}.`)
  else if (list.problems.length > 0) lines.push(`Details, example runs and interventions: ${GET_PROBLEM_TOOL}.`)
  return lines.join("\n")
}

/** A problem's detail in a few lines: the line, its trend, where it is seen, what to change, an example quote. */
export const problemSummary = (problem: ProblemDetail): string => {
  const lines = [`Problem ${problemLine(problem)}`, `Patterns: ${problem.patterns.join(", ")}; first seen ${problem.first_seen}.`]
  const days = problem.days.slice(-7)
  if (days.length > 0) lines.push(`Runs per day: ${days.map((day) => `${day.day} ${day.runs}`).join(", ")}.`)
  const labels = problem.labels.slice(0, 6)
  if (labels.length > 0) lines.push(`Seen with: ${labels.map((label) => `${label.key}=${label.value} (${label.runs})`).join(", ")}.`)
  for (const intervention of problem.interventions.slice(0, 3)) lines.push(`Change: ${intervention.title} (${intervention.pattern} playbook ${intervention.playbook}).`)
  const example = problem.examples[0]
  const quote = example?.evidence[0]
  if (example !== undefined && quote !== undefined) lines.push(`Example: run ${example.run_id}, "${quote.quote}".`)
  return lines.join("\n")
}
