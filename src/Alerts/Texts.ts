/**
 * What an alert says (DECISIONS §19, §24): the webhook body's Slack-compatible `text` and its JSON
 * payload, for a problem's news and a failed run. Pure: the store writes what these return into the
 * outbox in the finish's transaction (Store/Problems.ts), and Delivery.ts sends it as written.
 */
import type { ProblemFinding } from "../Problems/Fingerprint.js"
import type { ProblemAlert } from "../Problems/Grouping.js"
import type { ProblemRecord } from "../Problems/Model.js"

const iso = (ms: number): string => new Date(ms).toISOString()

const clip = (text: string, at: number): string => (text.length > at ? `${text.slice(0, at)}…` : text)

/**
 * An alert's verdict (DECISIONS §24): the failure's explanation, the quote at its decisive step and
 * its top intervention, each on a line of its own after the title.
 */
const verdictOf = (finding: ProblemFinding): string => {
  const lines: Array<string> = []
  if (finding.explanation !== undefined && finding.explanation.length > 0) lines.push(clip(finding.explanation, 400))
  const quote = finding.evidence.find((item) => item.quote.length > 0)
  if (quote !== undefined) lines.push(`> ${clip(quote.quote.replace(/\s+/g, " "), 200)}${quote.actor === null ? "" : ` (${quote.actor})`}`)
  const top = finding.interventions?.[0]
  if (top !== undefined) lines.push(`Fix: ${clip(top.description, 300)}`)
  return lines.length === 0 ? "" : `\n${lines.join("\n")}`
}

/** The text of a problem's alert: its news and title, its link (SVC_PUBLIC_URL), then the run's verdict. */
export const problemAlertText = (event: ProblemAlert, problem: ProblemRecord, finding: ProblemFinding, link: string | null): string => {
  const where = link === null ? "" : ` ${link}`
  const head = event === "problem.new"
    ? `New problem (${problem.severity}): ${problem.title}`
    : event === "problem.severity"
    ? `Problem now ${problem.severity}: ${problem.title}`
    : `Problem regressed: ${problem.title}`
  return `${head}${where}${verdictOf(finding)}`
}

/** The text of a failed run's alert: its error code and link. */
export const runFailedText = (error: { readonly error: string }, link: string | null): string => `Run failed: ${error.error}${link === null ? "" : ` ${link}`}`

/** A problem as an alert's payload shows it (`url`: its link, or null). */
export const problemPayload = (problem: ProblemRecord, url: string | null) => ({
  id: problem.id,
  title: problem.title,
  severity: problem.severity,
  status: problem.status,
  patterns: problem.patterns,
  run_count: problem.runCount,
  first_seen: iso(problem.firstSeen),
  last_seen: iso(problem.lastSeen),
  url
})

/** An outbox row's body: the delivery's id and event, the text, when it was made, and the payload. */
export const alertBody = (id: string, event: string, text: string, createdAt: number, payload: Readonly<Record<string, unknown>>): string =>
  JSON.stringify({ id, event, text, created_at: iso(createdAt), ...payload })
