/**
 * Runs (the landing page): the scope's runs, newest first, with the list's filters and a search
 * by external id or trace id, all in the URL. The page polls its list with the last ETag, so a
 * run's status changes on screen without a reload.
 */
import { RunList } from "../../../Contract/RunsContract.js"
import { usePolled } from "../api.js"
import { hrefOf, Link, useLocation } from "../router.js"
import { Badge, type Field, FilterForm, Labels, Loading, Notice, Page, Pager, When } from "../ui.js"

const FIELDS: ReadonlyArray<Field> = [
  { name: "q", label: "Search", type: "search", placeholder: "external id or trace id" },
  { name: "status", label: "Status", options: ["queued", "running", "done", "failed", "skipped"] },
  { name: "severity", label: "Severity", options: ["critical", "high", "medium", "low", "none"] },
  { name: "pattern", label: "Pattern", placeholder: "lewin" },
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
    label: search.get("label"),
    since: search.get("since"),
    until: search.get("until"),
    cursor: search.get("cursor")
  }
  const q = search.get("q")
  if (q === null || q === "") return [hrefOf("/v1/runs", common)]
  return [hrefOf("/v1/runs", { ...common, external_id: q }), hrefOf("/v1/runs", { ...common, trace_id: q })]
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
              <th scope="col">Run</th>
              <th scope="col">Status</th>
              <th scope="col">Severity</th>
              <th scope="col">Submitted</th>
              <th scope="col">Source</th>
              <th scope="col">Labels</th>
            </tr>
          </thead>
          <tbody>
            {runs.map((run) => (
              <tr key={run.id} data-run={run.id}>
                <td>
                  <Link href={`/ui/runs/${encodeURIComponent(run.id)}`}>{run.external_id ?? run.trace_id ?? run.id}</Link>
                </td>
                <td>
                  <Badge kind="status" value={run.status} />
                  {run.reason === null ? null : <span class="muted"> {run.reason}</span>}
                </td>
                <td>{run.severity === null ? <span class="muted">–</span> : <Badge kind="severity" value={run.severity} />}</td>
                <td>
                  <When iso={run.submitted_at} />
                </td>
                <td>{run.source}</td>
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
