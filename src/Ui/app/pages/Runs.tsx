/**
 * Runs (the landing page): the scope's runs, newest first, each named by its task and shown with
 * its outcome, its top failure (named by its anchor) and its counts of checks and findings
 * (DECISIONS §25), with the list's filters and a search by external id or trace id, all in the
 * URL. The page polls its list with the last ETag, so a run's status changes on screen without a
 * reload.
 */
import { type Run, RunList } from "../../../Contract/RunsContract.js"
import { usePolled } from "../api.js"
import { hrefOf, Link, useLocation } from "../router.js"
import { Badge, type Field, FilterForm, Labels, Loading, Notice, Page, Pager, When } from "../ui.js"

const FIELDS: ReadonlyArray<Field> = [
  { name: "q", label: "Search", type: "search", placeholder: "external id or trace id" },
  { name: "status", label: "Status", options: ["queued", "running", "done", "failed", "skipped"] },
  { name: "severity", label: "Severity", options: ["critical", "high", "medium", "low", "none"] },
  { name: "pattern", label: "Pattern", placeholder: "lewin" },
  { name: "problem", label: "Problem", placeholder: "prb_…" },
  { name: "label", label: "Label", placeholder: "version:1.4" },
  { name: "since", label: "Since", type: "date" },
  { name: "until", label: "Until", type: "date" }
]
const POLL_MS = 2_000

/** The list's API paths for the page's URL: `q` is an external id or a trace id (both asked, shown together). */
const apiPaths = (search: URLSearchParams): ReadonlyArray<string> => {
  const common = {
    status: search.get("status"),
    severity: search.get("severity"),
    pattern: search.get("pattern"),
    problem: search.get("problem"),
    label: search.get("label"),
    since: search.get("since"),
    until: search.get("until"),
    cursor: search.get("cursor")
  }
  const q = search.get("q")
  if (q === null || q === "") return [hrefOf("/v1/runs", common)]
  return [hrefOf("/v1/runs", { ...common, external_id: q }), hrefOf("/v1/runs", { ...common, trace_id: q })]
}

/** A content-free trace has no task to name it by (its trace id is shown below the name). */
export const UNTITLED = "Untitled run (no message content)"

/** A run's name in the list: its task's first words, else (no report yet) the caller's or the source's id. */
const nameOf = (run: Run): string =>
  run.summary === null ? run.external_id ?? run.trace_id ?? run.id : run.summary.task.length > 0 ? run.summary.task : UNTITLED

const TopFailure = (props: { readonly run: Run }) => {
  const failure = props.run.summary?.top_failure ?? null
  if (failure === null) return <span class="muted">{props.run.summary === null ? "–" : "none"}</span>
  return (
    <>
      {failure.title} <Badge kind="severity" value={failure.severity} />
      <div class="muted">
        <code>{failure.check ?? failure.pattern ?? ""}</code>
      </div>
    </>
  )
}

export const RunsPage = () => {
  const { search } = useLocation()
  const { values, error } = usePolled(apiPaths(search), RunList, POLL_MS)
  const seen = new Set<string>()
  const runs = values === null ? null : values.flatMap((page) => page.runs).filter((run) => (seen.has(run.id) ? false : (seen.add(run.id), true)))
  const next = values?.[0]?.next_cursor ?? null
  const filters = Object.fromEntries(FIELDS.map((field) => [field.name, search.get(field.name)]))
  const filtered = FIELDS.some((field) => search.get(field.name) !== null)
  const firstPage = search.get("cursor") === null ? null : hrefOf("/ui/runs", filters)
  const nextPage = next === null ? null : hrefOf("/ui/runs", { ...filters, cursor: next })

  return (
    <Page title="Runs" actions={<Link class="button" href="/ui/submit">Submit traces</Link>}>
      <FilterForm path="/ui/runs" fields={FIELDS} label="Filter runs" search />
      {error === null ? null : <Notice kind="error">{error}</Notice>}
      {runs === null ? (error === null ? <Loading /> : null) : runs.length === 0 ? (
        <Notice kind="info">{filtered ? "No run matches these filters." : "No runs yet: submit a trace, or point an OpenTelemetry exporter here (Connect)."}</Notice>
      ) : (
        <table class="list">
          <caption class="visually-hidden">Runs, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Task</th>
              <th scope="col">Status</th>
              <th scope="col">Top failure</th>
              <th scope="col">Checks</th>
              <th scope="col">Findings</th>
              <th scope="col">Submitted</th>
              <th scope="col">Labels</th>
            </tr>
          </thead>
          <tbody>
            {runs.map((run) => (
              <tr key={run.id} data-run={run.id}>
                <td>
                  <Link href={`/ui/runs/${encodeURIComponent(run.id)}`}>{nameOf(run)}</Link>
                  {run.summary === null || run.summary.outcome.length === 0 ? null : <div class="muted">ended: {run.summary.outcome}</div>}
                  {run.summary === null ? null : <div class="muted">{run.external_id ?? run.trace_id ?? ""}</div>}
                </td>
                <td>
                  <Badge kind="status" value={run.status} />
                  {run.reason === null ? null : <span class="muted"> {run.reason}</span>}
                  <div class="muted">{run.source}</div>
                </td>
                <td>
                  <TopFailure run={run} />
                </td>
                <td>{run.summary === null ? <span class="muted">–</span> : run.summary.checks}</td>
                <td>{run.summary === null ? <span class="muted">–</span> : run.summary.findings}</td>
                <td>
                  <When iso={run.submitted_at} />
                </td>
                <td>
                  <Labels labels={run.labels} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager first={firstPage} next={nextPage} />
    </Page>
  )
}
