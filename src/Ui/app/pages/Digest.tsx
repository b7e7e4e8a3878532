/** Digest: the last 7 UTC days (DECISIONS §19): new and regressed problems, the most recurring, what the runs spent. */
import { useEffect, useState } from "preact/hooks"
import { type Digest, type Problem } from "../../../Contract/ProblemsContract.js"
import { call } from "../api.js"
import { Link } from "../router.js"
import { Badge, Loading, Notice, Page, When } from "../ui.js"

const ProblemLine = (props: { readonly problem: Problem; readonly runs?: number }) => (
  <li>
    <Link href={`/ui/problems/${encodeURIComponent(props.problem.id)}`}>{props.problem.title}</Link> <Badge kind="severity" value={props.problem.severity} />{" "}
    <span class="muted">{props.runs === undefined ? `${props.problem.run_count} runs` : `${props.runs} runs this week`}</span>
  </li>
)

export const DigestPage = () => {
  const [digest, setDigest] = useState<typeof Digest.Type | null>(null)
  const [error, setError] = useState<string | null>(null)
  useEffect(() => {
    void call((client) => client.problems.getDigest({ urlParams: {} })).then((answer) => {
      if (!answer.ok) return setError(answer.message)
      if (typeof answer.value !== "string") setDigest(answer.value)
    })
  }, [])
  return (
    <Page title="Digest">
      {error === null ? null : <Notice kind="error">{error}</Notice>}
      {digest === null ? (error === null ? <Loading /> : null) : (
        <>
          <p>
            From <When iso={digest.since} /> to <When iso={digest.until} />: {digest.runs_finished} runs finished, {digest.tokens_spent} tokens spent.
          </p>
          <section aria-labelledby="new">
            <h2 id="new">New problems ({digest.new.length})</h2>
            {digest.new.length === 0 ? <p class="muted">None.</p> : <ul>{digest.new.map((problem) => <ProblemLine key={problem.id} problem={problem} />)}</ul>}
          </section>
          <section aria-labelledby="regressed">
            <h2 id="regressed">Regressed ({digest.regressed.length})</h2>
            {digest.regressed.length === 0 ? <p class="muted">None.</p> : <ul>{digest.regressed.map((problem) => <ProblemLine key={problem.id} problem={problem} />)}</ul>}
          </section>
          <section aria-labelledby="recurring">
            <h2 id="recurring">Most recurring</h2>
            {digest.recurring.length === 0 ? <p class="muted">None.</p> : (
              <ul>{digest.recurring.map((entry) => <ProblemLine key={entry.problem.id} problem={entry.problem} runs={entry.runs} />)}</ul>
            )}
          </section>
        </>
      )}
    </Page>
  )
}
