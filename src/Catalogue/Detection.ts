/**
 * The detection: one shape for every pattern (DECISIONS §3). Common fields plus a typed,
 * pattern-specific `headline`. Two views exist:
 * - `ModelOutput`: what the model is asked to produce (strict structured output: no optional
 *   properties, absent values are `null`).
 * - `Detection`: what the service returns, the model output after evidence checking plus the
 *   fields the server computes (signals, handoff, evidence_check, usage, coverage, drift).
 */
import * as Schema from "effect/Schema"
import { FORMAT_NAMES } from "../Registry/Derived.js"
import { Severity } from "./Severity.js"

export const Confidence = Schema.Number.pipe(Schema.between(0, 1)).annotations({
  identifier: "Confidence",
  description: "Confidence between 0 and 1."
})

export const Score = Schema.Number.pipe(Schema.between(0, 1)).annotations({
  identifier: "Score",
  description: "A score between 0 (absent / worst) and 1 (fully present / best)."
})

export const Level = Schema.Literal("low", "medium", "high").annotations({
  identifier: "Level",
  description: "low, medium or high."
})

export const Evidence = Schema.Struct({
  ref: Schema.String.annotations({
    description:
      "Reference to one trace element, exactly as numbered in the rendered trace, e.g. `steps[4]`, `messages[12]`, `turns[0]`, `observed_behaviors[2]`, `task`, `outcome`."
  }),
  quote: Schema.String.annotations({
    description: "A verbatim quote copied from that element (a short exact substring, not a paraphrase)."
  })
}).annotations({ identifier: "Evidence", description: "A verbatim quote from one numbered trace element." })
export type Evidence = typeof Evidence.Type

/** Evidence as the service returns it: with `source` when the trace was read from a supported format. */
export const DetectedEvidence = Schema.Struct({
  ...Evidence.fields,
  source: Schema.optional(
    Schema.String.annotations({
      description:
        "Where the cited element came from in the submitted raw trace: `span:<id>`, `messages[3]`, `run:<id>`, `event:<id>`, ...; `derived:<field>` for a value derived by code, `hints.<field>` for one given in hints. Present on every item when the trace was sent in a supported format (DECISIONS §12)."
    })
  )
}).annotations({ identifier: "DetectedEvidence", description: "A verbatim quote from one trace element, with its source in a raw trace." })

export const Finding = Schema.Struct({
  id: Schema.String.annotations({ description: "Short stable identifier of the finding, e.g. `f1`." }),
  title: Schema.String.annotations({ description: "One-line name of the failure mode found." }),
  severity: Severity,
  confidence: Confidence,
  explanation: Schema.String.annotations({
    description: "Why this is the failure mode, in the framework's own terms, tied to the evidence."
  }),
  evidence: Schema.Array(Evidence).annotations({ description: "Verbatim quotes that support the finding." }),
  playbook: Schema.NullOr(Schema.String).annotations({
    description: "Key of the pattern's playbook that addresses this finding, or null."
  })
}).annotations({ identifier: "Finding", description: "One failure mode found in the trace, with its evidence." })
export type Finding = typeof Finding.Type

export const DetectedFinding = Schema.Struct({
  ...Finding.fields,
  evidence: Schema.Array(DetectedEvidence).annotations({ description: "Verbatim quotes that support the finding, each checked by the server." })
}).annotations({ identifier: "DetectedFinding", description: "One failure mode found in the trace, with its checked evidence." })

export const TraceIntake = Schema.Struct({
  format: Schema.String.annotations({ description: `The format the trace was read as (${FORMAT_NAMES.join(", ")}).` }),
  trace_id: Schema.NullOr(Schema.String).annotations({ description: "The analysed trace's id in its source, when it has one." }),
  events: Schema.Int.annotations({ description: "Events of the normalized trace (history de-duplicated)." }),
  skipped: Schema.Int.annotations({ description: "Records of the input that were not read (malformed, unknown types, dataset labels)." }),
  success: Schema.NullOr(Schema.Boolean).annotations({
    description: "Whether the run met its task, as the trace says; null when it does not say (the analysis then does not assume either)."
  }),
  derived: Schema.Array(Schema.String).annotations({
    description: "Input fields derived by code from the trace: estimates, named as derived in the prompt."
  }),
  hints: Schema.Array(Schema.String).annotations({ description: "Input fields given in `hints`." })
}).annotations({
  identifier: "TraceIntake",
  description: "How a raw trace in a supported format was read for this analysis; present only for such traces."
})

export const InterventionType = Schema.Literal(
  "prompt",
  "tool",
  "scaffold",
  "eval",
  "human_review",
  "compose",
  "guardrail",
  "process"
).annotations({
  identifier: "InterventionType",
  description:
    "Where the change lands: prompt (instructions), tool (tool design or permissions), scaffold (orchestration / control flow), eval (a test or metric), human_review (a person in the loop), compose (run another pattern), guardrail (a hard check), process (team / workflow rule)."
})

export const Intervention = Schema.Struct({
  type: InterventionType,
  description: Schema.String.annotations({ description: "What to change, concretely enough to act on." }),
  rationale: Schema.String.annotations({ description: "Why this change addresses the finding, in the framework's terms." }),
  effort: Level.annotations({ description: "Effort to implement: low, medium, high." }),
  impact: Level.annotations({ description: "Expected impact: low, medium, high." }),
  playbook: Schema.NullOr(Schema.String).annotations({
    description: "Key of the pattern's playbook this intervention comes from, or null."
  }),
  compose_pattern: Schema.NullOr(Schema.String).annotations({
    description: "Slug of another catalogue pattern to run next, or null."
  })
}).annotations({ identifier: "Intervention", description: "A named change to the agent system." })
export type Intervention = typeof Intervention.Type

export const Handoff = Schema.Struct({
  upstream: Schema.Array(Schema.String).annotations({ description: "Patterns worth running before this one." }),
  downstream: Schema.Array(Schema.String).annotations({
    description: "Patterns worth running next, given this detection's profile."
  }),
  rationale: Schema.String.annotations({ description: "Why these patterns, from the composition manifest." })
}).annotations({ identifier: "Handoff", description: "Which patterns to compose with, from the composition manifest." })

export const EvidenceCheck = Schema.Struct({
  cited: Schema.Int.annotations({ description: "Evidence items the model cited." }),
  verified: Schema.Int.annotations({ description: "Items whose ref exists and whose quote occurs in it." }),
  dropped: Schema.Int.annotations({ description: "Items dropped because the ref or quote did not check out." })
}).annotations({ identifier: "EvidenceCheck", description: "Server-side verification of the cited evidence." })

export const Usage = Schema.Struct({
  llm_calls: Schema.Int,
  input_tokens: Schema.Int.annotations({ description: "Input tokens of every call, those read from the provider's prompt cache included." }),
  cached_input_tokens: Schema.Int.annotations({
    description: "Of input_tokens, those the provider read from its prompt cache (billed at its cached rate); 0 where the provider does not say."
  }),
  output_tokens: Schema.Int,
  elapsed_ms: Schema.Number
}).annotations({ identifier: "Usage", description: "Model calls, tokens and wall time of this analysis." })

export const Coverage = Schema.Struct({
  elements_total: Schema.Int.annotations({ description: "Numbered trace elements in the submitted trace." }),
  elements_seen: Schema.Int.annotations({ description: "Elements the model saw in full." }),
  condensed: Schema.Boolean.annotations({
    description: "True when the trace was over the mode's budget and was condensed deterministically."
  }),
  chunks: Schema.Int.annotations({ description: "Chunks the trace was split into (forensic map-reduce), 1 otherwise." })
}).annotations({ identifier: "Coverage", description: "How much of the trace the model saw." })

const SignalScalar = Schema.Union(Schema.Number, Schema.String, Schema.Boolean, Schema.Null)
export const SignalValue = Schema.Union(
  SignalScalar,
  Schema.Array(Schema.Union(Schema.Number, Schema.String)),
  Schema.Record({ key: Schema.String, value: Schema.Union(Schema.Number, Schema.String, Schema.Null) })
).annotations({ identifier: "SignalValue" })
export type SignalValue = typeof SignalValue.Type

export const SignalHighlight = Schema.Struct({
  ref: Schema.String.annotations({ description: "Trace element the measurement points at." }),
  reason: Schema.String
}).annotations({ identifier: "SignalHighlight" })

export const Signals = Schema.Struct({
  values: Schema.Record({ key: Schema.String, value: SignalValue }).annotations({
    description: "Deterministic measurements computed from the trace without the model."
  }),
  highlights: Schema.Array(SignalHighlight).annotations({
    description: "Trace elements the measurements point at (given to the model first when a trace is condensed)."
  })
}).annotations({ identifier: "Signals", description: "Deterministic measurements computed from the trace." })
export type Signals = typeof Signals.Type

export const Drift = Schema.Struct({
  baseline: Schema.String.annotations({ description: "The baseline id the envelope named." }),
  recorded: Schema.Boolean.annotations({
    description: "True when no baseline existed yet and this detection was stored as it (nothing to compare)."
  }),
  severity_change: Schema.NullOr(Schema.Struct({ from: Severity, to: Severity })),
  profile_change: Schema.NullOr(Schema.Struct({ from: Schema.String, to: Schema.String })),
  findings_new: Schema.Array(Schema.String),
  findings_resolved: Schema.Array(Schema.String)
}).annotations({ identifier: "Drift", description: "Comparison with a stored baseline detection." })

/** The common model-output fields around a pattern's profile enum and headline. */
export const modelOutputSchema = <P extends string, H, HE>(
  name: string,
  profiles: readonly [P, ...Array<P>],
  headline: Schema.Schema<H, HE>
) =>
  Schema.Struct({
    severity: Severity,
    confidence: Confidence,
    profile: Schema.Literal(...profiles).annotations({
      description: "The pattern's overall classification of the run (`indeterminate` when the trace cannot tell)."
    }),
    summary: Schema.String.annotations({ description: "Two or three sentences: what went wrong and why." }),
    headline,
    findings: Schema.Array(Finding),
    interventions: Schema.Array(Intervention)
  }).annotations({ identifier: `${name}ModelOutput`, description: `What the model returns for ${name}.` })

/** The detection the service returns: model output checked and completed by the server. */
export const detectionSchema = <P extends string, H, HE>(
  name: string,
  profiles: readonly [P, ...Array<P>],
  headline: Schema.Schema<H, HE>
) =>
  Schema.Struct({
    ...modelOutputSchema(name, profiles, headline).fields,
    findings: Schema.Array(DetectedFinding),
    handoff: Handoff,
    signals: Signals,
    evidence_check: EvidenceCheck,
    coverage: Coverage,
    usage: Usage,
    drift: Schema.NullOr(Drift),
    generated_at: Schema.String.annotations({ description: "ISO-8601 time the detection was produced." }),
    intake: Schema.optional(TraceIntake)
  }).annotations({ identifier: `${name}Detection`, description: `Detection of the ${name} pattern.` })

/**
 * Any pattern's model output, as the engine handles it: a pattern's own (`modelOutputSchema`) with
 * `profile` widened and `headline` opaque.
 */
export const ModelOutput = Schema.Struct({
  ...modelOutputSchema("Any", ["indeterminate"], Schema.Unknown).fields,
  profile: Schema.String
}).annotations({ identifier: "ModelOutput", description: "What the model returns for some pattern of the catalogue." })
export type ModelOutput = typeof ModelOutput.Type

/**
 * Any pattern's detection, as the engine produces it and every reader (baselines, learnings,
 * diagnose, MCP, the CLI) reads it: a pattern's own schema (`detectionSchema`) narrows `profile`
 * to its profiles and types `headline`; this is the common shape they all have.
 */
export const Detection = Schema.Struct({
  ...detectionSchema("Any", ["indeterminate"], Schema.Unknown).fields,
  profile: Schema.String
}).annotations({ identifier: "Detection", description: "A detection of some pattern of the catalogue." })
export type Detection = typeof Detection.Type

/** An analysis's result: the model actually called and its detection, checked against the pattern's schema. */
export interface AnalysisResult {
  readonly model: string
  readonly detection: Detection
}
