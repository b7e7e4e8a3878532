/**
 * Triage (DECISIONS §13): which lenses fit this trace, decided by code, with no model call. Every
 * pattern that reads runs is projected onto the trace (as analyze would) and its signals computed;
 * its relevance comes from the trace's shape (agents, users, tools, errors) against the pattern's
 * group and input family, and from how much its own signals find. Every score carries its
 * reasons. A pattern whose projection fails (it needs a hint the request lacks) is listed as
 * skipped with what it needs. The checks' findings raise the patterns whose playbooks address what
 * they found (DECISIONS §23: a loop raises the patterns that read loops), by the checks' own
 * playbook lists. No pattern is special-cased by name.
 */
import * as Either from "effect/Either"
import type { CatalogueEntry } from "../Catalogue/Catalogue.js"
import type { Signals } from "../Catalogue/Detection.js"
import { type Severity, severityRank } from "../Catalogue/Severity.js"
import { validateAdmitted } from "../Analysis/RawTraces.js"
import { CHECKS } from "../Checks/Registry.js"
import type { CheckFinding } from "../Contract/ChecksContract.js"
import type { NormalizedTrace, TraceFormat } from "../Traces/Model.js"

export interface Candidate {
  readonly entry: CatalogueEntry
  readonly score: number
  readonly reasons: ReadonlyArray<string>
  /** Undefined when the pattern can run on this trace; else why it cannot. */
  readonly cannot: string | undefined
  readonly signals: Signals | undefined
}

export interface TraceShape {
  readonly agents: number
  readonly userMessages: number
  readonly toolCalls: number
  readonly errors: number
  readonly handoffs: number
  readonly events: number
  /** The strongest check finding each pattern's playbooks address, by pattern slug. */
  readonly leads: ReadonlyMap<string, CheckLead>
}

/** A check that fired, and the playbook of a pattern that addresses it. */
export interface CheckLead {
  readonly check: string
  readonly severity: Severity
  readonly playbook: string
}

const PLAYBOOKS_OF: ReadonlyMap<string, ReadonlyArray<string>> = new Map(CHECKS.map((check) => [check.id, check.playbooks]))

/** Each pattern's strongest lead among the checks' findings (a check's playbooks are `<pattern>/<key>`). */
export const leadsOf = (checks: ReadonlyArray<CheckFinding>): ReadonlyMap<string, CheckLead> => {
  const leads = new Map<string, CheckLead>()
  for (const finding of checks) {
    for (const playbook of PLAYBOOKS_OF.get(finding.check) ?? (finding.playbook === null ? [] : [finding.playbook])) {
      const slash = playbook.indexOf("/")
      if (slash <= 0) continue
      const slug = playbook.slice(0, slash)
      const known = leads.get(slug)
      if (known === undefined || severityRank(finding.severity) > severityRank(known.severity)) leads.set(slug, { check: finding.check, severity: finding.severity, playbook })
    }
  }
  return leads
}

const NO_LEADS: ReadonlyMap<string, CheckLead> = new Map()

/** The trace's shape, with the checks' findings on it (none: no leads). */
export const shapeOf = (trace: NormalizedTrace, checks: ReadonlyArray<CheckFinding> = []): TraceShape => {
  let userMessages = 0
  let toolCalls = 0
  let errors = 0
  let handoffs = 0
  for (const event of trace.events) {
    if (event.role === "user" && event.kind === "message") userMessages++
    if (event.kind === "tool_call") toolCalls++
    if (event.kind === "error") errors++
    if (event.kind === "handoff") handoffs++
  }
  return { agents: trace.agents.length, userMessages, toolCalls, errors, handoffs, events: trace.events.length, leads: checks.length === 0 ? NO_LEADS : leadsOf(checks) }
}

const round2 = (x: number) => Math.round(x * 100) / 100
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`

/** The relevance of one pattern that can run, with its reasons. */
export const relevance = (
  entry: CatalogueEntry,
  shape: TraceShape,
  signals: Signals,
  derived: ReadonlyArray<string>,
  failed: boolean
): { readonly score: number; readonly reasons: ReadonlyArray<string> } => {
  const code = entry.pattern.code
  const reasons: Array<string> = []
  let score = 0.2
  const multi = shape.agents >= 2 || shape.handoffs > 0
  if (code.group === "individual") {
    if (multi) {
      score += 0.05
      reasons.push(`an individual lens on a run of ${plural(shape.agents, "agent")}`)
    } else {
      score += 0.2
      reasons.push("one agent: an individual lens fits")
    }
  } else if (multi) {
    score += 0.25
    reasons.push(`${plural(shape.agents, "agent")}${shape.handoffs > 0 ? ` and ${plural(shape.handoffs, "handoff")}` : ""}: a ${code.group} lens fits`)
  } else {
    score -= 0.1
    reasons.push(`a ${code.group} lens on a single-agent run has little to read`)
  }
  switch (code.family) {
    case "conversation":
      if (shape.userMessages >= 2) {
        score += 0.15
        reasons.push(`a conversation: ${plural(shape.userMessages, "user message")}`)
      } else {
        score -= 0.05
        reasons.push("hardly a conversation with the user")
      }
      break
    case "step_trace":
    case "behaviour_report":
      if (shape.toolCalls >= 3) {
        score += 0.1
        reasons.push(`a working run: ${plural(shape.toolCalls, "tool call")}`)
      }
      break
    case "message_log":
    case "crew":
      if (!multi) score -= 0.1
      break
    case "request":
    case "special":
      score -= 0.05
      reasons.push("reads a design request or labelled items: its input is mostly derived from the run")
      break
  }
  if ((failed || shape.errors > 0) && code.group === "individual") {
    score += 0.1
    reasons.push(failed ? "the run failed: attribution lenses apply" : `${plural(shape.errors, "error")} in the run`)
  }
  const lead = shape.leads.get(code.slug)
  if (lead !== undefined) {
    // low 0.1 … critical 0.25: a check's finding is a fact about the run, as strong as the signals' pointing
    score += Math.min(0.25, 0.05 + severityRank(lead.severity) * 0.05)
    reasons.push(`the check ${lead.check} fired (${lead.severity}); its playbook ${lead.playbook} is this pattern's`)
  }
  const highlighted = new Set(signals.highlights.map((highlight) => highlight.ref)).size
  if (highlighted > 0) {
    const weight = Math.min(0.3, 0.05 + highlighted * 0.025)
    score += weight
    reasons.push(`its signals point at ${plural(highlighted, "element")}`)
  } else {
    reasons.push("its signals find nothing to point at")
  }
  if (derived.length > 0) {
    const penalty = Math.min(0.15, derived.length * 0.05)
    score -= penalty
    reasons.push(`reads ${derived.length} estimated field${derived.length === 1 ? "" : "s"} (${derived.join(", ")})`)
  }
  return { score: round2(Math.max(0, Math.min(1, score))), reasons }
}

/** One pattern against this trace: whether it can run, and how relevant it is. */
export const triageOne = (
  entry: CatalogueEntry,
  format: TraceFormat,
  trace: NormalizedTrace,
  hints: Readonly<Record<string, unknown>>,
  shape: TraceShape
): Candidate => {
  const code = entry.pattern.code
  if (!code.reading.accepts) {
    return { entry, score: 0, reasons: ["does not read agent runs"], cannot: `needs ${code.reading.needs}`, signals: undefined }
  }
  const validated = validateAdmitted(code, { _tag: "Raw", format, trace }, hints)
  if (Either.isLeft(validated)) {
    return {
      entry,
      score: 0,
      reasons: ["the trace alone is not enough"],
      cannot: code.reading.needs.length > 0 ? `needs ${code.reading.needs}` : validated.left.message,
      signals: undefined
    }
  }
  const signals = validated.right.trace.signals()
  const { reasons, score } = relevance(entry, shape, signals, validated.right.origin?.derived ?? [], trace.success === false)
  return { entry, score, reasons, cannot: undefined, signals }
}

/** Candidates most relevant first (catalogue order on ties). */
export const rankCandidates = (candidates: ReadonlyArray<Candidate>): Array<Candidate> =>
  candidates
    .map((candidate, order) => ({ candidate, order }))
    .sort((a, b) => b.candidate.score - a.candidate.score || a.order - b.order)
    .map(({ candidate }) => candidate)
