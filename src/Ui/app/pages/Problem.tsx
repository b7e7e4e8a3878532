/**
 * One problem: what failed and why (its explanation from its exemplars, DECISIONS §24, §25), its
 * perspectives and interventions, its runs over time and a link to all of them, the labels its
 * runs carried, example runs with their quotes; an admin key resolves (in a version), ignores,
 * reopens or merges it.
 */
import { useEffect, useState } from "preact/hooks"
import type { ProblemDetail } from "../../../Contract/ProblemsContract.js"
import { call } from "../api.js"
import { hrefOf, Link, navigate } from "../router.js"
import { Badge, countsOf, Evidence, Loading, Notice, Page, TrendChart, When } from "../ui.js"
import { setStatus } from "./Problems.js"

const Manage = (props: { readonly problem: ProblemDetail; readonly changed: () => void }) => {
  const [error, setError] = useState<string | null>(null)
  const done = (message: string | null) => (message === null ? props.changed() : setError(message))
  const resolve = (event: Event) => {
    event.preventDefault()
    const form = event.currentTarget
    if (!(form instanceof HTMLFormElement)) return
    const version = new FormData(form).get("version")
    void setStatus(props.problem.id, "resolved", typeof version === "string" ? version.trim() : null).then(done)
  }
  const merge = (event: Event) => {
    event.preventDefault()
    const form = event.currentTarget
    if (!(form instanceof HTMLFormElement)) return
    const into = new FormData(form).get("into")
    if (typeof into !== "string" || into.trim() === "") return setError("name the problem to merge into (its id)")
    void call((client) => client.problems.mergeProblem({ path: { id: props.problem.id }, payload: { into: into.trim() } })).then((answer) =>
      answer.ok ? navigate(`/ui/problems/${encodeURIComponent(answer.value.id)}`) : setError(answer.message)
    )
  }
  const { status } = props.problem
  return (
    <section aria-labelledby="manage">
      <h2 id="manage">Manage</h2>
      <div class="manage">
        {status === "resolved" || status === "ignored" ? (
          <button type="button" onClick={() => void setStatus(props.problem.id, "open", null).then(done)}>
            Reopen
          </button>
        ) : (
          <>
            <form onSubmit={resolve} class="inline">
              <label>
                Fixed in version <input name="version" placeholder="optional, e.g. 1.5.0" />
              </label>
              <button type="submit">Resolve</button>
            </form>
            <button type="button" onClick={() => void setStatus(props.problem.id, "ignored", null).then(done)}>
              Ignore
            </button>
          </>
        )}
        <form onSubmit={merge} class="inline">
          <label>
            Merge into <input name="into" placeholder="prb_…" />
          </label>
          <button type="submit">Merge</button>
        </form>
      </div>
      {error === null ? null : <Notice kind="error">{error}</Notice>}
    </section>
  )
}

export const ProblemPage = (props: { readonly id: string }) => {
  const [problem, setProblem] = useState<ProblemDetail | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [round, setRound] = useState(0)
  useEffect(() => {
    let stopped = false
    void call((client) => client.problems.getProblem({ path: { id: props.id } })).then((answer) => {
      if (stopped) return
      if (answer.ok) {
        setProblem(answer.value)
        setError(null)
      } else setError(answer.message)
    })
    return () => {
      stopped = true
    }
  }, [props.id, round])

  return (
    <Page title={problem === null ? "Problem" : problem.title} actions={<Link href="/ui/problems">All problems</Link>}>
      {error === null ? null : <Notice kind="error">{error}</Notice>}
      {problem === null ? (error === null ? <Loading /> : null) : (
        <>
          <dl class="facts" aria-label="The problem">
            <dt>Status</dt>
            <dd>
              <span data-status={problem.status}>
                <Badge kind="problem" value={problem.status} />
              </span>
              {problem.resolved_in_version === null ? null : ` in ${problem.resolved_in_version}`}
            </dd>
            <dt>Severity</dt>
            <dd>
              <Badge kind="severity" value={problem.severity} />
            </dd>
            <dt>Runs</dt>
            <dd>
              <Link href={hrefOf("/ui/runs", { problem: problem.id })}>all {problem.run_count} runs</Link>
            </dd>
            <dt>First seen</dt>
            <dd>
              <When iso={problem.first_seen} />
            </dd>
            <dt>Last seen</dt>
            <dd>
              <When iso={problem.last_seen} />
            </dd>
            <dt>Patterns</dt>
            <dd>{problem.patterns.join(", ")}</dd>
            <dt>Cites</dt>
            <dd>
              <code>{problem.cites}</code>
            </dd>
          </dl>
          <section aria-labelledby="explanation">
            <h2 id="explanation">What failed, and why</h2>
            {problem.explanation.exemplars.length === 0 ? <p class="muted">Not explained yet: no run of it was read by its lenses (a content-free trace, or no provider).</p> : (
              <>
                <p class="verdict">{problem.explanation.verdict}</p>
                <p class="muted">
                  Explained on {problem.explanation.exemplars.length} run{problem.explanation.exemplars.length === 1 ? "" : "s"} ({problem.tokens} tokens); its other runs are explained by this page.
                </p>
                {problem.explanation.perspectives.length === 0 ? null : (
                  <ul class="perspectives">
                    {problem.explanation.perspectives.map((perspective) => (
                      <li key={`${perspective.pattern ?? ""}:${perspective.check ?? ""}:${perspective.title}`}>
                        <strong>{perspective.title}</strong> <span class="muted">({perspective.pattern ?? perspective.check ?? ""}, {perspective.runs} of {problem.explanation.exemplars.length})</span>
                        <p>{perspective.explanation}</p>
                      </li>
                    ))}
                  </ul>
                )}
                {problem.explanation.interventions.length === 0 ? null : (
                  <ol class="interventions">
                    {problem.explanation.interventions.map((intervention) => (
                      <li key={`${intervention.pattern}:${intervention.playbook ?? intervention.description}`}>
                        {intervention.description} <span class="muted">({intervention.pattern}; impact {intervention.impact}, effort {intervention.effort})</span>
                      </li>
                    ))}
                  </ol>
                )}
              </>
            )}
          </section>
          <section aria-labelledby="trend">
            <h2 id="trend">Runs over time</h2>
            <TrendChart counts={countsOf(problem.days, 30)} />
          </section>
          <Manage problem={problem} changed={() => setRound((count) => count + 1)} />
          <section aria-labelledby="examples">
            <h2 id="examples">Example runs</h2>
            {problem.examples.length === 0 ? <p class="muted">None kept (deleted runs take their quotes with them).</p> : (
              <ul class="examples">
                {problem.examples.map((example) => (
                  <li key={example.run_id}>
                    <Link href={`/ui/runs/${encodeURIComponent(example.run_id)}`}>{example.title}</Link> <When iso={example.seen_at} />
                    <Evidence evidence={example.evidence} eventHref={(event) => `/ui/runs/${encodeURIComponent(example.run_id)}#event-${event}`} />
                  </li>
                ))}
              </ul>
            )}
          </section>
          <section aria-labelledby="interventions">
            <h2 id="interventions">Interventions</h2>
            {problem.interventions.length === 0 ? <p class="muted">None.</p> : (
              <ul>
                {problem.interventions.map((intervention) => (
                  <li key={intervention.playbook}>
                    <strong>{intervention.title}</strong> <span class="muted">({intervention.pattern}, {intervention.runs} runs)</span>
                  </li>
                ))}
              </ul>
            )}
          </section>
          <section aria-labelledby="labels">
            <h2 id="labels">Labels</h2>
            {problem.labels.length === 0 ? <p class="muted">None.</p> : (
              <table class="list">
                <thead>
                  <tr>
                    <th scope="col">Label</th>
                    <th scope="col">Value</th>
                    <th scope="col">Runs</th>
                  </tr>
                </thead>
                <tbody>
                  {problem.labels.map((label) => (
                    <tr key={`${label.key}=${label.value}`}>
                      <td>{label.key}</td>
                      <td>{label.value}</td>
                      <td>{label.runs}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </section>
        </>
      )}
    </Page>
  )
}
