/**
 * What a check finds (DECISIONS §23): a deterministic rule's finding over the normalized trace, with
 * the events it cites. The schemas only; the checks themselves are src/Checks/.
 */
import * as Schema from "effect/Schema"
import { Severity } from "../Catalogue/Severity.js"

export const CheckEvidence = Schema.Struct({
  ref: Schema.String.annotations({ description: "The cited element as the lenses number it: `events[4]`." }),
  quote: Schema.NullOr(Schema.String).annotations({
    description: "A verbatim stretch of the event's text, checked against the trace; null for an event without content (its `describes` says what it is)."
  }),
  describes: Schema.optional(
    Schema.String.annotations({ description: "What a content-free event is, from its structure: `tool_call issue_refund, status error 503`." })
  ),
  source: Schema.String.annotations({ description: "Where the event came from in the submitted trace: `span:<id>`, `messages[3]`, ..." }),
  event: Schema.Int.annotations({ description: "The normalized event's index (`events[i]` of POST /v1/traces/normalize)." }),
  actor: Schema.String.annotations({ description: "Who produced that event." })
}).annotations({ identifier: "CheckEvidence", description: "One event a check cites, quoted when it has text." })
export type CheckEvidence = typeof CheckEvidence.Type

export const CheckFinding = Schema.Struct({
  check: Schema.String.annotations({ description: "The check's id (snake_case, stable: SARIF rule `svc/check/<id>`, fingerprints, metrics)." }),
  title: Schema.String.annotations({ description: "The check's title." }),
  severity: Severity,
  explanation: Schema.String.annotations({ description: "What was found, with its particulars: the tool, the error's first words, how many times, at which events." }),
  playbook: Schema.NullOr(Schema.String).annotations({
    description: "The catalogue's playbook that addresses it, as `<pattern>/<key>` (GET /v1/patterns/{name}/playbooks), or null."
  }),
  fingerprint: Schema.String.annotations({
    description: "What groups this failure across runs (DECISIONS §24): a hash of the check, the tool, the error's class and the acting agent."
  }),
  evidence: Schema.Array(CheckEvidence).pipe(Schema.minItems(1))
}).annotations({ identifier: "CheckFinding", description: "A deterministic check's finding, citing events of the trace (DECISIONS §23)." })
export type CheckFinding = typeof CheckFinding.Type
