/**
 * The contract of `POST /v1/analyze/{name}`: one endpoint per pattern with its own request and
 * detection schema, plus a fallback that answers 404 `unknown_pattern` for any other name.
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import { Access, EndpointAccess } from "./Access.js"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import type { PatternSpec } from "../Catalogue/Contract.js"
import { Mode } from "../Catalogue/Resources.js"
import { IMPORTED_FORMATS_READ, MODE_NAMES } from "../Registry/Derived.js"
import { alternatives } from "../Registry/Entries.js"
import { FORMAT_OPTIONS } from "../Traces/Model.js"
import { queryLiteral } from "./Queries.js"
import { BaselineOption, FormatOptionValue, HintsOption, ModelOption, ModeOption, SelectOption } from "./Options.js"
import {
  AnalyzerErrorWire,
  AuthMisconfiguredWire,
  InvalidModeWire,
  LlmResolutionErrorWire,
  RateLimitedWire,
  RequestTooLargeWire,
  TimeoutWire,
  UnauthorizedWire,
  UnknownPatternWire,
  UnsupportedMediaTypeWire,
  UnsupportedTraceFormatWire,
  ValidationErrorWire
} from "../Errors.js"

/** The options of an analysis (beside the trace and the raw trace's options), as Options.ts bounds them. */
export const analyzeOptions = {
  mode: Schema.optional(ModeOption),
  model: Schema.optional(ModelOption),
  baseline: Schema.optional(BaselineOption)
}

/** A trace as its tool wrote it, in a supported format (DECISIONS §12). */
export const RawTrace = Schema.Union(
  Schema.Array(Schema.Unknown),
  Schema.Record({ key: Schema.String, value: Schema.Unknown })
).annotations({
  identifier: "RawTrace",
  description: `A trace in a supported format, sent as its tool wrote it: ${IMPORTED_FORMATS_READ}. JSON Lines bodies (application/x-ndjson) are read as a list of records. docs/traces.md describes each format's mapping.`
})

export { BaselineId, TraceHints, TraceSelect } from "./Options.js"

/** The options a raw trace travels with, in the envelope. */
export const rawTraceOptions = {
  format: Schema.optional(FormatOptionValue),
  select: Schema.optional(SelectOption),
  hints: Schema.optional(HintsOption)
}

/**
 * Request body: the envelope `{trace, mode?, model?, baseline?, format?, select?, hints?}` (the
 * trace in the pattern's own shape or in a supported format), the flat trace with top-level
 * options, or a raw trace sent as it is (default options). The two members in the pattern's shape
 * are built when first read (`Schema.suspend`: the OpenAPI document, the typed client's first
 * call), not at start-up: the edge answers analyze itself (AnalyzeAtEdge.ts) and its route table
 * reads only paths and access (issue 52).
 */
export const analyzeRequest = <Slug extends string, P extends string, I, IE, H, HE>(
  spec: PatternSpec<Slug, P, I, IE, H, HE>
) =>
  Schema.Union(
    Schema.suspend(() =>
      Schema.Struct({ trace: Schema.Union(spec.input, RawTrace), ...analyzeOptions, ...rawTraceOptions }).annotations({
        identifier: `${spec.name}AnalyzeEnvelope`,
        description:
          "Envelope body: the trace under `trace` (the pattern's own input shape, or a trace in a supported format), options beside it."
      })
    ),
    Schema.suspend(() =>
      Schema.extend(Schema.encodedBoundSchema(spec.input), Schema.Struct(analyzeOptions)).annotations({
        identifier: `${spec.name}AnalyzeFlat`,
        description: "Flat body: the trace fields at the top level, options beside them."
      })
    ),
    RawTrace
  ).annotations({
    identifier: `${spec.name}AnalyzeRequest`,
    description:
      `A trace for ${spec.friendly}: flat or in an envelope in the pattern's own shape, or any supported trace format, as it is or in the envelope.`
  })

/** What redaction replaced before the analysis (DECISIONS §20), by kind. */
export const Redactions = Schema.Record({ key: Schema.String, value: Schema.Int }).annotations({
  identifier: "Redactions",
  description:
    "Secrets (and, with SVC_REDACT=secrets,pii, personal data) replaced by placeholders such as `[email:3f9a1c]` in the trace and the hints before anything kept or sent them, by kind; absent when none."
})

const ANALYZE_RESPONSE_DESCRIPTION = "AnalyzeResponseEnvelope"

/** Response body: the envelope around the pattern's detection. */
export const analyzeResponse = <Slug extends string, D, DE>(slug: Slug, name: string, detection: Schema.Schema<D, DE>) =>
  Schema.Struct({
    pattern: Schema.Literal(slug),
    mode: Mode,
    model: Schema.String.annotations({ description: "The model actually called." }),
    cached: Schema.Boolean.annotations({ description: "True when the detection came from the cache." }),
    detection,
    redactions: Schema.optional(Redactions)
  }).annotations({ identifier: `${name}AnalyzeResponse`, description: ANALYZE_RESPONSE_DESCRIPTION })

/**
 * Options as query parameters (DECISIONS §16), for a body sent as it is (a raw trace, JSON Lines):
 * the envelope wins where both give one. Analyze declares them in the OpenAPI document only
 * (`documentQueryOptions`): its 34 endpoints are answered at the edge (AnalyzeAtEdge.ts), and as
 * url parameters every typed-client call would have to pass `urlParams`.
 */
const QUERY_DESCRIPTIONS = {
  format: `The trace's format (${FORMAT_OPTIONS.join(", ")}), when the body does not say.`,
  select: "One trace of several: its id, or its index (digits: `?select=1` is the second trace), when the body does not say.",
  mode: `${alternatives(MODE_NAMES)}, when the body does not say.`,
  model: "The model to call (`provider:model` selects the provider), when the body does not say."
} as const
const queryText = (name: keyof typeof QUERY_DESCRIPTIONS) => Schema.optional(Schema.String.annotations({ description: QUERY_DESCRIPTIONS[name] }))
/**
 * The options as the endpoints that take a trace as it is declare them (diagnose, checks, normalize,
 * `POST /v1/runs`): `format` one of the formats, refused by the contract naming them; `mode` the
 * modes, shown as an enum and read as text, so a bad one is the intake's 400 `invalid_mode` (as in
 * the body, DECISIONS §3); `select` an id or an index, read by the intake.
 */
export const AnalyzeQueryParams = {
  format: queryLiteral("format", FORMAT_OPTIONS, QUERY_DESCRIPTIONS.format),
  select: queryText("select"),
  mode: Schema.optional(Schema.String.annotations({ jsonSchema: { type: "string", enum: MODE_NAMES, description: QUERY_DESCRIPTIONS.mode } })),
  model: queryText("model")
}

const queryParameter = (name: keyof typeof QUERY_DESCRIPTIONS) => ({
  name,
  in: "query",
  required: false,
  schema: { type: "string", description: QUERY_DESCRIPTIONS[name] },
  description: QUERY_DESCRIPTIONS[name]
})

/** The OpenAPI document with the query options of analyze declared (see above). */
export const documentQueryOptions = (spec: Record<string, unknown>): Record<string, unknown> => {
  const paths = spec["paths"]
  if (!Predicate.isRecord(paths)) return spec
  const analyze = [queryParameter("format"), queryParameter("select"), queryParameter("mode"), queryParameter("model")]
  const out: Record<string, unknown> = {}
  for (const [path, item] of Object.entries(paths)) {
    const parameters = path.startsWith("/v1/analyze/") && !path.includes("{") ? analyze : undefined
    const post = Predicate.isRecord(item) ? item["post"] : undefined
    out[path] = parameters === undefined || !Predicate.isRecord(item) || !Predicate.isRecord(post) ? item : { ...item, post: { ...post, parameters } }
  }
  return { ...spec, paths: out }
}

/**
 * The errors an analysis answers, one union for the 34 endpoints (each endpoint's `addError` of
 * them one by one made 11 unions per pattern at start-up); the platform flattens it, so each
 * endpoint declares the same members in the same order.
 */
const AnalyzeErrors = Schema.Union(
  ValidationErrorWire,
  UnsupportedTraceFormatWire,
  InvalidModeWire,
  UnauthorizedWire,
  RequestTooLargeWire,
  UnsupportedMediaTypeWire,
  RateLimitedWire,
  AuthMisconfiguredWire,
  LlmResolutionErrorWire,
  AnalyzerErrorWire,
  TimeoutWire
)

/**
 * One endpoint per pattern: `POST /v1/analyze/<slug>`, named by the slug. Its response schema,
 * with the pattern's detection schema, is built when first read, as the request's members are
 * (`analyzeRequest`): start-up built 34 of each that no request had asked for yet.
 */
export const analyzeEndpoint = <const Slug extends string, P extends string, I, IE, H, HE, D, DE>(definition: {
  readonly spec: PatternSpec<Slug, P, I, IE, H, HE>
  readonly detection: Schema.Schema<D, DE>
}) =>
  HttpApiEndpoint.post(definition.spec.slug, `/v1/analyze/${definition.spec.slug}`)
      .setPayload(analyzeRequest(definition.spec))
      .addSuccess(
        Schema.suspend(() => analyzeResponse(definition.spec.slug, definition.spec.name, definition.detection))
          .annotations({ description: ANALYZE_RESPONSE_DESCRIPTION })
      )
      .addError(AnalyzeErrors)
      .annotate(OpenApi.Summary, `Analyze a trace with ${definition.spec.friendly} (${definition.spec.anchor})`)
      .annotate(OpenApi.Description, definition.spec.summary)
      .annotate(EndpointAccess, Access.read)

/** The fallback for names outside the catalogue. */
export const unknownPatternEndpoint = HttpApiEndpoint.post("unknownPattern", "/v1/analyze/:name")
  .setPath(Schema.Struct({ name: Schema.String.annotations({ description: "A name that is not in the catalogue." }) }))
  .addError(UnknownPatternWire)
  .annotate(OpenApi.Summary, "Any other name: 404 unknown_pattern")
  .annotate(EndpointAccess, Access.read)
