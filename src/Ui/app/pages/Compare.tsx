/**
 * Compare: each problem's rate under two values of a label (two versions, by default), side by
 * side with the denominators (DECISIONS §19: traces received with the value, n), the largest
 * difference first. The label and values are in the URL.
 */
import { useEffect, useState } from "preact/hooks"
import { type ProblemComparison } from "../../../Contract/ProblemsContract.js"
import { call } from "../api.js"
import { Link, useLocation } from "../router.js"
import { Badge, type Field, FilterForm, Loading, Notice, Page } from "../ui.js"

const FIELDS: ReadonlyArray<Field> = [
  { name: "label", label: "Label", initial: "version", required: true },
  { name: "a", label: "A", placeholder: "1.3.0", required: true },
  { name: "b", label: "B", placeholder: "1.4.0", required: true }
]

const percent = (rate: number | null): string => (rate === null ? "–" : `${(rate * 100).toFixed(1)}%`)

export const ComparePage = () => {
  const { search } = useLocation()
  const label = search.get("label") ?? "version"
  const a = search.get("a") ?? ""
  const b = search.get("b") ?? ""
  const [comparison, setComparison] = useState<typeof ProblemComparison.Type | null>(null)
  const [error, setError] = useState<string | null>(null)
  const asked = a !== "" && b !== ""
  useEffect(() => {
    setComparison(null)
    setError(null)
    if (!asked) return
    let stopped = false
    void call((client) => client.problems.compareProblems({ urlParams: { label, a, b } })).then((answer) => {
      if (stopped) return
      if (answer.ok) setComparison(answer.value)
      else setError(answer.message)
    })
    return () => {
      stopped = true
    }
  }, [label, a, b])

  return (
    <Page title="Compare">
      <FilterForm path="/ui/compare" fields={FIELDS} label="What to compare" submit="Compare" />
      {error === null ? null : <Notice kind="error">{error}</Notice>}
      {!asked ? <Notice kind="info">Name a label and two of its values, such as two versions.</Notice> : comparison === null ? (error === null ? <Loading /> : null) : (
        <>
          <table class="list compare">
            <caption>
              {comparison.label}: {comparison.a.value} against {comparison.b.value}
            </caption>
            <thead>
              <tr>
                <th scope="col">Problem</th>
                <th scope="col">
                  {comparison.a.value} (n = {comparison.a.traces})
                </th>
                <th scope="col">
                  {comparison.b.value} (n = {comparison.b.traces})
                </th>
              </tr>
            </thead>
            <tbody>
              {comparison.problems.length === 0 ? (
                <tr>
                  <td colSpan={3} class="muted">
                    No problem was seen with either value.
                  </td>
                </tr>
              ) : comparison.problems.map((row) => (
                <tr key={row.problem.id}>
                  <td>
                    <Link href={`/ui/problems/${encodeURIComponent(row.problem.id)}`}>{row.problem.title}</Link> <Badge kind="severity" value={row.problem.severity} />
                  </td>
                  <td>
                    {percent(row.a.rate)} <span class="muted">({row.a.runs} runs)</span>
                  </td>
                  <td>
                    {percent(row.b.rate)} <span class="muted">({row.b.runs} runs)</span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <p class="muted">
            n: traces received with the value (diagnosed {comparison.a.diagnosed} and {comparison.b.diagnosed}, sampled out {comparison.a.sampled_out} and {comparison.b.sampled_out}); a
            rate weighs each diagnosed run by the sampling.
          </p>
        </>
      )}
    </Page>
  )
}
