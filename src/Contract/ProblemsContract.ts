/**
 * The contract of problems and alerts (DECISIONS §19): the same failure across a scope's runs,
 * grouped by fingerprint when a run finishes, with its runs per day, the labels it was seen with,
 * example runs with their quotes and the interventions its findings point to; a status an `admin`
 * key sets (resolved, in a version or not; ignored; open again), which a later run may turn to
 * `regressed`; merge and detach; a comparison between two values of a label; a weekly digest; and
 * the webhook deliveries made. Every route answers 503 `store_unavailable` while the store cannot
 * be read or written.
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import { Access, EndpointAccess } from "./Access.js"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { Severity } from "../Catalogue/Severity.js"
import {
  AuthMisconfiguredWire,
  NotFoundWire,
  RateLimitedWire,
  StoreUnavailableWire,
  UnauthorizedWire,
  UnsupportedMediaTypeWire,
  ValidationErrorWire
} from "../Errors.js"
import { RankedIntervention } from "./DiagnoseReport.js"
import { LABEL_KEY, NulFreeText, PageLimit, PageParams, ProblemListParams, QueryText } from "./Queries.js"
import { DEFAULT_PAGE, MAX_PAGE, ProblemStatus } from "./Statuses.js"

export { ProblemRef } from "./RunsContract.js"

/** The days of a listed problem's `recent` trend. */
export const RECENT_DAYS = 14

export const Problem = Schema.Struct({
  id: Schema.String,
  title: Schema.String.annotations({ description: "The title of the finding that made the problem." }),
  normalized_title: Schema.String.annotations({ description: "The title as the fingerprint reads it (docs/problems.md)." }),
  cites: Schema.String.annotations({ description: "The kind of the event the findings' first evidence cites, with its tool: `tool_result:charge_card`, `message`." }),
  patterns: Schema.Array(Schema.String).annotations({ description: "The lenses that saw the failure: its anchor's pattern and its perspectives'." }),
  check: Schema.NullOr(Schema.String).annotations({ description: "The check whose finding anchors the failure (DECISIONS §24); null when a lens finding anchors it." }),
  playbook: Schema.NullOr(Schema.String),
  severity: Severity.annotations({ description: "The highest severity of its findings." }),
  status: ProblemStatus,
  run_count: Schema.Int.annotations({ description: "Runs with the problem (a run counts once, whatever its findings), deleted runs included." }),
  first_seen: Schema.String.annotations({ description: "ISO-8601, UTC." }),
  last_seen: Schema.String,
  resolved_at: Schema.NullOr(Schema.String),
  resolved_in_version: Schema.NullOr(Schema.String),
  regressed_at: Schema.NullOr(Schema.String),
  recent: Schema.optional(Schema.Array(Schema.Int)).annotations({
    description: `In lists: its runs per UTC day over the last ${RECENT_DAYS} days, oldest first, today last (a trend without a request per problem).`
  })
}).annotations({ identifier: "Problem", description: "The same failure across a scope's runs." })
export type Problem = typeof Problem.Type

export const ProblemList = Schema.Struct({
  problems: Schema.Array(Problem),
  next_cursor: Schema.NullOr(Schema.String).annotations({ description: "The next page's cursor (opaque); null on the last page." })
}).annotations({ identifier: "ProblemList", description: "A page of problems, most recently seen first." })

export const ProblemEvidence = Schema.Struct({
  ref: Schema.String,
  quote: Schema.String,
  event: Schema.NullOr(Schema.Int),
  actor: Schema.NullOr(Schema.String)
}).annotations({ identifier: "ProblemEvidence", description: "A verified quote of an example run." })

export const ProblemExample = Schema.Struct({
  run_id: Schema.String,
  seen_at: Schema.String,
  severity: Severity,
  pattern: Schema.String,
  title: Schema.String,
  evidence: Schema.Array(ProblemEvidence)
}).annotations({ identifier: "ProblemExample", description: "A run with the problem, and what its finding quoted (gone when the run is deleted)." })

export const ProblemIntervention = Schema.Struct({
  playbook: Schema.String,
  pattern: Schema.String,
  title: Schema.String,
  runs: Schema.Int.annotations({ description: "Example runs whose findings point to it." })
}).annotations({ identifier: "ProblemIntervention", description: "A playbook the problem's findings point to." })

export const ProblemPerspective = Schema.Struct({
  pattern: Schema.NullOr(Schema.String).annotations({ description: "The lens; null for a check." }),
  check: Schema.NullOr(Schema.String),
  title: Schema.String,
  severity: Severity,
  explanation: Schema.String,
  evidence: Schema.Array(ProblemEvidence),
  runs: Schema.Int.annotations({ description: "Exemplars whose reports hold it." })
}).annotations({ identifier: "ProblemPerspective", description: "One view of the failure, as a lens (or a further check) explained it on an exemplar." })

export const ProblemExplanation = Schema.Struct({
  verdict: Schema.String.annotations({ description: "What failed, and why: the anchor's explanation from the latest exemplar." }),
  exemplars: Schema.Array(Schema.String).annotations({ description: "The runs whose lenses explained it, newest first (their reports hold the whole)." }),
  perspectives: Schema.Array(ProblemPerspective),
  interventions: Schema.Array(RankedIntervention).annotations({ description: "The exemplars' interventions for it, the same change merged, ranked by how many exemplars propose it, then impact." })
}).annotations({
  identifier: "ProblemExplanation",
  description: "The failure explained once (DECISIONS §24): later runs of it end on their checks, with `explained_by` naming this problem."
})

export const ProblemDetail = Schema.Struct({
  ...Problem.fields,
  days: Schema.Array(Schema.Struct({ day: Schema.String, runs: Schema.Int })).annotations({
    description: "Runs per UTC day (`YYYY-MM-DD`), kept when runs are deleted or purged."
  }),
  labels: Schema.Array(Schema.Struct({ key: Schema.String, value: Schema.String, runs: Schema.Int })).annotations({ description: "The labels of its runs, most frequent first." }),
  examples: Schema.Array(ProblemExample).annotations({ description: "The latest runs with it (at most 10), with their quotes." }),
  interventions: Schema.Array(ProblemIntervention),
  explanation: ProblemExplanation,
  tokens: Schema.Int.annotations({ description: "The tokens its explained runs spent (the model's cost of this failure)." }),
  fingerprints: Schema.Array(Schema.String).annotations({ description: "The fingerprints that lead here (more than one after a merge)." })
}).annotations({ identifier: "ProblemDetail", description: "A problem with its trend, labels, examples and interventions." })
export type ProblemDetail = typeof ProblemDetail.Type

/** A change names its fields exactly: one it does not know is refused (400 naming it), not ignored. */
const STRICT = { onExcessProperty: "error" } as const

export const ProblemUpdate = Schema.Struct({
  status: Schema.Literal("open", "resolved", "ignored"),
  resolved_in_version: Schema.optional(
    Schema.NullOr(NulFreeText.pipe(Schema.minLength(1), Schema.maxLength(256))).annotations({
      description: "With `resolved`: the version (`version` label) that fixes it; a later run regresses it only on a version it was not seen on before."
    })
  )
}).annotations({ identifier: "ProblemUpdate", description: "A status set by an admin key.", parseOptions: STRICT })

export const ProblemMerge = Schema.Struct({
  into: NulFreeText.annotations({ description: "The problem that takes this one's runs, counts and fingerprints." })
}).annotations({ identifier: "ProblemMerge", parseOptions: STRICT })

export const ProblemDetach = Schema.Struct({
  run_id: NulFreeText.annotations({ description: "A run of the problem: it moves to a new problem of its own fingerprint." })
}).annotations({ identifier: "ProblemDetach", parseOptions: STRICT })

export const CompareSide = Schema.Struct({
  value: Schema.String,
  traces: Schema.Int.annotations({ description: "n: every trace received with this label value (runs of any status, skipped ones included)." }),
  diagnosed: Schema.Int,
  sampled_out: Schema.Int
}).annotations({ identifier: "CompareSide" })

export const CompareRate = Schema.Struct({
  runs: Schema.Int.annotations({ description: "Runs with the problem and this label value." }),
  rate: Schema.NullOr(Schema.Number).annotations({
    description: "runs ÷ traces, each diagnosed run weighted by the sampling (traces that were diagnosed or sampled out ÷ diagnosed); null when no trace had the value."
  })
}).annotations({ identifier: "CompareRate" })

export const ProblemComparison = Schema.Struct({
  label: Schema.String,
  a: CompareSide,
  b: CompareSide,
  problems: Schema.Array(Schema.Struct({ problem: Problem, a: CompareRate, b: CompareRate })).annotations({
    description: "Problems seen with either value, the largest difference first."
  })
}).annotations({ identifier: "ProblemComparison", description: "How often each problem happens under two values of a label." })

export const DigestEntry = Schema.Struct({ problem: Problem, runs: Schema.Int.annotations({ description: "Runs with it in the digest's days." }) }).annotations({
  identifier: "DigestEntry"
})

export const Digest = Schema.Struct({
  since: Schema.String.annotations({ description: "The first of the 7 UTC days (00:00)." }),
  until: Schema.String,
  new: Schema.Array(Problem),
  regressed: Schema.Array(Problem),
  recurring: Schema.Array(DigestEntry),
  runs_finished: Schema.Int,
  tokens_spent: Schema.Int,
  verdicts: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.String }), { default: () => ({}) }).annotations({
    description: "What failed, and why, by the id of each problem listed that was explained (DECISIONS §24): its explanation's verdict."
  })
}).annotations({ identifier: "Digest", description: "The last 7 UTC days: new and regressed problems, the most recurring, and what the runs spent." })

export const DigestOutput = Schema.Literal("json", "markdown", "html").annotations({ identifier: "DigestOutput" })

export const AlertDelivery = Schema.Struct({
  id: Schema.String.annotations({ description: "The `X-Svc-Delivery` id: the same on every attempt." }),
  event: Schema.Literal("problem.new", "problem.severity", "problem.regressed", "run.failed", "run.evaluation").annotations({
    description: "What was sent: an alert (`problem.*`, `run.failed`), or a run's verdicts to SVC_EVALUATION_ENDPOINT as OTLP logs (`run.evaluation`, DECISIONS §21)."
  }),
  problem_id: Schema.NullOr(Schema.String),
  run_id: Schema.NullOr(Schema.String),
  url: Schema.String.annotations({ description: "The webhook's (or evaluation endpoint's) origin only (its path may hold a token)." }),
  state: Schema.Literal("pending", "delivering", "delivered", "failed"),
  attempts: Schema.Int,
  last_status: Schema.NullOr(Schema.Int),
  last_error: Schema.NullOr(Schema.String),
  created_at: Schema.String,
  next_at: Schema.NullOr(Schema.String),
  delivered_at: Schema.NullOr(Schema.String)
}).annotations({ identifier: "AlertDelivery", description: "One webhook call of the outbox." })

export const AlertDeliveryList = Schema.Struct({
  deliveries: Schema.Array(AlertDelivery),
  next_cursor: Schema.NullOr(Schema.String)
}).annotations({ identifier: "AlertDeliveryList", description: "The scope's webhook calls, newest first." })

export const CompareParams = Schema.Struct({
  label: QueryText.pipe(Schema.pattern(LABEL_KEY)).annotations({
    description: "A label key, e.g. `version`.",
    message: () => "label must be a label key of 1-64 characters of [a-z0-9_.-]"
  }),
  a: QueryText.annotations({ description: "One value of it." }),
  b: QueryText.annotations({ description: "Another value of it." }),
  limit: Schema.optional(PageLimit.annotations({ description: `Problems listed, 1-${MAX_PAGE} (default ${DEFAULT_PAGE}).` }))
})

export const DigestParams = Schema.Struct({
  output: Schema.optional(DigestOutput.annotations({ description: "json (default), markdown or html." }))
})

const ProblemId = HttpApiSchema.param("id", NulFreeText.annotations({ description: "A problem's id (a merged one's id leads to the problem it was merged into)." }))

export class ProblemsGroup extends HttpApiGroup.make("problems")
  .add(
    HttpApiEndpoint.get("listProblems", "/v1/problems")
      .setUrlParams(ProblemListParams)
      .addSuccess(ProblemList)
      .addError(ValidationErrorWire)
      .annotate(OpenApi.Summary, "List problems, most recently seen first, with filters and a cursor")
      .annotate(EndpointAccess, Access.read)
  )
  .add(
    HttpApiEndpoint.get("compareProblems", "/v1/problems/compare")
      .setUrlParams(CompareParams)
      .addSuccess(ProblemComparison)
      .addError(ValidationErrorWire)
      .annotate(OpenApi.Summary, "Compare problems between two values of a label (e.g. version 1.3 and 1.4), with their denominators")
      .annotate(EndpointAccess, Access.read)
  )
  .add(
    HttpApiEndpoint.get("getProblem")`/v1/problems/${ProblemId}`
      .addSuccess(ProblemDetail)
      .addError(NotFoundWire)
      .annotate(OpenApi.Summary, "One problem: its runs per day, labels, example runs with quotes, interventions")
      .annotate(EndpointAccess, Access.read)
  )
  .add(
    HttpApiEndpoint.patch("updateProblem")`/v1/problems/${ProblemId}`
      .setPayload(ProblemUpdate)
      .addSuccess(Problem)
      .addError(NotFoundWire)
      .addError(ValidationErrorWire)
      .addError(UnsupportedMediaTypeWire)
      .annotate(OpenApi.Summary, "Resolve (optionally in a version), ignore or reopen a problem (admin)")
      .annotate(EndpointAccess, Access.admin)
  )
  .add(
    HttpApiEndpoint.post("mergeProblem")`/v1/problems/${ProblemId}/merge`
      .setPayload(ProblemMerge)
      .addSuccess(Problem)
      .addError(NotFoundWire)
      .addError(ValidationErrorWire)
      .addError(UnsupportedMediaTypeWire)
      .annotate(OpenApi.Summary, "Merge a problem into another: its runs, counts and fingerprints (future runs follow) (admin)")
      .annotate(EndpointAccess, Access.admin)
  )
  .add(
    HttpApiEndpoint.post("detachRun")`/v1/problems/${ProblemId}/detach`
      .setPayload(ProblemDetach)
      .addSuccess(Problem)
      .addError(NotFoundWire)
      .addError(ValidationErrorWire)
      .addError(UnsupportedMediaTypeWire)
      .annotate(OpenApi.Summary, "Move a run out of a problem into a new one of its fingerprint (future runs follow) (admin)")
      .annotate(EndpointAccess, Access.admin)
  )
  .add(
    HttpApiEndpoint.get("getDigest", "/v1/digest")
      .setUrlParams(DigestParams)
      .addSuccess(Digest)
      .addSuccess(HttpApiSchema.Text({ contentType: "text/markdown" }).annotations({ description: "?output=markdown" }), { status: 200 })
      .addError(ValidationErrorWire)
      .annotate(OpenApi.Summary, "The last 7 UTC days: new, regressed and recurring problems, tokens spent")
      .annotate(EndpointAccess, Access.read)
  )
  .add(
    HttpApiEndpoint.get("listDeliveries", "/v1/alerts/deliveries")
      .setUrlParams(PageParams)
      .addSuccess(AlertDeliveryList)
      .addError(ValidationErrorWire)
      .annotate(OpenApi.Summary, "The scope's alert webhook calls, newest first")
      .annotate(EndpointAccess, Access.read)
  )
  // every route's path and query are the contract's: a refused one is 400 (Edge/Forward.ts)
  .addError(ValidationErrorWire)
  .addError(UnauthorizedWire)
  .addError(RateLimitedWire)
  .addError(AuthMisconfiguredWire)
  .addError(StoreUnavailableWire)
  .annotate(OpenApi.Title, "Problems")
  .annotate(OpenApi.Description, "The same failure across runs, with trends, regressions and alerts (docs/problems.md).")
{}
