/**
 * The contract of `POST /v1/diagnose` (DECISIONS §13): a trace in any supported format (or the
 * envelope with options), the report out in the output asked for by `?output=` or `Accept`; and of
 * `POST /v1/checks` (§23): the same body, the checks' findings alone (no lens, no model).
 * ChecksRequest and ChecksResponse live here, not beside CheckFinding in ChecksContract.ts: they
 * hold the report's `trace` and `DecisiveStep` (DiagnoseReport.ts), which imports CheckFinding.
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import { Access, EndpointAccess } from "./Access.js"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import { Severity } from "../Catalogue/Severity.js"
import { CheckFinding } from "./ChecksContract.js"
import { DecisiveStep, DiagnoseOutput, DiagnoseReport, DiagnoseResponse } from "./DiagnoseReport.js"
import {
  AuthMisconfiguredWire,
  InvalidModeWire,
  RateLimitedWire,
  RequestTooLargeWire,
  TimeoutWire,
  UnauthorizedWire,
  UnsupportedMediaTypeWire,
  UnsupportedTraceFormatWire,
  ValidationErrorWire
} from "../Errors.js"
import { OUTPUTS_DESCRIBED } from "../Registry/Derived.js"
import { DIAGNOSE_OUTPUTS, type OutputEntry } from "../Registry/Outputs.js"
import { AnalyzeQueryParams, RawTrace } from "./AnalyzeContract.js"
import { BUDGET_TOKENS, BudgetTokens, FormatOptionValue, HintsOption, MAX_PATTERNS as MAX_PATTERNS_BOUND, MaxPatterns, ModelOption, ModeOption, PatternNames, SelectOption } from "./Options.js"
import { literalRefusal } from "./Queries.js"
import { traceUpload } from "./TraceBodies.js"

export const DiagnoseEnvelope = Schema.Struct({
  trace: RawTrace,
  format: Schema.optional(FormatOptionValue),
  select: Schema.optional(SelectOption),
  hints: Schema.optional(HintsOption),
  mode: Schema.optional(ModeOption),
  model: Schema.optional(ModelOption),
  patterns: Schema.optional(PatternNames),
  max_patterns: Schema.optional(MaxPatterns),
  budget_tokens: Schema.optional(BudgetTokens)
}).annotations({ identifier: "DiagnoseEnvelope", description: "The trace under `trace`, with the diagnose's options." })

export const DiagnoseRequest = Schema.Union(DiagnoseEnvelope, RawTrace).annotations({
  identifier: "DiagnoseRequest",
  description: "A trace in any supported format (or in the pattern-free native shapes: steps, messages, turns), as it is or in the envelope."
})

/** `POST /v1/checks`'s body: the diagnose's, of which the checks read the trace, `format` and `select`. */
export const ChecksRequest = Schema.Union(DiagnoseEnvelope, RawTrace).annotations({
  identifier: "ChecksRequest",
  description:
    "The body of POST /v1/diagnose: a trace as it is, or in the envelope. The checks read the trace, `format` and `select`; the lenses' options (mode, model, patterns, ...) are accepted and not used."
})

/** `?format=&select=` for a body sent as it is (DECISIONS §16); the envelope wins. */
export const ChecksParams = Schema.Struct({ format: AnalyzeQueryParams.format, select: AnalyzeQueryParams.select })

/** `POST /v1/diagnose`'s payload: the JSON body (DiagnoseRequest), JSON Lines, or an Inspect AI log. */
export const DiagnoseUpload = traceUpload(DiagnoseRequest)
/** `POST /v1/checks`'s payload, as diagnose's. */
export const ChecksUpload = traceUpload(ChecksRequest)

export const ChecksResponse = Schema.Struct({
  trace: DiagnoseReport.fields.trace,
  severity: Severity.annotations({ description: "The highest severity of the checks' findings; none when no check fired." }),
  checks: Schema.Array(CheckFinding).annotations({ description: "What the deterministic checks found (DECISIONS §23), most severe first." }),
  decisive_step: Schema.NullOr(DecisiveStep).annotations({ description: "The earliest event cited by a check finding at the highest severity present; null when no check fired." })
}).annotations({
  identifier: "ChecksResponse",
  description: "The checks' findings on one trace, as the diagnose report holds them, with no lens run: `trace` as in the report."
})
export type ChecksResponse = typeof ChecksResponse.Type

/**
 * The query of a trace sent as it is (DECISIONS §16): the options the envelope may carry, the body's
 * winning. `patterns`, `max_patterns` and `budget_tokens` are shown as what they are and read as
 * text: the intake checks them as it checks the envelope's (Contract/Options.ts, one bound and one
 * message each).
 */
export const TraceQueryParams = Schema.Struct({
  ...AnalyzeQueryParams,
  patterns: Schema.optional(Schema.String.annotations({ description: "Pattern names to run, comma-separated, when the body does not say." })),
  max_patterns: Schema.optional(Schema.String.annotations({
    jsonSchema: { type: "integer", minimum: 1, maximum: MAX_PATTERNS_BOUND, description: `How many fitting patterns to run (1-${MAX_PATTERNS_BOUND}), when the body does not say.` }
  })),
  budget_tokens: Schema.optional(Schema.String.annotations({
    jsonSchema: { type: "integer", minimum: BUDGET_TOKENS.min, maximum: BUDGET_TOKENS.max, description: "The most tokens the lenses may spend, when the body does not say." }
  }))
})

/** `?output=`: the registry's outputs (src/Registry/Outputs.ts), refused by the contract naming them. */
export const OutputParam = Schema.optionalWith(
  // the identifier again: an annotated schema is a new one to OpenAPI, this one the same enum
  DiagnoseOutput.annotations({ identifier: "DiagnoseOutput", message: literalRefusal("output", DiagnoseOutput.literals) }),
  { exact: true }
)

/** `?artifact=`: the trace file as the client holds it, for SARIF. */
export const ArtifactParam = Schema.optional(
  Schema.String.annotations({ description: "The trace file's path as the client holds it, for SARIF locations (default trace.json)." })
)

export const DiagnoseParams = Schema.Struct({ ...TraceQueryParams.fields, output: OutputParam, artifact: ArtifactParam })

/** An output's response body in OpenAPI, by what the registry says it is. */
const outputSchema = (output: OutputEntry): Record<string, unknown> => {
  const description = `?output=${output.name}: ${output.description}`
  switch (output.body) {
    case "report":
      return { $ref: "#/components/schemas/DiagnoseResponse", description }
    case "text":
      return { type: "string", description }
    case "json":
      return { type: "object", description }
  }
}

/**
 * The diagnose responses in the OpenAPI document: one content type per output media type of the
 * registry (src/Registry/Outputs.ts), outputs that share one (json and otlp: application/json)
 * as alternatives. HttpApi unifies successes of one status into a single content type, so the
 * document is completed here (the endpoint's own successes stay what the typed client decodes).
 */
export const documentDiagnoseOutputs = (spec: Record<string, unknown>): Record<string, unknown> => {
  const paths = spec["paths"]
  const item = Predicate.isRecord(paths) ? paths["/v1/diagnose"] : undefined
  const post = Predicate.isRecord(item) ? item["post"] : undefined
  const responses = Predicate.isRecord(post) ? post["responses"] : undefined
  const success = Predicate.isRecord(responses) ? responses["200"] : undefined
  if (!Predicate.isRecord(paths) || !Predicate.isRecord(item) || !Predicate.isRecord(post) || !Predicate.isRecord(responses) || !Predicate.isRecord(success)) {
    return spec
  }
  const content: Record<string, { readonly schema: Record<string, unknown> }> = {}
  for (const mediaType of new Set(DIAGNOSE_OUTPUTS.map((output) => output.mediaType))) {
    const schemas = DIAGNOSE_OUTPUTS.filter((output) => output.mediaType === mediaType).map(outputSchema)
    content[mediaType] = { schema: schemas.length === 1 && schemas[0] !== undefined ? schemas[0] : { anyOf: schemas } }
  }
  const diagnose = {
    ...item,
    post: {
      ...post,
      responses: { ...responses, "200": { ...success, description: "The report, in the output asked for by `?output=` or `Accept`.", content } }
    }
  }
  return { ...spec, paths: { ...paths, "/v1/diagnose": diagnose } }
}

export class DiagnoseGroup extends HttpApiGroup.make("diagnose")
  .add(
    HttpApiEndpoint.post("diagnose", "/v1/diagnose")
      .setPayload(DiagnoseUpload)
      .setUrlParams(DiagnoseParams)
      .addSuccess(DiagnoseResponse)
      .addSuccess(HttpApiSchema.Text({ contentType: "text/markdown" }).annotations({ description: "?output=markdown or Accept: text/markdown" }), { status: 200 })
      .addError(ValidationErrorWire)
      .addError(UnsupportedTraceFormatWire)
      .addError(InvalidModeWire)
      .addError(UnauthorizedWire)
      .addError(RequestTooLargeWire)
      .addError(UnsupportedMediaTypeWire)
      .addError(RateLimitedWire)
      .addError(AuthMisconfiguredWire)
      .addError(TimeoutWire)
      .annotate(OpenApi.Summary, "Diagnose a trace: the lenses that fit it, one report")
      .annotate(
        OpenApi.Description,
        `Every trace goes through the deterministic checks first (the report's \`checks\`, with or without a model). Triage (by code, no model call) scores every pattern against the trace and picks the best \`max_patterns\` (or runs the \`patterns\` named); they run concurrently through the same engine as analyze, and their detections merge into one report: severity, the decisive step, findings with corroboration, ranked interventions, per-pattern detections, triage, coverage and usage. Output by \`?output=\` or \`Accept\`: ${OUTPUTS_DESCRIBED}. With no model provider configured the report still comes back: triage, signals and playbooks, every lens marked llm_resolution_error.`
      )
  )
  .add(
    HttpApiEndpoint.post("check", "/v1/checks")
      .setPayload(ChecksUpload)
      .setUrlParams(ChecksParams)
      .addSuccess(ChecksResponse)
      .addError(ValidationErrorWire)
      .addError(UnsupportedTraceFormatWire)
      .addError(UnauthorizedWire)
      .addError(RequestTooLargeWire)
      .addError(UnsupportedMediaTypeWire)
      .addError(RateLimitedWire)
      .addError(AuthMisconfiguredWire)
      .annotate(OpenApi.Summary, "Run the checks on a trace: deterministic findings, no model")
      .annotate(
        OpenApi.Description,
        "The diagnose's intake (format, select, trace limits, redaction), then the checks alone (DECISIONS §23): rules over the normalized trace such as a tool error the run carried on past, each finding citing the events it rests on (quoted, or described for an event without content). No lens runs and no model is called; the answer is the report's `trace`, `severity`, `checks` and `decisive_step`."
      )
  )
  .annotateEndpoints(EndpointAccess, Access.read)
  .annotate(OpenApi.Title, "Diagnose")
  .annotate(OpenApi.Description, "One trace in, the checks and the right lenses, one report (docs/diagnose.md).")
{}
