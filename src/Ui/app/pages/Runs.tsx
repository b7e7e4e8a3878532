/**
 * Runs (the landing page): the scope's runs, newest first, with the list's filters and a search
 * by external id or trace id, all in the URL. The page polls its list with the last ETag, so a
 * run's status changes on screen without a reload.
 */
import { useEffect, useState } from "preact/hooks"
import { RunList } from "../../../Contract/RunsContract.js"
import { poll } from "../api.js"
import { hrefOf, Link, navigate, useLocation } from "../router.js"
import { Badge, Labels, Loading, Notice, Page, Pager, When } from "../ui.js"

type Run = (typeof RunList.Type)["runs"][number]

const FILTERS = ["status", "severity", "pattern", "label", "q", "since", "until"] as const
const STATUSES = ["queued", "running", "done", "failed", "skipped"]
const SEVERITIES = ["critical", "high", "medium", "low", "none"]
const POLL_MS = 2_000

/** The list's API path for the page's URL: `q` is an external id or a trace id (both asked, shown together). */
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
  const key = search.toString()
  const [runs, setRuns] = useState<ReadonlyArray<Run> | null>(null)
  const [next, setNext] = useState<string | null>(null)
  const [error, setError] = useState<string | null>(null)

  useEffect(() => {
    const paths = apiPaths(search)
    const tags: Array<string | null> = paths.map(() => null)
    const pages: Array<{ readonly runs: ReadonlyArray<Run>; readonly next: string | null } | null> = paths.map(() => null)
    let stopped = false
    let timer: ReturnType<typeof setTimeout> | undefined
    setRuns(null)
    setError(null)
    const round = async () => {
      const answers = await Promise.all(paths.map((path, index) => poll(path, RunList, tags[index] ?? null)))
      if (stopped) return
      let failed: string | null = null
      answers.forEach((answer, index) => {
        if (answer._tag === "Value") {
          tags[index] = answer.etag
          pages[index] = { runs: answer.value.runs, next: answer.value.next_cursor }
        } else if (answer._tag === "Failed") failed = answer.message
      })
      setError(failed)
      if (pages.every((page) => page !== null)) {
        const seen = new Set<string>()
        setRuns(pages.flatMap((page) => page?.runs ?? []).filter((run) => (seen.has(run.id) ? false : (seen.add(run.id), true))))
        setNext(pages[0]?.next ?? null)
      }
      timer = setTimeout(() => void round(), POLL_MS)
    }
    void round()
    return () => {
      stopped = true
      clearTimeout(timer)
    }
  }, [key])

  const apply = (event: Event) => {
    event.preventDefault()
    const form = event.currentTarget
    if (!(form instanceof HTMLFormElement)) return
    const data = new FormData(form)
    const query: Record<string, string> = {}
    for (const name of FILTERS) {
      const value = data.get(name)
      if (typeof value === "string" && value.trim() !== "") query[name] = value.trim()
    }
    navigate(hrefOf("/ui/runs", query))
  }

  const value = (name: string) => search.get(name) ?? ""
  const filtered = FILTERS.some((name) => search.get(name) !== null)
  const cursor = search.get("cursor")
  const firstPage = cursor === null ? null : hrefOf("/ui/runs", Object.fromEntries(FILTERS.map((name) => [name, search.get(name)])))
  const nextPage = next === null ? null : hrefOf("/ui/runs", { ...Object.fromEntries(FILTERS.map((name) => [name, search.get(name)])), cursor: next })

  return (
    <Page title="Runs" actions={<Link class="button" href="/ui/submit">Submit traces</Link>}>
      <form class="filters" onSubmit={apply} role="search" aria-label="Filter runs" key={key}>
        <label>
          Search <input name="q" type="search" placeholder="external id or trace id" defaultValue={value("q")} />
        </label>
        <label>
          Status
          <select name="status" defaultValue={value("status")}>
            <option value="">any</option>
            {STATUSES.map((status) => <option key={status} value={status}>{status}</option>)}
          </select>
        </label>
        <label>
          Severity
          <select name="severity" defaultValue={value("severity")}>
            <option value="">any</option>
            {SEVERITIES.map((severity) => <option key={severity} value={severity}>{severity}</option>)}
          </select>
        </label>
        <label>
          Pattern <input name="pattern" defaultValue={value("pattern")} placeholder="lewin" />
        </label>
        <label>
          Label <input name="label" defaultValue={value("label")} placeholder="version:1.4" />
        </label>
        <label>
          Since <input name="since" type="date" defaultValue={value("since")} />
        </label>
        <label>
          Until <input name="until" type="date" defaultValue={value("until")} />
        </label>
        <button type="submit">Apply</button>
        {filtered ? <Link href="/ui/runs">Clear</Link> : null}
      </form>
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
