/**
 * One run: its status live (polled with ETag while it is queued or running), then its report: the
 * summary and decisive step, the findings with their evidence linked into the trace's timeline
 * (`#event-<n>` anchors), the interventions with their playbooks, the triage, the cost and the
 * redactions, the problems it joined, and the report's other outputs to download.
 */
import { useEffect, useState } from "preact/hooks"
import { RunTrace, RunWithReport } from "../../../Contract/RunsContract.js"
import { call, download, usePolled } from "../api.js"
import { Link, useLocation } from "../router.js"
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
          <Badge kind="severity" value={report.severity} /> confidence {report.confidence} · {report.mode} mode
          {report.model === null ? null : ` · ${report.model}`}
        </p>
        <p>{report.summary}</p>
        {report.decisive_step === null ? null : (
          <div class="decisive">
            <h3>Decisive step</h3>
            <p>
              <a href={`#event-${report.decisive_step.event}`}>event {report.decisive_step.event}</a> by {report.decisive_step.actor}
            </p>
          </div>
        )}
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
      <section aria-labelledby="findings">
        <h2 id="findings">Findings ({report.findings.length})</h2>
        {report.findings.length === 0 ? <p class="muted">No finding.</p> : (
          <ol class="findings">
            {report.findings.map((finding) => (
              <li key={`${finding.pattern}/${finding.id}`}>
                <h3>
                  {finding.title} <Badge kind="severity" value={finding.severity} />
                </h3>
                <p class="muted">{finding.pattern}</p>
                <Evidence evidence={finding.evidence} eventHref={(event) => `#event-${event}`} />
              </li>
            ))}
          </ol>
        )}
      </section>
      <section aria-labelledby="interventions">
        <h2 id="interventions">Interventions</h2>
        {report.interventions.length === 0 ? <p class="muted">None.</p> : (
          <ol>
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
      <section aria-labelledby="triage">
        <h2 id="triage">Triage</h2>
        <table class="list">
          <thead>
            <tr>
              <th scope="col">Pattern</th>
              <th scope="col">Relevance</th>
            </tr>
          </thead>
          <tbody>
            {report.triage.map((entry) => (
              <tr key={entry.pattern}>
                <td>{entry.friendly}</td>
                <td>{entry.score.toFixed(2)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
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
      {props.trace.trace.events.map((event, index) => (
        <li key={index} id={`event-${index}`} tabIndex={-1} class={props.cited.has(index) ? "cited" : undefined}>
          <span class="event-head">
            <span class="event-index">{index}</span> <strong>{event.actor}</strong> <span class="muted">{event.kind}</span>
            {event.tool === undefined ? null : <span class="muted"> · {event.tool}</span>}
            {event.timestamp === undefined ? null : <span class="muted"> · {event.timestamp}</span>}
          </span>
          <pre class="event-text">{event.content}</pre>
        </li>
      ))}
    </ol>
  </section>
)

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

  const cited = new Set<number>()
  for (const finding of run?.report?.findings ?? []) for (const item of finding.evidence) if (item.event !== null) cited.add(item.event)
  if (run?.report?.decisive_step) cited.add(run.report.decisive_step.event)

  return (
    <Page title={run === null ? "Run" : `Run ${run.external_id ?? run.trace_id ?? run.id}`} actions={<Link href="/ui/runs">All runs</Link>}>
      {error === null ? null : <Notice kind="error">{error}</Notice>}
      {run === null ? (error === null ? <Loading /> : null) : (
        <>
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
