/**
 * One run, named by its task (DECISIONS §25): its status live (polled with ETag while it is queued
 * or running), then its verdict first (the failure holding the decisive step with the quote there,
 * its anchor, explanation, confidence and corroboration, then the interventions; for a trace
 * without content, the setting that turns content on), the checks' and lenses' findings with their
 * evidence linked into the timeline (`#event-<n>` anchors, error events marked), why each lens ran
 * or did not, the cost and the redactions, the problems it joined, and the report's downloads.
 */
import { useEffect, useState } from "preact/hooks"
import { RunTrace, RunWithReport } from "../../../Contract/RunsContract.js"
import { type Verdict, verdictOf } from "../../../Problems/Verdict.js"
import { CONTENT_SETTINGS } from "../../../Traces/ContentSettings.js"
import { call, download, usePolled } from "../api.js"
import { Link, useLocation } from "../router.js"
import { UNTITLED } from "./Runs.js"
import { Badge, Evidence, Labels, Loading, Notice, Page, When } from "../ui.js"

type RunView = typeof RunWithReport.Type
type Trace = typeof RunTrace.Type
type Report = NonNullable<RunView["report"]>

const POLL_MS = 1_500

const DOWNLOADS = [
  { output: "markdown", label: "Markdown", extension: "md" },
  { output: "sarif", label: "SARIF", extension: "sarif.json" },
  { output: "html", label: "HTML", extension: "html" },
  { output: "otlp", label: "OTLP", extension: "otlp.json" }
] as const

/** Focuses the timeline's event a link names (`#event-3`), so the keyboard follows the evidence. */
const useFocusedHash = (ready: boolean) => {
  const { hash } = useLocation()
  useEffect(() => {
    const focus = () => {
      const target = location.hash.length > 1 ? document.getElementById(location.hash.slice(1)) : null
      if (target !== null) {
        target.focus()
        target.scrollIntoView({ block: "center" })
      }
    }
    if (ready) focus()
    window.addEventListener("hashchange", focus)
    return () => window.removeEventListener("hashchange", focus)
  }, [hash, ready])
}

const percent = (value: number): string => `${Math.round(value * 100)}%`

/** The verdict (DECISIONS §25): what failed, with the quote at its decisive step, why, how sure, who else saw it; or that nothing did. */
const VerdictView = (props: { readonly run: RunView; readonly report: Report; readonly verdict: Verdict }) => {
  const { report, run, verdict } = props
  const failure = verdict.failure
  const problem = failure?.problem === null || failure?.problem === undefined ? undefined : run.problems?.find((each) => each.id === failure.problem)
  return (
    <section aria-labelledby="verdict" class="verdict-box">
      <h2 id="verdict">Verdict</h2>
      <p class="verdict-line" data-verdict>
        {verdict.line}
      </p>
      {failure === null ? null : (
        <div class="failure" data-failure>
          <h3>
            {failure.title} <Badge kind="severity" value={failure.severity} />
          </h3>
          <p class="muted">
            {failure.kind === "check" ? "check" : "lens"} <code>{failure.anchor}</code>
            {failure.event === null ? null : (
              <>
                {" "}· decisive step <a href={`#event-${failure.event}`}>event {failure.event}</a>
                {failure.actor === null ? null : ` by ${failure.actor}`}
              </>
            )}
          </p>
          {failure.quote === null ? null : <blockquote class="decisive-quote">{failure.quote}</blockquote>}
          {failure.explanation.length === 0 ? null : <p class="explanation">{failure.explanation}</p>}
          <dl class="facts" aria-label="How sure">
            <dt>Confidence</dt>
            <dd>{failure.confidence === null ? "deterministic: a check's rule, no model" : percent(failure.confidence)}</dd>
            <dt>Corroborated by</dt>
            <dd>{failure.corroboratedBy.length === 0 ? "nothing else" : failure.corroboratedBy.join(", ")}</dd>
            {problem === undefined ? null : (
              <>
                <dt>Problem</dt>
                <dd>
                  <Link href={`/ui/problems/${encodeURIComponent(problem.id)}`}>{problem.title}</Link> <Badge kind="problem" value={problem.status} />
                </dd>
              </>
            )}
            {run.explained_by === null ? null : (
              <>
                <dt>Explained by</dt>
                <dd>
                  <Link href={`/ui/problems/${encodeURIComponent(run.explained_by)}`}>its problem's explanation</Link> (a known failure: no lens read this run)
                </dd>
              </>
            )}
          </dl>
        </div>
      )}
      {verdict.contentSetting === null ? null : (
        <div class="content-off" data-content-setting>
          <h3>No content in this trace</h3>
          <p>
            No lens read it and no model was called: its events hold no message text
            {report.content?.instrumentation === null || report.content?.instrumentation === undefined ? "" : ` (recorded by ${CONTENT_SETTINGS[report.content.instrumentation].name})`}. To turn
            content on where the agent runs, set:
          </p>
          <pre class="code">{verdict.contentSetting}</pre>
        </div>
      )}
      <h3 id="interventions">Interventions</h3>
      {report.interventions.length === 0 ? <p class="muted">None proposed{run.explained_by === null ? "" : ": see its problem's"}.</p> : (
        <ol class="interventions">
          {report.interventions.map((intervention) => (
            <li key={intervention.rank}>
              <strong>{intervention.description}</strong>
              <div class="muted">
                {intervention.type} · impact {intervention.impact} · effort {intervention.effort} · {intervention.pattern}
                {intervention.playbook === null ? null : <> · playbook <code>{intervention.playbook}</code></>}
              </div>
              <p>{intervention.rationale}</p>
            </li>
          ))}
        </ol>
      )}
    </section>
  )
}

/** Why each lens ran or did not (the triage's reasons and skips), the ones that ran first. */
const TriageView = (props: { readonly report: Report }) => {
  const entries = [...props.report.triage].sort((a, b) => Number(b.chosen) - Number(a.chosen) || b.score - a.score)
  return (
    <section aria-labelledby="triage">
      <h2 id="triage">Which lenses read it, and why</h2>
      {entries.length === 0 ? <p class="muted">No lens was considered.</p> : (
        <ul class="triage">
          {entries.map((entry) => {
            const ran = props.report.patterns.find((run) => run.pattern === entry.pattern)
            const outcome = entry.chosen
              ? ran === undefined ? "ran" : ran.error === null ? "ran" : `ran and failed: ${ran.error.kind}`
              : entry.skipped === null ? "not chosen" : `skipped: ${entry.skipped}`
            return (
              <li key={entry.pattern} data-lens={entry.pattern}>
                <strong>{entry.friendly}</strong> <span class={entry.chosen ? "ran" : "muted"}>{outcome}</span>
                {entry.reasons.length === 0 ? null : <span class="muted"> · {entry.reasons.join("; ")}</span>}
              </li>
            )
          })}
        </ul>
      )}
    </section>
  )
}

const ReportView = (props: { readonly run: RunView; readonly report: Report }) => {
  const { report, run } = props
  const [downloadError, setDownloadError] = useState<string | null>(null)
  const usage = report.usage
  const redactions = Object.entries(report.trace.redactions)
  return (
    <>
      <section aria-labelledby="summary">
        <h2 id="summary">Summary</h2>
        <p>
          <Badge kind="severity" value={report.severity} /> confidence {percent(report.confidence)} · {report.mode} mode
          {report.model === null ? null : ` · ${report.model}`}
        </p>
        <p>{report.summary}</p>
        <dl class="facts" aria-label="The trace">
          <dt>Task</dt>
          <dd>{report.trace.task}</dd>
          <dt>Outcome</dt>
          <dd>{report.trace.outcome}</dd>
        </dl>
        {run.problems === undefined || run.problems.length === 0 ? null : (
          <div>
            <h3>Problems</h3>
            <ul>
              {run.problems.map((problem) => (
                <li key={problem.id}>
                  <Link href={`/ui/problems/${encodeURIComponent(problem.id)}`}>{problem.title}</Link> <Badge kind="severity" value={problem.severity} />{" "}
                  <Badge kind="problem" value={problem.status} />
                </li>
              ))}
            </ul>
          </div>
        )}
      </section>
      <section aria-labelledby="checks">
        <h2 id="checks">Checks ({report.checks.length})</h2>
        {report.checks.length === 0 ? <p class="muted">No check fired.</p> : (
          <ol class="findings">
            {report.checks.map((check, index) => (
              <li key={`${check.check}/${index}`}>
                <h3>
                  {check.title} <Badge kind="severity" value={check.severity} />
                </h3>
                <p class="muted">
                  check <code>{check.check}</code>
                  {check.playbook === null ? null : <> · playbook <code>{check.playbook}</code></>}
                </p>
                <p>{check.explanation}</p>
                <Evidence
                  evidence={check.evidence.map((item) => ({ quote: item.quote ?? item.describes ?? "", actor: item.actor, event: item.event, ref: item.ref }))}
                  eventHref={(event) => `#event-${event}`}
                />
              </li>
            ))}
          </ol>
        )}
      </section>
      <section aria-labelledby="findings">
        <h2 id="findings">Findings ({report.findings.length})</h2>
        {report.findings.length === 0 ? <p class="muted">No lens finding.</p> : (
          <ol class="findings">
            {report.findings.map((finding) => (
              <li key={`${finding.pattern}/${finding.id}`}>
                <h3>
                  {finding.title} <Badge kind="severity" value={finding.severity} />
                </h3>
                <p class="muted">
                  {finding.pattern} · confidence {percent(finding.confidence)} · {finding.corroborated_by.length === 0 ? "no other lens saw it" : `corroborated by ${finding.corroborated_by.join(", ")}`}
                </p>
                <p>{finding.explanation}</p>
                <Evidence evidence={finding.evidence} eventHref={(event) => `#event-${event}`} />
              </li>
            ))}
          </ol>
        )}
      </section>
      <TriageView report={report} />
      <section aria-labelledby="cost">
        <h2 id="cost">Cost and redactions</h2>
        <dl class="facts">
          <dt>Model calls</dt>
          <dd>{usage.llm_calls}</dd>
          <dt>Input tokens</dt>
          <dd>
            {usage.input_tokens} ({usage.cached_input_tokens} cached)
          </dd>
          <dt>Output tokens</dt>
          <dd>{usage.output_tokens}</dd>
          <dt>Time</dt>
          <dd>{(usage.elapsed_ms / 1000).toFixed(1)} s</dd>
          <dt>Redactions</dt>
          <dd>{redactions.length === 0 ? "none" : redactions.map(([kind, count]) => `${kind}: ${count}`).join(", ")}</dd>
        </dl>
      </section>
      <section aria-labelledby="downloads">
        <h2 id="downloads">Downloads</h2>
        <div class="actions">
          {DOWNLOADS.map((entry) => (
            <button
              key={entry.output}
              type="button"
              onClick={() =>
                void download(`/v1/runs/${encodeURIComponent(run.id)}/report?output=${entry.output}`, `run-${run.id}.${entry.extension}`).then(setDownloadError)}
            >
              {entry.label}
            </button>
          ))}
        </div>
        {downloadError === null ? null : <Notice kind="error">{downloadError}</Notice>}
      </section>
    </>
  )
}

const Timeline = (props: { readonly trace: Trace; readonly cited: ReadonlySet<number> }) => (
  <section aria-labelledby="timeline">
    <h2 id="timeline">Timeline ({props.trace.trace.events.length} events)</h2>
    <ol class="timeline">
      {props.trace.trace.events.map((event, index) => {
        const failed = event.status === "error"
        const classes = [props.cited.has(index) ? "cited" : "", failed ? "error" : ""].filter((name) => name.length > 0).join(" ")
        return (
          <li key={index} id={`event-${index}`} tabIndex={-1} class={classes === "" ? undefined : classes} data-error={failed ? "" : undefined}>
            <span class="event-head">
              <span class="event-index">{index}</span> <strong>{event.actor}</strong> <span class="muted">{event.kind}</span>
              {event.tool === undefined ? null : <span class="muted"> · {event.tool}</span>}
              {event.timestamp === undefined ? null : <span class="muted"> · {event.timestamp}</span>}
              {failed ? (
                <span class="event-error">
                  {" "}error{event.status_code === undefined ? "" : ` ${event.status_code}`}
                  {event.status_message === undefined ? "" : `: ${event.status_message}`}
                </span>
              ) : null}
            </span>
            <pre class="event-text">{event.content}</pre>
          </li>
        )
      })}
    </ol>
  </section>
)

/** A run's name: its task's first words once its report says them, else the caller's or the source's id. */
const runName = (run: RunView, verdict: Verdict | null): string =>
  verdict === null ? `Run ${run.external_id ?? run.trace_id ?? run.id}` : verdict.task.length > 0 ? verdict.task : UNTITLED

export const RunPage = (props: { readonly id: string }) => {
  const [trace, setTrace] = useState<Trace | null>(null)
  const ended = (runs: ReadonlyArray<RunView>) => runs.every((each) => each.status !== "queued" && each.status !== "running")
  const { values, error } = usePolled([`/v1/runs/${encodeURIComponent(props.id)}`], RunWithReport, POLL_MS, ended)
  const run = values?.[0] ?? null

  const finished = run !== null && run.status !== "queued" && run.status !== "running"
  useEffect(() => {
    if (!finished) return
    void call((client) => client.runs.getRunTrace({ path: { id: props.id } })).then((answer) => {
      if (answer.ok) setTrace(answer.value)
    })
  }, [finished, props.id])
  useFocusedHash(trace !== null)

  const verdict = run?.report === undefined || run === null ? null : verdictOf(run.report)
  const cited = new Set<number>()
  for (const finding of run?.report?.findings ?? []) for (const item of finding.evidence) if (item.event !== null) cited.add(item.event)
  if (run?.report?.decisive_step) cited.add(run.report.decisive_step.event)

  return (
    <Page title={run === null ? "Run" : runName(run, verdict)} actions={<Link href="/ui/runs">All runs</Link>}>
      {error === null ? null : <Notice kind="error">{error}</Notice>}
      {run === null ? (error === null ? <Loading /> : null) : (
        <>
          {run.report === undefined || verdict === null ? null : <VerdictView run={run} report={run.report} verdict={verdict} />}
          <dl class="facts" aria-label="The run">
            <dt>Status</dt>
            <dd>
              <span aria-live="polite" data-status={run.status}>
                <Badge kind="status" value={run.status} />
              </span>
              {run.reason === null ? null : ` (${run.reason})`}
            </dd>
            <dt>Id</dt>
            <dd>
              <code>{run.id}</code>
            </dd>
            <dt>Trace id</dt>
            <dd>{run.trace_id ?? "–"}</dd>
            <dt>External id</dt>
            <dd>{run.external_id ?? "–"}</dd>
            <dt>Source</dt>
            <dd>{run.source}</dd>
            <dt>Submitted</dt>
            <dd>
              <When iso={run.submitted_at} />
            </dd>
            <dt>Finished</dt>
            <dd>
              <When iso={run.finished_at} />
            </dd>
            <dt>Labels</dt>
            <dd>
              <Labels labels={run.labels} />
            </dd>
          </dl>
          {run.error === null ? null : (
            <Notice kind="error">
              {run.error.error}: {run.error.message}
            </Notice>
          )}
          {run.report === undefined ? null : <ReportView run={run} report={run.report} />}
          {trace === null ? null : <Timeline trace={trace} cited={cited} />}
        </>
      )}
    </Page>
  )
}
