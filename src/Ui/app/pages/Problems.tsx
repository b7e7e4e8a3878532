/**
 * Problems: the same failure across the scope's runs (DECISIONS §19), most recently seen first,
 * with their trend, counts, versions and status, filters in the URL; an admin key resolves,
 * ignores or reopens one here, and merges on the problem's page.
 */
import { useEffect, useState } from "preact/hooks"
import { type Problem, ProblemList } from "../../../Contract/ProblemsContract.js"
import { call, poll } from "../api.js"
import { hrefOf, Link, useLocation } from "../router.js"
import { Badge, type Field, FilterForm, Loading, Notice, Page, Pager, TrendChart, When } from "../ui.js"

const FIELDS: ReadonlyArray<Field> = [
  { name: "status", label: "Status", options: ["open", "regressed", "resolved", "ignored"] },
  { name: "severity", label: "Severity", options: ["critical", "high", "medium", "low"] },
  { name: "pattern", label: "Pattern", placeholder: "lewin" },
  { name: "label", label: "Label", placeholder: "version:1.4" }
]

/** Resolve, ignore or reopen; what went wrong, or null. */
export const setStatus = (id: string, status: "open" | "resolved" | "ignored", version: string | null) =>
  call((client) =>
    client.problems.updateProblem({ path: { id }, payload: status === "resolved" && version !== null && version !== "" ? { status, resolved_in_version: version } : { status } })
  ).then((answer) => (answer.ok ? null : answer.message))

export const StatusActions = (props: { readonly problem: Problem; readonly changed: () => void }) => {
  const [error, setError] = useState<string | null>(null)
  const act = (status: "open" | "resolved" | "ignored") => () => void setStatus(props.problem.id, status, null).then((message) => (message === null ? props.changed() : setError(message)))
  const { status } = props.problem
  return (
    <span class="actions">
      {status === "resolved" || status === "ignored" ? (
        <button type="button" onClick={act("open")}>
          Reopen
        </button>
      ) : (
        <>
          <button type="button" onClick={act("resolved")}>
            Resolve
          </button>
          <button type="button" onClick={act("ignored")}>
            Ignore
          </button>
        </>
      )}
      {error === null ? null : <Notice kind="error">{error}</Notice>}
    </span>
  )
}

export const ProblemsPage = () => {
  const { search } = useLocation()
  const key = search.toString()
  const filters = Object.fromEntries(FIELDS.map((field) => [field.name, search.get(field.name)]))
  const filtered = FIELDS.some((field) => search.get(field.name) !== null)
  const [problems, setProblems] = useState<ReadonlyArray<Problem> | null>(null)
  const [next, setNext] = useState<string | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [round, setRound] = useState(0)

  useEffect(() => {
    let stopped = false
    setError(null)
    const path = hrefOf("/v1/problems", { ...filters, cursor: search.get("cursor") })
    void poll(path, ProblemList, null).then((answer) => {
      if (stopped) return
      if (answer._tag !== "Value") return setError(answer._tag === "Failed" ? answer.message : null)
      setProblems(answer.value.problems)
      setNext(answer.value.next_cursor)
    })
    return () => {
      stopped = true
    }
  }, [key, round])

  return (
    <Page title="Problems" actions={<Link href="/ui/compare">Compare versions</Link>}>
      <FilterForm path="/ui/problems" fields={FIELDS} label="Filter problems" search />
      {error === null ? null : <Notice kind="error">{error}</Notice>}
      {problems === null ? (error === null ? <Loading /> : null) : problems.length === 0 ? (
        <Notice kind="info">{filtered ? "No problem matches these filters." : "No problems yet: they appear when done runs have findings."}</Notice>
      ) : (
        <table class="list">
          <caption class="visually-hidden">Problems, most recently seen first</caption>
          <thead>
            <tr>
              <th scope="col">Problem</th>
              <th scope="col">Trend</th>
              <th scope="col">Runs</th>
              <th scope="col">Severity</th>
              <th scope="col">Status</th>
              <th scope="col">Last seen</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {problems.map((problem) => (
              <tr key={problem.id} data-problem={problem.id}>
                <td>
                  <Link href={`/ui/problems/${encodeURIComponent(problem.id)}`}>{problem.title}</Link>
                  <div class="muted">{problem.patterns.join(", ")}</div>
                </td>
                <td>{problem.recent === undefined ? null : <TrendChart counts={problem.recent} />}</td>
                <td>{problem.run_count}</td>
                <td>
                  <Badge kind="severity" value={problem.severity} />
                </td>
                <td>
                  <Badge kind="problem" value={problem.status} />
                  {problem.resolved_in_version === null ? null : <div class="muted">in {problem.resolved_in_version}</div>}
                </td>
                <td>
                  <When iso={problem.last_seen} />
                </td>
                <td>
                  <StatusActions problem={problem} changed={() => setRound((count) => count + 1)} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager
        first={search.get("cursor") === null ? null : hrefOf("/ui/problems", filters)}
        next={next === null ? null : hrefOf("/ui/problems", { ...filters, cursor: next })}
      />
    </Page>
  )
}
