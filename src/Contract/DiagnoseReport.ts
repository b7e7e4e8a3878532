/**
 * The diagnose report (DECISIONS §13): one trace read through the lenses that fit it, merged into
 * one report. Every output (JSON, Markdown, SARIF, HTML, OTLP) is rendered from this one value.
 */
import * as Schema from "effect/Schema"
import { Confidence, DetectedEvidence, Signals } from "../Catalogue/Detection.js"
import { Severity } from "../Catalogue/Severity.js"
import { Mode } from "../Catalogue/Resources.js"
import { OUTPUT_NAMES, OUTPUTS_DESCRIBED } from "../Registry/Derived.js"
import { EventKind, Instrumentation, TraceFormat } from "../Traces/Model.js"
import { CheckFinding } from "./ChecksContract.js"

/** The outputs' names, in the registry's order (src/Registry/Outputs.ts); the first is the default. */
export { OUTPUT_NAMES }

const DIAGNOSE_OUTPUT_DESCRIPTION = `The report's rendering: ${OUTPUTS_DESCRIBED}.`
export const DiagnoseOutput = Schema.Literal(...OUTPUT_NAMES).annotations({
  identifier: "DiagnoseOutput",
  description: DIAGNOSE_OUTPUT_DESCRIPTION
})
export type DiagnoseOutput = typeof DiagnoseOutput.Type

export const TriageEntry = Schema.Struct({
  pattern: Schema.String,
  friendly: Schema.String,
  score: Schema.Number.annotations({ description: "Relevance to this trace, 0..1, from its shape and the pattern's signals (no model call)." }),
  chosen: Schema.Boolean.annotations({ description: "True when the pattern ran." }),
  reasons: Schema.Array(Schema.String).annotations({ description: "Why the score is what it is." }),
  skipped: Schema.NullOr(Schema.String).annotations({
    description:
      "Why a fitting pattern did not run: the hints it needs, the bound (max_patterns, budget_tokens), or, for a trace without message content (DECISIONS §18, §23), `no_content` followed by the setting that turns content on (`no_content: turn content on with TRACELOOP_TRACE_CONTENT=true (OpenLLMetry)`)."
  })
}).annotations({ identifier: "TriageEntry", description: "One pattern's place in the triage." })
export type TriageEntry = typeof TriageEntry.Type

export const PatternRunError = Schema.Struct({
  kind: Schema.String.annotations({ description: "The error kind, as in the API's errors (llm_resolution_error, analyzer_error, timeout, ...)." }),
  message: Schema.String,
  retryable: Schema.optional(
    Schema.Boolean.annotations({
      description: "True when another attempt later may succeed: the provider was overloaded or unreachable (429, 5xx), or the deadline passed; a run is queued again for such failures (DECISIONS §17)."
    })
  )
}).annotations({ identifier: "PatternRunError" })

export const PatternRun = Schema.Struct({
  pattern: Schema.String,
  friendly: Schema.String,
  status: Schema.String.annotations({ description: "ok, cache_hit, or the error kind of a run that failed." }),
  error: Schema.NullOr(PatternRunError),
  cached: Schema.Boolean,
  signals: Signals,
  playbooks: Schema.Array(Schema.String).annotations({
    description: "The pattern's playbooks that its signals or its detection point to (all of them when it failed)."
  }),
  detection: Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.Unknown })).annotations({
    description: "The pattern's detection, as POST /v1/analyze/{name} returns it; null when the run failed."
  })
}).annotations({ identifier: "PatternRun", description: "One pattern's run inside the diagnose." })
export type PatternRun = typeof PatternRun.Type

export const ReportEvidence = Schema.Struct({
  ...DetectedEvidence.fields,
  event: Schema.NullOr(Schema.Int).annotations({ description: "The normalized event the element is (`events[i]` of POST /v1/traces/normalize)." }),
  actor: Schema.NullOr(Schema.String).annotations({ description: "Who produced that event." })
}).annotations({ identifier: "ReportEvidence", description: "A verified quote, placed on the run's timeline." })

export const ReportFinding = Schema.Struct({
  pattern: Schema.String,
  id: Schema.String,
  title: Schema.String,
  severity: Severity,
  confidence: Confidence,
  explanation: Schema.String,
  playbook: Schema.NullOr(Schema.String),
  evidence: Schema.Array(ReportEvidence),
  corroborated_by: Schema.Array(Schema.String).annotations({
    description: "Other patterns whose findings cite one of the same events (distinct events: de-duplicated history never counts)."
  })
}).annotations({ identifier: "ReportFinding", description: "A finding of one lens, with corroboration from the others." })
export type ReportFinding = typeof ReportFinding.Type

export const DecisiveStep = Schema.Struct({
  event: Schema.Int.annotations({ description: "Its index in the normalized trace." }),
  source: Schema.String.annotations({ description: "Where it is in the submitted trace (span, message, run, event)." }),
  actor: Schema.String,
  kind: EventKind,
  timestamp: Schema.NullOr(Schema.String),
  content: Schema.String.annotations({ description: "The element's text (shortened past 600 characters)." }),
  severity: Severity,
  patterns: Schema.Array(Schema.String).annotations({ description: "The patterns whose findings cite it." }),
  findings: Schema.Array(Schema.String).annotations({ description: "The titles of those findings, the checks' first." }),
  checks: Schema.Array(Schema.String).annotations({ description: "The checks whose findings cite it (DECISIONS §23)." })
}).annotations({
  identifier: "DecisiveStep",
  description: "The earliest element cited at the highest severity present among the checks' findings and the lenses' verified findings: who did what, and when."
})
export type DecisiveStep = typeof DecisiveStep.Type

export const RankedIntervention = Schema.Struct({
  rank: Schema.Int,
  type: Schema.String,
  description: Schema.String,
  rationale: Schema.String,
  effort: Schema.Literal("low", "medium", "high"),
  impact: Schema.Literal("low", "medium", "high"),
  playbook: Schema.NullOr(Schema.String),
  pattern: Schema.String.annotations({ description: "The pattern that proposed it." }),
  also_from: Schema.Array(Schema.String).annotations({ description: "Other patterns that proposed the same change (same playbook or same type and wording)." })
}).annotations({ identifier: "RankedIntervention", description: "A change to make, ranked by impact, then severity, then effort." })
export type RankedIntervention = typeof RankedIntervention.Type

export const DiagnoseUsage = Schema.Struct({
  llm_calls: Schema.Int,
  input_tokens: Schema.Int,
  cached_input_tokens: Schema.Int.annotations({ description: "Of input_tokens, those read from the provider's prompt cache." }),
  output_tokens: Schema.Int,
  elapsed_ms: Schema.Number,
  estimated_tokens: Schema.Int.annotations({ description: "The planned spend of the runs that were started (by mode), before any ran." }),
  budget_tokens: Schema.NullOr(Schema.Int)
}).annotations({ identifier: "DiagnoseUsage", description: "What the diagnose spent." })

export const ReportContent = Schema.Struct({
  absent: Schema.Literal(true).annotations({ description: "The trace holds no message content: no lens read it, and no model was called (DECISIONS §23)." }),
  instrumentation: Schema.NullOr(Instrumentation).annotations({
    description: "The instrumentation that recorded the trace, read from its spans; null when the trace does not tell."
  }),
  setting: Schema.String.annotations({
    description: "What turns content on for that instrumentation (`TRACELOOP_TRACE_CONTENT=true`), or every instrumentation's setting when it is not known."
  })
}).annotations({
  identifier: "ReportContent",
  description:
    "Present when the trace holds no message content (DECISIONS §23): why the lenses did not read it, and the setting that turns content on where the agent runs."
})
export type ReportContent = typeof ReportContent.Type

export const FailureAnchor = Schema.Struct({
  kind: Schema.Literal("check", "finding").annotations({ description: "A check finding, or (when no check fired on it) a lens finding." }),
  check: Schema.NullOr(Schema.String).annotations({ description: "The check's id when the anchor is a check finding." }),
  pattern: Schema.NullOr(Schema.String).annotations({ description: "The lens's pattern when the anchor is a lens finding." }),
  title: Schema.String,
  severity: Severity
}).annotations({ identifier: "FailureAnchor", description: "What names a failure: its most severe check finding (then registry order), else its most severe lens finding (then catalogue order)." })

export const FailurePerspective = Schema.Struct({
  pattern: Schema.NullOr(Schema.String).annotations({ description: "The lens that saw it; null for a check." }),
  check: Schema.NullOr(Schema.String).annotations({ description: "The check that saw it; null for a lens finding." }),
  title: Schema.String
}).annotations({ identifier: "FailurePerspective", description: "Another finding of the same failure: a view of it, never a problem of its own." })

export const ReportFailure = Schema.Struct({
  anchor: FailureAnchor,
  fingerprint: Schema.String.annotations({ description: "What groups the failure across runs (DECISIONS §24): the anchor check's fingerprint, or §19's without the pattern." }),
  problem: Schema.NullOr(Schema.String).annotations({ description: "The problem it joined (a run's report); null in a diagnose, or before the run finished." }),
  perspectives: Schema.Array(FailurePerspective),
  events: Schema.Array(Schema.Int).annotations({ description: "The events its findings cite." })
}).annotations({
  identifier: "ReportFailure",
  description: "One failure of the run (DECISIONS §24): the findings that cite a common event or one tool call, anchored by the strongest."
})
export type ReportFailure = typeof ReportFailure.Type

export const DiagnoseReport = Schema.Struct({
  trace: Schema.Struct({
    format: TraceFormat,
    id: Schema.NullOr(Schema.String),
    task: Schema.String,
    outcome: Schema.String,
    success: Schema.NullOr(Schema.Boolean),
    events: Schema.Int,
    agents: Schema.Array(Schema.String),
    skipped: Schema.Int,
    redactions: Schema.Record({ key: Schema.String, value: Schema.Int }).annotations({
      description:
        "Secrets and personal data replaced by placeholders (`[email:3f9a1c]`) in the trace and the hints before anything kept or sent them, by kind (DECISIONS §20); {} when none."
    })
  }),
  mode: Mode,
  model: Schema.NullOr(Schema.String),
  severity: Severity.annotations({ description: "The highest severity of every check finding and verified lens finding shown (none when there are none)." }),
  confidence: Confidence,
  summary: Schema.String,
  decisive_step: Schema.NullOr(DecisiveStep),
  checks: Schema.Array(CheckFinding).annotations({
    description: "What the deterministic checks found (DECISIONS §23), most severe first: on every trace, with or without a model or message content."
  }),
  content: Schema.optional(ReportContent),
  failures: Schema.optionalWith(Schema.Array(ReportFailure), { default: () => [] }).annotations({
    description: "The run's failures (DECISIONS §24), the one holding the decisive step first: what to fix, each once, with the lenses' views of it as perspectives."
  }),
  findings: Schema.Array(ReportFinding),
  interventions: Schema.Array(RankedIntervention),
  patterns: Schema.Array(PatternRun),
  triage: Schema.Array(TriageEntry),
  coverage: Schema.Struct({
    patterns_run: Schema.Int,
    patterns_failed: Schema.Int,
    patterns_skipped: Schema.Int,
    events: Schema.Int,
    events_cited: Schema.Int
  }),
  usage: DiagnoseUsage,
  cached: Schema.Boolean.annotations({ description: "True when every run came from the cache." }),
  generated_at: Schema.String
}).annotations({ identifier: "DiagnoseReport", description: "One trace through the lenses that fit it, merged." })
export type DiagnoseReport = typeof DiagnoseReport.Type

export const DiagnoseResponse = Schema.Struct({ report: DiagnoseReport }).annotations({ identifier: "DiagnoseResponse" })

/** The normalized events, for renderers that show the run (HTML timeline, SARIF locations). */
export interface ReportContext {
  readonly events: ReadonlyArray<{
    readonly actor: string
    readonly kind: string
    readonly content: string
    readonly timestamp?: string | undefined
    readonly source: string
  }>
  /** The trace file the client holds (`?artifact=`), for SARIF locations. */
  readonly artifact: string | undefined
  /** The request body as sent (the trace file's text when it was sent as it is), to find an element's line. */
  readonly body: string | undefined
  /** The trace file's line of each event source, found when it was sent (a stored run keeps these, not the text). */
  readonly lines?: ReadonlyMap<string, number>
}
