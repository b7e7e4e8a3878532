/**
 * The weekly digest (DECISIONS §19) as Markdown or HTML: rendered from the one Digest value the
 * API returns as JSON, for `GET /v1/digest?output=` and `svc digest`. Links use SVC_PUBLIC_URL
 * when it is set. HTML escapes every value (titles come from model output).
 */
import type { Digest, Problem } from "../Contract/ProblemsContract.js"

type DigestValue = typeof Digest.Type

const escapeHtml = (text: string): string =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;")

/** Markdown's special characters in a title, escaped (a title is text, never markup). */
const escapeMarkdown = (text: string): string => text.replace(/[\\`*_[\]<>|#]/g, (character) => `\\${character}`)

const day = (iso: string): string => iso.slice(0, 10)

const link = (base: string | null, problem: Problem): string | null => (base === null ? null : `${base.replace(/\/+$/, "")}/v1/problems/${problem.id}`)

/** A problem's verdict, one line (DECISIONS §24). */
const verdictOf = (digest: DigestValue, problem: Problem): string | undefined => {
  const verdict = digest.verdicts[problem.id]
  return verdict === undefined ? undefined : verdict.replace(/\s+/g, " ").slice(0, 400)
}

const line = (digest: DigestValue, problem: Problem, base: string | null, extra: string): string => {
  const target = link(base, problem)
  const title = escapeMarkdown(problem.title)
  const verdict = verdictOf(digest, problem)
  return `- **${problem.severity}** ${target === null ? title : `[${title}](${target})`} (${problem.run_count} runs${extra}; \`${problem.id}\`)` +
    (verdict === undefined ? "" : `\n  ${escapeMarkdown(verdict)}`)
}

export const digestMarkdown = (digest: DigestValue, base: string | null): string => {
  const sections = [
    `# Problems, ${day(digest.since)} to ${day(digest.until)} (UTC)`,
    "",
    `${digest.runs_finished} runs finished, ${digest.tokens_spent} tokens spent.`,
    "",
    "## New",
    ...(digest.new.length === 0 ? ["None."] : digest.new.map((problem) => line(digest, problem, base, ""))),
    "",
    "## Regressed",
    ...(digest.regressed.length === 0 ? ["None."] : digest.regressed.map((problem) => line(digest, problem, base, `, regressed ${day(problem.regressed_at ?? "")}`))),
    "",
    "## Most recurring",
    ...(digest.recurring.length === 0 ? ["None."] : digest.recurring.map((entry) => line(digest, entry.problem, base, `, ${entry.runs} this week`)))
  ]
  return `${sections.join("\n")}\n`
}

const htmlList = (digest: DigestValue, problems: ReadonlyArray<{ readonly problem: Problem; readonly note: string }>, base: string | null): string =>
  problems.length === 0
    ? "<p>None.</p>"
    : `<ul>${
      problems.map(({ note, problem }) => {
        const target = link(base, problem)
        const title = escapeHtml(problem.title)
        const verdict = verdictOf(digest, problem)
        return `<li><strong>${escapeHtml(problem.severity)}</strong> ${target === null ? title : `<a href="${escapeHtml(target)}">${title}</a>`} (${problem.run_count} runs${
          escapeHtml(note)
        }; <code>${escapeHtml(problem.id)}</code>)${verdict === undefined ? "" : `<br>${escapeHtml(verdict)}`}</li>`
      }).join("")
    }</ul>`

export const digestHtml = (digest: DigestValue, base: string | null): string => {
  const heading = `Problems, ${day(digest.since)} to ${day(digest.until)} (UTC)`
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(heading)}</title></head><body>` +
    `<h1>${escapeHtml(heading)}</h1><p>${digest.runs_finished} runs finished, ${digest.tokens_spent} tokens spent.</p>` +
    `<h2>New</h2>${htmlList(digest, digest.new.map((problem) => ({ problem, note: "" })), base)}` +
    `<h2>Regressed</h2>${htmlList(digest, digest.regressed.map((problem) => ({ problem, note: `, regressed ${day(problem.regressed_at ?? "")}` })), base)}` +
    `<h2>Most recurring</h2>${htmlList(digest, digest.recurring.map((entry) => ({ problem: entry.problem, note: `, ${entry.runs} this week` })), base)}` +
    `</body></html>`
}
