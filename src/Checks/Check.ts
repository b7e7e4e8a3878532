/**
 * A check (DECISIONS §23): a deterministic rule over the normalized trace, no model call, no network,
 * linear in the trace's events. One file per check under src/Checks/, listed once in Registry.ts.
 */
import type { Severity } from "../Catalogue/Severity.js"
import type { TraceView } from "./View.js"

/** The parts of a check finding's fingerprint besides the check's id (DECISIONS §24). */
export type FingerprintPart = "tool" | "error_class" | "agent"

/** A threshold a check reads, with its default and what it means (SVC_CHECKS_FILE sets it). */
export interface Threshold {
  readonly default: number
  readonly minimum: number
  readonly description: string
}

/** What SVC_CHECKS_FILE sets for one scope, as a check reads it. */
export interface CheckSettings {
  /** The check's thresholds, defaults filled in. */
  readonly threshold: (name: string) => number
  /** True when the tool is expected to return this error (SVC_CHECKS_FILE `expected_errors`): it never fires a check. */
  readonly expected: (tool: string, text: string) => boolean
}

/** One event a finding cites, with the stretch of its text to quote (the whole text when unset). */
export interface Cited {
  readonly event: number
  readonly quote?: string | undefined
}

/** A finding as a check returns it; the runner adds the title, evidence, playbook and fingerprint. */
export interface RawFinding {
  /** The events it cites, the decisive one first. */
  readonly cites: ReadonlyArray<Cited>
  /** What was found, with the particulars. */
  readonly explanation: string
  /** A severity other than the check's own (a rule with degrees). */
  readonly severity?: Severity | undefined
  /** The fingerprint's parts (DECISIONS §24). */
  readonly tool?: string | undefined
  readonly errorClass?: string | undefined
  readonly agent?: string | undefined
}

export interface Check {
  /** snake_case and stable: it names SARIF rules, fingerprints and metrics. */
  readonly id: string
  readonly title: string
  /** Medium or above whenever its defining condition holds (exceptions in docs/checks.md). */
  readonly severity: Severity
  /** What raises it, in a sentence (docs, SARIF rule help). */
  readonly rule: string
  /** `structure`: works on content-free traces; `content`: needs message text. */
  readonly reads: "structure" | "content"
  /** The catalogue's playbooks it maps to, `<pattern>/<key>`, most fitting first. */
  readonly playbooks: ReadonlyArray<string>
  readonly fingerprint: ReadonlyArray<FingerprintPart>
  readonly thresholds?: Readonly<Record<string, Threshold>> | undefined
  readonly run: (view: TraceView, settings: CheckSettings) => ReadonlyArray<RawFinding>
}
