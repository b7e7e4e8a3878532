/**
 * Which problem a finding belongs to (DECISIONS §19): its fingerprint, made of
 * - the pattern, and the playbook key (or none);
 * - the normalized title: lower case; quoted text, the names of the trace's agents and tools,
 *   numbers, ids and hashes removed; small words dropped; the remaining words sorted and kept once
 *   ("stable word order"), so "Agent billing_bot ignored the 504 from 'charge_card' (call_8f2a)"
 *   and "agent ignored the 500 from 'refund' in billing_bot" are one title: `agent from ignored`;
 * - the kind of the event its first evidence cites (message, tool_call, tool_result, error, …),
 *   with that event's tool name for tool calls and results: the same complaint about another tool
 *   is another problem.
 * A finding joins a problem only when it has a verified evidence placed on the trace and a
 * severity of at least `low`. Pure and deterministic: the same inputs give the same fingerprint in
 * every process and replica. docs/problems.md shows the rule with examples.
 */
import { createHash } from "node:crypto"
import { RankedIntervention, type ReportFinding } from "../Contract/DiagnoseReport.js"
import * as Schema from "effect/Schema"
import { Severity, severityRank } from "../Catalogue/Severity.js"

/** What the fingerprint reads of a trace: its agents, and its events' kinds and tools. */
export interface FingerprintTrace {
  readonly agents: ReadonlyArray<string>
  readonly events: ReadonlyArray<{ readonly kind: string; readonly tool?: string | undefined; readonly actor: string; readonly role: string }>
}

/** A quote an example keeps, with where it is in the run. */
export const ExampleEvidence = Schema.Struct({ ref: Schema.String, quote: Schema.String, event: Schema.NullOr(Schema.Number), actor: Schema.NullOr(Schema.String) })
export type ExampleEvidence = typeof ExampleEvidence.Type

/** A finding as a problem keeps it (and its run's link stores, as JSON): what grouped it, and what an example shows. */
export const ProblemFinding = Schema.Struct({
  fingerprint: Schema.String,
  pattern: Schema.String,
  playbook: Schema.NullOr(Schema.String),
  title: Schema.String,
  /** The title as the fingerprint reads it (docs, and `svc problems show`). */
  normalizedTitle: Schema.String,
  severity: Severity,
  /** The first evidence's event kind, with its tool: `tool_result:charge_card`, `message`. */
  cites: Schema.String,
  /** The verified quotes, with where they are in the run (at most a few: an example, not a copy). */
  evidence: Schema.Array(ExampleEvidence),
  // DECISIONS §24: the failure this anchors (absent in links an earlier release wrote, which were lens findings)
  /** The anchor's check id; null or absent for a lens anchor. */
  check: Schema.optional(Schema.NullOr(Schema.String)),
  /** The anchor's explanation. */
  explanation: Schema.optional(Schema.String),
  /** The failure's other findings: the lenses' views of it (and further checks), never problems of their own. */
  perspectives: Schema.optional(Schema.Array(Schema.Struct({
    pattern: Schema.NullOr(Schema.String),
    check: Schema.NullOr(Schema.String),
    title: Schema.String,
    severity: Severity,
    explanation: Schema.String,
    playbook: Schema.NullOr(Schema.String),
    evidence: Schema.Array(ExampleEvidence)
  }))),
  /** The run's interventions for this failure (proposed by its perspectives' lenses), as ranked in its report. */
  interventions: Schema.optional(Schema.Array(RankedIntervention))
})
export type ProblemFinding = typeof ProblemFinding.Type

/** Words that carry no meaning of their own in a finding's title. */
const SMALL_WORDS: ReadonlySet<string> = new Set([
  "a", "an", "the", "of", "to", "in", "on", "at", "by", "for", "with", "and", "or", "but", "is", "was", "were", "are", "be", "been",
  "it", "its", "this", "that", "these", "those", "as", "into", "onto", "than", "then", "so", "s"
])

/** Most evidence items an example keeps. */
const EXAMPLE_EVIDENCE = 3
/** Longest quote an example keeps (characters). */
const EXAMPLE_QUOTE = 300

/** A text with quoted stretches removed: "…", `…`, “…”, ‘…’, and '…' when its quotes are not apostrophes. */
const withoutQuoted = (text: string): string =>
  text
    .replace(/"[^"]*"/g, " ")
    .replace(/`[^`]*`/g, " ")
    .replace(/“[^”]*”/g, " ")
    .replace(/‘[^’]*’/g, " ")
    .replace(/(^|[^\p{L}\p{N}])'[^']*'(?=$|[^\p{L}\p{N}])/gu, "$1 ")

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** The forms a name takes in a title: as written, and with `_`/`-`/`.` as spaces (`billing_bot`, `billing bot`). */
const formsOf = (name: string): ReadonlyArray<string> => {
  const lower = name.toLowerCase().trim()
  if (lower.length === 0) return []
  const spaced = lower.replace(/[_\-.]+/g, " ").trim()
  return spaced === lower || spaced.length === 0 ? [lower] : [lower, spaced]
}

/** A text with each name removed where it stands as a whole word. */
const withoutNames = (text: string, names: ReadonlyArray<string>): string => {
  const forms = Array.from(new Set(names.flatMap(formsOf))).sort((a, b) => b.length - a.length)
  let result = text
  for (const form of forms) {
    result = result.replace(new RegExp(`(^|[^\\p{L}\\p{N}_])${escapeRegExp(form)}(?=$|[^\\p{L}\\p{N}_])`, "gu"), "$1 ")
  }
  return result
}

/**
 * Numbers, ids and hashes: a run of word characters joined by `-_.:/` that holds a digit, removed
 * whole (`504`, `call_8f2a`, `run-7c1e`, `v1.3`, `12:30:01`, `/v2/charge`), and long runs of hex.
 */
const withoutIds = (text: string): string =>
  text.replace(/[\p{L}\p{N}_\-.:/]*\p{N}[\p{L}\p{N}_\-.:/]*/gu, " ").replace(/\b[0-9a-f]{12,}\b/g, " ")

/**
 * A title as the fingerprint reads it: lower case; quoted text, the names, numbers, ids and
 * hashes removed; small words dropped; the rest sorted, each once.
 */
export const normalizeTitle = (title: string, names: ReadonlyArray<string>): string => {
  // apostrophes inside words are not quotes: a possessive goes, a contraction is one word ("agent's" → agent, "didn't" → didnt)
  const plain = title.normalize("NFKC").toLowerCase().replace(/(\p{L})['’]s(?!\p{L})/gu, "$1").replace(/(\p{L})['’](\p{L})/gu, "$1$2")
  const lower = withoutIds(withoutNames(withoutQuoted(plain), names))
  const words = lower.split(/[^\p{L}]+/u).filter((word) => word.length > 0 && !SMALL_WORDS.has(word))
  return Array.from(new Set(words)).sort().join(" ")
}

/** The names a title is read without: the trace's agents, and its tools and tool actors. */
export const namesOf = (trace: FingerprintTrace): ReadonlyArray<string> => {
  const names = new Set<string>(trace.agents)
  for (const event of trace.events) {
    if (event.tool !== undefined) names.add(event.tool)
    if (event.role === "agent" || event.role === "tool") names.add(event.actor)
  }
  return Array.from(names)
}

/** What an evidence cites: the event's kind, with its tool's name when it has one; `element` for none. */
export const citesOfEvent = (trace: FingerprintTrace, index: number | null | undefined): string => {
  const event = index === null || index === undefined ? undefined : trace.events[index]
  if (event === undefined) return "element"
  return event.tool === undefined || event.tool.length === 0 ? event.kind : `${event.kind}:${event.tool}`
}

/** What the first evidence cites. */
const citesOf = (finding: ReportFinding, trace: FingerprintTrace): string => citesOfEvent(trace, finding.evidence[0]?.event)

/** Whether a finding joins a problem: a verified evidence placed on the trace, and a severity of at least `low`. */
export const joinsProblem = (finding: ReportFinding): boolean =>
  severityRank(finding.severity) >= severityRank("low") && finding.evidence.some((item) => item.event !== null)

/** The fingerprint of the parts (hex, 32 characters). */
export const fingerprintOf = (parts: { readonly pattern: string; readonly playbook: string | null; readonly normalizedTitle: string; readonly cites: string }): string =>
  createHash("sha256").update(JSON.stringify([parts.pattern, parts.playbook ?? "", parts.normalizedTitle, parts.cites])).digest("hex").slice(0, 32)

/** What an example keeps of a finding's evidence: a few quotes, each shortened. */
export const exampleEvidenceOf = (evidence: ReadonlyArray<{ readonly ref: string; readonly quote: string; readonly event: number | null; readonly actor: string | null }>): ReadonlyArray<ExampleEvidence> =>
  evidence.slice(0, EXAMPLE_EVIDENCE).map((item) => ({
    ref: item.ref,
    quote: item.quote.length > EXAMPLE_QUOTE ? `${item.quote.slice(0, EXAMPLE_QUOTE)}…` : item.quote,
    event: item.event,
    actor: item.actor
  }))

/** A report's findings that join problems, fingerprinted against the run's trace. */
export const problemFindingsOf = (findings: ReadonlyArray<ReportFinding>, trace: FingerprintTrace): ReadonlyArray<ProblemFinding> => {
  const names = namesOf(trace)
  return findings.filter(joinsProblem).map((finding): ProblemFinding => {
    const normalizedTitle = normalizeTitle(finding.title, names)
    const cites = citesOf(finding, trace)
    return {
      fingerprint: fingerprintOf({ pattern: finding.pattern, playbook: finding.playbook, normalizedTitle, cites }),
      pattern: finding.pattern,
      playbook: finding.playbook,
      title: finding.title,
      normalizedTitle,
      severity: finding.severity,
      cites,
      evidence: exampleEvidenceOf(finding.evidence)
    }
  })
}
